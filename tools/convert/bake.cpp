// drape: the cloth's motion baked into a .glb as sparse morph targets keyed per frame (bake.h).
#include "drape/convert/bake.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>

#include "drape/exporters/animation_glb.h"

namespace drape::bake {

using json = nlohmann::json;

struct Scene::Impl {
    json doc;
    std::vector<uint8_t> bin;
    std::vector<int> parent;  // per node, -1 for roots
};

namespace {

using Quat = std::array<double, 4>;

Mat4 identity() { return {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}; }

Mat4 mul(const Mat4& a, const Mat4& b) {
    Mat4 r{};
    for (int c = 0; c < 4; ++c)
        for (int row = 0; row < 4; ++row) {
            double s = 0;
            for (int k = 0; k < 4; ++k) s += a[size_t(k * 4 + row)] * b[size_t(c * 4 + k)];
            r[size_t(c * 4 + row)] = s;
        }
    return r;
}

Mat4 trs(const std::array<double, 3>& t, const Quat& q, const std::array<double, 3>& s) {
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    const double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
                         2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                         2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)};
    Mat4 m{};
    for (int c = 0; c < 3; ++c)
        for (int row = 0; row < 3; ++row) m[size_t(c * 4 + row)] = r[c * 3 + row] * s[size_t(c)];
    m[12] = t[0], m[13] = t[1], m[14] = t[2], m[15] = 1;
    return m;
}

// Inverse of an affine matrix (the last row 0 0 0 1); false when singular.
bool affine_inverse(const Mat4& m, Mat4& out) {
    const double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6], i = m[10];
    const double A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
    const double det = a * A + b * B + c * C;
    if (!(std::fabs(det) > 1e-12)) return false;
    const double inv[9] = {A / det, -(b * i - c * h) / det, (b * f - c * e) / det, B / det, (a * i - c * g) / det, -(a * f - c * d) / det,
                           C / det, -(a * h - b * g) / det, (a * e - b * d) / det};
    // inv is row-major: inv[row * 3 + col]
    out = identity();
    for (int row = 0; row < 3; ++row)
        for (int col = 0; col < 3; ++col) out[size_t(col * 4 + row)] = inv[row * 3 + col];
    for (int row = 0; row < 3; ++row) out[size_t(12 + row)] = -(out[size_t(row)] * m[12] + out[size_t(4 + row)] * m[13] + out[size_t(8 + row)] * m[14]);
    return true;
}

std::array<double, 3> transform_point(const Mat4& m, const Vec3f& p) {
    return {m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12], m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13],
            m[2] * p[0] + m[6] * p[1] + m[10] * p[2] + m[14]};
}

Quat slerp(Quat a, Quat b, double u) {
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (d < 0) {
        for (auto& x : b) x = -x;
        d = -d;
    }
    Quat r;
    if (d > 0.9995) {
        for (int i = 0; i < 4; ++i) r[size_t(i)] = a[size_t(i)] + u * (b[size_t(i)] - a[size_t(i)]);
    } else {
        const double th = std::acos(d), s = std::sin(th);
        const double wa = std::sin((1 - u) * th) / s, wb = std::sin(u * th) / s;
        for (int i = 0; i < 4; ++i) r[size_t(i)] = wa * a[size_t(i)] + wb * b[size_t(i)];
    }
    const double n = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    for (auto& x : r) x /= n;
    return r;
}

// A node's local translation, rotation (unit quaternion x y z w) and scale from an affine matrix.
void decompose(const Mat4& m, std::array<double, 3>& t, Quat& q, std::array<double, 3>& s) {
    t = {m[12], m[13], m[14]};
    double c[3][3];
    for (int k = 0; k < 3; ++k) {
        s[size_t(k)] = std::sqrt(m[size_t(k * 4)] * m[size_t(k * 4)] + m[size_t(k * 4 + 1)] * m[size_t(k * 4 + 1)] + m[size_t(k * 4 + 2)] * m[size_t(k * 4 + 2)]);
        for (int r = 0; r < 3; ++r) c[k][r] = s[size_t(k)] > 0 ? m[size_t(k * 4 + r)] / s[size_t(k)] : (k == r ? 1 : 0);
    }
    const double det = c[0][0] * (c[1][1] * c[2][2] - c[2][1] * c[1][2]) - c[1][0] * (c[0][1] * c[2][2] - c[2][1] * c[0][2]) +
                       c[2][0] * (c[0][1] * c[1][2] - c[1][1] * c[0][2]);
    if (det < 0) {
        s[2] = -s[2];
        for (int r = 0; r < 3; ++r) c[2][r] = -c[2][r];
    }
    // R(row, col) = c[col][row]
    const double tr = c[0][0] + c[1][1] + c[2][2];
    if (tr > 0) {
        const double w = std::sqrt(1 + tr) * 2;
        q = {(c[1][2] - c[2][1]) / w, (c[2][0] - c[0][2]) / w, (c[0][1] - c[1][0]) / w, w / 4};
    } else if (c[0][0] > c[1][1] && c[0][0] > c[2][2]) {
        const double w = std::sqrt(1 + c[0][0] - c[1][1] - c[2][2]) * 2;
        q = {w / 4, (c[1][0] + c[0][1]) / w, (c[2][0] + c[0][2]) / w, (c[1][2] - c[2][1]) / w};
    } else if (c[1][1] > c[2][2]) {
        const double w = std::sqrt(1 + c[1][1] - c[0][0] - c[2][2]) * 2;
        q = {(c[1][0] + c[0][1]) / w, w / 4, (c[2][1] + c[1][2]) / w, (c[2][0] - c[0][2]) / w};
    } else {
        const double w = std::sqrt(1 + c[2][2] - c[0][0] - c[1][1]) * 2;
        q = {(c[2][0] + c[0][2]) / w, (c[2][1] + c[1][2]) / w, w / 4, (c[0][1] - c[1][0]) / w};
    }
    const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (auto& x : q) x /= n;
}

