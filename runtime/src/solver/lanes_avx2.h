// drape solver: eight float lanes in one AVX2 register (F8, M8 masks), their correctly rounded
// operations, and the 4 x 8 transpose the link batches use. Include only where AVX2 code may be
// generated: inside the target("avx,avx2") regions of links_avx2.cpp and ops_avx2.cpp, or a file
// compiled with -mavx2; nowhere else, or the SSE2 paths would be compiled with AVX instructions.
//
// Everything here lives in an inline namespace named by DRAPE_WIDE_NS (avx2 unless the includer
// names another): links_avx2_evex.cpp compiles the same kernels once more for AVX-512VL, and its
// F8 must be a type of its own, or the linker could keep one translation unit's copy of an inline
// function (or of a kernel template instantiated on F8) for both.
#pragma once

#include <immintrin.h>

#ifndef DRAPE_WIDE_NS
#define DRAPE_WIDE_NS avx2
#endif

namespace drape::solver::lanes {
inline namespace DRAPE_WIDE_NS {

struct F8 {
    __m256 v;
};
struct M8 {
    __m256 v;
};
inline F8 operator+(F8 a, F8 b) { return {_mm256_add_ps(a.v, b.v)}; }
inline F8 operator-(F8 a, F8 b) { return {_mm256_sub_ps(a.v, b.v)}; }
inline F8 operator*(F8 a, F8 b) { return {_mm256_mul_ps(a.v, b.v)}; }
inline F8 operator/(F8 a, F8 b) { return {_mm256_div_ps(a.v, b.v)}; }
inline F8 vmin(F8 a, F8 b) { return {_mm256_min_ps(a.v, b.v)}; }
inline F8 vmax(F8 a, F8 b) { return {_mm256_max_ps(a.v, b.v)}; }
inline F8 vsqrt(F8 a) { return {_mm256_sqrt_ps(a.v)}; }
inline F8 select(M8 m, F8 a, F8 b) { return {_mm256_blendv_ps(b.v, a.v, m.v)}; }
inline M8 gt(F8 a, F8 b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_GT_OQ)}; }
inline M8 lt(F8 a, F8 b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_LT_OQ)}; }
inline M8 neq(F8 a, F8 b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_NEQ_UQ)}; }  // true where either is NaN, as a != b
inline M8 mask_and(M8 a, M8 b) { return {_mm256_and_ps(a.v, b.v)}; }
inline M8 mask_or(M8 a, M8 b) { return {_mm256_or_ps(a.v, b.v)}; }
inline M8 select_mask(M8 m, M8 a, M8 b) { return {_mm256_blendv_ps(b.v, a.v, m.v)}; }  // m ? a : b
inline bool any(M8 m) { return _mm256_movemask_ps(m.v) != 0; }

// Rows (a0|a4), (a1|a5), (a2|a6), (a3|a7) -> x, y, z, w of the eight vectors, and back (the
// transpose is its own inverse). Only vshufps, no vunpck*: on Golden Cove / Sapphire Rapids
// vunpcklps/vunpckhpd/vpermilps ymm issue on port 5 alone, one per cycle, while vshufps ymm
// issues on ports 1 and 5, two per cycle; a batch's four transposes are 32 shuffles, which made
// port 5 the batch's limit. Pure data movement, so the lanes' bits are the same either way.
inline void transpose8(__m256& r0, __m256& r1, __m256& r2, __m256& r3) {
    const __m256 t0 = _mm256_shuffle_ps(r0, r1, 0x44), t1 = _mm256_shuffle_ps(r2, r3, 0x44);  // x y of two rows each
    const __m256 t2 = _mm256_shuffle_ps(r0, r1, 0xEE), t3 = _mm256_shuffle_ps(r2, r3, 0xEE);  // z w of two rows each
    r0 = _mm256_shuffle_ps(t0, t1, 0x88);
    r1 = _mm256_shuffle_ps(t0, t1, 0xDD);
    r2 = _mm256_shuffle_ps(t2, t3, 0x88);
    r3 = _mm256_shuffle_ps(t2, t3, 0xDD);
}

}  // namespace DRAPE_WIDE_NS
template <> inline F8 splat_v<F8>(float x) { return {_mm256_set1_ps(x)}; }
}  // namespace drape::solver::lanes
