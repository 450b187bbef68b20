// BND4 binders and BXF4 split binders (docs/formats.md#bnd4-and-bxf4).
#include "drape/bnd/bnd4.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "drape/dcx/dcx.h"
#include "drape/io/file.h"

namespace drape::bnd {

using namespace std::string_view_literals;

uint8_t reverse_bits(uint8_t b) {
    b = uint8_t((b & 0xF0) >> 4 | (b & 0x0F) << 4);
    b = uint8_t((b & 0xCC) >> 2 | (b & 0x33) << 2);
    b = uint8_t((b & 0xAA) >> 1 | (b & 0x55) << 1);
    return b;
}

uint32_t path_hash(std::string_view path) {
    // Lowercase, '\\' -> '/', a leading '/' when missing, then h = h*37 + c over UTF-16 units.
    std::u16string units = utf8_to_utf16(path);
    for (char16_t& c : units) {
        if (c == u'\\') c = u'/';
        else if (c >= u'A' && c <= u'Z') c = char16_t(c + 32);
    }
    if (units.empty() || units[0] != u'/') units.insert(units.begin(), u'/');
    uint32_t h = 0;
    for (char16_t c : units) h = h * 37u + uint32_t(c);
    return h;
}

bool Entry::compressed(bool bit_big_endian) const {
    uint8_t f = bit_big_endian ? flags : reverse_bits(flags);
    return f & 1;
}

bool is_bnd4(Bytes d) { return d.size() >= 4 && std::memcmp(d.data(), "BND4", 4) == 0; }
bool is_bhf4(Bytes d) { return d.size() >= 4 && std::memcmp(d.data(), "BHF4", 4) == 0; }
bool is_bdf4(Bytes d) { return d.size() >= 4 && std::memcmp(d.data(), "BDF4", 4) == 0; }

namespace {

uint8_t normalise_format(uint8_t raw, bool bit_big_endian) {
    if (bit_big_endian || ((raw & 1) && !(raw & 0x80))) return raw;
    return reverse_bits(raw);
}

uint64_t file_header_size_of(uint8_t fmt) {
    uint64_t s = 0x10;
    s += (fmt & 0x10) ? 8 : 4;
    if (fmt & 0x20) s += 8;
    if (fmt & 0x02) s += 4;
    if (fmt & 0x0C) s += 4;
    if (fmt == 0x04) s += 8;
    return s;
}

// Reads the 0x40-byte header shared by BND4 and BHF4 and every file header. Data views are
// resolved against `data_source` (the BND4 itself, or the BDF4 of a BXF4).
Result<Binder> read_headers(Bytes data, bool bxf, Bytes data_source, const ReadOptions& options = {}) {
    Binder b;
    b.is_bxf = bxf;
    ByteReader r(data);
    r.expect_magic(bxf ? "BHF4"sv : "BND4"sv, "bnd4.magic");
    b.unk04 = r.u8("bnd4.unk04") != 0;
    b.unk05 = r.u8("bnd4.unk05") != 0;
    r.skip(3, "bnd4.reserved06");
    b.big_endian = r.u8("bnd4.big_endian") != 0;
    b.bit_big_endian = r.u8("bnd4.bit_big_endian") == 0;  // stored negated
    r.skip(1, "bnd4.reserved0b");
    if (r.failed()) return r.error();
    r.set_big_endian(b.big_endian);
    int32_t count = r.i32("bnd4.file_count");
    r.expect<uint64_t>(0x40, "bnd4.header_size");
    r.read_fixed_string(8, b.version, "bnd4.version");
    b.file_header_size = r.u64("bnd4.file_header_size");
    b.headers_end = r.u64("bnd4.headers_end");
    b.unicode = r.u8("bnd4.unicode") != 0;
    b.raw_format = r.u8("bnd4.format");
    b.extended = r.u8("bnd4.extended");
    r.skip(1 + 4, "bnd4.reserved33");
    b.hash_table_offset = r.u64("bnd4.hash_table_offset");
    if (r.failed()) return r.error();
    if (count < 0) return make_error_at(0x0C, "bnd4.file_count", "negative file count " + std::to_string(count));
    b.format = normalise_format(b.raw_format, b.bit_big_endian);
    uint64_t fhs = file_header_size_of(b.format);
    if (b.file_header_size != fhs) {
        return make_error_at(0x20, "bnd4.file_header_size",
                             "format " + hex(b.format) + " implies " + hex(fhs) + ", header says " + hex(b.file_header_size));
    }
    if (b.extended != 0 && b.extended != 1 && b.extended != 4 && b.extended != 0x80) {
        return make_error_at(0x32, "bnd4.extended", "unknown value " + hex(b.extended) + " (known: 0, 1, 4, 0x80)");
    }
    if (!r.check_count(uint64_t(count), fhs, "bnd4.file_count")) return r.error();

    ByteReader src(data_source);
    b.entries.resize(size_t(count));
    for (int32_t i = 0; i < count; ++i) {
        Entry& e = b.entries[size_t(i)];
        e.flags = r.u8("bnd4.file.flags");
        r.skip(3, "bnd4.file.reserved");
        r.expect<int32_t>(-1, "bnd4.file.minus_one");
        e.stored_size = r.u64("bnd4.file.compressed_size");
        e.uncompressed_size = b.has_compression() ? r.u64("bnd4.file.uncompressed_size") : e.stored_size;
        e.data_offset = b.long_offsets() ? r.u64("bnd4.file.data_offset") : r.u32("bnd4.file.data_offset");
        if (b.has_ids()) e.id = r.i32("bnd4.file.id");
        uint32_t name_offset = 0;
        if (b.has_names()) name_offset = r.u32("bnd4.file.name_offset");
        if (b.format == 0x04) {
            e.id2 = r.i32("bnd4.file.id2");
            r.skip(4, "bnd4.file.reserved2");
        }
        if (r.failed()) return r.error();
        if (b.has_names()) {
            bool ok = b.unicode ? r.read_utf16z_at(name_offset, e.name, "bnd4.file.name")
                                : r.read_sjisz_at(name_offset, e.name, "bnd4.file.name");
            if (!ok) return r.error();
            if (options.member_paths) e.path = sanitize_member_path(e.name);
        } else if (options.member_paths) {
            e.path = std::to_string(e.id >= 0 ? e.id : i);
        }
        ByteReader d = src.slice(e.data_offset, e.stored_size, "bnd4.file.data");
        if (src.failed()) {
            Error err = src.error();
            err.field = "bnd4.file[" + std::to_string(i) + "].data";
            if (bxf) err.chain.push_back("(.bdt)");
            return err;
        }
        e.data = d.bytes();
    }
    return b;
}

}  // namespace

Result<Binder> read_bnd4(Bytes data, const ReadOptions& options) { return read_headers(data, false, data, options); }

Result<Binder> read_bxf4(Bytes bhd, Bytes bdt) {
    ByteReader r(bdt);
    r.expect_magic("BDF4"sv, "bdf4.magic");
    bool unk04 = r.u8("bdf4.unk04") != 0;
    bool unk05 = r.u8("bdf4.unk05") != 0;
    r.skip(3, "bdf4.reserved");
    bool be = r.u8("bdf4.big_endian") != 0;
    r.u8("bdf4.bit_big_endian");
    r.skip(1, "bdf4.reserved");
    r.set_big_endian(be);
    r.expect<int32_t>(0, "bdf4.zero");
    uint64_t hsize = r.u64("bdf4.header_size");
    std::string version;
    r.read_fixed_string(8, version, "bdf4.version");
    if (r.failed()) {
        Error e = r.error();
        e.chain.push_back("(.bdt)");
        return e;
    }
    auto b = read_headers(bhd, true, bdt);
    if (!b) return b;
    b->bdt_unk04 = unk04;
    b->bdt_unk05 = unk05;
    b->bdt_header_size = hsize;
    b->bdt_version = version;
    return b;
}

Result<std::vector<uint8_t>> entry_bytes(const Binder& binder, const Entry& entry) {
    if (entry.compressed(binder.bit_big_endian) || dcx::is_dcx(entry.data)) {
        if (dcx::is_dcx(entry.data)) return dcx::decompress(entry.data);
        // Bare zlib member (first byte 0x78).
        if (entry.data.size() >= 2 && entry.data[0] == 0x78)
            return dcx::inflate_zlib(entry.data, entry.uncompressed_size);
        return make_error_at(entry.data_offset, "bnd4.file.flags", "member is flagged compressed but is neither DCX nor zlib");
    }
    return std::vector<uint8_t>(entry.data.begin(), entry.data.end());
}

const Entry* find_entry(const Binder& binder, std::string_view suffix) {
    auto norm = [](std::string_view s) {
        std::string o(s);
        for (char& c : o) {
            if (c == '\\') c = '/';
            c = char(std::tolower(uint8_t(c)));
        }
        return o;
    };
    std::string want = norm(suffix);
    for (const Entry& e : binder.entries) {
        std::string n = norm(e.name);
        if (n.size() >= want.size() && n.compare(n.size() - want.size(), want.size(), want) == 0) return &e;
    }
    return nullptr;
}

namespace {

uint32_t smallest_prime_at_least(uint32_t n) {
    auto prime = [](uint32_t v) {
        if (v < 2) return false;
        for (uint32_t d = 2; d * d <= v; ++d)
            if (v % d == 0) return false;
        return true;
    };
    while (!prime(n)) ++n;
    return n;
}

struct Writer {
    std::vector<uint8_t> out;
    bool be = false;
    template <class T>
    void put(T v) {
        if (be) v = byteswap_value(v);
        uint8_t b[sizeof(T)];
        std::memcpy(b, &v, sizeof(T));
        out.insert(out.end(), b, b + sizeof(T));
    }
    template <class T>
    void put_at(size_t pos, T v) {
        if (be) v = byteswap_value(v);
        std::memcpy(out.data() + pos, &v, sizeof(T));
    }
    void pad(size_t alignment) {
        while (out.size() % alignment) out.push_back(0);
    }
};

}  // namespace

Result<std::vector<uint8_t>> write_bnd4(const Binder& b, const std::vector<Bytes>& payloads) {
    if (payloads.size() != b.entries.size())
        return make_error("write_bnd4: " + std::to_string(payloads.size()) + " payloads for " +
                          std::to_string(b.entries.size()) + " entries");
    if (b.is_bxf) return make_error("write_bnd4: BXF4 binders are written as two files; not supported here");
    uint8_t fmt = normalise_format(b.raw_format, b.bit_big_endian);
    uint64_t fhs = file_header_size_of(fmt);
    bool has_names = fmt & 0x0C, has_ids = fmt & 0x02, long_off = fmt & 0x10, has_comp = fmt & 0x20;

    Writer w;
    w.be = b.big_endian;
    w.out.insert(w.out.end(), {'B', 'N', 'D', '4'});
    w.out.push_back(b.unk04);
    w.out.push_back(b.unk05);
    w.out.insert(w.out.end(), 3, 0);
    w.out.push_back(b.big_endian);
    w.out.push_back(!b.bit_big_endian);
    w.out.push_back(0);
    w.put(int32_t(b.entries.size()));
    w.put(uint64_t(0x40));
    char ver[8] = {};
    std::memcpy(ver, b.version.data(), std::min<size_t>(8, b.version.size()));
    w.out.insert(w.out.end(), ver, ver + 8);
    w.put(uint64_t(fhs));
    size_t headers_end_pos = w.out.size();
    w.put(uint64_t(0));
    w.out.push_back(b.unicode);
    w.out.push_back(b.raw_format);
    w.out.push_back(b.extended);
    w.out.push_back(0);
    w.put(int32_t(0));
    size_t hash_off_pos = w.out.size();
    w.put(uint64_t(0));

    std::vector<size_t> data_off_pos(b.entries.size()), name_off_pos(b.entries.size());
    for (size_t i = 0; i < b.entries.size(); ++i) {
        const Entry& e = b.entries[i];
        w.out.push_back(e.flags);
        w.out.insert(w.out.end(), 3, 0);
        w.put(int32_t(-1));
        w.put(uint64_t(payloads[i].size()));
        if (has_comp) w.put(uint64_t(e.uncompressed_size ? e.uncompressed_size : payloads[i].size()));
        data_off_pos[i] = w.out.size();
        if (long_off) w.put(uint64_t(0));
        else w.put(uint32_t(0));
        if (has_ids) w.put(int32_t(e.id));
        name_off_pos[i] = w.out.size();
        if (has_names) w.put(uint32_t(0));
        if (fmt == 0x04) {
            w.put(int32_t(e.id2));
            w.put(int32_t(0));
        }
    }
    if (has_names) {
        for (size_t i = 0; i < b.entries.size(); ++i) {
            w.put_at(name_off_pos[i], uint32_t(w.out.size()));
            const std::string& name = b.entries[i].name;
            if (b.unicode) {
                for (char16_t c : utf8_to_utf16(name)) w.put(uint16_t(c));
                w.put(uint16_t(0));
            } else {
                std::string s = utf8_to_sjis(name);
                w.out.insert(w.out.end(), s.begin(), s.end());
                w.out.push_back(0);
            }
        }
    }
    if (b.extended == 4) {
        w.pad(8);
        w.put_at(hash_off_pos, uint64_t(w.out.size()));
        uint32_t buckets = smallest_prime_at_least(std::max<uint32_t>(1, uint32_t(b.entries.size() / 7)));
        struct H {
            uint32_t hash;
            int32_t index;
        };
        std::vector<std::vector<H>> table(buckets);
        for (size_t i = 0; i < b.entries.size(); ++i) {
            uint32_t h = path_hash(b.entries[i].name);
            table[h % buckets].push_back({h, int32_t(i)});
        }
        size_t header_pos = w.out.size();
        w.put(uint64_t(0));
        w.put(uint32_t(buckets));
        w.out.insert(w.out.end(), {0x10, 0x08, 0x08, 0x00});
        int32_t first = 0;
        for (auto& bucket : table) {
            std::stable_sort(bucket.begin(), bucket.end(), [](const H& a, const H& c) { return a.hash < c.hash; });
            w.put(int32_t(bucket.size()));
            w.put(first);
            first += int32_t(bucket.size());
        }
        w.put_at(header_pos, uint64_t(w.out.size()));
        for (auto& bucket : table)
            for (const H& h : bucket) {
                w.put(h.hash);
                w.put(h.index);
            }
    }
    w.put_at(headers_end_pos, uint64_t(w.out.size()));
    for (size_t i = 0; i < b.entries.size(); ++i) {
        // Each member is 16-aligned; empty members are not (seen in every corpus binder).
        if (!payloads[i].empty()) w.pad(16);
        if (!long_off && w.out.size() > 0xFFFFFFFFull) return make_error("write_bnd4: data offset exceeds 32 bits");
        if (long_off) w.put_at(data_off_pos[i], uint64_t(w.out.size()));
        else w.put_at(data_off_pos[i], uint32_t(w.out.size()));
        w.out.insert(w.out.end(), payloads[i].begin(), payloads[i].end());
    }
    return std::move(w.out);
}

}  // namespace drape::bnd
