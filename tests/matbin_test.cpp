// MATBIN / MTD readers and the material library: hand-built files with known values, every
// error message, truncation at every length, and every member of the corpus material binders.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "corpus.h"
#include "drape/bnd/bnd4.h"
#include "drape/dcx/dcx.h"
#include "drape/dcx/member.h"
#include "drape/io/file.h"
#include "drape/matbin/matbin.h"
#include "matbin_fixture.h"

using namespace drape;
using namespace drape::matbin;

namespace {

uint32_t fbits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

test::MatbinSpec small_matbin() {
    test::MatbinSpec s;
    s.params = {{"g_bFlag", 0, {1}},
                {"g_AlphaRef", 5, {50, 0}},
                {"g_DiffuseMapColor", 10, {fbits(0.5f), fbits(1.0f), fbits(0.25f)}},
                {"C_Fur__snp_0_color_0", 12, {fbits(1), fbits(2), fbits(3), fbits(4), fbits(5)}}};
    s.samplers = {{"C_DetailBlend__snp_Texture2D_7_AlbedoMap", "N:\\GR\\data\\Model\\chr\\c9999\\tex\\c9999_BD_a.tif", {1, 2}},
                  {"C_DetailBlend__snp_Texture2D_0_NormalMap", "", {0, 0}}};
    return s;
}

test::MtdSpec small_mtd() {
    test::MtdSpec s;
    s.params = {{"g_bDisableDecal", "bool", {1}}, {"g_AlphaRef", "int2", {110, 0}}, {"g_GlowScale", "float4", {fbits(1), fbits(2), fbits(3), fbits(4)}}};
    s.textures = {{"Fur_NTC_snp_Texture2D_3_NormalMap_0", "N:\\NTC\\data\\Model\\chr\\c7109\\tex\\c7109_hair_n.tif", 1},
                  {"Fur_NTC_snp_Texture2D_2_AlbedoMap_1", "", 2}};
    return s;
}

std::string error_of(const Result<Material>& r) { return r ? std::string("(no error)") : r.error().to_string(); }

void put_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) { std::memcpy(&b[at], &v, 4); }
void put_u64(std::vector<uint8_t>& b, size_t at, uint64_t v) { std::memcpy(&b[at], &v, 8); }


// The member path the game's matbinbnds give a character material (stem: its file name
// without the extension).
std::string chr_matbin_path(const std::string& stem) {
    return "N:\\GR\\data\\INTERROOT_win64\\material\\matbin\\Chr\\matxml\\" + stem + ".matbin";
}

// A matbinbnd (BND4 "07D7R6", format 0x74) holding the members in order, ids 0, 1, ...
std::vector<uint8_t> matbin_binder(const std::vector<std::pair<std::string, std::vector<uint8_t>>>& members) {
    bnd::Binder b;
    b.format = 0x74;
    b.version = "07D7R6";
    std::vector<Bytes> payloads;
    for (size_t i = 0; i < members.size(); ++i) {
        bnd::Entry e;
        e.name = members[i].first;
        e.id = int32_t(i);
        b.entries.push_back(e);
        payloads.push_back(Bytes(members[i].second));
    }
    auto bytes = bnd::write_bnd4(b, payloads);
    REQUIRE(bytes);
    return std::move(*bytes);
}

}  // namespace

TEST_CASE("matbin: a hand-built MATBIN reads back every field") {
    auto bytes = test::make_matbin(small_matbin());
    REQUIRE(is_matbin(bytes));
    auto r = read_matbin(bytes);
    REQUIRE_MESSAGE(r, error_of(r));
    CHECK(r->format == Format::matbin);
    CHECK(r->shader_path == "N:\\GR\\data\\Material\\sat\\OutputData\\SPX\\C[DetailBlend].spx");
    CHECK(r->source_path == "N:\\GR\\data\\Material\\mtd\\Chr\\matxml\\C[c9999]_Body.matxml");
    CHECK(r->key == 0x11223344u);
    REQUIRE(r->params.size() == 4);
    CHECK(r->params[0].name == "g_bFlag");
    CHECK(r->params[0].type == "bool");
    CHECK(r->params[0].ints == std::vector<int32_t>{1});
    CHECK(r->params[1].type == "int2");
    CHECK(r->params[1].ints == std::vector<int32_t>{50, 0});
    CHECK(r->params[1].key == 0x1001u);
    CHECK(r->params[2].type == "float3");
    CHECK(r->params[2].floats == std::vector<float>{0.5f, 1.0f, 0.25f});
    CHECK(r->params[3].type == "float5");
    CHECK(r->params[3].floats == std::vector<float>{1, 2, 3, 4, 5});
    REQUIRE(r->samplers.size() == 2);
    CHECK(r->samplers[0].type == "C_DetailBlend__snp_Texture2D_7_AlbedoMap");
    CHECK(r->samplers[0].path == "N:\\GR\\data\\Model\\chr\\c9999\\tex\\c9999_BD_a.tif");
    CHECK(r->samplers[0].scale[0] == 1.0f);
    CHECK(r->samplers[0].scale[1] == 2.0f);
    CHECK(r->samplers[0].key == 0x2000u);
    CHECK(r->samplers[1].path.empty());
}

