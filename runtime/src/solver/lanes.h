// drape solver: one lane type for the scalar and the four-lane paths, so that both run the same
// template code with the same IEEE operations in the same order (and give the same bits).
//
// `float` is one lane; `F4` is four (SSE2, or four floats where SSE2 is missing). Only
// correctly rounded operations are used (+ - * / sqrt); min/max/select are defined alike for
// both (min(a, b) = a < b ? a : b, as minps), so NaN behaves the same in both paths.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#define DRAPE_SOLVER_SSE2 1
#include <emmintrin.h>
#endif

#include "solver/solver.h"

namespace drape::solver::lanes {

// ---- scalar lane ----
inline float vmin(float a, float b) { return a < b ? a : b; }
inline float vmax(float a, float b) { return a > b ? a : b; }
inline float vsqrt(float a) { return std::sqrt(a); }
inline float select(bool m, float a, float b) { return m ? a : b; }
inline bool lt(float a, float b) { return a < b; }
inline bool gt(float a, float b) { return a > b; }
inline bool mask_and(bool a, bool b) { return a && b; }
inline bool any(bool m) { return m; }
inline bool mask_or(bool a, bool b) { return a || b; }
inline bool select_mask(bool m, bool a, bool b) { return m ? a : b; }
template <class V> V splat_v(float x);
template <> inline float splat_v<float>(float x) { return x; }

#if DRAPE_SOLVER_SSE2
struct F4 {
    __m128 v;
    F4() = default;
    explicit F4(__m128 x) : v(x) {}
};
struct M4 {
    __m128 v;
};
inline F4 operator+(F4 a, F4 b) { return F4(_mm_add_ps(a.v, b.v)); }
inline F4 operator-(F4 a, F4 b) { return F4(_mm_sub_ps(a.v, b.v)); }
inline F4 operator*(F4 a, F4 b) { return F4(_mm_mul_ps(a.v, b.v)); }
inline F4 operator/(F4 a, F4 b) { return F4(_mm_div_ps(a.v, b.v)); }
inline F4 vmin(F4 a, F4 b) { return F4(_mm_min_ps(a.v, b.v)); }
inline F4 vmax(F4 a, F4 b) { return F4(_mm_max_ps(a.v, b.v)); }
inline F4 vsqrt(F4 a) { return F4(_mm_sqrt_ps(a.v)); }
inline F4 select(M4 m, F4 a, F4 b) { return F4(_mm_or_ps(_mm_and_ps(m.v, a.v), _mm_andnot_ps(m.v, b.v))); }
inline M4 lt(F4 a, F4 b) { return M4{_mm_cmplt_ps(a.v, b.v)}; }
inline M4 gt(F4 a, F4 b) { return M4{_mm_cmpgt_ps(a.v, b.v)}; }
inline M4 neq(F4 a, F4 b) { return M4{_mm_cmpneq_ps(a.v, b.v)}; }  // true where either is NaN, as a != b
inline M4 mask_and(M4 a, M4 b) { return M4{_mm_and_ps(a.v, b.v)}; }
inline M4 mask_or(M4 a, M4 b) { return M4{_mm_or_ps(a.v, b.v)}; }
inline M4 select_mask(M4 m, M4 a, M4 b) { return M4{_mm_or_ps(_mm_and_ps(m.v, a.v), _mm_andnot_ps(m.v, b.v))}; }
inline bool any(M4 m) { return _mm_movemask_ps(m.v) != 0; }
inline F4 splat4(float x) { return F4(_mm_set1_ps(x)); }
// Four lanes from four scalars in registers (building them through a small array stalls on a
// failed store-to-load forward).
inline F4 set4(float a, float b, float c, float d) { return F4(_mm_setr_ps(a, b, c, d)); }
inline F4 load4(const float* p) { return F4(_mm_loadu_ps(p)); }
inline void store4(float* p, F4 a) { _mm_storeu_ps(p, a.v); }
// Lanes x, y, z to p[0..2] (p[3] left alone).
inline void store3(float* p, F4 a) {
    _mm_storel_pi(reinterpret_cast<__m64*>(p), a.v);
    _mm_store_ss(p + 2, _mm_movehl_ps(a.v, a.v));
}
inline M4 mask_from_bits(const uint32_t* p) { return M4{_mm_castsi128_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)))}; }
inline M4 mask_splat(uint32_t bits) { return M4{_mm_castsi128_ps(_mm_set1_epi32(int(bits)))}; }
inline M4 mask4(uint32_t a, uint32_t b, uint32_t c, uint32_t d) { return M4{_mm_castsi128_ps(_mm_setr_epi32(int(a), int(b), int(c), int(d)))}; }
// Four 16-byte vectors to lanes (x, y, z, w of vectors 0..3) and back.
inline void transpose(const Float4& a, const Float4& b, const Float4& c, const Float4& d, F4& x, F4& y, F4& z, F4& w) {
    __m128 r0 = _mm_load_ps(&a.x), r1 = _mm_load_ps(&b.x), r2 = _mm_load_ps(&c.x), r3 = _mm_load_ps(&d.x);
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    x.v = r0; y.v = r1; z.v = r2; w.v = r3;
}
// Four vectors in registers transposed in place (rows become lanes), and back (its own inverse).
inline void transpose4(F4& a, F4& b, F4& c, F4& d) { _MM_TRANSPOSE4_PS(a.v, b.v, c.v, d.v); }
// A vector's lanes turned: (y, z, x, w) and (z, x, y, w); cross(a, b) = yzx(a) zxy(b) - zxy(a) yzx(b).
inline F4 yzx(F4 a) { return F4(_mm_shuffle_ps(a.v, a.v, _MM_SHUFFLE(3, 0, 2, 1))); }
inline F4 zxy(F4 a) { return F4(_mm_shuffle_ps(a.v, a.v, _MM_SHUFFLE(3, 1, 0, 2))); }
inline void untranspose(F4 x, F4 y, F4 z, F4 w, Float4& a, Float4& b, Float4& c, Float4& d) {
    __m128 r0 = x.v, r1 = y.v, r2 = z.v, r3 = w.v;
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    _mm_store_ps(&a.x, r0); _mm_store_ps(&b.x, r1); _mm_store_ps(&c.x, r2); _mm_store_ps(&d.x, r3);
}
#else
struct F4 {
    float v[4];
};
struct M4 {
    bool v[4];
};
#define DRAPE_LANES_OP(op)                                             \
    inline F4 operator op(F4 a, F4 b) {                                \
        F4 r;                                                          \
        for (int i = 0; i < 4; ++i) r.v[i] = a.v[i] op b.v[i];         \
        return r;                                                      \
    }
