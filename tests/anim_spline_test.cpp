// Spline decoding: quaternion decodes and hand-built clips checked against values computed by
// hand from docs/formats.md#quaternion-encodings, the allosaur spline against its uncompressed twin, truncation at
// every length, and one test per error message.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "corpus.h"
#include "drape/anim/anibnd.h"
#include "drape/anim/animation.h"
#include "drape/io/file.h"
#include "havok_corpus.h"

using namespace drape;
using anim::Quat;

namespace {

void check_quat(const Quat& q, double x, double y, double z, double w, double eps = 1e-5) {
    CHECK(std::abs(q[0] - x) < eps);
    CHECK(std::abs(q[1] - y) < eps);
    CHECK(std::abs(q[2] - z) < eps);
    CHECK(std::abs(q[3] - w) < eps);
}

// Little-endian byte stream with block-relative alignment, the way §6.2 lays out a block.
struct Stream {
    std::vector<uint8_t> b;
    void u8(uint8_t v) { b.push_back(v); }
    void u16(uint16_t v) { u8(uint8_t(v)), u8(uint8_t(v >> 8)); }
    void u32(uint32_t v) { u16(uint16_t(v)), u16(uint16_t(v >> 16)); }
    void f32(float f) {
        uint32_t v;
        std::memcpy(&v, &f, 4);
        u32(v);
    }
    void align(size_t a) {
        while (b.size() % a) b.push_back(0);
    }
};

// A two-block, two-track clip (5 frames, 3 per block, blocks overlap on frame 2).
// Block 0: track 0 translation X = degree-1 spline (16-bit, min 0 max 1, q 0/32768/65535,
// knots 0 0 1 2 2), Y static 5, Z identity; rotation static THREECOMP48 (0.6, 0, 0, ~0.8);
// scale identity. Track 1: translation identity; rotation degree-1 spline UNCOMPRESSED
// (0,0,0,1) -> (0,0,1,0), knots 0 0 2 2; scale X/Y/Z degree-1 spline 8-bit min 1 max 3 (q 0, 255).
// Block 1: track 0 translation X static 7; everything else identity; track 1 identity.
havok::SplineData make_clip() {
    havok::SplineData d;
    d.num_frames = 5;
    d.num_blocks = 2;
    d.max_frames_per_block = 3;
    d.mask_and_quantization_size = 2 * 4;
    d.frame_duration = 1.0f / 30.0f;
    d.block_duration = 2.0f / 30.0f;
    d.block_inverse_duration = 15.0f;
    Stream s;
    // block 0 masks: quant byte = pos bits | rot << 2 | scale << 6
    s.u8(1 | (2 << 2));  // pos 16-bit, rot THREECOMP48
    s.u8(0x10 | 0x02);   // X spline, Y static
    s.u8(0x01);          // rotation static
    s.u8(0x00);
    s.u8(0 | (5 << 2) | (0 << 6));  // rot UNCOMPRESSED, scale 8-bit
    s.u8(0x00);
    s.u8(0xF0);  // rotation spline
    s.u8(0x70);  // scale XYZ spline
    s.align(4);
    // track 0 translation
    s.u16(2), s.u8(1);
    for (uint8_t k : {0, 0, 1, 2, 2}) s.u8(k);
    s.align(4);
    s.f32(0), s.f32(1);  // X min max
    s.f32(5);            // Y static
    for (uint16_t q : {0, 32768, 65535}) s.u16(q);
    s.align(4);
    // track 0 rotation: THREECOMP48 x=30284 with bit 15 set (omitted low bit), y=16383 with bit 15, z=16383
    s.align(2);
    s.u16(uint16_t(30284 | 0x8000)), s.u16(uint16_t(16383 | 0x8000)), s.u16(16383);
    s.align(4);
    // track 0 scale: identity, nothing. track 1 translation: identity. track 1 rotation:
    s.u16(1), s.u8(1);
    for (uint8_t k : {0, 0, 2, 2}) s.u8(k);
    s.align(4);
    s.f32(0), s.f32(0), s.f32(0), s.f32(1);
    s.f32(0), s.f32(0), s.f32(1), s.f32(0);
    s.align(4);
    // track 1 scale
    s.u16(1), s.u8(1);
    for (uint8_t k : {0, 0, 2, 2}) s.u8(k);
    s.align(4);
    for (int c = 0; c < 3; ++c) s.f32(1), s.f32(3);
    for (int i = 0; i < 2; ++i)
        for (int c = 0; c < 3; ++c) s.u8(i ? 255 : 0);
    s.align(4);
    s.align(16);
    d.block_offsets.push_back(0);
    d.block_offsets.push_back(uint32_t(s.b.size()));
    // block 1
    s.u8(0), s.u8(0x01), s.u8(0), s.u8(0);
    s.u8(0), s.u8(0), s.u8(0), s.u8(0);
    s.f32(7);
    s.align(16);
    d.data = s.b;
    return d;
}

}  // namespace