// The affine matrix a node's translation, rotation and scale channels give for `m`: what a viewer
// shows when `m` is keyed as TRS (shear, which TRS cannot hold, is lost).
Mat4 trs_projection(const Mat4& m) {
    std::array<double, 3> t, sc;
    Quat q;
    decompose(m, t, q, sc);
    return trs(t, q, sc);
}

int components(const std::string& type) {
    if (type == "SCALAR") return 1;
    if (type == "VEC2") return 2;
    if (type == "VEC3") return 3;
    if (type == "VEC4") return 4;
    if (type == "MAT4") return 16;
    return 0;
}

// An accessor's values as doubles (count x components); floats and (normalized) unsigned integers.
Result<std::vector<double>> read_accessor(const json& doc, const std::vector<uint8_t>& bin, int index, int* comps_out = nullptr) {
    const std::string where = "accessors[" + std::to_string(index) + "]";
    if (!doc.contains("accessors") || index < 0 || size_t(index) >= doc["accessors"].size()) return make_error("no accessor " + std::to_string(index));
    const json& a = doc["accessors"][size_t(index)];
    if (a.contains("sparse")) return make_error("sparse accessors are not read", where);
    const int comps = components(a.value("type", ""));
    const int ct = a.value("componentType", 0);
    const size_t count = a.value("count", size_t(0));
    if (comps == 0) return make_error("accessor type " + a.value("type", std::string("?")) + " is not read", where);
    const size_t csize = ct == 5126 ? 4 : ct == 5123 ? 2 : ct == 5121 ? 1 : ct == 5125 ? 4 : 0;
    if (csize == 0) return make_error("component type " + std::to_string(ct) + " is not read", where);
    if (comps_out) *comps_out = comps;
    std::vector<double> out(count * size_t(comps), 0.0);
    if (!a.contains("bufferView")) return out;
    const json& bv = doc["bufferViews"].at(a["bufferView"].get<size_t>());
    if (bv.value("buffer", 0) != 0) return make_error("only the GLB's own buffer is read", where);
    const size_t stride = bv.value("byteStride", size_t(comps) * csize);
    const size_t base = bv.value("byteOffset", size_t(0)) + a.value("byteOffset", size_t(0));
    if (count && base + (count - 1) * stride + size_t(comps) * csize > bin.size()) return make_error("runs past the binary chunk", where);
    const bool norm = a.value("normalized", false);
    for (size_t i = 0; i < count; ++i)
        for (int c = 0; c < comps; ++c) {
            const uint8_t* p = bin.data() + base + i * stride + size_t(c) * csize;
            double v = 0;
            if (ct == 5126) {
                float f;
                std::memcpy(&f, p, 4);
                v = f;
            } else if (ct == 5125) {
                uint32_t u;
                std::memcpy(&u, p, 4);
                v = u;
            } else if (ct == 5123) {
                uint16_t u;
                std::memcpy(&u, p, 2);
                v = norm ? u / 65535.0 : u;
            } else {
                v = norm ? p[0] / 255.0 : p[0];
            }
            out[i * size_t(comps) + size_t(c)] = v;
        }
    return out;
}

// Appends bytes to the binary chunk (4-byte aligned) as a new buffer view; returns its index.
int add_view(json& doc, std::vector<uint8_t>& bin, const void* data, size_t size) {
    while (bin.size() % 4) bin.push_back(0);
    const size_t off = bin.size();
    bin.insert(bin.end(), static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + size);
    if (!doc.contains("bufferViews")) doc["bufferViews"] = json::array();
    doc["bufferViews"].push_back({{"buffer", 0}, {"byteOffset", off}, {"byteLength", size}});
    return int(doc["bufferViews"].size() - 1);
}

int add_float_accessor(json& doc, std::vector<uint8_t>& bin, const std::vector<float>& v, const char* type, bool min_max) {
    const int comps = components(type);
    const int view = add_view(doc, bin, v.data(), v.size() * 4);
    json a = {{"bufferView", view}, {"componentType", 5126}, {"count", v.size() / size_t(comps)}, {"type", type}};
    if (min_max) {
        std::vector<float> lo(size_t(comps), INFINITY), hi(size_t(comps), -INFINITY);
        for (size_t i = 0; i < v.size(); ++i) lo[i % size_t(comps)] = std::min(lo[i % size_t(comps)], v[i]), hi[i % size_t(comps)] = std::max(hi[i % size_t(comps)], v[i]);
        a["min"] = lo;
        a["max"] = hi;
    }
    if (!doc.contains("accessors")) doc["accessors"] = json::array();
    doc["accessors"].push_back(a);
    return int(doc["accessors"].size() - 1);
}

struct Channel {
    int node = -1;
    std::string path;
    std::vector<double> times, values;
    int comps = 0;
    std::string interpolation;
};

