// Long spline clips: Elden Ring clips of more than 256 frames that store fewer
// block offsets than blocks. The rule (a block starts at the first 16-byte boundary after the
// previous block's transform data) is checked against every stored offset of the corpus, the
// corpus two-block clips decode identically with their second offset removed, and a synthesized
// clip of the reported shape (2 blocks, 1 offset, 327 frames) decodes to hand-computed values.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "corpus.h"
#include "drape/anim/anibnd.h"
#include "drape/anim/animation.h"
#include "havok_corpus.h"

using namespace drape;

namespace {

struct Bytes8 {
    std::vector<uint8_t> b;
    void u8(uint8_t v) { b.push_back(v); }
    void u16(uint16_t v) { u8(uint8_t(v)), u8(uint8_t(v >> 8)); }
    void f32(float f) {
        uint32_t v;
        std::memcpy(&v, &f, 4);
        for (int i = 0; i < 4; ++i) u8(uint8_t(v >> (8 * i)));
    }
    void align(size_t a) {
        while (b.size() % a) b.push_back(0);
    }
};

// One block of one track: translation X a degree-1 spline from `x0` to `x1` over local frames
// 0..`last` (two 8-bit control points 0 and 255, knots 0 0 last last); all else identity.
void write_block(Bytes8& s, float x0, float x1, uint8_t last) {
    s.u8(0);     // quantisation: 8-bit position, POLAR32 rotation, 8-bit scale
    s.u8(0x10);  // position X spline
    s.u8(0);     // rotation identity
    s.u8(0);     // scale identity
    s.u16(1), s.u8(1);
    for (uint8_t k : {uint8_t(0), uint8_t(0), last, last}) s.u8(k);
    s.align(4);
    s.f32(x0), s.f32(x1);
    s.u8(0), s.u8(255);
    s.align(4);
}

// The reported shape: 327 frames, 256 per block, two blocks, one stored offset. Frame f has
// translation X = f (block 0: frames 0..255, block 1: frames 255..326 as local 0..71).
havok::SplineData long_clip() {
    havok::SplineData d;
    d.num_frames = 327;
    d.num_blocks = 2;
    d.max_frames_per_block = 256;
    d.mask_and_quantization_size = 4;
    d.frame_duration = 1.0f / 30.0f;
    d.block_duration = 255.0f / 30.0f;
    d.block_inverse_duration = 30.0f / 255.0f;
    Bytes8 s;
    write_block(s, 0, 255, 255);
    d.float_block_offsets.push_back(uint32_t(s.b.size()));
    s.align(16);
    const uint32_t second = uint32_t(s.b.size());
    write_block(s, 255, 326, 71);
    d.float_block_offsets.push_back(uint32_t(s.b.size()) - second);
    s.align(16);
    d.block_offsets = {0};
    d.data = s.b;
    return d;
}

struct RawClip {
    std::string member;
    havok::Animation animation;
};

// Every spline animation of a corpus file, raw.
std::vector<RawClip> raw_spline_clips(const std::string& relative) {
    std::vector<RawClip> out;
    const auto members = test::hkx_members(relative);
    havok::CompendiumSet set;
    for (const auto& m : members)
        if (havok::is_compendium(m.bytes)) REQUIRE(set.add(m.bytes));
    for (const auto& m : members) {
        if (havok::is_compendium(m.bytes)) continue;
        auto file = havok::read_hkx(m.bytes, set.lookup());
        REQUIRE_MESSAGE(file, m.name);
        auto c = havok::read_animation_container(*file);
        REQUIRE_MESSAGE(c, m.name);
        for (auto& a : c->animations)
            if (a.spline) out.push_back({m.name, std::move(a)});
    }
    return out;
}

}  // namespace

