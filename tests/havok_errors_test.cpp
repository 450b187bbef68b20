// One test per distinct error of the Havok readers: hand-built TAG0/TCM0 files and byte patches
// of a real packfile. Each must fail cleanly with its one-line message.
#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "corpus.h"
#include "drape/havok/cloth.h"
#include "drape/havok/hkx.h"
#include "tagfile_writer.h"

using namespace drape;
using namespace drape::havok;

namespace {

using Buf = std::vector<uint8_t>;

Buf sec(const char* tag, const Buf& body, bool children = false) {
    Buf b = body;
    while (b.size() % 4) b.push_back(0);
    const uint32_t size = uint32_t(b.size() + 8) | (children ? 0u : 0x40000000u);
    Buf out(8 + b.size(), 0);
    for (int i = 0; i < 4; ++i) out[size_t(i)] = uint8_t(size >> (8 * (3 - i)));
    std::memcpy(out.data() + 4, tag, 4);
    if (!b.empty()) std::memcpy(out.data() + 8, b.data(), b.size());
    return out;
}
Buf cat(std::initializer_list<Buf> parts) {
    Buf o;
    for (const auto& p : parts) o.insert(o.end(), p.begin(), p.end());
    return o;
}
Buf str(const std::string& s) { return Buf(s.begin(), s.end()); }
Buf varints(std::initializer_list<uint64_t> v) {
    Buf o;
    for (uint64_t x : v) write_varint(o, x);
    return o;
}
Buf le32(std::initializer_list<uint32_t> v) {
    Buf o;
    for (uint32_t x : v)
        for (int i = 0; i < 4; ++i) o.push_back(uint8_t(x >> (8 * i)));
    return o;
}

// A TYPE section with types: 1 "int" (Int, 4 bytes) and 2 "Rec" (a record with member "a":int).
struct Parts {
    Buf tstr = str(std::string("int\0Rec\0", 8));
    Buf tnam = varints({3, 0, 0, 1, 0});
    Buf fstr = str(std::string("a\0", 2));
    Buf tbdy = varints({1, 0, 0x09, 0x8204, 4, 4, 2, 0, 0x29, 7, 4, 4, 1, 0, 32, 0, 1, 0});
    Buf data = Buf(16, 0);
    Buf item = cat({le32({0, 0, 0}), le32({0x10000002, 0, 1})});
    std::string sdk = "20180100";
    bool with_sdkv = true, with_data = true, with_type = true, with_indx = true;
};

Buf type_section(const Parts& p) {
    return sec("TYPE", cat({sec("TSTR", p.tstr), sec("TNA1", p.tnam), sec("FSTR", p.fstr), sec("TBDY", p.tbdy)}), true);
}

Buf tagfile(const Parts& p) {
    Buf body;
    if (p.with_sdkv) body = cat({body, sec("SDKV", str(p.sdk))});
    if (p.with_data) body = cat({body, sec("DATA", p.data)});
    if (p.with_type) body = cat({body, type_section(p)});
    if (p.with_indx) body = cat({body, sec("INDX", sec("ITEM", p.item), true)});
    return sec("TAG0", body, true);
}

std::string reason_of(const Buf& b) {
    auto r = read_tagfile(b);
    if (r) return "(read)";
    CHECK(r.error().offset <= b.size());
    return r.error().reason;
}

}  // namespace

TEST_CASE("havok errors: the hand-built tagfile is valid") {
    Parts p;
    auto f = read_tagfile(tagfile(p));
    REQUIRE_MESSAGE(f, (f ? "" : f.error().to_string()));
    CHECK(f->class_name(1) == "Rec");
    CHECK(f->object(1)["a"].as_int() == 0);
}

TEST_CASE("havok errors: sections") {
    Parts p;
    Buf b = tagfile(p);
    Buf small = b;
    small[3] = 4;  // TAG0 size 4
    CHECK(reason_of(small) == "section TAG0 size 4 below 8");
    Buf big = b;
    big[2] = 0x7F;
    CHECK(reason_of(big).find("section TAG0 size ") == 0);
    CHECK(reason_of(big).find(" exceeds ") != std::string::npos);
    Buf other = b;
    std::memcpy(other.data() + 4, "TAGX", 4);
    CHECK(reason_of(other) == "not a TAG0 file");
    p.with_sdkv = false;
    CHECK(reason_of(tagfile(p)) == "missing SDKV section");
    p = Parts{};
    p.with_data = false;
    CHECK(reason_of(tagfile(p)) == "missing DATA section");
    p = Parts{};
    p.with_indx = false;
    CHECK(reason_of(tagfile(p)) == "missing INDX section");
    p = Parts{};
    p.with_type = false;
    CHECK(reason_of(tagfile(p)) == "missing TYPE and TCRF sections");
    p = Parts{};
    Buf noitem = cat({sec("SDKV", str(p.sdk)), sec("DATA", p.data), type_section(p), sec("INDX", sec("PTCH", {}), true)});
    CHECK(reason_of(sec("TAG0", noitem, true)) == "missing ITEM section");
    Buf notnam = cat({sec("SDKV", str(p.sdk)), sec("DATA", p.data), sec("TYPE", sec("TSTR", p.tstr), true), sec("INDX", sec("ITEM", p.item), true)});
    CHECK(reason_of(sec("TAG0", notnam, true)) == "no TNAM/TNA1 section");
}