std::vector<double> sample(const Channel& c, double t) {
    const size_t n = c.times.size(), k = size_t(c.comps);
    const bool cubic = c.interpolation == "CUBICSPLINE";
    auto value = [&](size_t key) {
        const size_t at = cubic ? (key * 3 + 1) * k : key * k;
        return std::vector<double>(c.values.begin() + long(at), c.values.begin() + long(at + k));
    };
    if (n == 0) return std::vector<double>(k, 0.0);
    if (t <= c.times.front()) return value(0);
    if (t >= c.times.back()) return value(n - 1);
    const size_t i = size_t(std::upper_bound(c.times.begin(), c.times.end(), t) - c.times.begin()) - 1;
    const double t0 = c.times[i], t1 = c.times[i + 1], dt = t1 - t0, u = dt > 0 ? (t - t0) / dt : 0;
    if (c.interpolation == "STEP") return value(i);
    std::vector<double> a = value(i), b = value(i + 1), r(k);
    if (cubic) {
        const double u2 = u * u, u3 = u2 * u;
        for (size_t j = 0; j < k; ++j) {
            const double out_t = c.values[(i * 3 + 2) * k + j] * dt, in_t = c.values[((i + 1) * 3) * k + j] * dt;
            r[j] = (2 * u3 - 3 * u2 + 1) * a[j] + (u3 - 2 * u2 + u) * out_t + (-2 * u3 + 3 * u2) * b[j] + (u3 - u2) * in_t;
        }
        return r;
    }
    if (c.path == "rotation" && k == 4) {
        const Quat q = slerp({a[0], a[1], a[2], a[3]}, {b[0], b[1], b[2], b[3]}, u);
        return {q[0], q[1], q[2], q[3]};
    }
    for (size_t j = 0; j < k; ++j) r[j] = a[j] + u * (b[j] - a[j]);
    return r;
}

}  // namespace

Result<Scene> Scene::parse(Bytes glb) {
    auto g = exporters::read_glb(glb);
    if (!g) return g.error();
    Scene s;
    s.impl = std::make_shared<Impl>();
    try {
        s.impl->doc = json::parse(g->json);
    } catch (const std::exception& e) {
        return make_error(std::string("the GLB's JSON does not parse: ") + e.what());
    }
    s.impl->bin = std::move(g->bin);
    const json& nodes = s.impl->doc.value("nodes", json::array());
    s.impl->parent.assign(nodes.size(), -1);
    for (size_t i = 0; i < nodes.size(); ++i)
        for (const auto& c : nodes[i].value("children", json::array())) {
            const size_t ci = c.get<size_t>();
            if (ci >= nodes.size()) return make_error("node " + std::to_string(i) + " has child " + std::to_string(ci) + ", out of range");
            s.impl->parent[ci] = int(i);
        }
    return s;
}

int Scene::find_animation(const std::string& name) const {
    const json& a = impl->doc.value("animations", json::array());
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i].value("name", std::string()) == name) return int(i);
    return -1;
}

std::vector<std::string> Scene::animation_names() const {
    std::vector<std::string> out;
    for (const auto& a : impl->doc.value("animations", json::array())) out.push_back(a.value("name", std::string()));
    return out;
}

double Scene::animation_duration(int animation) const {
    double d = 0;
    const json& anims = impl->doc.value("animations", json::array());
    if (animation < 0 || size_t(animation) >= anims.size()) return 0;
    for (const auto& s : anims[size_t(animation)].value("samplers", json::array())) {
        const json& acc = impl->doc["accessors"].at(s["input"].get<size_t>());
        if (acc.contains("max") && !acc["max"].empty()) d = std::max(d, acc["max"][0].get<double>());
    }
    return d;
}

int Scene::find_node(const std::string& name) const {
    const json& nodes = impl->doc.value("nodes", json::array());
    for (size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].value("name", std::string()) == name) return int(i);
    return -1;
}

size_t Scene::node_count() const { return impl->parent.size(); }
std::string Scene::node_name(size_t node) const { return impl->doc["nodes"].at(node).value("name", std::string()); }

Result<std::vector<Mat4>> Scene::world_matrices(int animation, double t) const { return world_matrices(animation, t, {}); }

