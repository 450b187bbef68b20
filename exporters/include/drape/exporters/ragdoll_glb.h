// drape: a Havok ragdoll (havok::Ragdoll, drape/havok/ragdoll.h) into a glTF document built by
// add_model (docs/ragdoll.md#gltf).
//
// One node per body, a child of its bone's node (by the bone's name; else `fallback_parent`, which
// must sit at the model's origin, at the body's model-space pose),
// named after the body (`<bone>_ragdoll` when the body has no name), placed at the shape's frame:
// a capsule's node at its centre with its Y axis along the capsule (glTF capsules run along Y), a
// sphere's at its centre, other shapes at the body frame. The node carries:
//   extensions.OMI_physics_body  motion {type, mass, inertiaDiagonal, inertiaOrientation},
//                                collider {shape, physicsMaterial}
//   extras.ragdoll               every value drape reads from the file, in the game's coordinates
//   extras.ragdoll_joints        on the node of a constraint's body B (the parent body): its
//                                constraints, with frames as stored and limits in radians
// Shapes (capsule {radius, height = the full height, caps included}, sphere {radius}) go into the
// document's OMI_physics_shape.shapes, friction and restitution into OMI_physics_body's
// physicsMaterials; both extensions are listed in extensionsUsed.
// Coordinates: the game's (x, y, z) becomes glTF's (x, y, -z), as the model's.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "drape/exporters/gltf_document.h"
#include "drape/havok/ragdoll.h"

namespace drape::exporters {

struct RagdollGlbReport {
    size_t bodies = 0;          // nodes written
    size_t shapes = 0;          // OMI_physics_shape shapes written (capsules and spheres)
    size_t joints = 0;          // constraints written into extras.ragdoll_joints
    size_t unplaced = 0;        // bodies whose bone has no node (placed under fallback_parent)
    std::vector<std::string> warnings;
};

// Adds the ragdoll's bodies. `fallback_parent` -1: such bodies become scene roots.
RagdollGlbReport add_ragdoll(GltfDocument& doc, const havok::Ragdoll& ragdoll, int fallback_parent);

}  // namespace drape::exporters
