// DCX and DCP containers (docs/formats.md#dcx). Every header field is big-endian.
#include "drape/dcx/dcx.h"

#include <libdeflate.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "drape/dcx/kraken.h"
#include "oodle.h"

namespace drape::dcx {

using namespace std::string_view_literals;

const char* compression_name(Compression c) {
    switch (c) {
        case Compression::dflt: return "DFLT";
        case Compression::zstd: return "ZSTD";
        case Compression::krak: return "KRAK";
        case Compression::edge: return "EDGE";
        case Compression::dcp_dflt: return "DCP/DFLT";
        case Compression::dcp_edge: return "DCP/EDGE";
    }
    return "?";
}

bool is_dcx(Bytes d) {
    return d.size() >= 4 && (std::memcmp(d.data(), "DCX\0", 4) == 0 || std::memcmp(d.data(), "DCP\0", 4) == 0);
}

namespace {

// The size guard: the declared output must fit the absolute cap and a fixed multiple of the
// compressed bytes actually present (deflate tops out at 1032:1; 4096:1 leaves room for zstd
// and Kraken on real data while refusing a 100-byte file that claims a gigabyte).
inline constexpr uint64_t k_max_ratio = 4096;

Result<void> check_declared(uint64_t declared, uint64_t compressed, uint64_t cap, uint64_t at, const char* field) {
    if (declared > cap) {
        return make_error_at(at, field,
                             "declared uncompressed size " + std::to_string(declared) + " B exceeds the " +
                                 std::to_string(cap) + " B limit");
    }
    if (declared > 65536 + compressed * k_max_ratio) {
        return make_error_at(at, field,
                             "declared uncompressed size " + std::to_string(declared) + " B is more than " +
                                 std::to_string(k_max_ratio) + " times the " + std::to_string(compressed) +
                                 " compressed bytes (refused as a decompression bomb)");
    }
    return {};
}

Result<Header> read_dcx_header(ByteReader& r) {
    Header h;
    r.set_big_endian(true);
    r.expect_magic("DCX\0"sv, "dcx.magic");
    h.unk04 = r.u32("dcx.unk04");
    uint32_t dcs_off = r.u32("dcx.dcs_offset");
    uint32_t dcp_off = r.u32("dcx.dcp_offset");
    h.unk10 = r.u32("dcx.unk10");
    h.unk14 = r.u32("dcx.unk14");
    if (r.failed()) return r.error();
    if (dcs_off != 0x18) return make_error_at(8, "dcx.dcs_offset", "expected 0x18, found " + hex(dcs_off));
    if (dcp_off != 0x24) return make_error_at(0xC, "dcx.dcp_offset", "expected 0x24, found " + hex(dcp_off));
    r.expect_magic("DCS\0"sv, "dcx.dcs");
    h.uncompressed_size = r.u32("dcx.uncompressed_size");
    h.compressed_size = r.u32("dcx.compressed_size");
    r.expect_magic("DCP\0"sv, "dcx.dcp");
    std::string tag;
    size_t tag_pos = r.pos();
    r.read_fixed_string(4, tag, "dcx.compression");
    r.expect<uint32_t>(0x20, "dcx.dcp_size");
    h.level = r.u8("dcx.level");
    r.skip(3, "dcx.level_pad");
    uint32_t chunk_size = r.u32("dcx.chunk_size");
    h.unk38 = r.u8("dcx.unk38");
    r.skip(3 + 4 + 4, "dcx.reserved");
    r.expect_magic("DCA\0"sv, "dcx.dca");
    uint32_t dca_size = r.u32("dcx.dca_size");
    if (r.failed()) return r.error();
    if (tag == "DFLT") h.compression = Compression::dflt;
    else if (tag == "ZSTD") h.compression = Compression::zstd;
    else if (tag == "KRAK") h.compression = Compression::krak;
    else if (tag == "EDGE") h.compression = Compression::edge;
    else return make_error_at(tag_pos, "dcx.compression", "unknown compression \"" + escape_bytes(tag) + "\" (known: DFLT, ZSTD, KRAK, EDGE)");
    if (h.compression == Compression::edge) {
        if (chunk_size != 0x10000) return make_error_at(0x34, "dcx.chunk_size", "expected 0x10000, found " + hex(chunk_size));
        h.payload_offset = 0x44;  // the EgdT table follows DCA; decode_edge reads it
        (void)dca_size;
    } else {
        h.payload_offset = 0x44 + dca_size;
        if (dca_size != 8) return make_error_at(0x48, "dcx.dca_size", "expected 8, found " + hex(dca_size));
    }
    return h;
}

Result<Header> read_dcp_header(ByteReader& r) {
    Header h;
    r.set_big_endian(true);
    r.expect_magic("DCP\0"sv, "dcp.magic");
    std::string tag;
    r.read_fixed_string(4, tag, "dcp.compression");
    r.expect<uint32_t>(0x20, "dcp.size");
    h.level = r.u8("dcp.level");
    r.skip(3 + 4 * 3 + 4, "dcp.reserved");
    r.expect_magic("DCS\0"sv, "dcp.dcs");
    h.uncompressed_size = r.u32("dcp.uncompressed_size");
    h.compressed_size = r.u32("dcp.compressed_size");
    if (r.failed()) return r.error();
    if (tag == "DFLT") {
        h.compression = Compression::dcp_dflt;
        h.payload_offset = 0x2C;
    } else if (tag == "EDGE") {
        h.compression = Compression::dcp_edge;
        h.payload_offset = 0x30;  // after DCS, the two sizes and a zero u32
    } else {
        return make_error_at(4, "dcp.compression", "unknown compression \"" + escape_bytes(tag) + "\" (known: DFLT, EDGE)");
    }
    h.unk04 = 0;
    return h;
}

}  // namespace

Result<Header> read_header(Bytes data) {
    ByteReader r(data, 0, true);
    if (data.size() >= 4 && std::memcmp(data.data(), "DCP\0", 4) == 0) return read_dcp_header(r);
    return read_dcx_header(r);
}

namespace {

// Asks for transparent huge pages on the 2 MiB-aligned interior of a large output buffer that
// has not been written yet, so that its first touch takes one page fault per 2 MiB instead of
// 512 (Linux with THP in "madvise" mode, as on this project's machine; a no-op where THP is
// off or always on). Measured (kraken::decompress on 1 thread into a fresh anonymous mapping,
// medians of 30): dlc01 matbinbnd (12.9 MB) 15.7 ms with 4 KiB pages, 10.7 ms with huge pages,
// 8.5 ms into a reused buffer; the 77 MB matbinbnd 95 / 64 / 51 ms. Advice only: contents and
// results do not change, and a failed madvise changes nothing.
void advise_huge_pages(uint8_t* p, size_t n) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr uintptr_t k_huge = uintptr_t(2) << 20;
    if (p == nullptr || n < 2 * k_huge) return;
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + k_huge - 1) & ~(k_huge - 1);
    const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + n) & ~(k_huge - 1);
    if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}

}  // namespace

