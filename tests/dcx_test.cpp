// DCX: the corpus, round trips, truncation, the bomb guard, the Oodle path and every error.
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include "corpus.h"
#include "drape/dcx/dcx.h"

using namespace drape;

namespace {

nlohmann::json peer(const std::string& rel) {
    std::ifstream f(test::reference_dir() / "peer" / "soulstruct" / (rel + ".json"));
    REQUIRE_MESSAGE(f, "missing peer file for " << rel);
    return nlohmann::json::parse(f);
}

std::vector<uint8_t> payload_of(size_t n, uint32_t seed = 1) {
    std::vector<uint8_t> v(n);
    uint32_t x = seed;
    for (size_t i = 0; i < n; ++i) {
        x = x * 1664525u + 1013904223u;
        v[i] = uint8_t((i % 7 == 0) ? (x >> 24) : 'a' + (i % 13));
    }
    return v;
}

void put_be32(std::vector<uint8_t>& v, size_t at, uint32_t x) {
    v[at] = uint8_t(x >> 24), v[at + 1] = uint8_t(x >> 16), v[at + 2] = uint8_t(x >> 8), v[at + 3] = uint8_t(x);
}

std::string err(const Result<std::vector<uint8_t>>& r) { return r ? std::string("(ok)") : r.error().to_string(); }

}  // namespace

TEST_CASE("dcx: every DFLT and ZSTD corpus file decodes to its declared size, as the peer says" * doctest::test_suite("corpus")) {
    struct Case {
        const char* file;
        dcx::Compression kind;
    };
    const Case cases[] = {
        {"ds3/DS3_am.dcx", dcx::Compression::dflt},           {"ds3/c0000.anibnd.dcx", dcx::Compression::dflt},
        {"ds3/c2080.anibnd.dcx", dcx::Compression::dflt},     {"sekiro/c0000.anibnd.dcx", dcx::Compression::dflt},
        {"sekiro/c1140.anibnd.dcx", dcx::Compression::dflt},  {"er/c3000.anibnd.dcx", dcx::Compression::dflt},
        {"er/systex.tpf.dcx", dcx::Compression::dflt},        {"er/regulation.112.decrypted.bin", dcx::Compression::zstd},
    };
    for (const Case& c : cases) {
        CAPTURE(c.file);
        auto bytes = test::load(test::corpus(c.file));
        REQUIRE(!bytes.empty());
        CHECK(dcx::is_dcx(bytes));
        dcx::Header h;
        auto out = dcx::decompress(bytes, {}, &h);
        REQUIRE_MESSAGE(out, err(out));
        CHECK(h.compression == c.kind);
        auto p = peer(c.file);
        CHECK(out->size() == p["dcx"]["uncompressed_size"].get<size_t>());
        CHECK(h.uncompressed_size == p["dcx"]["uncompressed_size_header"].get<uint32_t>());
        CHECK(h.compressed_size == p["dcx"]["compressed_size_header"].get<uint32_t>());
        std::string inner = p["dcx"]["inner_magic"].get<std::string>();
        CHECK(std::string(reinterpret_cast<const char*>(out->data()), inner.size()) == inner);
    }
}

TEST_CASE("dcx: header variants of the corpus" * doctest::test_suite("corpus")) {
    dcx::Header h;
    auto ds3 = test::load(test::corpus("ds3/c2080.anibnd.dcx"));
    REQUIRE(dcx::read_header(ds3));
    h = *dcx::read_header(ds3);
    CHECK(h.unk04 == 0x10000);  // DCX_DFLT_10000_44_9, the peer's type name
    CHECK(h.unk10 == 0x44);
    CHECK(h.level == 9);
    auto er = test::load(test::corpus("er/regulation.112.decrypted.bin"));
    h = *dcx::read_header(er);
    CHECK(h.unk04 == 0x11000);
    CHECK(h.compression == dcx::Compression::zstd);
}

TEST_CASE("dcx: KRAK without a decoder says how to provide the Oodle library" * doctest::test_suite("corpus")) {
    for (const char* f : {"sekiro/allmaterialbnd.mtdbnd.dcx", "er/m10_00_00_00.emevd.dcx"}) {
        CAPTURE(f);
        auto bytes = test::load(test::corpus(f));
        dcx::DecodeOptions o;
        o.builtin_kraken = false;
        auto out = dcx::decompress(bytes, o);
        REQUIRE_FALSE(out);
        CHECK(out.error().to_string() ==
              "@0x28 dcx.compression: KRAK (Oodle Kraken) payload and no decoder: pass --oodle PATH to the game's Oodle "
              "library (oo2core_6_win64.dll or liboo2corelinux64.so), or set DRAPE_OODLE");
    }
}

