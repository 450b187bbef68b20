// FLVER2 reader (docs/formats.md#flver2). Every offset and count goes through ByteReader; table
// offsets are absolute, face-set index offsets and vertex-buffer offsets are relative to dataOffset.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "drape/flver/flver.h"

namespace drape::flver {

namespace {

constexpr size_t k_header_size = 0x80;
constexpr size_t k_dummy_size = 0x40;
constexpr size_t k_material_size = 0x20;
constexpr size_t k_node_size = 0x80;
constexpr size_t k_mesh_size = 0x30;
constexpr size_t k_faceset_size = 0x20;
constexpr size_t k_vertex_buffer_size = 0x20;
constexpr size_t k_layout_size = 0x10;
constexpr size_t k_member_size = 0x14;
constexpr size_t k_texture_size = 0x20;

Vec3 read_vec3(ByteReader& r, const char* field) {
    Vec3 v;
    v.x = r.f32(field);
    v.y = r.f32(field);
    v.z = r.f32(field);
    return v;
}

struct Context {
    ByteReader& r;  // the whole file
    const Header& h;

    // `at`: where the offset field is (errors point there when the offset itself is bad).
    bool read_string(int32_t offset, std::string& out, const char* field, size_t at) {
        out.clear();
        if (offset == 0) return true;
        if (offset < 0) return r.fail_at(at, field, "negative string offset " + std::to_string(offset));
        if (size_t(offset) >= r.size())
            return r.fail_at(at, field, "string offset " + hex(uint32_t(offset)) + " is past the end");
        return h.unicode ? r.read_utf16z_at(size_t(offset), out, field) : r.read_sjisz_at(size_t(offset), out, field);
    }
};

// ---- vertex decoding -------------------------------------------------------------------

inline float snorm8(int8_t v) { return float(v) / 127.0f; }
inline float unorm8_127(uint8_t v) { return (float(v) - 127.0f) / 127.0f; }

struct MemberDecoder {
    const LayoutMember* m;
    uint32_t uv_slot = 0;       // first UV set this member fills
    uint32_t uv_sets = 0;       // how many
    uint32_t tangent_slot = 0;  // tangent slot
    uint32_t color_slot = 0;
};

uint16_t rd16(const uint8_t* p, bool be) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return be ? byteswap_value(v) : v;
}
float rdf(const uint8_t* p, bool be) {
    float v;
    std::memcpy(&v, p, 4);
    return be ? byteswap_value(v) : v;
}
int16_t rds16(const uint8_t* p, bool be) { return int16_t(rd16(p, be)); }

}  // namespace

uint32_t member_type_size(uint32_t type) {
    switch (type) {
        case 0x00: return 4;
        case 0x01: return 8;
        case 0x02: return 12;
        case 0x03: return 16;
        case 0x10: case 0x11: case 0x12: case 0x13: case 0x14: case 0x15: case 0x17: return 4;
        case 0x16: case 0x18: case 0x1A: case 0x2E: return 8;
        case 0x2D: case 0x2F: return 4;
        case 0xF0: return 1;
        default: return 0;
    }
}

uint32_t BufferLayout::size() const {
    uint32_t s = 0;
    for (const auto& m : members) s += member_type_size(m.type);
    return s;
}

std::vector<std::array<uint32_t, 3>> FaceSet::triangles(uint32_t vertex_count) const {
    std::vector<std::array<uint32_t, 3>> out;
    auto push = [&](uint32_t a, uint32_t b, uint32_t c) {
        if (a == b || b == c || a == c) return;
        out.push_back({a, b, c});
    };
    if (!triangle_strip) {
        out.reserve(indices.size() / 3);
        for (size_t i = 0; i + 2 < indices.size(); i += 3) push(indices[i], indices[i + 1], indices[i + 2]);
        return out;
    }
    const bool restart16 = index_size == 16 && vertex_count < 0xFFFF;
    auto is_restart = [&](uint32_t v) { return (restart16 && v == 0xFFFF) || v == 0xFFFFFFFFu; };
    size_t run = 0;  // position within the current strip
    for (size_t i = 0; i < indices.size(); ++i) {
        if (is_restart(indices[i])) {
            run = 0;
            continue;
        }
        ++run;
        if (run >= 3) {
            uint32_t a = indices[i - 2], b = indices[i - 1], c = indices[i];
            if ((run - 3) % 2 == 0)
                push(a, b, c);
            else
                push(b, a, c);
        }
    }
    return out;
}

const FaceSet* Mesh::lod0() const {
    for (const auto& fs : face_sets)
        if (fs.is_lod0() && !fs.is_motion_blur()) return &fs;
    return nullptr;
}

int display_mask(const std::string& name) {
    if (name.size() < 3 || name[0] != '#') return -1;
    size_t i = 1;
    int v = 0;
    while (i < name.size() && i < 4 && name[i] >= '0' && name[i] <= '9') v = v * 10 + (name[i++] - '0');
    if (i == 1 || i >= name.size() || name[i] != '#') return -1;
    return v;
}

bool is_flver(Bytes data) { return data.size() >= 6 && std::memcmp(data.data(), "FLVER\0", 6) == 0; }

namespace {

// One layout member's bytes in a vertex buffer: vertex i's at data + i * stride + offset.
struct MemberBytes {
    const uint8_t* data;
    uint32_t stride;
    uint32_t count;
    uint32_t offset;
    bool be;

