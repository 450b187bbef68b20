// Test support: a minimal Elden Ring (2018 tagfile) ragdoll written with TagfileWriter from the
// HKLib 2018 registry: a character skeleton of two bones, a ragdoll skeleton of two bones mapped
// onto it, two capsule bodies with mass properties, one ragdoll constraint (docs/ragdoll.md).
#pragma once

#include <cstdint>
#include <vector>

#include "drape/io/error.h"

namespace drape::test {

// Hand-made values the tests compare against (nothing here is computed by the reader).
struct RagdollFixtureFacts {
    static constexpr float radius = 0.125f;                // convexRadius and a.w of both capsules
    static constexpr float half_length = 0.25f;            // a = (0, +h, 0), b = (0, -h, 0)
    static constexpr float mass0 = 12.0f, mass1 = 3.0f;    // bodyCinfo masses
    static constexpr float friction = 0.5f;                // hkHalf 0x3f00
    static constexpr float twist_min = -0.25f, twist_max = 0.5f, cone_max = 1.0f, plane_min = -0.125f, plane_max = 0.375f;
    static constexpr float bone1_y = 1.0f;                 // character bone 1 sits 1 m above bone 0
    static constexpr float body1_y = 1.5f;                 // body 1 in model space
};

// What a test breaks on purpose (defaults: a valid file).
struct RagdollFixtureOptions {
    int material_id = 0;           // of body 1 (the file has one material)
    int motion_properties_id = 0;  // of body 1 (one motion properties)
    int constraint_body_b = 0;     // the constraint's bodyB
    int extra_bone_to_body = -2;   // != -2: append this entry to boneToBodyMap
    int bone_to_body_1 = 1;        // boneToBodyMap[1]
    bool ragdoll_is_skeleton = false;  // the root variant points at a skeleton instead
};

Result<std::vector<uint8_t>> ragdoll_tagfile(const RagdollFixtureOptions& options = {});

}  // namespace drape::test