TEST_CASE("anim: POLAR32, THREECOMP40 and THREECOMP48 decode to hand-computed quaternions") {
    // POLAR32: r bits 1023 -> R = 0 (w), m = 1; pt = 0 -> phi = 0 -> (0, 0, 1, 0).
    check_quat(anim::decode_polar32(1023u << 18), 0, 0, 1, 0);
    check_quat(anim::decode_polar32((1023u << 18) | (1u << 30)), 0, 0, -1, 0);
    // pt = 511^2: phi = 511 -> pi/2, theta = 0 -> (1, 0, 0, 0).
    check_quat(anim::decode_polar32((1023u << 18) | 261121u), 1, 0, 0, 0);
    // pt = 511^2 + 511: theta = pi/4 -> (cos 45, sin 45, 0, 0).
    check_quat(anim::decode_polar32((1023u << 18) | (261121u + 511u)), std::sqrt(0.5), std::sqrt(0.5), 0, 0);
    // r bits 0 -> R = 1: identity; bit 31 negates w.
    check_quat(anim::decode_polar32(0), 0, 0, 0, 1);
    check_quat(anim::decode_polar32(1u << 31), 0, 0, 0, -1);

    // THREECOMP40: a = b = c = 2047 -> 0; omitted index 3 (w), positive.
    uint8_t b40[5];
    auto put40 = [&](uint64_t v) {
        for (int i = 0; i < 5; ++i) b40[i] = uint8_t(v >> (8 * i));
    };
    put40(2047ull | (2047ull << 12) | (2047ull << 24) | (3ull << 36));
    check_quat(anim::decode_threecomp40(b40), 0, 0, 0, 1);
    // a = 4094 -> 2047 * 0.000345436 = 0.70711; omitted index 0 (x) negative: x = -sqrt(1 - 0.70711^2).
    put40(2047ull | (2047ull << 12) | (4094ull << 24) | (0ull << 36) | (1ull << 38));
    const double a = 2047 * 0.000345436;
    check_quat(anim::decode_threecomp40(b40), -std::sqrt(1 - a * a), 0, 0, a);

    // THREECOMP48: omitted index 3 = ((y>>14)&2)|((x>>15)&1); x = 30284 -> 13901 * 0.000043161.
    uint8_t b48[6];
    const uint16_t v48[3] = {uint16_t(30284 | 0x8000), uint16_t(16383 | 0x8000), 16383};
    std::memcpy(b48, v48, 6);
    const double x = 13901 * 0.000043161;
    check_quat(anim::decode_threecomp48(b48), x, 0, 0, std::sqrt(1 - x * x));
}

