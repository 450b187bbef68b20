// drape: PARAM reader (layout in drape/param/param.h).
#include <algorithm>
#include <cstring>

#include "drape/param/param.h"

namespace drape::param {

namespace {

constexpr uint8_t k_type_by_offset = 0x80;  // format_2d: the type string is stored by offset
constexpr uint8_t k_long_offsets = 0x04;    // format_2d: 64-bit data start and row offsets
constexpr uint8_t k_unicode_names = 0x01;   // format_2e: row names are UTF-16
constexpr size_t k_max_name_units = 4096;   // longest name searched (the games' are < 100)

std::string trim_type(std::string s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
    return s;
}

}  // namespace

Result<Param> read_param(Bytes data) {
    ByteReader r(data);
    Param p;
    uint8_t endian = 0;
    if (!r.peek_at(0x2C, endian, "param.endianness")) return r.error();
    if (endian != 0 && endian != 0xFF)
        return make_error_at(0x2C, "param.endianness", "byte " + hex(endian) + " is neither 0 (little endian) nor 0xFF (big endian)");
    p.big_endian = endian == 0xFF;
    r.set_big_endian(p.big_endian);
    (void)r.peek_at(0x2D, p.format_2d, "param.format_2d");
    (void)r.peek_at(0x2E, p.format_2e, "param.format_2e");
    (void)r.peek_at(0x2F, p.format_version, "param.format_version");

    const uint64_t strings_offset = r.u32("param.strings_offset");
    (void)r.u16("param.data_start");
    p.unk06 = r.i16("param.unk06");
    p.data_version = r.i16("param.data_version");
    const uint16_t row_count = r.u16("param.row_count");
    uint64_t type_offset = 0;
    const bool type_by_offset = (p.format_2d & k_type_by_offset) != 0;
    if (type_by_offset) {
        (void)r.skip(4, "param.type_padding");
        type_offset = r.u64("param.type_offset");
        (void)r.skip(0x14, "param.type_padding");
    } else {
        std::string type;
        (void)r.read_fixed_string(0x20, type, "param.type");
        p.type = trim_type(std::move(type));
    }
    (void)r.skip(4, "param.format");
    const bool long_offsets = (p.format_2d & k_long_offsets) != 0;
    if (long_offsets || (p.format_2d & 0x03) == 0x03) (void)r.skip(0x10, "param.data_start");
    if (r.failed()) return r.error();
    const uint64_t entry_size = long_offsets ? 24 : 12;
    if (!r.check_count(row_count, entry_size, "param.rows")) return r.error();

    struct Entry {
        uint64_t at, data, name;
    };
    std::vector<Entry> entries(row_count);
    p.rows.resize(row_count);
    for (size_t i = 0; i < row_count; ++i) {
        entries[i].at = r.pos();
        p.rows[i].id = r.i32("param.row.id");
        if (long_offsets) {
            (void)r.skip(4, "param.row.unused");
            entries[i].data = r.u64("param.row.data_offset");
            entries[i].name = r.u64("param.row.name_offset");
        } else {
            entries[i].data = r.u32("param.row.data_offset");
            entries[i].name = r.u32("param.row.name_offset");
        }
    }
    if (r.failed()) return r.error();

    if (type_by_offset) {
        if (type_offset >= data.size())
            return make_error_at(0x10, "param.type_offset", "type string offset " + hex(type_offset) + " is past the end " + hex(data.size()));
        if (!r.read_cstring_at(size_t(type_offset), p.type, "param.type", 256)) return r.error();
    }

    if (row_count > 0) {
        uint64_t first = UINT64_MAX;
        for (const auto& e : entries) first = std::min(first, e.data);
        if (first > data.size())
            return make_error_at(0x40, "param.row.data_offset", "row data offset " + hex(first) + " is past the end " + hex(data.size()));
        // The rows' bytes end where the first string starts (the header's strings offset is only a
        // bound: Sekiro's often points at a second copy of the type string).
        uint64_t end = data.size();
        auto bound = [&](uint64_t at) {
            if (at > first) end = std::min(end, at);
        };
        bound(strings_offset);
        if (type_by_offset) bound(type_offset);
        for (const auto& e : entries)
            if (e.name) bound(e.name);
        const uint64_t size = (end - first) / row_count;
        if (size == 0 || size > UINT32_MAX)
            return make_error_at(0x40, "param.row_size",
                                 std::to_string(row_count) + " rows in the " + std::to_string(end - first) + " B from " + hex(first) +
                                     " to the strings at " + hex(end) + " leave no row size");
        p.row_size = uint32_t(size);
        for (size_t i = 0; i < row_count; ++i) {
            const Entry& e = entries[i];
            if (e.data > data.size() || data.size() - e.data < size)
                return make_error_at(e.at, "param.row.data_offset",
                                     "row " + std::to_string(p.rows[i].id) + ": " + std::to_string(size) + " B at " + hex(e.data) +
                                         " run past the end " + hex(data.size()));
            p.rows[i].data_offset = e.data;
            p.rows[i].data = data.subspan(size_t(e.data), size_t(size));
        }
    }
    const bool unicode = (p.format_2e & k_unicode_names) != 0;
    for (size_t i = 0; i < row_count; ++i) {
        const uint64_t name = entries[i].name;
        if (!name) continue;
        if (name >= data.size())
            return make_error_at(entries[i].at, "param.row.name_offset",
                                 "row " + std::to_string(p.rows[i].id) + ": name offset " + hex(name) + " is past the end " + hex(data.size()));
        const bool ok = unicode ? r.read_utf16z_at(size_t(name), p.rows[i].name, "param.row.name", k_max_name_units)
                                : r.read_sjisz_at(size_t(name), p.rows[i].name, "param.row.name", k_max_name_units);
        if (!ok) return r.error();
    }
    return p;
}

}  // namespace drape::param
