// One crafted stream per distinct Kraken error message (docs/containers.md#errors). Each stream
// is built by hand from the spec's byte layouts (kraken_craft.h); the expected outcome (rejection, and the
// reason) comes from the spec's rule that the stream breaks.
#include <doctest/doctest.h>

// GCC 12 reports a false -Wrestrict inside libstdc++ for `"literal" + std::string` (GCC bug
// 105329); the bit strings below are built that way.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

#include <algorithm>
#include <string>
#include <vector>

#include "drape/dcx/kraken.h"
#include "kraken_craft.h"

using namespace drape;
using namespace kraft;

namespace {

// "0101..." bit strings in MF order, padded with zeros to whole bytes.
Buf mf(const std::string& bits) {
    MsbBits w;
    for (char ch : bits) w.bit(ch == '1');
    return w.bytes;
}
// The same bits for an MB reader: bytes in reverse order (the last byte is read first).
Buf mb(const std::string& bits) {
    Buf b = mf(bits);
    return Buf(b.rbegin(), b.rend());
}
std::string ones(size_t n) { return std::string(n, '1'); }
std::string zeros(size_t n) { return std::string(n, '0'); }
std::string bin(uint32_t v, unsigned n) {
    std::string s;
    for (unsigned i = n; i-- > 0;) s += ((v >> i) & 1) ? '1' : '0';
    return s;
}
Buf fill(size_t n, uint8_t v = 0) { return Buf(n, v); }

struct Case {
    const char* what;
    Buf stream;
    size_t size;
    const char* reason;         // expected substring of the error reason
    const char* field = "";     // expected substring of the error field
};

void run(const Case& c) {
    const std::string what = c.what;
    CAPTURE(what);
    std::vector<uint8_t> out(c.size + 64, 0xA5);
    auto r = kraken::decompress(c.stream, std::span<uint8_t>(out.data(), c.size), 1);
    REQUIRE_FALSE(r);
    const Error& e = r.error();
    CHECK_MESSAGE(e.reason.find(c.reason) != std::string::npos, e.to_string());
    CHECK_MESSAGE(e.field.find(c.field) != std::string::npos, e.to_string());
    CHECK(e.field.rfind("kraken", 0) == 0);
    CHECK(e.has_offset);
    CHECK(e.offset <= c.stream.size());
    REQUIRE(std::all_of(out.begin() + long(c.size), out.end(), [](uint8_t b) { return b == 0xA5; }));
}

Buf decode_ok(const Buf& stream, size_t size) {
    std::vector<uint8_t> out(size + 64, 0xA5);
    auto r = kraken::decompress(stream, std::span<uint8_t>(out.data(), size), 1);
    REQUIRE_MESSAGE(r, r.error().to_string());
    REQUIRE(std::all_of(out.begin() + long(size), out.end(), [](uint8_t b) { return b == 0xA5; }));
    out.resize(size);
    return out;
}

// 6.7 base: list form, 'a' = "0", 'b' = "1"; 30 symbols, 10 per stream, all zero bits.
Buf huff_desc() { return list2('a', 'b').bytes; }  // 29 bits -> 4 bytes
Buf huff_section() { return {0x02, 0x00, 0, 0, 0, 0, 0, 0}; }
Buf entropy(const Buf& arr) { return block(arr); }

// 7.2 sparse-form tANS header: T = 8, one weight 'a' = 128, last 'b' = 128.
std::string tans_sparse_bits() { return "0" + bin(0, 2) + "0" + bin(0, 3) + bin(8, 4) + bin('a', 8) + bin(128, 8) + bin('b', 8); }

// LZ base: one command 0x3C (no literals, match length code 15 -> 14 + (200 + 3) = 217,
// distance R0 = 8) after the raw prefix: 225 bytes.
Lz lz_base() {
    Lz z;
    z.cmds = stored({0x3C});
    z.lcodes = stored({200});
    return z;
}

}  // namespace

