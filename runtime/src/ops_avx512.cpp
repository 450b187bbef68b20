// drape runtime: the object-space blend four vertices at a time with AVX-512 (F and VL), chosen
// at run time (solver::widest_lanes and cpuid). A vertex's composite matrix is one 512-bit
// register (its four columns), so each influence costs one load, one multiply and one add where
// the AVX2 path spends two of each; the four composites are then transposed by 128-bit blocks
// (column k of the four vertices in one register) and each stream is transformed once for all
// four. Each lane runs the four-lane form's operations of ops.cpp in its order, correctly rounded
// operations only and no FMA (the target has no "fma", and the runtime compiles with
// -ffp-contract=off), so the bits are its bits; tests compare it with a scalar form.
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

namespace drape::rt {

bool ops_avx512_usable() {
    static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
    return yes;
}

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

}  // namespace drape::rt

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC diagnostic pop
#pragma GCC pop_options
#endif

#else  // no AVX-512 path on this compiler/target

namespace drape::rt {
bool ops_avx512_usable() { return false; }
void object_space_blend_avx512(const DeformOp&, const Mat4*, BufferData&) {}
}  // namespace drape::rt

#endif
