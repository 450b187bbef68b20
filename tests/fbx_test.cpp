// FBX output through Assimp: a drape glb (skinned model; skeleton with a clip) becomes an FBX
// whose meshes, vertex counts, bone names and animations equal the glb's, read back with
// Assimp, and Blender imports it headless.
#ifdef DRAPE_HAVE_FBX
#include <doctest/doctest.h>

#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "corpus.h"
#include "drape/anim/anibnd.h"
#include "drape/convert/convert.h"
#include "drape/exporters/animation_glb.h"
#include "drape/exporters/fbx.h"
#include "drape/exporters/gltf.h"
#include "drape/io/file.h"
#include "flver_corpus.h"
#include "sample_game.h"

using namespace drape;
using json = nlohmann::json;

namespace {

// What the glb holds, from its JSON (not through Assimp).
struct GlbFacts {
    size_t primitives = 0, vertices = 0, triangles = 0, animations = 0;
    std::set<std::string> joints;
};
GlbFacts glb_facts(const std::vector<uint8_t>& glb) {
    GlbFacts f;
    auto g = exporters::read_glb(glb);
    REQUIRE(g);
    const json j = json::parse(g->json);
    for (const auto& m : j.value("meshes", json::array()))
        for (const auto& p : m["primitives"]) {
            ++f.primitives;
            f.vertices += j["accessors"][p["attributes"]["POSITION"].get<size_t>()]["count"].get<size_t>();
            f.triangles += j["accessors"][p["indices"].get<size_t>()]["count"].get<size_t>() / 3;
        }
    for (const auto& s : j.value("skins", json::array()))
        for (const auto& n : s["joints"]) f.joints.insert(j["nodes"][n.get<size_t>()]["name"].get<std::string>());
    f.animations = j.value("animations", json::array()).size();
    return f;
}

std::set<std::string> node_names(const aiNode* n) {
    std::set<std::string> out;
    std::function<void(const aiNode*)> walk = [&](const aiNode* x) {
        out.insert(x->mName.C_Str());
        for (unsigned i = 0; i < x->mNumChildren; ++i) walk(x->mChildren[i]);
    };
    walk(n);
    return out;
}

// Assimp reads the FBX back with the glb's primitives as meshes, its triangles, skinned bones that
// are glTF joints and every joint as a node. (Assimp's FBX importer unshares vertices, one per
// triangle corner, so triangles are compared here; Blender reads the FBX's own vertices.)
void check_with_assimp(const std::vector<uint8_t>& fbx, const GlbFacts& facts) {
    Assimp::Importer importer;
    const aiScene* scene = importer.ReadFileFromMemory(fbx.data(), fbx.size(), 0, "fbx");
    REQUIRE_MESSAGE(scene, std::string(importer.GetErrorString()));
    CHECK(scene->mNumMeshes == facts.primitives);
    size_t triangles = 0;
    std::set<std::string> bones;
    for (unsigned i = 0; i < scene->mNumMeshes; ++i) {
        triangles += scene->mMeshes[i]->mNumFaces;
        for (unsigned b = 0; b < scene->mMeshes[i]->mNumBones; ++b) bones.insert(scene->mMeshes[i]->mBones[b]->mName.C_Str());
    }
    CHECK(triangles == facts.triangles);
    REQUIRE(!bones.empty());
    for (const auto& b : bones) CHECK_MESSAGE(facts.joints.count(b) == 1, b);  // skinned bones are glTF joints
    const auto nodes = node_names(scene->mRootNode);
    for (const auto& j : facts.joints) CHECK_MESSAGE(nodes.count(j) == 1, j);  // every joint is a node
}

bool blender_available() {
    if (std::system("blender --version > /dev/null 2>&1") == 0) return true;
    const char* skip = std::getenv("DRAPE_SKIP_EXTERNAL");
    if (skip && std::string(skip) == "1") return false;
    FAIL("Blender is not installed (apt-get install blender), or set DRAPE_SKIP_EXTERNAL=1");
    return false;
}

json blender_import(const std::filesystem::path& fbx, const std::filesystem::path& dir) {
    const auto result = dir / (fbx.stem().string() + ".blender.json");
    std::string cmd = "blender -b --factory-startup --python ";
    cmd.append(DRAPE_SOURCE_DIR).append("/tests/blender_fbx/check_fbx.py -- ").append(fbx.string()).append(" ").append(result.string());
    cmd.append(" > ").append((dir / (fbx.stem().string() + ".blender.log")).string()).append(" 2>&1");
    CHECK(std::system(cmd.c_str()) == 0);
    std::ifstream in(result);
    REQUIRE_MESSAGE(in.good(), "Blender wrote no result; see the .blender.log in " << dir.string());
    return json::parse(in);
}

}  // namespace