// A real 480-byte Elden Ring chrbnd whose KRAK payload's block header names
// decoder type 2. Synthesized here in that shape: the DCX header of docs/formats.md#dcx
// (version 0x11000 as ER writes it), a 404-byte payload starting 8C 02, zero padding to 480 B.
TEST_CASE("dcx: a KRAK payload of another Oodle codec says what it is and what to do") {
    const uint32_t csize = 404, usize = 1024;
    std::vector<uint8_t> f(480, 0);
    auto tag = [&](size_t at, const char* t) { std::memcpy(f.data() + at, t, 4); };
    tag(0, "DCX\0");
    put_be32(f, 4, 0x11000);
    put_be32(f, 8, 0x18);
    put_be32(f, 0xC, 0x24);
    put_be32(f, 0x10, 0x44);
    put_be32(f, 0x14, 0x4C);
    tag(0x18, "DCS\0");
    put_be32(f, 0x1C, usize);
    put_be32(f, 0x20, csize);
    tag(0x24, "DCP\0");
    tag(0x28, "KRAK");
    put_be32(f, 0x2C, 0x20);
    f[0x30] = 6;
    put_be32(f, 0x40, 0x00010100);
    tag(0x44, "DCA\0");
    put_be32(f, 0x48, 8);
    f[0x4C] = 0x8C;
    f[0x4D] = 0x02;
    for (size_t i = 0x4E; i < 0x4C + csize; ++i) f[i] = uint8_t(i * 37);
    auto out = dcx::decompress(f);
    REQUIRE_FALSE(out);
    CHECK(out.error().to_string() ==
          "@0x4D kraken.block[0].header: this DCX's KRAK payload (404 B, declaring 1024 B) is not Kraken: Oodle decoder "
          "type 2 (not Kraken, nor another Oodle codec drape knows: 5 LZNA, 10 Mermaid/Selkie, 11 BitKnit, 12 "
          "Leviathan) is not implemented by drape; pass --oodle with the game's oo2core library (oo2core_6_win64.dll or "
          "liboo2corelinux64.so), or set DRAPE_OODLE");
    f[0x4D] = 0x0C;  // Leviathan: named
    dcx::Buffer buf;
    auto named = dcx::decompress(f, buf);
    REQUIRE_FALSE(named);
    CHECK(named.error().reason.find("is not Kraken: Oodle Leviathan (decoder type 12) is not implemented by drape; pass "
                                    "--oodle with the game's oo2core library") != std::string::npos);
    auto range = dcx::decompress_range(f, 0, 16, buf);
    REQUIRE_FALSE(range);
    CHECK(range.error().reason == named.error().reason);
}

TEST_CASE("dcx: KRAK goes through an Oodle library loaded at run time (a fake one, over zstd)" * doctest::test_suite("corpus")) {
    // The fake library decodes zstd frames and refuses anything else, like a real one refusing
    // a stream it cannot decode. A KRAK DCX whose payload is a zstd frame decodes through it.
    auto payload = payload_of(100000);
    dcx::EncodeOptions eo;
    eo.compression = dcx::Compression::zstd;
    eo.unk04 = 0x11000;
    auto z = dcx::compress(payload, eo);
    REQUIRE(z);
    std::vector<uint8_t> krak = *z;
    std::memcpy(krak.data() + 0x28, "KRAK", 4);
    krak[0x30] = 6;
    dcx::DecodeOptions o;
    o.oodle_path = DRAPE_FAKE_OODLE;
    auto out = dcx::decompress(krak, o);
    REQUIRE_MESSAGE(out, err(out));
    CHECK(*out == payload);

    // The real corpus KRAK files reach the library; the fake cannot decode Kraken and says so.
    auto real = test::load(test::corpus("er/m10_00_00_00.emevd.dcx"));
    auto r2 = dcx::decompress(real, o);
    REQUIRE_FALSE(r2);
    CHECK(r2.error().to_string() == "@0x4C oodle: OodleLZ_Decompress failed: returned 0 for 97424 expected bytes");

    o.oodle_path = "/nonexistent/liboo2corelinux64.so";
    auto r3 = dcx::decompress(krak, o);
    REQUIRE_FALSE(r3);
    CHECK(r3.error().reason.rfind("cannot load the Oodle library \"/nonexistent/liboo2corelinux64.so\"", 0) == 0);

    o.oodle_path = DRAPE_FAKE_OODLE;
    o.oodle_path.replace(o.oodle_path.find("libdrape_fake_oodle.so"), 22, "libdrape_fake_oodle.so");
    // A library without the symbol: zlib is loaded by every test binary and has none.
    o.oodle_path = "libz.so.1";
    auto r4 = dcx::decompress(krak, o);
    REQUIRE_FALSE(r4);
    CHECK(r4.error().reason == "the library \"libz.so.1\" has no OodleLZ_Decompress symbol");
}

