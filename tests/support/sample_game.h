// The synthetic sample game (samples/game): a small believable Elden Ring style character, no game
// data. The files are committed under samples/game/; a test checks that write_sample_game
// reproduces them byte for byte.
//
// c9999: a 14-bone skeleton (Master, Pelvis, Spine, Spine1, Neck, Head, legs, arms), a body of
// boxes each skinned to one bone, and a cape (6 x 8 vertices) behind the back whose cloth program
// is built like the games' (docs/havok-cloth.md; modelled on the structure of Elden Ring HD_M_3005_c.hkx):
// five states (#01#Default, #00#Empty, _Skin, _preAtoS_, _curAtoS_), an object-space skin of the
// sim mesh and move particles pinning its top row, a simulate operator with local range,
// transition, standard, bend and stretch links, a capsule collidable following Spine1 through the
// collidable transform map, a gather of the simulated mesh into the display buffer named as the
// cape mesh, input/output conversion, and a skin of the display buffer for the skinned states.
//
//   chr/c9999.chrbnd.dcx     c9999.flver, c9999_c.hkx (Elden Ring 2018 tagfile)
//   chr/c9999.anibnd.dcx     skeleton.hkx, a000_002000.hkx (a 1.5 s walk-and-turn loop, 30 Hz)
//   chr/c9999_h.texbnd.dcx   c9999_h.tpf (c9999_body_a, c9999_cape_a: 32x32 BC1)
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "drape/io/error.h"

namespace drape::test {

// Facts of the sample the tests check against what the readers find.
struct SampleFacts {
    static constexpr int bones = 14;
    static constexpr int cape_columns = 6, cape_rows = 8;
    static constexpr int cape_vertices = cape_columns * cape_rows;
    static constexpr int cape_triangles = 2 * (cape_columns - 1) * (cape_rows - 1);
    static constexpr int body_boxes = 13;
    static constexpr int body_vertices = body_boxes * 24;
    static constexpr int clip_frames = 46;  // 1.5 s at 30 Hz, both ends included
    static constexpr const char* cape_mesh = "c9999_cape";
    static constexpr const char* clip = "a000_002000";
};

// A spline-compressed clip on the sample's skeleton (hkaSplineCompressedAnimation, one block, the
// block layout of docs/formats.md): track t drives bone t, every bone holds its bind pose
// (translation static, rotation and scale identity), except that one part of `track`, its
// scale or its translation, is a degree-1 spline of 16-bit keys over every frame with the stored
// range min..max on x, y and z alike and keys[f] at frame f. min = max = NaN with every key 0 is
// what Elden Ring c2030's a001_009000 stores for R_Egg's scale (a range with no value in it).
struct SplineClipSpec {
    std::string name = "a000_003000";
    int32_t frames = 11;
    int32_t blend_hint = 0;         // hkaAnimationBinding.blendHint: 0 normal, 1 and 2 additive
    int32_t track = 7;              // L_Calf
    bool scale = true;              // the spline part: scale, else translation
    float min = 1, max = 1;         // its stored range
    std::vector<uint16_t> keys;     // one per frame
};

// The sample's animation binder (skeleton.hkx, a000_002000.hkx) with that clip as one more
// member, hkx\<name>.hkx (an Elden Ring 2018 tagfile), DCX-compressed as chr/c9999.anibnd.dcx is.
Result<std::vector<uint8_t>> sample_anibnd_with_spline_clip(const SplineClipSpec& spec);

// The sample's files as (relative path, bytes), in a fixed order.
Result<std::vector<std::pair<std::string, std::vector<uint8_t>>>> sample_game_files();

// Writes the sample game into `root`; returns the files written (relative paths).
Result<std::vector<std::string>> write_sample_game(const std::filesystem::path& root);

}  // namespace drape::test
