// Animation decoding against the havoklib peer: every track of every corpus clip at every frame.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "corpus.h"
#include "drape/anim/animation.h"
#include "drape/havok/hkx.h"
#include "havok_corpus.h"

using namespace drape;

namespace {

// Angle between two rotations, in degrees, accurate for small angles (no acos near 1).
double test_angle_deg(const anim::Quat& a, std::array<double, 4> b) {
    double dot = 0, d2 = 0;
    for (int k = 0; k < 4; ++k) dot += double(a[size_t(k)]) * b[size_t(k)];
    const double s = dot < 0 ? -1.0 : 1.0;
    for (int k = 0; k < 4; ++k) d2 += (double(a[size_t(k)]) - s * b[size_t(k)]) * (double(a[size_t(k)]) - s * b[size_t(k)]);
    return 4.0 * std::asin(std::min(1.0, std::sqrt(d2) / 2.0)) * 180.0 / M_PI;
}

struct Err {
    double trans = 0, rot = 0, scale = 0;
};

// Max differences between our frame samples and the peer's, over every track and frame.
Err compare_with_peer(const anim::Clip& clip, const nlohmann::json& pa) {
    Err e;
    const auto& tracks = pa.at("tracks");
    REQUIRE(tracks.size() == size_t(clip.num_tracks));
    const int32_t frames = pa.at("numFrames").get<int32_t>();
    REQUIRE(frames == clip.num_frames);
    std::vector<anim::Transform> out(size_t(clip.num_tracks));
    for (int32_t f = 0; f < frames; ++f) {
        anim::sample_frame(clip, f, out);
        for (size_t t = 0; t < out.size(); ++t) {
            const auto& p = tracks[t].at("frames")[size_t(f)];
            REQUIRE(p.size() == 10);
            const auto& o = out[t];
            for (int k = 0; k < 3; ++k) {
                const double ref = p[size_t(k)].get<double>();
                e.trans = std::max(e.trans, std::abs(double(o.translation[size_t(k)]) - ref) / std::max(1.0, std::abs(ref)));
                const double sref = p[size_t(7 + k)].get<double>();
                e.scale = std::max(e.scale, std::abs(double(o.scale[size_t(k)]) - sref) / std::max(1.0, std::abs(sref)));
            }
            e.rot = std::max(e.rot, test_angle_deg(o.rotation, {p[3].get<double>(), p[4].get<double>(), p[5].get<double>(), p[6].get<double>()}));
        }
    }
    return e;
}

}  // namespace

TEST_CASE("anim: every corpus clip equals the havoklib peer at every frame and track" * doctest::test_suite("corpus")) {
    const auto dir = test::reference_dir() / "peer" / "havoklib";
    size_t clips = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const std::string name = entry.path().filename().string();
        if (name.find("errors") != std::string::npos) continue;
        CAPTURE(name);
        std::ifstream in(entry.path());
        const auto j = nlohmann::json::parse(in);
        std::string source = j.at("source").get<std::string>();
        REQUIRE(source.rfind("corpus/", 0) == 0);
        source = source.substr(7);
        const std::string member = j.at("member").is_null() ? std::string() : j.at("member").get<std::string>();
        auto file = test::load_hkx(source, member.empty() ? "" : member);
        REQUIRE_MESSAGE(file, (file ? "" : file.error().to_string()));
        auto container = havok::read_animation_container(*file);
        REQUIRE(container);
        auto decoded = anim::decode_clips(*container);
        REQUIRE_MESSAGE(decoded, (decoded ? "" : decoded.error().to_string()));
        REQUIRE(decoded->size() == j.at("animations").size());
        for (size_t i = 0; i < decoded->size(); ++i) {
            const auto& pa = j["animations"][i];
            const auto& clip = (*decoded)[i];
            CHECK(clip.class_name == pa.at("class").get<std::string>());
            CHECK(clip.duration == doctest::Approx(pa.at("duration").get<double>()));
            CHECK(clip.root_motion.has_value() == pa.at("hasExtractedMotion").get<bool>());
            const auto& map = pa.at("binding").at("transformTrackToBoneIndices");
            REQUIRE(map.size() == clip.track_to_bone.size());
            for (size_t t = 0; t < map.size(); ++t) CHECK(clip.track_to_bone[t] == map[t].get<int>());
            CHECK(int(clip.blend_hint) == pa.at("binding").at("blendHint").get<int>());
            const Err e = compare_with_peer(clip, pa);
            INFO(name << ": max trans " << e.trans << ", rot " << e.rot << " deg, scale " << e.scale);
            CHECK(e.trans < 2e-5);
            CHECK(e.scale < 2e-5);
            CHECK(e.rot < 0.002);
            ++clips;
        }
    }
    CHECK(clips == 19);  // 19 peer files, one clip each
}
