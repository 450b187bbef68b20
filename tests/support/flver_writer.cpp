#include "flver_writer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace drape::test {

namespace {

struct Out {
    std::vector<uint8_t> b;
    void put(const void* p, size_t n) {
        const auto* c = static_cast<const uint8_t*>(p);
        b.insert(b.end(), c, c + n);
    }
    void i32(int32_t v) { put(&v, 4); }
    void u32(uint32_t v) { put(&v, 4); }
    void i16(int16_t v) { put(&v, 2); }
    void u16(uint16_t v) { put(&v, 2); }
    void u8(uint8_t v) { put(&v, 1); }
    void f32(float v) { put(&v, 4); }
    void vec3(const std::array<float, 3>& v) { f32(v[0]), f32(v[1]), f32(v[2]); }
    void zeros(size_t n) { b.insert(b.end(), n, 0); }
    void pad(size_t a) {
        while (b.size() % a) b.push_back(0);
    }
    void set32(size_t at, int32_t v) { std::memcpy(b.data() + at, &v, 4); }
    void wstr(const std::string& s) {
        for (char c : s) u16(uint16_t(uint8_t(c)));
        u16(0);
    }
};

uint8_t snorm8(float x) { return uint8_t(std::clamp(std::lround(x * 127.0f + 127.0f), 0l, 255l)); }
int16_t snorm16(float x) { return int16_t(std::clamp(std::lround(x * 32767.0f), -32767l, 32767l)); }
int16_t uv16(float x) { return int16_t(std::clamp(std::lround(x * 2048.0f), -32768l, 32767l)); }

struct Box {
    std::array<float, 3> lo{std::numeric_limits<float>::max(), std::numeric_limits<float>::max(), std::numeric_limits<float>::max()};
    std::array<float, 3> hi{-std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(), -std::numeric_limits<float>::max()};
    bool empty = true;
    void add(const std::array<float, 3>& p) {
        for (int i = 0; i < 3; ++i) lo[i] = std::min(lo[i], p[i]), hi[i] = std::max(hi[i], p[i]);
        empty = false;
    }
    std::array<float, 3> min() const { return empty ? std::array<float, 3>{0, 0, 0} : lo; }
    std::array<float, 3> max() const { return empty ? std::array<float, 3>{0, 0, 0} : hi; }
};

}  // namespace