TEST_CASE("matbin: truncation at every length fails cleanly") {
    auto bytes = test::make_matbin(small_matbin());
    for (size_t n = 0; n < bytes.size(); ++n) {
        CAPTURE(n);
        auto r = read_matbin(Bytes(bytes.data(), n));
        // The last string's terminator is the last byte: every shorter prefix must fail.
        REQUIRE_FALSE(r);
        CHECK(r.error().offset <= n);
    }
    CHECK(read_matbin(bytes));
}

TEST_CASE("matbin: every error message") {
    const auto good = test::make_matbin(small_matbin());
    auto bad = good;
    bad[0] = 'X';
    CHECK(error_of(read_matbin(bad)).find("matbin.magic") != std::string::npos);
    bad = good;
    put_u32(bad, 4, 3);
    CHECK(error_of(read_matbin(bad)).find("matbin.version: expected 0x2, found 0x3") != std::string::npos);
    bad = good;
    put_u32(bad, 0x1C, 0xFFFFFFFFu);
    CHECK(error_of(read_matbin(bad)).find("matbin.param_count: negative count -1") != std::string::npos);
    bad = good;
    put_u32(bad, 0x20, 0xFFFFFFFFu);
    CHECK(error_of(read_matbin(bad)).find("matbin.sampler_count: negative count -1") != std::string::npos);
    bad = good;
    put_u32(bad, 0x1C, 100000);
    CHECK(error_of(read_matbin(bad)).find("matbin.params") != std::string::npos);
    bad = good;
    put_u32(bad, 0x20, 100000);
    CHECK(error_of(read_matbin(bad)).find("matbin.samplers") != std::string::npos);
    bad = good;
    put_u64(bad, 0x08, bad.size() + 10);
    CHECK(error_of(read_matbin(bad)).find("matbin.shader_path: string offset") != std::string::npos);
    bad = good;
    put_u64(bad, 0x10, bad.size() - 1);  // the final NUL byte alone: no room for a terminator
    CHECK(error_of(read_matbin(bad)).find("matbin.source_path: unterminated UTF-16 string") != std::string::npos);
    bad = good;
    put_u32(bad, 0x38 + 20, 7);  // first parameter's type
    CHECK(error_of(read_matbin(bad)).find("matbin.param.type: unknown parameter type 7 of g_bFlag") != std::string::npos);
    bad = good;
    put_u64(bad, 0x38 + 0x28 * 2 + 8, bad.size() - 4);  // float3 value runs past the end
    CHECK(error_of(read_matbin(bad)).find("matbin.param.value_offset: value of g_DiffuseMapColor") != std::string::npos);
    bad = good;
    put_u64(bad, 0x38 + 0x28 * 4 + 8, bad.size() + 2);  // a sampler path
    CHECK(error_of(read_matbin(bad)).find("matbin.sampler.path: string offset") != std::string::npos);
    CHECK(error_of(read_material(Bytes(good.data(), 3))).find("neither a MATBIN") != std::string::npos);
}

