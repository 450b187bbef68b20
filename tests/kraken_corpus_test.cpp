// Every KRAK file of the corpus (MANIFEST.tsv) through drape's decoder: output independent of
// what the output buffer held before (the wide copies must read only bytes they wrote), nothing
// written past the output, the same bytes sequential and parallel, through dcx::decompress
// (vector and reused Buffer) and by ranges (dcx::decompress_range).
//
// Expected digests: the two computed independently of drape (an independent from-spec decoder and the
// reference decoder agree on them); for 13 files, the SHA-256 of drape's output at commit 6e8657f,
// a decoder found byte-identical to an independent decoder on every real file (43 of 43): they
// pin the outputs while the decoder is made faster; for the three c2030 files, the digests the
// corpus manifest gives from an independent Kraken decoder (drape's output was checked equal to
// them when they were added).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "corpus.h"
#include "drape/dcx/dcx.h"
#include "drape/bnd/bnd4.h"
#include "drape/dcx/kraken.h"
#include "drape/dcx/member.h"
#include "sha256.h"

#if defined(__unix__)
#include <sys/wait.h>
#include <unistd.h>
#endif

using namespace drape;

namespace {

struct Expected {
    size_t size;
    const char* sha256;
};

const std::map<std::string, Expected>& expected() {
    static const std::map<std::string, Expected> m = {
        // computed independently of drape
        {"sekiro/allmaterialbnd.mtdbnd.dcx", {12815568, "1246c9bb834e25a7b90f5db8df5817603daf098ab4c47c778146c141960469df"}},
        {"er/m10_00_00_00.emevd.dcx", {97424, "53480283d6f01d7ae89ca0eb4f3addb3dedb40f9cf0727b4172921cf6b498a2a"}},
        // drape at 6e8657f (see above)
        {"er/game/chr/c4361.chrbnd.dcx", {2789744, "524bfc84f174bba68e37d661d34aba8b69b8578015f84eaf93a68610ee0ea202"}},
        {"er/game/chr/c4361.anibnd.dcx", {20648, "6ede7d419cc9d2ccec897a184681e2f7daa08a01870ef384fe9bb5ddc528c747"}},
        {"er/game/chr/c4361_l.texbnd.dcx", {179016, "317a7fcccd378fefe567c3522e2f69a0cbee2270d086d59653b2587dd5f3bad1"}},
        {"er/game/chr/c4361_h.texbnd.dcx", {2841392, "0a5c683334b818d7d94381b0b2f7ccfb60abbae2eda24ec4d648ca576fd19861"}},
        {"er/game/chr/c5000.chrbnd.dcx", {5479864, "7f9539260b872a5dd064e215838404c8132c0fc93c9dc1bb6d5dce07b5d6e7c7"}},
        {"er/game/chr/c5000.anibnd.dcx", {4931380, "5f0200b2ca892a061a7502390fb6a8d4ad5797b6d9e9a42f986d1949ccdd32a6"}},
        {"er/game/chr/c5000_l.texbnd.dcx", {974146, "00f19bc547f97dd0493a0afc993f86d5794afb294a09444c0db8e8b6b237d46e"}},
        {"er/game/chr/c3061.chrbnd.dcx", {2284584, "d1437f30add35e2440fb7f1c8cf5cd4a103d809c243fe0cc909b73fcf94d4c5e"}},
        {"er/game/chr/c3061.anibnd.dcx", {19848, "b55998106dc8f9be1323855850461a7d065a4f10403822b3305a7c06f19187a8"}},
        {"er/game/chr/c3061_l.texbnd.dcx", {78754, "3c02e08cc49b6fb2729a0a061ad53f1d9b94b13d2f6bba2caa111c579a4d8cec"}},
        {"er/game/chr/c3061_h.texbnd.dcx", {1235850, "7ae2b3a050ce586205a304f20825b9d30109d7a33d0bc606f74e92bc6938a1e9"}},
        // MANIFEST.tsv (an independent decoder)
        {"er/game/chr/c2030.chrbnd.dcx", {7779616, "9f5a04a464fdf207d9ef4e409d44ca8306ad80d58b8841b85c0279d9fa22a285"}},
        {"er/game/chr/c2030.anibnd.dcx", {971700, "b7a119a0f7b9593f6f24b614e9d580476f6a7b1392e4ffa77df6be6d930a1aa8"}},
        {"er/game/chr/c2030_l.texbnd.dcx", {1037170, "e4293b10c8843ce97397d8aab41f7166a45f3b6525a2faeab156a140b5d60903"}},
        // drape at 6e8657f
        {"er/game/material/allmaterial.matbinbnd.dcx", {77457355, "28fcad57053acd942d2db1caa9922fd5b89d4c071f8992bb8d0ca406c78513f5"}},
        {"er/game/material/allmaterial_dlc01.matbinbnd.dcx",
         {12873267, "7d4d928c1d8668266e3428b85f832590d56c30bbdf91343c0312daedcc73bb34"}},
    };
    return m;
}

std::vector<std::string> krak_files() {
    std::vector<std::string> v;
    for (const auto& row : test::manifest())
        if (row.format.rfind("DCX KRAK", 0) == 0) v.push_back(row.file);
    return v;
}

struct Stream {
    std::vector<uint8_t> file;
    Bytes stream;
    size_t size = 0;
};

Stream load(const std::string& rel) {
    Stream s;
    s.file = test::load(test::corpus(rel));
    auto h = dcx::read_header(s.file);
    REQUIRE_MESSAGE(h, rel);
    REQUIRE(h->compression == dcx::Compression::krak);
    REQUIRE(uint64_t(h->payload_offset) + h->compressed_size <= s.file.size());
    s.stream = Bytes(s.file.data() + h->payload_offset, h->compressed_size);
    s.size = h->uncompressed_size;
    return s;
}

constexpr size_t k_guard = 4096;

// Decodes into a buffer whose every byte (output and a guard after it) holds `pattern` first;
// checks the guard afterwards and returns the output's digest.
std::string decode_over(const Stream& s, uint8_t pattern, unsigned jobs) {
    std::vector<uint8_t> buf(s.size + k_guard, pattern);
    auto r = kraken::decompress(s.stream, std::span<uint8_t>(buf.data(), s.size), jobs);
    REQUIRE_MESSAGE(r, r.error().to_string());
    REQUIRE_MESSAGE(std::all_of(buf.begin() + long(s.size), buf.end(), [&](uint8_t b) { return b == pattern; }),
                    "write past the output");
    return test::sha256_hex(Bytes(buf.data(), s.size));
}

}  // namespace