TEST_CASE("dcx: DFLT and ZSTD round trips, with the game's header fields" * doctest::test_suite("corpus")) {
    for (size_t n : {0, 1, 100, 65536, 300000}) {
        auto payload = payload_of(n, uint32_t(n));
        for (auto kind : {dcx::Compression::dflt, dcx::Compression::zstd}) {
            dcx::EncodeOptions eo;
            eo.compression = kind;
            eo.unk04 = kind == dcx::Compression::zstd ? 0x11000 : 0x10000;
            auto z = dcx::compress(payload, eo);
            REQUIRE(z);
            CHECK(z->size() % 16 == 0);
            dcx::Header h;
            auto out = dcx::decompress(*z, {}, &h);
            REQUIRE_MESSAGE(out, err(out));
            CHECK(*out == payload);
            CHECK(h.compression == kind);
            CHECK(h.unk04 == eo.unk04);
        }
    }
    // Re-compressing a corpus DFLT file with the same fields gives a header byte-identical to
    // the original (the zlib stream itself may differ from the game's encoder).
    auto orig = test::load(test::corpus("ds3/c2080.anibnd.dcx"));
    auto inner = dcx::decompress(orig);
    REQUIRE(inner);
    auto again = dcx::compress(*inner, {});
    REQUIRE(again);
    CHECK(std::memcmp(again->data(), orig.data(), 0x1C) == 0);
    CHECK(std::memcmp(again->data() + 0x24, orig.data() + 0x24, 0x4C - 0x24) == 0);
    CHECK(*dcx::decompress(*again) == *inner);
}

TEST_CASE("dcx: truncation at every length fails cleanly with an offset") {
    auto payload = payload_of(600);
    for (auto kind : {dcx::Compression::dflt, dcx::Compression::zstd}) {
        dcx::EncodeOptions eo;
        eo.compression = kind;
        auto z = dcx::compress(payload, eo);
        REQUIRE(z);
        uint32_t csize = uint32_t((*z)[0x20]) << 24 | uint32_t((*z)[0x21]) << 16 | uint32_t((*z)[0x22]) << 8 | (*z)[0x23];
        size_t end = 0x4C + csize;  // past this only padding is cut
        for (size_t n = 0; n < z->size(); ++n) {
            auto r = dcx::decompress(std::span(z->data(), n));
            if (n >= end) {
                CHECK(r);
            } else {
                REQUIRE_FALSE(r);
                CHECK(r.error().has_offset);
                CHECK(r.error().offset <= n);
            }
        }
    }
}

TEST_CASE("dcx: the decompression-bomb guard refuses before allocating") {
    auto z = *dcx::compress(payload_of(1000), {});
    auto big = z;
    put_be32(big, 0x1C, 0xFFFFFFF0u);
    auto r = dcx::decompress(big);
    REQUIRE_FALSE(r);
    CHECK(r.error().to_string() ==
          "@0x1C dcx.uncompressed_size: declared uncompressed size 4294967280 B exceeds the 1073741824 B limit");
    auto ratio = z;
    put_be32(ratio, 0x1C, 500u << 20);
    r = dcx::decompress(ratio);
    REQUIRE_FALSE(r);
    CHECK(r.error().reason.find("times the") != std::string::npos);
    CHECK(r.error().reason.find("(refused as a decompression bomb)") != std::string::npos);
}

