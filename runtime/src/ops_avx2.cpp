// drape runtime: the skin blends two vertices at a time in one AVX2 register (the low half one
// vertex's column, the high half the next vertex's; an object-space composite is blended as its
// matrix's two halves, then the two vertices' columns paired), chosen at run time
// (solver::widest_lanes).
// Each half runs the four-lane form's operations of ops.cpp in its order, correctly rounded
// operations only and no FMA (the target is "avx,avx2" without "fma", and the runtime compiles
// with -ffp-contract=off), so the bits are its bits; tests compare both with a scalar form.
#include <cstdint>
#include <cstring>

#include "rt_ops.h"        // before the target pragma: nothing of it may become AVX code
#include "solver/lanes.h"  // likewise (its SSE2 functions must stay SSE2 code)

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx,avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx,avx2")
#endif
#include <immintrin.h>

#include "solver/lanes_avx2.h"  // inside the target region: its functions are AVX2 code

namespace drape::rt {
namespace {

using solver::lanes::transpose8;

// Names of their own (not the lanes of solver/lanes.h): an inline function compiled here is AVX
// code and must not stand in for the SSE2 one of the same name.
inline __m256 two_columns(const float* lo, const float* hi) {
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(lo)), _mm_loadu_ps(hi), 1);
}
inline __m256 two_splats(float lo, float hi) {
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_set1_ps(lo)), _mm_set1_ps(hi), 1);
}
// x[0] in the low half, x[1] in the high half: two neighbouring floats (one 8-byte load) spread.
inline __m256 neighbour_splats(const float* x) {
    const __m128 two = _mm_castpd_ps(_mm_load_sd(reinterpret_cast<const double*>(x)));
    return _mm256_permutevar8x32_ps(_mm256_castps128_ps256(two), _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1));
}
inline void store_xyz(float* o, __m128 v) {
    _mm_storel_pi(reinterpret_cast<__m64*>(o), v);
    _mm_store_ss(o + 2, _mm_movehl_ps(v, v));
}
inline void store_two_xyz(float* lo, float* hi, __m256 v) {
    store_xyz(lo, _mm256_castps256_ps128(v));
    store_xyz(hi, _mm256_extractf128_ps(v, 1));
}
inline __m256 mul(__m256 a, __m256 b) { return _mm256_mul_ps(a, b); }
inline __m256 add(__m256 a, __m256 b) { return _mm256_add_ps(a, b); }
inline __m256 sub(__m256 a, __m256 b) { return _mm256_sub_ps(a, b); }
struct LocalStreams {
    const float *px, *py, *pz, *nx, *ny, *nz, *tx, *ty, *tz, *bx, *by, *bz;
    bool wn, wt, wb, skip_positions;
};

// Vertex j's blended composite as two registers: columns 0 and 1, columns 2 and 3 (a matrix's
// halves, two loads an influence rather than four inserts), each lane the four-lane form's
// operations in its order. N: the block's influences when known at compile time (the loop
// unrolled), or 0 to take them from the block.
template <uint32_t N>
inline void composite_halves(const DeformBlock& blk, const Mat4* m, const float* wf, uint32_t j, __m256& c01, __m256& c23) {
    const uint32_t n = N ? N : blk.blends, a = j * n;
    const float* b = m[blk.bones[a]].m;
    c01 = _mm256_loadu_ps(b), c23 = _mm256_loadu_ps(b + 8);
    if (n == 1) return;
    const __m256 w0 = _mm256_broadcast_ss(wf + a);
    c01 = _mm256_mul_ps(c01, w0), c23 = _mm256_mul_ps(c23, w0);
    for (uint32_t i = 1; i < n; ++i) {
        const float* bi = m[blk.bones[a + i]].m;
        const __m256 w = _mm256_broadcast_ss(wf + a + i);
        c01 = _mm256_add_ps(c01, _mm256_mul_ps(_mm256_loadu_ps(bi), w));
        c23 = _mm256_add_ps(c23, _mm256_mul_ps(_mm256_loadu_ps(bi + 8), w));
    }
}

// The blended composites of vertices j and j + 1, column k of both in c[k] (vertex j in the low
// half).
template <uint32_t N>
inline void composite_two(const DeformBlock& blk, const Mat4* m, const float* wf, uint32_t j, __m256 (&c)[4]) {
    __m256 a01, a23, b01, b23;
    composite_halves<N>(blk, m, wf, j, a01, a23);
    composite_halves<N>(blk, m, wf, j + 1, b01, b23);
    c[0] = _mm256_permute2f128_ps(a01, b01, 0x20), c[1] = _mm256_permute2f128_ps(a01, b01, 0x31);
    c[2] = _mm256_permute2f128_ps(a23, b23, 0x20), c[3] = _mm256_permute2f128_ps(a23, b23, 0x31);
}

