// Every animation of the corpus decodes: finite values, unit quaternions as stored, the frame
// count matches the duration, and the first frame agrees with the skeleton's reference pose
// where the clip starts from it.
#include <doctest/doctest.h>

#include <cmath>
#include <map>

#include "corpus.h"
#include "drape/anim/anibnd.h"
#include "havok_corpus.h"

using namespace drape;

namespace {

double angle_deg(const anim::Quat& a, const havok::Vec4& b) {
    double dot = 0, d2 = 0;
    for (size_t k = 0; k < 4; ++k) dot += double(a[k]) * b[k];
    const double s = dot < 0 ? -1 : 1;
    for (size_t k = 0; k < 4; ++k) d2 += (a[k] - s * b[k]) * (a[k] - s * b[k]);
    return 4.0 * std::asin(std::min(1.0, std::sqrt(d2) / 2.0)) * 180.0 / M_PI;
}

double raw_norm_deviation(const anim::Clip& c) {
    double dev = 0;
    auto norm = [](const anim::Quat& q) { return std::sqrt(double(q[0]) * q[0] + double(q[1]) * q[1] + double(q[2]) * q[2] + double(q[3]) * q[3]); };
    if (!c.spline) return 0;
    for (const auto& b : c.spline->blocks)
        for (const auto& t : b.tracks) {
            if (t.rotation.is_static) dev = std::max(dev, std::abs(norm(t.rotation.constant) - 1));
            for (const auto& q : t.rotation.points) dev = std::max(dev, std::abs(norm(q) - 1));
        }
    return dev;
}

}  // namespace

