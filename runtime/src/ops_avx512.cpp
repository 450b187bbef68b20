// drape runtime: the object-space blend four vertices at a time, and the object-space mesh-mesh
// composites sixteen subset entries at a time, with AVX-512 (F and VL), chosen at run time
// (solver::has_avx512vl). In the blend a vertex's composite matrix is one 512-bit
// register (its four columns), so each influence costs one load, one multiply and one add where
// the AVX2 path spends two of each; the four composites are then transposed by 128-bit blocks
// (column k of the four vertices in one register) and each stream is transformed once for all
// four. Each lane runs the four-lane form's operations of ops.cpp in its order, correctly rounded
// operations only and no FMA (the target has no "fma", and the runtime compiles with
// -ffp-contract=off), so the bits are its bits; tests compare both with a scalar form.
#include <cstdint>

#include "rt_ops.h"  // before the target pragma: nothing of it may become AVX-512 code

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx,avx2,avx512f,avx512vl"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx,avx2,avx512f,avx512vl")
// GCC 12's avx512fintrin.h builds the unmasked forms on _mm512_undefined_ps(), which its
// -Wmaybe-uninitialized reports as a use of an uninitialised value (a false positive).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include "solver/lanes_avx512.h"  // inside the target region: its functions are AVX-512 code

namespace drape::rt {

namespace {

// Vertex j's blended composite, its four columns in one register: the sum of M * w in influence
// order (a one-influence vertex takes its matrix). N: the block's influences when known at
// compile time (the loop unrolled: the per-influence index arithmetic was the blend's limit), or
// 0 to take them from the block.
template <uint32_t N>
inline __m512 composite(const DeformBlock& blk, const Mat4* m, const float* wf, uint32_t j) {
    const uint32_t n = N ? N : blk.blends, a = j * n;
    __m512 c = _mm512_loadu_ps(m[blk.bones[a]].m);
    if (n == 1) return c;
    c = _mm512_mul_ps(c, _mm512_set1_ps(wf[a]));
    for (uint32_t i = 1; i < n; ++i) c = _mm512_add_ps(c, _mm512_mul_ps(_mm512_loadu_ps(m[blk.bones[a + i]].m), _mm512_set1_ps(wf[a + i])));
    return c;
}

// Composites of four vertices (c[v]: columns 0..3 in its 128-bit blocks) -> k[col]: column col
// of vertices 0..3 in its blocks.
inline void transpose_blocks(const __m512 (&c)[4], __m512 (&k)[4]) {
    const __m512 t0 = _mm512_shuffle_f32x4(c[0], c[1], 0x44), t1 = _mm512_shuffle_f32x4(c[0], c[1], 0xEE);
    const __m512 t2 = _mm512_shuffle_f32x4(c[2], c[3], 0x44), t3 = _mm512_shuffle_f32x4(c[2], c[3], 0xEE);
    k[0] = _mm512_shuffle_f32x4(t0, t2, 0x88), k[1] = _mm512_shuffle_f32x4(t0, t2, 0xDD);
    k[2] = _mm512_shuffle_f32x4(t1, t3, 0x88), k[3] = _mm512_shuffle_f32x4(t1, t3, 0xDD);
}

struct BlendStreams {
    const float* x[4];
    const float* y[4];
    const float* z[4];
    float* out[4];
    bool point[4];
    uint32_t count = 0;
};

// One block, its influences N (0: taken from the block).
template <uint32_t N>
void blend_block(const DeformBlock& blk, const Mat4* m, const BlendStreams& s) {
    // Lane k of the four-float load at li goes to the k-th 128-bit block (vertex k's splat).
    const __m512i spread = _mm512_set_epi32(3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0);
    const uint32_t n = N ? N : blk.blends;
    // The block's weights as floats: float(w) * unit, as weight_from_byte and weight_from_u16
    // have it (a 16-bit weight converts exactly either way). Past the block's vertices the
    // weights are the block's unused slots: converted, never stored.
    alignas(64) float wf[128];
    if (n > 1) {
        const __m512 u = _mm512_set1_ps(n <= 4 ? weight_from_byte(1) : weight_from_u16(1));
        for (uint32_t k = 0; k < 16 * n; k += 16) {  // 16 vertices x n influences at most
            const __m512i w32 = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk.weights + k)));
            _mm512_store_ps(wf + k, _mm512_mul_ps(_mm512_cvtepi32_ps(w32), u));
        }
    }
    for (uint32_t j = 0; j < blk.vertex_count; j += 4) {
        // A last group of fewer than four repeats its last vertex in the lanes past it; those
        // lanes are computed and not stored. The local vectors of a block are 16 a stream, so
        // the four-float loads at li stay inside it.
        const uint32_t here = blk.vertex_count - j < 4 ? blk.vertex_count - j : 4;
        __m512 c[4], k[4];
        for (uint32_t v = 0; v < 4; ++v) c[v] = composite<N>(blk, m, wf, j + (v < here ? v : here - 1));
        transpose_blocks(c, k);
        const uint32_t li = blk.local * 16 + j;
        const uint16_t* vx = blk.vertices + j;
        // Four neighbouring output vertices take one masked store (x, y, z of each; w kept).
        const bool neighbours = here == 4 && vx[1] == vx[0] + 1 && vx[2] == vx[0] + 2 && vx[3] == vx[0] + 3;
        for (uint32_t t = 0; t < s.count; ++t) {
            const __m512 x = _mm512_permutexvar_ps(spread, _mm512_castps128_ps512(_mm_loadu_ps(s.x[t] + li)));
            const __m512 y = _mm512_permutexvar_ps(spread, _mm512_castps128_ps512(_mm_loadu_ps(s.y[t] + li)));
            const __m512 z = _mm512_permutexvar_ps(spread, _mm512_castps128_ps512(_mm_loadu_ps(s.z[t] + li)));
            // A point: ((c0*x + c3) + c1*y) + c2*z; a direction: (c0*x + c1*y) + c2*z.
            __m512 r = _mm512_mul_ps(k[0], x);
            if (s.point[t]) r = _mm512_add_ps(r, k[3]);
            r = _mm512_add_ps(_mm512_add_ps(r, _mm512_mul_ps(k[1], y)), _mm512_mul_ps(k[2], z));
            float* o = s.out[t];
            if (neighbours) {
                _mm512_mask_storeu_ps(o + size_t(vx[0]) * 4, __mmask16(0x7777), r);
            } else {
                _mm_mask_storeu_ps(o + size_t(vx[0]) * 4, __mmask8(0x7), _mm512_castps512_ps128(r));
                if (here > 1) _mm_mask_storeu_ps(o + size_t(vx[1]) * 4, __mmask8(0x7), _mm512_extractf32x4_ps(r, 1));
                if (here > 2) _mm_mask_storeu_ps(o + size_t(vx[2]) * 4, __mmask8(0x7), _mm512_extractf32x4_ps(r, 2));
                if (here > 3) _mm_mask_storeu_ps(o + size_t(vx[3]) * 4, __mmask8(0x7), _mm512_extractf32x4_ps(r, 3));
            }
        }
    }
}

}  // namespace

