// importers/game: the one container walker, the loaders and the sniffers; exporters: texture
// encoding and the cloth binding's mesh list. Synthetic binders, plus corpus files where named.
#include <doctest/doctest.h>

#include "corpus.h"
#include "drape/exporters/gltf.h"
#include "drape/exporters/model_meshes.h"
#include "drape/exporters/textures.h"
#include "drape/game/containers.h"
#include "drape/game/identify.h"
#include "drape/game/loaders.h"
#include "drape/tpf/tpf.h"
#include "flver_fixture.h"
#include "game_fixtures.h"

using namespace drape;

namespace {

std::vector<uint8_t> text(const std::string& s) { return {s.begin(), s.end()}; }

}  // namespace

TEST_CASE("game walker: leaves in binder order through DCX and nested BND4, with the member chain") {
    auto inner = test::make_bnd4({{"in\\b.txt", text("B")}, {"in\\c.txt", text("C")}});
    auto outer = test::make_dcx(test::make_bnd4({{"a.txt", text("A")}, {"inner.bnd", test::make_dcx(inner)}}));
    auto members = game::open_members(outer, "x.bnd.dcx", {});
    REQUIRE(members);
    REQUIRE(members->size() == 3);
    CHECK((*members)[0].name == "x.bnd.dcx > a.txt");
    CHECK((*members)[1].name == "x.bnd.dcx > inner.bnd > in\\b.txt");
    CHECK((*members)[2].name == "x.bnd.dcx > inner.bnd > in\\c.txt");
    CHECK((*members)[2].bytes == text("C"));
    // A file that is no container is its own single member.
    auto loose = game::open_members(text("plain"), "p.txt", {});
    REQUIRE(loose);
    REQUIRE(loose->size() == 1);
    CHECK(loose->front().name == "p.txt");
}

TEST_CASE("game walker: a truncated DCX member fails the strict walk and is skipped by the lenient one") {
    auto good = test::make_dcx(text("payload"));
    auto cut = std::vector<uint8_t>(good.begin(), good.begin() + long(good.size() / 2));
    auto bnd = test::make_bnd4({{"bad.dcx", cut}, {"good.txt", text("G")}});
    auto strict = game::open_members(bnd, "b.bnd", {});
    REQUIRE_FALSE(strict);
    const std::string message = strict.error().to_string();
    CHECK(message.find("b.bnd") != std::string::npos);
    CHECK(message.find("bad.dcx") != std::string::npos);
    std::vector<Error> errors;
    auto lenient = game::open_members_lenient(bnd, "b.bnd", {}, errors);
    CHECK(errors.size() == 1);
    REQUIRE(lenient.size() == 1);
    CHECK(lenient[0].bytes == text("G"));
}

TEST_CASE("game walker: nesting deeper than the limit is an error, not a stack overflow") {
    std::vector<uint8_t> b = text("leaf");
    for (unsigned i = 0; i <= game::k_max_container_depth + 1; ++i) b = test::make_bnd4({{"n", b}});
    auto r = game::open_members(b, "deep", {});
    REQUIRE_FALSE(r);
    CHECK(r.error().to_string().find("nested deeper than 6") != std::string::npos);
}

TEST_CASE("game walker: the visitor can stop the walk at the first match") {
    auto bnd = test::make_bnd4({{"a", text("A")}, {"b", text("B")}, {"c", text("C")}});
    int seen = 0;
    game::walk_members(
        bnd, "s", {},
        [&](game::Member&& m) {
            ++seen;
            return m.bytes == text("B") ? game::Visit::stop : game::Visit::next;
        },
        [](Error&&) { return game::Visit::next; });
    CHECK(seen == 2);
}

