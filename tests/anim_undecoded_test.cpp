// Track parts a file's data cannot give: every value they would decode to is NaN or infinite.
// Decoding lists each such part with what the file holds and leaves it at the identity, so that
// sampling never returns a NaN; use_reference_pose() puts the bone's reference pose in its place.
// Checked on hand-built data for every kind of value that is not finite.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "drape/anim/animation.h"

using namespace drape;

namespace {

constexpr float k_nan = std::numeric_limits<float>::quiet_NaN();
constexpr float k_inf = std::numeric_limits<float>::infinity();

// Little-endian bytes of a spline block, aligned from its start (FORMATS.md 6.2).
struct Stream {
    std::vector<uint8_t> b;
    void u8(uint8_t v) { b.push_back(v); }
    void u16(uint16_t v) { u8(uint8_t(v)), u8(uint8_t(v >> 8)); }
    void f32(float f) {
        uint32_t v;
        std::memcpy(&v, &f, 4);
        u16(uint16_t(v)), u16(uint16_t(v >> 16));
    }
    void align(size_t a) {
        while (b.size() % a) b.push_back(0);
    }
    // A degree-1 header over 2 frames: n = 1, knots 0 0 1 1.
    void header() {
        u16(1), u8(1);
        for (uint8_t k : {0, 0, 1, 1}) u8(k);
    }
};

havok::SplineData one_block(const Stream& s, int32_t tracks) {
    havok::SplineData d;
    d.num_frames = 2;
    d.num_blocks = 1;
    d.max_frames_per_block = 256;
    d.mask_and_quantization_size = tracks * 4;
    d.frame_duration = 1.0f / 30.0f;
    d.block_duration = 255.0f / 30.0f;
    d.block_inverse_duration = 30.0f / 255.0f;
    d.block_offsets = {0};
    d.data = s.b;
    return d;
}

}  // namespace

