// drape: Sekiro / DS3 MTD reader.
//
// An MTD is a tree of blocks. A block header is {i32 0, i32 length, i32 type, i32 version,
// u8 marker, padding to 4}; a marked string is {i32 byte length, Shift-JIS bytes, u8 marker,
// padding to 4}; a bare marker is one byte padded to 4. The tree (block types):
//   0 file { 1 header { "MTD " i32 1000 } marker
//            2 data { shader, description, i32 1,
//                     3 lists { i32 0, marker, i32 n, n x 4 param, marker, i32 m, m x 0x2000 texture,
//                               marker, i32 0 } marker i32 0 } marker i32 0 }
//   4 param:     name, type name ("bool", "int", "int2", "float" .. "float4"), i32 1,
//                value block 0x1000 (bool, 1 byte each) / 0x1001 (int) / 0x1002 (float) { i32 count,
//                values }, marker, i32 0
//   0x2000 texture: type (the FLVER texture entry's type), i32 uv index, marker, i32 shader data
//                index; version 5 (Sekiro) goes on: i32 unknown, path, i32 float count, floats.
// Block lengths are ignored: the game's files get them wrong (76 of Sekiro's 3,170 MTDs, those
// whose strings hold multi-byte characters), so the content is walked field by field.
#include <cstring>

#include "drape/matbin/matbin.h"

