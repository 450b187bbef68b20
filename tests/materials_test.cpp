// drape::game::resolve_material_textures on the corpus characters: every material finds its
// MATBIN / MTD, and the body materials get a base colour texture the character's texbnd holds.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "corpus.h"
#include "drape/bnd/bnd4.h"
#include "drape/dcx/dcx.h"
#include "drape/flver/flver.h"
#include "drape/game/materials.h"
#include "drape/matbin/matbin.h"
#include "drape/tpf/tpf.h"
#include "flver_corpus.h"
#include "matbin_fixture.h"

using namespace drape;

namespace {

std::string lower(std::string s) {
    for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}
std::string stem(const std::string& path) {
    std::string b = path.substr(path.find_last_of("/\\") + 1);
    return lower(b.substr(0, b.find_last_of('.')));
}
bool ends(const std::string& s, const std::string& suf) {
    return s.size() > suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

// Lower-case names of every texture in the TPFs of a texbnd.
std::set<std::string> texbnd_names(const std::string& rel) {
    std::set<std::string> out;
    auto bytes = test::load(test::corpus(rel));
    auto d = dcx::decompress(bytes);
    REQUIRE(d);
    auto b = bnd::read_bnd4(*d);
    REQUIRE(b);
    for (const auto& e : b->entries) {
        auto t = tpf::read_tpf(e.data);
        if (!t) continue;
        for (const auto& tex : t->textures) out.insert(lower(tex.name));
    }
    return out;
}

// The base colour a material gets: its first `_a` texture the texbnd holds, as is or as its
// `_l` twin (the glTF writer's rule).
std::string base_colour(const flver::Material& m, const std::set<std::string>& names) {
    for (const auto& t : m.textures) {
        const std::string k = stem(t.path);
        if (!ends(k, "_a")) continue;
        if (names.count(k)) return k;
        if (names.count(k + "_l")) return k + "_l";
    }
    return "";
}

}  // namespace

TEST_CASE("materials: a FLVER material's empty texture paths come from its MATBIN samplers") {
    test::MatbinSpec spec;
    spec.source = "N:\\GR\\data\\Material\\mtd\\Chr\\matxml\\C[c9999]_Body.matxml";
    spec.params = {{"g_AlphaRef", 5, {50, 7}}};
    spec.samplers = {{"Slot_AlbedoMap", "N:\\x\\c9999_BD_a.tif", {0, 0}},
                     {"Slot_NormalMap", "N:\\x\\c9999_BD_n.tif", {0, 0}},
                     {"Slot_Extra", "N:\\x\\c9999_extra_m.tif", {0, 0}},
                     {"Slot_Unused", "", {0, 0}}};
    bnd::Binder b;
    bnd::Entry e;
    e.name = "N:\\GR\\data\\INTERROOT_win64\\material\\matbin\\Chr\\matxml\\C[c9999]_Body.matbin";
    b.entries = {e};
    auto matbin_bytes = test::make_matbin(spec);
    auto bytes = bnd::write_bnd4(b, {Bytes(matbin_bytes)});
    REQUIRE(bytes);
    matbin::MaterialLibrary lib;
    REQUIRE(lib.add_bytes(std::move(*bytes), "t.matbinbnd"));

    flver::Model model;
    flver::Material body;
    body.name = "body";
    body.mtd = "N:\\GR\\data\\Material\\mtd\\Chr\\matxml\\C[c9999]_Body.matxml";
    body.textures = {{"", "slot_albedomap"}, {"N:\\keep\\mine_n.tif", "Slot_NormalMap"}, {"", "Slot_NotInMatbin"}};
    flver::Material lost;
    lost.name = "lost";
    lost.mtd = "N:\\GR\\data\\Material\\mtd\\Chr\\matxml\\C[c9999]_Missing.matxml";
    lost.textures = {{"", "Slot_AlbedoMap"}};
    model.materials = {body, lost};

    auto warnings = game::resolve_material_textures(model, lib);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0] == "material lost: no definition C[c9999]_Missing.matxml in the material binders");
    CHECK(game::resolved_material_count(model) == 1);
    const auto& m = model.materials[0];
    REQUIRE(m.textures.size() == 4);
    CHECK(m.textures[0].path == "N:\\x\\c9999_BD_a.tif");
    CHECK(m.textures[1].path == "N:\\keep\\mine_n.tif");  // the FLVER's own path wins
    CHECK(m.textures[2].path.empty());
    CHECK(m.textures[3].type == "Slot_Extra");  // named by the MATBIN only: appended
    CHECK(m.textures[3].path == "N:\\x\\c9999_extra_m.tif");
    CHECK(m.definition == e.name);
    CHECK(m.shader == spec.shader);
    REQUIRE(m.params.size() == 1);
    CHECK(m.params[0].name == "g_AlphaRef");
    CHECK(m.params[0].values == std::vector<double>{50, 7});
    CHECK(model.materials[1].definition.empty());
    CHECK(model.materials[1].textures[0].path.empty());
}