TEST_CASE("anim: every kind of stored value that is not finite is listed and left at the identity, a finite range wider than a float is not") {
    Stream s;
    // Masks of five tracks: quantisation byte (pos 16-bit | rotation << 2 | scale 16-bit << 6), position, rotation, scale.
    s.u8(1 | (5 << 2)), s.u8(0x07), s.u8(0), s.u8(0);             // 0: translation static x NaN, y 1, z inf
    s.u8(1 | (5 << 2)), s.u8(0), s.u8(0x01), s.u8(0);             // 1: rotation static UNCOMPRESSED (NaN, 0, 0, 1)
    s.u8(1 | (5 << 2)), s.u8(0), s.u8(0xF0), s.u8(0);             // 2: rotation spline UNCOMPRESSED, control point 1 infinite
    s.u8(1 | (1 << 6)), s.u8(0), s.u8(0), s.u8(0x70);             // 3: scale spline, x range -3e38..3e38, y range 0..inf, z 1..2
    s.u8(1 | (1 << 6)), s.u8(0x10 | 0x04), s.u8(0), s.u8(0x01);   // 4: translation x spline (fine), z static -inf, scale x static 2
    s.align(4);
    s.f32(k_nan), s.f32(1), s.f32(k_inf);  // track 0
    s.align(4);
    s.f32(k_nan), s.f32(0), s.f32(0), s.f32(1);  // track 1
    s.header(), s.align(4);  // track 2
    for (float v : {0.f, 0.f, 0.f, 1.f, 0.f, k_inf, 0.f, 1.f}) s.f32(v);
    s.header(), s.align(4);  // track 3
    s.f32(-3e38f), s.f32(3e38f), s.f32(0), s.f32(k_inf), s.f32(1), s.f32(2);
    for (uint16_t q : {0, 0, 0, 65535, 65535, 65535}) s.u16(q);
    s.align(4);
    s.header(), s.align(4);  // track 4 translation: x 0..1, z static
    s.f32(0), s.f32(1), s.f32(-k_inf);
    s.u16(0), s.u16(65535);
    s.align(4);
    s.f32(2);  // track 4 scale x
    s.align(4);
    auto clip = anim::decode_spline(one_block(s, 5), 5, 0);
    REQUIRE_MESSAGE(clip, clip.error().to_string());
    const auto& tracks = clip->blocks[0].tracks;
    REQUIRE(clip->undecoded.size() == 5);
    const auto& u = clip->undecoded;
    CHECK(u[0].track == 0);
    CHECK(u[0].part == anim::TrackPart::translation);
    CHECK(u[0].components == 5);
    CHECK(u[0].reason == "static value x NaN, z inf");
    CHECK(tracks[0].translation.constant == anim::Vec3{0, 1, 0});
    CHECK(u[1].track == 1);
    CHECK(u[1].part == anim::TrackPart::rotation);
    CHECK(u[1].reason == "static UNCOMPRESSED quaternion (NaN, 0, 0, 1)");
    CHECK(u[2].track == 2);
    CHECK(u[2].reason == "UNCOMPRESSED control point 1 of 2 (0, inf, 0, 1)");
    CHECK_FALSE(tracks[2].rotation.is_spline);
    CHECK(u[3].track == 3);
    CHECK(u[3].part == anim::TrackPart::scale);
    CHECK(u[3].components == 2);
    CHECK(u[3].reason == "16-bit spline range y 0..inf");
    CHECK(u[4].track == 4);
    CHECK(u[4].components == 4);
    CHECK(u[4].reason == "static value z -inf");
    for (const auto& x : u) CHECK(x.block == 0);
    // The rest of each part decodes: track 3's x (a range wider than a float: its keys are still
    // its ends) and z, track 4's translation x and scale x.
    std::vector<anim::Transform> pose(5);
    for (int32_t f = 0; f < 2; ++f) {
        anim::Clip c;
        c.num_tracks = 5;
        c.num_frames = 2;
        c.spline = *clip;
        anim::sample_frame(c, f, pose);
        CAPTURE(f);
        CHECK(pose[0].translation == anim::Vec3{0, 1, 0});
        CHECK(pose[1].rotation == anim::Quat{0, 0, 0, 1});
        CHECK(pose[2].rotation == anim::Quat{0, 0, 0, 1});
        CHECK(pose[3].scale[0] == (f ? 3e38f : -3e38f));
        CHECK(pose[3].scale[1] == 1.0f);
        CHECK(pose[3].scale[2] == doctest::Approx(f ? 2.0 : 1.0));
        CHECK(pose[4].translation[0] == doctest::Approx(f));
        CHECK(pose[4].translation[1] == 0.0f);
        CHECK(pose[4].translation[2] == 0.0f);
        CHECK(pose[4].scale == anim::Vec3{2, 1, 1});
    }

    // use_reference_pose: the listed components take the bone's reference value (normal clip),
    // the others stay as decoded.
    anim::Clip c;
    c.name = "hand_made";
    c.num_tracks = 5;
    c.num_frames = 2;
    c.spline = *clip;
    c.undecoded = clip->undecoded;
    c.track_to_bone = {0, 1, 2, 3, 4};
    havok::Skeleton skel;
    for (int b = 0; b < 5; ++b) {
        skel.bone_names.push_back("b" + std::to_string(b));
        skel.parents.push_back(int16_t(b - 1));
        havok::QsTransform q;
        q.translation = {float(b), 10, 20, 0};
        q.rotation = {0, 0, std::sqrt(0.5f), std::sqrt(0.5f)};
        q.scale = {3, 4, 5, 0};
        skel.reference_pose.push_back(q);
    }
    anim::use_reference_pose(c, skel);
    anim::sample_frame(c, 1, pose);
    CHECK(pose[0].translation == anim::Vec3{0, 1, 20});
    CHECK(pose[1].rotation == anim::normalize({0, 0, std::sqrt(0.5f), std::sqrt(0.5f)}));
    CHECK(pose[2].rotation == anim::normalize({0, 0, std::sqrt(0.5f), std::sqrt(0.5f)}));
    CHECK(pose[3].scale[0] == 3e38f);
    CHECK(pose[3].scale[1] == 4.0f);
    CHECK(pose[3].scale[2] == doctest::Approx(2.0));
    CHECK(pose[4].translation[0] == doctest::Approx(1.0));
    CHECK(pose[4].translation[1] == 0.0f);
    CHECK(pose[4].translation[2] == 20.0f);
    CHECK(anim::undecoded_message(c, c.undecoded[3], skel) ==
          "hand_made: track 3 (bone b3) scale y in block 0 not decoded: 16-bit spline range y 0..inf; the bone's reference pose is used instead");
    CHECK(anim::undecoded_message(c, c.undecoded[1], skel) ==
          "hand_made: track 1 (bone b1) rotation in block 0 not decoded: static UNCOMPRESSED quaternion (NaN, 0, 0, 1); the bone's reference pose is used instead");
}