TEST_CASE("fbx: a skinned model's FBX has the glb's meshes, vertices and bone names (Assimp and Blender)" * doctest::test_suite("corpus+external")) {
    auto items = test::flvers_in("ds3/EliteKnight.flver");
    REQUIRE(items.size() == 1);
    auto model = flver::read_flver(items[0].bytes);
    REQUIRE(model);
    exporters::GltfOptions options;
    auto glb = exporters::gltf_bytes(*model, options);
    REQUIRE(glb);
    const GlbFacts facts = glb_facts(*glb);
    REQUIRE(facts.primitives > 0);
    REQUIRE(facts.joints.size() > 50);

    auto fbx = exporters::fbx_from_glb(*glb);
    REQUIRE_MESSAGE(fbx, (fbx ? std::string() : fbx.error().to_string()));
    REQUIRE(fbx->size() > 27);
    CHECK(std::string(fbx->begin(), fbx->begin() + 20) == "Kaydara FBX Binary  ");

    check_with_assimp(*fbx, facts);

    const auto dir = test::scratch_dir("fbx_model");
    const auto path = dir / "EliteKnight.fbx";
    REQUIRE(write_file(path, *fbx));
    if (!blender_available()) return;
    const json r = blender_import(path, dir);
    INFO(r.dump(1));
    CHECK(r["error"] == "");
    CHECK(r["meshes"].get<size_t>() == facts.primitives);
    CHECK(r["vertices"].get<size_t>() == facts.vertices);
    std::set<std::string> blender_bones;
    for (const auto& b : r["bones"]) blender_bones.insert(b.get<std::string>());
    for (const auto& j : facts.joints) CHECK_MESSAGE(blender_bones.count(j) == 1, j);
}

TEST_CASE("fbx: a clip's FBX carries the animation on the named bones (Assimp and Blender)" * doctest::test_suite("corpus+external")) {
    auto clips = anim::read_clip_set(test::load(test::corpus("bb/a000_003000.hkx")), "bb/a000_003000.hkx");
    auto skels = anim::read_clip_set(test::load(test::corpus("bb/skeleton.HKX")), "bb/skeleton.HKX");
    REQUIRE(clips);
    REQUIRE(skels);
    REQUIRE(clips->clips.size() == 1);
    const auto& skel = skels->skeletons.at(0);
    auto glb = exporters::animation_glb(skel, clips->clips);
    REQUIRE(glb);
    const GlbFacts facts = glb_facts(*glb);
    REQUIRE(facts.animations == 1);

    auto fbx = exporters::fbx_from_glb(*glb);
    REQUIRE_MESSAGE(fbx, (fbx ? std::string() : fbx.error().to_string()));
    // Assimp 5.2 reads the file back but imports no animation from an FBX without meshes, so
    // the clip is checked in Blender; Assimp checks that the file parses and holds the bones.
    Assimp::Importer importer;
    const aiScene* scene = importer.ReadFileFromMemory(fbx->data(), fbx->size(), 0, "fbx");
    REQUIRE_MESSAGE(scene, std::string(importer.GetErrorString()));
    const auto nodes = node_names(scene->mRootNode);
    for (const auto& name : skel.bone_names) CHECK_MESSAGE(nodes.count(name) == 1, name);

    const auto dir = test::scratch_dir("fbx_clip");
    const auto path = dir / "a000_003000.fbx";
    REQUIRE(write_file(path, *fbx));
    if (!blender_available()) return;
    const json r = blender_import(path, dir);
    INFO(r.dump(1));
    CHECK(r["error"] == "");
    // Blender imports a skeleton without a skin as empties, one action per animated bone
    // ("<bone>|<clip>|..."): every bone of the skeleton is animated by the clip.
    std::set<std::string> animated;
    for (const auto& a : r["actions"]) {
        const std::string n = a.get<std::string>();
        animated.insert(n.substr(0, n.find('|')));
    }
    size_t found = 0;
    for (const auto& name : skel.bone_names) found += animated.count(name);
    CHECK(found == skel.bone_names.size());
}