TEST_CASE("havok errors: type names") {
    Parts p;
    p.tnam = varints({0});
    CHECK(reason_of(tagfile(p)) == "0 types (the null type is always counted)");
    p = Parts{};
    p.tnam = varints({3, 9, 0, 1, 0});
    CHECK(reason_of(tagfile(p)) == "string index 9 >= 2");
    p = Parts{};
    p.tnam = varints({3, 0, 1, 7, 1, 1, 0});
    CHECK(reason_of(tagfile(p)) == "string index 7 out of range");
    p = Parts{};
    p.tnam = varints({3, 0, 1, 1, 1, 1, 0});  // "Rec" as a parameter name: neither t nor v
    CHECK(reason_of(tagfile(p)) == "parameter 'Rec' is neither 't' nor 'v'");
    p = Parts{};
    p.tstr = str(std::string("int\0Rec\0tT\0", 11));
    p.tnam = varints({3, 0, 1, 2, 5, 1, 0});
    CHECK(reason_of(tagfile(p)) == "type index 5 >= 3");
}

TEST_CASE("havok errors: type bodies") {
    Parts p;
    p.tbdy = varints({5, 0, 0});
    CHECK(reason_of(tagfile(p)) == "type index 5 >= 3");
    p.tbdy = varints({1, 4, 0});
    CHECK(reason_of(tagfile(p)) == "type index 4 out of range");
    p.tbdy = varints({1, 0, 0x02, 9});
    CHECK(reason_of(tagfile(p)) == "type index 9 out of range");
    p.tbdy = varints({1, 0, 0x08, 0xFFFFFFFFull, 4});
    CHECK(reason_of(tagfile(p)) == "size 4294967295 too large");
    p.tbdy = varints({2, 0, 0x21, 7, 1, 5, 32, 0, 1});
    CHECK(reason_of(tagfile(p)) == "string index 5 >= 3");  // "a", then two empty strings of the 4-byte padding
    p.tbdy = varints({2, 0, 0x21, 7, 1, 0, 32, 0, 6});
    CHECK(reason_of(tagfile(p)) == "type index 6 out of range");
    p.tbdy = varints({2, 0, 0x21, 7, 1, 0, 32, 0x80000000ull, 1});
    CHECK(reason_of(tagfile(p)) == "offset too large");
    p.tbdy = varints({2, 0, 0x40, 1, 8, 0});
    CHECK(reason_of(tagfile(p)) == "type index out of range");
    p.tbdy = varints({2, 0, 0x80});
    CHECK(reason_of(tagfile(p)) == "attributes (opt 0x80) are not supported");
    p.tbdy = varints({2, 2, 0});
    CHECK(reason_of(tagfile(p)) == "type Rec: parent chain loops");
    // member "a" (int, 4 B) at 2 in a 4-byte record
    p.tbdy = varints({1, 0, 0x09, 0x8204, 4, 4, 2, 0, 0x29, 7, 4, 4, 1, 0, 32, 2, 1, 0});
    CHECK(reason_of(tagfile(p)) == "type Rec, member a: offset 2 + size 4 exceeds the record size 4");
}

TEST_CASE("havok errors: hashes and items") {
    Parts p;
    Buf body = cat({sec("SDKV", str(p.sdk)), sec("DATA", p.data),
                    sec("TYPE", cat({sec("TSTR", p.tstr), sec("TNA1", p.tnam), sec("FSTR", p.fstr), sec("TBDY", p.tbdy), sec("THSH", cat({varints({1, 7}), le32({0})}))}), true),
                    sec("INDX", sec("ITEM", p.item), true)});
    CHECK(reason_of(sec("TAG0", body, true)) == "type index 7 out of range");
    p.item = cat({le32({0, 0, 0}), le32({0x10000009, 0, 1})});
    CHECK(reason_of(tagfile(p)) == "type index 9 >= 3");
    p.item = cat({le32({0, 0, 0}), le32({0x10000002, 8, 3})});
    CHECK(reason_of(tagfile(p)) == "item 1 (3 x 4 B at 0x8) exceeds DATA (16 B)");
}