TEST_CASE("kraken corpus: every KRAK file decodes to its digest over any prior buffer contents, sequential and parallel" * doctest::test_suite("corpus")) {
    const std::vector<std::string> files = krak_files();
    REQUIRE(files.size() >= 18);
    size_t checked = 0;
    for (const std::string& rel : files) {
        CAPTURE(rel);
        auto it = expected().find(rel);
        REQUIRE_MESSAGE(it != expected().end(), "no expected digest for " << rel);
        Stream s = load(rel);
        CHECK(s.size == it->second.size);
        // Two patterns and two thread counts: a decoder that read bytes it had not written yet
        // (an overlapping copy done too wide) would give different outputs for 0x00 and 0xA5.
        CHECK(decode_over(s, 0x00, 1) == it->second.sha256);
        CHECK(decode_over(s, 0xA5, 1) == it->second.sha256);
        CHECK(decode_over(s, 0x5A, 2) == it->second.sha256);
        ++checked;
    }
    // Every pinned digest was met: a file gone from the manifest fails here too.
    CHECK(checked == expected().size());
}

TEST_CASE("kraken corpus: the same digests without CPU extensions beyond the baseline (the portable command loops)" * doctest::test_suite("corpus")) {
    // The corpus test above runs the SSE4.1 form of the long-match command loop where the CPU has
    // it (emevd, the mtdbnd and the matbinbnds take that loop); this runs the portable form.
    const bool before = kraken::set_cpu_extensions(false);
    size_t checked = 0;
    for (const char* rel : {"er/m10_00_00_00.emevd.dcx", "sekiro/allmaterialbnd.mtdbnd.dcx", "er/game/chr/c4361.chrbnd.dcx"}) {
        CAPTURE(rel);
        Stream s = load(rel);
        CHECK(decode_over(s, 0xA5, 1) == expected().at(rel).sha256);
        CHECK(decode_over(s, 0x00, 2) == expected().at(rel).sha256);
        ++checked;
    }
    kraken::set_cpu_extensions(before);
    CHECK(checked == 3);
}

