// Kraken decoder tests. Expected values come from the clean-room specification (its independently
// computed digests, its worked example),
// /work/shared/reference/kraken/EXPECTED.tsv (made by the spec's independent decoder), and
// FIPS 180-2 (SHA-256 self-test). Crafted streams are built by hand from the spec's tables.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "corpus.h"
#include "drape/dcx/kraken.h"
#include "sha256.h"

using namespace drape;

namespace {

struct KrakFile {
    std::vector<uint8_t> stream;
    size_t size = 0;
};

uint32_t be32_at(const std::vector<uint8_t>& b, size_t off) {
    return uint32_t(b[off]) << 24 | uint32_t(b[off + 1]) << 16 | uint32_t(b[off + 2]) << 8 | b[off + 3];
}

// docs/formats.md#dcx: the stream is C bytes at 0x4C, C = BE4 at 0x20, U = BE4 at 0x1C.
KrakFile load_krak(const std::filesystem::path& path) {
    KrakFile k;
    std::vector<uint8_t> file = test::load(path);
    REQUIRE_MESSAGE(file.size() >= 0x4C, path.string());
    REQUIRE(std::memcmp(file.data() + 0x28, "KRAK", 4) == 0);
    k.size = be32_at(file, 0x1C);
    size_t c = be32_at(file, 0x20);
    REQUIRE(0x4C + c <= file.size());
    k.stream.assign(file.begin() + 0x4C, file.begin() + 0x4C + long(c));
    return k;
}

constexpr size_t k_guard = 64;
constexpr uint8_t k_canary = 0xA5;

// Decodes into a buffer with canary bytes after `size`; checks nothing was written past it.
Result<void> decode_guarded(const std::vector<uint8_t>& in, size_t size, std::vector<uint8_t>& out, unsigned jobs = 1) {
    out.assign(size + k_guard, k_canary);
    auto r = kraken::decompress(in, std::span<uint8_t>(out.data(), size), jobs);
    REQUIRE_MESSAGE(std::all_of(out.begin() + long(size), out.end(), [](uint8_t b) { return b == k_canary; }),
                    "write past the output");
    out.resize(size);
    return r;
}

std::string digest(const std::vector<uint8_t>& v) { return test::sha256_hex(v); }

}  // namespace