Result<std::vector<Mat4>> Scene::world_matrices(int animation, double t, const std::vector<std::pair<int, Mat4>>& given,
                                                std::vector<Mat4>* given_local) const {
    if (given_local) given_local->assign(given.size(), identity());
    const json& nodes = impl->doc.value("nodes", json::array());
    const size_t n = nodes.size();
    std::vector<std::array<double, 3>> T(n, {0, 0, 0}), S(n, {1, 1, 1});
    std::vector<Quat> R(n, {0, 0, 0, 1});
    std::vector<bool> has_matrix(n, false);
    std::vector<Mat4> local(n, identity());
    for (size_t i = 0; i < n; ++i) {
        const json& nd = nodes[i];
        if (nd.contains("matrix")) {
            has_matrix[i] = true;
            for (size_t k = 0; k < 16; ++k) local[i][k] = nd["matrix"][k].get<double>();
        }
        if (nd.contains("translation")) for (size_t k = 0; k < 3; ++k) T[i][k] = nd["translation"][k].get<double>();
        if (nd.contains("rotation")) for (size_t k = 0; k < 4; ++k) R[i][k] = nd["rotation"][k].get<double>();
        if (nd.contains("scale")) for (size_t k = 0; k < 3; ++k) S[i][k] = nd["scale"][k].get<double>();
    }
    const json& anims = impl->doc.value("animations", json::array());
    if (animation >= 0 && size_t(animation) < anims.size()) {
        const json& a = anims[size_t(animation)];
        for (const auto& ch : a.value("channels", json::array())) {
            Channel c;
            c.node = ch["target"].value("node", -1);
            c.path = ch["target"].value("path", std::string());
            if (c.node < 0 || size_t(c.node) >= n || c.path == "weights") continue;
            const json& smp = a["samplers"].at(ch["sampler"].get<size_t>());
            c.interpolation = smp.value("interpolation", std::string("LINEAR"));
            auto in = read_accessor(impl->doc, impl->bin, smp["input"].get<int>());
            if (!in) return in.error();
            auto out = read_accessor(impl->doc, impl->bin, smp["output"].get<int>(), &c.comps);
            if (!out) return out.error();
            c.times = std::move(*in);
            c.values = std::move(*out);
            const auto v = sample(c, t);
            const size_t nd = size_t(c.node);
            has_matrix[nd] = false;
            if (c.path == "translation" && v.size() == 3) T[nd] = {v[0], v[1], v[2]};
            if (c.path == "rotation" && v.size() == 4) R[nd] = {v[0], v[1], v[2], v[3]};
            if (c.path == "scale" && v.size() == 3) S[nd] = {v[0], v[1], v[2]};
        }
    }
    for (size_t i = 0; i < n; ++i)
        if (!has_matrix[i]) local[i] = trs(T[i], R[i], S[i]);
    std::vector<Mat4> world(n);
    std::vector<int> state(n, 0);
    for (size_t i = 0; i < n; ++i) {
        // parents first; the chain is acyclic (one parent per node, checked at parse)
        std::vector<size_t> chain;
        for (int j = int(i); j >= 0 && state[size_t(j)] == 0; j = impl->parent[size_t(j)]) {
            if (chain.size() > n) return make_error("the node hierarchy has a cycle");
            chain.push_back(size_t(j));
        }
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
            const int p = impl->parent[*it];
            world[*it] = p < 0 ? local[*it] : mul(world[size_t(p)], local[*it]);
            for (size_t g = 0; g < given.size(); ++g) {
                if (size_t(given[g].first) != *it) continue;
                // The local matrix that puts the node at the given world matrix under its parent
                // as the parent is shown, projected onto what TRS channels hold.
                Mat4 l = given[g].second;
                if (p >= 0) {
                    Mat4 inv;
                    if (!affine_inverse(world[size_t(p)], inv)) return make_error("the parent of node " + node_name(*it) + " is singular");
                    l = mul(inv, l);
                }
                l = trs_projection(l);
                world[*it] = p < 0 ? l : mul(world[size_t(p)], l);
                if (given_local) (*given_local)[g] = l;
            }
            state[*it] = 1;
        }
    }
    return world;
}

std::vector<Scene::Mesh> Scene::meshes() const {
    std::vector<Mesh> out;
    const json& doc = impl->doc;
    const json& nodes = doc.value("nodes", json::array());
    for (size_t i = 0; i < nodes.size(); ++i) {
        if (!nodes[i].contains("mesh")) continue;
        Mesh m;
        m.node = int(i);
        m.mesh = nodes[i]["mesh"].get<int>();
        m.skin = nodes[i].value("skin", -1);
        const json& mj = doc["meshes"].at(size_t(m.mesh));
        m.name = mj.value("name", std::string());
        if (mj.contains("extras") && mj["extras"].contains("default_node") && mj["extras"]["default_node"].is_string())
            m.default_node = mj["extras"]["default_node"].get<std::string>();
        const json& prims = mj.value("primitives", json::array());
        if (prims.empty()) continue;
        const json& attr = prims[0].value("attributes", json::object());
        if (!attr.contains("POSITION")) continue;
        auto pos = read_accessor(doc, impl->bin, attr["POSITION"].get<int>());
        if (!pos) continue;
        for (size_t v = 0; v + 2 < pos->size(); v += 3) m.positions.push_back({float((*pos)[v]), float((*pos)[v + 1]), float((*pos)[v + 2])});
        if (m.skin >= 0 && attr.contains("JOINTS_0") && attr.contains("WEIGHTS_0")) {
            const json& skin = doc["skins"].at(size_t(m.skin));
            for (const auto& j : skin.value("joints", json::array())) m.skin_joints.push_back(j.get<int>());
            if (skin.contains("inverseBindMatrices")) {
                auto ibm = read_accessor(doc, impl->bin, skin["inverseBindMatrices"].get<int>());
                if (ibm)
                    for (size_t k = 0; k + 15 < ibm->size(); k += 16) {
                        Mat4 x;
                        for (size_t e = 0; e < 16; ++e) x[e] = (*ibm)[k + e];
                        m.inverse_bind.push_back(x);
                    }
            }
            while (m.inverse_bind.size() < m.skin_joints.size()) m.inverse_bind.push_back(identity());
            auto jo = read_accessor(doc, impl->bin, attr["JOINTS_0"].get<int>());
            auto we = read_accessor(doc, impl->bin, attr["WEIGHTS_0"].get<int>());
            if (jo && we && jo->size() == m.positions.size() * 4 && we->size() == m.positions.size() * 4)
                for (size_t v = 0; v < m.positions.size(); ++v) {
                    m.joints.push_back({uint16_t((*jo)[v * 4]), uint16_t((*jo)[v * 4 + 1]), uint16_t((*jo)[v * 4 + 2]), uint16_t((*jo)[v * 4 + 3])});
                    m.weights.push_back({float((*we)[v * 4]), float((*we)[v * 4 + 1]), float((*we)[v * 4 + 2]), float((*we)[v * 4 + 3])});
                }
        }
        out.push_back(std::move(m));
    }
    return out;
}