#if defined(__unix__)
TEST_CASE("kraken corpus: a parallel decode in a child of fork() after parallel decodes in the parent" * doctest::test_suite("corpus")) {
    // Parallel calls keep helper threads; a forked child has none of them and must not wait on
    // them (it would hang: the child kills itself after 30 s, which fails the test).
    const char* rel = "er/game/chr/c3061.chrbnd.dcx";
    Stream s = load(rel);
    REQUIRE(decode_over(s, 0x00, 2) == expected().at(rel).sha256);  // the parent now keeps a helper
    std::fflush(nullptr);
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        alarm(30);
        std::vector<uint8_t> out(s.size);
        const bool ok = bool(kraken::decompress(s.stream, out, 2)) &&
                        test::sha256_hex(Bytes(out.data(), out.size())) == expected().at(rel).sha256;
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(decode_over(s, 0xA5, 2) == expected().at(rel).sha256);  // and the parent's helpers still work
}
#endif

TEST_CASE("kraken corpus: dcx::decompress into a reused Buffer equals the vector form, file after file" * doctest::test_suite("corpus")) {
    dcx::Buffer buf;
    size_t checked = 0;
    // Largest first would hide a buffer that does not shrink; alternate sizes instead.
    for (const char* rel : {"er/game/chr/c5000.chrbnd.dcx", "er/m10_00_00_00.emevd.dcx", "er/game/chr/c3061_h.texbnd.dcx",
                            "er/game/chr/c4361.anibnd.dcx", "sekiro/c0000.anibnd.dcx", "er/regulation.112.decrypted.bin",
                            "er/systex.tpf.dcx"}) {
        CAPTURE(rel);
        std::vector<uint8_t> file = test::load(test::corpus(rel));
        dcx::Header h1, h2;
        auto v = dcx::decompress(file, {}, &h1);
        REQUIRE_MESSAGE(v, v.error().to_string());
        std::fill(buf.data(), buf.data() + buf.capacity(), uint8_t(0xEE));
        auto b = dcx::decompress(file, buf, {}, &h2);
        REQUIRE_MESSAGE(b, b.error().to_string());
        CHECK(h1.compression == h2.compression);
        CHECK(b->size() == v->size());
        CHECK(b->data() == buf.data());
        CHECK(std::equal(b->begin(), b->end(), v->begin(), v->end()));
        ++checked;
    }
    CHECK(checked == 7);
}

TEST_CASE("kraken corpus: outputs of 4 MiB and more (huge-page advice) keep their digests through dcx::decompress" * doctest::test_suite("corpus")) {
    // dcx::decompress advises huge pages on large outputs before their first write (the vector
    // form before its zero fill, a Buffer when it allocates): the bytes must be the decoder's.
    size_t checked = 0;
    for (const char* rel : {"er/game/material/allmaterial_dlc01.matbinbnd.dcx", "er/game/chr/c5000.chrbnd.dcx"}) {
        CAPTURE(rel);
        const std::vector<uint8_t> file = test::load(test::corpus(rel));
        const Expected& want = expected().at(rel);
        REQUIRE(want.size >= size_t(4) << 20);
        auto v = dcx::decompress(file);
        REQUIRE(bool(v));
        CHECK(v->size() == want.size);
        CHECK(test::sha256_hex(Bytes(v->data(), v->size())) == want.sha256);
        dcx::Buffer fresh;  // allocated by this call
        dcx::DecodeOptions two_threads;
        two_threads.jobs = 2;
        auto b = dcx::decompress(file, fresh, two_threads);
        REQUIRE(bool(b));
        CHECK(fresh.capacity() >= want.size);
        CHECK(test::sha256_hex(*b) == want.sha256);
        ++checked;
    }
    CHECK(checked == 2);
}

