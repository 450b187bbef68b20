#include <doctest/doctest.h>

#include <cstring>

#include "drape/io/file.h"
#include "drape/io/reader.h"

using namespace drape;

TEST_CASE("io: little and big endian scalars") {
    const uint8_t b[] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
    ByteReader le(b);
    CHECK(le.u16("a") == 0x0201);
    CHECK(le.u32("b") == 0x06050403u);
    CHECK(le.pos() == 6);
    ByteReader be(b, 0, true);
    CHECK(be.u32("c") == 0x01020304u);
    CHECK(be.u32("d") == 0x05060708u);
    CHECK_FALSE(be.failed());
}

TEST_CASE("io: the first failure sticks and names offset and field") {
    const uint8_t b[] = {1, 2, 3};
    ByteReader r(b, 0x100);
    CHECK(r.u16("first") == 0x0201);
    CHECK(r.u32("second") == 0);
    CHECK(r.failed());
    CHECK(r.error().offset == 0x102);
    CHECK(r.error().field == "second");
    CHECK(r.error().reason == "truncated: needs 4 B, 1 B left");
    CHECK(r.u8("third") == 0);
    CHECK(r.error().field == "second");  // unchanged
    Error e = r.error();
    e.chain = {"c1000.chrbnd.dcx", "c1000.flver"};
    CHECK(e.to_string() == "c1000.chrbnd.dcx > c1000.flver @0x102 second: truncated: needs 4 B, 1 B left");
}

TEST_CASE("io: check_count refuses counts before allocation, including overflow") {
    uint8_t b[16] = {};
    ByteReader r(b);
    CHECK(r.check_count(4, 4, "ok"));
    CHECK_FALSE(r.check_count(0xFFFFFFFFull, 32, "mesh_count"));
    CHECK(r.error().reason == "4294967295 x 32 B exceeds 16 B left");
    ByteReader r2(b);
    CHECK_FALSE(r2.check_count(UINT64_MAX, 2, "overflow"));
}

TEST_CASE("io: slices keep absolute offsets and are bounded") {
    uint8_t b[32];
    for (int i = 0; i < 32; ++i) b[i] = uint8_t(i);
    ByteReader r(b, 0x1000);
    ByteReader s = r.slice(8, 4, "table");
    CHECK(s.u8("x") == 8);
    CHECK(s.u32("y") == 0);
    CHECK(s.error().offset == 0x1009);
    ByteReader bad = r.slice(30, 4, "table2");
    CHECK(bad.failed());
    CHECK(r.failed());
    CHECK(r.error().reason == "range 0x101E+0x4 is outside 0x1000..0x1020");
}

TEST_CASE("io: magic, expect, seek and strings") {
    const uint8_t b[] = {'B', 'N', 'D', '4', 7, 0, 0, 0, 'a', 'b', 0, 'x', 0, 'y', 0, 0, 0};
    ByteReader r(b);
    CHECK(r.expect_magic("BND4", "magic"));
    CHECK(r.expect<uint32_t>(7, "seven"));
    std::string s;
    CHECK(r.read_cstring_at(8, s, "name"));
    CHECK(s == "ab");
    CHECK(r.read_utf16z_at(11, s, "wname"));
    CHECK(s == "xy");
    CHECK_FALSE(r.seek(100, "seek"));
    CHECK(r.error().reason == "offset 0x64 is past the end (0x11)");
    ByteReader r2(b);
    CHECK_FALSE(r2.expect_magic(std::string_view("DCX\0", 4), "magic"));
    CHECK(r2.error().reason == "bad magic: expected \"DCX\\0\", found \"BND4\"");
    ByteReader r3(b);
    CHECK_FALSE(r3.expect<uint32_t>(8, "eight"));
    CHECK(r3.error().reason == "expected 0x8, found 0x34444E42");
    const uint8_t unterminated[] = {'a', 'b'};
    ByteReader r4(unterminated);
    CHECK_FALSE(r4.read_cstring_at(0, s, "u"));
    CHECK(r4.error().reason == "unterminated string");
    ByteReader r5(unterminated);
    CHECK_FALSE(r5.read_utf16z_at(0, s, "u"));
    CHECK(r5.error().reason == "unterminated UTF-16 string");
    ByteReader r6(unterminated);
    CHECK_FALSE(r6.read_cstring_at(5, s, "u"));
    CHECK(r6.error().reason == "string offset 0x5 is past the end");
}