DRAPE_LANES_OP(+) DRAPE_LANES_OP(-) DRAPE_LANES_OP(*) DRAPE_LANES_OP(/)
#undef DRAPE_LANES_OP
inline F4 vmin(F4 a, F4 b) { F4 r; for (int i = 0; i < 4; ++i) r.v[i] = vmin(a.v[i], b.v[i]); return r; }
inline F4 vmax(F4 a, F4 b) { F4 r; for (int i = 0; i < 4; ++i) r.v[i] = vmax(a.v[i], b.v[i]); return r; }
inline F4 vsqrt(F4 a) { F4 r; for (int i = 0; i < 4; ++i) r.v[i] = std::sqrt(a.v[i]); return r; }
inline F4 select(M4 m, F4 a, F4 b) { F4 r; for (int i = 0; i < 4; ++i) r.v[i] = m.v[i] ? a.v[i] : b.v[i]; return r; }
inline M4 lt(F4 a, F4 b) { M4 r; for (int i = 0; i < 4; ++i) r.v[i] = a.v[i] < b.v[i]; return r; }
inline M4 gt(F4 a, F4 b) { M4 r; for (int i = 0; i < 4; ++i) r.v[i] = a.v[i] > b.v[i]; return r; }
inline M4 neq(F4 a, F4 b) { M4 r; for (int i = 0; i < 4; ++i) r.v[i] = a.v[i] != b.v[i]; return r; }
inline M4 mask_and(M4 a, M4 b) { M4 r; for (int i = 0; i < 4; ++i) r.v[i] = a.v[i] && b.v[i]; return r; }
inline M4 mask_or(M4 a, M4 b) { M4 r; for (int i = 0; i < 4; ++i) r.v[i] = a.v[i] || b.v[i]; return r; }
inline M4 select_mask(M4 m, M4 a, M4 b) { M4 r; for (int i = 0; i < 4; ++i) r.v[i] = m.v[i] ? a.v[i] : b.v[i]; return r; }
inline bool any(M4 m) { return m.v[0] || m.v[1] || m.v[2] || m.v[3]; }
inline F4 splat4(float x) { F4 r; for (int i = 0; i < 4; ++i) r.v[i] = x; return r; }
inline F4 set4(float a, float b, float c, float d) { F4 r; r.v[0] = a, r.v[1] = b, r.v[2] = c, r.v[3] = d; return r; }
inline F4 load4(const float* p) { F4 r; std::memcpy(r.v, p, 16); return r; }
inline void store4(float* p, F4 a) { std::memcpy(p, a.v, 16); }
inline void store3(float* p, F4 a) { std::memcpy(p, a.v, 12); }
inline M4 mask_from_bits(const uint32_t* p) { M4 r; for (int i = 0; i < 4; ++i) r.v[i] = p[i] != 0; return r; }
inline M4 mask_splat(uint32_t bits) { M4 r; for (int i = 0; i < 4; ++i) r.v[i] = bits != 0; return r; }
inline M4 mask4(uint32_t a, uint32_t b, uint32_t c, uint32_t d) { M4 r; r.v[0] = a != 0, r.v[1] = b != 0, r.v[2] = c != 0, r.v[3] = d != 0; return r; }
inline void transpose(const Float4& a, const Float4& b, const Float4& c, const Float4& d, F4& x, F4& y, F4& z, F4& w) {
    const Float4* r[4] = {&a, &b, &c, &d};
    for (int i = 0; i < 4; ++i) { x.v[i] = r[i]->x; y.v[i] = r[i]->y; z.v[i] = r[i]->z; w.v[i] = r[i]->w; }
}
inline void transpose4(F4& a, F4& b, F4& c, F4& d) {
    F4* r[4] = {&a, &b, &c, &d};
    for (int i = 0; i < 4; ++i)
        for (int j = i + 1; j < 4; ++j) {
            const float t = r[i]->v[j];
            r[i]->v[j] = r[j]->v[i];
            r[j]->v[i] = t;
        }
}
inline F4 yzx(F4 a) { return set4(a.v[1], a.v[2], a.v[0], a.v[3]); }
inline F4 zxy(F4 a) { return set4(a.v[2], a.v[0], a.v[1], a.v[3]); }
inline void untranspose(F4 x, F4 y, F4 z, F4 w, Float4& a, Float4& b, Float4& c, Float4& d) {
    Float4* r[4] = {&a, &b, &c, &d};
    for (int i = 0; i < 4; ++i) { r[i]->x = x.v[i]; r[i]->y = y.v[i]; r[i]->z = z.v[i]; r[i]->w = w.v[i]; }
}
#endif

template <> inline F4 splat_v<F4>(float x) { return splat4(x); }

}  // namespace drape::solver::lanes
