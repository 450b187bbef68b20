// FLVER2 model -> glTF 2.0 through tinygltf (the one TU that compiles it).
#define TINYGLTF_IMPLEMENTATION
#define TINYGLTF_NO_STB_IMAGE
#define TINYGLTF_NO_STB_IMAGE_WRITE
#define TINYGLTF_NO_EXTERNAL_IMAGE
#define TINYGLTF_NO_INCLUDE_STB_IMAGE
#define TINYGLTF_NO_INCLUDE_STB_IMAGE_WRITE
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-function"
#include <tiny_gltf.h>
#pragma GCC diagnostic pop

#include <algorithm>
#include <cctype>
#include <cstring>
#include <sstream>

#include "drape/exporters/gltf.h"
#include "drape/io/file.h"
#include "xform.h"

namespace drape::exporters {

namespace {

using tinygltf::Value;

Value inum(int64_t v) { return Value(int(v)); }
Value str(const std::string& s) { return Value(s); }
Value vec(std::initializer_list<double> v) {
    Value::Array a;
    for (double x : v) a.push_back(Value(x));
    return Value(a);
}

struct BufferBuilder {
    tinygltf::Model& g;
    std::vector<unsigned char>& data;

    int view(const void* bytes, size_t size, int target) {
        while (data.size() % 4) data.push_back(0);
        tinygltf::BufferView bv;
        bv.buffer = 0;
        bv.byteOffset = data.size();
        bv.byteLength = size;
        bv.target = target;
        const auto* p = static_cast<const unsigned char*>(bytes);
        data.insert(data.end(), p, p + size);
        g.bufferViews.push_back(bv);
        return int(g.bufferViews.size() - 1);
    }

    template <class T>
    int accessor(const std::vector<T>& v, int components, int type, int component_type, int target, bool normalized = false,
                 bool minmax = false) {
        tinygltf::Accessor a;
        a.bufferView = view(v.data(), v.size() * sizeof(T), target);
        a.byteOffset = 0;
        a.componentType = component_type;
        a.normalized = normalized;
        a.count = v.size() * sizeof(T) / (sizeof(float) * 0 + component_size(component_type) * size_t(components));
        a.type = type;
        if (minmax && component_type == TINYGLTF_COMPONENT_TYPE_FLOAT && a.count > 0) {
            const float* f = reinterpret_cast<const float*>(v.data());
            a.minValues.assign(size_t(components), 1e300);
            a.maxValues.assign(size_t(components), -1e300);
            for (size_t i = 0; i < a.count; ++i)
                for (int c = 0; c < components; ++c) {
                    double x = f[i * size_t(components) + size_t(c)];
                    a.minValues[size_t(c)] = std::min(a.minValues[size_t(c)], x);
                    a.maxValues[size_t(c)] = std::max(a.maxValues[size_t(c)], x);
                }
        }
        g.accessors.push_back(a);
        return int(g.accessors.size() - 1);
    }

