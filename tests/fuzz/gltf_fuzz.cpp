// libFuzzer: the glTF document writer (exporters/gltf/gltf_document.cpp) on hostile content: names
// of any bytes (not UTF-8), floats that are NaN or infinite, counts that do not fit the type or
// the mesh, accessor indices out of range, and documents read from a .glb of any bytes.
//
// Byte 0 selects the document: even, a new one; odd, GltfDocument::from_glb of the bytes that
// follow up to the first "DRAPE-OPS" marker (the program after it, none without a marker). The
// rest is a program of operations, one opcode byte each followed by its operands (see `run`), that
// keeps the writer's documented contract (a view opened is closed before any other addition;
// text elements are complete JSON values) so that whatever fails is the writer's. The document
// is then written every way (glb(), the streamed GLB, .gltf text) and its GLB read back.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "drape/exporters/gltf_document.h"

using namespace drape;
using exporters::GltfDocument;

namespace {

constexpr std::string_view k_marker = "DRAPE-OPS";
const char* const k_types[] = {"SCALAR", "VEC2", "VEC3", "VEC4", "MAT4"};

struct Input {
    const uint8_t* p;
    size_t n;
    bool empty() const { return n == 0; }
    uint8_t byte() {
        if (!n) return 0;
        --n;
        return *p++;
    }
    uint16_t u16() {
        const uint8_t low = byte();
        return uint16_t(low | byte() << 8);
    }
    // A length byte, then that many bytes (fewer at the end of the input).
    std::vector<uint8_t> bytes() {
        const size_t len = std::min<size_t>(byte(), n);
        std::vector<uint8_t> out(p, p + len);
        p += len, n -= len;
        return out;
    }
    std::string text() {
        const auto b = bytes();
        return std::string(b.begin(), b.end());
    }
    template <class T>
    std::vector<T> values(size_t count) {
        count = std::min(count, n / sizeof(T));
        std::vector<T> out(count);
        if (count) std::memcpy(out.data(), p, count * sizeof(T));
        p += count * sizeof(T), n -= count * sizeof(T);
        return out;
    }
};

void run(GltfDocument& doc, Input& in) {
    for (int ops = 0; ops < 64 && !in.empty(); ++ops) {
        switch (in.byte() % 11) {
            case 0: {
                const auto b = in.bytes();
                const int target = in.byte() & 1 ? exporters::k_gltf_array_buffer : 0;
                const std::string name = in.text();
                doc.add_view(b.data(), b.size(), target, name);
                break;
            }
            case 1: {
                const uint8_t how = in.byte();
                const auto v = in.values<float>(in.u16());
                doc.add_accessor(std::span<const float>(v), k_types[how % 5], 0, (how & 0x80) != 0);
                break;
            }
            case 2: {
                const uint8_t how = in.byte();
                const auto v = in.values<uint16_t>(in.u16());
                doc.add_accessor(std::span<const uint16_t>(v), k_types[how % 5], exporters::k_gltf_element_array_buffer);
                break;
            }
            case 3: {
                const uint8_t how = in.byte();
                const auto v = in.values<uint32_t>(in.u16());
                doc.add_accessor(std::span<const uint32_t>(v), k_types[how % 5]);
                break;
            }
            case 4: {
                const std::string name = in.text();
                const auto png = in.bytes();
                doc.add_png_image(name, png);
                break;
            }
            case 5: {  // a view written piecewise, closed before anything else
                doc.begin_view();
                for (uint8_t k = in.byte() % 4; k > 0; --k) {
                    const auto b = in.bytes();
                    doc.append_to_view(b.data(), b.size());
                }
                const std::string name = in.text();
                doc.end_view(0, name);
                break;
            }
            case 6:
            case 7: {  // text elements: complete JSON values carrying hostile names and counts
                const std::string name = in.text();
                const uint16_t count = in.u16();
                const nlohmann::json e = {{"name", name}, {"count", count}, {"type", k_types[in.byte() % 5]}};
                const std::string text = e.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
                if (ops % 2) doc.append_accessor_text(text);
                else doc.append_animation_text(text);
                break;
            }
            case 8: {  // a mesh on an accessor index given (maybe out of range) and a node using it
                auto& js = doc.json();
                if (!js.contains("meshes")) js["meshes"] = nlohmann::json::array();
                if (!js.contains("nodes")) js["nodes"] = nlohmann::json::array();
                if (!js["meshes"].is_array() || !js["nodes"].is_array()) break;
                const size_t mesh = js["meshes"].size();
                const std::string mesh_name = in.text();
                const int position = int(int8_t(in.byte()));
                const std::string node_name = in.text();
                js["meshes"].push_back({{"name", mesh_name}, {"primitives", {{{"attributes", {{"POSITION", position}}}}}}});
                js["nodes"].push_back({{"name", node_name}, {"mesh", mesh}});
                break;
            }
            case 9: {
                const int mesh = int(int8_t(in.byte()));
                std::vector<std::vector<float>> deltas(in.byte() % 4);
                std::vector<std::string> names;
                for (auto& d : deltas) {
                    d = in.values<float>(in.u16());
                    if (in.byte() & 1) names.push_back(in.text());
                }
                if (names.size() != deltas.size()) names.clear();
                (void)doc.add_morph_targets(mesh, deltas, names);
                break;
            }
            case 10: {
                const std::string name = in.text();
                (void)doc.node_by_name(name);
                (void)doc.mesh_by_name(name);
                break;
            }
        }
    }
}

void write_every_way(GltfDocument& doc) {
    (void)doc.accessor_count();
    (void)doc.animation_count();
    const std::vector<uint8_t> glb = doc.glb();
    std::ostringstream streamed;
    (void)doc.write_glb(streamed);
    (void)doc.gltf_text("fuzz.bin");
    auto back = GltfDocument::from_glb(glb);
    if (back) {
        (void)exporters::prefix_latin_less_node_names(back->json());
        (void)back->glb();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    Input in{data + 1, size - 1};
    if (data[0] & 1) {
        const std::string_view all(reinterpret_cast<const char*>(in.p), in.n);
        const size_t at = all.find(k_marker);
        const size_t glb_size = at == std::string_view::npos ? in.n : at;
        (void)exporters::read_glb(Bytes(in.p, glb_size));
        auto doc = GltfDocument::from_glb(Bytes(in.p, glb_size));
        if (!doc) return 0;
        in = at == std::string_view::npos ? Input{in.p + in.n, 0} : Input{in.p + at + k_marker.size(), in.n - at - k_marker.size()};
        run(*doc, in);
        write_every_way(*doc);
        return 0;
    }
    GltfDocument doc;
    run(doc, in);
    write_every_way(doc);
    return 0;
}