TEST_CASE("kraken corpus: decompress_range gives the bytes of the whole output, for any range" * doctest::test_suite("corpus")) {
    const char* rel = "er/game/material/allmaterial_dlc01.matbinbnd.dcx";  // 50 blocks
    std::vector<uint8_t> file = test::load(test::corpus(rel));
    auto whole = dcx::decompress(file);
    REQUIRE_MESSAGE(whole, whole.error().to_string());
    const size_t n = whole->size();
    REQUIRE(n == 12873267);
    struct R {
        size_t off, len;
    };
    const R ranges[] = {{0, 64},           {0, 0x40000},         {0x40000, 0x40000}, {0x3FFF0, 0x20},
                        {123457, 1000000}, {n - 10, 10},         {n - 0x40000, 0x40000}, {0, n},
                        {5000000, 0},      {0x40000 * 7 + 3, 1}};
    dcx::Buffer out;
    for (const R& r : ranges) {
        CAPTURE(r.off);
        CAPTURE(r.len);
        for (unsigned jobs : {1u, 2u}) {
            dcx::DecodeOptions o;
            o.jobs = jobs;
            auto got = dcx::decompress_range(file, r.off, r.len, out, o);
            REQUIRE_MESSAGE(got, got.error().to_string());
            REQUIRE(got->size() == r.len);
            CHECK(std::equal(got->begin(), got->end(), whole->begin() + long(r.off)));
        }
    }
    auto bad = dcx::decompress_range(file, n - 1, 2, out);
    REQUIRE_FALSE(bad);
    CHECK(bad.error().field == "dcx.range");
    CHECK(bad.error().reason == "range of 2 B at 12873266 lies outside the declared 12873267 B");

    // DFLT (stops inflating at the range end) and ZSTD (whole decode) give the same bytes too.
    for (const char* other : {"sekiro/c0000.anibnd.dcx", "er/regulation.112.decrypted.bin"}) {
        CAPTURE(other);
        std::vector<uint8_t> f = test::load(test::corpus(other));
        auto w = dcx::decompress(f);
        REQUIRE(w);
        const size_t m = w->size();
        for (R r : {R{0, 100}, R{m / 2, m / 3}, R{m - 1, 1}, R{0, m}}) {
            auto got = dcx::decompress_range(f, r.off, r.len, out);
            REQUIRE_MESSAGE(got, got.error().to_string());
            CHECK(std::equal(got->begin(), got->end(), w->begin() + long(r.off), w->begin() + long(r.off + r.len)));
        }
    }
}

