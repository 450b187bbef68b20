// The one glTF document: JSON (nlohmann) + one binary buffer, and its GLB container.
#include "drape/exporters/gltf_document.h"

#include <algorithm>
#include <cstring>
#include <ostream>
#include <set>
#include <stdexcept>

namespace drape::exporters {

using njson = nlohmann::json;

namespace {

constexpr uint32_t k_glb_magic = 0x46546C67;   // "glTF"
constexpr uint32_t k_chunk_json = 0x4E4F534A;  // "JSON"
constexpr uint32_t k_chunk_bin = 0x004E4942;   // "BIN\0"

size_t components(const char* type) {
    if (std::strcmp(type, "SCALAR") == 0) return 1;
    if (std::strcmp(type, "VEC2") == 0) return 2;
    if (std::strcmp(type, "VEC3") == 0) return 3;
    if (std::strcmp(type, "VEC4") == 0) return 4;
    return 16;  // MAT4
}

void put_u32(std::vector<uint8_t>& out, uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}

bool is_int(const njson& j) { return j.is_number_integer() || j.is_number_unsigned(); }

}  // namespace

GltfDocument::GltfDocument() {
    m_json = {{"asset", {{"version", "2.0"}, {"generator", "drape 0.1.0"}}}};
}

void GltfDocument::require_no_open_view(const char* what) const {
    if (m_open_view != k_no_open_view)
        throw std::logic_error(std::string("GltfDocument: ") + what + " while a view is open (begin_view without end_view)");
}

int GltfDocument::add_view(const void* bytes, size_t size, int target, const std::string& name) {
    require_no_open_view("add_view");
    begin_view();
    append_to_view(bytes, size);
    return end_view(target, name);
}

size_t GltfDocument::begin_view() {
    require_no_open_view("begin_view");
    while (m_bin.size() % 4) m_bin.push_back(0);
    m_open_view = m_bin.size();
    return m_open_view;
}

void GltfDocument::append_to_view(const void* bytes, size_t size) {
    if (m_open_view == k_no_open_view) throw std::logic_error("GltfDocument: append_to_view without begin_view");
    const auto* p = static_cast<const uint8_t*>(bytes);
    if (size) m_bin.insert(m_bin.end(), p, p + size);
}

int GltfDocument::end_view(int target, const std::string& name) {
    if (m_open_view == k_no_open_view) throw std::logic_error("GltfDocument: end_view without begin_view");
    njson view = {{"buffer", 0}, {"byteOffset", m_open_view}, {"byteLength", m_bin.size() - m_open_view}};
    m_open_view = k_no_open_view;
    if (target) view["target"] = target;
    if (!name.empty()) view["name"] = name;
    if (!m_json.contains("bufferViews")) m_json["bufferViews"] = njson::array();
    m_json["bufferViews"].push_back(std::move(view));
    return int(m_json["bufferViews"].size()) - 1;
}

int GltfDocument::append_text(const char* array, TextTail& tail, std::string_view element) {
    if (tail.count == 0) tail.tree_base = m_json.contains(array) && m_json[array].is_array() ? m_json[array].size() : 0;
    if (tail.count) tail.text.push_back(',');
    tail.text.append(element);
    return int(tail.tree_base + tail.count++);
}

int GltfDocument::append_accessor_text(std::string_view element) { return append_text("accessors", m_text_accessors, element); }
int GltfDocument::append_animation_text(std::string_view element) { return append_text("animations", m_text_animations, element); }

size_t GltfDocument::accessor_count() const {
    return m_text_accessors.count ? m_text_accessors.tree_base + m_text_accessors.count
                                  : m_json.contains("accessors") ? m_json["accessors"].size() : 0;
}

size_t GltfDocument::animation_count() const {
    return m_text_animations.count ? m_text_animations.tree_base + m_text_animations.count
                                   : m_json.contains("animations") ? m_json["animations"].size() : 0;
}

int GltfDocument::push_accessor(njson acc) {
    // After text accessors, as text too: the indices stay in the order of the calls.
    if (m_text_accessors.count) return append_accessor_text(acc.dump(-1, ' ', false, njson::error_handler_t::replace));
    if (!m_json.contains("accessors")) m_json["accessors"] = njson::array();
    m_json["accessors"].push_back(std::move(acc));
    return int(m_json["accessors"].size()) - 1;
}

int GltfDocument::add_accessor_bytes(const void* data, size_t bytes, size_t count, int component_type, const char* type, int target,
                                     const float* min, const float* max) {
    njson acc = {{"bufferView", add_view(data, bytes, target)}, {"byteOffset", 0}, {"componentType", component_type},
                {"count", count}, {"type", type}};
    if (min && max) {
        const size_t comps = components(type);
        acc["min"] = std::vector<float>(min, min + comps);
        acc["max"] = std::vector<float>(max, max + comps);
    }
    return push_accessor(std::move(acc));
}

int GltfDocument::add_accessor(std::span<const float> values, const char* type, int target, bool min_max) {
    const size_t comps = components(type);
    if (min_max && values.size() >= comps) {
        std::vector<float> mn(values.begin(), values.begin() + long(comps)), mx = mn;
        for (size_t i = 0; i < values.size(); ++i) {
            mn[i % comps] = std::min(mn[i % comps], values[i]);
            mx[i % comps] = std::max(mx[i % comps], values[i]);
        }
        return add_accessor_bytes(values.data(), values.size() * 4, values.size() / comps, k_gltf_float, type, target, mn.data(), mx.data());
    }
    return add_accessor_bytes(values.data(), values.size() * 4, values.size() / comps, k_gltf_float, type, target);
}

int GltfDocument::add_accessor(std::span<const uint16_t> values, const char* type, int target) {
    return add_accessor_bytes(values.data(), values.size() * 2, values.size() / components(type), k_gltf_unsigned_short, type, target);
}

int GltfDocument::add_accessor(std::span<const uint32_t> values, const char* type, int target) {
    return add_accessor_bytes(values.data(), values.size() * 4, values.size() / components(type), k_gltf_unsigned_int, type, target);
}

int GltfDocument::add_png_image(const std::string& name, std::span<const uint8_t> png) {
    const int view = add_view(png.data(), png.size(), 0, name);
    if (!m_json.contains("images")) m_json["images"] = njson::array();
    m_json["images"].push_back({{"name", name}, {"bufferView", view}, {"mimeType", "image/png"}});
    return int(m_json["images"].size()) - 1;
}

int GltfDocument::node_by_name(const std::string& name) const {
    if (!m_json.contains("nodes")) return -1;
    const auto& nodes = m_json["nodes"];
    for (size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].contains("name") && nodes[i]["name"] == name) return int(i);
    return -1;
}