// Vertex j of the block in the four-lane form (the block's odd last vertex); wf: the block's
// weights as floats.
void object_one(const DeformBlock& blk, const Mat4* m, const LocalStreams& s, uint32_t j, const float* wf, BufferData& out) {
    const uint32_t n = blk.blends;
    __m128 c[4];
    if (n == 1) {
        for (int k = 0; k < 4; ++k) c[k] = _mm_loadu_ps(m[blk.bones[j]].m + 4 * k);
    } else {
        const __m128 w0 = _mm_set1_ps(wf[j * n]);
        for (int k = 0; k < 4; ++k) c[k] = _mm_mul_ps(_mm_loadu_ps(m[blk.bones[j * n]].m + 4 * k), w0);
        for (uint32_t i = 1; i < n; ++i) {
            const __m128 w = _mm_set1_ps(wf[j * n + i]);
            const float* b = m[blk.bones[j * n + i]].m;
            for (int k = 0; k < 4; ++k) c[k] = _mm_add_ps(c[k], _mm_mul_ps(_mm_loadu_ps(b + 4 * k), w));
        }
    }
    const uint32_t li = blk.local * 16 + j;
    const size_t v = size_t(blk.vertices[j]) * 4;
    auto point = [&](const float* x, const float* y, const float* z) {
        return _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(c[0], _mm_set1_ps(x[li])), c[3]), _mm_mul_ps(c[1], _mm_set1_ps(y[li]))),
                          _mm_mul_ps(c[2], _mm_set1_ps(z[li])));
    };
    auto direction = [&](const float* x, const float* y, const float* z) {
        return _mm_add_ps(_mm_add_ps(_mm_mul_ps(c[0], _mm_set1_ps(x[li])), _mm_mul_ps(c[1], _mm_set1_ps(y[li]))),
                          _mm_mul_ps(c[2], _mm_set1_ps(z[li])));
    };
    if (!s.skip_positions) store_xyz(out.p + v, point(s.px, s.py, s.pz));
    if (s.wn) store_xyz(out.n + v, direction(s.nx, s.ny, s.nz));
    if (s.wt) store_xyz(out.t + v, direction(s.tx, s.ty, s.tz));
    if (s.wb) store_xyz(out.b + v, direction(s.bx, s.by, s.bz));
}

// One block of the blend, its influences N (0: taken from the block).
template <uint32_t N>
void object_block(const DeformBlock& blk, const Mat4* m, const LocalStreams& s, BufferData& out) {
    const uint32_t n = N ? N : blk.blends;
    // The block's weights as floats, eight at a time: float(w) * unit, as weight_from_byte and
    // weight_from_u16 have it (a 16-bit weight converts exactly either way).
    alignas(32) float wf[128];
    if (n > 1) {
        const float unit = blk.blends <= 4 ? weight_from_byte(1) : weight_from_u16(1);
        const __m256 u = _mm256_set1_ps(unit);
        for (uint32_t k = 0; k < 16 * n; k += 8) {  // 16 vertices x n influences at most
            const __m256i w32 = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blk.weights + k)));
            _mm256_store_ps(wf + k, _mm256_mul_ps(_mm256_cvtepi32_ps(w32), u));
        }
    }
    uint32_t j = 0;
    for (; j + 2 <= blk.vertex_count; j += 2) {
        __m256 c[4];
        composite_two<N>(blk, m, wf, j, c);
        const uint32_t li = blk.local * 16 + j;
        const size_t v0 = size_t(blk.vertices[j]) * 4, v1 = size_t(blk.vertices[j + 1]) * 4;
        auto splat = [&](const float* x) { return neighbour_splats(x + li); };  // vertices j and j + 1 are neighbours
        // A point: ((c0*x + c3) + c1*y) + c2*z; a direction: (c0*x + c1*y) + c2*z.
        if (!s.skip_positions) {
            const __m256 p = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(c[0], splat(s.px)), c[3]), _mm256_mul_ps(c[1], splat(s.py))),
                                           _mm256_mul_ps(c[2], splat(s.pz)));
            store_two_xyz(out.p + v0, out.p + v1, p);
        }
        auto direction = [&](const float* x, const float* y, const float* z, float* base) {
            const __m256 d = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(c[0], splat(x)), _mm256_mul_ps(c[1], splat(y))), _mm256_mul_ps(c[2], splat(z)));
            store_two_xyz(base + v0, base + v1, d);
        };
        if (s.wn) direction(s.nx, s.ny, s.nz, out.n);
        if (s.wt) direction(s.tx, s.ty, s.tz, out.t);
        if (s.wb) direction(s.bx, s.by, s.bz, out.b);
    }
    if (j < blk.vertex_count) object_one(blk, m, s, j, n > 1 ? wf : nullptr, out);  // one influence: no weights read
}

}  // namespace

bool ops_avx2_built() { return true; }