TEST_CASE("havok errors: compendiums") {
    Parts p;
    const Buf type = type_section(p);
    CHECK(read_compendium(sec("TCM0", cat({sec("TCID", Buf(12, 1)), type}), true)).error().reason == "size 12 is not a multiple of 8");
    CHECK(read_compendium(sec("TCM0", type, true)).error().reason == "compendium has no id");
    CHECK(read_compendium(sec("TCM0", sec("TCID", Buf(8, 1)), true)).error().reason == "compendium has no TYPE section");
    auto ok = read_compendium(sec("TCM0", cat({sec("TCID", Buf(8, 1)), type}), true));
    REQUIRE(ok);
    CHECK(ok->ids == std::vector<uint64_t>{0x0101010101010101ull});
    CompendiumSet set;
    CHECK(set.add(tagfile(p)).error().reason == "not a TCM0 file");
}

TEST_CASE("havok errors: packfile" * doctest::test_suite("corpus")) {
    const Buf good = test::load(test::corpus("bb/skeleton.HKX"));
    REQUIRE(read_packfile(good));
    auto reason = [](const Buf& b) {
        auto r = read_packfile(b);
        if (r) return std::string("(read)");
        CHECK(r.error().offset <= b.size());
        return r.error().reason;
    };
    auto patch32 = [&](size_t at, uint32_t v) {
        Buf b = good;
        std::memcpy(b.data() + at, &v, 4);
        return b;
    };
    // header (docs/formats.md#the-packfile-header); sections at 0x50 (__classnames__), 0x90 (__types__), 0xD0 (__data__)
    CHECK(reason(patch32(0, 0x12345678)) == "expected 0x57E0E057, found 0x12345678");
    CHECK(reason(patch32(0x14, 40)) == "40 sections (expected 1 to 16)");
    {
        Buf b = good;
        b[0x3E] = 0xF0;
        b[0x3F] = 0xFF;  // predicate size -16
        CHECK(reason(b) == "negative size");
    }
    CHECK(reason(patch32(0xD0 + 0x18, 0x3000)) == "section __data__: fixup offsets out of order");
    CHECK(reason(patch32(0xD0 + 0x14, 0x10000)).find("section __data__ ends at ") == 0);
    {
        Buf b = good;
        b[0x50] = 'X';
        CHECK(reason(b) == "no __classnames__ section");
    }
    {
        Buf b = good;
        b[0xD2] = 'X';
        CHECK(reason(b) == "no __data__ section");
    }
    CHECK(reason(patch32(0x18, 1)) == "contents are not in __data__");
    // __data__ starts at 0x1A0; its virtual fixups at +0x2480, local at +0x2120, global at +0x2460
    const size_t vf = 0x1A0 + 0x2480, lf = 0x1A0 + 0x2120, gf = 0x1A0 + 0x2460;
    CHECK(reason(patch32(vf, 0x100000)) == "object offset 0x100000 outside __data__");
    CHECK(reason(patch32(vf + 4, 2)) == "class name not in __classnames__");
    CHECK(reason(patch32(vf + 8, 3)) == "no class name at 0x3");
    CHECK(reason(patch32(lf, 0x7FFFFFF0)) == "pointer 0x7FFFFFF0 -> 0x10 outside __data__");
    CHECK(reason(patch32(gf, 0x7FFFFFF0)) == "pointer 0x7FFFFFF0 outside __data__");
    CHECK(reason(patch32(0x1C, 8)) == "no object at the contents offset 0x8");
    // the last object (the skeleton) pushed to the end of __data__
    {
        uint32_t last = 0;
        std::memcpy(&last, good.data() + vf + 24, 4);
        CHECK(reason(patch32(vf + 24, 0x2110)) == "hkaSkeleton at 0x2110 (136 B) runs past __data__");
        (void)last;
    }
}

TEST_CASE("havok errors: typed views" * doctest::test_suite("corpus")) {
    auto f = read_packfile(test::load(test::corpus("bb/skeleton.HKX")));
    REQUIRE(f);
    auto s = read_skeleton(*f, 1);
    REQUIRE_FALSE(s);
    CHECK(s.error().reason == "item 1 is hkRootLevelContainer, not hkaSkeleton");
    auto c = hcl::read_cloth_data(*f, 1);
    REQUIRE_FALSE(c);
    CHECK(c.error().reason == "not an hclClothData");
    CHECK(c.error().field == "hkRootLevelContainer (item 1)");
}