int GltfDocument::mesh_by_name(const std::string& name) const {
    if (!m_json.contains("meshes")) return -1;
    const auto& meshes = m_json["meshes"];
    for (size_t i = 0; i < meshes.size(); ++i)
        if (meshes[i].contains("name") && meshes[i]["name"] == name) return int(i);
    return -1;
}

Result<void> GltfDocument::add_morph_targets(int mesh, std::span<const std::vector<float>> deltas, std::span<const std::string> names) {
    if (!m_json.contains("meshes") || mesh < 0 || size_t(mesh) >= m_json["meshes"].size())
        return make_error("mesh " + std::to_string(mesh) + " is not in the document", "gltf.morph_targets");
    njson& m = m_json["meshes"][size_t(mesh)];
    for (auto& prim : m["primitives"]) {
        const int pos = prim["attributes"]["POSITION"].get<int>();
        if (pos < 0 || !m_json.contains("accessors") || size_t(pos) >= m_json["accessors"].size())
            return make_error("the POSITION accessor of mesh " + std::to_string(mesh) + " is not in the JSON tree", "gltf.morph_targets");
        const size_t count = m_json["accessors"][size_t(pos)]["count"].get<size_t>();
        for (const auto& d : deltas)
            if (d.size() != count * 3)
                return make_error("a morph target has " + std::to_string(d.size() / 3) + " vertices for " + std::to_string(count),
                                  "gltf.morph_targets");
        njson targets = njson::array();
        for (const auto& d : deltas) targets.push_back({{"POSITION", add_accessor(d, "VEC3", k_gltf_array_buffer, true)}});
        prim["targets"] = std::move(targets);
    }
    m["weights"] = std::vector<float>(deltas.size(), 0.0f);
    if (!names.empty()) {
        if (!m.contains("extras")) m["extras"] = njson::object();
        m["extras"]["targetNames"] = std::vector<std::string>(names.begin(), names.end());
    }
    return {};
}

std::vector<uint8_t> write_glb(std::string js, std::span<const uint8_t> bin) {
    while (js.size() % 4) js.push_back(' ');
    const size_t bin_padded = (bin.size() + 3) / 4 * 4;
    const size_t total = 12 + 8 + js.size() + (bin.empty() ? 0 : 8 + bin_padded);
    std::vector<uint8_t> out;
    out.reserve(total);
    put_u32(out, k_glb_magic);
    put_u32(out, 2);
    put_u32(out, uint32_t(total));
    put_u32(out, uint32_t(js.size()));
    put_u32(out, k_chunk_json);
    out.insert(out.end(), js.begin(), js.end());
    if (!bin.empty()) {
        put_u32(out, uint32_t(bin_padded));
        put_u32(out, k_chunk_bin);
        out.insert(out.end(), bin.begin(), bin.end());
        out.resize(total, 0);
    }
    return out;
}