TEST_CASE("dcx: one test per error message") {
    auto good = *dcx::compress(payload_of(1000), {});
    auto mutate = [&](size_t at, std::initializer_list<uint8_t> bytes) {
        auto v = good;
        size_t i = at;
        for (uint8_t b : bytes) v[i++] = b;
        return v;
    };
    auto e = [](const std::vector<uint8_t>& v) {
        auto r = dcx::decompress(v);
        return r ? std::string("(ok)") : r.error().to_string();
    };
    CHECK(e(mutate(0, {'X'})) == "@0x0 dcx.magic: bad magic: expected \"DCX\\0\", found \"XCX\\0\"");
    CHECK(e(mutate(8, {0, 0, 0, 0x19})) == "@0x8 dcx.dcs_offset: expected 0x18, found 0x19");
    CHECK(e(mutate(0xC, {0, 0, 0, 0x25})) == "@0xC dcx.dcp_offset: expected 0x24, found 0x25");
    CHECK(e(mutate(0x18, {'D', 'C', 'Z'})) == "@0x18 dcx.dcs: bad magic: expected \"DCS\\0\", found \"DCZ\\0\"");
    CHECK(e(mutate(0x28, {'L', 'Z', 'M', 'A'})) ==
          "@0x28 dcx.compression: unknown compression \"LZMA\" (known: DFLT, ZSTD, KRAK, EDGE)");
    CHECK(e(mutate(0x2C, {0, 0, 0, 0x21})) == "@0x2C dcx.dcp_size: expected 0x20, found 0x21");
    CHECK(e(mutate(0x48, {0, 0, 0, 9})) == "@0x48 dcx.dca_size: expected 8, found 0x9");
    CHECK(e(mutate(0x4C + 2, {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF})).find("dcx.compressed_size") == std::string::npos);
    CHECK(e(mutate(0x4C + 2, {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF})).find("zlib: corrupt deflate data") != std::string::npos);
    {
        auto v = good;
        put_be32(v, 0x1C, 999);
        CHECK(e(v).find("zlib: stream inflates to more than the declared 999 B") != std::string::npos);
        put_be32(v, 0x1C, 1001);
        CHECK(e(v).find("zlib: stream ends after 1000 B, declared 1001 B") != std::string::npos);
        put_be32(v, 0x20, 0xFFFF);
        CHECK(e(v).find("dcx.compressed_size: range 0x4C+0xFFFF is outside 0x0..") != std::string::npos);
    }
    {
        dcx::EncodeOptions eo;
        eo.compression = dcx::Compression::zstd;
        auto z = *dcx::compress(payload_of(1000), eo);
        auto v = z;
        put_be32(v, 0x1C, 1001);
        CHECK(e(v) == "@0x4C zstd: frame decodes to 1000 B, declared 1001 B");
        v = z;
        v[0x4C] ^= 0xFF;
        CHECK(e(v) == "@0x4C zstd: zstd: Unknown frame descriptor");
    }
    {
        dcx::EncodeOptions eo;
        eo.compression = dcx::Compression::krak;
        auto r = dcx::compress(payload_of(10), eo);
        REQUIRE_FALSE(r);
        CHECK(r.error().to_string() == "writing DCX KRAK is not supported (DFLT and ZSTD are)");
    }
    CHECK(e(std::vector<uint8_t>(good.begin(), good.begin() + 0x30)) ==
          "@0x30 dcx.level: truncated: needs 1 B, 0 B left");
}

