// drape: typed views of the Havok animation classes (hkaSkeleton, hkaAnimationContainer,
// hkaAnimationBinding, hkaSplineCompressedAnimation, hkaInterleavedUncompressedAnimation,
// hkaDefaultAnimatedReferenceFrame) and any object as raw bytes (docs/formats.md#animation-classes;
// the ragdoll's typed view is ragdoll.h).
// Built on the generic view by member name; the same code reads packfiles and tagfiles.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "drape/havok/hkx.h"

namespace drape::havok {

using Vec4 = std::array<float, 4>;

struct QsTransform {
    Vec4 translation{0, 0, 0, 0};
    Vec4 rotation{0, 0, 0, 1};  // quaternion x, y, z, w
    Vec4 scale{1, 1, 1, 1};
};

struct Skeleton {
    uint32_t item = 0;  // object in its File
    std::string name;
    std::vector<std::string> bone_names;
    std::vector<int16_t> parents;  // -1 = root
    std::vector<uint8_t> lock_translation;
    std::vector<QsTransform> reference_pose;
    std::vector<float> reference_floats;
    std::vector<std::string> float_slots;
};

// hkaDefaultAnimatedReferenceFrame (root motion), raw.
struct ReferenceFrame {
    uint32_t item = 0;
    Vec4 up{}, forward{};
    float duration = 0;
    std::vector<Vec4> samples;  // referenceFrameSamples
};

// hkaSplineCompressedAnimation, raw (decoding is the animation module's job,
// docs/formats.md#spline-compressed-clips).
struct SplineData {
    int32_t num_frames = 0, num_blocks = 0, max_frames_per_block = 0, mask_and_quantization_size = 0;
    float block_duration = 0, block_inverse_duration = 0, frame_duration = 0;
    std::vector<uint32_t> block_offsets, float_block_offsets, transform_offsets, float_offsets;
    std::vector<uint8_t> data;
    int32_t endian = 0;
};

// hkaInterleavedUncompressedAnimation, raw: transforms frame-major as stored.
struct InterleavedData {
    std::vector<QsTransform> transforms;
    std::vector<float> floats;
};

struct Animation {
    uint32_t item = 0;
    std::string class_name;  // hkaSplineCompressedAnimation, hkaInterleavedUncompressedAnimation, ...
    int32_t type = 0;        // hkaAnimation::type as stored
    float duration = 0;
    int32_t number_of_transform_tracks = 0, number_of_float_tracks = 0;
    std::optional<ReferenceFrame> reference_frame;  // extractedMotion, when it is a default reference frame
    std::optional<SplineData> spline;
    std::optional<InterleavedData> interleaved;
};

struct Binding {
    uint32_t item = 0;
    std::string original_skeleton_name;
    uint32_t animation_item = 0;  // 0 = none
    std::vector<int16_t> transform_track_to_bone_indices;  // empty = identity
    std::vector<int16_t> float_track_to_float_slot_indices;
    std::vector<int16_t> partition_indices;
    int32_t blend_hint = 0;  // 0 normal, 1 additive (deprecated), 2 additive
};

struct AnimationContainer {
    std::vector<Skeleton> skeletons;
    std::vector<Animation> animations;
    std::vector<Binding> bindings;
};

// A raw object (hknpRagdollData and other classes drape does not type): its bytes as laid out.
struct RawObject {
    uint32_t item = 0;
    std::string class_name;
    uint32_t version = 0;
    std::vector<uint8_t> bytes;
};

Result<Skeleton> read_skeleton(const File& file, uint32_t item);
Result<Animation> read_animation(const File& file, uint32_t item);
Result<Binding> read_binding(const File& file, uint32_t item);
Result<ReferenceFrame> read_reference_frame(const File& file, uint32_t item);
// Every hkaAnimationContainer of the file, merged in file order.
Result<AnimationContainer> read_animation_container(const File& file);
// Every object of a class (or derived), raw. Packfile objects span to the next object.
std::vector<RawObject> raw_objects(const File& file, std::string_view class_name);

}  // namespace drape::havok