void Buffer::resize_uninitialized(size_t n) {
    if (n > m_capacity) {
        m_data.reset();  // free first: the old contents need not survive a reallocation
        m_data.reset(new uint8_t[n]);
        m_capacity = n;
        advise_huge_pages(m_data.get(), n);
    }
    m_size = n;
}

void Buffer::release() {
    m_data.reset();
    m_size = m_capacity = 0;
}

namespace {

// zlib's inflate over the whole stream: the slow path, used for the precise error message of a
// stream libdeflate refused (and for nothing else).
Result<void> inflate_with_zlib(Bytes in, std::span<uint8_t> out, bool raw_deflate) {
    const uint64_t expected = out.size();
    uint8_t empty_sink[1];
    z_stream zs{};
    if (inflateInit2(&zs, raw_deflate ? -15 : 15) != Z_OK) return make_error("zlib: inflateInit failed");
    zs.next_in = const_cast<Bytef*>(in.data());
    zs.avail_in = uInt(in.size());
    zs.next_out = out.empty() ? empty_sink : out.data();
    zs.avail_out = uInt(out.size());
    int rc = inflate(&zs, Z_FINISH);
    uint64_t produced = zs.total_out;
    uint64_t consumed = zs.total_in;
    // Z_BUF_ERROR with no output room left means the stream holds more than declared.
    bool more = false;
    if (rc == Z_BUF_ERROR && zs.avail_out == 0) {
        uint8_t probe[1];
        zs.next_out = probe;
        zs.avail_out = 1;
        int rc2 = inflate(&zs, Z_FINISH);
        more = zs.avail_out == 0 || rc2 == Z_BUF_ERROR;
        if (rc2 == Z_STREAM_END && zs.avail_out == 1) more = false, rc = Z_STREAM_END;
    }
    inflateEnd(&zs);
    if (rc == Z_STREAM_END && produced == expected) return {};
    if (more) {
        return make_error_at(consumed, "zlib", "stream inflates to more than the declared " + std::to_string(expected) + " B");
    }
    if (rc == Z_DATA_ERROR) {
        return make_error_at(consumed, "zlib", std::string("corrupt deflate data (") + (zs.msg ? zs.msg : "data error") + ")");
    }
    if (rc == Z_STREAM_END || rc == Z_BUF_ERROR) {
        return make_error_at(consumed, "zlib",
                             "stream ends after " + std::to_string(produced) + " B, declared " + std::to_string(expected) + " B");
    }
    return make_error_at(consumed, "zlib", "inflate failed (code " + std::to_string(rc) + ")");
}

// One libdeflate decompressor per thread (allocating one costs more than inflating a small file).
libdeflate_decompressor* thread_decompressor() {
    struct Holder {
        libdeflate_decompressor* d = libdeflate_alloc_decompressor();
        ~Holder() { libdeflate_free_decompressor(d); }
    };
    thread_local Holder h;
    return h.d;
}

}  // namespace