TEST_CASE("kraken crafted: valid hand-built streams decode to hand-computed bytes") {
    // Memset block (3.5 special quantum): 16 copies of 0x41.
    CHECK(decode_ok({0x8C, 0x06, 0x07, 0xFF, 0xFF, 0x41}, 16) == fill(16, 0x41));
    // Huffman list form: 30 x 'a'.
    CHECK(decode_ok(entropy(array(2, 30, cat({huff_desc(), huff_section()}))), 30) == fill(30, 'a'));
    // Split Huffman: two halves of 15, each {sA = 1, A, B, C}.
    Buf half = {0x01, 0x00, 0x00, 0x00, 0x00};
    CHECK(decode_ok(entropy(array(4, 30, cat({huff_desc(), {0x05, 0x00, 0x00}, half, half}))), 30) == fill(30, 'a'));
    // tANS: state 0 is 'a' with nb = 1, base 0 and all data bits are 0: 20 x 'a', then the
    // five final states (0).
    Buf tans = cat({mf(tans_sparse_bits()), fill(9)});
    Buf expect = cat({fill(20, 'a'), fill(5, 0)});
    CHECK(decode_ok(entropy(array(1, 25, tans)), 25) == expect);
    // RLE with a prefix array (stored short {0xFF}): command 0xFF = 15 run bytes of 0.
    CHECK(decode_ok(entropy(array(3, 15, {0x80, 0x01, 0xFF})), 15) == fill(15, 0));
    // LZ: "ABCDEFGH" repeated by a distance-8 match.
    Buf lz = decode_ok(lz_base().stream(), 225);
    for (size_t i = 0; i < lz.size(); ++i) REQUIRE(lz[i] == uint8_t('A' + i % 8));
    // LZ with more commands than the fast loop leaves to its end-checked form (16): 20
    // commands 0x00 (no literals, a 2-byte match at R0 = 8) after the raw prefix, so the loop
    // without the per-command output check runs the first 4.
    Lz many;
    many.cmds = stored(Buf(20, 0x00));
    Buf lz20 = decode_ok(many.stream(), 48);
    for (size_t i = 0; i < lz20.size(); ++i) REQUIRE(lz20[i] == uint8_t('A' + i % 8));
}

TEST_CASE("kraken errors: framing") {
    const Case cases[] = {
        {"empty input", {}, 16, "truncated", "block[0].header"},
        {"magic nibble", {0x8D, 0x06, 0, 0, 0}, 16, "magic nibble", "block[0].header"},
        {"reserved bits", {0xBC, 0x06, 0, 0, 0}, 16, "reserved bits", "block[0]"},
        {"other codec", {0x8C, 0x0A, 0, 0, 0}, 16, "Oodle Mermaid/Selkie (decoder type 10) is not implemented by drape",
         "block[0].header"},
        {"unnamed codec", {0x8C, 0x07, 0, 0, 0}, 16, "Oodle decoder type 7 (not Kraken", "block[0].header"},
        {"raw block short", {0xCC, 0x06, 1, 2, 3}, 16, "uncompressed block needs 16 B", "block[0].raw"},
        {"quantum header short", {0x8C, 0x06, 0x00}, 16, "truncated quantum header", "block[0].quantum"},
        {"special kind", {0x8C, 0x06, 0x0B, 0xFF, 0xFF, 0x00}, 16, "special quantum header with kind 2", "quantum"},
        {"memset fill", {0x8C, 0x06, 0x07, 0xFF, 0xFF}, 16, "lacks its fill byte", "quantum"},
        {"checksum short", {0x8C, 0x86, 0x00, 0x00, 0x05, 0x01}, 16, "truncated quantum checksum", "quantum"},
        {"Q > N", cat({{0x8C, 0x06, 0x00, 0x00, 0x09}, fill(10)}), 4, "exceeds block size 4", "quantum"},
        {"Q > input", cat({{0x8C, 0x06, 0x00, 0x00, 0x09}, fill(5)}), 100, "(truncated)", "quantum"},
        {"input left over", {0x8C, 0x06, 0x07, 0xFF, 0xFF, 0x41, 0x00}, 16, "1 B of input left", "kraken.end"},
        {"second block", {0x8C, 0x06, 0x07, 0xFF, 0xFF, 0x41, 0x8D, 0x06}, 0x40001, "magic nibble", "block[1].header"},
    };
    for (const Case& c : cases) run(c);
}