TEST_CASE("anim: a hand-built two-block spline clip decodes to the values it was built from") {
    const auto d = make_clip();
    auto s = anim::decode_spline(d, 2, 0);
    REQUIRE_MESSAGE(s, (s ? "" : s.error().to_string()));
    REQUIRE(s->blocks.size() == 2);
    anim::Clip clip;
    clip.num_tracks = 2;
    clip.num_frames = 5;
    clip.duration = 4.0f / 30.0f;
    clip.frame_duration = d.frame_duration;
    clip.spline = *s;
    std::vector<anim::Transform> out(2);
    const double q1 = 32768.0 / 65535.0;
    const double x48 = 13901 * 0.000043161;
    // Frame 0 and 1 from block 0; frame 2 from block 1 (min(2 / 2, 1)), like the peer.
    anim::sample_frame(clip, 0, out);
    CHECK(out[0].translation[0] == doctest::Approx(0.0));
    CHECK(out[0].translation[1] == 5.0f);
    CHECK(out[0].translation[2] == 0.0f);
    check_quat(out[0].rotation, x48, 0, 0, std::sqrt(1 - x48 * x48));
    CHECK(out[0].scale == anim::Vec3{1, 1, 1});
    check_quat(out[1].rotation, 0, 0, 0, 1);
    CHECK(out[1].scale[0] == doctest::Approx(1.0));
    anim::sample_frame(clip, 1, out);
    CHECK(out[0].translation[0] == doctest::Approx(q1));
    check_quat(out[1].rotation, 0, 0, std::sqrt(0.5), std::sqrt(0.5));  // half way, normalised
    CHECK(out[1].scale[2] == doctest::Approx(2.0));
    anim::sample_frame(clip, 2, out);
    CHECK(out[0].translation[0] == 7.0f);
    CHECK(out[0].translation[1] == 0.0f);
    check_quat(out[0].rotation, 0, 0, 0, 1);
    CHECK(out[1].scale == anim::Vec3{1, 1, 1});
    anim::sample_frame(clip, 99, out);  // clamped to the last frame
    CHECK(out[0].translation[0] == 7.0f);
    // Time sampling: 1.5 frames is in block 0, half way between q1 and 1.
    anim::sample_time(clip, 1.5f / 30.0f, out);
    CHECK(out[0].translation[0] == doctest::Approx((q1 + 1.0) / 2).epsilon(1e-5));
    CHECK(out[1].scale[1] == doctest::Approx(2.5).epsilon(1e-5));
    anim::sample_time(clip, 3.0f / 30.0f, out);
    CHECK(out[0].translation[0] == 7.0f);
}

TEST_CASE("anim: the allosaur spline agrees with its uncompressed twin within the quantisation" * doctest::test_suite("corpus")) {
    auto spline = anim::read_clip_set(test::load(test::corpus("havok-demo/allosaur_run_spline_S32_V16_B255_D1_x64.hkx")), "spline");
    auto plain = anim::read_clip_set(test::load(test::corpus("havok-demo/allosaur_run_interleaved_x64.hkx")), "plain");
    REQUIRE(spline);
    REQUIRE(plain);
    REQUIRE(spline->clips.size() == 1);
    REQUIRE(plain->clips.size() == 1);
    const auto& a = spline->clips[0];
    const auto& b = plain->clips[0];
    CHECK(a.spline->blocks[0].tracks[0].rotation.quantization == anim::RotationQuantization::polar32);  // "S32"
    REQUIRE(a.num_tracks == b.num_tracks);
    REQUIRE(a.num_frames == b.num_frames);
    std::vector<anim::Transform> x(size_t(a.num_tracks)), y(x.size());
    double max_rot = 0, max_trans = 0;
    for (int32_t f = 0; f < a.num_frames; ++f) {
        anim::sample_frame(a, f, x);
        anim::sample_frame(b, f, y);
        for (size_t t = 0; t < x.size(); ++t) {
            double dot = 0, d2 = 0;
            for (size_t k = 0; k < 4; ++k) dot += double(x[t].rotation[k]) * y[t].rotation[k];
            for (size_t k = 0; k < 4; ++k) {
                const double dk = x[t].rotation[k] - (dot < 0 ? -1.0 : 1.0) * y[t].rotation[k];
                d2 += dk * dk;
            }
            max_rot = std::max(max_rot, 4 * std::asin(std::min(1.0, std::sqrt(d2) / 2)) * 180 / M_PI);
            for (size_t k = 0; k < 3; ++k) max_trans = std::max(max_trans, double(std::abs(x[t].translation[k] - y[t].translation[k])));
        }
    }
    MESSAGE("allosaur spline vs interleaved: max rotation " << max_rot << " deg, max translation " << max_trans);
    // The peer (allosaur_spline_errors.json) measured 0.7177 deg and 0.0012876 file units for the
    // same comparison; the bound in docs/animation.md is 0.75 deg and 0.0015 units.
    CHECK(max_rot < 0.75);
    CHECK(max_trans < 0.0015);
    CHECK(max_rot == doctest::Approx(0.7177075706137821).epsilon(0.01));
    CHECK(max_trans == doctest::Approx(0.0012875890888015763).epsilon(0.01));
}