TEST_CASE("kraken: decompress_range refuses a range outside the output and still checks the framing" * doctest::test_suite("corpus")) {
    Stream s = load("er/m10_00_00_00.emevd.dcx");
    std::vector<uint8_t> out(16);
    auto r = kraken::decompress_range(s.stream, s.size, s.size - 8, out);
    REQUIRE_FALSE(r);
    CHECK(r.error().field == "kraken.range");
    std::vector<uint8_t> cut(s.stream.begin(), s.stream.end() - 1);
    auto t = kraken::decompress_range(cut, s.size, 0, out);
    REQUIRE_FALSE(t);
    CHECK(t.error().field.rfind("kraken.block[0]", 0) == 0);
    auto ok = kraken::decompress_range(s.stream, s.size, 8, out);
    REQUIRE_MESSAGE(ok, ok.error().to_string());
    // Output bytes 8-23, decoded by hand from the stream's first commands.
    const uint8_t expect[16] = {0xCD, 0x00, 0x00, 0x00, 0x90, 0x7C, 0x01, 0x00, 0x5A, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    CHECK(std::memcmp(out.data(), expect, 16) == 0);
}

TEST_CASE("dcx::LazyBinder: members read one by one equal those of the fully decoded binder" * doctest::test_suite("corpus")) {
    size_t compared = 0;
    for (const char* rel : {"er/game/chr/c5000.chrbnd.dcx", "er/game/material/allmaterial_dlc01.matbinbnd.dcx",
                            "sekiro/c0000.anibnd.dcx", "er/regulation.112.decrypted.bin"}) {
        CAPTURE(rel);
        std::vector<uint8_t> file = test::load(test::corpus(rel));
        auto whole = dcx::decompress(file);
        REQUIRE(whole);
        auto full = bnd::read_bnd4(*whole);
        REQUIRE_MESSAGE(full, full.error().to_string());
        auto lazy = dcx::LazyBinder::open(file);
        REQUIRE_MESSAGE(lazy, lazy.error().to_string());
        REQUIRE(lazy->binder().entries.size() == full->entries.size());
        const size_t n = full->entries.size();
        // Every member of small binders; first, last and a spread of the others for large ones.
        const size_t step = n > 40 ? n / 17 : 1;
        std::vector<size_t> picks;
        for (size_t i = 0; i < n; i += step) picks.push_back(i);
        if (picks.back() != n - 1) picks.push_back(n - 1);
        for (size_t i : picks) {
            const bnd::Entry& le = lazy->binder().entries[i];
            const bnd::Entry& fe = full->entries[i];
            CAPTURE(i);
            CHECK(le.name == fe.name);
            CHECK(le.data.empty());
            auto got = lazy->member_bytes(le);
            REQUIRE_MESSAGE(got, got.error().to_string());
            auto want = bnd::entry_bytes(*full, fe);
            REQUIRE(want);
            CHECK(*got == *want);
            ++compared;
        }
    }
    CHECK(compared >= 40);
    std::vector<uint8_t> emevd = test::load(test::corpus("er/m10_00_00_00.emevd.dcx"));
    auto not_bnd = dcx::LazyBinder::open(emevd);
    REQUIRE_FALSE(not_bnd);
    CHECK(not_bnd.error().field == "dcx.bnd4");
}

TEST_CASE("dcx::LazyBinder: member_paths off gives the same entries with empty paths" * doctest::test_suite("corpus")) {
    size_t entries = 0;
    for (const char* rel : {"er/game/chr/c5000.chrbnd.dcx", "er/game/material/allmaterial_dlc01.matbinbnd.dcx"}) {
        CAPTURE(rel);
        std::vector<uint8_t> file = test::load(test::corpus(rel));
        auto with = dcx::LazyBinder::open(file);
        REQUIRE_MESSAGE(with, with.error().to_string());
        auto without = dcx::LazyBinder::open(file, {}, bnd::ReadOptions{.member_paths = false});
        REQUIRE_MESSAGE(without, without.error().to_string());
        const auto& a = with->binder().entries;
        const auto& b = without->binder().entries;
        REQUIRE(a.size() == b.size());
        CHECK(without->binder().headers_end == with->binder().headers_end);
        for (size_t i = 0; i < a.size(); ++i) {
            CAPTURE(i);
            CHECK(b[i].name == a[i].name);
            CHECK(b[i].id == a[i].id);
            CHECK(b[i].flags == a[i].flags);
            CHECK(b[i].data_offset == a[i].data_offset);
            CHECK(b[i].stored_size == a[i].stored_size);
            CHECK(b[i].uncompressed_size == a[i].uncompressed_size);
            CHECK_FALSE(a[i].path.empty());  // the default still sanitises every name
            CHECK(b[i].path.empty());
            ++entries;
        }
        // A member reads the same through either.
        auto x = with->member_bytes(a.back());
        auto y = without->member_bytes(b.back());
        REQUIRE(x);
        REQUIRE(y);
        CHECK(*x == *y);
    }
    CHECK(entries >= 100);
}
