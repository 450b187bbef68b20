// FLVER2 model -> glTF 2.0 nodes, skin, meshes, materials and textures in a GltfDocument.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <sstream>

#include "drape/exporters/gltf.h"
#include "drape/exporters/gltf_document.h"
#include "drape/io/file.h"
#include "xform.h"

namespace drape::exporters {

namespace {

using json = nlohmann::json;

std::string lower(std::string s) {
    for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

enum class Role { none, albedo, normal, reflectance };

Role texture_role(const flver::Texture& t) {
    std::string key = texture_key(t.path);
    if (key.empty() || key.rfind("systex_", 0) == 0) return Role::none;
    auto ends = [&](const char* suffix) {
        size_t n = std::strlen(suffix);
        return key.size() > n && key.compare(key.size() - n, n, suffix) == 0;
    };
    if (ends("_a")) return Role::albedo;
    if (ends("_n")) return Role::normal;
    if (ends("_r")) return Role::reflectance;
    return Role::none;
}

// glTF tangent from the FLVER tangent (docs/formats.md#vertex-layouts: the stored tangent points
// along +V and w * cross(normal, tangent) along +U). glTF wants the tangent along +U and
// bitangent = cross(normal, tangent) * w; after the mirror (det -1) that gives w_gltf = -w.
void gltf_tangent(const xf::V3& n_game, const flver::Vec4& t, xf::V3& out_xyz, float& out_w) {
    double w = t.w < 0 ? -1.0 : 1.0;
    xf::V3 tv{t.x, t.y, t.z};
    xf::V3 u = xf::cross(n_game, tv);
    u = {u[0] * w, u[1] * w, u[2] * w};
    // Re-orthogonalise against the normal.
    double d = xf::dot(u, n_game);
    u = {u[0] - n_game[0] * d, u[1] - n_game[1] * d, u[2] - n_game[2] * d};
    if (!xf::normalize(u)) {
        // Any unit vector perpendicular to the normal.
        xf::V3 a = std::fabs(n_game[0]) < 0.9 ? xf::V3{1, 0, 0} : xf::V3{0, 1, 0};
        u = xf::cross(n_game, a);
        xf::normalize(u);
    }
    out_xyz = xf::mirror(u);
    out_w = float(-w);
}

}  // namespace

std::string gltf_mesh_name(const flver::Model& model, size_t mi) {
    const auto& m = model.meshes[mi];
    const std::string material =
        m.material >= 0 && size_t(m.material) < model.materials.size() ? model.materials[size_t(m.material)].name : "";
    char label[32];
    std::snprintf(label, sizeof label, "mesh%02zu", mi);
    std::string name = label;
    if (const int mask = flver::display_mask(material); mask >= 0) {
        std::snprintf(label, sizeof label, "_mask%02d", mask);
        name += label;
    }
    return name + "_" + material;
}

std::string texture_key(const std::string& path) {
    size_t slash = path.find_last_of("/\\");
    std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    size_t dot = base.find_last_of('.');
    if (dot != std::string::npos) base = base.substr(0, dot);
    return lower(base);
}

namespace {

// Each FLVER node's bind transform in game space: its local transform times its parents'.
std::vector<xf::Mat4> world_bind_matrices(const flver::Model& model) {
    const size_t node_count = model.nodes.size();
    std::vector<xf::Mat4> world(node_count);
    std::vector<uint8_t> done(node_count);
    for (size_t i = 0; i < node_count; ++i) {
        // Walk up to the first computed ancestor (the reader guarantees no cycles).
        std::vector<size_t> chain;
        for (int32_t k = int32_t(i); k >= 0 && !done[size_t(k)]; k = model.nodes[size_t(k)].parent) chain.push_back(size_t(k));
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
            const auto& n = model.nodes[*it];
            xf::Mat4 local = xf::node_local(n);
            world[*it] = n.parent >= 0 ? xf::mul(world[size_t(n.parent)], local) : local;
            done[*it] = 1;
        }
    }
    return world;
}

void add_child(json& nodes, int parent, int child) {
    json& p = nodes[size_t(parent)];
    if (!p.contains("children")) p["children"] = json::array();
    p["children"].push_back(child);
}

// The root node, then one node per FLVER node under it (or under its parent); fills out.root
// and out.flver_node, and returns the glTF node of FLVER node 0.
int add_bone_nodes(json& nodes, const flver::Model& model, const std::string& name, ModelNodes& out) {
    const size_t node_count = model.nodes.size();
    out.root = int(nodes.size());
    {
        char ver[16];
        std::snprintf(ver, sizeof ver, "0x%X", unsigned(model.header.version));
        nodes.push_back({{"name", name},
                         {"extras", {{"flver_version", ver}, {"coordinates", "game (x, y, z) -> glTF (x, y, -z); metres"}}}});
    }
    const int first = int(nodes.size());
    for (size_t i = 0; i < node_count; ++i) {
        const auto& n = model.nodes[i];
        xf::Quat q = xf::mirror(xf::euler_to_quat(n.rotation.x, n.rotation.y, n.rotation.z));
        xf::V3 t = xf::mirror(xf::V3{n.translation.x, n.translation.y, n.translation.z});
        json gn = {{"name", n.name}, {"translation", t}, {"rotation", q}, {"extras", {{"flver_index", i}, {"flags", n.flags}}}};
        if (n.scale.x != 1 || n.scale.y != 1 || n.scale.z != 1) gn["scale"] = {n.scale.x, n.scale.y, n.scale.z};
        nodes.push_back(std::move(gn));
        out.flver_node.push_back(first + int(i));
    }
    for (size_t i = 0; i < node_count; ++i) {
        int32_t p = model.nodes[i].parent;
        add_child(nodes, p >= 0 ? first + p : out.root, first + int(i));
    }
    return first;
}

// Dummy polys as nodes under the node they attach to (else the root).
void add_dummy_nodes(json& nodes, const flver::Model& model, const std::vector<xf::Mat4>& world, int first_bone, int root) {
    const size_t node_count = model.nodes.size();
    for (const auto& d : model.dummies) {
        // CreateWorld(0, forward, upward) x position x parent bind (row-vector,
        // docs/formats.md#dummy-polys),
        // written here in column form: parent * T(position) * R.
        xf::V3 f{d.forward.x, d.forward.y, d.forward.z}, up{d.upward.x, d.upward.y, d.upward.z};
        xf::Mat4 r = xf::identity();
        if (xf::normalize(f)) {
            xf::V3 x = xf::cross(f, up);
            if (!xf::normalize(x)) {
                x = xf::cross(f, xf::V3{0, 1, 0});
                if (!xf::normalize(x)) {
                    x = xf::cross(f, xf::V3{1, 0, 0});
                    xf::normalize(x);
                }
            }
            xf::V3 y = xf::cross(x, f);
            xf::normalize(y);
            r = {x[0], x[1], x[2], 0, y[0], y[1], y[2], 0, -f[0], -f[1], -f[2], 0, 0, 0, 0, 1};
        }
        xf::Mat4 t = xf::identity();
        t[12] = d.position.x;
        t[13] = d.position.y;
        t[14] = d.position.z;
        const bool has_parent = d.parent_node >= 0 && size_t(d.parent_node) < node_count;
        const bool has_attach = d.attach_node >= 0 && size_t(d.attach_node) < node_count;
        xf::Mat4 w = xf::mul(t, r);
        if (has_parent) w = xf::mul(world[size_t(d.parent_node)], w);
        xf::Mat4 local = has_attach ? xf::mul(xf::affine_inverse(world[size_t(d.attach_node)]), w) : w;
        xf::V3 lt, ls;
        xf::Quat lq;
        xf::decompose(xf::mirror(local), lt, lq, ls);
        json dn = {{"name", "dummy_" + std::to_string(d.reference_id)}, {"translation", lt}, {"rotation", lq}};
        if (std::fabs(ls[0] - 1) > 1e-6 || std::fabs(ls[1] - 1) > 1e-6 || std::fabs(ls[2] - 1) > 1e-6) dn["scale"] = ls;
        dn["extras"] = {{"reference_id", d.reference_id},
                        {"parent_node", has_parent ? json(model.nodes[size_t(d.parent_node)].name) : json(-1)},
                        {"attach_node", has_attach ? json(model.nodes[size_t(d.attach_node)].name) : json(-1)},
                        {"use_upward_vector", d.use_upward},
                        {"flag1", d.flag1}};
        nodes.push_back(std::move(dn));
        add_child(nodes, has_attach ? first_bone + d.attach_node : root, int(nodes.size()) - 1);
    }
}

// glTF textures by texture key, each image added once (embedded PNG, else an external URI)
// however many materials use it.
class TextureTable {
public:
    TextureTable(GltfDocument& doc, const GltfOptions& options, ModelReport& report) : doc_(doc), options_(options), report_(report) {}