TEST_CASE("anim: interleaved transforms and root-motion samples that are not finite are listed, and never sampled") {
    havok::Animation a;
    a.class_name = "hkaInterleavedUncompressedAnimation";
    a.duration = 2.0f / 30.0f;
    a.number_of_transform_tracks = 2;
    a.interleaved = havok::InterleavedData{};
    a.interleaved->transforms.resize(6);  // 3 frames of 2 tracks
    a.interleaved->transforms[2 * 1 + 0].translation = {k_nan, 5, 0, 0};   // frame 1, track 0
    a.interleaved->transforms[2 * 2 + 0].translation = {1, 5, -k_inf, 0};  // frame 2, track 0
    a.interleaved->transforms[2 * 2 + 1].rotation = {0, k_nan, 0, 1};      // frame 2, track 1
    a.reference_frame = havok::ReferenceFrame{};
    a.reference_frame->duration = a.duration;
    a.reference_frame->samples = {{0, 0, 0, 0}, {0, 0, k_nan, 0}, {0, 0, 1, 0}};
    auto clip = anim::decode_clip(a, nullptr);
    REQUIRE_MESSAGE(clip, clip.error().to_string());
    REQUIRE(clip->undecoded.size() == 2);
    CHECK(clip->undecoded[0].track == 0);
    CHECK(clip->undecoded[0].block == -1);
    CHECK(clip->undecoded[0].part == anim::TrackPart::translation);
    CHECK(clip->undecoded[0].components == 5);
    CHECK(clip->undecoded[0].reason == "frame 1: x NaN (2 frames not finite)");
    CHECK(clip->undecoded[1].track == 1);
    CHECK(clip->undecoded[1].part == anim::TrackPart::rotation);
    CHECK(clip->undecoded[1].reason == "frame 2: quaternion (0, NaN, 0, 1) (1 frame not finite)");
    CHECK_FALSE(clip->root_motion);
    REQUIRE(clip->notes.size() == 1);
    CHECK(clip->notes[0] == "root motion left out: sample 1 of 3 is (0, 0, NaN, 0), not finite");
    std::vector<anim::Transform> pose(2);
    for (float t : {0.0f, 0.02f, 0.05f, 1.0f}) {
        anim::sample_time(*clip, t, pose);
        CAPTURE(t);
        for (const auto& x : pose) {
            for (size_t k = 0; k < 3; ++k) CHECK((std::isfinite(x.translation[k]) && std::isfinite(x.scale[k])));
            for (size_t k = 0; k < 4; ++k) CHECK(std::isfinite(x.rotation[k]));
        }
    }
    // The reference pose in its place: x and z of track 0 at every frame, y as stored.
    havok::Skeleton skel;
    skel.bone_names = {"a", "b"};
    skel.parents = {-1, 0};
    skel.reference_pose.resize(2);
    skel.reference_pose[0].translation = {7, 8, 9, 0};
    anim::use_reference_pose(*clip, skel);
    anim::sample_frame(*clip, 2, pose);
    CHECK(pose[0].translation == anim::Vec3{7, 5, 9});
    CHECK(pose[1].rotation == anim::Quat{0, 0, 0, 1});
}
