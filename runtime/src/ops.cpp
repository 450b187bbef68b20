// drape runtime: operator arithmetic. Every sum is written in the order the game's code uses
// where docs/havok-cloth.md states it (comments cite the rule); elsewhere the order is ours, fixed, and
// stated. Built with -ffp-contract=off: no fused multiply-add may change a bit.
#include "rt_ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "solver/lanes.h"

#if defined(__SSE__) || defined(_M_X64) || defined(_M_IX86)
#include <xmmintrin.h>
#define DRAPE_HAVE_SSE 1
#endif

namespace drape::rt {

namespace {

float bits_to_float(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}


// The blended matrix of one vertex: its columns c0..c3 as four-lane vectors. Every lane runs
// the scalar expression of its row (the w lane is carried and never written out), so the xyz
// lanes hold the same bits as a row-by-row loop.
using solver::lanes::F4;
using solver::lanes::load4;
using solver::lanes::splat4;
struct Blend {
    F4 c[4];
};

inline void blend_first(Blend& out, const Mat4& m) {
    for (int c = 0; c < 4; ++c) out.c[c] = load4(m.m + c * 4);
}
inline void blend_first_weighted(Blend& out, const Mat4& m, float w) {
    const F4 wv = splat4(w);
    for (int c = 0; c < 4; ++c) out.c[c] = load4(m.m + c * 4) * wv;
}
inline void blend_add(Blend& out, const Mat4& m, float w) {
    const F4 wv = splat4(w);
    for (int c = 0; c < 4; ++c) out.c[c] = out.c[c] + load4(m.m + c * 4) * wv;
}
// The xyz lanes of `v` into o[0..2] (o[3] is the vertex's w: left alone).
using solver::lanes::store3;
// docs/havok-cloth.md: a point is ((c0*x + c3) + c1*y) + c2*z.
inline void blend_point(const Blend& m, float x, float y, float z, float* o) {
    store3(o, ((m.c[0] * splat4(x) + m.c[3]) + m.c[1] * splat4(y)) + m.c[2] * splat4(z));
}
// Normals and tangents by the blended rows, no normalisation: (c0*x + c1*y) + c2*z.
inline void blend_direction(const Blend& m, float x, float y, float z, float* o) {
    store3(o, (m.c[0] * splat4(x) + m.c[1] * splat4(y)) + m.c[2] * splat4(z));
}

float block_weight(const DeformBlock& b, uint32_t k) {
    return b.blends <= 4 ? weight_from_byte(b.weights[k]) : weight_from_u16(b.weights[k]);
}

// The object-space deform: the composites are in s.matrices, one per subset entry.
void object_space_blend(const DeformOp& op, const Mat4* composites, BufferData& out) {
    const bool wn = (op.streams & k_stream_n) && !op.local_n.empty() && out.n;
    const bool wt = (op.streams & k_stream_t) && !op.local_t.empty() && out.t;
    const bool wb = (op.streams & k_stream_b) && !op.local_b.empty() && out.b;
    for (size_t k = 0; k < op.blocks.size(); ++k) {
        const DeformBlock& blk = op.blocks[k];
        const uint32_t n = blk.blends;
        for (uint32_t j = 0; j < blk.vertex_count; ++j) {
            const uint32_t li = blk.local * 16 + j;
            Blend m;
            // docs/havok-cloth.md: the blend adds M * w in bone order; a one-blend vertex takes its bone's matrix.
            if (n == 1) {
                blend_first(m, composites[blk.bones[j]]);
            } else {
                blend_first_weighted(m, composites[blk.bones[j * n]], block_weight(blk, j * n));
                for (uint32_t i = 1; i < n; ++i) blend_add(m, composites[blk.bones[j * n + i]], block_weight(blk, j * n + i));
            }
            const uint32_t v = blk.vertices[j];
            if (!op.skip_positions) blend_point(m, op.local_p.x[li], op.local_p.y[li], op.local_p.z[li], &out.p[size_t(v) * 4]);
            if (wn) blend_direction(m, op.local_n.x[li], op.local_n.y[li], op.local_n.z[li], &out.n[size_t(v) * 4]);
            if (wt) blend_direction(m, op.local_t.x[li], op.local_t.y[li], op.local_t.z[li], &out.t[size_t(v) * 4]);
            if (wb) blend_direction(m, op.local_b.x[li], op.local_b.y[li], op.local_b.z[li], &out.b[size_t(v) * 4]);
        }
    }
}

// The bone-space deform: local vector i of a block is influence i (its weight folded into the
// vector as stored, w the weight): point_i = ((c0*x + c1*y) + c2*z) + c3*w, summed in influence
// order (ours: docs/havok-cloth.md does not read this path).
void bone_space_blend(const DeformOp& op, const Mat4* bones, BufferData& out) {
    const bool wn = (op.streams & k_stream_n) && !op.local_n.empty() && out.n;
    const bool wt = (op.streams & k_stream_t) && !op.local_t.empty() && out.t;
    for (size_t k = 0; k < op.blocks.size(); ++k) {
        const DeformBlock& blk = op.blocks[k];
        const uint32_t n = blk.blends;
        for (uint32_t j = 0; j < blk.vertex_count; ++j) {
            // Each lane r sums its row as the scalar form would (from +0, in influence order).
            F4 p = splat4(0.0f), nn = splat4(0.0f), tt = splat4(0.0f);
            for (uint32_t i = 0; i < n; ++i) {
                const uint32_t li = blk.local * 16 + j * n + i;
                const Mat4& b = bones[blk.bones[j * n + i]];
                const F4 c0 = load4(b.m), c1 = load4(b.m + 4), c2 = load4(b.m + 8), c3 = load4(b.m + 12);
                p = p + (((c0 * splat4(op.local_p.x[li]) + c1 * splat4(op.local_p.y[li])) + c2 * splat4(op.local_p.z[li])) +
                         c3 * splat4(op.local_p.w[li]));
                if (wn) nn = nn + ((c0 * splat4(op.local_n.x[li]) + c1 * splat4(op.local_n.y[li])) + c2 * splat4(op.local_n.z[li]));
                if (wt) tt = tt + ((c0 * splat4(op.local_t.x[li]) + c1 * splat4(op.local_t.y[li])) + c2 * splat4(op.local_t.z[li]));
            }
            const uint32_t v = blk.vertices[j];
            if (!op.skip_positions) store3(&out.p[size_t(v) * 4], p);
            if (wn) store3(&out.n[size_t(v) * 4], nn);
            if (wt) store3(&out.t[size_t(v) * 4], tt);
        }
    }
}

// mesh_from_world x B, by the composite rule (skipped when the buffer's matrix is the identity,
// as it is on the game's scratch and sim buffers: an identity product could turn -0 into +0).
Mat4 to_buffer_space(const BufferData& out, const Mat4& b) { return out.mesh_from_world_identity ? b : compose(out.mesh_from_world, b); }

float dot3(float ax, float ay, float az, float bx, float by, float bz) { return (ax * bx + ay * by) + az * bz; }

}  // namespace

bool is_identity(const Mat4& m) {
    static const float k_id[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    return std::memcmp(m.m, k_id, sizeof k_id) == 0;
}

const char* op_kind_name(OpKind k) {
    switch (k) {
        case OpKind::simulate: return "simulate";
        case OpKind::move_particles: return "move particles";
        case OpKind::copy_vertices: return "copy vertices";
        case OpKind::gather_all: return "gather all vertices";
        case OpKind::gather_some: return "gather some vertices";
        case OpKind::input_convert: return "input convert";
        case OpKind::output_convert: return "output convert";
        case OpKind::update_all_vertex_frames: return "update all vertex frames";
        case OpKind::update_some_vertex_frames: return "update some vertex frames";
        case OpKind::simple_mesh_bone_deform: return "simple mesh bone deform";
        case OpKind::mesh_bone_deform: return "mesh bone deform";
        case OpKind::object_space_skin: return "object space skin";
        case OpKind::bone_space_skin: return "bone space skin";
        case OpKind::object_space_mesh_mesh_deform: return "object space mesh-mesh deform";
        case OpKind::bone_space_mesh_mesh_deform: return "bone space mesh-mesh deform";
        case OpKind::mesh_mesh_deform_2014: return "mesh-mesh deform (2014)";
        case OpKind::unsupported: return "unsupported";
    }
    return "?";
}

float weight_from_byte(uint32_t byte) { return float(byte) * bits_to_float(0x3B808081u); }
float weight_from_u16(uint32_t word) { return float(word) * (1.0f / 65535.0f); }

void unpack_vector3(const int16_t v[4], float out[3]) {
    const float scale = bits_to_float(uint32_t(uint16_t(v[3])) << 16);
    for (int i = 0; i < 3; ++i) out[i] = float(int32_t(uint32_t(uint16_t(v[i])) << 16)) * scale;
}

// By columns: lane k of column c is the scalar expression of row k (the same bits).
Mat4 compose(const Mat4& b, const Mat4& i) {
    const F4 b0 = load4(b.m), b1 = load4(b.m + 4), b2 = load4(b.m + 8), b3 = load4(b.m + 12);
    Mat4 r;
    for (int c = 0; c < 3; ++c)
        solver::lanes::store4(r.m + c * 4, (b0 * splat4(i.m[c * 4]) + b1 * splat4(i.m[c * 4 + 1])) + b2 * splat4(i.m[c * 4 + 2]));
    solver::lanes::store4(r.m + 12, ((b0 * splat4(i.m[12]) + b3) + b1 * splat4(i.m[13])) + b2 * splat4(i.m[14]));
    return r;
}

void transform_point(const Mat4& m, float x, float y, float z, float out[3]) {
    for (int k = 0; k < 3; ++k) out[k] = ((m.m[k] * x + m.m[12 + k]) + m.m[4 + k] * y) + m.m[8 + k] * z;
}

void transform_direction(const Mat4& m, float x, float y, float z, float out[3]) {
    for (int k = 0; k < 3; ++k) out[k] = (m.m[k] * x + m.m[4 + k] * y) + m.m[8 + k] * z;
}

float rsqrt_game(float x) {
#if DRAPE_HAVE_SSE
    return _mm_cvtss_f32(_mm_rsqrt_ss(_mm_set_ss(x)));
#else
    return 1.0f / std::sqrt(x);  // no approximate instruction on this processor: the exact mode
#endif
}

float rsqrt_exact(float x) { return 1.0f / std::sqrt(x); }

// ops_avx2.cpp: the blends two vertices and the vertex frames eight entries at a time (the same
// bits), where the CPU has AVX2.
bool ops_avx2_built();
// ops_avx2.cpp: the 2014 mesh-mesh deform's weighted sums (run_mesh_mesh_deform_2014's loop), the
// frames already in `frames`.
void mesh_mesh_sums_avx2(const MeshMeshDeform2014Op& op, const Mat4* frames, BufferData& out);
// ops_avx2.cpp: the object-space mesh-mesh deform's composites (run_object_space_mesh_mesh_deform).
void mesh_mesh_composites_avx2(const DeformOp& op, const BufferData& in, Mat4* out);
void object_space_blend_avx2(const DeformOp& op, const Mat4* composites, BufferData& out);
void bone_space_blend_avx2(const DeformOp& op, const Mat4* bones, BufferData& out);
void write_frames8_avx2(const VertexFramesOp& op, BufferData& buf, const Scratch& s, uint32_t k0, const uint32_t* v, const uint32_t* id);
void normal_sums_avx2(const VertexFramesOp& op, const float* p, uint32_t tri_count, float* tn, float* const accum[3], uint32_t groups);
// ops_avx512.cpp: the object-space blend four vertices at a time (the same bits), where the CPU
// has AVX-512F and VL.
void object_space_blend_avx512(const DeformOp& op, const Mat4* composites, BufferData& out);
// ops_avx512.cpp: the object-space mesh-mesh deform's composites sixteen subset entries at a
// time (op.bind_lanes laid out), the same bits.
void mesh_mesh_composites_avx512(const DeformOp& op, const BufferData& in, Mat4* out);

namespace {
bool wide_lanes(const Scratch& s) {
    static const bool available = ops_avx2_built() && solver::widest_lanes() >= 8;
    return s.max_lanes >= 8 && available;
}
bool sixteen_lanes(const Scratch& s) {
    static const bool available = solver::has_avx512vl();
    return s.max_lanes >= 16 && available;
}
void object_blend(const DeformOp& op, const Mat4* composites, BufferData& out, const Scratch& s) {
    if (sixteen_lanes(s)) object_space_blend_avx512(op, composites, out);
    else if (wide_lanes(s)) object_space_blend_avx2(op, composites, out);
    else object_space_blend(op, composites, out);
}
void bone_blend(const DeformOp& op, const Mat4* bones, BufferData& out, const Scratch& s) {
    if (wide_lanes(s)) bone_space_blend_avx2(op, bones, out);
    else bone_space_blend(op, bones, out);
}
}  // namespace

void run_object_space_skin(const DeformOp& op, const Transforms& ts, BufferData& out, Scratch& s) {
    for (size_t j = 0; j < op.subset.size(); ++j) s.matrices[j] = compose(to_buffer_space(out, ts.m[op.subset[j]]), op.binds[j]);
    object_blend(op, s.matrices, out, s);
}

void run_bone_space_skin(const DeformOp& op, const Transforms& ts, BufferData& out, Scratch& s) {
    for (size_t j = 0; j < op.subset.size(); ++j) s.matrices[j] = to_buffer_space(out, ts.m[op.subset[j]]);
    bone_blend(op, s.matrices, out, s);
}

void run_object_space_mesh_mesh_deform(const DeformOp& op, const BufferData& in, BufferData& out, Scratch& s) {
    if (sixteen_lanes(s) && op.bind_lanes.size() >= (op.subset.size() + 15) / 16 * 12 * 16 && op.binds.size() >= op.subset.size())
        mesh_mesh_composites_avx512(op, in, s.matrices);
    else if (wide_lanes(s)) mesh_mesh_composites_avx2(op, in, s.matrices);
    else
        for (size_t j = 0; j < op.subset.size(); ++j) s.matrices[j] = compose(triangle_frame(in, op.subset[j]), op.binds[j]);
    object_blend(op, s.matrices, out, s);
}

void run_bone_space_mesh_mesh_deform(const DeformOp& op, const BufferData& in, BufferData& out, Scratch& s) {
    for (size_t j = 0; j < op.subset.size(); ++j) s.matrices[j] = triangle_frame(in, op.subset[j]);
    bone_blend(op, s.matrices, out, s);
}

Mat4 triangle_frame(const BufferData& in, uint32_t triangle) {
    using namespace solver::lanes;
    const uint16_t* t = in.triangles + size_t(triangle) * 3;
    // Lane by lane the scalar expressions: g = ((a + b) + c) * (1/3), c0 = a - g, c1 = b - g,
    // c2 = c0 x c1; the w lanes 0, 0, 0 and 1 are set in the registers (a column stored whole is
    // read back whole by compose without a failed store-to-load forward).
    const F4 a = load4(in.p + size_t(t[0]) * 4), b = load4(in.p + size_t(t[1]) * 4), c = load4(in.p + size_t(t[2]) * 4);
    const F4 g = ((a + b) + c) * splat4(1.0f / 3.0f);
    const F4 e1 = a - g, e2 = b - g;
    const M4 xyz = mask4(~0u, ~0u, ~0u, 0u);
    const F4 zero = splat4(0.0f);
    Mat4 f;
    store4(f.m, select(xyz, e1, zero));
    store4(f.m + 4, select(xyz, e2, zero));
    store4(f.m + 8, select(xyz, yzx(e1) * zxy(e2) - zxy(e1) * yzx(e2), zero));
    store4(f.m + 12, select(xyz, g, splat4(1.0f)));
    return f;
}

void lay_out_bind_lanes(DeformOp& op) {
    const size_t groups = (op.binds.size() + 15) / 16;
    op.bind_lanes.assign(groups * 12 * 16, 0.0f);
    for (size_t j = 0; j < op.binds.size(); ++j)
        for (uint32_t c = 0; c < 4; ++c)
            for (uint32_t r = 0; r < 3; ++r) op.bind_lanes[((j / 16) * 12 + 3 * c + r) * 16 + j % 16] = op.binds[j].m[4 * c + r];
}

void index_frames(MeshMeshDeform2014Op& op, uint32_t triangle_count) {
    std::vector<uint32_t> entry(triangle_count, UINT32_MAX);
    op.frames.clear(), op.frame_of_pair.clear();
    for (uint16_t t : op.triangle) {
        if (entry[t] == UINT32_MAX) entry[t] = uint32_t(op.frames.size()), op.frames.push_back(t);
        op.frame_of_pair.push_back(entry[t]);
    }
}

void run_mesh_mesh_deform_2014(const MeshMeshDeform2014Op& op, const BufferData& in, BufferData& out, Scratch& s) {
    using solver::lanes::store3;
    for (size_t j = 0; j < op.frames.size(); ++j) s.matrices[j] = triangle_frame(in, op.frames[j]);
    if (wide_lanes(s)) {
        mesh_mesh_sums_avx2(op, s.matrices, out);
        return;
    }
    const size_t nv = op.first_pair.empty() ? 0 : op.first_pair.size() - 1;
    // A frame's columns as four-lane vectors: each lane runs transform_point's (and
    // transform_direction's) expression of its row, and the weighted sum of its row in pair
    // order; the w lane is carried and never stored.
    for (size_t v = 0; v < nv; ++v) {
        const uint32_t first = op.first_pair[v], last = op.first_pair[v + 1];
        if (first >= last) continue;
        F4 p = splat4(0.0f), n = splat4(0.0f);
        for (uint32_t k = first; k < last; ++k) {
            const float* f = s.matrices[op.frame_of_pair[k]].m;
            const F4 c0 = load4(f), c1 = load4(f + 4), c2 = load4(f + 8), c3 = load4(f + 12);
            const float* lp = &op.local_p[size_t(k) * 4];
            const F4 w = splat4(lp[3]);
            const F4 q = ((c0 * splat4(lp[0]) + c3) + c1 * splat4(lp[1])) + c2 * splat4(lp[2]);
            p = k == first ? q * w : p + q * w;
            if (op.normals) {
                const float* ln = &op.local_n[size_t(k) * 4];
                const F4 qn = (c0 * splat4(ln[0]) + c1 * splat4(ln[1])) + c2 * splat4(ln[2]);
                n = k == first ? qn * w : n + qn * w;
            }
        }
        store3(out.p + (op.start_vertex + v) * 4, p);
        if (op.normals && out.n) store3(out.n + (op.start_vertex + v) * 4, n);
    }
}

void run_move_particles(const MoveParticlesOp& op, const BufferData& ref, Particles& p) {
    // The reference buffer's vertex through its world-from-mesh (docs/havok-cloth.md: the pinned particles
    // moved through these matrices match the game bit for bit); identity matrices are skipped.
    for (size_t i = 0; i < op.vertices.size(); ++i) {
        const uint32_t v = op.vertices[i], q = op.particles[i];
        float* o = p.xyzw + size_t(q) * 4;
        const float* s = ref.p + size_t(v) * 4;
        if (ref.world_from_mesh_identity) {
            o[0] = s[0], o[1] = s[1], o[2] = s[2];
        } else {
            transform_point(ref.world_from_mesh, s[0], s[1], s[2], o);
        }
    }
}

namespace {
void copy_stream(const float* from, float* to, uint32_t fi, uint32_t ti, uint32_t count) {
    if (!from || !to || count == 0) return;
    std::memmove(to + size_t(ti) * 4, from + size_t(fi) * 4, size_t(count) * 4 * sizeof(float));
}
void copy_vertex(const float* from, float* to, uint32_t fi, uint32_t ti) {
    if (!from || !to) return;
    std::memcpy(to + size_t(ti) * 4, from + size_t(fi) * 4, 4 * sizeof(float));
}
}  // namespace

void run_copy_vertices(const CopyOp& op, const BufferData& in, BufferData& out) {
    copy_stream(in.p, out.p, op.start_in, op.start_out, op.count);
    if (op.normals) {
        copy_stream(in.n, out.n, op.start_in, op.start_out, op.count);
        copy_stream(in.t, out.t, op.start_in, op.start_out, op.count);
        copy_stream(in.b, out.b, op.start_in, op.start_out, op.count);
    }
}

void run_gather(const GatherOp& op, const BufferData& in, BufferData& out) {
    for (size_t i = 0; i < op.inputs.size(); ++i) {
        copy_vertex(in.p, out.p, op.inputs[i], op.outputs[i]);
        if (op.normals) {
            copy_vertex(in.n, out.n, op.inputs[i], op.outputs[i]);
            copy_vertex(in.t, out.t, op.inputs[i], op.outputs[i]);
            copy_vertex(in.b, out.b, op.inputs[i], op.outputs[i]);
        }
    }
}

void run_convert(const BufferData& from, BufferData& to, uint8_t streams) {
    const uint32_t n = from.count < to.count ? from.count : to.count;
    // A stream the two buffers share (ClothModel::storage_of) is already in place.
    if ((streams & k_stream_p) && from.p != to.p) copy_stream(from.p, to.p, 0, 0, n);
    if ((streams & k_stream_n) && from.n != to.n) copy_stream(from.n, to.n, 0, 0, n);
    if ((streams & k_stream_t) && from.t != to.t) copy_stream(from.t, to.t, 0, 0, n);
    if ((streams & k_stream_b) && from.b != to.b) copy_stream(from.b, to.b, 0, 0, n);
}

namespace {

// Triangle flips are bit-packed, one bit per triangle (byte t >> 3, bit t & 7): a flipped
// triangle swaps its second and third vertex (docs/havok-cloth.md: the flips turn the model's winding into
// the operator's).
bool flipped(const std::vector<uint8_t>& flips, uint32_t t) {
    const uint32_t byte = t >> 3;
    return byte < flips.size() && ((flips[byte] >> (t & 7)) & 1u);
}

// Triangle t's corners (locals; a flipped triangle swaps its second and third) in `l`, and its
// normal cross(b - a, c - a), area weighted, in nx, ny, nz. Named scalars, not arrays: an array
// written lane by lane and read back whole stalled every triangle on a failed store-to-load
// forward.
template <class VertexOf>
inline void triangle_normal(const BufferData& buf, const uint16_t* tris, uint32_t t, const std::vector<uint8_t>& flips, VertexOf vertex_of,
                            uint32_t l[3], float& nx, float& ny, float& nz) {
    l[0] = tris[t * 3], l[1] = tris[t * 3 + 1], l[2] = tris[t * 3 + 2];
    if (flipped(flips, t)) {
        const uint32_t tmp = l[1];
        l[1] = l[2], l[2] = tmp;
    }
    const float* pa = buf.p + size_t(vertex_of(l[0])) * 4;
    const float* pb = buf.p + size_t(vertex_of(l[1])) * 4;
    const float* pc = buf.p + size_t(vertex_of(l[2])) * 4;
    const float e1x = pb[0] - pa[0], e1y = pb[1] - pa[1], e1z = pb[2] - pa[2];
    const float e2x = pc[0] - pa[0], e2y = pc[1] - pa[1], e2z = pc[2] - pa[2];
    nx = e1y * e2z - e1z * e2y, ny = e1z * e2x - e1x * e2z, nz = e1x * e2y - e1y * e2x;
}

// Sums the triangle normals cross(b - a, c - a) (area weighted) into the normal ids of their
// vertices, in triangle order, then normalises each sum with the exact 1/sqrtf. Triangle
// corners are "locals": vertex_of(local) gives the buffer vertex, id_of(local) its normal id.
template <class VertexOf, class IdOf>
void accumulate_normals(const BufferData& buf, const uint16_t* tris, uint32_t tri_count, const std::vector<uint8_t>& flips,
                        VertexOf vertex_of, IdOf id_of, Scratch& s, uint32_t ids) {
    for (int r = 0; r < 3; ++r) std::memset(s.accum[r], 0, size_t(ids) * sizeof(float));
    for (uint32_t t = 0; t < tri_count; ++t) {
        uint32_t l[3];
        float nx, ny, nz;
        triangle_normal(buf, tris, t, flips, vertex_of, l, nx, ny, nz);
        float* ax = s.accum[0];
        float* ay = s.accum[1];
        float* az = s.accum[2];
        for (uint32_t k = 0; k < 3; ++k) {
            const uint32_t id = id_of(l[k]);
            ax[id] = ax[id] + nx;
            ay[id] = ay[id] + ny;
            az[id] = az[id] + nz;
        }
    }
    for (uint32_t id = 0; id < ids; ++id) {
        const float l2 = dot3(s.accum[0][id], s.accum[1][id], s.accum[2][id], s.accum[0][id], s.accum[1][id], s.accum[2][id]);
        const float inv = l2 > 0 ? rsqrt_exact(l2) : 0.0f;
        for (int r = 0; r < 3; ++r) s.accum[r][id] = s.accum[r][id] * inv;
    }
}

// Vertex v's frame: its normal from normal id `id`; its tangent the edge to its reference vertex
// projected on the normal's plane, normalised, turned about the normal by the stored angle
// (t = e cos + (n x e) sin); bitangent flip * (n x t). Frame entry k holds v's reference vertex,
// angle and flip. (Our reading of the stored members: docs/havok-cloth.md does not give this path.)
void write_frame(const VertexFramesOp& op, BufferData& buf, const Scratch& s, uint32_t v, uint32_t id, uint32_t k) {
    float* nv = buf.n + size_t(v) * 4;
    if (op.normals) nv[0] = s.accum[0][id], nv[1] = s.accum[1][id], nv[2] = s.accum[2][id];
    if (!op.tangents || k >= op.reference_vertices.size()) return;
    // Named scalars throughout (see accumulate_normals).
    const float nx = nv[0], ny = nv[1], nz = nv[2];
    const float* pr = buf.p + size_t(op.reference_vertices[k]) * 4;
    const float* pv = buf.p + size_t(v) * 4;
    float ex = pr[0] - pv[0], ey = pr[1] - pv[1], ez = pr[2] - pv[2];
    const float d = dot3(ex, ey, ez, nx, ny, nz);
    ex = ex - nx * d, ey = ey - ny * d, ez = ez - nz * d;
    const float l2 = dot3(ex, ey, ez, ex, ey, ez);
    const float inv = l2 > 0 ? rsqrt_exact(l2) : 0.0f;
    ex = ex * inv, ey = ey * inv, ez = ez * inv;
    const float nex = ny * ez - nz * ey, ney = nz * ex - nx * ez, nez = nx * ey - ny * ex;
    const float c = op.tangent_cos[k], sn = op.tangent_sin[k];
    const float tx = ex * c + nex * sn, ty = ey * c + ney * sn, tz = ez * c + nez * sn;
    float* tv = buf.t + size_t(v) * 4;
    tv[0] = tx, tv[1] = ty, tv[2] = tz;
    if (op.bitangents && k < op.bitangent_flip.size()) {
        const float f = op.bitangent_flip[k];
        float* bv = buf.b + size_t(v) * 4;
        bv[0] = (ny * tz - nz * ty) * f, bv[1] = (nz * tx - nx * tz) * f, bv[2] = (nx * ty - ny * tx) * f;
    }
}

// The sums of accumulate_normals read from the index (VertexFramesOp::id_first): every
// distinct triangle's normal once into the scratch, then each id's triangles in triangle order, from +0:
// the same additions in the same order as the scattering loop, without a store and reload of
// the same sum between neighbouring triangles. A triangle's normal is one vector (x, y, z and a
// w nobody reads): each of x, y, z is the scalar expression of triangle_normal, the sums add
// them lane by lane, four ids side by side (VertexFramesOp::group_first: an id with fewer
// triangles than the most of its group adds -0 after its own, which leaves its sum as it was),
// and four ids are normalised at a time, lane by lane as the scalar loop.
// The triangle normals and the grouped sums of groups [0, groups), four lanes.
void normal_sums4(const VertexFramesOp& op, const float* p, uint32_t tri_count, Scratch& s, uint32_t groups) {
    using namespace solver::lanes;
    float* tn = s.triangle_normals;
    const uint16_t* c = op.corners.data();
    for (uint32_t t = 0; t < tri_count; ++t) {
        const F4 pa = load4(p + size_t(c[3 * t]) * 4), pb = load4(p + size_t(c[3 * t + 1]) * 4), pc = load4(p + size_t(c[3 * t + 2]) * 4);
        const F4 e1 = pb - pa, e2 = pc - pa;
        store4(tn + size_t(t) * 4, yzx(e1) * zxy(e2) - zxy(e1) * yzx(e2));
    }
    store4(tn + size_t(tri_count) * 4, splat4(-0.0f));  // the pad of the grouped sums
    const F4 zero = splat4(0.0f), one = splat4(1.0f);
    const uint32_t* gf = op.group_first.data();
    const uint16_t* gt4 = op.group_triangles.data();
    for (uint32_t g = 0; g < groups; ++g) {
        F4 x = zero, y = zero, z = zero, w = zero;  // the sums of ids 4g .. 4g + 3
        for (uint32_t e = gf[g]; e < gf[g + 1]; ++e) {
            const uint16_t* t = gt4 + size_t(e) * 4;
            x = x + load4(tn + size_t(t[0]) * 4), y = y + load4(tn + size_t(t[1]) * 4);
            z = z + load4(tn + size_t(t[2]) * 4), w = w + load4(tn + size_t(t[3]) * 4);
        }
        transpose4(x, y, z, w);
        const F4 l2 = (x * x + y * y) + z * z;
        const F4 inv = select(gt(l2, zero), one / vsqrt(l2), zero);
        const size_t id = size_t(g) * 4;
        store4(s.accum[0] + id, x * inv), store4(s.accum[1] + id, y * inv), store4(s.accum[2] + id, z * inv);
    }
}

void sum_indexed(const VertexFramesOp& op, const float* p, Scratch& s, uint32_t ids) {
    using namespace solver::lanes;
    const uint32_t groups = op.group_first.empty() ? 0 : uint32_t(op.group_first.size() - 1);
    const uint32_t tri_count = uint32_t(op.corners.size() / 3);  // the distinct triangles
    if (wide_lanes(s)) normal_sums_avx2(op, p, tri_count, s.triangle_normals, s.accum, groups);
    else normal_sums4(op, p, tri_count, s, groups);
    // The ids after the last whole group, one at a time.
    const float* tn = s.triangle_normals;
    for (uint32_t id = groups * 4; id < ids; ++id) {
        F4 sum = splat4(0.0f);
        for (uint32_t e = op.id_first[id]; e < op.id_first[id + 1]; ++e) sum = sum + load4(tn + size_t(op.id_triangles[e]) * 4);
        alignas(16) float a[4];
        store4(a, sum);
        const float l2 = dot3(a[0], a[1], a[2], a[0], a[1], a[2]);
        const float inv = l2 > 0 ? rsqrt_exact(l2) : 0.0f;
        s.accum[0][id] = a[0] * inv, s.accum[1][id] = a[1] * inv, s.accum[2][id] = a[2] * inv;
    }
}

// Frame entries k0..k0+3 at once (vertex_at(k), id_at(k) as write_frame takes them): every lane
// runs write_frame's scalar expressions in its order, so the bits are write_frame's; the lanes
// are stored in entry order, so a vertex named twice ends as the later entry left it. Needs
// tangents and four frame entries. A vertex's position and normal are read as one vector each
// and transposed into lanes (the edge's x, y, z subtracted lane by lane as the scalar does).
template <class VertexAt, class IdAt>
void write_frames4(const VertexFramesOp& op, BufferData& buf, const Scratch& s, uint32_t k0, VertexAt vertex_at, IdAt id_at) {
    using namespace solver::lanes;
    uint32_t v[4], id[4];
    F4 ex, ey, ez, ew;
    {
        F4 e[4];
        for (int j = 0; j < 4; ++j) {
            const uint32_t k = k0 + uint32_t(j);
            v[j] = vertex_at(k);
            id[j] = id_at(k);
            e[j] = load4(buf.p + size_t(op.reference_vertices[k]) * 4) - load4(buf.p + size_t(v[j]) * 4);
        }
        transpose4(e[0], e[1], e[2], e[3]);
        ex = e[0], ey = e[1], ez = e[2], ew = e[3];
    }
    // The normal of each lane: its id's sum (normalised) where the operator writes normals, else
    // the buffer's own.
    F4 nx, ny, nz;
    if (op.normals) {
        if (id[1] == id[0] + 1 && id[2] == id[0] + 2 && id[3] == id[0] + 3)
            nx = load4(s.accum[0] + id[0]), ny = load4(s.accum[1] + id[0]), nz = load4(s.accum[2] + id[0]);
        else
            nx = set4(s.accum[0][id[0]], s.accum[0][id[1]], s.accum[0][id[2]], s.accum[0][id[3]]),
            ny = set4(s.accum[1][id[0]], s.accum[1][id[1]], s.accum[1][id[2]], s.accum[1][id[3]]),
            nz = set4(s.accum[2][id[0]], s.accum[2][id[1]], s.accum[2][id[2]], s.accum[2][id[3]]);
    } else {
        F4 nw;
        nx = load4(buf.n + size_t(v[0]) * 4), ny = load4(buf.n + size_t(v[1]) * 4), nz = load4(buf.n + size_t(v[2]) * 4);
        nw = load4(buf.n + size_t(v[3]) * 4);
        transpose4(nx, ny, nz, nw);
    }
    const F4 d = (ex * nx + ey * ny) + ez * nz;
    ex = ex - nx * d, ey = ey - ny * d, ez = ez - nz * d;
    const F4 l2 = (ex * ex + ey * ey) + ez * ez;
    const F4 zero = splat4(0.0f);
    const F4 inv = select(gt(l2, zero), splat4(1.0f) / vsqrt(l2), zero);
    ex = ex * inv, ey = ey * inv, ez = ez * inv;
    const F4 nex = ny * ez - nz * ey, ney = nz * ex - nx * ez, nez = nx * ey - ny * ex;
    const F4 c = load4(op.tangent_cos.data() + k0), sn = load4(op.tangent_sin.data() + k0);
    const F4 tx = ex * c + nex * sn, ty = ey * c + ney * sn, tz = ez * c + nez * sn;
    // Lanes back to one vector per entry; x, y, z stored (w, the buffer's own, left), in entry order.
    F4 n4[4] = {nx, ny, nz, ew}, t4[4] = {tx, ty, tz, ew};
    transpose4(n4[0], n4[1], n4[2], n4[3]);
    transpose4(t4[0], t4[1], t4[2], t4[3]);
    const bool bit = op.bitangents && k0 + 4 <= op.bitangent_flip.size();
    F4 b4[4];
    if (bit) {
        const F4 f = load4(op.bitangent_flip.data() + k0);
        b4[0] = (ny * tz - nz * ty) * f, b4[1] = (nz * tx - nx * tz) * f, b4[2] = (nx * ty - ny * tx) * f, b4[3] = ew;
        transpose4(b4[0], b4[1], b4[2], b4[3]);
    }
    for (int j = 0; j < 4; ++j) {
        if (op.normals) store3(buf.n + size_t(v[j]) * 4, n4[j]);
        store3(buf.t + size_t(v[j]) * 4, t4[j]);
        if (bit) store3(buf.b + size_t(v[j]) * 4, b4[j]);
    }
}

// Every frame entry of [0, count): four at a time where write_frames4 applies, the rest one by one.
template <class VertexAt, class IdAt>
void write_frames(const VertexFramesOp& op, BufferData& buf, const Scratch& s, uint32_t count, VertexAt vertex_at, IdAt id_at) {
    uint32_t k = 0;
    if (op.tangents) {
        const uint32_t framed = std::min<uint32_t>(count, uint32_t(op.reference_vertices.size()));
        if (wide_lanes(s))
            for (; k + 8 <= framed; k += 8) {
                uint32_t v[8], id[8];
                for (uint32_t j = 0; j < 8; ++j) v[j] = vertex_at(k + j), id[j] = id_at(k + j);
                write_frames8_avx2(op, buf, s, k, v, id);
            }
        for (; k + 4 <= framed; k += 4) write_frames4(op, buf, s, k, vertex_at, id_at);
    }
    for (; k < count; ++k) write_frame(op, buf, s, vertex_at(k), id_at(k), k);
}

}  // namespace

void index_normal_sums(VertexFramesOp& op, const uint16_t* tris, uint32_t tri_count) {
    const uint16_t* t = op.some ? op.triangles.data() : tris;
    const uint32_t n = op.some ? uint32_t(op.triangles.size() / 3) : tri_count;
    const uint32_t ids = op.num_normal_ids;
    auto id_of = [&](uint32_t l) -> uint32_t {
        if (op.some) return op.involved_to_normal_id[l];
        return op.vert_to_normal_id.empty() ? l : uint32_t(op.vert_to_normal_id[l]);
    };
    // Each triangle's corners as buffer vertices (a flipped triangle's second and third
    // swapped), and its entry among the distinct ones: a triangle whose corners repeat an earlier
    // one's in the same order has the same normal, bit for bit, so it is computed once (update
    // some lists most triangles about three times).
    std::vector<uint32_t> distinct(n);
    std::unordered_map<uint64_t, uint32_t> first_of;
    first_of.reserve(n);
    op.corners.clear();
    for (uint32_t tri = 0; tri < n; ++tri) {
        uint32_t l[3] = {t[3 * tri], t[3 * tri + 1], t[3 * tri + 2]};
        if (flipped(op.triangle_flips, tri)) std::swap(l[1], l[2]);
        uint16_t v[3];
        for (int k = 0; k < 3; ++k) v[k] = uint16_t(op.some ? op.involved_vertices[l[k]] : l[k]);
        const uint64_t key = uint64_t(v[0]) | uint64_t(v[1]) << 16 | uint64_t(v[2]) << 32;
        const auto [it, added] = first_of.try_emplace(key, uint32_t(op.corners.size() / 3));
        if (added) op.corners.insert(op.corners.end(), v, v + 3);
        distinct[tri] = it->second;
    }
    const uint32_t pad = uint32_t(op.corners.size() / 3);
    op.id_first.assign(size_t(ids) + 1, 0);
    op.id_triangles.assign(size_t(n) * 3, 0);
    for (uint32_t k = 0; k < n * 3; ++k) ++op.id_first[id_of(t[k]) + 1];
    for (uint32_t id = 0; id < ids; ++id) op.id_first[id + 1] += op.id_first[id];
    std::vector<uint32_t> at(op.id_first.begin(), op.id_first.end() - 1);
    for (uint32_t k = 0; k < n * 3; ++k) op.id_triangles[at[id_of(t[k])]++] = distinct[k / 3];  // triangle order: k ascends
    op.group_first.clear();
    op.group_triangles.clear();
    if (pad > UINT16_MAX) return;
    op.group_first.push_back(0);
    for (uint32_t g = 0; g + 1 <= ids / 4; ++g) {
        uint32_t rounds = 0;
        for (uint32_t lane = 0; lane < 4; ++lane) rounds = std::max(rounds, op.id_first[4 * g + lane + 1] - op.id_first[4 * g + lane]);
        for (uint32_t e = 0; e < rounds; ++e)
            for (uint32_t lane = 0; lane < 4; ++lane) {
                const uint32_t at = op.id_first[4 * g + lane] + e;
                op.group_triangles.push_back(uint16_t(at < op.id_first[4 * g + lane + 1] ? op.id_triangles[at] : pad));
            }
        op.group_first.push_back(op.group_first.back() + rounds);
    }
}

void run_vertex_frames(const VertexFramesOp& op, BufferData& buf, Scratch& s, const uint16_t* indexed_triangles) {
    if (!op.some) {
        // Update all: the buffer's triangles; normal id per vertex (identity when none stored).
        const bool mapped = !op.vert_to_normal_id.empty();
        const uint32_t ids = mapped ? op.num_normal_ids : buf.count;
        auto id_of = [&](uint32_t v) { return mapped ? uint32_t(op.vert_to_normal_id[v]) : v; };
        const bool indexed = !op.id_first.empty() && buf.triangles == indexed_triangles && op.id_first.size() == size_t(ids) + 1 &&
                             s.triangle_normals && buf.triangle_count <= s.triangle_capacity &&
                             op.id_first.back() == size_t(buf.triangle_count) * 3;
        // Without normals to write, the tangents stand on the buffer's own: no sums to make.
        if (op.normals && indexed)
            sum_indexed(op, buf.p, s, ids);
        else if (op.normals)
            accumulate_normals(buf, buf.triangles, buf.triangle_count, op.triangle_flips, [](uint32_t v) { return v; }, id_of, s, ids);
        write_frames(op, buf, s, buf.count, [](uint32_t k) { return k; }, id_of);
        return;
    }
    // Update some: involved triangles index involved vertices; the selection (indices into the
    // involved vertices) is what is written, selection entry k with frame entry k.
    const uint32_t nt = uint32_t(op.triangles.size() / 3);
    auto involved = [&](uint32_t l) { return uint32_t(op.involved_vertices[l]); };
    const bool indexed = !op.id_first.empty() && s.triangle_normals && nt <= s.triangle_capacity;
    if (op.normals && indexed)
        sum_indexed(op, buf.p, s, op.num_normal_ids);
    else if (op.normals)
        accumulate_normals(buf, op.triangles.data(), nt, op.triangle_flips, involved,
                           [&](uint32_t l) { return uint32_t(op.involved_to_normal_id[l]); }, s, op.num_normal_ids);
    if (op.entry_vertex.size() == op.selection.size() && op.entry_id.size() == op.selection.size())
        write_frames(op, buf, s, uint32_t(op.selection.size()), [&](uint32_t k) { return uint32_t(op.entry_vertex[k]); },
                     [&](uint32_t k) { return uint32_t(op.entry_id[k]); });
    else
        write_frames(op, buf, s, uint32_t(op.selection.size()), [&](uint32_t k) { return uint32_t(op.involved_vertices[op.selection[k]]); },
                     [&](uint32_t k) { return uint32_t(op.involved_to_normal_id[op.selection[k]]); });
}

namespace {

// Orthonormal axes from x and a vector in the xy plane, normalised with the game's approximate
// reciprocal square root without refinement (docs/havok-cloth.md, "Bone deformers"), or the exact
// one: x' = x rsqrt(x.x), z = normalise(x' cross y), y' = z cross x'.
void orthonormalise(float* c0, float* c1, float* c2, bool exact) {
    auto rs = exact ? rsqrt_exact : rsqrt_game;
    const float sx = rs(dot3(c0[0], c0[1], c0[2], c0[0], c0[1], c0[2]));
    float x[3] = {c0[0] * sx, c0[1] * sx, c0[2] * sx};
    float z[3] = {x[1] * c1[2] - x[2] * c1[1], x[2] * c1[0] - x[0] * c1[2], x[0] * c1[1] - x[1] * c1[0]};
    const float sz = rs(dot3(z[0], z[1], z[2], z[0], z[1], z[2]));
    for (float& v : z) v = v * sz;
    const float y[3] = {z[1] * x[2] - z[2] * x[1], z[2] * x[0] - z[0] * x[2], z[0] * x[1] - z[1] * x[0]};
    for (int k = 0; k < 3; ++k) c0[k] = x[k], c1[k] = y[k], c2[k] = z[k];
}

// The frame a bone deformer attaches a bone to: with g the centroid of the triangle (a, b, c) in
// world space, the columns a - g, b - g, (a - g) x (b - g) and the origin g. It is not orthonormal:
// the files' local bone transforms are this frame's inverse at the rest pose times the bone's rest
// matrix (every simple bone deformer of the corpus reproduces its bones' bind pose exactly with it),
// so frame x local is a rigid bone only up to the triangle's deformation, which the deformer then
// removes by orthonormalising the result.
Mat4 triangle_bone_frame(const BufferData& in, uint32_t triangle) {
    const uint16_t* t = in.triangles + size_t(triangle) * 3;
    float p[3][3];
    for (int k = 0; k < 3; ++k) {
        const uint32_t v = t[k];
        if (in.world_from_mesh_identity) {
            for (int r = 0; r < 3; ++r) p[k][r] = in.p[size_t(v) * 4 + r];
        } else {
            transform_point(in.world_from_mesh, in.p[size_t(v) * 4 + 0], in.p[size_t(v) * 4 + 1], in.p[size_t(v) * 4 + 2], p[k]);
        }
    }
    const float third = 1.0f / 3.0f;
    float g[3], u[3], v[3];
    for (int r = 0; r < 3; ++r) {
        g[r] = ((p[0][r] + p[1][r]) + p[2][r]) * third;
        u[r] = p[0][r] - g[r];
        v[r] = p[1][r] - g[r];
    }
    const float n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    Mat4 f;
    for (int r = 0; r < 3; ++r) f.m[r] = u[r], f.m[4 + r] = v[r], f.m[8 + r] = n[r], f.m[12 + r] = g[r];
    f.m[3] = f.m[7] = f.m[11] = 0;
    f.m[15] = 1;
    return f;
}

// A driven bone as the deformers write it: its rotation orthonormalised, w row 0 0 0 1.
void write_bone(float* acc, Mat4& out, bool exact) {
    orthonormalise(acc, acc + 4, acc + 8, exact);
    std::memcpy(out.m, acc, sizeof out.m);
    out.m[3] = out.m[7] = out.m[11] = 0;
    out.m[15] = 1;
}

}  // namespace

void run_simple_mesh_bone_deform(const SimpleBoneDeformOp& op, const BufferData& in, Transforms& ts, bool exact_rsqrt) {
    for (size_t i = 0; i < op.bones.size(); ++i) {
        Mat4 m = compose(triangle_bone_frame(in, op.triangles[i]), op.local[i]);
        write_bone(m.m, ts.m[op.bones[i]], exact_rsqrt);
    }
}

void run_mesh_bone_deform(const MeshBoneDeformOp& op, const BufferData& in, Transforms& ts, bool exact_rsqrt) {
    for (size_t b = 0; b < op.bones.size(); ++b) {
        float acc[16] = {};
        for (uint32_t k = op.first_pair[2 * b]; k < op.first_pair[2 * b + 1]; ++k) {
            const Mat4 m = compose(triangle_bone_frame(in, op.pair_triangle[k]), op.pair_local[k]);
            for (int e = 0; e < 16; ++e) acc[e] = acc[e] + m.m[e] * op.pair_weight[k];
        }
        write_bone(acc, ts.m[op.bones[b]], exact_rsqrt);
    }
}

}  // namespace drape::rt