TEST_CASE("fbx: drape convert --format fbx on a game folder: the glb's meshes, triangles, bones and clip (Assimp and Blender)" * doctest::test_suite("external")) {
    // The sample game (a character with skeleton, clip, textures and cloth), converted twice:
    // glb (the reference, read as JSON) and fbx (read back with Assimp and Blender).
    const auto dir = test::scratch_dir("fbx_convert");
    REQUIRE(test::write_sample_game(dir / "game"));
    convert::Options o;
    o.jobs = 1;
    o.cloth = false;
    const auto glb_report = convert::convert_folder(dir / "game", dir / "glb", o);
    REQUIRE(glb_report.items.size() == 1);
    REQUIRE_MESSAGE(glb_report.items[0].ok, glb_report.items[0].error);
    o.format = convert::Format::fbx;
    const auto fbx_report = convert::convert_folder(dir / "game", dir / "fbx", o);
    REQUIRE(fbx_report.items.size() == 1);
    REQUIRE_MESSAGE(fbx_report.items[0].ok, fbx_report.items[0].error);
    CHECK(fbx_report.exit_code() == 0);
    const auto path = dir / "fbx/chr/c9999.fbx";
    REQUIRE(std::filesystem::exists(path));
    CHECK_FALSE(std::filesystem::exists(dir / "fbx/chr/c9999.glb"));
    bool listed = false;
    for (const auto& out : fbx_report.items[0].outputs) listed = listed || out == "chr/c9999.fbx";
    CHECK(listed);

    const GlbFacts facts = glb_facts(test::load(dir / "glb/chr/c9999.glb"));
    REQUIRE(facts.primitives >= 2);
    REQUIRE(facts.joints.size() >= size_t(test::SampleFacts::bones));  // the FLVER's bones, the skeleton's among them
    REQUIRE(facts.animations == 1);
    const auto fbx = test::load(path);
    REQUIRE(fbx.size() > 27);
    CHECK(std::string(fbx.begin(), fbx.begin() + 20) == "Kaydara FBX Binary  ");
    check_with_assimp(fbx, facts);

    if (!blender_available()) return;
    const json r = blender_import(path, dir);
    INFO(r.dump(1));
    CHECK(r["error"] == "");
    CHECK(r["meshes"].get<size_t>() == facts.primitives);
    CHECK(r["vertices"].get<size_t>() == facts.vertices);
    std::set<std::string> blender_bones;
    for (const auto& b : r["bones"]) blender_bones.insert(b.get<std::string>());
    for (const auto& j : facts.joints) CHECK_MESSAGE(blender_bones.count(j) == 1, j);
    bool clip = false;
    for (const auto& a : r["actions"]) clip = clip || a.get<std::string>().find(test::SampleFacts::clip) != std::string::npos;
    CHECK_MESSAGE(clip, "the sample's clip is an action");
}

TEST_CASE("fbx: bytes that are not a glb are refused with a reason") {
    std::vector<uint8_t> junk = {'n', 'o', 'p', 'e', 0, 0, 0, 0, 0, 0, 0, 0};
    auto r = exporters::fbx_from_glb(junk);
    REQUIRE_FALSE(r);
    CHECK(r.error().to_string().find("not a glb") != std::string::npos);
    std::vector<uint8_t> bad = {'g', 'l', 'T', 'F', 2, 0, 0, 0, 12, 0, 0, 0};
    auto b = exporters::fbx_from_glb(bad);
    REQUIRE_FALSE(b);
    CHECK(b.error().to_string().find("Assimp cannot read the glb") != std::string::npos);
}
#endif
