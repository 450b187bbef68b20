// hka raw typed views against HavokLib's readings (../shared/reference/peer/havoklib).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "corpus.h"
#include "drape/havok/animation.h"
#include "havok_corpus.h"

using namespace drape;
using namespace drape::havok;

namespace {

nlohmann::json load_json(const std::filesystem::path& p) {
    std::ifstream in(p);
    REQUIRE(in.good());
    return nlohmann::json::parse(in);
}

std::string basename_of(const std::string& member) {
    const size_t k = member.find_last_of("\\/");
    return k == std::string::npos ? member : member.substr(k + 1);
}

}  // namespace

TEST_CASE("hka: animations, bindings and skeletons equal HavokLib's readings" * doctest::test_suite("corpus")) {
    size_t compared = 0;
    for (const auto& de : std::filesystem::directory_iterator(test::reference_dir() / "peer" / "havoklib")) {
        const nlohmann::json j = load_json(de.path());
        if (!j.contains("animations")) continue;
        const std::string source = j["source"].get<std::string>().substr(std::string("corpus/").size());
        const std::string member = j["member"].is_null() ? "" : basename_of(j["member"].get<std::string>());
        CAPTURE(de.path().filename().string());
        auto f = test::load_hkx(source, member);
        REQUIRE_MESSAGE(f, (f ? "" : f.error().to_string()));
        auto c = read_animation_container(*f);
        REQUIRE_MESSAGE(c, (c ? "" : c.error().to_string()));
        REQUIRE(c->animations.size() == j["animations"].size());
        for (size_t i = 0; i < c->animations.size(); ++i) {
            const Animation& a = c->animations[i];
            const auto& p = j["animations"][i];
            CHECK(a.class_name == p["class"].get<std::string>());
            CHECK(a.duration == doctest::Approx(p["duration"].get<double>()).epsilon(1e-6));
            CHECK(a.number_of_transform_tracks == p["numTransformTracks"].get<int>());
            CHECK(a.number_of_float_tracks == p["numFloatTracks"].get<int>());
            CHECK(a.reference_frame.has_value() == p["hasExtractedMotion"].get<bool>());
            if (a.spline) {
                const auto& s = p["spline"];
                CHECK(a.spline->num_frames == p["numFrames"].get<int>());
                CHECK(a.spline->num_blocks == s["numBlocks"].get<int>());
                CHECK(a.spline->max_frames_per_block == s["maxFramesPerBlock"].get<int>());
                CHECK(a.spline->block_duration == doctest::Approx(s["blockDuration"].get<double>()).epsilon(1e-6));
                CHECK(a.spline->block_inverse_duration == doctest::Approx(s["blockInverseDuration"].get<double>()).epsilon(1e-6));
                CHECK(a.spline->frame_duration == doctest::Approx(s["frameDuration"].get<double>()).epsilon(1e-6));
                CHECK(a.spline->block_offsets.size() == s["numBlockOffsets"].get<size_t>());
                CHECK(a.spline->mask_and_quantization_size == 4 * a.number_of_transform_tracks + a.number_of_float_tracks);  // docs/formats.md#spline-compressed-clips
                CHECK(!a.spline->data.empty());
                CHECK(a.spline->block_offsets[0] == 0);
            } else {
                CHECK(a.interleaved.has_value());
                // transforms = tracks x frames
                CHECK(a.interleaved->transforms.size() % size_t(a.number_of_transform_tracks) == 0);
            }
            if (a.reference_frame) CHECK(a.reference_frame->duration == doctest::Approx(a.duration));
            ++compared;
        }
        REQUIRE(c->bindings.size() == c->animations.size());
        for (size_t i = 0; i < c->bindings.size(); ++i) {
            const auto& pb = j["animations"][i]["binding"];
            CHECK(c->bindings[i].blend_hint == pb["blendHint"].get<int>());
            const auto tt = pb["transformTrackToBoneIndices"].get<std::vector<int>>();
            REQUIRE(c->bindings[i].transform_track_to_bone_indices.size() == tt.size());
            for (size_t k = 0; k < tt.size(); ++k) CHECK(c->bindings[i].transform_track_to_bone_indices[k] == tt[k]);
            CHECK(c->bindings[i].animation_item == c->animations[i].item);
        }
    }
    CHECK(compared == 19);
}

TEST_CASE("hka: Sekiro c1140 skeleton equals HavokLib's bone names and parents" * doctest::test_suite("corpus")) {
    const nlohmann::json j = load_json(test::reference_dir() / "peer" / "havoklib" / "sekiro-c1140__a000_000000.json");
    const auto& ps = j["skeletons"][0];
    auto f = test::load_hkx("sekiro/c1140.anibnd.dcx", "skeleton.hkx");
    REQUIRE(f);
    auto c = read_animation_container(*f);
    REQUIRE(c);
    REQUIRE(c->skeletons.size() == 1);
    const Skeleton& s = c->skeletons[0];
    REQUIRE(s.bone_names.size() == ps["numBones"].get<size_t>());
    for (size_t i = 0; i < s.bone_names.size(); ++i) {
        CHECK(s.bone_names[i] == ps["bones"][i][0].get<std::string>());
        CHECK(s.parents[i] == ps["bones"][i][1].get<int>());
    }
}

TEST_CASE("hka: the DS3 reference frame reads up (0,1,0) and forward (0,0,1)" * doctest::test_suite("corpus")) {
    auto f = test::load_hkx("ds3/c1240_a00_3000.hkx");
    REQUIRE(f);
    auto c = read_animation_container(*f);
    REQUIRE(c);
    REQUIRE(c->animations.size() == 1);
    REQUIRE(c->animations[0].reference_frame);
    const auto& rf = *c->animations[0].reference_frame;
    CHECK(rf.up == Vec4{0, 1, 0, 0});
    CHECK(rf.forward == Vec4{0, 0, 1, 0});
    CHECK(!rf.samples.empty());
}

TEST_CASE("hknp: the BB ragdoll is kept as raw objects" * doctest::test_suite("corpus")) {
    auto f = test::load_hkx("bb/c2020.HKX");
    REQUIRE(f);
    const auto raw = raw_objects(*f, "hknpRagdollData");
    REQUIRE(raw.size() == 1);
    CHECK(raw[0].class_name == "hknpRagdollData");
    CHECK(!raw[0].bytes.empty());
    CHECK(raw[0].bytes.size() % 16 == 0);  // objects are 16-aligned in the data section
}