    template <class Fn>
    void each(Fn fn) const {
        for (uint32_t i = 0; i < count; ++i) fn(i, data + size_t(i) * stride + offset);
    }
};

// Each decoder below fills its attribute from one member and returns the attribute's name when
// the member's type is not one it decodes (nullptr when it is).

const char* decode_positions(const MemberBytes& b, uint32_t type, Vertices& v) {
    const bool be = b.be;
    v.positions.resize(b.count);
    if (type != 0x02 && type != 0x03) return "position";
    b.each([&](uint32_t i, const uint8_t* p) { v.positions[i] = {rdf(p, be), rdf(p + 4, be), rdf(p + 8, be)}; });
    return nullptr;
}

const char* decode_normals(const MemberBytes& b, uint32_t type, Vertices& v) {
    const bool be = b.be;
    v.normals.resize(b.count);
    v.normal_w.resize(b.count);
    switch (type) {
        case 0x02:
            b.each([&](uint32_t i, const uint8_t* p) { v.normals[i] = {rdf(p, be), rdf(p + 4, be), rdf(p + 8, be)}; });
            break;
        case 0x03:
            b.each([&](uint32_t i, const uint8_t* p) {
                v.normals[i] = {rdf(p, be), rdf(p + 4, be), rdf(p + 8, be)};
                float w = rdf(p + 12, be);
                v.normal_w[i] = std::isfinite(w) && std::fabs(w) < 1e9f ? int32_t(w) : 0;
            });
            break;
        case 0x10: case 0x11: case 0x13: case 0x2F:
            b.each([&](uint32_t i, const uint8_t* p) {
                v.normals[i] = {unorm8_127(p[0]), unorm8_127(p[1]), unorm8_127(p[2])};
                v.normal_w[i] = p[3];
            });
            break;
        case 0x12:
            b.each([&](uint32_t i, const uint8_t* p) {
                v.normal_w[i] = p[0];
                v.normals[i] = {snorm8(int8_t(p[3])), snorm8(int8_t(p[2])), snorm8(int8_t(p[1]))};
            });
            break;
        case 0x1A:
            b.each([&](uint32_t i, const uint8_t* p) {
                v.normals[i] = {rds16(p, be) / 32767.0f, rds16(p + 2, be) / 32767.0f, rds16(p + 4, be) / 32767.0f};
                v.normal_w[i] = rds16(p + 6, be);
            });
            break;
        case 0x2E:
            b.each([&](uint32_t i, const uint8_t* p) {
                v.normals[i] = {(rd16(p, be) - 32767.0f) / 32767.0f, (rd16(p + 2, be) - 32767.0f) / 32767.0f,
                                (rd16(p + 4, be) - 32767.0f) / 32767.0f};
                v.normal_w[i] = rds16(p + 6, be);
            });
            break;
        case 0x18:
            b.each([&](uint32_t i, const uint8_t* p) {
                v.normals[i] = {rds16(p, be) / 127.0f - 1, rds16(p + 2, be) / 127.0f - 1, rds16(p + 4, be) / 127.0f - 1};
                v.normal_w[i] = rds16(p + 6, be);
            });
            break;
        default: return "normal";
    }
    return nullptr;
}

// A tangent or the bitangent: four components, w the handedness.
bool decode_tangent_frame(const MemberBytes& b, uint32_t type, std::vector<Vec4>& t) {
    const bool be = b.be;
    t.resize(b.count);
    switch (type) {
        case 0x03:
            b.each([&](uint32_t i, const uint8_t* p) { t[i] = {rdf(p, be), rdf(p + 4, be), rdf(p + 8, be), rdf(p + 12, be)}; });
            break;
        case 0x10: case 0x11: case 0x13: case 0x2F:
            b.each([&](uint32_t i, const uint8_t* p) { t[i] = {unorm8_127(p[0]), unorm8_127(p[1]), unorm8_127(p[2]), unorm8_127(p[3])}; });
            break;
        case 0x14:
            b.each([&](uint32_t i, const uint8_t* p) { t[i] = {snorm8(int8_t(p[3])), snorm8(int8_t(p[2])), snorm8(int8_t(p[1])), snorm8(int8_t(p[0]))}; });
            break;
        case 0x1A:
            b.each([&](uint32_t i, const uint8_t* p) {
                t[i] = {rds16(p, be) / 32767.0f, rds16(p + 2, be) / 32767.0f, rds16(p + 4, be) / 32767.0f, rds16(p + 6, be) / 32767.0f};
            });
            break;
        default: return false;
    }
    return true;
}

// The member fills UV sets a and (types holding two) b; `uv_factor` scales the 16-bit forms.
const char* decode_uv_sets(const MemberBytes& b, uint32_t type, float uv_factor, std::vector<Vec2>& a, std::vector<Vec2>* second) {
    const bool be = b.be;
    switch (type) {
        case 0x01: case 0x02:
            b.each([&](uint32_t i, const uint8_t* p) { a[i] = {rdf(p, be), rdf(p + 4, be)}; });
            break;
        case 0x03:
            b.each([&](uint32_t i, const uint8_t* p) {
                a[i] = {rdf(p, be), rdf(p + 4, be)};
                (*second)[i] = {rdf(p + 8, be), rdf(p + 12, be)};
            });
            break;
        case 0x10: case 0x11: case 0x12: case 0x15: case 0x2D:
            b.each([&](uint32_t i, const uint8_t* p) { a[i] = {rds16(p, be) / uv_factor, rds16(p + 2, be) / uv_factor}; });
            break;
        case 0x13:
            b.each([&](uint32_t i, const uint8_t* p) {
                a[i] = {p[0] / 255.0f, p[1] / 255.0f};
                (*second)[i] = {p[2] / 255.0f, p[3] / 255.0f};
            });
            break;
        case 0x16: case 0x1A: case 0x2E:
            b.each([&](uint32_t i, const uint8_t* p) {
                a[i] = {rds16(p, be) / uv_factor, rds16(p + 2, be) / uv_factor};
                (*second)[i] = {rds16(p + 4, be) / uv_factor, rds16(p + 6, be) / uv_factor};
            });
            break;
        default: return "uv";
    }
    return nullptr;
}

const char* decode_colors(const MemberBytes& b, uint32_t type, std::vector<Vec4>& c) {
    const bool be = b.be;
    c.resize(b.count);
    switch (type) {
        case 0x03:
            b.each([&](uint32_t i, const uint8_t* p) { c[i] = {rdf(p, be), rdf(p + 4, be), rdf(p + 8, be), rdf(p + 12, be)}; });
            break;
        case 0x10: case 0x13:
            b.each([&](uint32_t i, const uint8_t* p) { c[i] = {p[0] / 255.0f, p[1] / 255.0f, p[2] / 255.0f, p[3] / 255.0f}; });
            break;
        default: return "vertex colour";
    }
    return nullptr;
}

const char* decode_bone_weights(const MemberBytes& b, uint32_t type, Vertices& v) {
    const bool be = b.be;
    v.bone_weights.resize(b.count);
    switch (type) {
        case 0x10:
            b.each([&](uint32_t i, const uint8_t* p) {
                v.bone_weights[i] = {snorm8(int8_t(p[0])), snorm8(int8_t(p[1])), snorm8(int8_t(p[2])), snorm8(int8_t(p[3]))};
            });
            break;
        case 0x13:
            b.each([&](uint32_t i, const uint8_t* p) { v.bone_weights[i] = {p[0] / 255.0f, p[1] / 255.0f, p[2] / 255.0f, p[3] / 255.0f}; });
            break;
        case 0x16: case 0x1A:
            b.each([&](uint32_t i, const uint8_t* p) {
                v.bone_weights[i] = {rds16(p, be) / 32767.0f, rds16(p + 2, be) / 32767.0f, rds16(p + 4, be) / 32767.0f, rds16(p + 6, be) / 32767.0f};
            });
            break;
        default: return "bone weights";
    }
    return nullptr;
}

const char* decode_bone_indices(const MemberBytes& b, uint32_t type, Vertices& v) {
    const bool be = b.be;
    v.bone_indices.resize(b.count);
    switch (type) {
        case 0x11: case 0x2F: case 0x12:
            b.each([&](uint32_t i, const uint8_t* p) { v.bone_indices[i] = {p[0], p[1], p[2], p[3]}; });
            break;
        case 0x18:
            b.each([&](uint32_t i, const uint8_t* p) { v.bone_indices[i] = {rd16(p, be), rd16(p + 2, be), rd16(p + 4, be), rd16(p + 6, be)}; });
            break;
        case 0x17:
            b.each([&](uint32_t i, const uint8_t* p) { v.bone_indices[i] = {rd16(p, be), rd16(p + 2, be), 0, 0}; });
            break;
        default: return "bone indices";
    }
    return nullptr;
}

// Before 0x2000E the indices point into the mesh's bone list: they become node indices.
bool remap_mesh_bones(ByteReader& r, const std::vector<int32_t>& mesh_bones, Vertices& v) {
    for (auto& bi : v.bone_indices)
        for (auto& x : bi) {
            if (x >= mesh_bones.size())
                return r.fail("flver2.vertex.bone_indices",
                              "index " + std::to_string(x) + " outside the mesh's bone list of " + std::to_string(mesh_bones.size()));
            x = uint16_t(mesh_bones[x]);
        }
    return true;
}

// The next free slot of each attribute with several sets, carried across a mesh's buffers.
struct AttributeSlots {
    uint32_t& uv_next;
    uint32_t& tangent_next;
    uint32_t& color_next;
};

// One member into its attribute; false (with the reader failed) on an unsupported type or too
// many sets. Unknown semantics are skipped (their size is known).
bool decode_member(ByteReader& r, const MemberBytes& b, const LayoutMember& m, int32_t version, const std::vector<int32_t>& mesh_bones, Vertices& v,
                   AttributeSlots& slots) {
    const auto sem = Semantic(m.semantic);
    const char* bad = nullptr;
    switch (sem) {
        case Semantic::position: bad = decode_positions(b, m.type, v); break;
        case Semantic::normal: bad = decode_normals(b, m.type, v); break;
        case Semantic::tangent:
            if (slots.tangent_next >= 8) return r.fail("flver2.layout_member", "more than 8 tangent members");
            v.tangents.resize(slots.tangent_next + 1);
            if (!decode_tangent_frame(b, m.type, v.tangents[slots.tangent_next++])) bad = "tangent";
            break;
        case Semantic::bitangent:
            if (!decode_tangent_frame(b, m.type, v.bitangents)) bad = "bitangent";
            break;
        case Semantic::uv: {
            const uint32_t sets = (m.type == 0x03 || m.type == 0x13 || m.type == 0x16 || m.type == 0x2E || m.type == 0x1A) ? 2 : 1;
            if (slots.uv_next + sets > 8) return r.fail("flver2.layout_member", "more than 8 UV sets");
            v.uvs.resize(slots.uv_next + sets);
            v.uvs[slots.uv_next].resize(b.count);
            if (sets == 2) v.uvs[slots.uv_next + 1].resize(b.count);
            bad = decode_uv_sets(b, m.type, version >= 0x2000E ? 2048.0f : 1024.0f, v.uvs[slots.uv_next], sets == 2 ? &v.uvs[slots.uv_next + 1] : nullptr);
            slots.uv_next += sets;
            break;
        }
        case Semantic::vertex_color:
            if (slots.color_next >= 8) return r.fail("flver2.layout_member", "more than 8 colour members");
            v.colors.resize(slots.color_next + 1);
            bad = decode_colors(b, m.type, v.colors[slots.color_next++]);
            break;
        case Semantic::bone_weights: bad = decode_bone_weights(b, m.type, v); break;
        case Semantic::bone_indices:
            bad = decode_bone_indices(b, m.type, v);
            if (!bad && version < 0x2000E && !mesh_bones.empty() && !remap_mesh_bones(r, mesh_bones, v)) return false;
            break;
        default:
            break;
    }
    if (bad) return r.fail("flver2.layout_member.type", std::string("unsupported type ") + hex(m.type) + " for " + bad);
    return true;
}

// Decodes one vertex buffer into `v` (already sized for `count` vertices).
bool decode_buffer(ByteReader& r, Bytes bytes, uint32_t stride, uint32_t count, const BufferLayout& layout,
                   int32_t version, const std::vector<int32_t>& mesh_bones, Vertices& v, uint32_t& uv_next,
                   uint32_t& tangent_next, uint32_t& color_next) {
    AttributeSlots slots{uv_next, tangent_next, color_next};
    for (const auto& m : layout.members) {
        const MemberBytes b{bytes.data(), stride, count, uint32_t(m.struct_offset), r.big_endian()};
        if (!decode_member(r, b, m, version, mesh_bones, v, slots)) return false;
    }
    return true;
}

}  // namespace

