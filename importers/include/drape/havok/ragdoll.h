// drape: typed view of the Havok ragdoll (hknpRagdollData) of a character's cXXXX.hkx
// (docs/ragdoll.md). Built on the generic view by member name, so one reader serves the
// hk_2014 packfiles (DS3, BB: drape's own layouts, layouts_2014.cpp) and the 2016/2018 tagfiles
// (Sekiro, Elden Ring: the files' own types).
//
// What the file holds (names as in the file):
//   hknpRagdollData : hknpPhysicsSystemData
//     materials[]         hknpMaterial: dynamic/static friction and restitution (hkHalf: the top
//                         16 bits of an f32), combine policies
//     motionProperties[]  hknpMotionProperties: linear/angular damping, max linear/angular speed,
//                         gravity factor
//     motionCinfos[]      2014 only, hknpMotionCinfo: inverse mass, inverse inertia (diagonal,
//                         local), centre of mass and orientation in model space
//     bodyCinfos[]        hknpBodyCinfo: shape, name, collisionFilterInfo, materialId,
//                         motionId (2014) / motionPropertiesId and mass (2016+), position and
//                         orientation in model space (the reference pose)
//     constraintCinfos[]  hknpConstraintCinfo: constraintData, bodyA (the child in every corpus
//                         file), bodyB (its parent)
//     skeleton            the ragdoll's own hkaSkeleton (one bone per body, some bones bodiless)
//     boneToBodyMap[]     ragdoll bone -> body index (-1 = none)
//   hkaSkeletonMapper (root level) with skeletonB = the ragdoll skeleton maps each ragdoll bone to
//   a bone of the character's skeleton (skeletonA): that bone carries the body.
//   Shapes: hknpCapsuleShape (a, b end points; the radius is convexRadius plus the margin by which
//   the 8-vertex polytope passes the end points, which the 2016+ files also state as a.w),
//   hknpSphereShape, hknpConvexPolytopeShape, hknpCompressedMeshShape (kept as their class).
//   Mass properties of a shape: hkRefCountedProperties entry -> hknpShapeMassProperties
//   (hkPackedVector3 centre of mass and inertia: int16 x, y, z times the float whose top 16 bits
//   are the fourth int16, shifted by 16).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "drape/havok/hkx.h"

namespace drape::havok {

// A rigid transform in the game's coordinates (left-handed, Y up, metres).
struct RagdollTransform {
    std::array<float, 3> translation{0, 0, 0};
    std::array<float, 4> rotation{0, 0, 0, 1};  // quaternion x, y, z, w
};

enum class RagdollShapeKind : uint8_t { none, capsule, sphere, convex_polytope, compressed_mesh, other };
const char* ragdoll_shape_kind_name(RagdollShapeKind k);

struct RagdollShape {
    RagdollShapeKind kind = RagdollShapeKind::none;
    std::string class_name;       // as the file names it
    float convex_radius = 0;      // hknpShape::convexRadius as stored
    float radius = 0;             // capsule / sphere: the surface's radius (see the file comment)
    float stated_radius = 0;      // capsule: a.w as stored (2016+; 0 in the 2014 files)
    std::array<float, 3> a{0, 0, 0}, b{0, 0, 0};  // capsule end points, sphere centre (a), in the body frame
    uint32_t vertex_count = 0;    // convex shapes: polytope vertices
    bool has_mass_properties = false;
    float shape_mass = 0, shape_volume = 0;
    std::array<float, 3> center_of_mass{0, 0, 0};  // decoded, body frame
    std::array<float, 3> inertia{0, 0, 0};         // decoded principal moments for shape_mass
    std::array<int16_t, 4> major_axis_space{0, 0, 0, 0};  // as stored (not decoded)
};

struct RagdollBody {
    std::string name;               // hknpBodyCinfo::name
    int32_t ragdoll_bone = -1;      // bone of the ragdoll skeleton (boneToBodyMap), -1 = none
    std::string ragdoll_bone_name;
    int32_t bone = -1;              // bone of the character's skeleton (skeleton mapper), -1 = none
    std::string bone_name;
    RagdollShape shape;
    RagdollTransform world;         // position / orientation in model space, reference pose
    RagdollTransform frame;         // relative to the bone's reference pose (= world without a bone)
    float mass = 0;                 // kg: bodyCinfo mass (2016+), 1 / inverseMass (2014)
    float inverse_mass = 0;         // 2014 motionCinfo as stored (0 in 2016+)
    float mass_factor = 1;          // 2014 motionCinfo as stored
    std::array<float, 3> inertia{0, 0, 0};  // principal moments (kg m^2), body frame axes
    float linear_damping = 0, angular_damping = 0, gravity_factor = 1;
    float max_linear_speed = 0, max_angular_speed = 0;
    float dynamic_friction = 0, static_friction = 0, restitution = 0;
    int32_t friction_combine = -1, restitution_combine = -1;  // hknpMaterial combine policies as stored
    uint32_t collision_filter_info = 0;
    int32_t material_id = -1, motion_properties_id = -1, motion_id = -1;
    int32_t motion_type = -1;       // bodyCinfo motionType (2016+; 2 = dynamic), -1 when absent
};

enum class RagdollConstraintKind : uint8_t { ragdoll, limited_hinge, fixed, other };
const char* ragdoll_constraint_kind_name(RagdollConstraintKind k);

struct RagdollConstraint {
    RagdollConstraintKind kind = RagdollConstraintKind::other;
    std::string class_name;  // of the constraint data (inside a breakable wrapper, if any)
    bool breakable = false;  // wrapped in hknpBreakableConstraintData
    float break_threshold = 0;  // its threshold as stored
    std::string name;        // hknpConstraintCinfo::name (2016+)
    int32_t body_a = -1, body_b = -1;
    // hkTransform as stored: three rotation columns then the translation, 4 floats each; A in
    // body A's frame, B in body B's.
    std::array<float, 16> frame_a{}, frame_b{};
    // Limits (radians) as stored. Ragdoll: twist about twistAxis, cone (max; min is stored too),
    // plane (min/max about the planes' axis). Hinge: angLimit min/max.
    float twist_min = 0, twist_max = 0, cone_min = 0, cone_max = 0, plane_min = 0, plane_max = 0;
    float hinge_min = 0, hinge_max = 0;
    int32_t twist_axis = -1, ref_axis = -1;  // twistLimit's axes, ragdoll only
    float limit_tau = 0;                    // angularLimitsTauFactor of the twist / hinge limit
    float max_friction_torque = 0;
    bool motors_enabled = false;
};

struct Ragdoll {
    uint32_t item = 0;
    std::string name;                  // hknpPhysicsSystemData::name
    std::string ragdoll_skeleton;      // name of the ragdoll's hkaSkeleton
    std::string skeleton;              // name of the mapped character skeleton ("" without mapper)
    uint64_t declared_bodies = 0;      // bodyCinfos' length as the file declares it
    std::vector<int32_t> bone_to_body;
    std::vector<RagdollBody> bodies;
    std::vector<RagdollConstraint> constraints;
};

// Every hknpRagdollData of the file, in file order (none: an empty list).
Result<std::vector<Ragdoll>> read_ragdolls(const File& file);
Result<Ragdoll> read_ragdoll(const File& file, uint32_t item);

// Decodes hkPackedVector3 values {x, y, z, e} (docs/ragdoll.md#mass-properties).
std::array<float, 3> unpack_packed_vector3(const std::array<int16_t, 4>& v);

}  // namespace drape::havok