TEST_CASE("kraken errors: quanta and chunks") {
    const Case cases[] = {
        {"< 4 B for a chunk", block({0x80, 0x00, 0x01}), 100, "fewer than 4 B left", "chunk[0]"},
        {"S > quantum", block(cat({chunk_header(40, 0), fill(10)})), 100, "exceeds the 10 B left", "chunk[0]"},
        {"S > M", block(cat({chunk_header(0x20001, 0), fill(0x20001)})), 0x30000, "exceeds its output size 131072", "chunk[0]"},
        {"stored mode", block(cat({chunk_header(0x20000, 1), fill(0x20000)})), 0x20010, "stored chunk with mode 1", "chunk[0]"},
        {"LZ mode", block(cat({chunk_header(20, 2), fill(20)})), 100, "LZ chunk mode 2", "chunk[0]"},
        {"quantum left over", block(cat({array(3, 16, {0xAA}), {0, 0}})), 16, "quantum has 2 B left over", "block[0]"},
        {"entropy-only size", block(array(3, 15, {0xAA})), 16, "entropy-only chunk decodes to 15 B", "chunk[0].array"},
    };
    for (const Case& c : cases) run(c);
}

TEST_CASE("kraken errors: array headers") {
    Buf five = {0x80, 0x05, 'a', 'b', 'c', 'd', 'e'};  // stored, short form
    const Case cases[] = {
        {"no header byte", entropy(array(5, 40, cat({{0x03}, five, five}))), 40, "array header: no bytes left", "array.part[2]"},
        {"header truncated", entropy(array(5, 40, cat({{0x02}, five, {0x80}}))), 40, "array header: truncated", "array.part[1]"},
        {"stored > 0x3FFFF", entropy({0x04, 0x00, 0x00, 0x00}), 16, "exceeds 0x3FFFF", "chunk[0].array"},
        {"type 6", entropy({0x60, 0, 0, 0, 0}), 16, "invalid array type 6", "array"},
        {"C >= D", entropy(cat({long_header(2, 20, 16), fill(20)})), 64, "is not below decoded size 16", "array"},
        {"C > input", entropy(cat({long_header(2, 30, 64), fill(5)})), 64, "exceeds the 5 B left", "array"},
        {"D > capacity", entropy(array(3, 17, {0xAA})), 16, "exceeds capacity 16", "array"},
    };
    for (const Case& c : cases) run(c);
}