TEST_CASE("anim: truncating the spline data at every length fails cleanly or loses only padding") {
    const auto d = make_clip();
    auto full = anim::decode_spline(d, 2, 0);
    REQUIRE(full);
    for (size_t n = 0; n < d.data.size(); ++n) {
        CAPTURE(n);
        auto t = d;
        t.data.resize(n);
        auto r = anim::decode_spline(t, 2, 0);
        if (r) {
            // Only the zero padding at the end of the last block may go.
            for (size_t i = n; i < d.data.size(); ++i) REQUIRE(d.data[i] == 0);
        } else {
            CHECK(r.error().offset <= n);
            CHECK(!r.error().reason.empty());
        }
    }
}

TEST_CASE("anim: truncating an anibnd at every length never crashes") {
    const auto bytes = test::load(test::corpus("sekiro/WP_A_2300.anibnd"));
    for (size_t n = 0; n < bytes.size(); ++n) {
        auto r = anim::read_clip_set(Bytes(bytes.data(), n), "WP_A_2300.anibnd");
        if (!r) CHECK(r.error().offset <= n);
    }
}

TEST_CASE("anim: every error message") {
    struct Case {
        const char* what;
        void (*mutate)(havok::SplineData&, int32_t& tracks, int32_t& floats);
        const char* field;
        const char* reason;
    };
    const Case cases[] = {
        {"tracks", [](havok::SplineData&, int32_t& t, int32_t&) { t = -1; }, "numberOfTransformTracks", "transform tracks, outside"},
        {"floats", [](havok::SplineData&, int32_t&, int32_t& f) { f = 1 << 20; }, "numberOfFloatTracks", "float tracks, outside"},
        {"frames", [](havok::SplineData& d, int32_t&, int32_t&) { d.num_frames = 0; }, "numFrames", "frames, outside"},
        {"per block", [](havok::SplineData& d, int32_t&, int32_t&) { d.max_frames_per_block = 1; }, "maxFramesPerBlock", "outside 2..256"},
        {"blocks", [](havok::SplineData& d, int32_t&, int32_t&) { d.num_blocks = 3; }, "numBlocks", "blocks with"},
        {"frame duration", [](havok::SplineData& d, int32_t&, int32_t&) { d.frame_duration = 0; }, "frameDuration", "not a positive"},
        {"block inverse", [](havok::SplineData& d, int32_t&, int32_t&) { d.block_inverse_duration = NAN; }, "frameDuration", "inverse nan"},
        {"endian", [](havok::SplineData& d, int32_t&, int32_t&) { d.endian = 1; }, "endian", "big-endian"},
        {"mask size", [](havok::SplineData& d, int32_t&, int32_t&) { d.mask_and_quantization_size = 9; }, "maskAndQuantizationSize", "mask size"},
        {"block span", [](havok::SplineData& d, int32_t&, int32_t&) { d.block_offsets[1] = 100000; }, "blockOffsets", "spans"},
        {"rotation kind", [](havok::SplineData& d, int32_t&, int32_t&) { d.data[0] = uint8_t(1 | (7 << 2)); }, "quantization", "not 0..5"},
        {"threecomp24", [](havok::SplineData& d, int32_t&, int32_t&) { d.data[0] = uint8_t(1 | (3 << 2)); }, "rotation", "THREECOMP24 is not decoded"},
        {"straight16", [](havok::SplineData& d, int32_t&, int32_t&) { d.data[0] = uint8_t(1 | (4 << 2)); }, "rotation", "STRAIGHT16 is not decoded"},
        {"scalar kind", [](havok::SplineData& d, int32_t&, int32_t&) { d.data[0] = uint8_t(2 | (2 << 2)); }, "translation", "scalar quantization 2"},
        {"degree", [](havok::SplineData& d, int32_t&, int32_t&) { d.data[10] = 3; }, "translation", "degree 3 needs more than 3"},
        {"knots", [](havok::SplineData& d, int32_t&, int32_t&) { d.data[13] = 9; }, "translation", "knots decrease"},
        {"truncated", [](havok::SplineData& d, int32_t&, int32_t&) { d.block_offsets[1] = 20; }, "translation", "truncated"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.what);
        auto d = make_clip();
        int32_t tracks = 2, floats = 0;
        c.mutate(d, tracks, floats);
        auto r = anim::decode_spline(d, tracks, floats);
        REQUIRE_FALSE(r);
        CHECK_MESSAGE(r.error().field.find(c.field) != std::string::npos, r.error().to_string());
        CHECK_MESSAGE(r.error().reason.find(c.reason) != std::string::npos, r.error().to_string());
    }
    // Clip-level messages.
    havok::Animation a;
    a.class_name = "hkaQuantizedAnimation";
    a.number_of_transform_tracks = 1;
    auto r = anim::decode_clip(a, nullptr);
    REQUIRE_FALSE(r);
    CHECK(r.error().reason.find("is not decoded") != std::string::npos);
    a.duration = NAN;
    r = anim::decode_clip(a, nullptr);
    REQUIRE_FALSE(r);
    CHECK(r.error().field == "hkaAnimation.duration");
    a.duration = 1;
    a.class_name = "hkaInterleavedUncompressedAnimation";
    a.interleaved = havok::InterleavedData{};
    a.interleaved->transforms.resize(3);
    a.number_of_transform_tracks = 2;
    r = anim::decode_clip(a, nullptr);
    REQUIRE_FALSE(r);
    CHECK(r.error().reason.find("do not divide") != std::string::npos);
    a.number_of_transform_tracks = 3;
    havok::Binding bind;
    bind.transform_track_to_bone_indices = {0, 1};
    r = anim::decode_clip(a, &bind);
    REQUIRE_FALSE(r);
    CHECK(r.error().reason.find("entries for 3 tracks") != std::string::npos);
    bind.transform_track_to_bone_indices = {};
    bind.blend_hint = 5;
    r = anim::decode_clip(a, &bind);
    REQUIRE_FALSE(r);
    CHECK(r.error().reason.find("blend hint 5") != std::string::npos);
    bind.blend_hint = 0;
    a.reference_frame = havok::ReferenceFrame{};
    a.reference_frame->duration = -1;
    r = anim::decode_clip(a, &bind);
    REQUIRE_FALSE(r);
    CHECK(r.error().field == "hkaDefaultAnimatedReferenceFrame.duration");
    a.reference_frame->duration = 1;
    r = anim::decode_clip(a, &bind);
    REQUIRE(r);
    CHECK(r->num_frames == 1);
    CHECK(r->track_to_bone == std::vector<int16_t>{0, 1, 2});
    // Containers: not a binder nor a Havok file.
    const uint8_t junk[16] = {1, 2, 3};
    auto set = anim::read_clip_set(Bytes(junk, sizeof junk), "junk.bin");
    REQUIRE_FALSE(set);
    CHECK(set.error().reason.find("neither a BND4") != std::string::npos);
}