void object_space_blend_avx2(const DeformOp& op, const Mat4* m, BufferData& out) {
    LocalStreams s{op.local_p.x.data(), op.local_p.y.data(), op.local_p.z.data(), op.local_n.x.data(), op.local_n.y.data(),
              op.local_n.z.data(), op.local_t.x.data(), op.local_t.y.data(), op.local_t.z.data(), op.local_b.x.data(),
              op.local_b.y.data(), op.local_b.z.data(),
              (op.streams & k_stream_n) && !op.local_n.empty() && out.n != nullptr,
              (op.streams & k_stream_t) && !op.local_t.empty() && out.t != nullptr,
              (op.streams & k_stream_b) && !op.local_b.empty() && out.b != nullptr, op.skip_positions};
    for (const DeformBlock& blk : op.blocks) {
        switch (blk.blends) {
            case 1: object_block<1>(blk, m, s, out); break;
            case 2: object_block<2>(blk, m, s, out); break;
            case 3: object_block<3>(blk, m, s, out); break;
            case 4: object_block<4>(blk, m, s, out); break;
            default: object_block<0>(blk, m, s, out); break;
        }
    }
}

namespace {

// Whether every vertex of a one-influence block names the same bone.
bool one_bone(const DeformBlock& blk) {
    bool same = true;
    for (uint32_t j = 1; j < blk.vertex_count; ++j) same = same && blk.bones[j] == blk.bones[0];
    return same;
}

// Eight vertices of one bone `m`, one per lane: row r of ((c0*x + c1*y) + c2*z) (+ c3*w with
// `w`), added to +0: lane by lane what the column form computes in row r of its vector.
inline void rows_eight(const float* m, const float* x, const float* y, const float* z, const float* w, __m256 out[3]) {
    const __m256 vx = _mm256_loadu_ps(x), vy = _mm256_loadu_ps(y), vz = _mm256_loadu_ps(z);
    for (int r = 0; r < 3; ++r) {
        __m256 v = add(add(mul(_mm256_set1_ps(m[r]), vx), mul(_mm256_set1_ps(m[4 + r]), vy)), mul(_mm256_set1_ps(m[8 + r]), vz));
        if (w) v = add(v, mul(_mm256_set1_ps(m[12 + r]), _mm256_loadu_ps(w)));
        out[r] = add(_mm256_setzero_ps(), v);
    }
}

// x, y, z of eight vertices (one per lane) into their xyz (w kept).
inline void store_eight_xyz(float* base, const uint16_t* v, __m256 x, __m256 y, __m256 z) {
    __m256 w = _mm256_setzero_ps();
    transpose8(x, y, z, w);  // rows: vertex k in the low half, vertex k + 4 in the high half
    const __m256 rows[4] = {x, y, z, w};
    for (uint32_t k = 0; k < 4; ++k) store_two_xyz(base + size_t(v[k]) * 4, base + size_t(v[k + 4]) * 4, rows[k]);
}

}  // namespace