    // The glTF texture of `key`, -1 when there is no image for it.
    int get(const std::string& key) {
        json& g = doc_.json();
        auto t = index_.find(key);
        if (t != index_.end()) return t->second;
        auto emb = options_.embedded_textures.find(key);
        int image = -1;
        if (emb != options_.embedded_textures.end() && !emb->second.empty()) {
            image = doc_.add_png_image(key, emb->second);
        } else {
            auto it = options_.textures.find(key);
            if (it == options_.textures.end()) return -1;
            if (!g.contains("images")) g["images"] = json::array();
            g["images"].push_back({{"name", key}, {"uri", it->second}, {"mimeType", "image/png"}});
            image = int(g["images"].size()) - 1;
        }
        if (!g.contains("samplers")) g["samplers"] = json::array({{{"magFilter", 9729}, {"minFilter", 9987}}});
        if (!g.contains("textures")) g["textures"] = json::array();
        g["textures"].push_back({{"name", key}, {"source", image}, {"sampler", 0}});
        ++report_.images;
        return index_[key] = int(g["textures"].size()) - 1;
    }

private:
    GltfDocument& doc_;
    const GltfOptions& options_;
    ModelReport& report_;
    std::map<std::string, int> index_;
};

// LOD0 face set of each mesh: the one with the LOD0 flags, else the first (as the peers do).
std::vector<const flver::FaceSet*> lod0_face_sets(const flver::Model& model, ModelReport& report) {
    std::vector<const flver::FaceSet*> lod0(model.meshes.size(), nullptr);
    for (size_t mi = 0; mi < model.meshes.size(); ++mi) {
        const auto& m = model.meshes[mi];
        lod0[mi] = m.lod0();
        if (!lod0[mi] && !m.face_sets.empty()) {
            lod0[mi] = &m.face_sets[0];
            char flags[16];
            std::snprintf(flags, sizeof flags, "0x%X", unsigned(m.face_sets[0].flags));
            report.warnings.push_back("mesh " + std::to_string(mi) + ": no face set has the LOD0 flags; the first (flags " + flags +
                                      ") is used as LOD0");
        }
    }
    return lod0;
}

// One glTF material per FLVER material (with its textures); returns the glTF index of the first.
int add_materials(GltfDocument& doc, const flver::Model& model, const GltfOptions& options,
                  const std::vector<const flver::FaceSet*>& lod0, ModelReport& report) {
    json& g = doc.json();
    if (!g.contains("materials")) g["materials"] = json::array();
    const int material_base = int(g["materials"].size());
    TextureTable textures(doc, options, report);
    bool uses_specular = false;
    // A material is double-sided when a mesh drawing with it does not cull back faces.
    std::vector<uint8_t> double_sided(model.materials.size());
    for (size_t mi = 0; mi < model.meshes.size(); ++mi)
        if (const auto* fs = lod0[mi]; fs && !fs->cull_backfaces && size_t(model.meshes[mi].material) < double_sided.size())
            double_sided[size_t(model.meshes[mi].material)] = 1;
    for (size_t mi = 0; mi < model.materials.size(); ++mi) {
        const auto& m = model.materials[mi];
        json gm = {{"name", m.name}, {"pbrMetallicRoughness", {{"metallicFactor", 0.0}, {"roughnessFactor", 0.5}}}};
        if (double_sided[mi]) gm["doubleSided"] = true;
        json ex = {{"mtd", m.mtd}, {"flags", m.flags}, {"display_mask", flver::display_mask(m.name)}};
        json texs = json::array();
        bool have[4] = {};
        for (const auto& t : m.textures) {
            texs.push_back({{"type", t.type}, {"path", t.path}, {"scale", {t.scale.x, t.scale.y}}});
            Role role = texture_role(t);
            if (role == Role::none || have[int(role)]) continue;
            int ti = textures.get(texture_key(t.path));
            // Low-resolution texbnds name their textures with an `_l` suffix (c5000_BD_a_l).
            if (ti < 0) ti = textures.get(texture_key(t.path) + "_l");
            if (ti < 0) continue;
            have[int(role)] = true;
            if (role == Role::albedo) {
                gm["pbrMetallicRoughness"]["baseColorTexture"] = {{"index", ti}};
            } else if (role == Role::normal) {
                gm["normalTexture"] = {{"index", ti}};
            } else {
                gm["extensions"]["KHR_materials_specular"] = {{"specularColorTexture", {{"index", ti}}}};
                uses_specular = true;
            }
        }
        ex["textures"] = std::move(texs);
        if (!m.definition.empty()) {
            // The MATBIN / MTD the textures were resolved from (drape::game::resolve_material_textures).
            json params = json::object();
            for (const auto& p : m.params) params[p.name] = p.values.size() == 1 ? json(p.values[0]) : json(p.values);
            ex["definition"] = {{"member", m.definition}, {"shader", m.shader}, {"params", std::move(params)}};
        }
        if (auto it = options.material_extras.find(mi); it != options.material_extras.end())
            for (auto& [k, v] : it->second.items()) ex[k] = v;
        gm["extras"] = std::move(ex);
        g["materials"].push_back(std::move(gm));
    }
    if (g["materials"].empty()) g.erase("materials");
    if (uses_specular) {
        if (!g.contains("extensionsUsed")) g["extensionsUsed"] = json::array();
        if (std::find(g["extensionsUsed"].begin(), g["extensionsUsed"].end(), "KHR_materials_specular") == g["extensionsUsed"].end())
            g["extensionsUsed"].push_back("KHR_materials_specular");
    }
    return material_base;
}

// One mesh's vertex attributes in glTF space, in the FLVER's vertex order.
struct MeshAttributes {
    // Stored winding is clockwise in the game's left-handed space; the mirror makes it
    // counter-clockwise, glTF's front face, so indices keep their order.
    std::vector<float> pos, nrm, tan, col, wts;
    std::vector<uint16_t> joints;
    std::vector<std::vector<float>> uvs;
    bool has_normals = false, has_tangents = false, has_color = false;
    size_t bad_joints = 0;  // bone weights naming a bone the skin does not have
};

// Up to four joints and weights of vertex s, normalised; a vertex without weight goes to the
// fallback joint.
void vertex_joints(const flver::Mesh& m, size_t s, int32_t rigid_node, uint16_t fallback_joint, size_t node_count, MeshAttributes& a) {
    const auto& v = m.vertices;
    uint16_t j[4] = {0, 0, 0, 0};
    float wt[4] = {0, 0, 0, 0};
    int used_slots = 0;
    if (!m.dynamic) {
        j[0] = uint16_t(rigid_node >= 0 ? rigid_node : fallback_joint);
        wt[0] = 1;
        used_slots = 1;
    } else if (v.bone_indices.size() == v.count) {
        const bool has_w = v.bone_weights.size() == v.count;
        const float in_w[4] = {has_w ? v.bone_weights[s].x : 1.0f, has_w ? v.bone_weights[s].y : 0.0f,
                               has_w ? v.bone_weights[s].z : 0.0f, has_w ? v.bone_weights[s].w : 0.0f};
        for (int q = 0; q < 4; ++q) {
            if (!(in_w[q] > 0)) continue;
            uint16_t jj = v.bone_indices[s][size_t(q)];
            if (jj >= node_count) {  // a joint the skin does not have: weight goes to the others
                ++a.bad_joints;
                continue;
            }
            int found = -1;
            for (int e = 0; e < used_slots; ++e)
                if (j[e] == jj) found = e;
            if (found >= 0) {
                wt[found] += in_w[q];
            } else {
                j[used_slots] = jj;
                wt[used_slots++] = in_w[q];
            }
        }
    }
    float sum = wt[0] + wt[1] + wt[2] + wt[3];
    if (!(sum > 0)) {
        j[0] = fallback_joint;
        wt[0] = 1;
        j[1] = j[2] = j[3] = 0;
        wt[1] = wt[2] = wt[3] = 0;
        sum = 1;
    }
    for (int q = 0; q < 4; ++q) {
        a.joints[s * 4 + size_t(q)] = wt[q] > 0 ? j[q] : 0;
        a.wts[s * 4 + size_t(q)] = wt[q] / sum;
    }
}

MeshAttributes mesh_attributes(const flver::Mesh& m, size_t node_count, const std::vector<xf::Mat4>& world, bool skinned) {
    const auto& v = m.vertices;
    const size_t n = v.count;
    MeshAttributes a;
    a.pos.resize(n * 3);
    a.uvs.assign(v.uvs.size(), std::vector<float>(n * 2));
    a.has_normals = v.normals.size() == v.count;
    a.has_tangents = a.has_normals && !v.tangents.empty() && v.tangents[0].size() == v.count;
    a.has_color = !v.colors.empty() && v.colors[0].size() == v.count;
    if (a.has_normals) a.nrm.resize(n * 3);
    if (a.has_tangents) a.tan.resize(n * 4);
    if (a.has_color) a.col.resize(n * 4);
    if (skinned) {
        a.joints.resize(n * 4);
        a.wts.resize(n * 4);
    }
    const uint16_t fallback_joint = uint16_t(m.default_node >= 0 && size_t(m.default_node) < node_count ? m.default_node : 0);
    for (size_t s = 0; s < n; ++s) {
        // Rigid meshes: each vertex lives in the space of the node its normal w names.
        xf::Mat4 space = xf::identity();
        int32_t rigid_node = -1;
        if (!m.dynamic && node_count > 0) {
            int32_t w = v.normal_w.size() == v.count ? v.normal_w[s] : -1;
            rigid_node = (w >= 0 && size_t(w) < node_count) ? w : m.default_node;
            if (rigid_node >= 0 && size_t(rigid_node) < node_count) space = world[size_t(rigid_node)];
            else rigid_node = -1;
        }
        xf::V3 p = xf::mirror(xf::xform_point(space, {v.positions[s].x, v.positions[s].y, v.positions[s].z}));
        for (int c = 0; c < 3; ++c) a.pos[s * 3 + size_t(c)] = float(p[size_t(c)]);
        xf::V3 ng{0, 1, 0};
        if (a.has_normals) {
            ng = xf::xform_dir(space, {v.normals[s].x, v.normals[s].y, v.normals[s].z});
            if (!xf::normalize(ng)) ng = {0, 1, 0};
            xf::V3 nm = xf::mirror(ng);
            for (int c = 0; c < 3; ++c) a.nrm[s * 3 + size_t(c)] = float(nm[size_t(c)]);
        }
        if (a.has_tangents) {
            flver::Vec4 t = v.tangents[0][s];
            xf::V3 td = xf::xform_dir(space, {t.x, t.y, t.z});
            xf::V3 o;
            float w;
            gltf_tangent(ng, {float(td[0]), float(td[1]), float(td[2]), t.w}, o, w);
            for (int c = 0; c < 3; ++c) a.tan[s * 4 + size_t(c)] = float(o[size_t(c)]);
            a.tan[s * 4 + 3] = w;
        }
        for (size_t u = 0; u < v.uvs.size(); ++u) {
            a.uvs[u][s * 2] = v.uvs[u][s].x;
            a.uvs[u][s * 2 + 1] = v.uvs[u][s].y;
        }
        if (a.has_color) {
            const auto& c = v.colors[0][s];
            const float cc[4] = {c.x, c.y, c.z, c.w};
            for (int q = 0; q < 4; ++q) a.col[s * 4 + size_t(q)] = std::clamp(cc[q], 0.0f, 1.0f);
        }
        if (skinned) vertex_joints(m, s, rigid_node, fallback_joint, node_count, a);
    }
    return a;
}

// The mesh's one primitive: its attribute and index accessors, added to the document in this order.
json mesh_primitive(GltfDocument& doc, const MeshAttributes& a, const std::vector<uint32_t>& indices, size_t n, bool skinned) {
    json prim = {{"mode", 4}, {"attributes", json::object()}};
    json& at = prim["attributes"];
    at["POSITION"] = doc.add_accessor(std::span<const float>(a.pos), "VEC3", k_gltf_array_buffer, true);
    if (a.has_normals) at["NORMAL"] = doc.add_accessor(std::span<const float>(a.nrm), "VEC3", k_gltf_array_buffer);
    if (a.has_tangents) at["TANGENT"] = doc.add_accessor(std::span<const float>(a.tan), "VEC4", k_gltf_array_buffer);
    for (size_t u = 0; u < a.uvs.size(); ++u)
        at["TEXCOORD_" + std::to_string(u)] = doc.add_accessor(std::span<const float>(a.uvs[u]), "VEC2", k_gltf_array_buffer);
    if (a.has_color) at["COLOR_0"] = doc.add_accessor(std::span<const float>(a.col), "VEC4", k_gltf_array_buffer);
    if (skinned) {
        at["JOINTS_0"] = doc.add_accessor(std::span<const uint16_t>(a.joints), "VEC4", k_gltf_array_buffer);
        at["WEIGHTS_0"] = doc.add_accessor(std::span<const float>(a.wts), "VEC4", k_gltf_array_buffer);
    }
    // Each vertex's index in the FLVER mesh (the cloth runtime's display buffers are in that
    // order), so a host whose importer splits or reorders vertices can map them back. A float:
    // vertex attributes are 4-byte aligned, and indices below 2^24 are exact.
    {
        std::vector<float> flver_index(n);
        for (size_t s = 0; s < n; ++s) flver_index[s] = float(s);
        at["_DRAPE_VERTEX"] = doc.add_accessor(std::span<const float>(flver_index), "SCALAR", k_gltf_array_buffer);
    }
    if (n <= 0xFFFF) {
        std::vector<uint16_t> i16(indices.begin(), indices.end());
        prim["indices"] = doc.add_accessor(std::span<const uint16_t>(i16), "SCALAR", k_gltf_element_array_buffer);
    } else {
        prim["indices"] = doc.add_accessor(std::span<const uint32_t>(indices), "SCALAR", k_gltf_element_array_buffer);
    }
    return prim;
}

// One glTF mesh and node per drawable FLVER mesh (its LOD0 face set); a mesh left out says why.
// Returns the mesh nodes, also recorded in out.mesh_node.
std::vector<int> add_meshes(GltfDocument& doc, const flver::Model& model, const std::vector<xf::Mat4>& world,
                            const std::vector<const flver::FaceSet*>& lod0, int material_base, bool skinned, ModelNodes& out,
                            ModelReport& report) {
    json& g = doc.json();
    json& nodes = g["nodes"];
    const size_t node_count = model.nodes.size();
    if (!g.contains("meshes")) g["meshes"] = json::array();
    std::vector<int> mesh_node_index;
    for (size_t mi = 0; mi < model.meshes.size(); ++mi) {
        const auto& m = model.meshes[mi];
        const auto& v = m.vertices;
        const flver::FaceSet* fs = lod0[mi];
        if (!fs) {
            report.warnings.push_back("mesh " + std::to_string(mi) + " (" + gltf_mesh_name(model, mi) + "): no face set; left out");
            ++report.meshes_dropped;
            continue;
        }
        if (v.positions.size() != v.count) {
            report.warnings.push_back("mesh " + std::to_string(mi) + " (" + gltf_mesh_name(model, mi) + "): " +
                                      std::to_string(v.positions.size()) + " positions for " + std::to_string(v.count) +
                                      " vertices; left out");
            ++report.meshes_dropped;
            continue;
        }
        auto tris = fs->triangles(v.count);
        if (tris.empty()) {
            report.warnings.push_back("mesh " + std::to_string(mi) + " (" + gltf_mesh_name(model, mi) + "): no triangles; left out");
            ++report.meshes_dropped;
            continue;
        }
        // Every vertex, in the FLVER's order: glTF vertex i is FLVER vertex i, which the cloth's
        // display buffers rely on (a display buffer drives its mesh vertex for vertex:
        // docs/havok-cloth.md#display-buffers).
        // Vertices only LOD1/LOD2 use stay unreferenced by the LOD0 indices.
        std::vector<uint32_t> indices;
        indices.reserve(tris.size() * 3);
        for (const auto& t : tris)
            for (uint32_t x : t) indices.push_back(x);
        const MeshAttributes attrs = mesh_attributes(m, node_count, world, skinned);
        if (attrs.bad_joints)
            report.warnings.push_back("mesh " + std::to_string(mi) + ": " + std::to_string(attrs.bad_joints) +
                                      " bone weights name a bone index outside 0.." + std::to_string(node_count) +
                                      "; their weight goes to the vertex's other bones");
        json prim = mesh_primitive(doc, attrs, indices, v.count, skinned);
        if (m.material >= 0 && size_t(m.material) < model.materials.size()) prim["material"] = material_base + m.material;
        const std::string material = m.material >= 0 && size_t(m.material) < model.materials.size() ? model.materials[size_t(m.material)].name : "";
        const std::string mesh_name = gltf_mesh_name(model, mi);
        json ex = {{"display_mask", flver::display_mask(material)},
                   {"flver_mesh_index", mi},
                   {"dynamic", m.dynamic},
                   {"default_node", m.default_node >= 0 && size_t(m.default_node) < node_count ? json(model.nodes[size_t(m.default_node)].name)
                                                                                          : json(-1)},
                   {"material", material},
                   {"flver_vertex_count", v.count}};
        g["meshes"].push_back({{"name", mesh_name}, {"primitives", json::array({prim})}, {"extras", ex}});
        json mn = {{"name", mesh_name}, {"mesh", int(g["meshes"].size()) - 1}, {"extras", ex}};
        nodes.push_back(std::move(mn));
        mesh_node_index.push_back(int(nodes.size()) - 1);
        out.mesh_node.push_back(int(nodes.size()) - 1);
        ++report.meshes_written;
    }
    if (g["meshes"].empty()) g.erase("meshes");
    return mesh_node_index;
}

// The skin over every FLVER node, given to each mesh node; sets out.skin.
void add_skin(GltfDocument& doc, const std::vector<xf::Mat4>& world, int first_bone, const std::string& name,
              const std::vector<int>& mesh_node_index, ModelNodes& out) {
    json& g = doc.json();
    const size_t node_count = world.size();
    std::vector<float> ibm(node_count * 16);
    for (size_t i = 0; i < node_count; ++i) {
        xf::Mat4 inv = xf::affine_inverse(xf::mirror(world[i]));
        for (int k = 0; k < 16; ++k) ibm[i * 16 + size_t(k)] = float(inv[size_t(k)]);
        ibm[i * 16 + 3] = ibm[i * 16 + 7] = ibm[i * 16 + 11] = 0;
        ibm[i * 16 + 15] = 1;
    }
    json joints = json::array();
    for (size_t i = 0; i < node_count; ++i) joints.push_back(first_bone + int(i));
    if (!g.contains("skins")) g["skins"] = json::array();
    g["skins"].push_back({{"name", name + "_skin"},
                          {"skeleton", out.root},
                          {"joints", joints},
                          {"inverseBindMatrices", doc.add_accessor(std::span<const float>(ibm), "MAT4")}});
    out.skin = int(g["skins"].size()) - 1;
    for (int mn : mesh_node_index) g["nodes"][size_t(mn)]["skin"] = out.skin;
}

// The model's scene (its root and mesh nodes), made the default one.
void add_scene(json& g, const std::string& name, int root, const std::vector<int>& mesh_node_index) {
    json scene = {{"name", name}, {"nodes", json::array({root})}};
    for (int mn : mesh_node_index) scene["nodes"].push_back(mn);
    if (!g.contains("scenes")) g["scenes"] = json::array();
    g["scenes"].push_back(std::move(scene));
    g["scene"] = int(g["scenes"].size()) - 1;
}

}  // namespace

Result<ModelNodes> add_model(GltfDocument& doc, const flver::Model& model, const GltfOptions& options, ModelReport* report_out) {
    ModelReport report;
    json& g = doc.json();
    const std::string name = options.name.empty() ? "model" : options.name;
    if (!g.contains("nodes")) g["nodes"] = json::array();
    ModelNodes out;

    const std::vector<xf::Mat4> world = world_bind_matrices(model);  // game space
    const int first_bone = add_bone_nodes(g["nodes"], model, name, out);
    add_dummy_nodes(g["nodes"], model, world, first_bone, out.root);
    const std::vector<const flver::FaceSet*> lod0 = lod0_face_sets(model, report);
    const int material_base = add_materials(doc, model, options, lod0, report);

    // A skin is written only with a mesh that uses it: Godot 3 refuses a skin no mesh uses.
    const bool skinned = !model.nodes.empty();
    const std::vector<int> mesh_node_index = add_meshes(doc, model, world, lod0, material_base, skinned, out, report);
    if (skinned && !mesh_node_index.empty()) {
        add_skin(doc, world, first_bone, name, mesh_node_index, out);
    } else if (model.meshes.empty() || mesh_node_index.empty()) {
        report.warnings.push_back("no drawable mesh: the file holds the bones and dummies only");
        // Godot 3's importer refuses a file without bufferViews and accessors (glTF lets it go
        // without): one accessor, the bones' count, keeps such a file loadable there.
        const float bones = float(model.nodes.size());
        doc.add_accessor(std::span<const float>(&bones, 1), "SCALAR");
    }
    add_scene(g, name, out.root, mesh_node_index);
    out.world_bind = world;
    if (report_out) *report_out = std::move(report);
    return out;
}

Result<std::vector<uint8_t>> gltf_bytes(const flver::Model& model, const GltfOptions& options, std::vector<uint8_t>* bin_out,
                                        const std::string& bin_uri) {
    GltfDocument doc;
    auto r = add_model(doc, model, options);
    if (!r) return r.error();
    if (options.binary) return doc.glb();
    const std::string name = options.name.empty() ? "model" : options.name;
    if (bin_out) *bin_out = doc.bin();
    std::string s = doc.gltf_text(bin_uri.empty() ? name + ".bin" : bin_uri);
    return std::vector<uint8_t>(s.begin(), s.end());
}

Result<void> write_gltf(const flver::Model& model, const std::filesystem::path& out, const GltfOptions& options) {
    GltfOptions o = options;
    if (o.name.empty()) o.name = out.stem().string();
    std::vector<uint8_t> bin;
    const std::string bin_uri = out.stem().string() + ".bin";
    auto bytes = gltf_bytes(model, o, &bin, bin_uri);
    if (!bytes) return std::move(bytes).error();
    if (!o.binary && !bin.empty()) {
        auto r = write_file(out.parent_path() / bin_uri, bin);
        if (!r) return r;
    }
    return write_file(out, *bytes);
}

size_t show_display_masks(GltfDocument& doc, const ModelNodes& placed, uint32_t shown, const std::string& label) {
    json& g = doc.json();
    if (!g.contains("scenes") || !g.contains("scene") || !g.contains("nodes")) return 0;
    const size_t default_scene = g["scene"].get<size_t>();
    json every = g["scenes"][default_scene];
    json& scene = g["scenes"][default_scene];
    std::vector<int> hidden;
    json shown_masks = json::array();
    for (int mask = 0; mask < 32; ++mask)
        if (shown >> mask & 1u) shown_masks.push_back(mask);
    for (const int node : placed.mesh_node) {
        json& n = g["nodes"][size_t(node)];
        const int mask = n.contains("extras") ? n["extras"].value("display_mask", -1) : -1;
        if (mask < 0 || mask > 31) continue;
        const bool on = (shown >> mask & 1u) != 0;
        n["extras"]["shown"] = on;
        if (!on) hidden.push_back(node);
    }
    scene["extras"]["display_masks"] = {{"chosen_by", label}, {"shown", shown_masks}, {"hidden_mesh_nodes", hidden.size()}};
    if (hidden.empty()) return 0;
    json kept = json::array();
    for (const auto& n : scene["nodes"])
        if (std::find(hidden.begin(), hidden.end(), n.get<int>()) == hidden.end()) kept.push_back(n);
    scene["nodes"] = std::move(kept);
    every["name"] = every.value("name", std::string("scene")) + " (every display mask)";
    if (every.contains("extras")) every.erase("extras");
    g["scenes"].push_back(std::move(every));
    return hidden.size();
}

}  // namespace drape::exporters