namespace {

// The document's JSON with its one buffer declared, spliced into the text rather than added to a
// copy of the JSON tree (a character with every clip holds a tree of ~100 MB).
std::string with_buffer(const njson& doc, int indent, size_t bin_size, const std::string& uri) {
    std::string text = doc.dump(indent, ' ', false, njson::error_handler_t::replace);
    if (bin_size == 0 || text.size() < 2 || text.back() != '}') return text;
    njson buffer = {{"byteLength", bin_size}};
    if (!uri.empty()) buffer["uri"] = uri;
    text.pop_back();
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    text += (text.size() > 1 ? "," : "") + std::string("\"buffers\":[") + buffer.dump() + "]}";
    return text;
}

}  // namespace

// The tree and the text elements as one JSON text, "buffers" being the document's one buffer.
// Compact text (indent < 0) is written key by key in the tree's (sorted) key order, each array
// with text elements as its tree elements then the text: the same bytes nlohmann's dump gives for
// the same elements in the tree. Indented text (.gltf) parses the text elements into a copy.
std::string GltfDocument::json_text(int indent, const std::string& uri) const {
    const bool tails = m_text_accessors.count || m_text_animations.count;
    auto check_base = [&](const char* array, const TextTail& tail) {
        const size_t tree = m_json.contains(array) && m_json[array].is_array() ? m_json[array].size() : 0;
        if (tail.count && tree != tail.tree_base)
            throw std::logic_error(std::string("GltfDocument: json()[\"") + array + "\"] grew after text elements were appended");
    };
    check_base("accessors", m_text_accessors);
    check_base("animations", m_text_animations);
    if (indent >= 0 || !tails) {
        if (!tails && !m_json.contains("buffers")) return with_buffer(m_json, indent, m_bin.size(), uri);
        njson doc = m_json;
        doc.erase("buffers");
        for (const auto& [array, tail] : {std::pair<const char*, const TextTail*>{"accessors", &m_text_accessors}, {"animations", &m_text_animations}}) {
            if (!tail->count) continue;
            njson elements = njson::parse("[" + tail->text + "]");
            njson& a = doc[array];
            if (!a.is_array()) a = njson::array();
            for (auto& e : elements) a.push_back(std::move(e));
        }
        return with_buffer(doc, indent, m_bin.size(), uri);
    }
    std::set<std::string> keys;
    for (const auto& [k, v] : m_json.items()) keys.insert(k);
    keys.erase("buffers");
    if (m_text_accessors.count) keys.insert("accessors");
    if (m_text_animations.count) keys.insert("animations");
    std::string out = "{";
    for (const std::string& k : keys) {
        if (out.size() > 1) out.push_back(',');
        out += njson(k).dump(-1, ' ', false, njson::error_handler_t::replace);
        out.push_back(':');
        const TextTail* tail = k == "accessors" ? &m_text_accessors : k == "animations" ? &m_text_animations : nullptr;
        if (tail && tail->count) {
            out.push_back('[');
            if (m_json.contains(k) && m_json[k].is_array())
                for (const auto& e : m_json[k]) {
                    out += e.dump(-1, ' ', false, njson::error_handler_t::replace);
                    out.push_back(',');
                }
            out += tail->text;
            out.push_back(']');
        } else {
            out += m_json[k].dump(-1, ' ', false, njson::error_handler_t::replace);
        }
    }
    if (!m_bin.empty()) {
        njson buffer = {{"byteLength", m_bin.size()}};
        if (!uri.empty()) buffer["uri"] = uri;
        out += (out.size() > 1 ? "," : "") + std::string("\"buffers\":[") + buffer.dump() + "]";
    }
    out.push_back('}');
    return out;
}

std::vector<uint8_t> GltfDocument::glb() const {
    // Buffers are the document's own: one, the BIN chunk (any "buffers" read by from_glb is replaced).
    return exporters::write_glb(json_text(-1, ""), m_bin);
}

bool GltfDocument::write_glb(std::ostream& out) const {
    std::string js = json_text(-1, "");
    while (js.size() % 4) js.push_back(' ');
    const size_t bin_padded = (m_bin.size() + 3) / 4 * 4;
    const size_t total = 12 + 8 + js.size() + (m_bin.empty() ? 0 : 8 + bin_padded);
    std::vector<uint8_t> head;
    put_u32(head, k_glb_magic);
    put_u32(head, 2);
    put_u32(head, uint32_t(total));
    put_u32(head, uint32_t(js.size()));
    put_u32(head, k_chunk_json);
    out.write(reinterpret_cast<const char*>(head.data()), std::streamsize(head.size()));
    out.write(js.data(), std::streamsize(js.size()));
    if (!m_bin.empty()) {
        head.clear();
        put_u32(head, uint32_t(bin_padded));
        put_u32(head, k_chunk_bin);
        out.write(reinterpret_cast<const char*>(head.data()), std::streamsize(head.size()));
        out.write(reinterpret_cast<const char*>(m_bin.data()), std::streamsize(m_bin.size()));
        const char zeros[4] = {};
        out.write(zeros, std::streamsize(bin_padded - m_bin.size()));
    }
    return bool(out);
}