TEST_CASE("mtd: a hand-built MTD reads back every field") {
    auto bytes = test::make_mtd(small_mtd());
    REQUIRE(is_mtd(bytes));
    auto r = read_material(bytes);
    REQUIRE_MESSAGE(r, error_of(r));
    CHECK(r->format == Format::mtd);
    CHECK(r->shader_path == "N:\\NTC\\data\\Material\\sat\\OutputData\\SPX\\Fur_NTC.spx");
    CHECK(r->description == "[Character]");
    REQUIRE(r->params.size() == 3);
    CHECK(r->params[0].name == "g_bDisableDecal");
    CHECK(r->params[0].ints == std::vector<int32_t>{1});
    CHECK(r->params[1].type == "int2");
    CHECK(r->params[1].ints == std::vector<int32_t>{110, 0});
    CHECK(r->params[2].floats == std::vector<float>{1, 2, 3, 4});
    REQUIRE(r->samplers.size() == 2);
    CHECK(r->samplers[0].type == "Fur_NTC_snp_Texture2D_3_NormalMap_0");
    CHECK(r->samplers[0].path == "N:\\NTC\\data\\Model\\chr\\c7109\\tex\\c7109_hair_n.tif");
    CHECK(r->samplers[1].uv_index == 2);
    CHECK(r->samplers[1].path.empty());

    // DS3-style texture entries (version 3) carry no path.
    auto spec = small_mtd();
    spec.texture_version = 3;
    auto ds3 = read_mtd(test::make_mtd(spec));
    REQUIRE_MESSAGE(ds3, error_of(ds3));
    REQUIRE(ds3->samplers.size() == 2);
    CHECK(ds3->samplers[0].type == "Fur_NTC_snp_Texture2D_3_NormalMap_0");
    CHECK(ds3->samplers[0].path.empty());
}

TEST_CASE("mtd: truncation at every length fails cleanly") {
    auto bytes = test::make_mtd(small_mtd());
    for (size_t n = 0; n < bytes.size(); ++n) {
        CAPTURE(n);
        auto r = read_mtd(Bytes(bytes.data(), n));
        REQUIRE_FALSE(r);
        CHECK(r.error().offset <= n);
    }
    CHECK(read_mtd(bytes));
}

TEST_CASE("mtd: every error message") {
    const auto good = test::make_mtd(small_mtd());
    auto bad = good;
    put_u32(bad, 8, 9);  // file block type
    CHECK(error_of(read_mtd(bad)).find("mtd.file: block type 0x9, expected 0x0") != std::string::npos);
    bad = good;
    bad[0x2C] = 'X';
    CHECK(error_of(read_mtd(bad)).find("mtd.magic: not \"MTD \"") != std::string::npos);
    bad = good;
    put_u32(bad, 0x50, 0x20000);  // shader path length
    CHECK(error_of(read_mtd(bad)).find("mtd.shader_path: string length 131072 exceeds 65536") != std::string::npos);
    // Locate the lists block: the parameter count follows its i32 0 and marker.
    auto r = read_mtd(good);
    REQUIRE(r);
    size_t lists = 0;
    for (size_t i = 0; i + 16 <= good.size(); i += 4)
        if (good[i + 8] == 3 && good[i + 12] == 4 && good[i + 1] == 0 && good[i + 4] == 0xAD) {
            lists = i;
            break;
        }
    REQUIRE(lists > 0);
    const size_t param_count_at = lists + 20 + 4 + 4;
    bad = good;
    put_u32(bad, param_count_at, 1000000);
    CHECK(error_of(read_mtd(bad)).find("mtd.param_count") != std::string::npos);
    bad = good;
    put_u32(bad, param_count_at + 4 + 8, 5);  // first parameter block's type
    CHECK(error_of(read_mtd(bad)).find("mtd.param: block type 0x5, expected 0x4") != std::string::npos);
    // The first parameter's value block: after its block (20), name (4 + 15 + marker, 20),
    // type (4 + 4 + marker, 12) and i32 1.
    const size_t value_block = param_count_at + 4 + 20 + 20 + 12 + 4;
    bad = good;
    put_u32(bad, value_block + 8, 0x1234);
    CHECK(error_of(read_mtd(bad)).find("mtd.param.value.type: unknown value block type 0x1234 of g_bDisableDecal") !=
          std::string::npos);
    bad = good;
    put_u32(bad, value_block + 20, 0x7FFFFFFF);
    CHECK(error_of(read_mtd(bad)).find("mtd.param.value.count") != std::string::npos);
    // Texture count: the 4 bytes after the marker that follows the last parameter.
    {
        auto spec = small_mtd();
        spec.textures.clear();
        auto none = test::make_mtd(spec);
        // With no textures the count is the word 16 bytes (3 x {marker, i32 0} = 24) before the
        // end, after its marker: count at size - 24 - 4.
        put_u32(none, none.size() - 28, 1000000);
        CHECK(error_of(read_mtd(none)).find("mtd.texture_count") != std::string::npos);
        auto one = test::make_mtd(spec);
        put_u32(one, one.size() - 28, 1);
        spec.textures = {{"T", "", 1}};
        auto with = test::make_mtd(spec);
        CHECK(error_of(read_mtd(one)).find("mtd.texture") != std::string::npos);
        CHECK(read_mtd(with));
    }
}