TEST_CASE("game loaders: the FLVER inside a binder, errors with the member chain") {
    test::FlverFixture fx;
    auto flver = fx.build();
    auto bnd = test::make_dcx(test::make_bnd4({{"c1.tpf", text("TPF\0xx")}, {"N:\\c1\\c1.flver", flver}}));
    auto m = game::load_flver(bnd, "c1.chrbnd.dcx", {});
    REQUIRE(m);
    CHECK(m->nodes.size() == fx.node_count);
    auto none = game::load_flver(test::make_bnd4({{"a.txt", text("A")}}), "n.bnd", {});
    REQUIRE_FALSE(none);
    CHECK(none.error().to_string().find("no FLVER inside") != std::string::npos);
    std::vector<uint8_t> broken(flver.begin(), flver.begin() + 40);
    auto bad = game::load_flver(test::make_bnd4({{"N:\\c1\\c1.flver", broken}}), "c1.chrbnd", {});
    REQUIRE_FALSE(bad);
    REQUIRE(bad.error().chain.size() >= 2);
    CHECK(bad.error().chain[0] == "c1.chrbnd");
    CHECK(bad.error().chain[1] == "N:\\c1\\c1.flver");
}

TEST_CASE("game loaders: TPFs through the layers, sniffers, game of an SDK, BXF4 pairing") {
    const std::vector<uint8_t> tpf_magic = {'T', 'P', 'F', 0, 1, 2};
    auto bnd = test::make_dcx(test::make_bnd4({{"a.tpf", tpf_magic}, {"b.txt", text("B")}, {"c.tpf.dcx", test::make_dcx(tpf_magic)}}));
    CHECK(game::collect_tpfs(bnd, {}).size() == 2);
    CHECK(tpf::is_tpf(tpf_magic));
    CHECK_FALSE(tpf::is_tpf(text("TPF")));
    CHECK(game::identify(tpf_magic) == game::Kind::tpf);
    CHECK(game::is_drcloth(text("xxxxDRCLyy")));
    CHECK(game::game_of_sdk("20180100") == "Elden Ring");
    CHECK(game::game_of_sdk("20160200") == "Sekiro");
    CHECK(game::game_of_sdk("hk_2014.1.0-r1").empty());
    CHECK(game::bdt_beside("a/c0000.chrbhd") == std::filesystem::path("a/c0000.chrbdt"));
    CHECK(game::bdt_beside("x.bhd") == std::filesystem::path("x.bdt"));
    CHECK(game::bdt_beside("x.dcx").empty());
}

TEST_CASE("game loaders: the skeleton of a corpus anibnd (DS3 c2080)" * doctest::test_suite("corpus")) {
    auto s = game::load_havok_skeleton(test::corpus("ds3/c2080.anibnd.dcx"), {});
    REQUIRE(s);
    REQUIRE(s->has_value());
    CHECK((*s)->bone_names.size() > 10);
    auto sk = exporters::skeleton_from_havok(**s);
    CHECK(sk.bones.size() == (*s)->bone_names.size());
    CHECK(sk.bones[0].name == (*s)->bone_names[0]);
}

TEST_CASE("texture export: every corpus TPF texture encodes once, normal maps get blue rebuilt" * doctest::test_suite("corpus")) {
    const auto bytes = test::load(test::corpus("ds3/EliteKnight.tpf"));
    auto t = tpf::read_tpf(bytes);
    REQUIRE(t);
    auto enc = image::encode_tpf_textures(*t);
    REQUIRE(enc.size() == t->textures.size());
    size_t normals = 0, ok = 0;
    for (const auto& e : enc) {
        ok += !e.png.empty();
        normals += e.normal_rebuilt;
        CHECK(e.key == exporters::texture_key(e.name));
    }
    CHECK(ok == enc.size());
    CHECK(normals >= 1);
    auto dir = test::scratch_dir("texture_export");
    std::map<std::string, std::string> uris;
    REQUIRE(image::write_textures(enc, dir / "tex", "tex/", uris));
    CHECK(uris.size() == enc.size());
    for (const auto& [k, v] : uris) CHECK(std::filesystem::exists(dir / v));
}

TEST_CASE("cloth binding meshes: one per FLVER mesh, named as the glTF exporter names them") {
    test::FlverFixture fx;
    auto bytes = fx.build();
    auto m = flver::read_flver(bytes);
    REQUIRE(m);
    auto meshes = exporters::cloth_model_meshes(*m);
    REQUIRE(meshes.size() == m->meshes.size());
    REQUIRE(meshes.size() == 1);
    CHECK(meshes[0].gltf_name == exporters::gltf_mesh_name(*m, 0));
    CHECK(meshes[0].vertex_count == test::FlverFixture::k_vertex_count);
    CHECK(meshes[0].positions.size() == test::FlverFixture::k_vertex_count);
}