void object_space_blend_avx512(const DeformOp& op, const Mat4* m, BufferData& out) {
    BlendStreams s;
    auto add = [&](const LocalStream& l, float* o, bool point) {
        s.x[s.count] = l.x.data(), s.y[s.count] = l.y.data(), s.z[s.count] = l.z.data(), s.out[s.count] = o, s.point[s.count] = point;
        ++s.count;
    };
    if (!op.skip_positions) add(op.local_p, out.p, true);
    if ((op.streams & k_stream_n) && !op.local_n.empty() && out.n != nullptr) add(op.local_n, out.n, false);
    if ((op.streams & k_stream_t) && !op.local_t.empty() && out.t != nullptr) add(op.local_t, out.t, false);
    if ((op.streams & k_stream_b) && !op.local_b.empty() && out.b != nullptr) add(op.local_b, out.b, false);
    for (const DeformBlock& blk : op.blocks) {
        switch (blk.blends) {
            case 1: blend_block<1>(blk, m, s); break;
            case 2: blend_block<2>(blk, m, s); break;
            case 3: blend_block<3>(blk, m, s); break;
            case 4: blend_block<4>(blk, m, s); break;
            default: blend_block<0>(blk, m, s); break;
        }
    }
}


// Sixteen subset entries at a time, entry n of a group in lane n: each lane runs triangle_frame's
// and compose's expressions of its entry in their order (the w rows too: 0, 0, 0 and 1 in the
// frame), so every float of every composite is mesh_mesh_composites_avx2's. A last group of
// fewer than sixteen repeats its last entry in the lanes past it, which are not stored.
void mesh_mesh_composites_avx512(const DeformOp& op, const BufferData& in, Mat4* out) {
    const uint32_t count = uint32_t(op.subset.size());
    const __m512 third = _mm512_set1_ps(1.0f / 3.0f), zero = _mm512_setzero_ps(), one = _mm512_set1_ps(1.0f);
    for (uint32_t j0 = 0; j0 < count; j0 += 16) {
        const uint32_t here = count - j0 < 16 ? count - j0 : 16;
        const uint16_t* tri[16];
        for (uint32_t n = 0; n < 16; ++n) tri[n] = in.triangles + size_t(op.subset[j0 + (n < here ? n : here - 1)]) * 3;
        // Corner q of the sixteen triangles as x, y, z lanes: row k holds triangles k, k + 4,
        // k + 8 and k + 12, so the in-block transpose leaves triangle n in lane n.
        auto corner = [&](uint32_t q, __m512& x, __m512& y, __m512& z) {
            __m512 r[4];
            for (uint32_t k = 0; k < 4; ++k) {
                r[k] = _mm512_castps128_ps512(_mm_loadu_ps(in.p + size_t(tri[k][q]) * 4));
                for (uint32_t b = 1; b < 4; ++b) {
                    const __m128 v = _mm_loadu_ps(in.p + size_t(tri[k + 4 * b][q]) * 4);
                    r[k] = b == 1 ? _mm512_insertf32x4(r[k], v, 1) : (b == 2 ? _mm512_insertf32x4(r[k], v, 2) : _mm512_insertf32x4(r[k], v, 3));
                }
            }
            solver::lanes::transpose16(r[0], r[1], r[2], r[3]);
            x = r[0], y = r[1], z = r[2];
        };
        __m512 ax, ay, az, bx, by, bz, cx, cy, cz;
        corner(0, ax, ay, az);
        corner(1, bx, by, bz);
        corner(2, cx, cy, cz);
        // The frame: g = ((a + b) + c) * (1/3), e1 = a - g, e2 = b - g, n = e1 x e2.
        const __m512 gx = _mm512_mul_ps(_mm512_add_ps(_mm512_add_ps(ax, bx), cx), third);
        const __m512 gy = _mm512_mul_ps(_mm512_add_ps(_mm512_add_ps(ay, by), cy), third);
        const __m512 gz = _mm512_mul_ps(_mm512_add_ps(_mm512_add_ps(az, bz), cz), third);
        const __m512 e1x = _mm512_sub_ps(ax, gx), e1y = _mm512_sub_ps(ay, gy), e1z = _mm512_sub_ps(az, gz);
        const __m512 e2x = _mm512_sub_ps(bx, gx), e2y = _mm512_sub_ps(by, gy), e2z = _mm512_sub_ps(bz, gz);
        const __m512 nx = _mm512_sub_ps(_mm512_mul_ps(e1y, e2z), _mm512_mul_ps(e1z, e2y));
        const __m512 ny = _mm512_sub_ps(_mm512_mul_ps(e1z, e2x), _mm512_mul_ps(e1x, e2z));
        const __m512 nz = _mm512_sub_ps(_mm512_mul_ps(e1x, e2y), _mm512_mul_ps(e1y, e2x));
        const __m512 f[3][4] = {{e1x, e1y, e1z, zero}, {e2x, e2y, e2z, zero}, {nx, ny, nz, zero}};
        const __m512 g[4] = {gx, gy, gz, one};
        const float* bind = op.bind_lanes.data() + size_t(j0 / 16) * 12 * 16;
        for (uint32_t c = 0; c < 4; ++c) {
            const __m512 i0 = _mm512_loadu_ps(bind + (3 * c) * 16), i1 = _mm512_loadu_ps(bind + (3 * c + 1) * 16),
                         i2 = _mm512_loadu_ps(bind + (3 * c + 2) * 16);
            // Column c, row r: (f0*i0 + f1*i1) + f2*i2; the translation ((f0*i0 + g) + f1*i1) + f2*i2.
            __m512 row[4];
            for (uint32_t r = 0; r < 4; ++r) {
                __m512 v = _mm512_mul_ps(f[0][r], i0);
                if (c == 3) v = _mm512_add_ps(v, g[r]);
                row[r] = _mm512_add_ps(_mm512_add_ps(v, _mm512_mul_ps(f[1][r], i1)), _mm512_mul_ps(f[2][r], i2));
            }
            solver::lanes::transpose16(row[0], row[1], row[2], row[3]);  // row[k], block b: column c of entry 4b + k
            for (uint32_t k = 0; k < 4; ++k)
                for (uint32_t b = 0; b < 4; ++b) {
                    if (4 * b + k >= here) continue;
                    const __m128 v = b == 0 ? _mm512_castps512_ps128(row[k])
                                            : (b == 1 ? _mm512_extractf32x4_ps(row[k], 1)
                                                      : (b == 2 ? _mm512_extractf32x4_ps(row[k], 2) : _mm512_extractf32x4_ps(row[k], 3)));
                    _mm_storeu_ps(out[j0 + 4 * b + k].m + 4 * c, v);
                }
        }
    }
}

}  // namespace drape::rt

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC diagnostic pop
#pragma GCC pop_options
#endif

#else  // no AVX-512 path on this compiler/target

namespace drape::rt {
void object_space_blend_avx512(const DeformOp&, const Mat4*, BufferData&) {}
void mesh_mesh_composites_avx512(const DeformOp&, const BufferData&, Mat4*) {}
}  // namespace drape::rt

#endif