void bone_space_blend_avx2(const DeformOp& op, const Mat4* bones, BufferData& out) {
    const bool wn = (op.streams & k_stream_n) && !op.local_n.empty() && out.n != nullptr;
    const bool wt = (op.streams & k_stream_t) && !op.local_t.empty() && out.t != nullptr;
    const float *px = op.local_p.x.data(), *py = op.local_p.y.data(), *pz = op.local_p.z.data(), *pw = op.local_p.w.data();
    const float *nx = op.local_n.x.data(), *ny = op.local_n.y.data(), *nz = op.local_n.z.data();
    const float *tx = op.local_t.x.data(), *ty = op.local_t.y.data(), *tz = op.local_t.z.data();
    for (const DeformBlock& blk : op.blocks) {
        const uint32_t n = blk.blends;
        uint32_t j = 0;
        // One influence and one bone for the whole block (Sekiro's hair: every vertex on the
        // head): eight vertices a register, their local vectors neighbours.
        if (n == 1 && one_bone(blk))
            for (const float* m = bones[blk.bones[0]].m; j + 8 <= blk.vertex_count; j += 8) {
                const size_t l = size_t(blk.local) * 16 + j;
                __m256 r[3];
                if (!op.skip_positions) {
                    rows_eight(m, px + l, py + l, pz + l, pw + l, r);
                    store_eight_xyz(out.p, blk.vertices + j, r[0], r[1], r[2]);
                }
                if (wn) {
                    rows_eight(m, nx + l, ny + l, nz + l, nullptr, r);
                    store_eight_xyz(out.n, blk.vertices + j, r[0], r[1], r[2]);
                }
                if (wt) {
                    rows_eight(m, tx + l, ty + l, tz + l, nullptr, r);
                    store_eight_xyz(out.t, blk.vertices + j, r[0], r[1], r[2]);
                }
            }
        // Each half sums its vertex's rows from +0 in influence order:
        // point += ((c0*x + c1*y) + c2*z) + c3*w, normal and tangent the same without c3.
        for (; j + 2 <= blk.vertex_count; j += 2) {
            __m256 p = _mm256_setzero_ps(), nn = _mm256_setzero_ps(), tt = _mm256_setzero_ps();
            for (uint32_t i = 0; i < n; ++i) {
                const uint32_t l0 = blk.local * 16 + j * n + i, l1 = l0 + n;
                const float* lo = bones[blk.bones[j * n + i]].m;
                const float* hi = bones[blk.bones[(j + 1) * n + i]].m;
                const __m256 c0 = two_columns(lo, hi), c1 = two_columns(lo + 4, hi + 4), c2 = two_columns(lo + 8, hi + 8),
                             c3 = two_columns(lo + 12, hi + 12);
                // One influence: the two vertices' local vectors are neighbours.
                auto splat = [&](const float* x) { return n == 1 ? neighbour_splats(x + l0) : two_splats(x[l0], x[l1]); };
                p = _mm256_add_ps(p, _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(c0, splat(px)), _mm256_mul_ps(c1, splat(py))),
                                                                 _mm256_mul_ps(c2, splat(pz))),
                                                   _mm256_mul_ps(c3, splat(pw))));
                if (wn)
                    nn = _mm256_add_ps(nn, _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(c0, splat(nx)), _mm256_mul_ps(c1, splat(ny))),
                                                         _mm256_mul_ps(c2, splat(nz))));
                if (wt)
                    tt = _mm256_add_ps(tt, _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(c0, splat(tx)), _mm256_mul_ps(c1, splat(ty))),
                                                         _mm256_mul_ps(c2, splat(tz))));
            }
            const size_t v0 = size_t(blk.vertices[j]) * 4, v1 = size_t(blk.vertices[j + 1]) * 4;
            if (!op.skip_positions) store_two_xyz(out.p + v0, out.p + v1, p);
            if (wn) store_two_xyz(out.n + v0, out.n + v1, nn);
            if (wt) store_two_xyz(out.t + v0, out.t + v1, tt);
        }
        for (; j < blk.vertex_count; ++j) {
            __m128 p = _mm_setzero_ps(), nn = _mm_setzero_ps(), tt = _mm_setzero_ps();
            for (uint32_t i = 0; i < n; ++i) {
                const uint32_t li = blk.local * 16 + j * n + i;
                const float* b = bones[blk.bones[j * n + i]].m;
                const __m128 c0 = _mm_loadu_ps(b), c1 = _mm_loadu_ps(b + 4), c2 = _mm_loadu_ps(b + 8), c3 = _mm_loadu_ps(b + 12);
                auto splat = [&](const float* x) { return _mm_set1_ps(x[li]); };
                p = _mm_add_ps(p, _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(c0, splat(px)), _mm_mul_ps(c1, splat(py))), _mm_mul_ps(c2, splat(pz))),
                                             _mm_mul_ps(c3, splat(pw))));
                if (wn) nn = _mm_add_ps(nn, _mm_add_ps(_mm_add_ps(_mm_mul_ps(c0, splat(nx)), _mm_mul_ps(c1, splat(ny))), _mm_mul_ps(c2, splat(nz))));
                if (wt) tt = _mm_add_ps(tt, _mm_add_ps(_mm_add_ps(_mm_mul_ps(c0, splat(tx)), _mm_mul_ps(c1, splat(ty))), _mm_mul_ps(c2, splat(tz))));
            }
            const size_t v = size_t(blk.vertices[j]) * 4;
            if (!op.skip_positions) store_xyz(out.p + v, p);
            if (wn) store_xyz(out.n + v, nn);
            if (wt) store_xyz(out.t + v, tt);
        }
    }
}

namespace {

// Vertex v's sums alone (four lanes), or vertices v and v + 1 side by side in a register's halves
// over the same number of pairs (eight lanes): each half runs run_mesh_mesh_deform_2014's
// operations for its vertex in its order.
template <bool Normals>
inline void mesh_mesh_one(const MeshMeshDeform2014Op& op, const Mat4* frames, BufferData& out, size_t v) {
    const uint32_t first = op.first_pair[v], last = op.first_pair[v + 1];
    __m128 p = _mm_setzero_ps(), n = _mm_setzero_ps();
    for (uint32_t k = first; k < last; ++k) {
        const float* f = frames[op.frame_of_pair[k]].m;
        const __m128 c0 = _mm_loadu_ps(f), c1 = _mm_loadu_ps(f + 4), c2 = _mm_loadu_ps(f + 8), c3 = _mm_loadu_ps(f + 12);
        const float* l = op.local_p.data() + size_t(k) * 4;
        const __m128 w = _mm_broadcast_ss(l + 3);
        const __m128 q = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(c0, _mm_broadcast_ss(l)), c3), _mm_mul_ps(c1, _mm_broadcast_ss(l + 1))),
                                    _mm_mul_ps(c2, _mm_broadcast_ss(l + 2)));
        p = k == first ? _mm_mul_ps(q, w) : _mm_add_ps(p, _mm_mul_ps(q, w));
        if (Normals) {
            const float* m = op.local_n.data() + size_t(k) * 4;
            const __m128 qn = _mm_add_ps(_mm_add_ps(_mm_mul_ps(c0, _mm_broadcast_ss(m)), _mm_mul_ps(c1, _mm_broadcast_ss(m + 1))),
                                         _mm_mul_ps(c2, _mm_broadcast_ss(m + 2)));
            n = k == first ? _mm_mul_ps(qn, w) : _mm_add_ps(n, _mm_mul_ps(qn, w));
        }
    }
    const size_t o = (op.start_vertex + v) * 4;
    store_xyz(out.p + o, p);
    if (Normals) store_xyz(out.n + o, n);
}