std::vector<uint8_t> write_flver(const FlverSpec& spec) {
    Out o;
    const size_t nn = spec.nodes.size(), nm = spec.meshes.size(), nmat = spec.materials.size(), nd = spec.dummies.size();
    size_t ntex = 0;
    for (const auto& m : spec.materials) ntex += m.textures.size();
    int32_t faces = 0;
    Box all;
    std::vector<Box> bone_box(nn);
    for (const auto& m : spec.meshes) {
        faces += int32_t(m.indices.size() / 3);
        for (const auto& v : m.vertices) {
            all.add(v.position);
            for (int k = 0; k < 4; ++k)
                if (v.weights[k] > 0 && v.bones[k] < nn) bone_box[v.bones[k]].add(v.position);
        }
    }

    // Header (0x80).
    o.put("FLVER\0L\0", 8);
    o.i32(spec.version);
    const size_t data_offset_at = o.b.size();
    o.i32(0), o.i32(0);  // dataOffset, dataLength (patched)
    o.i32(int32_t(nd)), o.i32(int32_t(nmat)), o.i32(int32_t(nn)), o.i32(int32_t(nm)), o.i32(int32_t(nm));
    o.vec3(all.min()), o.vec3(all.max());
    o.i32(faces), o.i32(faces);
    o.u8(0), o.u8(1), o.u8(0), o.u8(0);  // index size per face set, unicode
    o.i32(0);
    o.i32(int32_t(nm)), o.i32(1), o.i32(int32_t(ntex));  // face sets, layouts, textures
    o.u8(0), o.u8(0), o.u8(0), o.u8(0);
    o.zeros(0x20);

    const size_t dummies_at = o.b.size();
    for (const auto& d : spec.dummies) {
        o.vec3(d.position);
        o.u8(255), o.u8(255), o.u8(255), o.u8(255);
        o.vec3(d.forward);
        o.i16(d.reference_id), o.i16(d.parent_node);
        o.vec3(d.upward);
        o.i16(d.attach_node), o.u8(0), o.u8(1);
        o.zeros(16);
    }
    (void)dummies_at;
    const size_t materials_at = o.b.size();
    {
        int32_t first = 0;
        for (size_t i = 0; i < nmat; ++i) {
            o.i32(0), o.i32(0);  // name, mtd (patched)
            o.i32(int32_t(spec.materials[i].textures.size())), o.i32(first);
            o.i32(0), o.i32(0), o.i32(int32_t(i)), o.i32(0);
            first += int32_t(spec.materials[i].textures.size());
        }
    }
    // Nodes: first child and sibling links from the parents.
    std::vector<int16_t> first_child(nn, -1), next_sibling(nn, -1), prev_sibling(nn, -1);
    for (size_t i = 0; i < nn; ++i) {
        const int16_t p = spec.nodes[i].parent;
        int16_t prev = -1;
        for (size_t j = 0; j < i; ++j)
            if (spec.nodes[j].parent == p) prev = int16_t(j);
        if (prev >= 0) next_sibling[size_t(prev)] = int16_t(i), prev_sibling[i] = prev;
        if (p >= 0 && size_t(p) < nn && first_child[size_t(p)] < 0) first_child[size_t(p)] = int16_t(i);
    }
    const size_t nodes_at = o.b.size();
    for (size_t i = 0; i < nn; ++i) {
        const auto& n = spec.nodes[i];
        o.vec3(n.translation);
        o.i32(0);  // name (patched)
        o.vec3(n.rotation);
        o.i16(n.parent), o.i16(first_child[i]);
        o.vec3(n.scale);
        o.i16(next_sibling[i]), o.i16(prev_sibling[i]);
        o.vec3(bone_box[i].min());
        o.i32(n.flags);
        o.vec3(bone_box[i].max());
        o.zeros(0x34);
    }
    const size_t meshes_at = o.b.size();
    for (const auto& m : spec.meshes) {
        o.u8(m.dynamic ? 1 : 0), o.u8(0), o.u8(0), o.u8(0);
        o.i32(m.material), o.i32(0), o.i32(0);
        o.i32(m.default_node), o.i32(0);
        o.i32(0), o.i32(0);  // bounding box, bone list (patched / none)
        o.i32(1), o.i32(0), o.i32(1), o.i32(0);
    }
    const size_t facesets_at = o.b.size();
    for (size_t k = 0; k < nm; ++k) {
        o.u32(0), o.u8(0), o.u8(1), o.i16(0);
        const int32_t count = int32_t(spec.meshes[k].indices.size());
        o.i32(count), o.i32(0), o.i32(count * 2), o.i32(0), o.i32(16), o.i32(0);
    }
    constexpr uint32_t k_vertex_size = 48;
    const size_t buffers_at = o.b.size();
    for (size_t k = 0; k < nm; ++k) {
        const int32_t count = int32_t(spec.meshes[k].vertices.size());
        o.i32(0), o.i32(0), o.i32(int32_t(k_vertex_size)), o.i32(count), o.i32(0), o.i32(0), o.i32(count * int32_t(k_vertex_size)), o.i32(0);
    }
    const size_t layout_at = o.b.size();
    o.i32(7), o.i32(0), o.i32(0), o.i32(0);
    const size_t textures_at = o.b.size();
    for (size_t t = 0; t < ntex; ++t) {
        o.i32(0), o.i32(0), o.f32(1), o.f32(1), o.u8(1), o.u8(1), o.u8(0), o.u8(0), o.f32(0), o.f32(0), o.f32(0);
    }
    if (spec.version >= 0x2001A) o.zeros(0x20);  // SkeletonSet header: no skeleton entries

    // Pointed-to data: layout members, mesh bounding boxes, face set and buffer lists, strings.
    o.set32(layout_at + 12, int32_t(o.b.size()));
    const uint32_t members[7][3] = {{0x02, 0, 0}, {0x10, 3, 0}, {0x10, 6, 0}, {0x18, 2, 0}, {0x1A, 1, 0}, {0x16, 5, 0}, {0x10, 10, 0}};
    const int32_t sizes[7] = {12, 4, 4, 8, 8, 8, 4};
    int32_t off = 0;
    for (int k = 0; k < 7; ++k) {
        o.i32(0), o.i32(off), o.u32(members[k][0]), o.u32(members[k][1]), o.i32(int32_t(members[k][2]));
        off += sizes[k];
    }
    for (size_t k = 0; k < nm; ++k) {
        Box box;
        for (const auto& v : spec.meshes[k].vertices) box.add(v.position);
        o.set32(meshes_at + k * 0x30 + 0x18, int32_t(o.b.size()));
        o.vec3(box.min()), o.vec3(box.max());
        if (spec.version >= 0x2001A) o.vec3({0, 0, 0});
    }
    for (size_t k = 0; k < nm; ++k) {
        o.set32(meshes_at + k * 0x30 + 0x24, int32_t(o.b.size()));
        o.i32(int32_t(k));
    }
    for (size_t k = 0; k < nm; ++k) {
        o.set32(meshes_at + k * 0x30 + 0x2C, int32_t(o.b.size()));
        o.i32(int32_t(k));
    }
    auto str = [&](size_t field_at, const std::string& s) {
        o.set32(field_at, int32_t(o.b.size()));
        o.wstr(s);
    };
    {
        size_t t = 0;
        for (size_t i = 0; i < nmat; ++i) {
            str(materials_at + i * 0x20 + 0, spec.materials[i].name);
            str(materials_at + i * 0x20 + 4, spec.materials[i].mtd);
            for (const auto& tex : spec.materials[i].textures) {
                str(textures_at + t * 0x20 + 0, tex.path);
                str(textures_at + t * 0x20 + 4, tex.type);
                ++t;
            }
        }
    }
    for (size_t i = 0; i < nn; ++i) str(nodes_at + i * 0x80 + 0x0C, spec.nodes[i].name);

    // Data area: every face set's indices, then every mesh's vertices.
    o.pad(16);
    const size_t data = o.b.size();
    o.set32(data_offset_at, int32_t(data));
    for (size_t k = 0; k < nm; ++k) {
        o.set32(facesets_at + k * 0x20 + 0x0C, int32_t(o.b.size() - data));
        for (uint16_t x : spec.meshes[k].indices) o.u16(x);
        o.pad(16);
    }
    for (size_t k = 0; k < nm; ++k) {
        o.set32(buffers_at + k * 0x20 + 0x1C, int32_t(o.b.size() - data));
        for (const auto& v : spec.meshes[k].vertices) {
            o.vec3(v.position);
            o.u8(snorm8(v.normal[0])), o.u8(snorm8(v.normal[1])), o.u8(snorm8(v.normal[2])), o.u8(0);
            o.u8(snorm8(v.tangent[0])), o.u8(snorm8(v.tangent[1])), o.u8(snorm8(v.tangent[2])), o.u8(snorm8(v.tangent[3]));
            for (uint16_t b : v.bones) o.u16(b);
            for (float w : v.weights) o.i16(snorm16(w));
            o.i16(uv16(v.uv[0])), o.i16(uv16(v.uv[1])), o.i16(0), o.i16(0);
            for (uint8_t c : v.color) o.u8(c);
        }
        o.pad(16);
    }
    o.set32(data_offset_at + 4, int32_t(o.b.size() - data));
    return o.b;
}

}  // namespace drape::test