TEST_CASE("materials: every material of the corpus ER and Sekiro characters resolves, body materials get a base colour" * doctest::test_suite("corpus")) {
    matbin::MaterialLibrary er, sekiro;
    REQUIRE(er.add_file(test::corpus("er/game/material/allmaterial.matbinbnd.dcx")));
    REQUIRE(er.add_file(test::corpus("er/game/material/allmaterial_dlc01.matbinbnd.dcx")));
    REQUIRE(sekiro.add_file(test::corpus("sekiro/allmaterialbnd.mtdbnd.dcx")));
    struct Character {
        std::string chrbnd;
        std::string texbnd;  // the best the corpus has: _h, else _l ("" = none)
        const matbin::MaterialLibrary* lib;
        size_t materials, resolved;  // materials: drape inspect; resolved: members present in the binders
        std::vector<std::pair<std::string, std::string>> body;  // material name -> texbnd texture
    };
    // c7190 names 9 MTDs (c7190_legparts, _kozane, _seamfray_e, _legparts_cloth,
    // _seamfray_e_cloth, _weaponrope) that Sekiro's allmaterialbnd does not hold; c2030 names
    // P[BD_M_5250]_eye.matxml, which neither Elden Ring binder holds.
    const Character characters[] = {
        {"er/game/chr/c2030.chrbnd.dcx", "er/game/chr/c2030_l.texbnd.dcx", &er, 20, 19,
         {{"c2030_Skin", "c2030_skin_a_l"}, {"c2030_HD", "c2030_hd_a_l"}, {"c2030_LG", "c2030_lg_a_l"}}},
        {"er/game/chr/c3061.chrbnd.dcx", "er/game/chr/c3061_h.texbnd.dcx", &er, 15, 15,
         {{"beastskelton", "c3061_beastskelton_a"}, {"head", "c3061_beasthead_a"}, {"fur", "c3061_beast_furcolor_a"}}},
        {"er/game/chr/c4361.chrbnd.dcx", "er/game/chr/c4361_h.texbnd.dcx", &er, 13, 13, {{"basebody", "c4361_body_a"}}},
        {"er/game/chr/c5000.chrbnd.dcx", "er/game/chr/c5000_l.texbnd.dcx", &er, 20, 20,
         {{"c5000_BD", "c5000_bd_a_l"}, {"c5000_BD_Fabric", "c5000_bd_a_l"}, {"c5000_Boar_Body", "c5000_boar_a_l"}}},
        {"sekiro/c7190.chrbnd.dcx", "", &sekiro, 27, 18, {}},
    };
    size_t flvers = 0;
    for (const auto& c : characters) {
        CAPTURE(c.chrbnd);
        auto fl = test::flvers_in(c.chrbnd);
        REQUIRE(fl.size() == 1);
        auto model = flver::read_flver(fl[0].bytes);
        REQUIRE(model);
        ++flvers;
        REQUIRE(model->materials.size() == c.materials);
        auto warnings = game::resolve_material_textures(*model, *c.lib);
        for (const auto& w : warnings) {
            CHECK(w.find("no definition") != std::string::npos);
        }
        CHECK(game::resolved_material_count(*model) == c.resolved);
        CHECK(warnings.size() == c.materials - c.resolved);
        std::set<std::string> names;
        if (!c.texbnd.empty()) names = texbnd_names(c.texbnd);
        for (const auto& body : c.body) {
            const std::string& material = body.first;
            const std::string& texture = body.second;
            bool seen = false;
            for (const auto& m : model->materials) {
                if (m.name != material) continue;
                seen = true;
                CHECK_MESSAGE(base_colour(m, names) == texture, material);
            }
            CHECK_MESSAGE(seen, material);
        }
        // Every resolved material has a texture path in every slot its definition fills, and
        // a shader.
        for (const auto& m : model->materials) {
            if (m.definition.empty()) continue;
            CHECK(!m.shader.empty());
            size_t with_path = 0;
            for (const auto& t : m.textures) with_path += t.path.empty() ? 0 : 1;
            CHECK_MESSAGE(with_path > 0, m.name);
        }
    }
    CHECK(flvers == 5);
}