template <bool Normals>
inline void mesh_mesh_two(const MeshMeshDeform2014Op& op, const Mat4* frames, BufferData& out, size_t v) {
    const uint32_t a0 = op.first_pair[v], b0 = op.first_pair[v + 1], count = b0 - a0;
    const float *lp = op.local_p.data(), *ln = op.local_n.data();
    __m256 p = _mm256_setzero_ps(), n = _mm256_setzero_ps();
    for (uint32_t i = 0; i < count; ++i) {
        const uint32_t ka = a0 + i, kb = b0 + i;
        const float* fa = frames[op.frame_of_pair[ka]].m;
        const float* fb = frames[op.frame_of_pair[kb]].m;
        const __m256 a01 = _mm256_loadu_ps(fa), a23 = _mm256_loadu_ps(fa + 8), b01 = _mm256_loadu_ps(fb), b23 = _mm256_loadu_ps(fb + 8);
        const __m256 c0 = _mm256_permute2f128_ps(a01, b01, 0x20), c1 = _mm256_permute2f128_ps(a01, b01, 0x31);
        const __m256 c2 = _mm256_permute2f128_ps(a23, b23, 0x20), c3 = _mm256_permute2f128_ps(a23, b23, 0x31);
        // The two pairs' local vectors side by side, each spread over its half lane by lane.
        const size_t la = size_t(ka) * 4, lb = size_t(kb) * 4;
        const __m256 l = two_columns(lp + la, lp + lb), w = _mm256_permute_ps(l, 0xFF);
        const __m256 q = add(add(add(mul(c0, _mm256_permute_ps(l, 0x00)), c3), mul(c1, _mm256_permute_ps(l, 0x55))), mul(c2, _mm256_permute_ps(l, 0xAA)));
        p = i == 0 ? mul(q, w) : add(p, mul(q, w));
        if (Normals) {
            const __m256 m = two_columns(ln + la, ln + lb);
            const __m256 qn = add(add(mul(c0, _mm256_permute_ps(m, 0x00)), mul(c1, _mm256_permute_ps(m, 0x55))), mul(c2, _mm256_permute_ps(m, 0xAA)));
            n = i == 0 ? mul(qn, w) : add(n, mul(qn, w));
        }
    }
    const size_t o = (op.start_vertex + v) * 4;
    store_two_xyz(out.p + o, out.p + o + 4, p);
    if (Normals) store_two_xyz(out.n + o, out.n + o + 4, n);
}

template <bool Normals>
void mesh_mesh_vertices(const MeshMeshDeform2014Op& op, const Mat4* frames, BufferData& out) {
    const size_t nv = op.first_pair.empty() ? 0 : op.first_pair.size() - 1;
    const uint32_t* fp = op.first_pair.data();
    size_t v = 0;
    while (v < nv) {
        const uint32_t count = fp[v + 1] - fp[v];
        if (count == 0) {  // a vertex without pairs is left as it is
            ++v;
        } else if (v + 1 < nv && fp[v + 2] - fp[v + 1] == count) {
            mesh_mesh_two<Normals>(op, frames, out, v);
            v += 2;
        } else {
            mesh_mesh_one<Normals>(op, frames, out, v);
            ++v;
        }
    }
}

}  // namespace