Result<void> inflate_zlib_into(Bytes in, std::span<uint8_t> out, bool raw_deflate) {
    if (libdeflate_decompressor* d = thread_decompressor()) {
        size_t produced = 0;
        uint8_t empty_sink[1];
        void* dst = out.empty() ? empty_sink : out.data();
        libdeflate_result r = raw_deflate ? libdeflate_deflate_decompress(d, in.data(), in.size(), dst, out.size(), &produced)
                                          : libdeflate_zlib_decompress(d, in.data(), in.size(), dst, out.size(), &produced);
        if (r == LIBDEFLATE_SUCCESS && produced == out.size()) return {};
    }
    // Refused (or no memory for a decompressor): zlib says exactly what is wrong.
    return inflate_with_zlib(in, out, raw_deflate);
}

Result<std::vector<uint8_t>> inflate_zlib(Bytes in, uint64_t expected, bool raw_deflate) {
    // `expected` comes from a file (a binder member's uncompressed size): the DCX header's guard
    // applies before the output is allocated, or a 2 KB binder claiming 8 GB allocates 8 GB.
    if (auto ok = check_declared(expected, in.size(), k_max_uncompressed, 0, "zlib.uncompressed_size"); !ok) return ok.error();
    std::vector<uint8_t> out(expected);
    auto r = inflate_zlib_into(in, out, raw_deflate);
    if (!r) return std::move(r).error();
    return out;
}

