// drape solver: the in-block 4 x 4 transpose of 512-bit registers that the sixteen-lane kernels
// use to turn rows of particles (one Float4 per 128-bit block) into x, y, z, w lanes and back.
// Include only inside an AVX-512 target region (links_avx512.cpp, ops_avx512.cpp). Internal
// linkage: each file keeps its own copy, compiled for its own target.
#pragma once

#include <immintrin.h>

namespace drape::solver::lanes {
namespace {

// In each 128-bit block: rows (r0, r1, r2, r3) -> (x, y, z, w), and back (the same permutation).
inline void transpose16(__m512& r0, __m512& r1, __m512& r2, __m512& r3) {
    const __m512 t0 = _mm512_unpacklo_ps(r0, r1), t1 = _mm512_unpacklo_ps(r2, r3);
    const __m512 t2 = _mm512_unpackhi_ps(r0, r1), t3 = _mm512_unpackhi_ps(r2, r3);
    r0 = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t0), _mm512_castps_pd(t1)));
    r1 = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t0), _mm512_castps_pd(t1)));
    r2 = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t2), _mm512_castps_pd(t3)));
    r3 = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t2), _mm512_castps_pd(t3)));
}

}  // namespace
}  // namespace drape::solver::lanes