// run_object_space_mesh_mesh_deform's composites (ops.cpp): per subset entry compose(
// triangle_frame(in, triangle), bind), the same four-lane operations in the same order, the frame
// kept in registers and the bind's entries broadcast from memory.
void mesh_mesh_composites_avx2(const DeformOp& op, const BufferData& in, Mat4* out) {
    const __m128 third = _mm_set1_ps(1.0f / 3.0f), zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f);
    for (size_t j = 0; j < op.subset.size(); ++j) {
        const uint16_t* t = in.triangles + size_t(op.subset[j]) * 3;
        const __m128 a = _mm_loadu_ps(in.p + size_t(t[0]) * 4), b = _mm_loadu_ps(in.p + size_t(t[1]) * 4), c = _mm_loadu_ps(in.p + size_t(t[2]) * 4);
        const __m128 g = _mm_mul_ps(_mm_add_ps(_mm_add_ps(a, b), c), third);
        const __m128 e1 = _mm_sub_ps(a, g), e2 = _mm_sub_ps(b, g);
        const __m128 n = _mm_sub_ps(_mm_mul_ps(_mm_shuffle_ps(e1, e1, _MM_SHUFFLE(3, 0, 2, 1)), _mm_shuffle_ps(e2, e2, _MM_SHUFFLE(3, 1, 0, 2))),
                                    _mm_mul_ps(_mm_shuffle_ps(e1, e1, _MM_SHUFFLE(3, 1, 0, 2)), _mm_shuffle_ps(e2, e2, _MM_SHUFFLE(3, 0, 2, 1))));
        // The frame's columns, w lanes 0, 0, 0 and 1 (triangle_frame's selects).
        const __m128 f0 = _mm_blend_ps(e1, zero, 8), f1 = _mm_blend_ps(e2, zero, 8), f2 = _mm_blend_ps(n, zero, 8), f3 = _mm_blend_ps(g, one, 8);
        const float* i = op.binds[j].m;
        float* r = out[j].m;
        for (int k = 0; k < 3; ++k)
            _mm_storeu_ps(r + 4 * k, _mm_add_ps(_mm_add_ps(_mm_mul_ps(f0, _mm_broadcast_ss(i + 4 * k)), _mm_mul_ps(f1, _mm_broadcast_ss(i + 4 * k + 1))),
                                                _mm_mul_ps(f2, _mm_broadcast_ss(i + 4 * k + 2))));
        _mm_storeu_ps(r + 12, _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(f0, _mm_broadcast_ss(i + 12)), f3), _mm_mul_ps(f1, _mm_broadcast_ss(i + 13))),
                                         _mm_mul_ps(f2, _mm_broadcast_ss(i + 14))));
    }
}

// run_mesh_mesh_deform_2014's loop (ops.cpp) with the same operations in the same order, per
// vertex: two neighbouring vertices with as many pairs side by side in a register's halves (each
// pair's frame read as two halves and the two paired by column; its local vector and weight one
// load, spread within its half).
void mesh_mesh_sums_avx2(const MeshMeshDeform2014Op& op, const Mat4* frames, BufferData& out) {
    if (op.normals && out.n) mesh_mesh_vertices<true>(op, frames, out);
    else mesh_mesh_vertices<false>(op, frames, out);
}