TEST_CASE("anim: root motion, additive blending and clip names") {
    anim::Clip c;
    c.duration = 1;
    c.root_motion = anim::RootMotion{};
    c.root_motion->duration = 1;
    c.root_motion->samples = {{0, 0, 0, 3.0f}, {2, 4, 6, -3.0f}};
    auto m = anim::sample_root_motion(c, 0.5f);
    REQUIRE(m);
    CHECK((*m)[0] == doctest::Approx(1));
    CHECK((*m)[1] == doctest::Approx(2));
    CHECK((*m)[2] == doctest::Approx(3));
    // Yaw 3 -> -3 goes the short way across pi: 3 + (2 pi - 6) / 2.
    CHECK((*m)[3] == doctest::Approx(3.0 + (2 * M_PI - 6.0) / 2));
    CHECK(anim::sample_root_motion(c, 5.0f).value()[0] == doctest::Approx(2));
    c.root_motion.reset();
    CHECK_FALSE(anim::sample_root_motion(c, 0.5f));

    anim::Transform base, delta;
    base.translation = {1, 2, 3};
    base.rotation = {0, 0, std::sqrt(0.5f), std::sqrt(0.5f)};  // 90 deg about z
    base.scale = {2, 2, 2};
    delta.translation = {1, 1, 1};
    delta.rotation = {std::sqrt(0.5f), 0, 0, std::sqrt(0.5f)};  // 90 deg about x
    delta.scale = {0.5f, 1, 1};
    const auto n = anim::apply_additive(anim::BlendHint::normal, base, delta);
    CHECK(n.translation == delta.translation);
    const auto r = anim::apply_additive(anim::BlendHint::additive, base, delta);
    CHECK(r.translation == anim::Vec3{2, 3, 4});
    CHECK(r.scale == anim::Vec3{1, 2, 2});
    // delta * base = qx * qz = (0.5, -0.5, 0.5, 0.5) by hand (Hamilton product).
    check_quat(r.rotation, 0.5, -0.5, 0.5, 0.5);
    const auto rd = anim::apply_additive(anim::BlendHint::additive_deprecated, base, delta);
    check_quat(rd.rotation, 0.5, 0.5, 0.5, 0.5);  // qz * qx

    CHECK(anim::clip_name_from_path("N:\\GR\\data\\a614_040050_1.hkx") == "a614_040050_1");
    CHECK(anim::clip_name_from_path("ds3/c1240_a00_3000.hkx") == "c1240_a00_3000");
    CHECK(anim::clip_name_from_path("c2080.anibnd.dcx") == "c2080");
}