TEST_CASE("kraken errors: Huffman") {
    auto huff = [](const std::string& desc_bits, const Buf& rest = fill(8), uint32_t d = 100) {
        return entropy(array(2, d, cat({mf(desc_bits), rest})));
    };
    const std::string run_k0 = "0" "1" "00";  // run form, k = 0
    const std::string list = "00";
    const std::string range = "10";
    // Run-count code G for count c (c >= 1): z zeros then the (z+2)-bit value c + 1.
    auto g = [](uint32_t c) {
        uint32_t x = c + 1;
        unsigned nb = unsigned(32 - __builtin_clz(x));
        return zeros(nb - 2) + bin(x, nb);
    };
    Buf half = {0x01, 0x00, 0x00, 0x00, 0x00};
    const Case cases[] = {
        {"selector 11", huff("11"), 100, "selector 11 is invalid", "chunk[0].array"},
        {"run count prefix", huff(run_k0 + "1" + zeros(8) + "1"), 100, "run count prefix too long"},
        {"run past 256", huff(run_k0 + "1" + zeros(7) + bin(0x1FF, 9)), 100, "symbol run passes 256"},
        {"length prefix", huff("0" "1" "11" "1" + g(2) + "0001"), 100, "code length prefix too long"},
        {"run length > 11", huff(run_k0 + "1" + g(2) + zeros(8) + "1"), 100, "code length 12 outside 1..11"},
        {"runs cover > 256", huff(run_k0 + "0" + zeros(7) + bin(0x1FF, 9)), 100, "runs cover 510 symbols"},
        {"run single symbol", huff(run_k0 + "1" + g(1) + "1" + g(255)), 100, "single-symbol Huffman array"},
        {"list zero", huff(list + bin(0, 8)), 100, "list form: zero symbols"},
        {"list width", huff(list + bin(2, 8) + bin(5, 3)), 100, "length width 5 exceeds 4"},
        {"list length", huff(list + bin(2, 8) + bin(4, 3) + bin('a', 8) + bin(15, 4)), 100, "code length 16 exceeds 11"},
        {"range unary", huff(range + "00" + bin(3, 8), {0, 0, 0}, 100), 100, "unary values run past the array"},
        {"range remainders", entropy(array(2, 100, mf(range + "01" + bin(255, 8) + ones(256)))), 100,
         "remainders run past the array"},
        {"range single", huff(range + "00" + bin(0, 8) + "0" + "1"), 100, "single-symbol Huffman array"},
        {"range u > 255", huff(range + "00" + bin(1, 8) + "00" + zeros(256) + "1" + "1", fill(40)), 100, "length value too large"},
        {"range v > 255", huff(range + "01" + bin(1, 8) + "00" + zeros(128) + "1" + "1" + "0" + "0"), 100,
         "length value 256 exceeds 255"},
        {"range length", huff(range + "00" + bin(1, 8) + "00" + zeros(8) + "1" + "1"), 100, "code length 12 outside 1..11"},
        {"range first param", huff(range + "00" + bin(1, 8) + "01" + "1" + "1" + zeros(8) + "1"), 100,
         "first-symbol parameter 8 exceeds 7"},
        {"range params", huff(range + "00" + bin(1, 8) + "10" + "1" + "1" + zeros(9) + "1" + "1"), 100,
         "parameters 9/0 exceed 8/7"},
        {"range past", huff(range + "00" + bin(1, 8) + "10" + "1" + "1" + zeros(8) + "1" + "1" + zeros(8) + "0"), 100,
         "symbol range runs past"},
        {"range fit", huff(range + "00" + bin(1, 8) + "01" + "1" + "1" + zeros(7) + "1" + bin(1, 8)), 100,
         "symbol ranges do not fit"},
        {"description past end", entropy(array(2, 30, {0x02, 0x00, 0x30})), 30, "code description runs past the array"},
        {"over-subscribed", huff(list + bin(3, 8) + bin(0, 3) + bin('a', 8) + bin('b', 8) + bin('c', 8)), 100,
         "over-subscribed"},
        {"incomplete", huff(list + bin(2, 8) + bin(1, 3) + bin('a', 8) + "0" + bin('b', 8) + "1"), 100, "incomplete"},
        {"section < 3", entropy(array(2, 30, cat({huff_desc(), {0x00, 0x00}}))), 30, "section of 2 B is below 3 B"},
        {"stream A size", entropy(array(2, 30, cat({huff_desc(), {0xFF, 0x00, 0, 0}}))), 30, "stream A size 255 exceeds"},
        {"stream A used", entropy(array(2, 30, cat({huff_desc(), {0x03, 0x00, 0, 0, 0, 0, 0, 0, 0}}))), 30,
         "stream A used 2 B of 3"},
        {"streams B C used", entropy(array(2, 30, cat({huff_desc(), {0x02, 0x00, 0, 0, 0, 0, 0, 0, 0}}))), 30,
         "streams B and C used 2 + 2 B of 5"},
        {"split < 6", entropy(array(4, 30, cat({huff_desc(), {0x05, 0x00, 0x00, 0x01, 0x00}}))), 30, "split stream section of 5 B"},
        {"split half 1 size", entropy(array(4, 30, cat({huff_desc(), {0x64, 0x00, 0x00}, half, half}))), 30,
         "first half size 100 exceeds"},
        {"split half 1 small", entropy(array(4, 30, cat({huff_desc(), {0x04, 0x00, 0x00}, half, half}))), 30,
         "first half too small"},
        {"split half 2 small", entropy(array(4, 30, cat({huff_desc(), {0x05, 0x00, 0x00}, half, {0x01, 0x00, 0x00, 0x00}}))), 30,
         "second half too small"},
    };
    for (const Case& c : cases) run(c);
}

