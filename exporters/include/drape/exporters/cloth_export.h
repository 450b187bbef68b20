// drape: the game's hcl cloth objects to the drape cloth format (schema/cloth.fbs).
//
// The exporter keeps the game's cloth program: every member of every census class is either
// written or listed, with its reason, in the file's `dropped` table (and in dropped_members()).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "drape/havok/animation.h"
#include "drape/havok/cloth.h"
#include "drape/io/error.h"

namespace drape::cloth_export {

// A mesh of the model beside the cloth, as the display-buffer binding needs it (seed 000
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
    bool zstd = false;                       // wrap the FlatBuffer in a zstd frame
    // seed 000: display vertex i equals mesh vertex i within 4.9e-5 of the mesh's size.
    float bind_tolerance = 4.9e-5f;
};

struct Binding {
    std::string cloth_data, buffer;
    int mesh_index = -1;          // -1: no mesh matched
    std::string mesh_name;
    float max_error = -1;         // relative to the mesh's bounding-box diagonal; -1 = not checked
    uint32_t vertices_checked = 0;
    bool within_tolerance = true;
};

struct Dropped {
    std::string class_name, member, reason;
    uint32_t count = 0;  // objects of the source with a non-empty value
};

struct Report {
    std::vector<Binding> bindings;
    std::vector<Dropped> dropped;
    size_t cloth_datas = 0, sim_cloths = 0, particles = 0, constraint_sets = 0, operators = 0;
};

// The bind-pose position of every vertex an object-space skin operator writes (indexed by vertex,
// NaN where the operator writes none). At the bind pose each bone times its boneFromSkinMesh
// matrix is the identity, so a vertex's skinned position is its stored local position.
// Which local block belongs to which blend block is told by the deformer's controlBytes: byte k
// names the blend group of the k-th processed block of 16 vertices as its index in the
// deformer's member order (2014: four..one, so N = 4 - c; 2016/2018: eight..one, N = 8 - c), and
// local block k holds that block's 16 vertices. Measured on BB c2020_c.hkx: with this rule the
// move-particles vertices land on the sim cloth's rest pose within 8.7e-5 m; with the blocks
// taken in member order they miss by up to 2 m. `groups` is 4 for 2014 files, 8 otherwise.
std::vector<std::array<float, 3>> skin_bind_positions(const hcl::Operator& skin, uint32_t vertex_count, int groups);

// Every member of the census classes that the schema does not carry, with the reason. The
// reasons are the same for every file; `count` is filled per file by export_cloth.
const std::vector<Dropped>& dropped_members();

// Builds the .drcloth bytes. Fails only on inconsistent input that cannot be written (a display
// buffer bound to a mesh whose vertices do not match is reported, not refused).
Result<std::vector<uint8_t>> export_cloth(const hcl::ClothContainer& cloth, const Options& options,
                                          Report* report = nullptr);

}  // namespace drape::cloth_export
