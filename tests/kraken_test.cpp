// Kraken decoder tests. Expected values come from KRAKEN.md (14.2 digests, 13 worked example),
// /work/shared/reference/kraken/EXPECTED.tsv (made by the spec's independent decoder), and
// FIPS 180-2 (SHA-256 self-test). Crafted streams are built by hand from the spec's tables.
#include <doctest/doctest.h>

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

// KRAKEN.md 1: the stream is C bytes at 0x4C, C = BE4 at 0x20, U = BE4 at 0x1C.
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
    for (size_t i = size; i < size + k_guard; ++i) REQUIRE_MESSAGE(out[i] == k_canary, "write past the output at ", i);
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

TEST_CASE("kraken: corpus emevd decodes to the KRAKEN.md 14.2 digest") {
    KrakFile k = load_krak(test::corpus("er/m10_00_00_00.emevd.dcx"));
    CHECK(k.size == 97424);
    CHECK(k.stream.size() == 9932);
    std::vector<uint8_t> out;
    auto r = decode_guarded(k.stream, k.size, out);
    REQUIRE_MESSAGE(r, r.error().to_string());
    // 13.3: the first 32 output bytes.
    const uint8_t first[32] = {0x45, 0x56, 0x44, 0x00, 0x00, 0xFF, 0x01, 0xFF, 0xCD, 0x00, 0x00, 0x00, 0x90, 0x7C, 0x01, 0x00,
                               0x5A, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x90, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    CHECK(std::memcmp(out.data(), first, 32) == 0);
    CHECK(digest(out) == "53480283d6f01d7ae89ca0eb4f3addb3dedb40f9cf0727b4172921cf6b498a2a");
}

TEST_CASE("kraken: corpus Sekiro mtdbnd decodes to the KRAKEN.md 14.2 digest, sequential and parallel") {
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