// The triangle normals and the grouped normal sums of sum_indexed (ops.cpp) for groups [0,
// groups): two triangles per register (each half the one-vector cross product of ops.cpp), and
// two ids' sums per register (each half an id's additions in its order); the normalisation is
// ops.cpp's, four ids at a time. The tail ids are left to the caller.
void normal_sums_avx2(const VertexFramesOp& op, const float* p, uint32_t tri_count, float* tn, float* const accum[3], uint32_t groups) {
    const uint16_t* c = op.corners.data();
    // cross(a, b) = yzx(a) zxy(b) - zxy(a) yzx(b), in each half.
    auto cross = [&](__m256 a, __m256 b) {
        const __m256 a1 = _mm256_shuffle_ps(a, a, _MM_SHUFFLE(3, 0, 2, 1)), b2 = _mm256_shuffle_ps(b, b, _MM_SHUFFLE(3, 1, 0, 2));
        const __m256 a2 = _mm256_shuffle_ps(a, a, _MM_SHUFFLE(3, 1, 0, 2)), b1 = _mm256_shuffle_ps(b, b, _MM_SHUFFLE(3, 0, 2, 1));
        return sub(mul(a1, b2), mul(a2, b1));
    };
    uint32_t t = 0;
    for (; t + 2 <= tri_count; t += 2) {
        const uint16_t* k = c + 3 * size_t(t);
        const __m256 pa = two_columns(p + size_t(k[0]) * 4, p + size_t(k[3]) * 4);
        const __m256 pb = two_columns(p + size_t(k[1]) * 4, p + size_t(k[4]) * 4);
        const __m256 pc = two_columns(p + size_t(k[2]) * 4, p + size_t(k[5]) * 4);
        _mm256_storeu_ps(tn + size_t(t) * 4, cross(sub(pb, pa), sub(pc, pa)));
    }
    for (; t < tri_count; ++t) {
        const uint16_t* k = c + 3 * size_t(t);
        const __m128 pa = _mm_loadu_ps(p + size_t(k[0]) * 4), pb = _mm_loadu_ps(p + size_t(k[1]) * 4), pc = _mm_loadu_ps(p + size_t(k[2]) * 4);
        const __m128 e1 = _mm_sub_ps(pb, pa), e2 = _mm_sub_ps(pc, pa);
        const __m128 n = _mm_sub_ps(_mm_mul_ps(_mm_shuffle_ps(e1, e1, _MM_SHUFFLE(3, 0, 2, 1)), _mm_shuffle_ps(e2, e2, _MM_SHUFFLE(3, 1, 0, 2))),
                                    _mm_mul_ps(_mm_shuffle_ps(e1, e1, _MM_SHUFFLE(3, 1, 0, 2)), _mm_shuffle_ps(e2, e2, _MM_SHUFFLE(3, 0, 2, 1))));
        _mm_storeu_ps(tn + size_t(t) * 4, n);
    }
    _mm_storeu_ps(tn + size_t(tri_count) * 4, _mm_set1_ps(-0.0f));  // the pad of the grouped sums
    const uint32_t* gf = op.group_first.data();
    const uint16_t* g4 = op.group_triangles.data();
    const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f);
    // A round's four entries read as one 64-bit word (fewer loads: the loads are the loop's pace).
    auto round = [&](__m256& s01, __m256& s23, uint32_t e) {
        uint64_t r;
        std::memcpy(&r, g4 + size_t(e) * 4, sizeof r);
        const size_t r0 = size_t(r & 0xFFFF), r1 = size_t((r >> 16) & 0xFFFF), r2 = size_t((r >> 32) & 0xFFFF), r3 = size_t(r >> 48);
        s01 = add(s01, two_columns(tn + r0 * 4, tn + r1 * 4));
        s23 = add(s23, two_columns(tn + r2 * 4, tn + r3 * 4));
    };
    auto finish = [&](__m256 s01, __m256 s23, uint32_t g) {
        __m128 x = _mm256_castps256_ps128(s01), y = _mm256_extractf128_ps(s01, 1);
        __m128 z = _mm256_castps256_ps128(s23), w = _mm256_extractf128_ps(s23, 1);
        _MM_TRANSPOSE4_PS(x, y, z, w);
        const __m128 l2 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(x, x), _mm_mul_ps(y, y)), _mm_mul_ps(z, z));
        const __m128 inv = _mm_blendv_ps(zero, _mm_div_ps(one, _mm_sqrt_ps(l2)), _mm_cmpgt_ps(l2, zero));
        const size_t id = size_t(g) * 4;
        _mm_storeu_ps(accum[0] + id, _mm_mul_ps(x, inv)), _mm_storeu_ps(accum[1] + id, _mm_mul_ps(y, inv)), _mm_storeu_ps(accum[2] + id, _mm_mul_ps(z, inv));
    };
    // Two groups side by side, so that four sums are in flight (each lane's additions stay in
    // its id's order; only independent sums are interleaved).
    uint32_t g = 0;
    for (; g + 2 <= groups; g += 2) {
        __m256 a01 = _mm256_setzero_ps(), a23 = _mm256_setzero_ps(), b01 = _mm256_setzero_ps(), b23 = _mm256_setzero_ps();
        const uint32_t na = gf[g + 1] - gf[g], nb = gf[g + 2] - gf[g + 1], both = na < nb ? na : nb;
        for (uint32_t e = 0; e < both; ++e) round(a01, a23, gf[g] + e), round(b01, b23, gf[g + 1] + e);
        for (uint32_t e = both; e < na; ++e) round(a01, a23, gf[g] + e);
        for (uint32_t e = both; e < nb; ++e) round(b01, b23, gf[g + 1] + e);
        finish(a01, a23, g);
        finish(b01, b23, g + 1);
    }
    for (; g < groups; ++g) {
        __m256 s01 = _mm256_setzero_ps(), s23 = _mm256_setzero_ps();
        for (uint32_t e = gf[g]; e < gf[g + 1]; ++e) round(s01, s23, e);
        finish(s01, s23, g);
    }
}