// A hand-made DCX_EDGE and DCP_DFLT / DCP_EDGE (DeS and console forms) built from docs/formats.md#dcp-and-edge-forms.
namespace {
std::vector<uint8_t> raw_deflate(const std::vector<uint8_t>& in) {
    z_stream zs{};
    deflateInit2(&zs, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
    std::vector<uint8_t> out(deflateBound(&zs, uLong(in.size())));
    zs.next_in = const_cast<Bytef*>(in.data());
    zs.avail_in = uInt(in.size());
    zs.next_out = out.data();
    zs.avail_out = uInt(out.size());
    deflate(&zs, Z_FINISH);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return out;
}
struct Be {
    std::vector<uint8_t> v;
    void u32(uint32_t x) {
        for (int s = 24; s >= 0; s -= 8) v.push_back(uint8_t(x >> s));
    }
    void tag(const char* t) { v.insert(v.end(), t, t + 4); }
};
}  // namespace

TEST_CASE("dcx: EDGE and DCP forms") {
    auto payload = payload_of(150000);  // three 64 KiB chunks, the last one partial
    std::vector<std::vector<uint8_t>> chunks;
    for (size_t off = 0; off < payload.size(); off += 0x10000) {
        std::vector<uint8_t> c(payload.begin() + off, payload.begin() + std::min(payload.size(), off + 0x10000));
        chunks.push_back(off == 0x10000 ? c : raw_deflate(c));  // chunk 1 stored raw
    }
    // DCX_EDGE
    Be b;
    b.tag("DCX\0");
    b.u32(0x10000), b.u32(0x18), b.u32(0x24), b.u32(0x24), b.u32(0x50 + 0x10 * 3);
    b.tag("DCS\0");
    b.u32(uint32_t(payload.size()));
    size_t csize_pos = b.v.size();
    b.u32(0);
    b.tag("DCP\0"), b.tag("EDGE");
    b.u32(0x20), b.u32(0x09000000), b.u32(0x10000), b.u32(0), b.u32(0), b.u32(0x00100100);
    b.tag("DCA\0");
    uint32_t dca_size = 0x24 + 0x10 * 3 + 8;
    b.u32(dca_size);
    b.tag("EgdT");
    b.u32(0x00010100), b.u32(0x24), b.u32(0x10), b.u32(0x10000), b.u32(uint32_t(payload.size() % 0x10000)),
        b.u32(0x24 + 0x10 * 3), b.u32(3), b.u32(0x100000);
    uint32_t off = 0;
    for (size_t i = 0; i < 3; ++i) {
        b.u32(0), b.u32(off), b.u32(uint32_t(chunks[i].size())), b.u32(i == 1 ? 0 : 1);
        off += uint32_t(chunks[i].size());
    }
    REQUIRE(b.v.size() == 0x44 + dca_size);
    for (auto& c : chunks) b.v.insert(b.v.end(), c.begin(), c.end());
    put_be32(b.v, csize_pos, off);
    dcx::Header h;
    auto out = dcx::decompress(b.v, {}, &h);
    REQUIRE_MESSAGE(out, err(out));
    CHECK(h.compression == dcx::Compression::edge);
    CHECK(*out == payload);
    {
        auto bad = b.v;
        put_be32(bad, 0x44 + 0x24, 2);  // chunk count
        auto r = dcx::decompress(bad);
        REQUIRE_FALSE(r);
        CHECK(r.error().reason == "2 chunks of 64 KiB cannot hold 150000 B");
        bad = b.v;
        put_be32(bad, 0x44 + 0x2C + 0x10 + 8, 5);  // stored chunk 1 size
        r = dcx::decompress(bad);
        REQUIRE_FALSE(r);
        CHECK(r.error().reason == "stored chunk of 5 B, expected 65536");
        bad = b.v;
        put_be32(bad, 0x34, 0x8000);
        r = dcx::decompress(bad);
        REQUIRE_FALSE(r);
        CHECK(r.error().to_string() == "@0x34 dcx.chunk_size: expected 0x10000, found 0x8000");
    }
    // DCP_DFLT
    Be p;
    p.tag("DCP\0"), p.tag("DFLT");
    p.u32(0x20), p.u32(0x09000000), p.u32(0), p.u32(0), p.u32(0), p.u32(0x00010100);
    p.tag("DCS\0");
    uLongf zl = compressBound(uLong(payload.size()));
    std::vector<uint8_t> z(zl);
    compress2(z.data(), &zl, payload.data(), uLong(payload.size()), 9);
    z.resize(zl);
    p.u32(uint32_t(payload.size())), p.u32(uint32_t(z.size()));
    p.v.insert(p.v.end(), z.begin(), z.end());
    p.tag("DCA\0"), p.u32(8);
    out = dcx::decompress(p.v, {}, &h);
    REQUIRE_MESSAGE(out, err(out));
    CHECK(h.compression == dcx::Compression::dcp_dflt);
    CHECK(*out == payload);
    auto badp = p.v;
    std::memcpy(badp.data() + 4, "LZX!", 4);
    auto rp = dcx::decompress(badp);
    REQUIRE_FALSE(rp);
    CHECK(rp.error().to_string() == "@0x4 dcp.compression: unknown compression \"LZX!\" (known: DFLT, EDGE)");
    // DCP_EDGE
    Be q;
    q.tag("DCP\0"), q.tag("EDGE");
    q.u32(0x20), q.u32(0x09000000), q.u32(0x10000), q.u32(0), q.u32(0), q.u32(0x00100100);
    q.tag("DCS\0");
    q.u32(uint32_t(payload.size())), q.u32(off), q.u32(0);
    for (auto& c : chunks) q.v.insert(q.v.end(), c.begin(), c.end());
    q.tag("DCA\0"), q.u32(0x20 + 0x10 * 3 + 8);
    q.tag("EgdT");
    q.u32(0x00010000), q.u32(0x20), q.u32(0x10), q.u32(0x10000), q.u32(0x20 + 0x10 * 3), q.u32(3), q.u32(0x100000);
    off = 0;
    for (size_t i = 0; i < 3; ++i) {
        q.u32(0), q.u32(off), q.u32(uint32_t(chunks[i].size())), q.u32(i == 1 ? 0 : 1);
        off += uint32_t(chunks[i].size());
    }
    out = dcx::decompress(q.v, {}, &h);
    REQUIRE_MESSAGE(out, err(out));
    CHECK(h.compression == dcx::Compression::dcp_edge);
    CHECK(*out == payload);
}