TEST_CASE("io: Shift-JIS and UTF-16 conversion") {
    // "キャラ" in Shift-JIS (CP932).
    const uint8_t sjis[] = {0x83, 0x4C, 0x83, 0x83, 0x83, 0x89};
    CHECK(sjis_to_utf8(sjis) == "\xE3\x82\xAD\xE3\x83\xA3\xE3\x83\xA9");
    bool ok = false;
    CHECK(utf8_to_sjis("\xE3\x82\xAD\xE3\x83\xA3\xE3\x83\xA9", &ok) == std::string(reinterpret_cast<const char*>(sjis), 6));
    CHECK(ok);
    // Surrogate pair U+1F600 and an unpaired surrogate.
    const uint8_t u16[] = {0x3D, 0xD8, 0x00, 0xDE, 0x00, 0xD8};
    CHECK(utf16_to_utf8(u16, false) == "\xF0\x9F\x98\x80\xEF\xBF\xBD");
    // An ASCII prefix, then the rest code point by code point (U+00E9, U+4E2D), big endian too.
    const uint8_t mixed_le[] = {'a', 0, 'b', 0, 0xE9, 0x00, 'c', 0, 0x2D, 0x4E};
    CHECK(utf16_to_utf8(mixed_le, false) == "ab\xC3\xA9" "c\xE4\xB8\xAD");
    const uint8_t mixed_be[] = {0, 'a', 0x00, 0xE9, 0, 'z'};
    CHECK(utf16_to_utf8(mixed_be, true) == "a\xC3\xA9z");
    const uint8_t ascii[] = {'N', 0, ':', 0, '\\', 0};
    CHECK(utf16_to_utf8(ascii, false) == "N:\\");
    CHECK(utf16_to_utf8({}, false).empty());
    auto back = utf8_to_utf16("\xF0\x9F\x98\x80" "a");
    CHECK(back.size() == 3);
}

TEST_CASE("io: hostile member names never leave the output folder") {
    CHECK(sanitize_member_path("N:\\GR\\data\\INTERROOT_win64\\chr\\c3000\\c3000.hkx") ==
          "GR/data/INTERROOT_win64/chr/c3000/c3000.hkx");
    CHECK(sanitize_member_path("..\\..\\..\\etc\\passwd") == "etc/passwd");
    CHECK(sanitize_member_path("/abs/path") == "abs/path");
    CHECK(sanitize_member_path("C:/Windows/system32") == "Windows/system32");
    CHECK(sanitize_member_path(std::string("a\0b/../c", 8)) == "ab/c");
    CHECK(sanitize_member_path("") == "unnamed");
    CHECK(sanitize_member_path("..") == "unnamed");
    CHECK(sanitize_member_path("a/./b//c") == "a/b/c");
    CHECK(sanitize_member_path("x:y|z?.txt") == "x_y_z_.txt");
    CHECK(sanitize_member_path("dir/...") == "dir");
    // A drive is dropped only as the first component kept.
    CHECK(sanitize_member_path("x/N:/y") == "x/N_/y");
    CHECK(sanitize_member_path("N:") == "unnamed");
    // Dropped components leave no separator behind; trailing dots and spaces go per component.
    CHECK(sanitize_member_path("a/ . /b. /..\\c") == "a/b/c");
    CHECK(sanitize_member_path("../N:/x") == "x");
    CHECK(sanitize_member_path("a\\\\\x01/b") == "a/b");
    CHECK(sanitize_member_path("../N:/y") == "y");
    CHECK(sanitize_member_path("a \x01" "b. /c") == "a b/c");
    CHECK(sanitize_member_path("a\\b/c\\") == "a/b/c");
    for (const char* hostile : {"..\\..\\x", "/etc/passwd", "C:\\x", "a/../../b", "\\\\server\\share\\f", "...\\..\\.."}) {
        auto p = safe_join("/tmp/out", hostile);
        REQUIRE(p);
        std::string s = p->string();
        CHECK(s.rfind("/tmp/out/", 0) == 0);
    }
}