Result<std::vector<uint32_t>> Scene::triangles(int mesh) const {
    const json& doc = impl->doc;
    if (!doc.contains("meshes") || mesh < 0 || size_t(mesh) >= doc["meshes"].size()) return make_error("no mesh " + std::to_string(mesh));
    const json& prims = doc["meshes"][size_t(mesh)].value("primitives", json::array());
    if (prims.empty() || !prims[0].contains("indices")) return std::vector<uint32_t>{};
    auto idx = read_accessor(doc, impl->bin, prims[0]["indices"].get<int>());
    if (!idx) return idx.error();
    std::vector<uint32_t> out;
    for (double x : *idx) out.push_back(uint32_t(x));
    return out;
}

Result<int> Scene::add_sway(const std::string& name, int node, double seconds, double rate) {
    json& doc = impl->doc;
    if (node < 0 || size_t(node) >= node_count()) return make_error("no node " + std::to_string(node) + " to sway");
    if (!(seconds > 0) || !(rate > 0)) return make_error("a sway needs a positive length and rate");
    const json& nd = doc["nodes"][size_t(node)];
    std::array<double, 3> t0{0, 0, 0};
    Quat r0{0, 0, 0, 1};
    if (nd.contains("translation")) for (size_t k = 0; k < 3; ++k) t0[k] = nd["translation"][k].get<double>();
    if (nd.contains("rotation")) for (size_t k = 0; k < 4; ++k) r0[k] = nd["rotation"][k].get<double>();
    const size_t frames = size_t(std::llround(seconds * rate)) + 1;
    std::vector<float> times, tr, rot;
    const double pi = 3.14159265358979323846;
    for (size_t f = 0; f < frames; ++f) {
        const double t = double(f) / rate, ph = 2 * pi * t / seconds;
        times.push_back(float(t));
        // 25 degrees either way about +Y, 0.25 m side to side, twice per turn: the cloth swings.
        const double a = 25 * pi / 180 * std::sin(ph), h = a / 2;
        const Quat y{0, std::sin(h), 0, std::cos(h)};
        const Quat m = {y[3] * r0[0] + y[0] * r0[3] + y[1] * r0[2] - y[2] * r0[1], y[3] * r0[1] - y[0] * r0[2] + y[1] * r0[3] + y[2] * r0[0],
                        y[3] * r0[2] + y[0] * r0[1] - y[1] * r0[0] + y[2] * r0[3], y[3] * r0[3] - y[0] * r0[0] - y[1] * r0[1] - y[2] * r0[2]};
        for (double x : m) rot.push_back(float(x));
        tr.push_back(float(t0[0] + 0.25 * std::sin(2 * ph)));
        tr.push_back(float(t0[1]));
        tr.push_back(float(t0[2]));
    }
    const int in = add_float_accessor(doc, impl->bin, times, "SCALAR", true);
    const int out_t = add_float_accessor(doc, impl->bin, tr, "VEC3", false);
    const int out_r = add_float_accessor(doc, impl->bin, rot, "VEC4", false);
    if (!doc.contains("animations")) doc["animations"] = json::array();
    doc["animations"].push_back({{"name", name},
                                 {"samplers", {{{"input", in}, {"output", out_t}, {"interpolation", "LINEAR"}}, {{"input", in}, {"output", out_r}, {"interpolation", "LINEAR"}}}},
                                 {"channels", {{{"sampler", 0}, {"target", {{"node", node}, {"path", "translation"}}}}, {{"sampler", 1}, {"target", {{"node", node}, {"path", "rotation"}}}}}}});
    return int(doc["animations"].size() - 1);
}

Mat4 game_from_gltf(const Mat4& w) {
    // S W S with S = diag(1, 1, -1, 1): negate the z row and the z column.
    Mat4 g = w;
    for (int c = 0; c < 4; ++c) g[size_t(c * 4 + 2)] = -g[size_t(c * 4 + 2)];
    for (int r = 0; r < 4; ++r) g[size_t(8 + r)] = -g[size_t(8 + r)];
    return g;
}

namespace {

// The blended skin matrix of every vertex of `m` at the given node world matrices (the node's own
// world matrix for a mesh without skin).
std::vector<Mat4> skin_matrices(const Scene::Mesh& m, const std::vector<Mat4>& world) {
    std::vector<Mat4> out(m.positions.size(), world.at(size_t(m.node)));
    if (m.skin < 0 || m.joints.size() != m.positions.size()) return out;
    std::vector<Mat4> joint(m.skin_joints.size());
    for (size_t j = 0; j < m.skin_joints.size(); ++j) joint[j] = mul(world.at(size_t(m.skin_joints[j])), m.inverse_bind[j]);
    for (size_t v = 0; v < m.positions.size(); ++v) {
        Mat4 s{};
        double total = 0;
        for (int k = 0; k < 4; ++k) {
            const double w = m.weights[v][size_t(k)];
            const size_t ji = m.joints[v][size_t(k)];
            if (w == 0 || ji >= joint.size()) continue;
            for (size_t e = 0; e < 16; ++e) s[e] += w * joint[ji][e];
            total += w;
        }
        if (total > 0) out[v] = s;
    }
    return out;
}

}  // namespace