namespace drape::matbin {

namespace {

constexpr uint32_t k_max_string_bytes = 1u << 16;
constexpr int32_t k_block_file = 0, k_block_header = 1, k_block_data = 2, k_block_lists = 3, k_block_param = 4;
constexpr int32_t k_block_bool = 0x1000, k_block_int = 0x1001, k_block_float = 0x1002, k_block_texture = 0x2000;

bool marker(ByteReader& r, const char* field) {
    (void)r.u8(field);
    return r.align(4, field);
}

// Reads a block header and returns its version; fails unless its type is `type`.
bool block(ByteReader& r, int32_t type, int32_t& version, const char* field) {
    const size_t at = r.pos();
    (void)r.i32(field);  // always 0
    (void)r.i32(field);  // length: not reliable, ignored
    const int32_t got = r.i32(field);
    version = r.i32(field);
    if (!marker(r, field)) return false;
    if (got != type) return r.fail_at(at + 8, field, "block type " + hex(uint32_t(got)) + ", expected " + hex(uint32_t(type)));
    return true;
}

bool marked_string(ByteReader& r, std::string& out, const char* field) {
    const uint32_t n = r.u32(field);
    if (r.failed()) return false;
    if (n > k_max_string_bytes) return r.fail_at(r.pos() - 4, field, "string length " + std::to_string(n) + " exceeds 65536");
    Bytes b = r.take(n, field);
    if (r.failed()) return false;
    out = sjis_to_utf8(b);
    return marker(r, field);
}

bool read_param(ByteReader& r, Param& p) {
    int32_t version = 0;
    if (!block(r, k_block_param, version, "mtd.param")) return false;
    if (!marked_string(r, p.name, "mtd.param.name")) return false;
    if (!marked_string(r, p.type, "mtd.param.type")) return false;
    (void)r.i32("mtd.param.unk");
    // The value block's type says how the values are stored.
    const size_t at = r.pos();
    (void)r.i32("mtd.param.value");
    (void)r.i32("mtd.param.value");
    const int32_t value_type = r.i32("mtd.param.value.type");
    (void)r.i32("mtd.param.value");
    if (!marker(r, "mtd.param.value")) return false;
    const uint32_t count = r.u32("mtd.param.value.count");
    if (r.failed()) return false;
    if (value_type == k_block_bool) {
        if (!r.check_count(count, 1, "mtd.param.value.count")) return false;
        for (uint32_t i = 0; i < count; ++i) p.ints.push_back(r.u8("mtd.param.value") != 0 ? 1 : 0);
    } else if (value_type == k_block_int || value_type == k_block_float) {
        if (!r.check_count(count, 4, "mtd.param.value.count")) return false;
        for (uint32_t i = 0; i < count; ++i) {
            if (value_type == k_block_int)
                p.ints.push_back(r.i32("mtd.param.value"));
            else
                p.floats.push_back(r.f32("mtd.param.value"));
        }
    } else {
        return r.fail_at(at + 8, "mtd.param.value.type", "unknown value block type " + hex(uint32_t(value_type)) + " of " + p.name);
    }
    if (!marker(r, "mtd.param.end")) return false;
    (void)r.i32("mtd.param.end");
    return !r.failed();
}

bool read_texture(ByteReader& r, Sampler& s) {
    int32_t version = 0;
    if (!block(r, k_block_texture, version, "mtd.texture")) return false;
    if (!marked_string(r, s.type, "mtd.texture.type")) return false;
    s.uv_index = r.i32("mtd.texture.uv_index");
    if (!marker(r, "mtd.texture.uv_index")) return false;
    s.shader_data_index = r.i32("mtd.texture.shader_data_index");
    if (version == 5) {
        (void)r.i32("mtd.texture.unk");
        if (!marked_string(r, s.path, "mtd.texture.path")) return false;
        const uint32_t floats = r.u32("mtd.texture.float_count");
        if (r.failed() || !r.check_count(floats, 4, "mtd.texture.float_count")) return false;
        if (!r.skip(size_t(floats) * 4, "mtd.texture.floats")) return false;
    }
    return !r.failed();
}

}  // namespace

bool is_mtd(Bytes data) {
    // i32 0, i32 length, block type 0 ... then the header block, whose magic string is at 0x2C.
    return data.size() >= 0x30 && std::memcmp(data.data() + 0x2C, "MTD ", 4) == 0 && data[0] == 0 && data[1] == 0 &&
           data[2] == 0 && data[3] == 0;
}

Result<Material> read_mtd(Bytes data) {
    ByteReader r(data);
    Material m;
    m.format = Format::mtd;
    int32_t version = 0;
    std::string magic;
    if (!block(r, k_block_file, version, "mtd.file")) return r.error();
    if (!block(r, k_block_header, version, "mtd.header")) return r.error();
    if (!marked_string(r, magic, "mtd.magic")) return r.error();
    if (magic != "MTD ") return make_error_at(0x2C, "mtd.magic", "not \"MTD \"");
    (void)r.i32("mtd.header.version");
    if (!marker(r, "mtd.header.end")) return r.error();
    if (!block(r, k_block_data, version, "mtd.data")) return r.error();
    if (!marked_string(r, m.shader_path, "mtd.shader_path")) return r.error();
    if (!marked_string(r, m.description, "mtd.description")) return r.error();
    (void)r.i32("mtd.data.unk");
    if (!block(r, k_block_lists, version, "mtd.lists")) return r.error();
    (void)r.i32("mtd.lists.unk");
    if (!marker(r, "mtd.lists.params")) return r.error();
    // Each parameter takes well over 40 bytes; the check refuses absurd counts before allocating.
    const uint32_t param_count = r.u32("mtd.param_count");
    if (!r.check_count(param_count, 40, "mtd.param_count")) return r.error();
    m.params.resize(param_count);
    for (auto& p : m.params)
        if (!read_param(r, p)) return r.error();
    if (!marker(r, "mtd.lists.textures")) return r.error();
    const uint32_t texture_count = r.u32("mtd.texture_count");
    if (!r.check_count(texture_count, 32, "mtd.texture_count")) return r.error();
    m.samplers.resize(texture_count);
    for (auto& s : m.samplers)
        if (!read_texture(r, s)) return r.error();
    for (const char* end : {"mtd.lists.end", "mtd.data.end", "mtd.file.end"}) {
        if (!marker(r, end)) return r.error();
        (void)r.i32(end);
    }
    if (r.failed()) return r.error();
    return m;
}

}  // namespace drape::matbin