TEST_CASE("anim: every corpus clip decodes with finite values and unit quaternions" * doctest::test_suite("corpus")) {
    // Clips whose skeleton lives in another corpus file.
    const std::map<std::string, std::string> skeleton_file = {
        {"bb/a000_003000.hkx", "bb/skeleton.HKX"},
        {"havok-demo/allosaur_run_interleaved_x64.hkx", "havok-demo/allosaur_skeleton_x64.hkx"},
        {"havok-demo/allosaur_run_spline_S32_V16_B255_D1_x64.hkx", "havok-demo/allosaur_skeleton_x64.hkx"}};
    size_t clips = 0, checked_pose = 0;
    std::map<std::string, size_t> per_file;
    for (const auto& rel : test::corpus_hkx_files()) {
        CAPTURE(rel);
        const auto bytes = test::load(test::corpus(rel));
        auto set = anim::read_clip_set(bytes, rel);
        REQUIRE_MESSAGE(set, (set ? "" : set.error().to_string()));
        for (const auto& f : set->failures) FAIL_CHECK(f.error.to_string());
        std::vector<havok::Skeleton> skeletons = set->skeletons;
        if (auto it = skeleton_file.find(rel); it != skeleton_file.end()) {
            auto s = anim::read_clip_set(test::load(test::corpus(it->second)), it->second);
            REQUIRE(s);
            skeletons = s->skeletons;
        }
        for (const auto& clip : set->clips) {
            CAPTURE(clip.name);
            ++clips;
            ++per_file[rel];
            CHECK(clip.notes.empty());
            // Every part of every corpus clip decodes but one: c2030 a001_009000 stores R_Egg's
            // scale range as NaN (anim_undecoded_test checks what is made of it).
            if (rel == "er/game/chr/c2030.anibnd.dcx" && clip.name == "a001_009000") {
                REQUIRE(clip.undecoded.size() == 1);
                CHECK(clip.undecoded[0].track == 119);
                CHECK(clip.undecoded[0].part == anim::TrackPart::scale);
            } else {
                CHECK(clip.undecoded.empty());
            }
            REQUIRE(clip.num_frames >= 1);
            CHECK(clip.duration == doctest::Approx(double(clip.num_frames - 1) * clip.frame_duration).epsilon(1e-4));
            // The peer saw raw lengths at most 0.0013 from 1 (POLAR32/THREECOMP40 quantisation).
            CHECK(raw_norm_deviation(clip) < 0.002);
            std::vector<anim::Transform> out(size_t(clip.num_tracks));
            for (int32_t f = 0; f < clip.num_frames; ++f) {
                anim::sample_frame(clip, f, out);
                for (const auto& t : out) {
                    for (float v : t.translation) REQUIRE(std::isfinite(v));
                    for (float v : t.scale) REQUIRE(std::isfinite(v));
                    const double n = std::sqrt(double(t.rotation[0]) * t.rotation[0] + double(t.rotation[1]) * t.rotation[1] +
                                               double(t.rotation[2]) * t.rotation[2] + double(t.rotation[3]) * t.rotation[3]);
                    REQUIRE(n == doctest::Approx(1.0).epsilon(1e-5));
                }
            }
            if (clip.root_motion) {
                CHECK(clip.root_motion->samples.size() == size_t(clip.num_frames));  // 30 Hz like the clip
                CHECK(clip.root_motion->duration == doctest::Approx(clip.duration));
                for (const auto& s : clip.root_motion->samples)
                    for (float v : s) CHECK(std::isfinite(v));
                const auto first = anim::sample_root_motion(clip, 0);
                REQUIRE(first);
                for (float v : *first) CHECK(v == 0.0f);  // root motion starts at the origin
            }
            if (skeletons.empty()) continue;
            const auto& skel = skeletons[0];
            const auto map = anim::tracks_to_bones(clip, skel);
            anim::sample_frame(clip, 0, out);
            size_t keep_length = 0, mapped = 0;
            double max_rot = 0, max_dt = 0;
            for (size_t t = 0; t < out.size(); ++t) {
                if (map[t] < 0) continue;
                ++mapped;
                const auto& rp = skel.reference_pose[size_t(map[t])];
                double dt = 0;
                for (size_t k = 0; k < 3; ++k) dt = std::max(dt, double(std::abs(out[t].translation[k] - rp.translation[k])));
                keep_length += dt < 1e-3;
                max_dt = std::max(max_dt, dt);
                max_rot = std::max(max_rot, angle_deg(out[t].rotation, rp.rotation));
            }
            CHECK(mapped == out.size());
            const bool weapon = rel.find("WP_A_") != std::string::npos;
            if (weapon) {
                // Weapon clips start in the reference pose: THREECOMP40 quantisation only.
                CHECK(max_dt < 1e-4);
                CHECK(max_rot < 0.1);
            } else if (clip.blend_hint == anim::BlendHint::normal) {
                // Characters: the pose differs, but most bones keep their reference offset (bone
                // length). Additive clips store deltas, which are near zero instead. c2030 keeps
                // 70 to 82 % in its 26 normal clips: its 24 sleeve bones stretch (their tracks
                // move them along their own x axis only) and its three face clips start in an
                // expression (lips, blinks, 22 to 25 of 31 face bones kept).
                const double least = rel == "er/game/chr/c2030.anibnd.dcx" ? 0.7 : 0.8;
                CHECK(double(keep_length) >= least * double(mapped));
            }
            ++checked_pose;
        }
    }
    CHECK(per_file["ds3/c2080.anibnd.dcx"] == 3);
    CHECK(per_file["ds3/c1240_a00_3000.hkx"] == 1);
    CHECK(per_file["bb/a000_003000.hkx"] == 1);
    CHECK(per_file["sekiro/c1140.anibnd.dcx"] == 3);
    CHECK(per_file["sekiro/WP_A_2300.anibnd"] == 1);
    CHECK(per_file["er/WP_A_0550_1.anibnd"] == 9);
    // ER c5000.anibnd.dcx: 66 clips, 9 of them additive, 3 of two spline blocks.
    CHECK(per_file["er/game/chr/c5000.anibnd.dcx"] == 66);
    // ER c2030.anibnd.dcx: 30 clips, 4 of them additive, 4 of two or three spline blocks.
    CHECK(per_file["er/game/chr/c2030.anibnd.dcx"] == 30);
    CHECK(clips >= 116);  // the eight above + the two allosaur clips (+ any clip the corpus gains)
    CHECK(checked_pose >= 115);  // all but c1240, whose skeleton is not in the corpus
}