TEST_CASE("kraken errors: tANS") {
    auto tans = [](const std::string& bits, size_t pad, uint32_t d = 100) {
        Buf p = mf(bits);
        p.resize(p.size() + pad, 0);
        return entropy(array(1, d, p));
    };
    const std::string gr = "0" "00" "1";      // reserved 0, T = 8, Golomb-Rice form
    const std::string sparse = "0" "00" "0";  // reserved 0, T = 8, sparse form
    const Case cases[] = {
        {"C < 8", entropy(array(1, 20, fill(7))), 20, "payload of 7 B is below 8 B", "chunk[0].array"},
        {"reserved bit", tans("1", 10), 100, "reserved bit is set"},
        {"one symbol", tans(gr + "000" + bin(0, 8), 10), 100, "fewer than 2 symbols"},
        {"unary past", tans(gr + "000" + bin(1, 8) + "00", 7), 100, "unary values run past the array"},
        {"rice width", tans(gr + "111" + bin(1, 8) + "00" + zeros(9) + "1" + "1", 20), 100, "Rice width 16 exceeds 15"},
        {"weights sum", tans(gr + "000" + bin(1, 8) + "00" + "1" + "1", 10), 100, "weights sum to 4, not 256"},
        {"delta width", tans(sparse + "000" + bin(0, 4), 10), 100, "delta width 0 outside 1..8"},
        {"repeated", tans(sparse + "000" + bin(8, 4) + bin('a', 8) + bin(128, 8) + bin('a', 8), 10), 100,
         "symbol 97 repeated"},
        {"zero weight", tans(sparse + "000" + bin(8, 4) + bin('a', 8) + bin(0, 8), 10), 100, "zero weight"},
        {"last weight", tans(sparse + "000" + bin(8, 4) + bin('a', 8) + bin(255, 8) + bin('b', 8), 10), 100,
         "last weight invalid"},
        {"header past",
         entropy(array(1, 30, mf((sparse + "011" + bin(8, 4) + bin(1, 8) + bin(1, 8) + bin(2, 8) + bin(0, 8) + bin(3, 8) + bin(0, 8) +
                                  bin(0x20, 8)).substr(0, 64)))),
         30, "tANS header runs past the array"},
        {"data empty",
         entropy(array(1, 30, mf(sparse + "111" + bin(1, 4) + bin('a', 8) + "1" + bin('b', 8) + "0" + bin('c', 8) + "0" + bin('d', 8) + "0" +
                                 bin('e', 8) + "0" + bin('f', 8) + "0" + bin('g', 8) + "0" + bin('h', 8) + "0" + bin('i', 8)))),
         30, "tANS data is empty"},
        {"final state",
         entropy(array(1, 25, cat({mf("0" "01" "0" "000" + bin(9, 4) + bin('a', 8) + bin(256, 9) + bin('b', 8)), {0xFF, 0x01}, fill(6)}))),
         25, "final state"},
        {"streams used", entropy(array(1, 25, cat({mf(tans_sparse_bits()), fill(10)}))), 25, "tANS streams used 5 + 4 B of 10"},
    };
    for (const Case& c : cases) run(c);
}

TEST_CASE("kraken errors: RLE") {
    const Case cases[] = {
        {"empty", entropy(array(3, 16, {})), 16, "RLE array payload is empty", "chunk[0].array"},
        {"run byte missing", entropy(array(3, 16, {0x00, 0x01})), 16, "run-byte command has no byte left"},
        {"two-byte overlap", entropy(array(3, 16, {0x00, 0x10})), 16, "two-byte command overlaps"},
        {"literals pass", entropy(array(3, 16, {0x00, 0x00})), 16, "literal copy passes the command cursor"},
        {"output exceeds", entropy(array(3, 10, {0x00, 'x', 0xFF})), 10, "RLE output exceeds the decoded size 10"},
        {"short output", entropy(array(3, 16, {0x00, 0xFF})), 16, "RLE produced 15 B, not 16"},
        {"prefix error", entropy(array(3, 16, {0x60, 0x00})), 16, "invalid array type 6", "array.rle_prefix"},
    };
    for (const Case& c : cases) run(c);
}