TEST_CASE("anim: interleaved clips interpolate between stored frames, bindings are matched by animation") {
    havok::AnimationContainer c;
    havok::Animation a;
    a.item = 7;
    a.class_name = "hkaInterleavedUncompressedAnimation";
    a.duration = 2.0f;
    a.number_of_transform_tracks = 1;
    a.interleaved = havok::InterleavedData{};
    a.interleaved->transforms.resize(3);  // frames at 0, 1, 2 s
    a.interleaved->transforms[1].translation = {2, 0, 0, 0};
    a.interleaved->transforms[2].translation = {2, 4, 0, 0};
    a.interleaved->transforms[1].rotation = {0, 0, 1, 0};  // 180 deg about z
    a.interleaved->transforms[2].scale = {3, 3, 3, 0};
    c.animations.push_back(a);
    havok::Binding other, mine;
    other.animation_item = 99;
    other.blend_hint = 1;
    mine.animation_item = 7;
    mine.transform_track_to_bone_indices = {4};
    c.bindings = {other, mine};
    auto clips = anim::decode_clips(c);
    REQUIRE(clips);
    REQUIRE(clips->size() == 1);
    const auto& clip = (*clips)[0];
    CHECK(clip.track_to_bone == std::vector<int16_t>{4});
    CHECK(clip.blend_hint == anim::BlendHint::normal);
    CHECK(clip.num_frames == 3);
    CHECK(clip.frame_duration == 1.0f);
    std::vector<anim::Transform> out(1);
    anim::sample_time(clip, 0.5f, out);
    CHECK(out[0].translation[0] == doctest::Approx(1.0));
    check_quat(out[0].rotation, 0, 0, std::sqrt(0.5), std::sqrt(0.5));  // half of 180 deg = 90 deg
    anim::sample_time(clip, 1.5f, out);
    CHECK(out[0].translation[1] == doctest::Approx(2.0));
    CHECK(out[0].scale[0] == doctest::Approx(2.0));
    anim::sample_time(clip, 9.0f, out);  // clamped to the end
    CHECK(out[0].translation[1] == doctest::Approx(4.0));
    anim::sample_frame(clip, 1, out);
    check_quat(out[0].rotation, 0, 0, 1, 0);
    // A skeleton of 3 bones has no bone 4: the track drives nothing.
    havok::Skeleton s;
    s.bone_names = {"a", "b", "c"};
    CHECK(anim::tracks_to_bones(clip, s) == std::vector<int32_t>{-1});
}

