// drape runtime: the immutable asset, the runtime's own form of a .drcloth cloth data.
// Built once by the loader (loader.cpp), which checks every index stored here against the count
// it indexes, so the operators index without checks. Nothing here changes after load.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace drape::rt {

struct Mat4 {
    float m[16];  // four columns c0..c3 of four floats (hkTransform as stored); c3 = translation
};

enum class BufferKind : uint8_t { other = 0, display, shadow, scratch, sim };

struct BufferDef {
    std::string name, mesh_name;
    BufferKind kind = BufferKind::other;
    int32_t type = 0;                       // as stored: 1 sim positions, 2 previous positions, 4 display, 6 scratch, 7 shadow
    // Type 1 and 2 buffers are the sim cloth's particles (positions / previous positions): the
    // instance points them at the solver's arrays. -1: the buffer has its own storage.
    int32_t sim = -1;
    bool previous = false;
    uint32_t num_vertices = 0;
    uint32_t num_triangles = 0;             // triangle capacity (display: the engine sets them)
    std::vector<uint16_t> triangles;        // stored triangles, 3 per triangle (scratch, shadow)
};

// The runtime's operator kinds: one per operator class of docs/havok-cloth.md's census.
enum class OpKind : uint8_t {
    simulate,
    move_particles,
    copy_vertices,
    gather_all,
    gather_some,
    input_convert,
    output_convert,
    update_all_vertex_frames,
    update_some_vertex_frames,
    simple_mesh_bone_deform,
    mesh_bone_deform,
    object_space_skin,   // streams: P, PN, PNT
    bone_space_skin,
    object_space_mesh_mesh_deform,
    bone_space_mesh_mesh_deform,
    mesh_mesh_deform_2014,  // 2014 (DS3, BB) hclMeshMeshDeformOperator
    unsupported,         // a class the runtime does not run (PNTB, unknown classes): skipped
};
const char* op_kind_name(OpKind k);

enum Streams : uint8_t { k_stream_p = 1, k_stream_n = 2, k_stream_t = 4, k_stream_b = 8 };

// A deformer block in the order the operator processes it (its control byte order): block k of
// the processed list owns local vectors [16k, 16k+16).
//  object space: 16 vertices, N influences each; bones[16*N] index the operator's subset,
//                weights[16*N] as stored (u8 for N <= 4, u16 for N >= 5, none for N = 1).
//  bone space:   16 / N vertices (4 for N=4, 5 for N=3, 8 for N=2, 16 for N=1), one local
//                vector per influence; bones[16] index the subset.
struct DeformBlock {
    uint32_t local = 0;        // local block index: its vectors are [16 local, 16 local + 16)
    uint8_t blends = 0;
    uint8_t vertex_count = 0;
    uint16_t vertices[16];
    uint16_t bones[128];
    uint16_t weights[128];
};

// Local vectors (x, y, z, w) unpacked at load from packed (hkPackedVector3) or unpacked
// storage: the packed decode is exact (docs/havok-cloth.md: f32(word << 16) * f32bits(word3 << 16)), so
// decoding once gives the same bits as decoding per step.
struct LocalStream {
    std::vector<float> x, y, z, w;
    bool empty() const { return x.empty(); }
};

struct DeformOp {  // skin and mesh-mesh deform, object and bone space
    uint32_t output_buffer = 0;
    uint32_t input_buffer = 0;              // mesh-mesh deform
    uint32_t transform_set = 0;             // skin
    std::vector<uint16_t> subset;           // skin: transforms of the set; mesh-mesh: input triangles
    std::vector<Mat4> binds;                // object-space skin: bone from skin mesh, per subset entry;
                                            // object-space mesh-mesh: triangle from mesh, per subset entry
    // Object-space mesh-mesh: the binds' entries the composites read (rows 0..2 of each column),
    // sixteen subset entries a group, lane by lane: entry (column c, row r) of subset entry
    // 16 g + n at [(12 g + 3 c + r) * 16 + n] (lay_out_bind_lanes; zeros past the subset).
    std::vector<float> bind_lanes;
    std::vector<DeformBlock> blocks;        // processed order
    LocalStream local_p, local_n, local_t, local_b;
    uint8_t streams = 0;                    // which streams the operator writes (Streams bits)
    uint32_t scale_normal_behaviour = 0;
    // A stand-in copy (plan_conversions) for vertices whose positions the state overwrites
    // before reading them: every stream but the positions is written.
    bool skip_positions = false;
};