// Frame entries k0..k0+7, entry j of vertex v[j] and normal id id[j], one per lane: the
// operations of write_frames4 (ops.cpp) in its order, entries j and j + 4 in one register's halves;
// stored in entry order.
void write_frames8_avx2(const VertexFramesOp& op, BufferData& buf, const Scratch& s, uint32_t k0, const uint32_t* v, const uint32_t* id) {
    auto rows = [&](const float* base, const uint32_t* at, __m256& x, __m256& y, __m256& z, __m256& w) {
        x = two_columns(base + size_t(at[0]) * 4, base + size_t(at[4]) * 4), y = two_columns(base + size_t(at[1]) * 4, base + size_t(at[5]) * 4);
        z = two_columns(base + size_t(at[2]) * 4, base + size_t(at[6]) * 4), w = two_columns(base + size_t(at[3]) * 4, base + size_t(at[7]) * 4);
        transpose8(x, y, z, w);
    };
    __m256 ex, ey, ez, ew;
    {
        __m256 e[4];
        for (int j = 0; j < 4; ++j) {
            const uint32_t k = k0 + uint32_t(j);
            e[j] = _mm256_sub_ps(two_columns(buf.p + size_t(op.reference_vertices[k]) * 4, buf.p + size_t(op.reference_vertices[k + 4]) * 4),
                                 two_columns(buf.p + size_t(v[j]) * 4, buf.p + size_t(v[j + 4]) * 4));
        }
        transpose8(e[0], e[1], e[2], e[3]);
        ex = e[0], ey = e[1], ez = e[2], ew = e[3];
    }
    __m256 nx, ny, nz;
    if (op.normals) {
        bool consecutive = true;
        for (int j = 1; j < 8; ++j) consecutive = consecutive && id[j] == id[0] + uint32_t(j);
        if (consecutive) {
            nx = _mm256_loadu_ps(s.accum[0] + id[0]), ny = _mm256_loadu_ps(s.accum[1] + id[0]), nz = _mm256_loadu_ps(s.accum[2] + id[0]);
        } else {
            auto gather = [&](const float* a) {
                return _mm256_setr_ps(a[id[0]], a[id[1]], a[id[2]], a[id[3]], a[id[4]], a[id[5]], a[id[6]], a[id[7]]);
            };
            nx = gather(s.accum[0]), ny = gather(s.accum[1]), nz = gather(s.accum[2]);
        }
    } else {
        __m256 nw;
        rows(buf.n, v, nx, ny, nz, nw);
    }
    const __m256 d = add(add(mul(ex, nx), mul(ey, ny)), mul(ez, nz));
    ex = sub(ex, mul(nx, d)), ey = sub(ey, mul(ny, d)), ez = sub(ez, mul(nz, d));
    const __m256 l2 = add(add(mul(ex, ex), mul(ey, ey)), mul(ez, ez));
    const __m256 zero = _mm256_setzero_ps();
    const __m256 inv = _mm256_blendv_ps(zero, _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_sqrt_ps(l2)), _mm256_cmp_ps(l2, zero, _CMP_GT_OQ));
    ex = mul(ex, inv), ey = mul(ey, inv), ez = mul(ez, inv);
    const __m256 nex = sub(mul(ny, ez), mul(nz, ey)), ney = sub(mul(nz, ex), mul(nx, ez)), nez = sub(mul(nx, ey), mul(ny, ex));
    const __m256 c = _mm256_loadu_ps(op.tangent_cos.data() + k0), sn = _mm256_loadu_ps(op.tangent_sin.data() + k0);
    const __m256 tx = add(mul(ex, c), mul(nex, sn)), ty = add(mul(ey, c), mul(ney, sn)), tz = add(mul(ez, c), mul(nez, sn));
    __m256 n4[4] = {nx, ny, nz, ew}, t4[4] = {tx, ty, tz, ew}, b4[4];
    transpose8(n4[0], n4[1], n4[2], n4[3]);
    transpose8(t4[0], t4[1], t4[2], t4[3]);
    const bool bit = op.bitangents && k0 + 8 <= op.bitangent_flip.size();
    if (bit) {
        const __m256 f = _mm256_loadu_ps(op.bitangent_flip.data() + k0);
        b4[0] = mul(sub(mul(ny, tz), mul(nz, ty)), f), b4[1] = mul(sub(mul(nz, tx), mul(nx, tz)), f), b4[2] = mul(sub(mul(nx, ty), mul(ny, tx)), f);
        b4[3] = ew;
        transpose8(b4[0], b4[1], b4[2], b4[3]);
    }
    for (int j = 0; j < 8; ++j) {
        const int r = j & 3;
        auto half = [&](__m256 x) { return j < 4 ? _mm256_castps256_ps128(x) : _mm256_extractf128_ps(x, 1); };
        const size_t o = size_t(v[j]) * 4;
        if (op.normals) store_xyz(buf.n + o, half(n4[r]));
        store_xyz(buf.t + o, half(t4[r]));
        if (bit) store_xyz(buf.b + o, half(b4[r]));
    }
}

}  // namespace drape::rt

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else  // no AVX2 path on this compiler/target

namespace drape::rt {
bool ops_avx2_built() { return false; }
void object_space_blend_avx2(const DeformOp&, const Mat4*, BufferData&) {}
void bone_space_blend_avx2(const DeformOp&, const Mat4*, BufferData&) {}
void write_frames8_avx2(const VertexFramesOp&, BufferData&, const Scratch&, uint32_t, const uint32_t*, const uint32_t*) {}
void normal_sums_avx2(const VertexFramesOp&, const float*, uint32_t, float*, float* const*, uint32_t) {}
void mesh_mesh_sums_avx2(const MeshMeshDeform2014Op&, const Mat4*, BufferData&) {}
void mesh_mesh_composites_avx2(const DeformOp&, const BufferData&, Mat4*) {}
}  // namespace drape::rt

#endif