namespace {

// One decompression context per thread: ZSTD_decompress would allocate one per call.
ZSTD_DCtx* thread_zstd() {
    struct Holder {
        ZSTD_DCtx* d = ZSTD_createDCtx();
        ~Holder() { ZSTD_freeDCtx(d); }
    };
    thread_local Holder h;
    return h.d;
}

Result<void> decode_zstd(Bytes in, std::span<uint8_t> out) {
    ZSTD_DCtx* dctx = thread_zstd();
    size_t r = dctx ? ZSTD_decompressDCtx(dctx, out.data(), out.size(), in.data(), in.size())
                    : ZSTD_decompress(out.data(), out.size(), in.data(), in.size());
    if (ZSTD_isError(r)) {
        return make_error_at(0, "zstd", std::string("zstd: ") + ZSTD_getErrorName(r));
    }
    if (r != out.size()) {
        return make_error_at(0, "zstd", "frame decodes to " + std::to_string(r) + " B, declared " + std::to_string(out.size()) + " B");
    }
    return {};
}

// EDGE: raw-deflate chunks of 0x10000 output bytes each, described by the EgdT table.
// `table` is a reader positioned at "EgdT"; chunk offsets are relative to `data_base`.
Result<void> decode_edge_chunks(ByteReader& file, size_t table_pos, bool dcx_form, size_t data_base,
                                std::span<uint8_t> out) {
    const uint64_t expected = out.size();
    ByteReader& r = file;
    r.seek(table_pos, "edge.egdt");
    r.expect_magic("EgdT"sv, "edge.egdt");
    r.u32("edge.version");
    uint32_t header_size = r.u32("edge.header_size");
    r.expect<uint32_t>(0x10, "edge.record_size");
    r.expect<uint32_t>(0x10000, "edge.chunk_size");
    if (dcx_form) r.u32("edge.last_chunk_size");
    r.u32("edge.table_size");
    uint32_t count = r.u32("edge.chunk_count");
    r.u32("edge.unk");
    if (r.failed()) return r.error();
    (void)header_size;
    if (!r.check_count(count, 16, "edge.chunk_count")) return r.error();
    if (uint64_t(count) * 0x10000 < expected || (count > 0 && uint64_t(count - 1) * 0x10000 >= expected) ||
        (count == 0 && expected != 0)) {
        return make_error_at(r.abs_pos() - 4, "edge.chunk_count",
                             std::to_string(count) + " chunks of 64 KiB cannot hold " + std::to_string(expected) + " B");
    }
    for (uint32_t i = 0; i < count; ++i) {
        size_t rec = r.pos();
        r.u32("edge.chunk.reserved");
        uint32_t off = r.u32("edge.chunk.offset");
        uint32_t size = r.u32("edge.chunk.size");
        uint32_t compressed = r.u32("edge.chunk.compressed");
        if (r.failed()) return r.error();
        uint64_t out_off = uint64_t(i) * 0x10000;
        uint64_t out_len = std::min<uint64_t>(0x10000, expected - out_off);
        ByteReader chunk = r.slice(uint64_t(data_base) + off, size, "edge.chunk.data");
        if (r.failed()) return r.error();
        if (compressed) {
            auto inflated = inflate_zlib_into(chunk.bytes(), out.subspan(out_off, out_len), true);
            if (!inflated) {
                Error e = inflated.error();
                e.offset = data_base + off + e.offset;
                e.field = "edge.chunk[" + std::to_string(i) + "]";
                return e;
            }
        } else {
            if (size != out_len) {
                return make_error_at(rec + 8, "edge.chunk.size",
                                     "stored chunk of " + std::to_string(size) + " B, expected " + std::to_string(out_len));
            }
            std::memcpy(out.data() + out_off, chunk.data(), out_len);
        }
    }
    return {};
}

// The header and the compressed bytes of a DCX/DCP file, with the declared size checked.
struct Prepared {
    Header h;
    Bytes payload;  // empty for the EDGE forms (their chunks are found through the table)
};

Result<Prepared> prepare(Bytes data, const DecodeOptions& options) {
    auto header = read_header(data);
    if (!header) return header.error();
    Prepared p{*header, {}};
    const Header& h = p.h;
    ByteReader file(data, 0, true);
    const bool edge = h.compression == Compression::edge || h.compression == Compression::dcp_edge;
    if (!edge) {
        ByteReader pr = file.slice(h.payload_offset, h.compressed_size, "dcx.compressed_size");
        if (file.failed()) return file.error();
        p.payload = pr.bytes();
    }
    uint64_t available = edge ? data.size() : p.payload.size();
    if (auto ok = check_declared(h.uncompressed_size, available, options.max_uncompressed, 0x1C, "dcx.uncompressed_size");
        !ok)
        return ok.error();
    return p;
}

Error at_payload(const Header& h, Error e) {
    e.offset += h.payload_offset;
    e.has_offset = true;
    return e;
}

// A KRAK payload that another Oodle codec wrote: say what the file holds before what the
// decoder found, so that the message reads on its own.
Error krak_error(const Header& h, Error e) {
    if (e.reason.find("is not implemented by drape") != std::string::npos)
        e.reason = "this DCX's KRAK payload (" + std::to_string(h.compressed_size) + " B, declaring " +
                   std::to_string(h.uncompressed_size) + " B) is not Kraken: " + e.reason;
    return at_payload(h, std::move(e));
}

Result<void> no_kraken_decoder() {
    return make_error_at(0x28, "dcx.compression",
                         "KRAK (Oodle Kraken) payload and no decoder: pass --oodle PATH to the game's Oodle "
                         "library (oo2core_6_win64.dll or liboo2corelinux64.so), or set DRAPE_OODLE");
}

// Decodes the whole payload into `out` (exactly the declared size).
Result<void> decode_into(Bytes data, const Prepared& p, std::span<uint8_t> out, const DecodeOptions& options) {
    const Header& h = p.h;
    ByteReader file(data, 0, true);
    switch (h.compression) {
        case Compression::dflt:
        case Compression::dcp_dflt: {
            auto r = inflate_zlib_into(p.payload, out);
            if (!r) return at_payload(h, r.error());
            return {};
        }
        case Compression::zstd: {
            auto r = decode_zstd(p.payload, out);
            if (!r) return at_payload(h, r.error());
            return {};
        }
        case Compression::krak: {
            if (!options.oodle_path.empty()) {
                auto r = oodle::decompress(options.oodle_path, p.payload, out);
                if (!r) return at_payload(h, r.error());
                return {};
            }
            if (!options.builtin_kraken) return no_kraken_decoder();
            auto r = kraken::decompress(p.payload, out, options.jobs);
            if (!r) return krak_error(h, r.error());
            return {};
        }
        case Compression::edge: {
            // DCX_EDGE: DCA at 0x44, its size at 0x48, the EgdT table at 0x4C; chunk data
            // starts at 0x44 + dcaSize.
            uint32_t dca_size = 0;
            if (!file.peek_at(0x48, dca_size, "dcx.dca_size")) return file.error();
            return decode_edge_chunks(file, 0x4C, true, size_t(0x44) + dca_size, out);
        }
        case Compression::dcp_edge: {
            uint64_t dca_pos = uint64_t(h.payload_offset) + h.compressed_size;
            ByteReader t(data, 0, true);
            t.seek(dca_pos, "dcp.dca");
            t.expect_magic("DCA\0"sv, "dcp.dca");
            t.u32("dcp.dca_size");
            if (t.failed()) return t.error();
            return decode_edge_chunks(file, t.pos(), false, h.payload_offset, out);
        }
    }
    return make_error("unreachable compression kind");
}

// zlib's inflate of the first out.size() bytes of a stream (stops there).
Result<void> inflate_prefix(Bytes in, std::span<uint8_t> out) {
    z_stream zs{};
    if (inflateInit2(&zs, 15) != Z_OK) return make_error("zlib: inflateInit failed");
    zs.next_in = const_cast<Bytef*>(in.data());
    zs.avail_in = uInt(in.size());
    zs.next_out = out.data();
    zs.avail_out = uInt(out.size());
    int rc = inflate(&zs, Z_SYNC_FLUSH);
    uint64_t produced = zs.total_out, consumed = zs.total_in;
    inflateEnd(&zs);
    if (produced == out.size() && (rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR)) return {};
    if (rc == Z_DATA_ERROR) return make_error_at(consumed, "zlib", std::string("corrupt deflate data (") + (zs.msg ? zs.msg : "data error") + ")");
    return make_error_at(consumed, "zlib", "stream ends after " + std::to_string(produced) + " B, before the requested range ends");
}

}  // namespace