TEST_CASE("anim: a 327-frame clip with 2 blocks and 1 block offset decodes") {
    const auto d = long_clip();
    auto clip = anim::decode_spline(d, 1, 0);
    REQUIRE_MESSAGE(clip, clip.error().to_string());
    REQUIRE(clip->blocks.size() == 2);
    CHECK_FALSE(clip->blocks[0].offset_derived);
    CHECK(clip->blocks[1].offset_derived);
    CHECK(clip->blocks[1].offset == 32);  // 4 mask + 8 header + 8 min/max + 2 points + pad 4 = 24, padded to 16

    havok::Animation a;
    a.class_name = "hkaSplineCompressedAnimation";
    a.duration = 326.0f / 30.0f;
    a.number_of_transform_tracks = 1;
    a.spline = d;
    auto c = anim::decode_clip(a, nullptr);
    REQUIRE_MESSAGE(c, c.error().to_string());
    std::vector<anim::Transform> out(1);
    for (int32_t f : {0, 100, 254, 255, 256, 300, 326}) {
        CAPTURE(f);
        anim::sample_frame(*c, f, out);
        CHECK(out[0].translation[0] == doctest::Approx(double(f)).epsilon(1e-5));
    }
    anim::sample_time(*c, 300.0f / 30.0f, out);
    CHECK(out[0].translation[0] == doctest::Approx(300.0).epsilon(1e-4));
}

TEST_CASE("anim: a missing block offset past the data names the block") {
    auto d = long_clip();
    d.data.resize(32);  // the second block's bytes are gone
    auto clip = anim::decode_spline(d, 1, 0);
    REQUIRE_FALSE(clip);
    CHECK(clip.error().field == "hkaSplineCompressedAnimation.blockOffsets");
    CHECK_MESSAGE(clip.error().reason.find("block 1 of 2 has no stored offset") != std::string::npos, clip.error().to_string());
    // More offsets than blocks, or none, stay refused.
    d = long_clip();
    d.block_offsets = {0, 32, 64};
    CHECK_FALSE(anim::decode_spline(d, 1, 0));
    d.block_offsets.clear();
    CHECK_FALSE(anim::decode_spline(d, 1, 0));
}

TEST_CASE("anim: every stored block offset of the corpus follows the 16-byte rule" * doctest::test_suite("corpus")) {
    size_t clips = 0, multi = 0;
    for (const auto& rel : test::corpus_hkx_files()) {
        for (const auto& raw : raw_spline_clips(rel)) {
            CAPTURE(rel);
            CAPTURE(raw.member);
            const auto& s = *raw.animation.spline;
            auto clip = anim::decode_spline(s, raw.animation.number_of_transform_tracks, raw.animation.number_of_float_tracks);
            REQUIRE_MESSAGE(clip, clip.error().to_string());
            ++clips;
            REQUIRE(s.block_offsets.size() == clip->blocks.size());  // the corpus has no clip of the short shape
            for (size_t b = 0; b < clip->blocks.size(); ++b) {
                const auto& blk = clip->blocks[b];
                // floatBlockOffsets[b] is relative to the block: where its transform data ends.
                if (b < s.float_block_offsets.size() && raw.animation.number_of_float_tracks == 0)
                    CHECK(s.float_block_offsets[b] == blk.transforms_end - blk.offset);
                if (b + 1 < clip->blocks.size()) CHECK(s.block_offsets[b + 1] == (blk.transforms_end + 15) / 16 * 16);
            }
            if (clip->blocks.size() < 2) continue;
            ++multi;
            // Without its later offsets the clip decodes to the same curves.
            auto cut = s;
            cut.block_offsets.resize(1);
            auto derived = anim::decode_spline(cut, raw.animation.number_of_transform_tracks, raw.animation.number_of_float_tracks);
            REQUIRE_MESSAGE(derived, derived.error().to_string());
            REQUIRE(derived->blocks.size() == clip->blocks.size());
            for (size_t b = 0; b < clip->blocks.size(); ++b) {
                CHECK(derived->blocks[b].offset == clip->blocks[b].offset);
                CHECK(derived->blocks[b].transforms_end == clip->blocks[b].transforms_end);
                for (size_t t = 0; t < clip->blocks[b].tracks.size(); ++t) {
                    const auto& x = clip->blocks[b].tracks[t];
                    const auto& y = derived->blocks[b].tracks[t];
                    CHECK(x.translation.points == y.translation.points);
                    CHECK(x.rotation.points == y.rotation.points);
                    CHECK(x.scale.points == y.scale.points);
                }
            }
        }
    }
    // c5000.anibnd.dcx holds 65 spline clips, 3 of them of two blocks; c2030.anibnd.dcx 30, 2 of
    // two blocks and 2 of three.
    CHECK(clips >= 95);
    CHECK(multi >= 7);
}
