// drape runtime: the operators' arithmetic (every kind of docs/havok-cloth.md's census but the simulate
// kernel, which is runtime/src/solver/). Plain functions over the instance's structure-of-arrays
// buffers, so tests can run each on hand-made data. The order of every sum is fixed and stated;
// the file is built with -ffp-contract=off, so the compiler keeps it.
#pragma once

#include <cstdint>

#include "rt_model.h"

namespace drape::rt {

// One buffer of an instance: each stream an array of 16-byte vectors (x, y, z, w), the layout
// the solver reads its reference buffers in (Float4); a stream the buffer lacks is nullptr.
struct BufferData {
    float* p = nullptr;
    float* n = nullptr;
    float* t = nullptr;
    float* b = nullptr;
    uint32_t count = 0;
    const uint16_t* triangles = nullptr;  // 3 per triangle
    uint32_t triangle_count = 0;
    Mat4 world_from_mesh, mesh_from_world;
    bool world_from_mesh_identity = true, mesh_from_world_identity = true;
};

// The particles of one sim cloth: the solver's positions (x, y, z, w per particle).
struct Particles {
    float* xyzw;
    uint32_t count;
};

// The transform set of an instance: world matrices, 16 floats each.
struct Transforms {
    Mat4* m;
    uint32_t count;
};

bool is_identity(const Mat4& m);

// ---- the games' arithmetic (docs/havok-cloth.md), exposed for the rule tests ----------------------------------

// docs/havok-cloth.md "The skin operator": weight byte times f32bits(0x3B808081) (1/255 rounded to f32).
float weight_from_byte(uint32_t byte);
// Our decode of the 16-bit weights of 5..8-blend object-space blocks: u16 * f32(1/65535) (inferred).
float weight_from_u16(uint32_t word);
// hkPackedVector3: component i = f32(i32(u16(v[i]) << 16)) * f32bits(u32(u16(v[3])) << 16).
void unpack_vector3(const int16_t v[4], float out[3]);
// Composite of a bone matrix B and an inverse bind I: rotation columns (B.c0*x + B.c1*y) + B.c2*z,
// translation ((B.c0*x + B.c3) + B.c1*y) + B.c2*z of I's columns (x, y, z).
Mat4 compose(const Mat4& b, const Mat4& i);
// A point through a blended matrix: ((c0*x + c3) + c1*y) + c2*z.
void transform_point(const Mat4& m, float x, float y, float z, float out[3]);
// A direction: (c0*x + c1*y) + c2*z (normals: no normalisation).
void transform_direction(const Mat4& m, float x, float y, float z, float out[3]);
// The approximate reciprocal square root (rsqrtss, no Newton step) the game's bone deformer uses,
// or the exact 1/sqrtf in the portable mode.
float rsqrt_game(float x);
float rsqrt_exact(float x);

// ---- operators --------------------------------------------------------------------------

// Scratch an operator may use: Mat4 per subset entry, and normals per normal id.
struct Scratch {
    Mat4* matrices;
    uint32_t matrix_capacity;
    float* accum[3];
    uint32_t accum_capacity;
    // x, y, z, w per triangle, 16-byte aligned (indexed vertex frames): triangle_capacity + 1
    // vectors, the last for the pad of the grouped sums.
    float* triangle_normals = nullptr;
    uint32_t triangle_capacity = 0;
    // Widest lanes the skin blends, the mesh-mesh composites and the vertex frames may use: 16
    // (AVX-512 registers, where the CPU has AVX-512F and VL: four vertices of an object-space
    // blend, sixteen composites), 8 (AVX2 registers: two vertices of a blend, eight frame
    // entries) or 4. All give the same bits; tests run each.
    uint8_t max_lanes = 16;
};

// Skin P/PN/PNT, object space (bones: transform set x inverse binds) or bone space.
void run_object_space_skin(const DeformOp& op, const Transforms& ts, BufferData& out, Scratch& s);
void run_bone_space_skin(const DeformOp& op, const Transforms& ts, BufferData& out, Scratch& s);
// Mesh-mesh deform: the deformer's "bones" are the input buffer's triangle frames.
void run_object_space_mesh_mesh_deform(const DeformOp& op, const BufferData& in, BufferData& out, Scratch& s);
void run_bone_space_mesh_mesh_deform(const DeformOp& op, const BufferData& in, BufferData& out, Scratch& s);
// Havok's triangle frame, found in the data: origin the centroid g = ((a + b) + c) * (1/3),
// c0 = a - g, c1 = b - g, c2 = c0 x c1 (not normalised), c3 = g. With it every object-space
// mesh-mesh deform of the corpus (Elden Ring c5000, c4361, HD_M_3005, DS3 bd_m_11010: 13) has
// frame x triangleFromMeshTransform = identity to 3.5e-5 at the sim rest pose (the frame
// a, b - a, c - a was off by 6 to 15), and every pair of every vertex of the 2014 operators
// (BB c2020_c, DS3 c1400) gives one point to 1.2e-5 m. Bone-space mesh-mesh deform uses the same
// frame (the corpus has no vertex whose influences lie on different triangles to confirm it).
Mat4 triangle_frame(const BufferData& in, uint32_t triangle);
// 2014 mesh-mesh deform: each vertex of the range with pairs gets sum(w * frame * local position)
// (point: ((c0*x + c3) + c1*y) + c2*z), and with deform_normals sum(w * frame * local normal)
// ((c0*x + c1*y) + c2*z, not normalised), summed in pair order. A vertex without pairs is left.
// Fills op.id_first and op.id_triangles from the triangles the operator sums (update some: its
// own, `tris` ignored; update all: `tris`, tri_count of them). Every index checked at load.
void index_normal_sums(VertexFramesOp& op, const uint16_t* tris, uint32_t tri_count);
// For each state's input conversions: the streams of the copy and the vertices of the stand-in
// skins (ConvertOp::display_skins) that a later operator of the state overwrites before any
// operator reads them are dead. State::convert_streams names the streams to copy;
// State::stand_in copies of the skins without the vertices dead in every stream they write (each
// remaining vertex blended as before: the same bits). Reads are taken broadly (an operator
// reading a buffer reads all of its vertices), writes narrowly.
void plan_conversions(ClothModel& m);
// ClothModel::storage_of: a shadow that only ever stands for its user buffer between the pair's
// own input and output conversions shares the user buffer's vertex arrays (conversion_plan.cpp
// states the conditions and why the steps keep their bits).
void plan_shared_storage(ClothModel& m);

// Fills op.bind_lanes from op.binds (an object-space mesh-mesh deform's composites on sixteen
// lanes read them).
void lay_out_bind_lanes(DeformOp& op);
// Fills op.frames and op.frame_of_pair from op.triangle (every entry below `triangle_count`).
void index_frames(MeshMeshDeform2014Op& op, uint32_t triangle_count);
// Needs s.matrices for op.frames.size() frames.
void run_mesh_mesh_deform_2014(const MeshMeshDeform2014Op& op, const BufferData& in, BufferData& out, Scratch& s);

void run_move_particles(const MoveParticlesOp& op, const BufferData& ref, Particles& p);
void run_copy_vertices(const CopyOp& op, const BufferData& in, BufferData& out);
void run_gather(const GatherOp& op, const BufferData& in, BufferData& out);
// Input/output convert: the runtime keeps every buffer in one float layout, so a conversion is a copy.
void run_convert(const BufferData& from, BufferData& to, uint8_t streams = k_stream_p | k_stream_n | k_stream_t | k_stream_b);
// indexed_triangles: the triangles op.id_first indexes (update all: the buffer's own, from the
// file); the sums scatter instead where the buffer holds others or the scratch has no room.
void run_vertex_frames(const VertexFramesOp& op, BufferData& buf, Scratch& s, const uint16_t* indexed_triangles = nullptr);
void run_simple_mesh_bone_deform(const SimpleBoneDeformOp& op, const BufferData& in, Transforms& ts, bool exact_rsqrt);
void run_mesh_bone_deform(const MeshBoneDeformOp& op, const BufferData& in, Transforms& ts, bool exact_rsqrt);

}  // namespace drape::rt