namespace {

// The header's table counts; the tables follow the header in this order (faceset before
// vertex_buffer: the file's order, not the header's).
struct TableCounts {
    int32_t dummy = 0, material = 0, node = 0, mesh = 0, faceset = 0, vertex_buffer = 0, layout = 0, texture = 0;
};

// Where the node table and the vertex-buffer table start (errors about their entries point there).
size_t node_table_at(const TableCounts& n) {
    return k_header_size + size_t(n.dummy) * k_dummy_size + size_t(n.material) * k_material_size;
}
size_t vertex_buffer_table_at(const TableCounts& n) {
    return k_header_size + size_t(n.dummy) * k_dummy_size + size_t(n.material) * k_material_size + size_t(n.node) * k_node_size +
           size_t(n.mesh) * k_mesh_size + size_t(n.faceset) * k_faceset_size;
}

// Magic, byte order and version; the reader is switched to the file's byte order.
Result<void> read_magic_and_version(ByteReader& r, Header& h) {
    if (!r.expect_magic(std::string_view("FLVER\0", 6), "flver.magic")) return r.error();
    uint8_t e0 = r.u8("flver.endian"), e1 = r.u8("flver.endian");
    if (r.failed()) return r.error();
    if (e0 == 'B' && e1 == 0)
        h.big_endian = true;
    else if (!(e0 == 'L' && e1 == 0)) {
        r.fail_at(6, "flver.endian", "expected \"L\\0\" or \"B\\0\"");
        return r.error();
    }
    r.set_big_endian(h.big_endian);
    h.version = r.i32("flver.header.version");
    if (r.failed()) return r.error();
    if (h.version < k_version_min || h.version > k_version_max) {
        r.fail_at(8, "flver.header.version",
                  "unsupported FLVER version " + hex(uint32_t(h.version)) + " (supported: " + hex(k_version_min) + ".." +
                      hex(k_version_max) + ", FLVER2 of DS2 to AC6)");
        return r.error();
    }
    return {};
}

// The rest of the 0x80-byte header, then its index size and data area checked against the file.
Result<void> read_header_fields(ByteReader& r, size_t file_size, Header& h, TableCounts& n) {
    h.data_offset = r.i32("flver.header.data_offset");
    h.data_length = r.i32("flver.header.data_length");
    n.dummy = r.i32("flver.header.dummy_count");
    n.material = r.i32("flver.header.material_count");
    n.node = r.i32("flver.header.bone_count");
    n.mesh = r.i32("flver.header.mesh_count");
    n.vertex_buffer = r.i32("flver.header.vertex_buffer_count");
    h.bbox_min = read_vec3(r, "flver.header.bbox_min");
    h.bbox_max = read_vec3(r, "flver.header.bbox_max");
    h.true_face_count = r.i32("flver.header.true_face_count");
    h.total_face_count = r.i32("flver.header.total_face_count");
    h.vertex_index_size = r.u8("flver.header.vertex_index_size");
    h.unicode = r.u8("flver.header.unicode") != 0;
    h.unk4a = r.u8("flver.header.unk4a") != 0;
    r.u8("flver.header.unk4b");
    h.unk4c = r.i32("flver.header.unk4c");
    n.faceset = r.i32("flver.header.faceset_count");
    n.layout = r.i32("flver.header.layout_count");
    n.texture = r.i32("flver.header.texture_count");
    h.unk5c = r.u8("flver.header.unk5c");
    h.unk5d = r.u8("flver.header.unk5d");
    r.skip(2 + 4 + 4, "flver.header.reserved");
    h.unk68 = r.i32("flver.header.unk68");
    r.skip(8, "flver.header.reserved");
    h.unk74 = r.i32("flver.header.unk74");
    r.skip(8, "flver.header.reserved");
    if (r.failed()) return r.error();
    if (h.vertex_index_size != 0 && h.vertex_index_size != 16 && h.vertex_index_size != 32) {
        r.fail_at(0x48, "flver.header.vertex_index_size",
                  "unsupported index size " + std::to_string(h.vertex_index_size) + " (0, 16 or 32)");
        return r.error();
    }
    if (h.data_offset < 0 || size_t(h.data_offset) > file_size) {
        r.fail_at(0x0C, "flver.header.data_offset", "offset " + hex(uint32_t(h.data_offset)) + " is outside the file");
        return r.error();
    }
    if (h.data_length < 0 || uint64_t(h.data_offset) + uint64_t(h.data_length) > file_size) {
        r.fail_at(0x10, "flver.header.data_length",
                  "data area " + hex(uint32_t(h.data_offset)) + "+" + hex(uint32_t(h.data_length)) + " ends past the file's " +
                      std::to_string(file_size) + " B");
        return r.error();
    }
    return {};
}

// Every table follows the header in this order; check each count against what remains.
Result<void> check_table_counts(ByteReader& r, const TableCounts& n) {
    struct CountField {
        int32_t count;
        size_t size;
        const char* field;
        size_t at;
    };
    const CountField tables[] = {
        {n.dummy, k_dummy_size, "flver.header.dummy_count", 0x14},
        {n.material, k_material_size, "flver.header.material_count", 0x18},
        {n.node, k_node_size, "flver.header.bone_count", 0x1C},
        {n.mesh, k_mesh_size, "flver.header.mesh_count", 0x20},
        {n.faceset, k_faceset_size, "flver.header.faceset_count", 0x50},
        {n.vertex_buffer, k_vertex_buffer_size, "flver.header.vertex_buffer_count", 0x24},
        {n.layout, k_layout_size, "flver.header.layout_count", 0x54},
        {n.texture, k_texture_size, "flver.header.texture_count", 0x58},
    };
    size_t pos = k_header_size;
    for (const auto& t : tables) {
        if (t.count < 0) {
            r.fail_at(t.at, t.field, "negative count " + std::to_string(t.count));
            return r.error();
        }
        if (!r.check_count_at(pos, uint64_t(t.count), t.size, t.field)) return r.error();
        pos += size_t(t.count) * t.size;
    }
    return {};
}

Result<void> read_dummies(ByteReader& r, int32_t count, std::vector<Dummy>& dummies) {
    dummies.resize(static_cast<size_t>(count));
    for (auto& d : dummies) {
        d.position = read_vec3(r, "flver2.dummy.position");
        r.read_bytes(d.color.data(), 4, "flver2.dummy.color");
        d.forward = read_vec3(r, "flver2.dummy.forward");
        d.reference_id = r.i16("flver2.dummy.reference_id");
        d.parent_node = r.i16("flver2.dummy.parent_bone_index");
        d.upward = read_vec3(r, "flver2.dummy.upward");
        d.attach_node = r.i16("flver2.dummy.attach_bone_index");
        d.flag1 = r.u8("flver2.dummy.flag1") != 0;
        d.use_upward = r.u8("flver2.dummy.use_upward_vector") != 0;
        d.unk30 = r.i32("flver2.dummy.unk30");
        d.unk34 = r.i32("flver2.dummy.unk34");
        r.skip(8, "flver2.dummy.reserved");
    }
    if (r.failed()) return r.error();
    return {};
}

// A material's fields that point elsewhere: its strings (read at once) and its texture range
// (resolved once the texture table, which follows the meshes, is read).
struct MaterialRaw {
    int32_t name, mtd, tex_count, tex_index;
    size_t at;
};

Result<void> read_materials(Context& ctx, int32_t count, std::vector<Material>& materials, std::vector<MaterialRaw>& raws) {
    ByteReader& r = ctx.r;
    raws.resize(static_cast<size_t>(count));
    materials.resize(static_cast<size_t>(count));
    for (size_t i = 0; i < raws.size(); ++i) {
        auto& m = materials[i];
        auto& raw = raws[i];
        raw.at = r.pos();
        raw.name = r.i32("flver2.material.name_offset");
        raw.mtd = r.i32("flver2.material.mtd_offset");
        raw.tex_count = r.i32("flver2.material.texture_count");
        raw.tex_index = r.i32("flver2.material.texture_index");
        m.flags = r.i32("flver2.material.flags");
        m.gx_offset = r.i32("flver2.material.gx_offset");
        m.index = r.i32("flver2.material.index");
        r.skip(4, "flver2.material.reserved");
        if (r.failed()) return r.error();
        if (!ctx.read_string(raw.name, m.name, "flver2.material.name", raw.at) ||
            !ctx.read_string(raw.mtd, m.mtd, "flver2.material.mtd", raw.at + 4))
            return r.error();
    }
    return {};
}

// Node links past the last node, read as none: how many, and the first (node, link).
struct BadLinks {
    size_t count = 0;
    std::pair<int32_t, int32_t> first{0, 0};
};

Result<void> read_nodes(Context& ctx, int32_t count, std::vector<Node>& nodes, BadLinks& bad) {
    ByteReader& r = ctx.r;
    nodes.resize(static_cast<size_t>(count));
    for (auto& n : nodes) {
        size_t at = r.pos();
        n.translation = read_vec3(r, "flver2.node.translation");
        int32_t name_off = r.i32("flver2.node.name_offset");
        n.rotation = read_vec3(r, "flver2.node.rotation");
        n.parent = r.i16("flver2.node.parent_index");
        n.first_child = r.i16("flver2.node.first_child_index");
        n.scale = read_vec3(r, "flver2.node.scale");
        n.next_sibling = r.i16("flver2.node.next_sibling_index");
        n.previous_sibling = r.i16("flver2.node.previous_sibling_index");
        n.bbox_min = read_vec3(r, "flver2.node.bbox_min");
        n.flags = r.i32("flver2.node.flags");
        n.bbox_max = read_vec3(r, "flver2.node.bbox_max");
        r.skip(0x34, "flver2.node.reserved");
        if (r.failed()) return r.error();
        // Negative = none (FLVER_Editor writes -2 too). Links past the last node are written by
        // community editors; the game ignores them, so they count as none (see rebuild_node_links).
        for (int16_t* link : {&n.parent, &n.first_child, &n.next_sibling, &n.previous_sibling}) {
            if (*link >= count) {
                if (bad.count++ == 0) bad.first = {int32_t(&n - nodes.data()), *link};
                *link = -1;
            }
            if (*link < 0) *link = -1;
        }
        if (!ctx.read_string(name_off, n.name, "flver2.node.name", at + 0x0C)) return r.error();
    }
    return {};
}

// The parent chain must be acyclic (a cycle would loop any world-matrix walk).
Result<void> check_parent_chains(ByteReader& r, const TableCounts& n, const std::vector<Node>& nodes) {
    for (size_t i = 0; i < nodes.size(); ++i) {
        int32_t p = nodes[i].parent;
        size_t steps = 0;
        while (p >= 0 && steps <= nodes.size()) {
            p = nodes[size_t(p)].parent;
            ++steps;
        }
        if (steps > nodes.size()) {
            r.fail_at(node_table_at(n) + i * k_node_size + 0x1C, "flver2.node.parent_index",
                      "parent chain of node " + std::to_string(i) + " is a cycle");
            return r.error();
        }
    }
    return {};
}

// With links out of range the child and sibling links cannot be trusted: rebuild them from
// the parent links (children in node order), which is all a skeleton needs.
void rebuild_node_links(const BadLinks& bad, int32_t node_count, Model& model) {
    for (auto& n : model.nodes) n.first_child = n.next_sibling = n.previous_sibling = -1;
    std::vector<int16_t> last_child(model.nodes.size(), -1);
    for (size_t i = 0; i < model.nodes.size(); ++i) {
        const int16_t p = model.nodes[i].parent;
        if (p < 0) continue;
        if (last_child[size_t(p)] < 0) {
            model.nodes[size_t(p)].first_child = int16_t(i);
        } else {
            model.nodes[size_t(last_child[size_t(p)])].next_sibling = int16_t(i);
            model.nodes[i].previous_sibling = last_child[size_t(p)];
        }
        last_child[size_t(p)] = int16_t(i);
    }
    model.warnings.push_back(std::to_string(bad.count) + " node link" + (bad.count == 1 ? "" : "s") + " outside -1.." +
                             std::to_string(node_count - 1) + " (first: node " + std::to_string(bad.first.first) + " links " +
                             std::to_string(bad.first.second) +
                             ") read as none and the hierarchy rebuilt from the parent links (as written by community FLVER editors)");
}

// A mesh's lists, resolved once the face sets and vertex buffers are read.
struct MeshRaw {
    int32_t bone_count, bbox_off, bones_off, fs_count, fs_off, vb_count, vb_off;
    size_t at;
};

Result<void> read_meshes(ByteReader& r, const TableCounts& n, std::vector<Mesh>& meshes, std::vector<MeshRaw>& raws) {
    raws.resize(static_cast<size_t>(n.mesh));
    meshes.resize(static_cast<size_t>(n.mesh));
    for (size_t i = 0; i < raws.size(); ++i) {
        auto& m = meshes[i];
        auto& raw = raws[i];
        raw.at = r.pos();
        m.dynamic = r.u8("flver2.mesh.dynamic") != 0;
        r.skip(3, "flver2.mesh.reserved");
        m.material = r.i32("flver2.mesh.material_index");
        r.skip(8, "flver2.mesh.reserved");
        m.default_node = r.i32("flver2.mesh.node_index");
        raw.bone_count = r.i32("flver2.mesh.bone_count");
        raw.bbox_off = r.i32("flver2.mesh.bounding_box_offset");
        raw.bones_off = r.i32("flver2.mesh.bone_indices_offset");
        raw.fs_count = r.i32("flver2.mesh.faceset_count");
        raw.fs_off = r.i32("flver2.mesh.faceset_indices_offset");
        raw.vb_count = r.i32("flver2.mesh.vertex_buffer_count");
        raw.vb_off = r.i32("flver2.mesh.vertex_buffer_indices_offset");
        if (r.failed()) return r.error();
        if (m.material < 0 || m.material >= n.material) {
            r.fail_at(raw.at + 4, "flver2.mesh.material_index",
                      "material " + std::to_string(m.material) + " outside 0.." + std::to_string(n.material - 1));
            return r.error();
        }
        if (m.default_node < -1 || m.default_node >= n.node) {
            r.fail_at(raw.at + 0x10, "flver2.mesh.node_index",
                      "node " + std::to_string(m.default_node) + " outside -1.." + std::to_string(n.node - 1));
            return r.error();
        }
    }
    return {};
}

// `data_used`: bytes of index and vertex data decoded so far. Index and vertex data may not
// overlap: their total stays within the data area, so a file cannot make the reader decode the
// same bytes many times over.
Result<void> read_face_sets(ByteReader& r, const Header& h, int32_t count, uint64_t& data_used, std::vector<FaceSet>& facesets) {
    facesets.resize(static_cast<size_t>(count));
    for (auto& fs : facesets) {
        size_t at = r.pos();
        fs.flags = r.u32("flver2.faceset.flags");
        fs.triangle_strip = r.u8("flver2.faceset.triangle_strip") != 0;
        fs.cull_backfaces = r.u8("flver2.faceset.cull_backfaces") != 0;
        fs.unk06 = r.i16("flver2.faceset.unk06");
        int32_t index_count = r.i32("flver2.faceset.index_count");
        int32_t indices_off = r.i32("flver2.faceset.indices_offset");
        r.i32("flver2.faceset.indices_length");
        r.skip(4, "flver2.faceset.reserved");
        int32_t index_size = r.i32("flver2.faceset.index_size");
        r.skip(4, "flver2.faceset.reserved");
        if (r.failed()) return r.error();
        if (index_size == 0) index_size = h.vertex_index_size;
        if (fs.flags & k_faceset_edge_compressed || (index_size != 16 && index_size != 32)) {
            r.fail_at(at + 0x18, "flver2.faceset.index_size",
                      "unsupported index size " + std::to_string(index_size) +
                          ((fs.flags & k_faceset_edge_compressed) ? " (Edge-compressed, PS3)" : " (16 or 32)"));
            return r.error();
        }
        fs.index_size = uint8_t(index_size);
        if (index_count < 0 || indices_off < 0) {
            r.fail_at(at + 8, "flver2.faceset.index_count", "negative index count or offset");
            return r.error();
        }
        const uint32_t isz = uint32_t(index_size) / 8;
        ByteReader ir = r.slice(uint64_t(h.data_offset) + uint64_t(indices_off), uint64_t(index_count) * isz, "flver2.faceset.indices");
        if (r.failed()) return r.error();
        data_used += uint64_t(index_count) * isz;
        if (data_used > uint64_t(h.data_length)) {
            r.fail_at(at + 8, "flver2.faceset.index_count",
                      "index and vertex data total " + std::to_string(data_used) + " B, more than the data area's " +
                          std::to_string(h.data_length) + " B");
            return r.error();
        }
        fs.indices.resize(static_cast<size_t>(index_count));
        if (isz == 2)
            for (auto& x : fs.indices) x = ir.u16("flver2.faceset.index");
        else
            for (auto& x : fs.indices) x = ir.u32("flver2.faceset.index");
    }
    return {};
}

Result<void> read_vertex_buffers(ByteReader& r, int32_t count, std::vector<VertexBuffer>& vbs) {
    vbs.resize(static_cast<size_t>(count));
    for (auto& vb : vbs) {
        vb.buffer_index = r.i32("flver2.vertex_buffer.buffer_index");
        vb.layout_index = r.i32("flver2.vertex_buffer.layout_index");
        vb.vertex_size = r.i32("flver2.vertex_buffer.vertex_size");
        vb.vertex_count = r.i32("flver2.vertex_buffer.vertex_count");
        r.skip(8, "flver2.vertex_buffer.reserved");
        vb.buffer_length = r.i32("flver2.vertex_buffer.buffer_length");
        vb.buffer_offset = r.i32("flver2.vertex_buffer.buffer_offset");
    }
    if (r.failed()) return r.error();
    return {};
}

// A layout's members, each at the running size of the ones before it.
Result<void> read_layout_members(ByteReader& mr, BufferLayout& l) {
    uint32_t running = 0;
    for (auto& m : l.members) {
        size_t mat = mr.pos();
        m.unk00 = mr.i32("flver2.layout_member.unk00");
        m.struct_offset = mr.i32("flver2.layout_member.struct_offset");
        m.type = mr.u32("flver2.layout_member.type");
        m.semantic = mr.u32("flver2.layout_member.semantic");
        m.index = mr.i32("flver2.layout_member.index");
        if (mr.failed()) return mr.error();
        uint32_t sz = member_type_size(m.type);
        if (sz == 0 || m.type == 0xF0) {
            mr.fail_at(mat + 8, "flver2.layout_member.type",
                       "unsupported vertex type " + hex(m.type) + (m.type == 0xF0 ? " (Edge-compressed, PS3)" : ""));
            return mr.error();
        }
        if (m.struct_offset < 0 || uint32_t(m.struct_offset) != running) {
            mr.fail_at(mat + 4, "flver2.layout_member.struct_offset",
                       "offset " + std::to_string(m.struct_offset) + ", expected the running size " + std::to_string(running));
            return mr.error();
        }
        running += sz;
    }
    return {};
}

Result<void> read_layouts(ByteReader& r, int32_t count, std::vector<BufferLayout>& layouts) {
    layouts.resize(static_cast<size_t>(count));
    for (auto& l : layouts) {
        size_t at = r.pos();
        int32_t member_count = r.i32("flver2.layout.member_count");
        r.skip(8, "flver2.layout.reserved");
        int32_t members_off = r.i32("flver2.layout.members_offset");
        if (r.failed()) return r.error();
        if (member_count < 0 || uint32_t(member_count) > k_max_layout_members) {
            r.fail_at(at, "flver2.layout.member_count", std::to_string(member_count) + " members (0.." + std::to_string(k_max_layout_members) + ")");
            return r.error();
        }
        ByteReader mr = r.slice(uint32_t(members_off), uint64_t(member_count) * k_member_size, "flver2.layout.members");
        if (r.failed()) return r.error();
        l.members.resize(static_cast<size_t>(member_count));
        if (auto s = read_layout_members(mr, l); !s) return s;
    }
    return {};
}

Result<void> read_textures(Context& ctx, int32_t count, std::vector<Texture>& textures) {
    ByteReader& r = ctx.r;
    textures.resize(static_cast<size_t>(count));
    for (auto& t : textures) {
        const size_t at = r.pos();
        int32_t path_off = r.i32("flver2.texture.path_offset");
        int32_t type_off = r.i32("flver2.texture.type_offset");
        t.scale.x = r.f32("flver2.texture.scale");
        t.scale.y = r.f32("flver2.texture.scale");
        t.tiling_u = r.u8("flver2.texture.tiling_u");
        t.tiling_v = r.u8("flver2.texture.tiling_v");
        r.skip(2, "flver2.texture.reserved");
        t.unk14 = r.f32("flver2.texture.unk14");
        t.unk18 = r.f32("flver2.texture.unk18");
        t.unk1c = r.f32("flver2.texture.unk1c");
        if (r.failed()) return r.error();
        if (!ctx.read_string(path_off, t.path, "flver2.texture.path", at) || !ctx.read_string(type_off, t.type, "flver2.texture.type", at + 4))
            return r.error();
    }
    return {};
}

// Each material's textures: its range of the texture table.
Result<void> assign_material_textures(ByteReader& r, const std::vector<MaterialRaw>& raws, const std::vector<Texture>& textures,
                                      std::vector<Material>& materials) {
    const int32_t texture_count = int32_t(textures.size());
    for (size_t i = 0; i < raws.size(); ++i) {
        const auto& raw = raws[i];
        if (raw.tex_count < 0 || raw.tex_index < 0 || int64_t(raw.tex_index) + raw.tex_count > texture_count) {
            r.fail_at(raw.at + 8, "flver2.material.texture_count",
                      "textures " + std::to_string(raw.tex_index) + "+" + std::to_string(raw.tex_count) + " outside the texture table of " +
                          std::to_string(texture_count));
            return r.error();
        }
        materials[i].textures.assign(textures.begin() + raw.tex_index, textures.begin() + raw.tex_index + raw.tex_count);
    }
    return {};
}

// The tables the meshes take their face sets and vertex buffers from, each at most once.
struct MeshSources {
    const Header& h;
    const TableCounts& n;
    std::vector<FaceSet> facesets;
    std::vector<VertexBuffer> vbs;
    std::vector<uint8_t> fs_used, vb_used;
    uint64_t data_used = 0;  // bytes of index and vertex data decoded so far
};

// A list of `count` int32 indices at `off`, each below `limit`; `at` is where the count is.
bool read_index_list(ByteReader& r, int32_t count, int32_t off, const char* field, size_t at, int32_t limit, std::vector<int32_t>& out) {
    if (count < 0) return r.fail_at(at, field, "negative count " + std::to_string(count));
    if (count == 0) return true;
    ByteReader lr = r.slice(uint32_t(off), uint64_t(count) * 4, field);
    if (r.failed()) return false;
    out.resize(static_cast<size_t>(count));
    for (auto& x : out) {
        x = lr.i32(field);
        if (x < 0 || x >= limit) return r.fail_at(size_t(lr.abs_pos() - 4), field, "index " + std::to_string(x) + " outside 0.." + std::to_string(limit - 1));
    }
    return true;
}

// The mesh's bounding box (a third vector from 0x2001A on), when it has one.
Result<void> read_mesh_bbox(ByteReader& r, const Header& h, const MeshRaw& raw, Mesh& m) {
    if (raw.bbox_off == 0) return {};
    ByteReader br = r.slice(uint32_t(raw.bbox_off), h.version >= 0x2001A ? 36 : 24, "flver2.mesh.bounding_box");
    if (r.failed()) return r.error();
    m.has_bbox = true;
    m.bbox_min = read_vec3(br, "flver2.mesh.bbox_min");
    m.bbox_max = read_vec3(br, "flver2.mesh.bbox_max");
    if (h.version >= 0x2001A) m.bbox_unk = read_vec3(br, "flver2.mesh.bbox_unk");
    return {};
}

// The mesh's face sets and vertex buffers, moved out of the tables; its vertex count (every
// buffer of a mesh holds the same number of vertices).
Result<void> take_mesh_tables(ByteReader& r, const MeshRaw& raw, const std::vector<int32_t>& fs_idx, const std::vector<int32_t>& vb_idx, MeshSources& src,
                              Mesh& m) {
    for (int32_t f : fs_idx) {
        if (src.fs_used[size_t(f)]++) {
            r.fail_at(raw.at + 0x24, "flver2.mesh.faceset_indices", "face set " + std::to_string(f) + " is used by more than one mesh");
            return r.error();
        }
        m.face_sets.push_back(std::move(src.facesets[size_t(f)]));
    }
    uint32_t count = 0;
    for (size_t k = 0; k < vb_idx.size(); ++k) {
        const auto& vb = src.vbs[size_t(vb_idx[k])];
        if (src.vb_used[size_t(vb_idx[k])]++) {
            r.fail_at(raw.at + 0x2C, "flver2.mesh.vertex_buffer_indices", "vertex buffer " + std::to_string(vb_idx[k]) + " is used by more than one mesh");
            return r.error();
        }
        if (vb.vertex_count < 0 || (k > 0 && uint32_t(vb.vertex_count) != count) || uint32_t(vb.vertex_count) > k_max_vertices_per_mesh) {
            r.fail_at(raw.at + 0x28, "flver2.vertex_buffer.vertex_count",
                      "vertex count " + std::to_string(vb.vertex_count) + " differs between the mesh's buffers or is out of range");
            return r.error();
        }
        count = uint32_t(vb.vertex_count);
        m.vertex_buffers.push_back(vb);
    }
    m.vertices.count = count;
    return {};
}

// Every vertex buffer of the mesh through its layout into the mesh's vertices.
Result<void> decode_mesh_vertices(ByteReader& r, const std::vector<BufferLayout>& layouts, MeshSources& src, Mesh& m) {
    const Header& h = src.h;
    const uint32_t count = m.vertices.count;
    const int32_t layout_count = int32_t(layouts.size());
    uint32_t uv_next = 0, tangent_next = 0, color_next = 0;
    for (const auto& vb : m.vertex_buffers) {
        const size_t vb_at = vertex_buffer_table_at(src.n);
        if (vb.layout_index < 0 || vb.layout_index >= layout_count) {
            r.fail_at(vb_at, "flver2.vertex_buffer.layout_index", "layout " + std::to_string(vb.layout_index) + " outside 0.." + std::to_string(layout_count - 1));
            return r.error();
        }
        const auto& layout = layouts[size_t(vb.layout_index)];
        if (vb.vertex_size <= 0 || uint32_t(vb.vertex_size) != layout.size()) {
            r.fail_at(vb_at, "flver2.vertex_buffer.vertex_size",
                      "vertex size " + std::to_string(vb.vertex_size) + " differs from the layout's " + std::to_string(layout.size()));
            return r.error();
        }
        if (vb.buffer_offset < 0) {
            r.fail_at(vb_at, "flver2.vertex_buffer.buffer_offset", "negative buffer offset");
            return r.error();
        }
        src.data_used += uint64_t(count) * uint32_t(vb.vertex_size);
        if (src.data_used > uint64_t(h.data_length)) {
            r.fail_at(vb_at, "flver2.vertex_buffer.vertex_count",
                      "index and vertex data total " + std::to_string(src.data_used) + " B, more than the data area's " + std::to_string(h.data_length) + " B");
            return r.error();
        }
        ByteReader br = r.slice(uint64_t(h.data_offset) + uint64_t(vb.buffer_offset), uint64_t(count) * uint32_t(vb.vertex_size), "flver2.vertex_buffer.data");
        if (r.failed()) return r.error();
        if (!decode_buffer(r, br.bytes(), uint32_t(vb.vertex_size), count, layout, h.version, m.bone_indices, m.vertices, uv_next, tangent_next, color_next))
            return r.error();
    }
    return {};
}

// Indices must name vertices of this mesh (restart markers excepted), bone indices nodes.
Result<void> check_mesh_indices(ByteReader& r, const MeshRaw& raw, int32_t node_count, const Mesh& m) {
    const uint32_t count = m.vertices.count;
    for (const auto& fs : m.face_sets) {
        const bool restart16 = fs.triangle_strip && fs.index_size == 16 && count < 0xFFFF;
        for (uint32_t x : fs.indices) {
            if (x < count) continue;
            if (fs.triangle_strip && ((restart16 && x == 0xFFFF) || x == 0xFFFFFFFFu)) continue;
            r.fail_at(raw.at + 0x24, "flver2.faceset.indices", "index " + std::to_string(x) + " outside the mesh's " + std::to_string(count) + " vertices");
            return r.error();
        }
    }
    for (const auto& bi : m.vertices.bone_indices)
        for (uint16_t x : bi)
            if (x >= std::max<int32_t>(node_count, 1)) {
                r.fail_at(raw.at + 0x2C, "flver2.vertex.bone_indices",
                          "bone index " + std::to_string(x) + " outside the " + std::to_string(node_count) + " nodes");
                return r.error();
            }
    return {};
}

// A mesh's bounding box, bone list, face sets, vertex buffers and vertices.
Result<void> resolve_mesh(ByteReader& r, const MeshRaw& raw, const std::vector<BufferLayout>& layouts, MeshSources& src, Mesh& m) {
    const TableCounts& n = src.n;
    if (auto s = read_mesh_bbox(r, src.h, raw, m); !s) return s;
    std::vector<int32_t> fs_idx, vb_idx;
    if (!read_index_list(r, raw.bone_count, raw.bones_off, "flver2.mesh.bone_indices", raw.at + 0x14, n.node, m.bone_indices) ||
        !read_index_list(r, raw.fs_count, raw.fs_off, "flver2.mesh.faceset_indices", raw.at + 0x20, n.faceset, fs_idx) ||
        !read_index_list(r, raw.vb_count, raw.vb_off, "flver2.mesh.vertex_buffer_indices", raw.at + 0x28, n.vertex_buffer, vb_idx))
        return r.error();
    if (auto s = take_mesh_tables(r, raw, fs_idx, vb_idx, src, m); !s) return s;
    if (auto s = decode_mesh_vertices(r, layouts, src, m); !s) return s;
    return check_mesh_indices(r, raw, n.node, m);
}

}  // namespace

