// exporters/json/havok_json: the object graph dump behind `drape inspect FILE.hkx --json`.
#include <doctest/doctest.h>

#include <fstream>

#include "corpus.h"
#include "havok_corpus.h"
#include "drape/exporters/havok_json.h"

TEST_CASE("havok json: the BB skeleton's object graph, pointers as refs, members by name" * doctest::test_suite("corpus")) {
    auto f = drape::test::load_hkx("bb/skeleton.HKX");
    REQUIRE(f);
    const nlohmann::json j = drape::exporters::havok_json(*f, 0);
    CHECK(j["form"] == "packfile");
    CHECK(j["sdk"] == "hk_2014.1.0-r1");
    REQUIRE(j["objects"].size() == 3);  // root, animation container, skeleton (MANIFEST classes)
    CHECK(j["objects"][0]["class"] == "hkRootLevelContainer");
    CHECK(j["objects"][0]["members"]["namedVariants"][0]["variant"]["ref"] == j["objects"][1]["item"]);
    const auto& sk = j["objects"][2];
    CHECK(sk["class"] == "hkaSkeleton");
    std::ifstream in(drape::test::reference_dir() / "peer" / "soulstruct" / "bb" / "skeleton.HKX.json");
    const auto peer = nlohmann::json::parse(in)["havok"]["skeletons"][0];
    REQUIRE(sk["members"]["bones"].size() == peer["bone_count"].get<size_t>());
    for (size_t i = 0; i < sk["members"]["bones"].size(); ++i) {
        CHECK(sk["members"]["bones"][i]["name"] == peer["bone_names"][i]);
        CHECK(sk["members"]["parentIndices"][i] == peer["parent_indices"][i]);
    }
    // cut arrays say how much was left out
    const nlohmann::json cut = drape::exporters::havok_json(*f, 8);
    const auto& bones = cut["objects"][2]["members"]["bones"];
    REQUIRE(bones.size() == 9);
    CHECK(bones[8]["truncated"] == peer["bone_count"].get<size_t>() - 8);
}

TEST_CASE("havok json: a tagfile with its compendium (ER weapon animation)" * doctest::test_suite("corpus")) {
    auto f = drape::test::load_hkx("er/WP_A_0550_1.anibnd", "a614_040050_1.hkx");
    REQUIRE(f);
    const nlohmann::json j = drape::exporters::havok_json(*f);
    CHECK(j["form"] == "tagfile");
    CHECK(j["sdk"] == "20180100");
    CHECK(j.contains("compendium"));
    bool spline = false;
    for (const auto& o : j["objects"]) spline |= o["class"] == "hkaSplineCompressedAnimation";
    CHECK(spline);
}
