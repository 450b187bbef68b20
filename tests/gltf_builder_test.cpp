// exporters/gltf: the one document builder (model + clips + morph targets in one GltfDocument)
// and meshes that vanish (a FLVER mesh without triangles).
#include <doctest/doctest.h>

#include <cstring>
#include <stdexcept>
#include <nlohmann/json.hpp>

#include "drape/exporters/animation_glb.h"
#include "drape/exporters/gltf.h"
#include "drape/exporters/gltf_document.h"
#include "drape/flver/flver.h"
#include "flver_fixture.h"

using namespace drape;
using json = nlohmann::json;

namespace {

void set_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) { std::memcpy(b.data() + at, &v, 4); }

json json_of(const std::vector<uint8_t>& glb) {
    auto g = exporters::read_glb(glb);
    REQUIRE(g);
    return json::parse(g->json);
}

bool any_contains(const std::vector<std::string>& v, const std::string& s) {
    for (const auto& x : v)
        if (x.find(s) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("gltf builder: no face set with the LOD0 flags takes the first face set as LOD0, with a warning") {
    test::FlverFixture fx;
    auto bytes = fx.build();
    set_u32(bytes, fx.at.faceset, 0x01000000);  // LOD1 only
    auto m = flver::read_flver(bytes);
    REQUIRE(m);
    REQUIRE(m->meshes[0].lod0() == nullptr);
    exporters::GltfDocument doc;
    exporters::ModelReport rep;
    REQUIRE(exporters::add_model(doc, *m, {}, &rep));
    CHECK(rep.meshes_written == 1);
    CHECK(rep.meshes_dropped == 0);
    CHECK(any_contains(rep.warnings, "no face set has the LOD0 flags"));
    const json j = json_of(doc.glb());
    REQUIRE(j.contains("meshes"));
    CHECK(j["meshes"].size() == 1);
    CHECK(j.contains("skins"));
}

TEST_CASE("gltf builder: a model without triangles gives a file with nodes and no skin, and says why") {
    test::FlverFixture fx;
    auto bytes = fx.build();
    set_u32(bytes, fx.at.faceset + 8, 0);  // no indices
    auto m = flver::read_flver(bytes);
    REQUIRE(m);
    exporters::GltfDocument doc;
    exporters::ModelReport rep;
    auto placed = exporters::add_model(doc, *m, {}, &rep);
    REQUIRE(placed);
    CHECK(rep.meshes_written == 0);
    CHECK(rep.meshes_dropped == 1);
    CHECK(any_contains(rep.warnings, "no triangles; left out"));
    CHECK(any_contains(rep.warnings, "no drawable mesh"));
    CHECK(placed->skin == -1);
    const json j = json_of(doc.glb());
    // Godot 3 refuses a skin that no mesh uses; Blender and Godot open a file of nodes.
    CHECK_FALSE(j.contains("skins"));
    CHECK_FALSE(j.contains("meshes"));
    CHECK(j["nodes"].size() == 1 + m->nodes.size() + m->dummies.size());
}

TEST_CASE("gltf builder: model, clips and morph targets in one document, written once") {
    test::FlverFixture fx;
    auto m = flver::read_flver(fx.build());
    REQUIRE(m);
    exporters::GltfDocument doc;
    exporters::GltfOptions go;
    go.name = "fixture";
    auto placed = exporters::add_model(doc, *m, go);
    REQUIRE(placed);
    // A one-bone skeleton named like FLVER node 0 and a two-frame clip moving it.
    havok::Skeleton skel;
    skel.name = "fixture";
    skel.bone_names = {m->nodes[0].name};
    skel.parents = {-1};
    skel.reference_pose.resize(1);
    anim::Clip clip;
    clip.name = "a000_000000";
    clip.num_tracks = 1;
    clip.num_frames = 2;
    clip.duration = 1.0f / 30;
    clip.frame_duration = 1.0f / 30;
    clip.track_to_bone = {0};
    clip.frames.resize(2);
    clip.frames[1].translation = {0, 1, 0};
    exporters::AnimationGlbReport arep;
    REQUIRE(exporters::add_clips(doc, skel, std::span<const anim::Clip>(&clip, 1), {}, &arep));
    CHECK(arep.animations == 1);
    // The baker's extension point: morph targets on a written mesh, found by its glTF name.
    const int mesh = doc.mesh_by_name(exporters::gltf_mesh_name(*m, 0));
    REQUIRE(mesh >= 0);
    const size_t verts = test::FlverFixture::k_vertex_count;
    std::vector<std::vector<float>> deltas = {std::vector<float>(verts * 3, 0.5f)};
    REQUIRE(doc.add_morph_targets(mesh, deltas));
    std::vector<std::vector<float>> wrong = {std::vector<float>(3, 0.0f)};
    CHECK_FALSE(doc.add_morph_targets(mesh, wrong));
    const auto glb = doc.glb();
    const json j = json_of(glb);
    CHECK(j["animations"].size() == 1);
    CHECK(j["animations"][0]["name"] == "a000_000000");
    CHECK(j["meshes"][size_t(mesh)]["primitives"][0]["targets"].size() == 1);
    CHECK(j["meshes"][size_t(mesh)]["weights"].size() == 1);
    // The document read back from its own bytes is the same document (one codec).
    auto again = exporters::GltfDocument::from_glb(glb);
    REQUIRE(again);
    CHECK(again->json()["animations"] == j["animations"]);
    CHECK(again->bin().size() == doc.bin().size());
}

TEST_CASE("gltf document: nodes named without an ASCII letter or digit get a node<i>_ prefix, the game's name kept in extras") {
    nlohmann::json doc = {{"nodes",
                           {{{"name", "Spine"}},
                            {{"name", "\xE8\x82\xA9\xE4\xBD\x8D\xE7\xBD\xAE/\xE8\xA7\x92"}},  // 肩位置/角 (no ASCII letter or digit)
                            {{"name", "_/_"}, {"extras", {{"keep", 1}}}},
                            {{"mesh", 0}}}}};
    CHECK(drape::exporters::prefix_latin_less_node_names(doc) == 2);
    CHECK(doc["nodes"][0]["name"] == "Spine");
    CHECK(doc["nodes"][1]["name"] == "node1_\xE8\x82\xA9\xE4\xBD\x8D\xE7\xBD\xAE/\xE8\xA7\x92");
    CHECK(doc["nodes"][1]["extras"]["game_name"] == "\xE8\x82\xA9\xE4\xBD\x8D\xE7\xBD\xAE/\xE8\xA7\x92");
    CHECK(doc["nodes"][2]["name"] == "node2__/_");
    CHECK(doc["nodes"][2]["extras"]["keep"] == 1);
    CHECK(!doc["nodes"][3].contains("name"));
    CHECK(drape::exporters::prefix_latin_less_node_names(doc) == 0);  // already prefixed: nothing more
}

TEST_CASE("gltf document: text elements write the same bytes as the same elements in the tree, and keep their indices") {
    const std::vector<float> data = {0.0f, 0.5f, 1.0f / 3};
    const json acc = {{"bufferView", 0}, {"byteOffset", 4}, {"componentType", 5126}, {"count", 2}, {"type", "SCALAR"},
                      {"min", {0.5f}}, {"max", {1.0f / 3}}};
    const json anim = {{"name", "clip \xC3\xA9"}, {"samplers", json::array({{{"input", 0}, {"interpolation", "LINEAR"}, {"output", 1}}})},
                       {"channels", json::array({{{"sampler", 0}, {"target", {{"node", 0}, {"path", "rotation"}}}}})}};
    auto make = [&](bool as_text) {
        exporters::GltfDocument doc;
        doc.json()["nodes"] = json::array({{{"name", "n"}}});
        const int first = doc.add_accessor(std::span<const float>(data), "SCALAR", 0, true);  // in the tree
        CHECK(first == 0);
        if (as_text) {
            CHECK(doc.append_accessor_text(acc.dump()) == 1);
            CHECK(doc.append_animation_text(anim.dump()) == 0);
        } else {
            doc.json()["accessors"].push_back(acc);
            doc.json()["animations"] = json::array({anim});
        }
        // An accessor added after text accessors follows them (as text itself).
        CHECK(doc.add_accessor(std::span<const float>(data), "SCALAR") == 2);
        CHECK(doc.accessor_count() == 3);
        CHECK(doc.animation_count() == 1);
        return doc;
    };
    const exporters::GltfDocument tree = make(false), text = make(true);
    CHECK(text.glb() == tree.glb());
    CHECK(json::parse(text.gltf_text("x.bin")) == json::parse(tree.gltf_text("x.bin")));
    const json j = json_of(text.glb());
    REQUIRE(j["accessors"].size() == 3);
    CHECK(j["accessors"][1] == acc);
    CHECK(j["accessors"][2]["byteOffset"] == 0);
    CHECK(j["animations"][0] == anim);
    CHECK(j["buffers"][0]["byteLength"] == text.bin().size());
    // The tree's array grown behind the text elements' back: their indices would be wrong.
    exporters::GltfDocument broken = make(true);
    broken.json()["accessors"].push_back(acc);
    CHECK_THROWS_AS(broken.glb(), std::logic_error);
}

TEST_CASE("gltf document: morph targets refuse a mesh whose POSITION accessor is a text element") {
    exporters::GltfDocument doc;
    const std::vector<float> pos = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    doc.json()["accessors"] = json::array();
    const int a = doc.append_accessor_text(R"({"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"})");
    doc.json()["meshes"] = json::array({{{"name", "m"}, {"primitives", json::array({{{"attributes", {{"POSITION", a}}}}})}}});
    std::vector<std::vector<float>> deltas = {pos};
    auto r = doc.add_morph_targets(0, deltas);
    REQUIRE_FALSE(r);
    CHECK(r.error().to_string().find("not in the JSON tree") != std::string::npos);
}

TEST_CASE("gltf document: a view written piecewise lies where its bytes went, and nothing else may add a view while it is open") {
    exporters::GltfDocument doc;
    const uint8_t three[3] = {1, 2, 3};
    CHECK(doc.add_view(three, 3) == 0);  // leaves the buffer at 3 bytes: the next view is padded to 4
    CHECK_THROWS_AS(doc.append_to_view(three, 3), std::logic_error);
    CHECK_THROWS_AS(doc.end_view(), std::logic_error);

    const size_t offset = doc.begin_view();
    CHECK(offset == 4);
    const float a[2] = {1.5f, -2.0f}, b[1] = {7.0f};
    doc.append_to_view(a, sizeof a);
    CHECK_THROWS_AS(doc.add_view(three, 3), std::logic_error);
    CHECK_THROWS_AS(doc.add_accessor(std::span<const float>(b, 1), "SCALAR"), std::logic_error);
    CHECK_THROWS_AS(doc.begin_view(), std::logic_error);
    doc.append_to_view(b, sizeof b);
    CHECK(doc.end_view(0, "piecewise") == 1);

    const json& views = doc.json()["bufferViews"];
    REQUIRE(views.size() == 2);
    CHECK(views[1]["byteOffset"] == 4);
    CHECK(views[1]["byteLength"] == 12);
    CHECK(views[1]["name"] == "piecewise");
    REQUIRE(doc.bin().size() == 16);
    float back[3];
    std::memcpy(back, doc.bin().data() + 4, sizeof back);
    CHECK(back[0] == 1.5f);
    CHECK(back[1] == -2.0f);
    CHECK(back[2] == 7.0f);
    CHECK(doc.add_view(three, 3) == 2);  // closed again: add_view works
}