// The 2014 (DS3, BB) hclMeshMeshDeformOperator: output vertex v of [start_vertex, start_vertex +
// first_pair.size() - 1) is the weighted sum over its pairs [first_pair[v - start_vertex],
// first_pair[v - start_vertex + 1]) of its local position in each pair's input triangle frame
// (triangle_frame). Indices checked at load.
struct MeshMeshDeform2014Op {
    uint32_t input_buffer = 0, output_buffer = 0;
    uint32_t start_vertex = 0;
    std::vector<uint32_t> first_pair;  // one per output vertex of the range, plus one
    std::vector<uint16_t> triangle;    // per pair: the input buffer's triangle (the subset resolved)
    // The distinct triangles of the pairs in first-use order, and per pair its entry there: each
    // frame is built once a run (Scratch::matrices), not once per pair.
    std::vector<uint16_t> frames;
    std::vector<uint32_t> frame_of_pair;
    // Per pair, four floats each (one vector: a pair's splats come from one load): its local
    // position x, y, z in the triangle frame and its weight; its local normal x, y, z and 0. (The
    // file's w of either, 1 and 0, is not read.)
    std::vector<float> local_p, local_n;
    bool normals = false;              // deformNormals: also write the blended normal
};

struct MoveParticlesOp {
    uint32_t sim = 0, ref_buffer = 0;
    std::vector<uint16_t> vertices, particles;
};

struct CopyOp {
    uint32_t input_buffer = 0, output_buffer = 0;
    uint32_t count = 0, start_in = 0, start_out = 0;
    bool normals = false;
};

struct GatherOp {
    uint32_t input_buffer = 0, output_buffer = 0;
    std::vector<uint16_t> inputs, outputs;  // pairs in stored order (gather all: outputs 0..n-1 with input >= 0)
    bool normals = false;
};

struct ConvertOp {
    uint32_t from_buffer = 0, to_buffer = 0;  // input: user -> shadow; output: shadow -> user
    // Input conversions only: the skin operators (operator indices, object or bone space, in
    // state order) of the file's `_Skin` state that write the user buffer. When the engine hands
    // no display vertices, the conversion runs them into the shadow after the copy, so the
    // vertices no operator of the simulated state writes are the skinned mesh (docs/havok-cloth.md: the game
    // hands the cloth the mesh it has skinned) instead of the previous step's output.
    std::vector<uint32_t> display_skins;
};

struct VertexFramesOp {
    uint32_t buffer = 0;
    bool some = false;                      // update some: a selection of vertices only
    bool normals = true, tangents = false, bitangents = false;
    uint32_t num_normal_ids = 0;
    std::vector<uint16_t> vert_to_normal_id;     // all: per buffer vertex (empty: id = vertex)
    std::vector<uint8_t> triangle_flips;         // bit t: triangle t is flipped
    // Frame entries (all: per vertex; some: per selection entry).
    std::vector<uint16_t> reference_vertices;    // buffer vertex indices
    std::vector<float> tangent_cos, tangent_sin, bitangent_flip;
    std::vector<uint16_t> triangles;             // some: 3 per triangle, indices into involved_vertices
    std::vector<uint16_t> involved_vertices;     // some: buffer vertex indices
    std::vector<uint16_t> involved_to_normal_id; // some: per involved vertex
    std::vector<uint16_t> selection;             // some: indices into involved_vertices, written
    // Some: per selection entry its buffer vertex and its normal id, the selection resolved once
    // at load (empty: resolved as the frames are written).
    std::vector<uint16_t> entry_vertex, entry_id;
    // Per normal id, the triangles whose corners name it, in triangle order, a triangle once per
    // such corner (id_first[id] .. id_first[id + 1] index id_triangles; empty: not indexed), each
    // named by its entry in `corners`. The sums then read the triangle normals instead of
    // scattering into them. Update all: built from the buffer's own triangles, used while the
    // buffer has them (not the engine's).
    std::vector<uint32_t> id_first, id_triangles;
    // With the index: the distinct triangles, three corners each as buffer vertices (a flipped
    // triangle's second and third swapped), in order of first use: triangles with the same
    // corners in the same order share an entry and their normal is computed once (update some
    // lists most of its triangles about three times).
    std::vector<uint16_t> corners;
    // The same sums four ids at a time (ids 4g .. 4g + 3, g < num_normal_ids / 4): round e of
    // group g names in group_triangles[4 * e + lane] (e from group_first[g] to group_first[g + 1])
    // the triangle lane adds, after an id's own triangles the pad index (corners.size() / 3),
    // whose normal is -0: the identity of addition, so the sums keep their bits. Sixteen-bit
    // entries (a round's four in one load); an operator with more than 65,535 distinct triangles
    // has no groups and sums id by id.
    std::vector<uint32_t> group_first;
    std::vector<uint16_t> group_triangles;
};