TEST_CASE("sha256: FIPS 180-2 examples") {
    const std::string abc = "abc";
    CHECK(test::sha256_hex({reinterpret_cast<const uint8_t*>(abc.data()), abc.size()}) ==
          "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(test::sha256_hex({}) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const std::string two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    CHECK(test::sha256_hex({reinterpret_cast<const uint8_t*>(two.data()), two.size()}) ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("kraken: corpus emevd decodes to its independently computed digest" * doctest::test_suite("corpus")) {
    KrakFile k = load_krak(test::corpus("er/m10_00_00_00.emevd.dcx"));
    CHECK(k.size == 97424);
    CHECK(k.stream.size() == 9932);
    std::vector<uint8_t> out;
    auto r = decode_guarded(k.stream, k.size, out);
    REQUIRE_MESSAGE(r, r.error().to_string());
    // The first 32 output bytes (the specification's worked example).
    const uint8_t first[32] = {0x45, 0x56, 0x44, 0x00, 0x00, 0xFF, 0x01, 0xFF, 0xCD, 0x00, 0x00, 0x00, 0x90, 0x7C, 0x01, 0x00,
                               0x5A, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x90, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    CHECK(std::memcmp(out.data(), first, 32) == 0);
    CHECK(digest(out) == "53480283d6f01d7ae89ca0eb4f3addb3dedb40f9cf0727b4172921cf6b498a2a");
}

TEST_CASE("kraken: corpus Sekiro mtdbnd decodes to its independently computed digest, sequential and parallel" * doctest::test_suite("corpus")) {
    KrakFile k = load_krak(test::corpus("sekiro/allmaterialbnd.mtdbnd.dcx"));
    CHECK(k.size == 12815568);
    std::vector<uint8_t> seq, par, all;
    auto r = decode_guarded(k.stream, k.size, seq, 1);
    REQUIRE_MESSAGE(r, r.error().to_string());
    CHECK(digest(seq) == "1246c9bb834e25a7b90f5db8df5817603daf098ab4c47c778146c141960469df");
    auto r2 = decode_guarded(k.stream, k.size, par, 4);
    REQUIRE_MESSAGE(r2, r2.error().to_string());
    CHECK(par == seq);
    auto r3 = decode_guarded(k.stream, k.size, all, 0);
    REQUIRE_MESSAGE(r3, r3.error().to_string());
    CHECK(all == seq);
}

TEST_CASE("kraken: every reference stream gives the result of EXPECTED.tsv") {
    auto dir = test::reference_dir() / "kraken";
    std::ifstream tsv(dir / "EXPECTED.tsv");
    REQUIRE(tsv);
    std::string line;
    std::getline(tsv, line);  // header
    int rows = 0;
    while (std::getline(tsv, line)) {
        if (line.empty()) continue;
        size_t tab = line.find('\t');
        REQUIRE(tab != std::string::npos);
        std::string name = line.substr(0, tab), expected = line.substr(tab + 1);
        CAPTURE(name);
        KrakFile k = load_krak(dir / name);
        ++rows;
        for (unsigned jobs : {1u, 4u}) {
            std::vector<uint8_t> out;
            auto r = decode_guarded(k.stream, k.size, out, jobs);
            if (expected.rfind("Bad:", 0) == 0) {
                CHECK_FALSE(r);
                if (!r) MESSAGE(name, ": ", r.error().to_string());
            } else {
                std::istringstream ss(expected);
                size_t size = 0;
                std::string sha;
                ss >> size >> sha;
                CHECK(k.size == size);
                CHECK_MESSAGE(r, (r ? std::string() : r.error().to_string()));
                if (r) CHECK(digest(out) == sha);
            }
        }
    }
    CHECK(rows == 14);
}

namespace {

// The first block of a stream on its own (2-byte block header, 3-byte quantum header, Q).
std::vector<uint8_t> first_block(const KrakFile& k, size_t& size) {
    const auto& s = k.stream;
    REQUIRE(s.size() >= 5);
    size_t q = ((size_t(s[2]) << 16 | size_t(s[3]) << 8 | s[4]) & 0x3FFFF) + 1;
    REQUIRE(5 + q <= s.size());
    size = std::min<size_t>(k.size, 0x40000);
    return std::vector<uint8_t>(s.begin(), s.begin() + long(5 + q));
}

}  // namespace

TEST_CASE("kraken: the emevd stream truncated at every length fails cleanly" * doctest::test_suite("corpus")) {
    KrakFile k = load_krak(test::corpus("er/m10_00_00_00.emevd.dcx"));
    REQUIRE(k.stream.size() == 9932);
    for (size_t n = 0; n < k.stream.size(); ++n) {
        std::vector<uint8_t> cut(k.stream.begin(), k.stream.begin() + long(n));
        std::vector<uint8_t> out;
        auto r = decode_guarded(cut, k.size, out);
        REQUIRE_MESSAGE(!r, "length ", n);
        CHECK(r.error().offset <= n);
    }
}

TEST_CASE("kraken: the emevd chunk truncated at every length, with headers patched to match, fails cleanly" * doctest::test_suite("corpus")) {
    // The quantum header at 2 (Q - 1), chunk header at 5 (0x80 | S); patching them to the
    // cut length makes the framing accept the cut, so the LZ chunk itself sees the truncation.
    KrakFile k = load_krak(test::corpus("er/m10_00_00_00.emevd.dcx"));
    REQUIRE(k.stream.size() == 9932);
    size_t failures = 0;
    for (size_t n = 9; n < k.stream.size(); ++n) {
        std::vector<uint8_t> cut(k.stream.begin(), k.stream.begin() + long(n));
        uint32_t q = uint32_t(n - 5) - 1, s = uint32_t(n - 8);
        cut[2] = uint8_t(q >> 16), cut[3] = uint8_t(q >> 8), cut[4] = uint8_t(q);
        cut[5] = uint8_t(0x80 | (s >> 16)), cut[6] = uint8_t(s >> 8), cut[7] = uint8_t(s);
        std::vector<uint8_t> out;
        auto r = decode_guarded(cut, k.size, out);
        REQUIRE_MESSAGE(!r, "length ", n);
        CHECK(r.error().offset <= n);
        CHECK(r.error().field.rfind("kraken.block[0]", 0) == 0);
        ++failures;
    }
    CHECK(failures == 9932 - 9);
}

TEST_CASE("kraken: mutated streams (1-2 bytes changed) never crash, hang or overrun" * doctest::test_suite("corpus")) {
    std::vector<KrakFile> seeds;
    seeds.push_back(load_krak(test::corpus("er/m10_00_00_00.emevd.dcx")));
    {
        KrakFile sek = load_krak(test::corpus("sekiro/allmaterialbnd.mtdbnd.dcx"));
        KrakFile b0;
        b0.stream = first_block(sek, b0.size);
        seeds.push_back(std::move(b0));
    }
    auto dir = test::reference_dir() / "kraken";
    for (const char* name : {"interval_mixed_packed.dcx", "interval_mixed_unpacked.dcx", "lz_prev_block_mode0.dcx",
                             "lz_scaled_sigma3.dcx", "rle_all_commands.dcx", "recursive_concat.dcx", "uncompressed_blocks.dcx"})
        seeds.push_back(load_krak(dir / name));
    for (const KrakFile& s : seeds) {
        std::vector<uint8_t> out;
        auto r = decode_guarded(s.stream, s.size, out);
        REQUIRE_MESSAGE(r, r.error().to_string());
    }
    // Share of mutants per seed: the emevd stream most, the big Sekiro block least.
    const int counts[] = {1400, 200, 200, 200, 200, 200, 200, 200, 200};
    std::mt19937 rng(20261130);
    size_t accepted = 0, rejected = 0;
    for (size_t si = 0; si < seeds.size(); ++si) {
        const KrakFile& s = seeds[si];
        for (int i = 0; i < counts[si]; ++i) {
            std::vector<uint8_t> m = s.stream;
            int changes = 1 + int(rng() % 2);
            for (int c = 0; c < changes; ++c) {
                size_t pos = rng() % m.size();
                uint8_t v = uint8_t(rng());
                if (v == m[pos]) v ^= 0x01;
                m[pos] = v;
            }
            std::vector<uint8_t> out;
            auto r = decode_guarded(m, s.size, out, i % 3 == 0 ? 2u : 1u);
            if (r) {
                ++accepted;
            } else {
                ++rejected;
                CHECK(r.error().offset <= m.size());
            }
        }
    }
    MESSAGE("mutants accepted ", accepted, ", rejected ", rejected);
    CHECK(accepted + rejected == 3000);
}

TEST_CASE("kraken: sequential and parallel decoding give the same bytes and report the same first error" * doctest::test_suite("corpus")) {
    KrakFile k = load_krak(test::corpus("sekiro/allmaterialbnd.mtdbnd.dcx"));
    // Corrupt the quantum payloads of two blocks (10 and 30): both decoders must name block 10.
    std::vector<size_t> starts;
    size_t pos = 0;
    while (pos + 5 <= k.stream.size()) {
        starts.push_back(pos);
        size_t q = ((size_t(k.stream[pos + 2]) << 16 | size_t(k.stream[pos + 3]) << 8 | k.stream[pos + 4]) & 0x3FFFF) + 1;
        pos += 5 + q;
    }
    REQUIRE(starts.size() == 49);
    std::vector<uint8_t> bad = k.stream;
    for (size_t b : {size_t(10), size_t(30)}) bad[starts[b] + 5 + 11] ^= 0xFF;  // literal array header of chunk 0
    std::vector<uint8_t> o1, o2;
    auto r1 = decode_guarded(bad, k.size, o1, 1);
    auto r2 = decode_guarded(bad, k.size, o2, 4);
    REQUIRE_FALSE(r1);
    REQUIRE_FALSE(r2);
    CHECK(r1.error().field.rfind("kraken.block[10].", 0) == 0);
    CHECK(r1.error().to_string() == r2.error().to_string());
    // Streams without restart bits (one segment) decode identically with any job count.
    auto dir = test::reference_dir() / "kraken";
    for (const char* name : {"lz_prev_block_mode0.dcx", "lz_prev_block_mode1.dcx", "uncompressed_blocks.dcx"}) {
        KrakFile v = load_krak(dir / name);
        std::vector<uint8_t> a, b;
        REQUIRE(decode_guarded(v.stream, v.size, a, 1));
        REQUIRE(decode_guarded(v.stream, v.size, b, 3));
        CHECK(a == b);
    }
}

// The decoder's scratch memory is kept between calls (and shared by the threads of later
// calls): a stream that failed halfway, leaving its scratch state and bytes behind, must not
// change what the next stream decodes to.
TEST_CASE("kraken: failed decodes leave nothing behind: the next stream still decodes to its digest, on 1 and 2 threads" * doctest::test_suite("corpus")) {
    KrakFile emevd = load_krak(test::corpus("er/m10_00_00_00.emevd.dcx"));
    KrakFile sek = load_krak(test::corpus("sekiro/allmaterialbnd.mtdbnd.dcx"));
    const std::string emevd_digest = "53480283d6f01d7ae89ca0eb4f3addb3dedb40f9cf0727b4172921cf6b498a2a";
    const std::string sek_digest = "1246c9bb834e25a7b90f5db8df5817603daf098ab4c47c778146c141960469df";
    std::mt19937 rng(20261201);
    size_t failed = 0, checked = 0;
    for (int i = 0; i < 400; ++i) {
        std::vector<uint8_t> m = emevd.stream;
        size_t pos = 16 + rng() % (m.size() - 16);  // past the block and quantum headers
        m[pos] ^= uint8_t(1 + rng() % 255);
        std::vector<uint8_t> out;
        if (!decode_guarded(m, emevd.size, out, 1 + unsigned(i % 2))) ++failed;
        if (i % 40 == 39) {
            std::vector<uint8_t> good;
            auto r = decode_guarded(emevd.stream, emevd.size, good, 1 + unsigned(i % 2));
            REQUIRE_MESSAGE(r, r.error().to_string());
            CHECK(digest(good) == emevd_digest);
            ++checked;
        }
        if (i % 100 == 99) {
            std::vector<uint8_t> good;
            auto r = decode_guarded(sek.stream, sek.size, good, 2);
            REQUIRE_MESSAGE(r, r.error().to_string());
            CHECK(digest(good) == sek_digest);
        }
    }
    MESSAGE("mutants that failed: ", failed, " of 400");
    CHECK(failed > 100);  // the run exercised failing decodes
    CHECK(checked == 10);
}