namespace {

bool same_bits(const float* a, const float* b, size_t n) { return std::memcmp(a, b, n * sizeof(float)) == 0; }

}  // namespace

TEST_CASE("anim: evaluate_frames equals evaluate at every frame, bit for bit (c5000's clips and hand-made curves)" * doctest::test_suite("corpus")) {
    auto bytes = drape::read_file(test::corpus("er/game/chr/c5000.anibnd.dcx"));
    REQUIRE(bytes);
    auto set = anim::read_clip_set(*bytes, "c5000");
    REQUIRE(set);
    REQUIRE(set->clips.size() == 66);
    size_t compared = 0, spline_channels = 0;
    std::vector<anim::Vec3> v;
    std::vector<anim::Quat> q;
    for (const auto& clip : set->clips) {
        if (!clip.spline) continue;
        const int32_t per = clip.spline->max_frames_per_block - 1;
        for (const auto& block : clip.spline->blocks)
            for (const auto& tc : block.tracks) {
                // A block's frames 0 .. per, and past both ends (clamped to the domain).
                const size_t count = size_t(per) + 3;
                const float u0 = -1.0f;
                v.assign(count, {});
                q.assign(count, {});
                spline_channels += tc.rotation.is_spline + (tc.translation.spline_mask != 0);
                anim::evaluate_frames(tc.translation, u0, count, v.data());
                for (size_t i = 0; i < count; ++i) {
                    const anim::Vec3 e = anim::evaluate(tc.translation, u0 + float(i));
                    CHECK(same_bits(v[i].data(), e.data(), 3));
                }
                anim::evaluate_frames(tc.scale, u0, count, v.data());
                for (size_t i = 0; i < count; ++i) {
                    const anim::Vec3 e = anim::evaluate(tc.scale, u0 + float(i));
                    CHECK(same_bits(v[i].data(), e.data(), 3));
                }
                anim::evaluate_frames(tc.rotation, u0, count, q.data());
                for (size_t i = 0; i < count; ++i) {
                    const anim::Quat e = anim::evaluate(tc.rotation, u0 + float(i));
                    CHECK(same_bits(q[i].data(), e.data(), 4));
                }
                compared += 3 * count;
            }
    }
    CHECK(spline_channels > 5000);  // 7,714 spline rotations alone in c5000's clips
    CHECK(compared > 100000);

    // Hand-made curves the files cannot hold: degree 4 (the general basis), knots that decrease
    // and a NaN knot (find_span at every frame), each equal to evaluate.
    anim::RotationCurve r;
    r.is_spline = true;
    r.points = {{0, 0, 0, 1}, {0.1f, 0, 0, 1}, {0, 0.2f, 0, 1}, {0, 0, 0.3f, 1}, {0.2f, 0.1f, 0, 1}, {0, 0, 0, 1}};
    for (int variant = 0; variant < 3; ++variant) {
        CAPTURE(variant);
        r.degree = variant == 0 ? 4 : 2;
        r.knots.clear();
        for (size_t k = 0; k < r.points.size() + r.degree + 1; ++k) r.knots.push_back(float(k < 3 ? 0 : k - 2));
        if (variant == 1) std::swap(r.knots[3], r.knots[4]);
        if (variant == 2) r.knots[4] = std::nanf("");
        const size_t count = 12;
        q.assign(count, {});
        anim::evaluate_frames(r, -2.0f, count, q.data());
        for (size_t i = 0; i < count; ++i) {
            const anim::Quat e = anim::evaluate(r, -2.0f + float(i));
            CHECK(same_bits(q[i].data(), e.data(), 4));
        }
    }
}