    static size_t component_size(int ct) {
        switch (ct) {
            case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: return 2;
            case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return 1;
            default: return 4;
        }
    }
};

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

// glTF tangent from the FLVER tangent (seed 003 §2: the stored tangent points along +V and
// w * cross(normal, tangent) along +U). glTF wants the tangent along +U and
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

Result<std::vector<uint8_t>> gltf_bytes(const flver::Model& model, const GltfOptions& options, std::vector<uint8_t>* bin_out,
                                        const std::string& bin_uri) {
    tinygltf::Model g;
    g.asset.version = "2.0";
    g.asset.generator = "drape 0.1.0";
    g.buffers.resize(1);
    std::vector<unsigned char>& data = g.buffers[0].data;
    BufferBuilder bb{g, data};
    const std::string name = options.name.empty() ? "model" : options.name;
    const size_t node_count = model.nodes.size();

    // ---- nodes: [0] root, [1..N] FLVER nodes --------------------------------------------
    std::vector<xf::Mat4> world(node_count);  // game space
    {
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
    }
    tinygltf::Node root;
    root.name = name;
    {
        Value::Object ex;
        char ver[16];
        std::snprintf(ver, sizeof ver, "0x%X", unsigned(model.header.version));
        ex["flver_version"] = str(ver);
        ex["coordinates"] = str("game (x, y, z) -> glTF (x, y, -z); metres");
        root.extras = Value(ex);
    }
    g.nodes.push_back(root);
    for (size_t i = 0; i < node_count; ++i) {
        const auto& n = model.nodes[i];
        tinygltf::Node gn;
        gn.name = n.name;
        xf::Quat q = xf::mirror(xf::euler_to_quat(n.rotation.x, n.rotation.y, n.rotation.z));
        xf::V3 t = xf::mirror(xf::V3{n.translation.x, n.translation.y, n.translation.z});
        gn.translation = {t[0], t[1], t[2]};
        gn.rotation = {q[0], q[1], q[2], q[3]};
        if (n.scale.x != 1 || n.scale.y != 1 || n.scale.z != 1) gn.scale = {n.scale.x, n.scale.y, n.scale.z};
        Value::Object ex;
        ex["flver_index"] = inum(int64_t(i));
        ex["flags"] = inum(n.flags);
        gn.extras = Value(ex);
        g.nodes.push_back(gn);
    }
    for (size_t i = 0; i < node_count; ++i) {
        int32_t p = model.nodes[i].parent;
        (p >= 0 ? g.nodes[size_t(p) + 1] : g.nodes[0]).children.push_back(int(i + 1));
    }

    // ---- dummy polys ----------------------------------------------------------------------
    for (const auto& d : model.dummies) {
        // CreateWorld(0, forward, upward) x position x parent bind (row-vector, seed 003 §1),
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
        tinygltf::Node dn;
        dn.name = "dummy_" + std::to_string(d.reference_id);
        dn.translation = {lt[0], lt[1], lt[2]};
        dn.rotation = {lq[0], lq[1], lq[2], lq[3]};
        if (std::fabs(ls[0] - 1) > 1e-6 || std::fabs(ls[1] - 1) > 1e-6 || std::fabs(ls[2] - 1) > 1e-6)
            dn.scale = {ls[0], ls[1], ls[2]};
        Value::Object ex;
        ex["reference_id"] = inum(d.reference_id);
        ex["parent_node"] = has_parent ? str(model.nodes[size_t(d.parent_node)].name) : inum(-1);
        ex["attach_node"] = has_attach ? str(model.nodes[size_t(d.attach_node)].name) : inum(-1);
        ex["use_upward_vector"] = Value(d.use_upward);
        ex["flag1"] = Value(d.flag1);
        dn.extras = Value(ex);
        g.nodes.push_back(dn);
        (has_attach ? g.nodes[size_t(d.attach_node) + 1] : g.nodes[0]).children.push_back(int(g.nodes.size() - 1));
    }

    // ---- skin -----------------------------------------------------------------------------
    int skin = -1;
    if (node_count > 0) {
        std::vector<float> ibm(node_count * 16);
        for (size_t i = 0; i < node_count; ++i) {
            xf::Mat4 inv = xf::affine_inverse(xf::mirror(world[i]));
            for (int k = 0; k < 16; ++k) ibm[i * 16 + size_t(k)] = float(inv[size_t(k)]);
            ibm[i * 16 + 3] = ibm[i * 16 + 7] = ibm[i * 16 + 11] = 0;
            ibm[i * 16 + 15] = 1;
        }
        tinygltf::Skin s;
        s.name = name + "_skin";
        s.skeleton = 0;
        for (size_t i = 0; i < node_count; ++i) s.joints.push_back(int(i + 1));
        s.inverseBindMatrices = bb.accessor(ibm, 16, TINYGLTF_TYPE_MAT4, TINYGLTF_COMPONENT_TYPE_FLOAT, 0);
        g.skins.push_back(s);
        skin = 0;
    }

    // ---- materials and textures -----------------------------------------------------------
    std::map<std::string, int> texture_index;  // key -> glTF texture
    auto gltf_texture = [&](const std::string& key) -> int {
        auto it = options.textures.find(key);
        if (it == options.textures.end()) return -1;
        auto t = texture_index.find(key);
        if (t != texture_index.end()) return t->second;
        if (g.samplers.empty()) {
            tinygltf::Sampler s;
            s.magFilter = TINYGLTF_TEXTURE_FILTER_LINEAR;
            s.minFilter = TINYGLTF_TEXTURE_FILTER_LINEAR_MIPMAP_LINEAR;
            g.samplers.push_back(s);
        }
        tinygltf::Image img;
        img.name = key;
        img.uri = it->second;
        img.mimeType = "image/png";
        g.images.push_back(img);
        tinygltf::Texture tex;
        tex.name = key;
        tex.source = int(g.images.size() - 1);
        tex.sampler = 0;
        g.textures.push_back(tex);
        texture_index[key] = int(g.textures.size() - 1);
        return int(g.textures.size() - 1);
    };
    bool uses_specular = false;
    std::vector<uint8_t> double_sided(model.materials.size());
    for (const auto& m : model.meshes)
        if (const auto* fs = m.lod0(); fs && !fs->cull_backfaces && size_t(m.material) < double_sided.size())
            double_sided[size_t(m.material)] = 1;
    for (size_t mi = 0; mi < model.materials.size(); ++mi) {
        const auto& m = model.materials[mi];
        tinygltf::Material gm;
        gm.name = m.name;
        gm.pbrMetallicRoughness.metallicFactor = 0.0;
        gm.pbrMetallicRoughness.roughnessFactor = 0.5;
        gm.doubleSided = double_sided[mi] != 0;
        Value::Object ex;
        ex["mtd"] = str(m.mtd);
        ex["flags"] = inum(m.flags);
        ex["display_mask"] = inum(flver::display_mask(m.name));
        Value::Array texs;
        bool have[4] = {};
        for (const auto& t : m.textures) {
            Value::Object to;
            to["type"] = str(t.type);
            to["path"] = str(t.path);
            to["scale"] = vec({t.scale.x, t.scale.y});
            texs.push_back(Value(to));
            Role role = texture_role(t);
            if (role == Role::none || have[int(role)]) continue;
            int ti = gltf_texture(texture_key(t.path));
            // Low-resolution texbnds name their textures with an `_l` suffix (c5000_BD_a_l).
            if (ti < 0) ti = gltf_texture(texture_key(t.path) + "_l");
            if (ti < 0) continue;
            have[int(role)] = true;
            if (role == Role::albedo) {
                gm.pbrMetallicRoughness.baseColorTexture.index = ti;
            } else if (role == Role::normal) {
                gm.normalTexture.index = ti;
            } else {
                Value::Object spec, info;
                info["index"] = inum(ti);
                spec["specularColorTexture"] = Value(info);
                gm.extensions["KHR_materials_specular"] = Value(spec);
                uses_specular = true;
            }
        }
        ex["textures"] = Value(texs);
        if (!m.definition.empty()) {
            // The MATBIN / MTD the textures were resolved from (drape::game::resolve_material_textures).
            Value::Object def, params;
            def["member"] = str(m.definition);
            def["shader"] = str(m.shader);
            for (const auto& p : m.params) {
                Value::Array values;
                for (double v : p.values) values.push_back(Value(v));
                params[p.name] = values.size() == 1 ? values[0] : Value(values);
            }
            def["params"] = Value(params);
            ex["definition"] = Value(def);
        }
        gm.extras = Value(ex);
        g.materials.push_back(gm);
    }
    if (uses_specular) g.extensionsUsed.push_back("KHR_materials_specular");

    // ---- meshes ---------------------------------------------------------------------------
    std::vector<int> mesh_nodes;
    for (size_t mi = 0; mi < model.meshes.size(); ++mi) {
        const auto& m = model.meshes[mi];
        const auto& v = m.vertices;
        const flver::FaceSet* fs = m.lod0();
        if (!fs || v.positions.size() != v.count) continue;
        auto tris = fs->triangles(v.count);
        if (tris.empty()) continue;
        // Every vertex, in the FLVER's order: glTF vertex i is FLVER vertex i, which the cloth's
        // display buffers rely on (seed 000: a display buffer drives its mesh vertex for vertex).
        // Vertices only LOD1/LOD2 use stay unreferenced by the LOD0 indices.
        std::vector<uint32_t> used(v.count);
        for (uint32_t k = 0; k < v.count; ++k) used[k] = k;
        std::vector<uint32_t> indices;
        indices.reserve(tris.size() * 3);
        for (const auto& t : tris)
            for (uint32_t x : t) indices.push_back(x);
        const size_t n = used.size();
        // Stored winding is clockwise in the game's left-handed space; the mirror makes it
        // counter-clockwise, glTF's front face, so indices keep their order.
        std::vector<float> pos(n * 3), nrm, tan, col, wts;
        std::vector<uint16_t> joints;
        std::vector<std::vector<float>> uvs(v.uvs.size(), std::vector<float>(n * 2));
        const bool has_normals = v.normals.size() == v.count;
        const bool has_tangents = has_normals && !v.tangents.empty() && v.tangents[0].size() == v.count;
        const bool has_color = !v.colors.empty() && v.colors[0].size() == v.count;
        if (has_normals) nrm.resize(n * 3);
        if (has_tangents) tan.resize(n * 4);
        if (has_color) col.resize(n * 4);
        if (skin >= 0) {
            joints.resize(n * 4);
            wts.resize(n * 4);
        }
        const uint16_t fallback_joint = uint16_t(m.default_node >= 0 ? m.default_node : 0);
        for (size_t k = 0; k < n; ++k) {
            const uint32_t s = used[k];
            // Rigid meshes: each vertex lives in the space of the node its normal w names.
            xf::Mat4 space = xf::identity();
            int32_t rigid_node = -1;
            if (!m.dynamic && node_count > 0) {
                int32_t w = v.normal_w.size() == v.count ? v.normal_w[s] : -1;
                rigid_node = (w >= 0 && size_t(w) < node_count) ? w : m.default_node;
                if (rigid_node >= 0) space = world[size_t(rigid_node)];
            }
            xf::V3 p = xf::mirror(xf::xform_point(space, {v.positions[s].x, v.positions[s].y, v.positions[s].z}));
            for (int c = 0; c < 3; ++c) pos[k * 3 + size_t(c)] = float(p[size_t(c)]);
            xf::V3 ng{0, 1, 0};
            if (has_normals) {
                ng = xf::xform_dir(space, {v.normals[s].x, v.normals[s].y, v.normals[s].z});
                if (!xf::normalize(ng)) ng = {0, 1, 0};
                xf::V3 nm = xf::mirror(ng);
                for (int c = 0; c < 3; ++c) nrm[k * 3 + size_t(c)] = float(nm[size_t(c)]);
            }
            if (has_tangents) {
                flver::Vec4 t = v.tangents[0][s];
                xf::V3 td = xf::xform_dir(space, {t.x, t.y, t.z});
                xf::V3 out;
                float w;
                gltf_tangent(ng, {float(td[0]), float(td[1]), float(td[2]), t.w}, out, w);
                for (int c = 0; c < 3; ++c) tan[k * 4 + size_t(c)] = float(out[size_t(c)]);
                tan[k * 4 + 3] = w;
            }
            for (size_t u = 0; u < v.uvs.size(); ++u) {
                uvs[u][k * 2] = v.uvs[u][s].x;
                uvs[u][k * 2 + 1] = v.uvs[u][s].y;
            }
            if (has_color) {
                const auto& c = v.colors[0][s];
                const float cc[4] = {c.x, c.y, c.z, c.w};
                for (int q = 0; q < 4; ++q) col[k * 4 + size_t(q)] = std::clamp(cc[q], 0.0f, 1.0f);
            }
            if (skin >= 0) {
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
                    joints[k * 4 + size_t(q)] = wt[q] > 0 ? j[q] : 0;
                    wts[k * 4 + size_t(q)] = wt[q] / sum;
                }
            }
        }
        tinygltf::Primitive prim;
        prim.mode = TINYGLTF_MODE_TRIANGLES;
        prim.material = m.material;
        prim.attributes["POSITION"] =
            bb.accessor(pos, 3, TINYGLTF_TYPE_VEC3, TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TARGET_ARRAY_BUFFER, false, true);
        if (has_normals)
            prim.attributes["NORMAL"] = bb.accessor(nrm, 3, TINYGLTF_TYPE_VEC3, TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TARGET_ARRAY_BUFFER);
        if (has_tangents)
            prim.attributes["TANGENT"] = bb.accessor(tan, 4, TINYGLTF_TYPE_VEC4, TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TARGET_ARRAY_BUFFER);
        for (size_t u = 0; u < uvs.size(); ++u)
            prim.attributes["TEXCOORD_" + std::to_string(u)] =
                bb.accessor(uvs[u], 2, TINYGLTF_TYPE_VEC2, TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TARGET_ARRAY_BUFFER);
        if (has_color)
            prim.attributes["COLOR_0"] = bb.accessor(col, 4, TINYGLTF_TYPE_VEC4, TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TARGET_ARRAY_BUFFER);
        if (skin >= 0) {
            prim.attributes["JOINTS_0"] =
                bb.accessor(joints, 4, TINYGLTF_TYPE_VEC4, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT, TINYGLTF_TARGET_ARRAY_BUFFER);
            prim.attributes["WEIGHTS_0"] = bb.accessor(wts, 4, TINYGLTF_TYPE_VEC4, TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TARGET_ARRAY_BUFFER);
        }
        if (n <= 0xFFFF) {
            std::vector<uint16_t> i16(indices.begin(), indices.end());
            prim.indices = bb.accessor(i16, 1, TINYGLTF_TYPE_SCALAR, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT,
                                       TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER);
        } else {
            prim.indices = bb.accessor(indices, 1, TINYGLTF_TYPE_SCALAR, TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT,
                                       TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER);
        }
        const auto& mat = model.materials[size_t(m.material)];
        const int mask = flver::display_mask(mat.name);
        const std::string mesh_name = gltf_mesh_name(model, mi);
        tinygltf::Mesh gm;
        gm.name = mesh_name;
        gm.primitives.push_back(prim);
        Value::Object ex;
        ex["display_mask"] = inum(mask);
        ex["flver_mesh_index"] = inum(int64_t(mi));
        ex["dynamic"] = Value(m.dynamic);
        ex["default_node"] = m.default_node >= 0 && size_t(m.default_node) < node_count
                                 ? str(model.nodes[size_t(m.default_node)].name)
                                 : inum(-1);
        ex["material"] = str(mat.name);
        ex["flver_vertex_count"] = inum(v.count);
        gm.extras = Value(ex);
        g.meshes.push_back(gm);
        tinygltf::Node mn;
        mn.name = mesh_name;
        mn.mesh = int(g.meshes.size() - 1);
        mn.skin = skin;
        mn.extras = gm.extras;
        g.nodes.push_back(mn);
        mesh_nodes.push_back(int(g.nodes.size() - 1));
    }