Result<Bytes> decompress(Bytes data, Buffer& out, const DecodeOptions& options, Header* header_out) {
    auto p = prepare(data, options);
    if (!p) return p.error();
    if (header_out) *header_out = p->h;
    out.resize_uninitialized(p->h.uncompressed_size);
    auto r = decode_into(data, *p, out.span(), options);
    if (!r) return std::move(r).error();
    return out.bytes();
}

Result<std::vector<uint8_t>> decompress(Bytes data, const DecodeOptions& options, Header* header_out) {
    auto p = prepare(data, options);
    if (!p) return p.error();
    if (header_out) *header_out = p->h;
    // Allocated first and advised before the zero fill (the vector form's cost: its first touch).
    std::vector<uint8_t> out;
    out.reserve(p->h.uncompressed_size);
    advise_huge_pages(out.data(), out.capacity());
    out.resize(p->h.uncompressed_size);
    auto r = decode_into(data, *p, out, options);
    if (!r) return std::move(r).error();
    return out;
}

Result<Bytes> decompress_range(Bytes data, uint64_t offset, uint64_t size, Buffer& out, const DecodeOptions& options,
                               Header* header_out) {
    auto p = prepare(data, options);
    if (!p) return p.error();
    const Header& h = p->h;
    if (header_out) *header_out = h;
    const uint64_t total = h.uncompressed_size;
    if (offset > total || size > total - offset)
        return make_error("range of " + std::to_string(size) + " B at " + std::to_string(offset) +
                              " lies outside the declared " + std::to_string(total) + " B",
                          "dcx.range");
    out.resize_uninitialized(size);
    if (h.compression == Compression::krak && options.oodle_path.empty()) {
        if (!options.builtin_kraken) return no_kraken_decoder().error();
        auto r = kraken::decompress_range(p->payload, total, offset, out.span(), options.jobs);
        if (!r) return krak_error(h, r.error());
        return out.bytes();
    }
    if (h.compression == Compression::dflt || h.compression == Compression::dcp_dflt) {
        Buffer prefix;
        prefix.resize_uninitialized(offset + size);
        auto r = inflate_prefix(p->payload, prefix.span());
        if (!r) return at_payload(h, r.error());
        if (size) std::memcpy(out.data(), prefix.data() + offset, size);
        return out.bytes();
    }
    Buffer whole;
    whole.resize_uninitialized(total);
    auto r = decode_into(data, *p, whole.span(), options);
    if (!r) return std::move(r).error();
    if (size) std::memcpy(out.data(), whole.data() + offset, size);
    return out.bytes();
}

