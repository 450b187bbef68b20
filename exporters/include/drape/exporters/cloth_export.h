// drape: the game's hcl cloth objects to the drape cloth format 2.0 (schema/cloth.fbs), and the
// figures that prove docs/havok-cloth.md's rules on them (rest pose per sim cloth, binding per display buffer).
//
// The exporter keeps the game's cloth program: every member of every census class is either
// written or listed, with its reason, in the file's `dropped` table (and in dropped_members()).
// Collidable objects shared by several sim cloths are written once (ClothFile.collidables) and
// referenced by index.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "drape/havok/animation.h"
#include "drape/havok/cloth.h"
#include "drape/havok/cloth_figures.h"
#include "drape/io/error.h"

namespace drape::cloth_export {

// A mesh of the model beside the cloth, as the display-buffer binding needs it (docs/havok-cloth.md
// "Display buffers"). Filled from the FLVER by the caller; positions in the game's space.
struct ModelMesh {
    std::string gltf_name;          // the name the glTF exporter gives the mesh
    std::string default_node_name;  // the FLVER node the mesh names as its default bone
    uint32_t vertex_count = 0;
    uint32_t first_face_set_triangles = 0;
    std::vector<std::array<float, 3>> positions;
};

struct Options {
    std::string game, sdk, source_file, model_file;
    std::vector<havok::Skeleton> skeletons;  // the skeletons of the cloth file (transform set bone names)
    std::vector<ModelMesh> meshes;           // empty: display buffers stay unbound
    bool model_given = false;                // a model was looked for (distinguishes "no model" from "no mesh matched")
    bool zstd = false;                       // wrap the FlatBuffer in a zstd frame
    // docs/havok-cloth.md: display vertex i equals mesh vertex i within 4.9e-5 of the mesh's size.
    float bind_tolerance = 4.9e-5f;
};

// One display buffer's binding figure.
struct Binding {
    std::string cloth_data, buffer;
    uint32_t cloth_data_index = 0, buffer_index = 0;
    int mesh_index = -1;          // -1: no mesh matched
    std::string mesh_name;
    float max_error = -1;         // bind_position_error: max_distance_m / mesh_size_m; -1 = not checked
    float max_distance_m = -1;    // the largest |bind position - mesh vertex|, metres
    float mesh_size_m = 0;        // the mesh's radius about the model's origin (its largest vertex distance)
    uint32_t vertices_checked = 0;
    bool within_tolerance = true;
    std::vector<uint32_t> skin_operators, other_writers;  // operator indices writing the buffer
    std::string reason;           // why mesh_index is -1 or max_error is -1
};

// One sim cloth's rest-pose figure.
struct SimClothFigure {
    std::string cloth_data, name;
    uint32_t cloth_data_index = 0, sim_index = 0;
    size_t particles = 0, fixed_particles = 0;
    hcl::RestPoseFigure rest;
};

struct Dropped {
    std::string class_name, member, reason;
    uint32_t count = 0;  // objects of the source with a non-empty value
};

struct Report {
    std::vector<Binding> bindings;          // every display buffer, when a model was given
    std::vector<SimClothFigure> sim_cloths_figures;
    std::vector<Dropped> dropped;
    size_t cloth_datas = 0, sim_cloths = 0, particles = 0, constraint_sets = 0, operators = 0;
    size_t collidables = 0, collidable_references = 0;  // distinct objects, and sim cloth references to them
};

// The bind positions an object-space skin gives its output vertices, with the control-byte rule
// of `sdk` (hcl::control_byte_rule_for_sdk).
std::vector<std::array<float, 3>> skin_bind_positions(const hcl::Operator& skin, uint32_t vertex_count, const std::string& sdk);

// The figures alone (no file written): display-buffer bindings (when options.meshes or
// options.model_given) and the rest-pose figure of every sim cloth.
Report measure(const hcl::ClothContainer& cloth, const Options& options);

// Every member of the census classes that the schema does not carry, with the reason. The
// reasons are the same for every file; `count` is filled per file by export_cloth.
const std::vector<Dropped>& dropped_members();

// Builds the .drcloth bytes, with measure()'s figures stored in it. Fails only on input that
// cannot be written (a display buffer whose vertices do not match is reported, not refused).
Result<std::vector<uint8_t>> export_cloth(const hcl::ClothContainer& cloth, const Options& options,
                                          Report* report = nullptr);

}  // namespace drape::cloth_export