Result<std::vector<uint8_t>> write_baked(Scene& scene, int animation, std::span<const double> times, std::span<const MeshMotion> motions,
                                         std::span<const BoneMotion> bones, const WriteOptions& options, WriteReport* report) {
    WriteReport local;
    WriteReport& rep = report ? *report : local;
    rep = {};
    json& doc = scene.impl->doc;
    std::vector<uint8_t>& bin = scene.impl->bin;
    const size_t bin_before = bin.size();
    const json& anims = doc.value("animations", json::array());
    if (animation < 0 || size_t(animation) >= anims.size()) return make_error("no animation " + std::to_string(animation) + " to key the cloth on");
    if (times.empty()) return make_error("no frames to bake");
    const auto meshes = scene.meshes();
    const size_t K = times.size();
    for (const BoneMotion& b : bones) {
        if (b.node < 0 || size_t(b.node) >= scene.node_count()) return make_error("no node " + std::to_string(b.node) + " for a driven bone");
        if (b.frames.size() != K) return make_error(std::to_string(b.frames.size()) + " frames of a driven bone for " + std::to_string(K) + " times");
    }
    std::vector<std::vector<Mat4>> worlds, locals;  // locals: per frame, the driven bones' local matrices
    for (size_t k = 0; k < K; ++k) {
        std::vector<std::pair<int, Mat4>> given;
        for (const BoneMotion& b : bones) given.push_back({b.node, b.frames[k]});
        locals.emplace_back();
        auto w = scene.world_matrices(animation, times[k], given, &locals.back());
        if (!w) return w.error();
        worlds.push_back(std::move(*w));
    }
    std::vector<float> key_times(times.begin(), times.end());
    const int input = add_float_accessor(doc, bin, key_times, "SCALAR", true);
    // Driven bones: local TRS against the parent as it moves (driven too, or the clip's).
    for (size_t bi = 0; bi < bones.size(); ++bi) {
        const BoneMotion& b = bones[bi];
        std::vector<float> tv, rv, sv;
        Quat prev{0, 0, 0, 1};
        for (size_t k = 0; k < K; ++k) {
            std::array<double, 3> t, sc;
            Quat q;
            decompose(locals[k][bi], t, q, sc);
            if (k && q[0] * prev[0] + q[1] * prev[1] + q[2] * prev[2] + q[3] * prev[3] < 0)
                for (auto& x : q) x = -x;  // the short way from the previous key
            prev = q;
            for (double x : t) tv.push_back(float(x));
            for (double x : q) rv.push_back(float(x));
            for (double x : sc) sv.push_back(float(x));
        }
        json& a = doc["animations"][size_t(animation)];
        const std::pair<const char*, std::pair<const std::vector<float>*, const char*>> paths[3] = {
            {"translation", {&tv, "VEC3"}}, {"rotation", {&rv, "VEC4"}}, {"scale", {&sv, "VEC3"}}};
        for (const auto& [path, data] : paths) {
            const int output = add_float_accessor(doc, bin, *data.first, data.second, false);
            a["samplers"].push_back({{"input", input}, {"output", output}, {"interpolation", "LINEAR"}});
            const size_t sampler = a["samplers"].size() - 1;
            bool replaced = false;
            for (auto& ch : a["channels"])
                if (ch["target"].value("node", -1) == b.node && ch["target"].value("path", std::string()) == path) {
                    ch["sampler"] = sampler;  // the clip's keys of this bone give way (its sampler may be shared)
                    replaced = true;
                }
            if (!replaced) a["channels"].push_back({{"sampler", sampler}, {"target", {{"node", b.node}, {"path", path}}}});
            ++rep.bone_channels;
        }
    }
    for (const MeshMotion& mo : motions) {
        const Scene::Mesh* mesh = nullptr;
        for (const auto& m : meshes)
            if (m.mesh == mo.mesh) mesh = &m;
        if (!mesh) return make_error("no node draws mesh " + std::to_string(mo.mesh));
        if (mo.frames.size() != K) return make_error(std::to_string(mo.frames.size()) + " frames of motion for " + std::to_string(K) + " times");
        json& mj = doc["meshes"][size_t(mo.mesh)];
        if (mj["primitives"].size() != 1) return make_error("mesh " + mesh->name + " has several primitives; the bake writes one");
        if (mj["primitives"][0].contains("targets")) return make_error("mesh " + mesh->name + " already has morph targets");
        const size_t nv = mesh->positions.size();
        json targets = json::array(), names = json::array();
        // The targets' base values: zeros in one buffer view the mesh's targets share. glTF lets a
        // sparse accessor go without one, but Godot 3.2's importer then reads buffer view 0 in its
        // place and drops the target.
        const std::vector<float> zeros(nv * 3, 0.0f);
        const int zero_view = add_view(doc, bin, zeros.data(), zeros.size() * 4);
        doc["bufferViews"][size_t(zero_view)]["byteStride"] = 12;  // shared by several accessors
        doc["bufferViews"][size_t(zero_view)]["target"] = 34962;   // ARRAY_BUFFER
        for (size_t k = 0; k < K; ++k) {
            if (mo.frames[k].size() != nv) return make_error("frame " + std::to_string(k) + " has " + std::to_string(mo.frames[k].size()) + " vertices, the mesh " + std::to_string(nv));
            const auto skin = skin_matrices(*mesh, worlds[k]);
            std::vector<uint32_t> idx;
            std::vector<float> val;
            std::array<float, 3> lo{0, 0, 0}, hi{0, 0, 0};
            for (size_t v = 0; v < nv; ++v) {
                Mat4 inv;
                if (!affine_inverse(skin[v], inv)) return make_error("vertex " + std::to_string(v) + " of " + mesh->name + " has a singular skin matrix at frame " + std::to_string(k));
                const auto local = transform_point(inv, mo.frames[k][v]);
                const auto skinned = transform_point(skin[v], mesh->positions[v]);
                const double off = std::sqrt((skinned[0] - mo.frames[k][v][0]) * (skinned[0] - mo.frames[k][v][0]) +
                                             (skinned[1] - mo.frames[k][v][1]) * (skinned[1] - mo.frames[k][v][1]) +
                                             (skinned[2] - mo.frames[k][v][2]) * (skinned[2] - mo.frames[k][v][2]));
                rep.max_offset = std::max(rep.max_offset, off);
                const float d[3] = {float(local[0] - mesh->positions[v][0]), float(local[1] - mesh->positions[v][1]), float(local[2] - mesh->positions[v][2])};
                if (std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) < options.epsilon) continue;
                idx.push_back(uint32_t(v));
                for (int c = 0; c < 3; ++c) {
                    val.push_back(d[c]);
                    lo[size_t(c)] = std::min(lo[size_t(c)], d[c]);
                    hi[size_t(c)] = std::max(hi[size_t(c)], d[c]);
                }
            }
            json acc = {{"bufferView", zero_view}, {"componentType", 5126}, {"count", nv}, {"type", "VEC3"}, {"min", lo}, {"max", hi}};
            if (!idx.empty()) {
                const int iv = add_view(doc, bin, idx.data(), idx.size() * 4);
                const int vv = add_view(doc, bin, val.data(), val.size() * 4);
                // byteOffset 0 written out: Godot 3.2's importer leaves an absent sparse-indices
                // byteOffset uninitialised and then refuses the accessor.
                acc["sparse"] = {{"count", idx.size()},
                                 {"indices", {{"bufferView", iv}, {"byteOffset", 0}, {"componentType", 5125}}},
                                 {"values", {{"bufferView", vv}, {"byteOffset", 0}}}};
            }
            doc["accessors"].push_back(acc);
            targets.push_back({{"POSITION", int(doc["accessors"].size() - 1)}});
            names.push_back("drape_bake_" + std::to_string(k));
            rep.stored_vertices += idx.size();
        }
        mj["primitives"][0]["targets"] = targets;
        mj["weights"] = std::vector<float>(K, 0.0f);
        if (!mj.contains("extras") || !mj["extras"].is_object()) mj["extras"] = json::object();
        mj["extras"]["targetNames"] = names;
        // The weights: frame k's target at frame k's time, linear in between.
        std::vector<float> w(K * K, 0.0f);
        for (size_t k = 0; k < K; ++k) w[k * K + k] = 1.0f;
        const int output = add_float_accessor(doc, bin, w, "SCALAR", false);
        json& a = doc["animations"][size_t(animation)];
        a["samplers"].push_back({{"input", input}, {"output", output}, {"interpolation", "LINEAR"}});
        a["channels"].push_back({{"sampler", a["samplers"].size() - 1}, {"target", {{"node", mesh->node}, {"path", "weights"}}}});
        rep.targets += K;
    }
    while (bin.size() % 4) bin.push_back(0);
    doc["buffers"][0]["byteLength"] = bin.size();
    rep.bytes_added = bin.size() - bin_before;
    return exporters::write_glb(doc.dump(-1, ' ', false, json::error_handler_t::replace), bin);
}