Result<std::vector<uint8_t>> compress(Bytes payload, const EncodeOptions& o) {
    std::vector<uint8_t> body;
    if (o.compression == Compression::dflt) {
        uLongf bound = compressBound(uLong(payload.size()));
        body.resize(bound);
        int level = o.level <= 9 ? o.level : 9;
        if (compress2(body.data(), &bound, payload.data(), uLong(payload.size()), level) != Z_OK)
            return make_error("zlib: compress2 failed");
        body.resize(bound);
    } else if (o.compression == Compression::zstd) {
        ZSTD_CCtx* cctx = ZSTD_createCCtx();
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, o.zstd_level);
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);  // as the game's writers do
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, 16);
        body.resize(ZSTD_compressBound(payload.size()));
        size_t r = ZSTD_compress2(cctx, body.data(), body.size(), payload.data(), payload.size());
        ZSTD_freeCCtx(cctx);
        if (ZSTD_isError(r)) return make_error(std::string("zstd: ") + ZSTD_getErrorName(r));
        body.resize(r);
    } else {
        return make_error(std::string("writing DCX ") + compression_name(o.compression) + " is not supported (DFLT and ZSTD are)");
    }
    if (payload.size() > 0xFFFFFFFFull || body.size() > 0xFFFFFFFFull) return make_error("payload too large for DCX (4 GiB)");

    std::vector<uint8_t> out;
    auto put = [&](uint32_t v) {
        for (int s = 24; s >= 0; s -= 8) out.push_back(uint8_t(v >> s));
    };
    auto tag = [&](const char* t) { out.insert(out.end(), t, t + 4); };
    tag("DCX\0");
    put(o.unk04);
    put(0x18);
    put(0x24);
    put(0x44);
    put(0x4C);
    tag("DCS\0");
    put(uint32_t(payload.size()));
    put(uint32_t(body.size()));
    tag("DCP\0");
    tag(o.compression == Compression::dflt ? "DFLT" : "ZSTD");
    put(0x20);
    out.push_back(o.compression == Compression::zstd ? 21 : o.level);
    out.push_back(0), out.push_back(0), out.push_back(0);
    put(0);
    out.push_back(o.unk38);
    out.push_back(0), out.push_back(0), out.push_back(0);
    put(0);
    put(0x00010100);
    tag("DCA\0");
    put(8);
    out.insert(out.end(), body.begin(), body.end());
    while (out.size() % 16) out.push_back(0);
    return out;
}

}  // namespace drape::dcx
