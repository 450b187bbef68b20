// drape: FLVER2 model to glTF 2.0 (docs/model-export.md).
//
// Output: one node per FLVER node (named as in the game, in the FLVER's hierarchy) under one
// root node named after the model, one skin over every node with inverse bind matrices, one
// mesh per FLVER mesh (its LOD0 face set, the vertices it uses), dummy polys as child nodes
// `dummy_<referenceId>`, one material per FLVER material.
// Coordinates: the game's left-handed Y-up metres become glTF's right-handed Y-up metres by
// negating Z (x, y, z) -> (x, y, -z); the character then faces +Z as glTF asks.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "drape/exporters/gltf_document.h"
#include "drape/flver/flver.h"
#include "drape/havok/animation.h"
#include "drape/io/error.h"

namespace drape::exporters {

// A skeleton from elsewhere (the character's Havok Skeleton.hkx, a cloth file's skeleton),
// in the game's coordinates. Filled by the caller from the Havok view.
struct SkeletonBone {
    std::string name;
    int32_t parent = -1;
    std::array<float, 3> translation{0, 0, 0};   // reference pose, local to the parent
    std::array<float, 4> rotation{0, 0, 0, 1};   // quaternion x, y, z, w
    std::array<float, 3> scale{1, 1, 1};
};
struct Skeleton {
    std::vector<SkeletonBone> bones;
};

struct BoneMatchReport {
    struct Mismatch {
        std::string name;
        // Differences of the model-space bind poses (each skeleton through its own hierarchy).
        float translation_error = 0;  // metres
        float rotation_error_deg = 0; // angle between the rotations
        float scale_error = 0;        // largest per-axis difference
    };
    float tolerance_translation = 1e-3f;
    float tolerance_rotation_deg = 0.1f;
    float tolerance_scale = 1e-3f;
    std::vector<std::string> matched;     // in FLVER order
    std::vector<std::string> flver_only;  // FLVER nodes without a skeleton bone of that name
    std::vector<std::string> havok_only;  // skeleton bones without a FLVER node of that name
    std::vector<Mismatch> pose_mismatches;  // matched bones whose local bind poses disagree
    // Matched bones whose parents differ by name.
    std::vector<std::string> parent_mismatches;

    std::string to_text() const;  // a human-readable report, one bone per line
};

// Matches FLVER nodes to skeleton bones by exact name and compares model-space bind poses.
BoneMatchReport match_skeleton(const flver::Model& model, const Skeleton& skeleton, float tolerance_translation = 1e-3f,
                               float tolerance_rotation_deg = 0.1f);
// The FLVER's own nodes as a Skeleton (Euler bind rotations turned into quaternions).
Skeleton skeleton_from_flver(const flver::Model& model);
// A Havok skeleton as a Skeleton (names, parents, reference pose).
Skeleton skeleton_from_havok(const havok::Skeleton& skeleton);

struct GltfOptions {
    bool binary = true;  // .glb; false: .gltf + .bin beside it
    std::string name;    // root node / scene name; default: the output's stem
    // Texture images: lowercase file stem as the FLVER names it (`hd_m_7200_a` for
    // N:\...\HD_M_7200_a.tif) -> PNG path relative to the output file. Textures not in the map
    // stay in the material's extras only.
    std::map<std::string, std::string> textures;
    // Texture images embedded in the file: lowercase key as above -> PNG bytes. Looked up before
    // `textures`.
    std::map<std::string, std::vector<uint8_t>> embedded_textures;
    // Extra members of a material's extras (by FLVER material index), e.g. its MATBIN path and
    // parameters.
    std::map<size_t, nlohmann::json> material_extras;
};

struct ModelReport {
    std::vector<std::string> warnings;  // meshes left out (and why), LOD0 fallbacks, bad joints
    size_t meshes_written = 0, meshes_dropped = 0, images = 0;
};

// Where add_model put things in the document.
struct ModelNodes {
    int root = -1;                       // the node above the FLVER's roots (named after the model)
    std::vector<int> flver_node;         // glTF node of each FLVER node
    std::vector<int> mesh_node;          // glTF node of each written mesh
    int skin = -1;                       // -1 when no mesh was written (no skin then)
    std::vector<std::array<double, 16>> world_bind;  // FLVER nodes' world bind matrices, game space, column-major
};

// Adds the model to `doc`: one node per FLVER node under a root node, dummies, materials,
// textures, one mesh per FLVER mesh (its LOD0 face set: the face set with the LOD0 flags, else
// the first, with a warning), one skin when a mesh uses it. A mesh is never left out silently:
// each one left out has a warning in the report. A model without drawable meshes still gives a
// valid file (nodes only, no skin).
Result<ModelNodes> add_model(GltfDocument& doc, const flver::Model& model, const GltfOptions& options, ModelReport* report = nullptr);

// Display masks (a mesh of a material named "#NN#..." draws only when the character's NpcParam
// row turns mask NN on): the mesh nodes of `placed` whose mask is not in `shown` (bit NN) leave
// the default scene, marked `extras.shown = false`; nothing is removed from the file, and a
// second scene, "<default scene's name> (every display mask)", holds every mesh. `label` names
// what chose the masks (e.g. "NpcParam 30610000"), kept in the default scene's extras. Returns
// the number of mesh nodes taken out of the default scene.
size_t show_display_masks(GltfDocument& doc, const ModelNodes& placed, uint32_t shown, const std::string& label);

// What reparent_to_skeleton changed.
struct ReparentReport {
    struct Moved {
        std::string bone, flver_parent, skeleton_parent;  // "" = a root
    };
    std::vector<Moved> reparented;         // shared bones now under the skeleton's parent
    std::vector<std::string> added_nodes;  // skeleton-only bones added as (non-joint) nodes
};

// Makes the shared bones' hierarchy the Havok skeleton's, so that clips (local transforms
// under the skeleton's parents) move them as in the game: every FLVER node whose name is a
// skeleton bone goes under the node of that bone's skeleton parent (skeleton-only ancestors are
// added as nodes with their reference pose), keeping every node's world bind pose (the skin and
// its inverse bind matrices are unchanged). FLVER-only nodes stay under their FLVER parent.
ReparentReport reparent_to_skeleton(GltfDocument& doc, const ModelNodes& placed, const flver::Model& model, const havok::Skeleton& skeleton);

// add_model into a new document; returns the .glb bytes (binary) or the .gltf JSON text (with the buffer
// named `bin_uri`).
Result<std::vector<uint8_t>> gltf_bytes(const flver::Model& model, const GltfOptions& options,
                                        std::vector<uint8_t>* bin_out = nullptr, const std::string& bin_uri = {});
// Writes `out` (.glb or .gltf + .bin).
Result<void> write_gltf(const flver::Model& model, const std::filesystem::path& out, const GltfOptions& options);

// The name the exporter gives the glTF mesh of FLVER mesh `mesh_index`: "meshNN[_maskMM]_<material>".
// The cloth exporter binds display buffers to meshes by this name.
std::string gltf_mesh_name(const flver::Model& model, size_t mesh_index);

// The lowercase file stem of a texture path as stored (`N:\a\B_c.tif` -> `b_c`).
std::string texture_key(const std::string& path);

}  // namespace drape::exporters