Result<std::vector<uint8_t>> bake(Bytes glb, Cloth& cloth, const BakeOptions& options, BakeReport* report) {
    BakeReport local;
    BakeReport& rep = report ? *report : local;
    rep = {};
    auto scene = Scene::parse(glb);
    if (!scene) return scene.error();
    if (!(options.rate > 0) || options.rate > 1000) return make_error("the bake rate must be in (0, 1000] Hz");
    const auto bones = cloth.bone_names();
    std::vector<int> bone_nodes;
    for (const auto& b : bones) bone_nodes.push_back(scene->find_node(b));
    int animation = -1;
    if (!options.sway) {
        if (!options.clip.empty()) {
            animation = scene->find_animation(options.clip);
            if (animation < 0) {
                std::string list;
                for (const auto& n : scene->animation_names()) list += (list.empty() ? "" : ", ") + n;
                return make_error("no clip '" + options.clip + "' in the model (it has: " + (list.empty() ? "none" : list) + ")");
            }
        } else if (!scene->animation_names().empty()) {
            animation = 0;
        }
    }
    if (animation < 0) {
        int root = -1;
        for (int n : bone_nodes)
            if (n >= 0) {
                root = n;
                break;
            }
        if (root < 0) return make_error("none of the cloth's bones is a node of the model; nothing to sway");
        auto a = scene->add_sway("drape_sway", root, options.sway_seconds, options.rate);
        if (!a) return a.error();
        animation = *a;
    }
    rep.animation = scene->animation_names()[size_t(animation)];
    // Display buffers to meshes: the glTF mesh the cloth file names, else the mesh whose default
    // node is named as the buffer, with the buffer's vertex count.
    const auto meshes = scene->meshes();
    const auto buffers = cloth.display_buffers();
    std::vector<int> buffer_mesh(buffers.size(), -1);
    std::vector<bool> taken(meshes.size(), false);
    for (size_t b = 0; b < buffers.size(); ++b)
        for (size_t m = 0; m < meshes.size(); ++m) {
            const bool named = buffers[b].mesh.empty() ? meshes[m].default_node == buffers[b].name : meshes[m].name == buffers[b].mesh;
            if (!taken[m] && named && meshes[m].positions.size() == buffers[b].vertices) {
                buffer_mesh[b] = int(m);
                taken[m] = true;
                break;
            }
        }
    const double duration = scene->animation_duration(animation);
    const double first = std::clamp(options.start_seconds, 0.0, duration);
    const double last = options.max_seconds > 0 ? std::min(duration, first + options.max_seconds) : duration;
    const size_t frames = size_t(std::floor((last - first) * options.rate + 1e-9)) + 1;
    std::vector<double> times;
    for (size_t k = 0; k < frames; ++k) times.push_back(std::min(last, first + double(k) / options.rate));
    std::vector<MeshMotion> motions;
    for (size_t b = 0; b < buffers.size(); ++b)
        if (buffer_mesh[b] >= 0) {
            motions.push_back({meshes[size_t(buffer_mesh[b])].mesh, {}});
            rep.meshes.push_back(meshes[size_t(buffer_mesh[b])].name);
        }
    if (motions.empty()) return make_error("no display buffer of the cloth matches a mesh of the model (by default node name and vertex count)");
    // Bones the cloth drives that are nodes of the model.
    const auto driven = cloth.driven_bones();
    std::vector<BoneMotion> bone_motions;
    std::vector<size_t> driven_slot;  // per bone_motions entry: its index in `driven`
    for (size_t i = 0; i < driven.size(); ++i) {
        if (driven[i] >= bones.size() || bone_nodes[driven[i]] < 0) continue;
        bool seen = false;
        for (const auto& bm : bone_motions) seen = seen || bm.node == bone_nodes[driven[i]];
        if (seen) continue;
        bone_motions.push_back({bone_nodes[driven[i]], {}});
        driven_slot.push_back(i);
        rep.driven_bones.push_back(bones[driven[i]]);
    }
    std::vector<Mat4> driven_now(driven.size(), identity());
    const float dt = float(1.0 / options.rate);
    std::vector<Mat4> game(bones.size(), identity());
    std::vector<Mat4> world;
    auto pose = [&](double t) -> Result<void> {
        auto w = scene->world_matrices(animation, t);
        if (!w) return w.error();
        world = std::move(*w);
        for (size_t i = 0; i < bones.size(); ++i)
            if (bone_nodes[i] >= 0) game[i] = game_from_gltf(world[size_t(bone_nodes[i])]);
        return {};
    };
    // The display meshes as the engine skins them, in the game's space.
    std::vector<Vec3f> skinned;
    auto hand_in = [&]() -> Result<void> {
        for (size_t b = 0; b < buffers.size(); ++b) {
            if (buffer_mesh[b] < 0) continue;
            const Scene::Mesh& m = meshes[size_t(buffer_mesh[b])];
            const auto skin = skin_matrices(m, world);
            skinned.resize(m.positions.size());
            for (size_t v = 0; v < m.positions.size(); ++v) {
                const auto p = transform_point(skin[v], m.positions[v]);
                skinned[v] = {float(p[0]), float(p[1]), float(-p[2])};
            }
            if (auto r = cloth.set_skinned_display(b, skinned); !r) return r.error();
        }
        return {};
    };
    for (size_t b = 0; b < buffers.size(); ++b) {
        if (buffer_mesh[b] < 0) continue;
        auto tris = scene->triangles(meshes[size_t(buffer_mesh[b])].mesh);
        if (!tris) return tris.error();
        if (auto r = cloth.set_display_triangles(b, *tris); !r) return r.error();
    }
    if (auto p = pose(times[0]); !p) return p.error();
    if (auto h = hand_in(); !h) return h.error();
    if (auto s = cloth.start(game); !s) return s.error();
    for (int i = 0; i < options.warmup_steps; ++i)
        if (auto s = cloth.step(game, dt); !s) return s.error();
    std::vector<Vec3f> buf;
    for (size_t k = 0; k < frames; ++k) {
        if (auto p = pose(times[k]); !p) return p.error();
        if (auto h = hand_in(); !h) return h.error();
        if (auto s = cloth.step(game, dt); !s) return s.error();
        size_t mi = 0;
        for (size_t b = 0; b < buffers.size(); ++b) {
            if (buffer_mesh[b] < 0) continue;
            buf.assign(buffers[b].vertices, Vec3f{0, 0, 0});
            if (auto d = cloth.display_positions(b, buf); !d) return d.error();
            for (auto& p : buf) {
                if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2]))
                    return make_error("the cloth's display buffer " + buffers[b].name + " is not finite at frame " + std::to_string(k));
                p[2] = -p[2];  // game -> glTF
            }
            motions[mi++].frames.push_back(buf);
        }
        if (!driven.empty()) {
            if (auto d = cloth.driven_matrices(driven_now); !d) return d.error();
            for (size_t i = 0; i < bone_motions.size(); ++i) bone_motions[i].frames.push_back(game_from_gltf(driven_now[driven_slot[i]]));  // S M S both ways
        }
    }
    rep.frames = frames;
    auto out = write_baked(*scene, animation, times, motions, bone_motions, options.write, &rep.write);
    if (!out) return out.error();
    rep.max_offset = rep.write.max_offset;
    return out;
}

}  // namespace drape::bake