struct SimpleBoneDeformOp {
    uint32_t input_buffer = 0, transform_set = 0;
    // per pair: output transform (the file's bone_offset is a byte offset, 64 per matrix) and
    // input triangle (triangle_offset a byte offset into the u16 indices, 6 per triangle).
    std::vector<uint16_t> bones, triangles;
    std::vector<Mat4> local;                  // per pair: bone in its triangle's frame
};

struct MeshBoneDeformOp {
    uint32_t input_buffer = 0, transform_set = 0;
    std::vector<uint16_t> bones;               // per driven bone (transform index)
    std::vector<uint32_t> first_pair;          // 2 per driven bone: its pairs [start, end)
    std::vector<uint16_t> pair_triangle;
    std::vector<float> pair_weight;
    std::vector<Mat4> pair_local;
};

struct SimulateOp {
    uint32_t sim = 0;
    uint32_t config = 0;
};

struct Operator {
    std::string name;
    OpKind kind = OpKind::unsupported;
    uint32_t payload = 0;  // index into the ClothModel array of its kind
};

struct State {
    std::string name;
    std::vector<uint32_t> operators;
    std::vector<uint32_t> buffer_map;  // per buffer definition: the buffer operators of this state reach
    // Per operator position (empty: none): for an input conversion whose stand-in skins write
    // vertices (or positions) this state overwrites before anything reads them, the index in
    // ClothModel::stand_in_deforms of the first of its skins' copies without them: two per
    // display skin, in order (the vertices whose positions are read; the others, positions left
    // out); UINT32_MAX: the conversion's own skins (plan_conversions).
    std::vector<uint32_t> stand_in;
    // Per operator position (empty: all): the streams (Streams bits) an input conversion copies,
    // those the state reads before overwriting them (plan_conversions).
    std::vector<uint8_t> convert_streams;
};

// A file collidable of a sim cloth, as the C API lists it (drape_collidable_info).
struct CollidableInfo {
    std::string name;
    uint32_t kind = 0;                 // drape_shape_kind
    float a[4] = {}, b[4] = {};        // as drape_collidable_info
    uint32_t transform = UINT32_MAX;   // transform-set index it follows, UINT32_MAX none
    Mat4 offset{}, rest{};
};

struct SimCloth {
    std::string name;
    std::vector<CollidableInfo> collidables;            // perInstanceCollidables, in order
    uint32_t particle_count = 0;
    std::vector<float> rest_x, rest_y, rest_z;          // rest pose 0 (or zero)
    std::vector<uint16_t> fixed;
    std::vector<uint8_t> pinned;                        // per particle: 1 when a move-particles operator sets it
    std::vector<uint16_t> reference_vertex;             // per particle, 0xFFFF none (local range/transition)
    std::vector<uint32_t> read_buffers;                 // every buffer its local-range and transition sets read
    std::vector<uint16_t> triangles;                    // the sim cloth's triangles, 3 per triangle
    uint32_t reference_buffer = UINT32_MAX;
    uint32_t root_buffer = UINT32_MAX;                  // the first display buffer, for reset
};

struct ClothModel {
    std::string name;
    std::vector<std::string> bone_names;
    std::vector<Mat4> rest_pose;  // per transform (model space), or empty when the file has none
    uint32_t transform_count = 0;
    std::vector<BufferDef> buffers;
    std::vector<SimCloth> sims;
    std::vector<Operator> operators;
    std::vector<State> states;
    std::vector<uint32_t> driven_bones;

    std::vector<DeformOp> deforms;
    std::vector<MoveParticlesOp> moves;
    std::vector<CopyOp> copies;
    std::vector<GatherOp> gathers;
    std::vector<ConvertOp> converts;
    std::vector<VertexFramesOp> frames;
    std::vector<SimpleBoneDeformOp> simple_bone_deforms;
    std::vector<MeshBoneDeformOp> mesh_bone_deforms;
    std::vector<MeshMeshDeform2014Op> mesh_mesh_2014;
    std::vector<SimulateOp> simulates;
    std::vector<DeformOp> stand_in_deforms;  // State::stand_in

    // Per buffer: the buffer whose vertex arrays it uses (itself, or for a shadow that only
    // stands for its user buffer between their conversions, that user buffer;
    // plan_shared_storage). Empty: every buffer its own.
    std::vector<uint32_t> storage_of;

    uint32_t max_subset = 0;      // scratch size for composite matrices
    uint32_t max_normal_ids = 0;  // scratch for vertex frames
    uint32_t max_frame_triangles = 0;  // scratch for vertex frames' triangle normals
};

struct FileModel {
    std::vector<ClothModel> cloths;
    std::vector<uint8_t> bytes;   // the verified file, kept for the solver's set-up
};

}  // namespace drape::rt
