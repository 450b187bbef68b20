// drape: Elden Ring MATBIN reader (layout in drape/matbin/matbin.h).
#include <cstring>

#include "drape/matbin/matbin.h"

namespace drape::matbin {

namespace {

constexpr size_t k_header_size = 0x38;
constexpr size_t k_param_size = 0x28;
constexpr size_t k_sampler_size = 0x30;
constexpr size_t k_max_string_units = 4096;

// Component count and name of a MATBIN parameter type; false for a type drape does not know.
bool param_type(uint32_t type, std::string& name, uint32_t& components, bool& is_float) {
    struct T { uint32_t id; const char* name; uint32_t n; bool f; };
    static constexpr T k_types[] = {{0, "bool", 1, false},  {4, "int", 1, false},    {5, "int2", 2, false},
                                    {8, "float", 1, true},  {9, "float2", 2, true},  {10, "float3", 3, true},
                                    {11, "float4", 4, true}, {12, "float5", 5, true}};
    for (const auto& t : k_types)
        if (t.id == type) {
            name = t.name;
            components = t.n;
            is_float = t.f;
            return true;
        }
    return false;
}

bool read_string_at(ByteReader& r, uint64_t offset, std::string& out, const char* field) {
    if (offset >= r.size()) return r.fail(field, "string offset " + hex(offset) + " is past the end " + hex(r.size()));
    return r.read_utf16z_at(size_t(offset), out, field, k_max_string_units);
}

}  // namespace

bool is_matbin(Bytes data) { return data.size() >= 4 && std::memcmp(data.data(), "MAB\0", 4) == 0; }

Result<Material> read_matbin(Bytes data) {
    ByteReader r(data);
    Material m;
    m.format = Format::matbin;
    if (!r.expect_magic(std::string_view("MAB\0", 4), "matbin.magic")) return r.error();
    if (!r.expect<int32_t>(2, "matbin.version")) return r.error();
    const uint64_t shader_offset = r.u64("matbin.shader_offset");
    const uint64_t source_offset = r.u64("matbin.source_offset");
    m.key = r.u32("matbin.key");
    const int32_t param_count = r.i32("matbin.param_count");
    const int32_t sampler_count = r.i32("matbin.sampler_count");
    if (!r.skip(20, "matbin.header_padding")) return r.error();
    if (param_count < 0) return make_error_at(0x1C, "matbin.param_count", "negative count " + std::to_string(param_count));
    if (sampler_count < 0) return make_error_at(0x20, "matbin.sampler_count", "negative count " + std::to_string(sampler_count));
    if (!r.check_count(uint64_t(param_count), k_param_size, "matbin.params")) return r.error();
    if (!r.check_count_at(k_header_size + size_t(param_count) * k_param_size, uint64_t(sampler_count), k_sampler_size,
                          "matbin.samplers"))
        return r.error();
    if (!read_string_at(r, shader_offset, m.shader_path, "matbin.shader_path")) return r.error();
    if (!read_string_at(r, source_offset, m.source_path, "matbin.source_path")) return r.error();

    m.params.resize(size_t(param_count));
    for (auto& p : m.params) {
        const uint64_t name_offset = r.u64("matbin.param.name_offset");
        const uint64_t value_offset = r.u64("matbin.param.value_offset");
        p.key = r.u32("matbin.param.key");
        const uint32_t type = r.u32("matbin.param.type");
        if (!r.skip(16, "matbin.param.padding")) return r.error();
        if (!read_string_at(r, name_offset, p.name, "matbin.param.name")) return r.error();
        uint32_t components = 0;
        bool is_float = false;
        if (!param_type(type, p.type, components, is_float))
            return make_error_at(r.pos() - 20, "matbin.param.type", "unknown parameter type " + std::to_string(type) +
                                                                       " of " + p.name);
        const uint32_t unit = type == 0 ? 1 : 4;
        if (value_offset > r.size() || r.size() - value_offset < uint64_t(components) * unit)
            return make_error_at(r.pos() - 32, "matbin.param.value_offset",
                                 "value of " + p.name + " at " + hex(value_offset) + " runs past the end (" + hex(r.size()) + ")");
        for (uint32_t c = 0; c < components; ++c) {
            const size_t at = size_t(value_offset) + size_t(c) * unit;
            if (type == 0) {
                uint8_t b = 0;
                (void)r.peek_at(at, b, "matbin.param.value");
                p.ints.push_back(b != 0 ? 1 : 0);
            } else if (is_float) {
                float f = 0;
                (void)r.peek_at(at, f, "matbin.param.value");
                p.floats.push_back(f);
            } else {
                int32_t i = 0;
                (void)r.peek_at(at, i, "matbin.param.value");
                p.ints.push_back(i);
            }
        }
    }
    m.samplers.resize(size_t(sampler_count));
    for (auto& s : m.samplers) {
        const uint64_t type_offset = r.u64("matbin.sampler.type_offset");
        const uint64_t path_offset = r.u64("matbin.sampler.path_offset");
        s.key = r.u32("matbin.sampler.key");
        s.scale[0] = r.f32("matbin.sampler.scale");
        s.scale[1] = r.f32("matbin.sampler.scale");
        if (!r.skip(20, "matbin.sampler.padding")) return r.error();
        if (!read_string_at(r, type_offset, s.type, "matbin.sampler.type")) return r.error();
        if (!read_string_at(r, path_offset, s.path, "matbin.sampler.path")) return r.error();
    }
    if (r.failed()) return r.error();
    return m;
}

Result<Material> read_material(Bytes data) {
    if (is_matbin(data)) return read_matbin(data);
    if (is_mtd(data)) return read_mtd(data);
    return make_error_at(0, "material.magic", "neither a MATBIN (\"MAB\\0\") nor an MTD (\"MTD \" block)");
}

}  // namespace drape::matbin