TEST_CASE("kraken errors: recursive arrays") {
    Buf five = {0x80, 0x05, 'a', 'b', 'c', 'd', 'e'};
    auto mixed = [&](const Buf& after_source) { // 0xC1: interval-mixed, k = 1; bit 6 keeps k7 = b & 0x7F >= 2 (9: k7 >= 2 is required).
        return entropy(array(5, 40, cat({{0xC1}, five, after_source}))); };
    // Unpacked (Qw bit 15 clear) with V bytes of bit region.
    auto unpacked = [&](const Buf& sel, const Buf& wid, const Buf& region, int v = -1) {
        uint16_t qv = uint16_t(v < 0 ? region.size() : size_t(v));
        return mixed(cat({{uint8_t(qv), uint8_t(qv >> 8)}, stored(sel), stored(wid), region}));
    };
    // 17 nested RLE prefixes around a stored array.
    Buf deep = {0x80, 0x01, 0xFF};
    for (int i = 0; i < 18; ++i) deep = array(3, 1000, deep);
    const Case cases[] = {
        {"C < 6", entropy(array(5, 40, {0x02, 0, 0, 0, 0})), 40, "payload of 5 B is below 6 B", "chunk[0].array"},
        {"count < 2", entropy(array(5, 40, {0x01, 0, 0, 0, 0, 0})), 40, "count 1 is below 2"},
        {"parts short", entropy(array(5, 40, cat({{0x02}, five, five}))), 40, "parts produce 10 B, not 40"},
        {"parts end early", entropy(array(5, 40, cat({{0x02}, array(3, 20, {0x41}), array(3, 20, {0x42}), {0}}))), 40,
         "end 1 B before the payload end"},
        {"k0 left over", entropy(array(5, 40, cat({{0xC0}, {0x30, 0x00, 0x9C, 0x00, 0x01, 0x41}, {0}}))), 40,
         "mixed single size/end", "array.single"},
        {"no Qw room", mixed({0x00}), 40, "no room for the bit-region size"},
        {"G < 2", mixed({0x00, 0x00, 0x80, 0x01, 0x01}), 40, "selector count 1 is below 2", "array.selectors"},
        {"widths size", unpacked({1, 0}, {}, {}), 40, "widths decode to 0 B, not 1", "array.widths"},
        {"width > 16", unpacked({1, 0}, {17}, {}), 40, "width 17 exceeds 16"},
        {"region > payload", unpacked({1, 0}, {2}, {}, 10), 40, "bit region of 10 B exceeds"},
        {"region short", unpacked({1, 0}, {2}, {0x40, 0x00}, 1), 40, "bit region ends before the payload end"},
        {"last selector", unpacked({1, 1}, {2}, {0x40}), 40, "last selector is not 0"},
        {"selector > k", unpacked({2, 0}, {2}, {0x40}), 40, "selector 2 exceeds source count 1"},
        {"source runs out", unpacked({1, 0}, {3}, {0x00}), 40, "source 1 runs out"},
        {"values past region", unpacked({1, 0}, {2}, {}), 40, "values run past the bit region", "array.bits"},
        {"early 0 selector", unpacked({0, 0}, {2}, {0x40}), 40, "a 0 selector comes before the last one"},
        {"source unused", unpacked({1, 0}, {2}, {0x00}), 40, "source 1 not used up"},
        {"short output", unpacked({1, 0}, {2}, {0x40}), 40, "mixed array produced 5 B, not 40"},
        {"nesting", entropy(deep), 1000, "nested deeper than 16"},
    };
    for (const Case& c : cases) run(c);
}