// The tables in file order: header, dummies, materials, nodes, meshes, face sets, vertex
// buffers, layouts, textures; then each mesh resolved against them.
Result<Model> read_flver(Bytes data) {
    ByteReader r(data);
    Model model;
    Header& h = model.header;
    TableCounts n;
    if (auto s = read_magic_and_version(r, h); !s) return std::move(s).error();
    if (auto s = read_header_fields(r, data.size(), h, n); !s) return std::move(s).error();
    if (auto s = check_table_counts(r, n); !s) return std::move(s).error();
    Context ctx{r, h};
    if (auto s = read_dummies(r, n.dummy, model.dummies); !s) return std::move(s).error();
    std::vector<MaterialRaw> mat_raw;
    if (auto s = read_materials(ctx, n.material, model.materials, mat_raw); !s) return std::move(s).error();
    BadLinks bad_links;
    if (auto s = read_nodes(ctx, n.node, model.nodes, bad_links); !s) return std::move(s).error();
    if (auto s = check_parent_chains(r, n, model.nodes); !s) return std::move(s).error();
    if (bad_links.count) rebuild_node_links(bad_links, n.node, model);
    std::vector<MeshRaw> mesh_raw;
    if (auto s = read_meshes(r, n, model.meshes, mesh_raw); !s) return std::move(s).error();
    MeshSources src{h, n, {}, {}, {}, {}};
    if (auto s = read_face_sets(r, h, n.faceset, src.data_used, src.facesets); !s) return std::move(s).error();
    if (auto s = read_vertex_buffers(r, n.vertex_buffer, src.vbs); !s) return std::move(s).error();
    if (auto s = read_layouts(r, n.layout, model.layouts); !s) return std::move(s).error();
    std::vector<Texture> textures;
    if (auto s = read_textures(ctx, n.texture, textures); !s) return std::move(s).error();
    if (auto s = assign_material_textures(r, mat_raw, textures, model.materials); !s) return std::move(s).error();
    src.fs_used.resize(src.facesets.size());
    src.vb_used.resize(src.vbs.size());
    for (size_t mi = 0; mi < model.meshes.size(); ++mi)
        if (auto s = resolve_mesh(r, mesh_raw[mi], model.layouts, src, model.meshes[mi]); !s) return std::move(s).error();
    return model;
}

}  // namespace drape::flver
