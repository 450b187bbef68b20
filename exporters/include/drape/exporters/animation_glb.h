// drape: Havok clips to glTF 2.0 binary (.glb), on their own skeleton or added to an existing
// model's .glb (docs/animation.md).
//
// Each clip becomes one glTF animation named after the clip (`a000_003000`), with translation,
// rotation and scale channels on the nodes named like the bones its binding drives, keyed at the
// clip's own stored frames (exact values; 30 Hz in the games) or resampled at a chosen rate.
// Root motion becomes translation and rotation channels on the node above the skeleton's root
// bone. The game's space (left-handed, Y up, metres) is mirrored into glTF's: by default
// X is negated (position (-x, y, z), quaternion (x, -y, -z, w)).
//
// Clips are added to a GltfDocument (gltf_document.h), the one builder that the model exporter
// writes into too: a model and its clips go out in one file without a round trip through bytes.
// Thread-safe (no globals); one call per character.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "drape/anim/animation.h"
#include "drape/exporters/gltf_document.h"
#include "drape/havok/animation.h"
#include "drape/io/error.h"
#include "drape/io/reader.h"

namespace drape::exporters {

// Which game axis the conversion to glTF negates.
enum class Mirror : uint8_t {
    x,       // glTF (-x, y, z), quaternion (x, -y, -z, w): the project's convention
    z,       // glTF (x, y, -z), quaternion (-x, -y, z, w)
    detect,  // --model only: whichever matches the model's bone nodes (X when undecided)
};
const char* mirror_name(Mirror m);

struct AnimationGlbOptions {
    // Standalone output: name of the node above the skeleton (carries root motion). Empty:
    // the skeleton's name + "_root".
    std::string root_name;
    bool root_motion = true;
    // 0: key every stored frame (exact; the clip's frame rate). Otherwise resample at this rate (Hz).
    float sample_rate = 0;
    // Additive clips (blend hint 1, 2): bake them onto the skeleton's reference pose so the
    // output is absolute (glTF has no additive animation). When false they are written as stored.
    bool bake_additive = true;
    Mirror mirror = Mirror::z;  // the model exporter's convention (docs/model-export.md)
    // Write the skeleton's reference pose as constant channels on the bones that no track of a
    // clip drives (the game poses them so), so that a model whose bind pose differs from the
    // skeleton's still moves as the clip says.
    bool pose_untracked_bones = false;
    // Optional: runs task(i) for i in [0, n) and returns when all are done (e.g. on a thread
    // pool). Clips are then sampled `parallel_batch` at a time in parallel and added to the
    // document in order, so the output is the same with or without it.
    std::function<void(size_t n, const std::function<void(size_t)>& task)> parallel_for;
    size_t parallel_batch = 4;
};

struct AnimationGlbReport {
    Mirror mirror = Mirror::z;          // the convention used
    size_t animations = 0, channels = 0;
    std::vector<std::string> warnings;  // bones not found, tracks without a bone, notes of clips
};

// The skeleton as a node hierarchy (one node per bone, named exactly as in the game, local TRS
// from the reference pose, a skin over them) plus the clips.
Result<std::vector<uint8_t>> animation_glb(const havok::Skeleton& skeleton, std::span<const anim::Clip> clips,
                                           const AnimationGlbOptions& options = {}, AnimationGlbReport* report = nullptr);

// Adds the clips to a document (a model added by add_model, or one read by
// GltfDocument::from_glb), matching bones to nodes by name. Root motion goes to the parent node
// of the skeleton's root bone (a node is inserted when it has none).
Result<void> add_clips(GltfDocument& doc, const havok::Skeleton& skeleton, std::span<const anim::Clip> clips,
                       const AnimationGlbOptions& options = {}, AnimationGlbReport* report = nullptr);
// The skeleton's nodes, a skin over them and the clips, into an empty document.
Result<void> add_skeleton_and_clips(GltfDocument& doc, const havok::Skeleton& skeleton, std::span<const anim::Clip> clips,
                                    const AnimationGlbOptions& options = {}, AnimationGlbReport* report = nullptr);

// Adds the clips to an existing .glb (bytes), matching bones to nodes by name. Root motion goes
// to the parent node of the skeleton's root bone (a node is inserted when it has none).
Result<std::vector<uint8_t>> add_animations_to_glb(Bytes model_glb, const havok::Skeleton& skeleton, std::span<const anim::Clip> clips,
                                                   const AnimationGlbOptions& options = {}, AnimationGlbReport* report = nullptr);

}  // namespace drape::exporters