TEST_CASE("kraken errors: LZ chunks") {
    auto with = [](auto edit) {
        Lz z = lz_base();
        edit(z);
        return z.stream();
    };
    // Bit region from an F bit string and a B bit string.
    auto region = [](const std::string& f, const std::string& b) { return cat({mf(f), mb(b)}); };
    // 513 long lengths: K = x - 1 with x = 514 (10 bits), so 9 zeros first.
    const std::string k513 = zeros(9) + bin(514, 10);
    const Case cases[] = {
        {"S < 13", block(cat({chunk_header(12, 1), fill(12)})), 100, "LZ chunk of 12 B is below 13 B", "chunk[0]"},
        {"flag byte", with([](Lz& z) { z.lits = {0x80, 0x00}; }), 225, "LZ flag byte (excess bytes) unsupported"},
        {"no distance arrays", block(cat({chunk_header(16, 1), fill(8, 'A'), stored({}), stored({}), {0x00, 0x00}})), 100,
         "fewer than 3 B left for the distance arrays"},
        {"remainder count", with([](Lz& z) { z.sigma_byte = 0x82; z.dcodes = stored({0x00}); z.drem = stored({}); }), 225,
         "distance remainders: 0 for 1 distances", "distance_remainders"},
        {"K prefix", with([&](Lz& z) { z.bits = fill(4); }), 225, "long-length count prefix too long", "chunk[0].bits"},
        {"K > 512", with([&](Lz& z) { z.bits = region("", k513); }), 225, "long-length count 513 exceeds 512", "bits"},
        {"scaled exponent", with([&](Lz& z) { z.sigma_byte = 0x80; z.dcodes = stored({0xD8}); }), 225,
         "scaled exponent 27 exceeds 26", "bits"},
        {"distance > 32 bits",
         with([&](Lz& z) { z.sigma_byte = 0xFF; z.dcodes = stored({0xD7}); z.drem = stored({0}); z.bits = region(ones(26), "1"); }),
         225, "exceeds 32 bits", "bits"},
        {"long length prefix", with([&](Lz& z) { z.bits = region(zeros(16), "010"); }), 225, "long length prefix too long", "bits"},
        {"region mismatch", with([&](Lz& z) { z.bits = {0x00, 0x80}; }), 225, "streams used 0 + 1 B of 2", "bits"},
        {"255 without K", with([&](Lz& z) { z.lcodes = stored({255}); }), 225, "more 255 length codes than long lengths", "bits"},
        {"K unused", with([&](Lz& z) { z.bits = region("1000000", "010"); }), 225, "long lengths unused: 1", "bits"},
        {"length list", with([&](Lz& z) { z.lcodes = stored({}); }), 225, "length list exhausted", "chunk[0].execute"},
        {"literal list", with([&](Lz& z) { z.cmds = stored({0x01}); }), 225, "literal list exhausted", "execute"},
        {"literals past E",
         with([&](Lz& z) { z.cmds = stored({0x03}); z.lcodes = stored({92}); z.lits = array(3, 95, {0x41}); }), 100,
         "literals pass the chunk end", "execute"},
        {"distance list", with([&](Lz& z) { z.cmds = stored({0xFC}); }), 225, "distance list exhausted", "execute"},
        {"distance < 8",
         with([&](Lz& z) { z.sigma_byte = 0x80; z.dcodes = stored({0x00}); z.cmds = stored({0xFC}); }), 225,
         "distance 0 is below 8", "execute"},
        {"distance > window",
         with([&](Lz& z) { z.dcodes = stored({0x00}); z.cmds = stored({0xFC}); z.bits = region("0001", "1"); }), 225,
         "distance 24 reaches before the window", "execute"},
        {"match past E", with([](Lz&) {}), 100, "match passes the chunk end", "execute"},
        // The same errors in the first of 20 commands (each writing 2 bytes: the fast loop
        // without the output check takes the first 4).
        {"distance > window, 20 commands",
         with([&](Lz& z) {
             Buf c(20, 0x00);
             c[0] = 0xC0;
             z.cmds = stored(c);
             z.lcodes = stored({});
             z.dcodes = stored({0x00});
             z.bits = region("0001", "1");
         }),
         48, "command 0: distance 24 reaches before the window", "execute"},
        {"literal list, 20 commands",
         with([&](Lz& z) {
             Buf c(20, 0x00);
             c[0] = 0x01;
             z.cmds = stored(c);
             z.lcodes = stored({});
         }),
         49, "command 0: literal list exhausted", "execute"},
        {"distance unused", with([&](Lz& z) { z.dcodes = stored({0x00}); z.bits = region("0000", "1"); }), 225,
         "1 distances unused", "execute"},
        {"length unused", with([&](Lz& z) { z.lcodes = stored({200, 5}); }), 225, "1 lengths unused", "execute"},
        {"trailing literals", with([&](Lz& z) { z.lits = stored({'x'}); }), 225, "trailing literals: 1 left for 0", "execute"},
        {"array error names the stream", with([&](Lz& z) { z.cmds = {0x60, 0, 0, 0, 0}; }), 225, "invalid array type 6",
         "chunk[0].commands"},
    };
    for (const Case& c : cases) run(c);
}