std::string GltfDocument::gltf_text(const std::string& bin_uri) const { return json_text(2, bin_uri); }

Result<Glb> read_glb(Bytes data) {
    ByteReader r(data);
    if (!r.expect<uint32_t>(k_glb_magic, "glb.magic") || !r.expect<uint32_t>(2, "glb.version")) return r.error();
    const uint32_t length = r.u32("glb.length");
    if (r.failed()) return r.error();
    if (length > data.size())
        return make_error_at(8, "glb.length", "declares " + std::to_string(length) + " B, the file has " + std::to_string(data.size()));
    if (length < 12) return make_error_at(8, "glb.length", "shorter than the header");
    ByteReader body = r.slice(12, length - 12, "glb.chunks");
    if (r.failed()) return r.error();
    Glb g;
    bool have_json = false, have_bin = false;
    while (body.remaining() > 0) {
        const uint32_t size = body.u32("glb.chunk.length");
        const uint32_t type = body.u32("glb.chunk.type");
        Bytes chunk = body.take(size, "glb.chunk.data");
        if (body.failed()) return body.error();
        if (type == k_chunk_json && !have_json) {
            g.json.assign(reinterpret_cast<const char*>(chunk.data()), chunk.size());
            have_json = true;
        } else if (type == k_chunk_bin && have_json && !have_bin) {
            g.bin.assign(chunk.begin(), chunk.end());
            have_bin = true;
        }
        if (!body.align(4, "glb.chunk.padding")) return body.error();
    }
    if (!have_json) return make_error_at(12, "glb.chunk.type", "no JSON chunk first");
    return g;
}

Result<GltfDocument> GltfDocument::from_glb(Bytes data) {
    auto g = read_glb(data);
    if (!g) return g.error();
    std::string& text = g->json;
    std::vector<uint8_t>& bin = g->bin;
    GltfDocument doc;
    doc.m_json = njson::parse(text, nullptr, false);
    if (doc.m_json.is_discarded() || !doc.m_json.is_object()) return make_error_at(20, "glb.json", "the JSON chunk is not a JSON object");
    njson& j = doc.m_json;
    for (const char* key : {"accessors", "bufferViews", "animations", "scenes", "nodes", "meshes", "images", "buffers"})
        if (j.contains(key) && !j[key].is_array()) return make_error("not an array", std::string("glb.json.") + key);
    if (j.contains("buffers")) {
        if (j["buffers"].size() > 1) return make_error("more than one buffer; only self-contained .glb files can be extended", "glb.json.buffers");
        if (!j["buffers"].empty()) {
            const njson& b = j["buffers"][0];
            if (!b.is_object() || b.contains("uri"))
                return make_error("buffer 0 is not the GLB's own BIN chunk; only self-contained .glb files can be extended", "glb.json.buffers");
            if (b.contains("byteLength") && is_int(b["byteLength"]) && b["byteLength"].get<uint64_t>() <= bin.size())
                bin.resize(b["byteLength"].get<uint64_t>());  // drop the chunk's own padding
        }
    }
    if (j.contains("bufferViews"))
        for (const auto& v : j["bufferViews"])
            if (!v.is_object() || !v.contains("buffer") || !is_int(v["buffer"]) || v["buffer"].get<int64_t>() != 0)
                return make_error("a bufferView does not name buffer 0", "glb.json.bufferViews");
    j.erase("buffers");  // glb() declares the one buffer again
    doc.m_bin = std::move(bin);
    return doc;
}

size_t prefix_latin_less_node_names(nlohmann::json& doc) {
    if (!doc.contains("nodes") || !doc["nodes"].is_array()) return 0;
    size_t renamed = 0;
    auto& nodes = doc["nodes"];
    for (size_t i = 0; i < nodes.size(); ++i) {
        auto& n = nodes[i];
        if (!n.is_object() || !n.contains("name") || !n["name"].is_string()) continue;
        const std::string game = n["name"].get<std::string>();
        if (std::any_of(game.begin(), game.end(), [](char c) { return std::isalnum(uint8_t(c)) && uint8_t(c) < 0x80; })) continue;
        n["name"] = "node" + std::to_string(i) + "_" + game;
        if (!n.contains("extras") || !n["extras"].is_object()) n["extras"] = nlohmann::json::object();
        n["extras"]["game_name"] = game;
        ++renamed;
    }
    return renamed;
}


}  // namespace drape::exporters