TEST_CASE("matbin: material_key strips folders, extension and case") {
    CHECK(material_key("N:\\GR\\data\\Material\\mtd\\Chr\\matxml\\C[c5000]_WP_Sword.matxml") == "c[c5000]_wp_sword");
    CHECK(material_key("C[c5000]_WP_Sword.matbin") == "c[c5000]_wp_sword");
    CHECK(material_key("a/b/c7109_sss.mtd") == "c7109_sss");
    CHECK(material_key("plain") == "plain");
}

TEST_CASE("matbin: library indexes a binder, parses on lookup, reports bad members with their chain") {
    auto good = test::make_matbin(small_matbin());
    auto broken = good;
    broken[0] = 'X';
    auto bytes = matbin_binder({{chr_matbin_path("C[c9999]_Body"), good}, {chr_matbin_path("C[c9999]_Broken"), broken}});
    MaterialLibrary lib;
    REQUIRE(lib.add_bytes(std::move(bytes), "test.matbinbnd"));
    CHECK(lib.size() == 2);
    auto found = lib.find("N:\\GR\\data\\Material\\mtd\\Chr\\matxml\\C[c9999]_Body.matxml");
    REQUIRE(found);
    REQUIRE(*found != nullptr);
    CHECK((*found)->samplers.size() == 2);
    auto again = lib.find("c[C9999]_body.matbin");
    REQUIRE(again);
    CHECK(*again == *found);  // cached: the same object
    auto missing = lib.find("C[c9999]_Nothing.matxml");
    REQUIRE(missing);
    CHECK(*missing == nullptr);
    auto bad = lib.find("C[c9999]_Broken.matxml");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().to_string().find("test.matbinbnd > N:\\GR\\data\\INTERROOT_win64\\material\\matbin\\Chr\\matxml\\C[c9999]_Broken.matbin") !=
          std::string::npos);
    MaterialLibrary junk;
    auto j = junk.add_bytes({1, 2, 3, 4}, "junk.bin");
    REQUIRE_FALSE(j);
    CHECK(j.error().to_string().find("junk.bin") != std::string::npos);
    CHECK(j.error().to_string().find("neither a material binder") != std::string::npos);
}

TEST_CASE("matbin: every member of the corpus material binders parses" * doctest::test_suite("corpus")) {
    struct Binder {
        const char* file;
        size_t members;
        Format format;
    };
    const Binder binders[] = {{"er/game/material/allmaterial.matbinbnd.dcx", 15103, Format::matbin},
                              {"er/game/material/allmaterial_dlc01.matbinbnd.dcx", 2025, Format::matbin},
                              {"sekiro/allmaterialbnd.mtdbnd.dcx", 3170, Format::mtd}};
    size_t total = 0, with_texture = 0;
    for (const auto& b : binders) {
        CAPTURE(b.file);
        MaterialLibrary lib;
        auto a = lib.add_file(test::corpus(b.file));
        REQUIRE_MESSAGE(a, (a ? std::string() : a.error().to_string()));
        REQUIRE(lib.size() == b.members);
        for (size_t i = 0; i < lib.size(); ++i) {
            auto m = lib.parse_member(i);
            REQUIRE_MESSAGE(m, (m ? std::string() : m.error().to_string()));
            CHECK(m->format == b.format);
            CHECK(!m->shader_path.empty());
            for (const auto& s : m->samplers)
                if (!s.path.empty()) {
                    ++with_texture;
                    break;
                }
            ++total;
        }
    }
    CHECK(total == 15103 + 2025 + 3170);
    CHECK(with_texture > total / 2);
}