// A block header whose magic nibble is right but whose decoder type is not 6
// is another Oodle codec's stream (docs/containers.md#other-oodle-codecs: 5 LZNA, 10 Mermaid/Selkie,
// 11 BitKnit, 12 Leviathan; a real 480-byte Elden Ring chrbnd carries type 2). The error names
// the codec, never calls it invalid, and says to pass the game's Oodle library.
TEST_CASE("kraken errors: decoder types drape does not implement are named, with what to do") {
    struct Named {
        uint8_t type;
        const char* name;
    };
    const Named named[] = {{5, "LZNA"}, {10, "Mermaid/Selkie"}, {11, "BitKnit"}, {12, "Leviathan"}};
    for (const Named& n : named) {
        CAPTURE(int(n.type));
        // Restart block, checksum bit clear and set: the type is bits 0-6 of byte 1.
        for (uint8_t checksum : {uint8_t(0), uint8_t(0x80)}) {
            std::vector<uint8_t> out(480);
            Buf stream = cat({{0x8C, uint8_t(n.type | checksum)}, fill(400, 0x11)});
            auto r = kraken::decompress(stream, out, 1);
            REQUIRE_FALSE(r);
            const std::string expect = std::string("Oodle ") + n.name + " (decoder type " + std::to_string(n.type) +
                                       ") is not implemented by drape; pass --oodle with the game's oo2core library";
            CHECK_MESSAGE(r.error().reason.rfind(expect, 0) == 0, r.error().to_string());
            CHECK(r.error().field == "kraken.block[0].header");
            CHECK(r.error().offset == 1);
            CHECK(r.error().reason.find("invalid") == std::string::npos);
        }
    }
    // Type 2, as in the real file: a 2-block stream whose second block is the foreign one
    // (block 0 a memset block), so the error names block 1 and its offset.
    for (uint8_t type : {uint8_t(0), uint8_t(2), uint8_t(7), uint8_t(127)}) {
        CAPTURE(int(type));
        std::vector<uint8_t> out(0x40000 + 480);
        Buf stream = cat({{0x8C, 0x06, 0x07, 0xFF, 0xFF, 0x41}, {0x8C, type}, fill(400, 0x22)});
        auto r = kraken::decompress(stream, out, 1);
        REQUIRE_FALSE(r);
        const std::string expect = "Oodle decoder type " + std::to_string(type) + " (not Kraken";
        CHECK_MESSAGE(r.error().reason.rfind(expect, 0) == 0, r.error().to_string());
        CHECK(r.error().reason.find("is not implemented by drape; pass --oodle with the game's oo2core library") !=
              std::string::npos);
        CHECK(r.error().field == "kraken.block[1].header");
        CHECK(r.error().offset == 7);
    }
    CHECK(std::string(kraken::codec_name(6)) == "Kraken");
    CHECK(kraken::codec_name(2) == nullptr);
}
