// drape: decoding of Havok animations (docs/formats.md#animation-classes): spline-compressed
// clips (hkaSplineCompressedAnimation: blocks, masks, quantisations, B-splines), interleaved
// uncompressed clips (hkaInterleavedUncompressedAnimation), root motion
// (hkaDefaultAnimatedReferenceFrame) and the binding's track-to-bone map.
//
// Pure functions over the raw views of drape/havok/animation.h. Decoding parses the clip's
// bytes once into curves (checked, through ByteReader); sampling never fails and never
// allocates beyond its output. Values stay in the game's space (left-handed, Y up, metres);
// the exporters convert.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "drape/havok/animation.h"
#include "drape/io/error.h"
#include "drape/tae/tae.h"

namespace drape::anim {

using Vec3 = std::array<float, 3>;
using Quat = std::array<float, 4>;  // x, y, z, w
using Vec4 = std::array<float, 4>;

// A bone's local transform (hkQsTransform without the unused w lanes).
struct Transform {
    Vec3 translation{0, 0, 0};
    Quat rotation{0, 0, 0, 1};
    Vec3 scale{1, 1, 1};
};

// Rotation quantisation (bits 2-5 of a track's quantisation byte,
// docs/formats.md#spline-compressed-clips).
enum class RotationQuantization : uint8_t {
    polar32 = 0,       // 4 bytes, align 4
    threecomp40 = 1,   // 5 bytes, align 1
    threecomp48 = 2,   // 6 bytes, align 2
    threecomp24 = 3,   // 3 bytes: no public description, refused
    straight16 = 4,    // 2 bytes: no public description, refused
    uncompressed = 5,  // 16 bytes (4 f32), align 4
};
const char* rotation_quantization_name(RotationQuantization q);

// Decoders of one stored quaternion (docs/formats.md#quaternion-encodings). Results are not
// renormalised.
Quat decode_polar32(uint32_t c);
Quat decode_threecomp40(const uint8_t bytes[5]);
Quat decode_threecomp48(const uint8_t bytes[6]);  // three little-endian i16

// A clamped B-spline of `Dim` components over local frame units, or a constant.
// A vector part keeps its static and identity components in `constant`; only the components
// whose bit is set in `spline_mask` are evaluated from the control points.
struct VectorCurve {
    uint8_t spline_mask = 0;       // bit k: component k is a spline
    uint8_t static_mask = 0;       // bit k: component k is a stored constant (else identity)
    uint8_t quantization_bits = 0; // 8 or 16 when spline_mask != 0
    Vec3 constant{0, 0, 0};
    uint8_t degree = 0;
    std::vector<float> knots;  // control points + degree + 1
    std::vector<Vec3> points;  // control points (non-spline components unused)
};

struct RotationCurve {
    bool is_spline = false;
    bool is_static = false;  // neither = identity
    RotationQuantization quantization = RotationQuantization::threecomp40;
    Quat constant{0, 0, 0, 1};
    uint8_t degree = 0;
    std::vector<float> knots;
    std::vector<Quat> points;
};

struct TrackCurves {
    VectorCurve translation;
    RotationCurve rotation;
    VectorCurve scale;
};

// The three parts of a track's transform.
enum class TrackPart : uint8_t { translation, rotation, scale };
const char* track_part_name(TrackPart p);

// A part of one track that the file's data cannot give: every value it would decode to is NaN or
// infinite (a spline whose stored range is NaN, a stored constant or quaternion that is not a
// finite number). Decoding leaves such a part at the identity, so that sampling never returns a
// NaN, and lists it; use_reference_pose() then puts the bone's reference pose in its place.
struct UndecodedPart {
    int32_t track = 0;
    int32_t block = -1;      // spline block; -1: every frame (interleaved clips)
    TrackPart part = TrackPart::translation;
    uint8_t components = 0;  // translation, scale: bit k for x, y, z; rotation: 0xF (the whole quaternion)
    std::string reason;      // what the file holds there, e.g. "16-bit spline range x NaN..NaN, y NaN..NaN"
};

struct SplineBlock {
    std::vector<TrackCurves> tracks;  // numberOfTransformTracks
    uint64_t offset = 0;          // start of the block in `data`
    uint64_t transforms_end = 0;  // end of its transform tracks in `data` (before the padding)
    bool offset_derived = false;  // the file stores no offset for this block (see decode_spline)
};

// The decoded form of hkaSplineCompressedAnimation.
struct SplineClip {
    int32_t num_frames = 0;
    int32_t max_frames_per_block = 0;
    float block_duration = 0, block_inverse_duration = 0, frame_duration = 0;
    std::vector<SplineBlock> blocks;
    std::vector<UndecodedPart> undecoded;  // parts left at the identity, in block and track order
};

// Hard limits of the decoder (sanity caps against hostile data, not format limits).
inline constexpr uint32_t k_max_tracks = 1u << 14;
inline constexpr uint32_t k_max_frames = 1u << 22;

// Parses every block of a spline clip. Refuses rotation quantisations no source describes
// (THREECOMP24, STRAIGHT16), big-endian data, and counts or knots that do not fit. A part whose
// stored numbers are not finite (seen: Elden Ring c2030 a001_009000, a 16-bit scale spline whose
// range is stored as NaN..NaN on x, y and z) is read past, left at the identity and listed in
// SplineClip::undecoded; the clip still decodes.
// numBlocks must be the count the frames need ((numFrames - 2) / (maxFramesPerBlock - 1) + 1).
// blockOffsets may hold fewer entries than numBlocks (some Elden Ring clips of more than 256
// frames store one offset for two blocks): a block without an offset starts at the first 16-byte
// boundary after the previous block's transform data, where every stored offset of the corpus
// points (docs/animation.md).
Result<SplineClip> decode_spline(const havok::SplineData& data, int32_t num_transform_tracks, int32_t num_float_tracks);

// Evaluates one curve at local frame u (clamped to the curve's domain).
Vec3 evaluate(const VectorCurve& c, float u);
Quat evaluate(const RotationCurve& c, float u);  // normalised
// The same at the `count` local frames u0, u0 + 1, ... (out[i] == evaluate(c, u0 + i), bit for
// bit), finding each knot span from the previous one instead of searching the knots anew: the
// form for sampling a clip's frames one channel at a time.
void evaluate_frames(const VectorCurve& c, float u0, size_t count, Vec3* out);
void evaluate_frames(const RotationCurve& c, float u0, size_t count, Quat* out);

// Root motion: hkaDefaultAnimatedReferenceFrame samples (x, y, z, w) in the game's space,
// spread evenly over `duration` (sample rate (n - 1) / duration; 30 Hz in the games).
// w is the yaw about `up` in radians (see docs/animation.md for how this was established).
struct RootMotion {
    Vec4 up{0, 1, 0, 0}, forward{0, 0, 1, 0};
    float duration = 0;
    std::vector<Vec4> samples;
};

enum class BlendHint : int32_t { normal = 0, additive_deprecated = 1, additive = 2 };

// One clip, whatever its storage.
struct Clip {
    std::string name;            // set by the caller (file name without extension)
    std::string class_name;      // hkaSplineCompressedAnimation, hkaInterleavedUncompressedAnimation
    float duration = 0;
    int32_t num_tracks = 0;      // transform tracks
    int32_t num_float_tracks = 0;
    int32_t num_frames = 0;      // stored frames, the first at 0 and the last at `duration`
    float frame_duration = 0;    // duration / (num_frames - 1); 0 when num_frames < 2
    std::optional<SplineClip> spline;
    std::vector<Transform> frames;  // interleaved: num_frames * num_tracks, frame-major
    std::optional<RootMotion> root_motion;
    std::vector<int16_t> track_to_bone;  // binding; filled with the identity when it stores none
    std::string skeleton_name;           // binding's originalSkeletonName (may be empty)
    BlendHint blend_hint = BlendHint::normal;
    std::vector<std::string> notes;      // what was not decoded (float tracks, root motion), one line each
    std::vector<UndecodedPart> undecoded;  // track parts the data cannot give (left at the identity)
    // From the binder's TAE (read_clip_set): the entry of the same whole id aXXX_YYYYYY.
    std::vector<tae::ClipEvent> events;  // in the TAE's order
    std::string motion_from;             // the clip whose motion the entry borrows; "" none
};

// Decodes one animation with its binding (nullptr: identity track map, normal blend).
Result<Clip> decode_clip(const havok::Animation& animation, const havok::Binding* binding);

// Every animation of a container with the binding that names it (bindings matched by item,
// then by position), each decoded on its own: one result per animation, in order, so a clip
// that fails does not hide the others.
std::vector<Result<Clip>> decode_each_clip(const havok::AnimationContainer& container);
// The same, failing with the first clip that fails.
Result<std::vector<Clip>> decode_clips(const havok::AnimationContainer& container);

// Local transforms of every track at stored frame `frame` (clamped), exactly as stored (spline:
// block min(frame / (maxFramesPerBlock - 1), numBlocks - 1), local frame the remainder).
// `out` must hold num_tracks transforms. Quaternions are normalised.
void sample_frame(const Clip& clip, int32_t frame, std::span<Transform> out);
// Local transforms at time t seconds (clamped to [0, duration]). Spline: B-spline of the block
// that holds t. Interleaved: linear interpolation of translation and scale, normalised lerp of
// the shorter-arc rotation between the two stored frames.
void sample_time(const Clip& clip, float t, std::span<Transform> out);

// Root motion at time t (linear between samples, yaw unwrapped); nullopt when the clip has none.
std::optional<Vec4> sample_root_motion(const Clip& clip, float t);

// Additive clips (blend hint 1 or 2) hold deltas on top of a base pose. Returns the absolute
// local transform of `delta` applied on `base` (translation added, scale multiplied, rotation
// base * delta for ADDITIVE_DEPRECATED and delta * base for ADDITIVE; see docs/animation.md).
Transform apply_additive(BlendHint hint, const Transform& base, const Transform& delta);

// For each track, the index of the bone of `skeleton` (the skeleton the clip is bound to) it
// drives, from the binding's map; -1 when the map names no bone of that skeleton.
std::vector<int32_t> tracks_to_bones(const Clip& clip, const havok::Skeleton& skeleton);

// Puts the reference pose of `skeleton` (the one the clip is bound to) in place of every part of
// Clip::undecoded: the components of that part in that block (every frame of an interleaved
// clip) become the bone's reference value, so a normal clip holds the bone still there. An
// additive clip gets the identity delta instead, which applied on the reference pose gives it.
// A track that drives no bone, or a reference value that is not finite, keeps the identity.
// Clip::undecoded is kept (it says what was replaced); calling this twice changes nothing more.
void use_reference_pose(Clip& clip, const havok::Skeleton& skeleton);

// One line for a part of Clip::undecoded: the clip, track, bone, part, block, what the file holds
// there and what is used instead, e.g. "a000_010000: track 119 (bone R_Egg) scale x, y, z in
// block 0 not decoded: 16-bit spline range x NaN..NaN, y NaN..NaN, z NaN..NaN; the bone's
// reference pose is used instead".
std::string undecoded_message(const Clip& clip, const UndecodedPart& part, const havok::Skeleton& skeleton);

// Quaternion helpers (xyzw).
Quat normalize(Quat q);
Quat multiply(const Quat& a, const Quat& b);

}  // namespace drape::anim