TEST_CASE("matbin: corpus values equal the bytes read by hand" * doctest::test_suite("corpus")) {
    // Facts read from the files with a hex dump (not with drape).
    MaterialLibrary er;
    REQUIRE(er.add_file(test::corpus("er/game/material/allmaterial.matbinbnd.dcx")));
    auto fur = er.find("N:\\GR\\data\\Material\\mtd\\Chr\\matxml\\C[c3061]_BeastFur.matxml");
    REQUIRE(fur);
    REQUIRE(*fur != nullptr);
    const Material& f = **fur;
    CHECK(f.shader_path == "N:\\GR\\data\\Material\\sat\\OutputData\\SPX\\C[Fur].spx");
    CHECK(f.source_path == "N:\\GR\\data\\Material\\mtd\\Chr\\matxml\\C[c3061]_BeastFur.matxml");
    CHECK(f.key == 0x116315C8u);
    REQUIRE(f.params.size() == 33);
    CHECK(f.params[0].name == "GXFT_SATStaticSwitch");
    CHECK(f.params[14].name == "g_AlphaRef");
    CHECK(f.params[14].ints == std::vector<int32_t>{50, 0});
    CHECK(f.params[15].name == "g_DiffuseMapColor");
    CHECK(f.params[15].floats == std::vector<float>{1, 1, 1});
    REQUIRE(f.samplers.size() == 8);
    CHECK(f.samplers[1].type == "C_Fur__snp_Texture2D_8_AlbedoMap");
    CHECK(f.samplers[1].path == "N:\\GR\\data\\Model\\chr\\c3061\\tex\\c3061_beast_furcolor_a.tif");
    // A name in two folders: the one whose source path the FLVER names.
    MaterialLibrary both;
    REQUIRE(both.add_file(test::corpus("er/game/material/allmaterial.matbinbnd.dcx")));
    REQUIRE(both.add_file(test::corpus("er/game/material/allmaterial_dlc01.matbinbnd.dcx")));
    auto amsn = both.find("N:\\GR\\data\\Material\\mtd_DLC01\\Chr_DLC01\\matxml\\C[AMSN].matxml");
    REQUIRE(amsn);
    REQUIRE(*amsn != nullptr);
    CHECK((*amsn)->source_path == "N:\\GR\\data\\Material\\mtd_DLC01\\Chr_DLC01\\matxml\\C[AMSN].matxml");

    MaterialLibrary sek;
    REQUIRE(sek.add_file(test::corpus("sekiro/allmaterialbnd.mtdbnd.dcx")));
    auto hair = sek.find("N:\\NTC\\data\\Material\\mtd\\character\\c7109_hair.mtd");
    REQUIRE(hair);
    REQUIRE(*hair != nullptr);
    const Material& h = **hair;
    CHECK(h.shader_path == "N:\\NTC\\data\\Material\\sat\\OutputData\\SPX\\Fur_NTC.spx");
    CHECK(h.params.size() == 19);
    CHECK(h.params[0].name == "g_GX_MaterialID");
    CHECK(h.params[0].ints == std::vector<int32_t>{0});
    bool normal = false;
    for (const auto& s : h.samplers)
        if (s.type == "Fur_NTC_snp_Texture2D_3_NormalMap_0")
            normal = s.path == "N:\\NTC\\data\\Model\\chr\\c7109\\tex\\c7109_hair_n.tif";
    CHECK(normal);
}

TEST_CASE("matbin: keep_only indexes just the named definitions and they read as without it" * doctest::test_suite("corpus")) {
    // Synthetic: two members, one kept.
    auto good = test::make_matbin(small_matbin());
    const std::string body = chr_matbin_path("C[c9999]_Body");
    auto bytes = matbin_binder({{body, good}, {chr_matbin_path("C[c9999]_Other"), good}});
    MaterialLibrary lib;
    lib.keep_only({"c[c9999]_body"});
    REQUIRE(lib.add_bytes(std::move(bytes), "test.matbinbnd"));
    CHECK(lib.size() == 1);
    CHECK(lib.sources() == std::vector<std::string>{"test.matbinbnd"});
    auto found = lib.find("N:\\GR\\data\\Material\\mtd\\Chr\\matxml\\C[c9999]_Body.matxml");
    REQUIRE(found);
    REQUIRE(*found != nullptr);
    CHECK((*found)->samplers.size() == 2);
    CHECK((*found)->member == body);
    auto other = lib.find("C[c9999]_Other.matxml");
    REQUIRE(other);
    CHECK(*other == nullptr);

    // Corpus: the ER binders (DCX KRAK, 91 MB decompressed) with three names kept, one of them
    // in both binders; each definition equals the one of a full library.
    const std::vector<std::string> names = {"N:\\GR\\data\\Material\\mtd\\Chr\\matxml\\C[c3061]_BeastFur.matxml",
                                            "N:\\GR\\data\\Material\\mtd_DLC01\\Chr_DLC01\\matxml\\C[AMSN].matxml",
                                            "N:\\GR\\data\\Material\\mtd\\Chr\\matxml\\C[c5000]_WP_Sword.matxml"};
    MaterialLibrary full, kept;
    std::vector<std::string> keys;
    for (const auto& n : names) keys.push_back(material_key(n));
    kept.keep_only(keys);
    for (const char* f : {"er/game/material/allmaterial.matbinbnd.dcx", "er/game/material/allmaterial_dlc01.matbinbnd.dcx"}) {
        REQUIRE(full.add_file(test::corpus(f)));
        REQUIRE(kept.add_file(test::corpus(f)));
    }
    CHECK(full.size() == 15103 + 2025);
    CHECK(kept.size() >= 3);
    CHECK(kept.size() <= 6);
    for (const auto& n : names) {
        CAPTURE(n);
        auto a = full.find(n);
        auto k = kept.find(n);
        REQUIRE(a);
        REQUIRE(k);
        REQUIRE(*a != nullptr);
        REQUIRE(*k != nullptr);
        CHECK((*k)->member == (*a)->member);
        CHECK((*k)->source_path == (*a)->source_path);
        CHECK((*k)->shader_path == (*a)->shader_path);
        CHECK((*k)->params.size() == (*a)->params.size());
        REQUIRE((*k)->samplers.size() == (*a)->samplers.size());
        for (size_t i = 0; i < (*a)->samplers.size(); ++i) CHECK((*k)->samplers[i].path == (*a)->samplers[i].path);
    }
    auto dropped = kept.find("N:\\GR\\data\\Material\\mtd\\Chr\\matxml\\C[c4361]_Body.matxml");
    REQUIRE(dropped);
    CHECK(*dropped == nullptr);
}