    tinygltf::Scene scene;
    scene.name = name;
    scene.nodes.push_back(0);
    for (int mn : mesh_nodes) scene.nodes.push_back(mn);
    g.scenes.push_back(scene);
    g.defaultScene = 0;
    g.buffers[0].name = name;
    if (data.empty()) g.buffers.clear();
    const size_t bin_size = data.size();
    if (!g.buffers.empty() && !options.binary) {
        if (bin_out) *bin_out = std::vector<uint8_t>(data.begin(), data.end());
        g.buffers[0].data.clear();  // written beside the .gltf, not embedded
    }

    tinygltf::TinyGLTF writer;
    std::ostringstream os;
    if (!writer.WriteGltfSceneToStream(&g, os, !options.binary, options.binary))
        return make_error("tinygltf could not serialise the model", "gltf.write");
    std::string s = os.str();
    if (!options.binary && !g.buffers.empty()) {
        // tinygltf's stream writer embeds buffers as data URIs; point at the .bin instead.
        nlohmann::json j = nlohmann::json::parse(s, nullptr, false);
        if (j.is_discarded() || !j.contains("buffers")) return make_error("tinygltf wrote invalid JSON", "gltf.write");
        j["buffers"][0] = {{"byteLength", bin_size}, {"uri", bin_uri.empty() ? name + ".bin" : bin_uri}, {"name", name}};
        s = j.dump(2);
    }
    return std::vector<uint8_t>(s.begin(), s.end());
}

Result<void> write_gltf(const flver::Model& model, const std::filesystem::path& out, const GltfOptions& options) {
    GltfOptions o = options;
    if (o.name.empty()) o.name = out.stem().string();
    std::vector<uint8_t> bin;
    const std::string bin_uri = out.stem().string() + ".bin";
    auto bytes = gltf_bytes(model, o, &bin, bin_uri);
    if (!bytes) return std::move(bytes).error();
    if (!o.binary) {
        auto r = write_file(out.parent_path() / bin_uri, bin);
        if (!r) return r;
    }
    return write_file(out, *bytes);
}

}  // namespace drape::exporters