// ---- Lazy binders (dcx::LazyBinder): what a lookup decodes, and that it reads as the eager form.

namespace {

void check_same_material(const Material& a, const Material& b) {
    CHECK(a.format == b.format);
    CHECK(a.member == b.member);
    CHECK(a.shader_path == b.shader_path);
    CHECK(a.source_path == b.source_path);
    CHECK(a.description == b.description);
    CHECK(a.key == b.key);
    REQUIRE(a.params.size() == b.params.size());
    for (size_t i = 0; i < a.params.size(); ++i) {
        CHECK(a.params[i].name == b.params[i].name);
        CHECK(a.params[i].type == b.params[i].type);
        CHECK(a.params[i].key == b.params[i].key);
        CHECK(a.params[i].ints == b.params[i].ints);
        CHECK(a.params[i].floats == b.params[i].floats);
    }
    REQUIRE(a.samplers.size() == b.samplers.size());
    for (size_t i = 0; i < a.samplers.size(); ++i) {
        CHECK(a.samplers[i].type == b.samplers[i].type);
        CHECK(a.samplers[i].path == b.samplers[i].path);
        CHECK(a.samplers[i].key == b.samplers[i].key);
        CHECK(a.samplers[i].scale[0] == b.samplers[i].scale[0]);
        CHECK(a.samplers[i].scale[1] == b.samplers[i].scale[1]);
        CHECK(a.samplers[i].uv_index == b.samplers[i].uv_index);
        CHECK(a.samplers[i].shader_data_index == b.samplers[i].shader_data_index);
    }
}

std::vector<uint8_t> corpus_file(const char* rel) {
    auto bytes = read_file(test::corpus(rel));
    REQUIRE(bytes);
    return std::move(*bytes);
}

// The bare BND4 of a DCX: given to add_bytes, the library indexes it as it is (decodes nothing).
std::vector<uint8_t> decompressed(const std::vector<uint8_t>& file) {
    auto d = dcx::decompress(file);
    REQUIRE(d);
    return std::move(*d);
}

bool ends_with_ci(std::string s, std::string suffix) {
    for (auto& c : s) c = char(std::tolower(uint8_t(c)));
    for (auto& c : suffix) c = char(std::tolower(uint8_t(c)));
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

TEST_CASE("matbin: a lookup in a KRAK binder decodes only the BND4 headers and the member it reads" * doctest::test_suite("corpus")) {
    const auto file = corpus_file("er/game/material/allmaterial.matbinbnd.dcx");
    // The binder's layout as dcx::LazyBinder reads it (tested on its own in kraken_corpus_test).
    auto layout = dcx::LazyBinder::open(file);
    REQUIRE(layout);
    const uint64_t total = layout->header().uncompressed_size;
    const uint64_t headers_end = layout->binder().headers_end;
    uint64_t fur_size = 0;
    for (const auto& e : layout->binder().entries)
        if (ends_with_ci(e.name, "\\C[c3061]_BeastFur.matbin")) fur_size = e.stored_size;
    REQUIRE(fur_size > 0);
    CHECK(total == 77457355u);

    MaterialLibrary lazy;
    REQUIRE(lazy.add_bytes(file, "allmaterial.matbinbnd.dcx"));
    CHECK(lazy.size() == 15103);
    CHECK(lazy.decoded_bytes() == headers_end);
    CHECK(headers_end * 20 < total);  // the headers are a small part of the binder
    const std::string fur = "N:\\GR\\data\\Material\\mtd\\Chr\\matxml\\C[c3061]_BeastFur.matxml";
    auto found = lazy.find(fur);
    REQUIRE(found);
    REQUIRE(*found != nullptr);
    CHECK(lazy.decoded_bytes() == headers_end + fur_size);
    auto again = lazy.find(fur);  // cached: nothing decoded
    REQUIRE(again);
    CHECK(*again == *found);
    auto missing = lazy.find("C[c9999]_Nothing.matxml");
    REQUIRE(missing);
    CHECK(*missing == nullptr);
    CHECK(lazy.decoded_bytes() == headers_end + fur_size);

    MaterialLibrary eager;
    REQUIRE(eager.add_bytes(decompressed(file), "allmaterial.matbinbnd.dcx"));
    CHECK(eager.decoded_bytes() == 0);  // handed decoded
    CHECK(eager.member_names() == lazy.member_names());
    auto e = eager.find(fur);
    REQUIRE(e);
    REQUIRE(*e != nullptr);
    check_same_material(**found, **e);
}

TEST_CASE("matbin: keep_only on KRAK binders decodes the kept members, not the binders" * doctest::test_suite("corpus")) {
    const std::vector<std::string> names = {"N:\\GR\\data\\Material\\mtd\\Chr\\matxml\\C[c3061]_BeastFur.matxml",
                                            "N:\\GR\\data\\Material\\mtd_DLC01\\Chr_DLC01\\matxml\\C[AMSN].matxml",
                                            "N:\\GR\\data\\Material\\mtd\\Chr\\matxml\\C[c5000]_WP_Sword.matxml"};
    std::vector<std::string> keys;
    for (const auto& n : names) keys.push_back(material_key(n));
    MaterialLibrary kept;
    kept.keep_only(keys);
    uint64_t total = 0, headers = 0, kept_stored = 0;
    size_t kept_members = 0;
    for (const char* f : {"er/game/material/allmaterial.matbinbnd.dcx", "er/game/material/allmaterial_dlc01.matbinbnd.dcx"}) {
        const auto file = corpus_file(f);
        auto layout = dcx::LazyBinder::open(file);
        REQUIRE(layout);
        total += layout->header().uncompressed_size;
        headers += layout->binder().headers_end;
        for (const auto& e : layout->binder().entries)
            for (const auto& k : keys)
                if (material_key(e.name) == k) {
                    kept_stored += e.stored_size;
                    ++kept_members;
                }
        REQUIRE(kept.add_bytes(file, f));
    }
    CHECK(kept.size() == kept_members);
    CHECK(kept_members >= 3);
    // The headers, and per kept member its bytes and at most the 256 KiB the merge may add.
    CHECK(kept.decoded_bytes() >= headers + kept_stored);
    CHECK(kept.decoded_bytes() <= headers + kept_stored + kept_members * 256 * 1024);
    CHECK(kept.decoded_bytes() * 10 < total);
}

TEST_CASE("matbin: lazy, kept and eager libraries read every corpus binder member alike" * doctest::test_suite("corpus")) {
    const char* files[] = {"er/game/material/allmaterial.matbinbnd.dcx", "er/game/material/allmaterial_dlc01.matbinbnd.dcx",
                           "sekiro/allmaterialbnd.mtdbnd.dcx"};
    size_t compared = 0;
    for (const char* f : files) {
        CAPTURE(f);
        const auto file = corpus_file(f);
        MaterialLibrary eager, lazy, kept;
        REQUIRE(eager.add_bytes(decompressed(file), f));
        REQUIRE(lazy.add_bytes(file, f));
        std::vector<std::string> keys;
        for (const auto& n : eager.member_names()) keys.push_back(material_key(n));
        kept.keep_only(keys);  // every member kept: one range over the whole data
        REQUIRE(kept.add_bytes(file, f));
        REQUIRE(eager.size() > 2000);
        REQUIRE(lazy.member_names() == eager.member_names());
        REQUIRE(kept.member_names() == eager.member_names());
        for (size_t i = 0; i < eager.size(); ++i) {
            auto a = eager.parse_member(i);
            auto k = kept.parse_member(i);
            REQUIRE(a);
            REQUIRE(k);
            check_same_material(*a, *k);
            if (i % 16 == 0) {  // every member decoded one by one: a few seconds; a sample is enough here
                auto l = lazy.parse_member(i);
                REQUIRE(l);
                check_same_material(*a, *l);
            }
            ++compared;
        }
    }
    CHECK(compared == 15103 + 2025 + 3170);
}

TEST_CASE("matbin: DFLT and ZSTD binders are decoded whole and read as the bare binder") {
    auto good = test::make_matbin(small_matbin());
    const std::string body = chr_matbin_path("C[c9999]_Body");
    const auto bare = matbin_binder({{body, good}, {chr_matbin_path("C[c9999]_Other"), good}});
    for (auto c : {dcx::Compression::dflt, dcx::Compression::zstd}) {
        CAPTURE(dcx::compression_name(c));
        dcx::EncodeOptions eo;
        eo.compression = c;
        auto packed = dcx::compress(bare, eo);
        REQUIRE(packed);
        MaterialLibrary lib, kept;
        REQUIRE(lib.add_bytes(*packed, "t.matbinbnd.dcx"));
        CHECK(lib.decoded_bytes() == bare.size());
        CHECK(lib.size() == 2);
        auto found = lib.find("C[c9999]_Body.matxml");
        REQUIRE(found);
        REQUIRE(*found != nullptr);
        CHECK((*found)->member == body);
        CHECK((*found)->samplers.size() == 2);
        kept.keep_only({"c[c9999]_body"});
        REQUIRE(kept.add_bytes(*packed, "t.matbinbnd.dcx"));
        CHECK(kept.size() == 1);
        auto k = kept.find("C[c9999]_Body.matxml");
        REQUIRE(k);
        REQUIRE(*k != nullptr);
        check_same_material(**found, **k);
    }
}

TEST_CASE("matbin: a KRAK binder whose headers or members do not decode reports it with the binder's name" * doctest::test_suite("corpus")) {
    const auto file = corpus_file("er/game/material/allmaterial_dlc01.matbinbnd.dcx");
    auto layout = dcx::LazyBinder::open(file);
    REQUIRE(layout);
    const bnd::Entry* last = &layout->binder().entries.front();
    for (const auto& e : layout->binder().entries)
        if (e.data_offset > last->data_offset) last = &e;
    size_t last_index = 0;
    {
        MaterialLibrary names;
        REQUIRE(names.add_bytes(file, "names"));
        const auto all = names.member_names();
        last_index = size_t(std::find(all.begin(), all.end(), last->name) - all.begin());
        REQUIRE(last_index < all.size());
    }
    // The end of the compressed stream zeroed: the header blocks decode, the last block does not.
    auto zeroed = file;
    std::fill(zeroed.end() - 16, zeroed.end(), uint8_t(0));
    MaterialLibrary lazy;
    REQUIRE(lazy.add_bytes(zeroed, "zero.matbinbnd.dcx"));
    CHECK(lazy.parse_member(0));
    auto r = lazy.parse_member(last_index);
    REQUIRE_FALSE(r);
    CHECK(r.error().to_string().rfind("zero.matbinbnd.dcx > " + last->name + " @", 0) == 0);
    CHECK(r.error().field.rfind("kraken.", 0) == 0);
    // keep_only decodes the kept members when adding: there the bad block fails the binder.
    MaterialLibrary kept;
    kept.keep_only({material_key(last->name)});
    auto k = kept.add_bytes(zeroed, "zero.matbinbnd.dcx");
    REQUIRE_FALSE(k);
    CHECK(k.error().to_string().rfind("zero.matbinbnd.dcx @", 0) == 0);
    CHECK(k.error().field.rfind("kraken.", 0) == 0);
    // Cut short: the DCX header's sizes no longer fit, the open fails with the binder's name.
    for (size_t keep : {size_t(0x200), file.size() - 16}) {
        CAPTURE(keep);
        auto cut = file;
        cut.resize(keep);
        MaterialLibrary lib;
        auto a = lib.add_bytes(cut, "cut.matbinbnd.dcx");
        REQUIRE_FALSE(a);
        CHECK(a.error().to_string().rfind("cut.matbinbnd.dcx @", 0) == 0);
    }
}
