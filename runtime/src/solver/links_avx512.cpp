// drape solver: sixteen links at a time, and the Verlet step four particles at a time, with
// AVX-512F (512-bit lanes), chosen at run time by cpuid (with the OS's zmm state). The same link_kernel as the scalar, SSE2 and AVX2 paths: only
// correctly rounded operations (+ - * / sqrt, min/max/select with minps semantics), no FMA (the
// runtime compiles with -ffp-contract=off and nothing here asks for fused operations), so the
// bits equal theirs.
//
// Why it is faster: the link arithmetic is cheap; moving the 16-byte particles between memory
// and lanes is not. Per link, the AVX2 path spends about six shuffles (inserts, two transposes
// each way). Here the 32 particles of a batch are loaded into eight 512-bit rows of four
// particles (one load and three 128-bit inserts per row), and one in-lane 4 x 4 transpose per
// side gives x, y, z of all sixteen links in natural lane order, so a batch of sixteen costs
// about as many shuffles as a batch of eight did; stores go out as 128-bit extracts (store
// port, no shuffle).
#include "solver/lanes.h"  // before the target pragma: its SSE2 functions must not become AVX-512 ones (ODR)
#include "solver/solver.h"

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx,avx2,avx512f"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx,avx2,avx512f")
// GCC 12's avx512fintrin.h builds the unmasked forms on _mm512_undefined_ps(), which its
// -Wmaybe-uninitialized and -Wuninitialized report as a use of an uninitialised value (a false
// positive).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#include "solver/collide_kernel.h"
#include "solver/lanes_avx512.h"  // inside the target region: its functions are AVX-512 code
#include "solver/link_kernel.h"

namespace drape::solver::lanes {

struct F16 {
    __m512 v;
};
struct M16 {
    __mmask16 k;
};
inline F16 operator+(F16 a, F16 b) { return {_mm512_add_ps(a.v, b.v)}; }
inline F16 operator-(F16 a, F16 b) { return {_mm512_sub_ps(a.v, b.v)}; }
inline F16 operator*(F16 a, F16 b) { return {_mm512_mul_ps(a.v, b.v)}; }
inline F16 operator/(F16 a, F16 b) { return {_mm512_div_ps(a.v, b.v)}; }
inline F16 vmin(F16 a, F16 b) { return {_mm512_min_ps(a.v, b.v)}; }  // a < b ? a : b, as minps
inline F16 vmax(F16 a, F16 b) { return {_mm512_max_ps(a.v, b.v)}; }
inline F16 vsqrt(F16 a) { return {_mm512_sqrt_ps(a.v)}; }
inline F16 select(M16 m, F16 a, F16 b) { return {_mm512_mask_blend_ps(m.k, b.v, a.v)}; }  // m ? a : b
inline M16 gt(F16 a, F16 b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_GT_OQ)}; }
inline M16 lt(F16 a, F16 b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_LT_OQ)}; }
inline M16 mask_and(M16 a, M16 b) { return {__mmask16(a.k & b.k)}; }
inline M16 mask_or(M16 a, M16 b) { return {__mmask16(a.k | b.k)}; }
inline M16 select_mask(M16 m, M16 a, M16 b) { return {__mmask16((m.k & a.k) | (~m.k & b.k))}; }  // m ? a : b
inline bool any(M16 m) { return m.k != 0; }
template <> inline F16 splat_v<F16>(float x) { return {_mm512_set1_ps(x)}; }

// Row k holds particles k, k+4, k+8, k+12 of the batch (one per 128-bit lane): the in-lane 4 x 4
// transpose then gives x, y, z, w of particles 0..15 in lane order.
inline __m512 load_row(const unsigned char* base, const uint32_t* o, uint32_t k) {
    __m512 r = _mm512_castps128_ps512(_mm_load_ps(reinterpret_cast<const float*>(base + o[k])));
    r = _mm512_insertf32x4(r, _mm_load_ps(reinterpret_cast<const float*>(base + o[k + 4])), 1);
    r = _mm512_insertf32x4(r, _mm_load_ps(reinterpret_cast<const float*>(base + o[k + 8])), 2);
    r = _mm512_insertf32x4(r, _mm_load_ps(reinterpret_cast<const float*>(base + o[k + 12])), 3);
    return r;
}
inline void store_row(unsigned char* base, const uint32_t* o, uint32_t k, __m512 r) {
    _mm_store_ps(reinterpret_cast<float*>(base + o[k]), _mm512_castps512_ps128(r));
    _mm_store_ps(reinterpret_cast<float*>(base + o[k + 4]), _mm512_extractf32x4_ps(r, 1));
    _mm_store_ps(reinterpret_cast<float*>(base + o[k + 8]), _mm512_extractf32x4_ps(r, 2));
    _mm_store_ps(reinterpret_cast<float*>(base + o[k + 12]), _mm512_extractf32x4_ps(r, 3));
}

}  // namespace drape::solver::lanes

namespace drape::solver {

bool has_avx512() {
    static const bool yes = __builtin_cpu_supports("avx512f");
    return yes;
}

namespace {

// Sixteen-lane batches of a packed stream (solver.h LinkSchedule::packed), fields of 16 words.
template <bool Uniform>
void batches16(unsigned char* base, const uint32_t* rec, uint32_t count) {
    using namespace lanes;
    constexpr uint32_t words = 16 * (Uniform ? 6 : 8);
    for (uint32_t n = 0; n < count; ++n, rec += words) {
        const uint32_t* ia = rec;
        const uint32_t* ib = rec + 16;
        __m512 a0 = load_row(base, ia, 0), a1 = load_row(base, ia, 1), a2 = load_row(base, ia, 2), a3 = load_row(base, ia, 3);
        __m512 b0 = load_row(base, ib, 0), b1 = load_row(base, ib, 1), b2 = load_row(base, ib, 2), b3 = load_row(base, ib, 3);
        transpose16(a0, a1, a2, a3);
        transpose16(b0, b1, b2, b3);
        F16 ax{a0}, ay{a1}, az{a2}, bx{b0}, by{b1}, bz{b2};
        const float* f = reinterpret_cast<const float*>(rec + 32);
        if constexpr (Uniform) {
            link_kernel_uniform<F16, M16>(ax, ay, az, bx, by, bz, F16{_mm512_loadu_ps(f)}, F16{_mm512_loadu_ps(f + 16)},
                                          F16{_mm512_loadu_ps(f + 32)}, F16{_mm512_loadu_ps(f + 48)},
                                          F16{_mm512_setzero_ps()});
        } else {
            link_kernel<F16, M16>(ax, ay, az, bx, by, bz, F16{_mm512_loadu_ps(f)}, F16{_mm512_loadu_ps(f + 16)},
                                  F16{_mm512_loadu_ps(f + 32)}, F16{_mm512_loadu_ps(f + 48)}, F16{_mm512_loadu_ps(f + 64)},
                                  F16{_mm512_loadu_ps(f + 80)}, F16{_mm512_setzero_ps()});
        }
        a0 = ax.v; a1 = ay.v; a2 = az.v;
        b0 = bx.v; b1 = by.v; b2 = bz.v;
        transpose16(a0, a1, a2, a3);
        transpose16(b0, b1, b2, b3);
        store_row(base, ia, 0, a0); store_row(base, ia, 1, a1); store_row(base, ia, 2, a2); store_row(base, ia, 3, a3);
        store_row(base, ib, 0, b0); store_row(base, ib, 1, b1); store_row(base, ib, 2, b2); store_row(base, ib, 3, b3);
    }
}

// Verlet as step.cpp's integrate_particles, four particles per vector: v = (p - q) * damping;
// q = p; p = (p + v) + a * h^2 with a = gravity (+ force * inv_mass), the same operations per
// lane. Particles past particle_count are read (the arrays, dynamic_mask included, are padded
// to a multiple of 4) and never written; w and pinned particles are kept (masked stores).
template <bool Forces>
void integrate4(const Setup& s, State& st) {
    const float hh = st.substep_length * st.substep_length;
    const __m512 damping = _mm512_set1_ps(st.damping), h2 = _mm512_set1_ps(hh);
    const __m512 g = _mm512_broadcast_f32x4(_mm_load_ps(&s.gravity.x));
    float* const p = &st.positions[0].x;
    float* const q = &st.previous_positions[0].x;
    const float* const force = &st.forces[0].x;
    const uint32_t* const dynamic = s.dynamic_mask;
    const float* const inv_mass = s.inv_mass;
    const __m512i spread = _mm512_set_epi32(3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0);
    // x, y, z of each particle (w is kept): a dynamic particle's mask word tested against these.
    const __m512i xyz = _mm512_set_epi32(0, -1, -1, -1, 0, -1, -1, -1, 0, -1, -1, -1, 0, -1, -1, -1);
    const uint32_t n = s.particle_count;
    for (uint32_t i = 0; i < n; i += 4) {
        const __m512 pi = _mm512_loadu_ps(p + 4 * i), qi = _mm512_loadu_ps(q + 4 * i);
        const __m512 v = _mm512_mul_ps(_mm512_sub_ps(pi, qi), damping);
        __m512 a = g;
        if constexpr (Forces) {
            const __m512 im = _mm512_permutexvar_ps(spread, _mm512_castps128_ps512(_mm_loadu_ps(inv_mass + i)));
            a = _mm512_add_ps(g, _mm512_mul_ps(_mm512_loadu_ps(force + 4 * i), im));
        }
        const __m512 np = _mm512_add_ps(_mm512_add_ps(pi, v), _mm512_mul_ps(a, h2));
        // Lanes of particles below n, and of those the dynamic ones' x, y, z.
        const uint32_t here = n - i < 4 ? n - i : 4;
        const __mmask16 in_range = __mmask16((1u << (4 * here)) - 1u);
        const __m512i dyn = _mm512_permutexvar_epi32(
            spread, _mm512_castsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(dynamic + i))));
        const __mmask16 moving = _mm512_test_epi32_mask(dyn, xyz);
        _mm512_mask_storeu_ps(q + 4 * i, in_range, pi);
        _mm512_mask_storeu_ps(p + 4 * i, __mmask16(moving & in_range), np);
    }
}

// Particles i..i+15 of a group: rows k = particles i + 4k .. i + 4k + 3 (one load each), so the
// in-block transpose puts particle i + 4m + b in lane 4b + m. Every per-particle array is read
// through the same order (`order`).
inline __m512i group_order() { return _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0); }

// collide_group (collide_kernel.h) with sixteen lanes, each lane the same expressions; `rows`
// (1..4) rows of four particles are the group's, the others take no part and are not stored.
DRAPE_COLLIDE_INLINE void collide_group16(const Setup& s, Float4* p, Float4* q, const CollisionChunk<lanes::F16>& ch, uint32_t i,
                                          uint32_t cand, uint32_t rows) {
    using namespace lanes;
    const __m512i order = group_order();
    const __mmask16 present = __mmask16((1u << (4 * rows)) - 1u);  // natural order, as the loads
    auto load_rows = [&](const Float4* base, __m512 (&r)[4]) {
        for (uint32_t k = 0; k < 4; ++k) r[k] = k < rows ? _mm512_loadu_ps(&base[i + 4 * k].x) : _mm512_setzero_ps();
        transpose16(r[0], r[1], r[2], r[3]);
    };
    auto lanes_of = [&](const float* a) { return _mm512_permutexvar_ps(order, _mm512_maskz_loadu_ps(present, a + i)); };
    __m512 pr[4];
    load_rows(p, pr);
    F16 px{pr[0]}, py{pr[1]}, pz{pr[2]}, qx{}, qy{}, qz{};
    __m512 qr[4];
    bool have_q = false;  // previous positions are transposed when a lane passes a box
    bool moved = false;
    // The lanes that collide with a collidable: dynamic and (all particles or the mask's bit).
    const __m512i dyn = _mm512_permutexvar_epi32(order, _mm512_maskz_loadu_epi32(present, s.dynamic_mask + i));
    const __m512i cmask = _mm512_permutexvar_epi32(order, _mm512_maskz_loadu_epi32(present, s.collision_mask + i));
    const __mmask16 dynamic = _mm512_test_epi32_mask(dyn, dyn);
    for (; cand != 0; cand &= cand - 1) {
        const uint32_t c = uint32_t(std::countr_zero(cand));
        const ShapeLanes<F16>& b = ch.w[c];
        M16 in_box{};
        if (b.has_box) {
            in_box = in_box_lanes<F16, M16>(b, px, py, pz);
            if (!any(in_box)) continue;
        }
        const __mmask16 on = ch.all[c] ? dynamic : __mmask16(dynamic & _mm512_test_epi32_mask(cmask, _mm512_set1_epi32(int(ch.bits[c]))));
        if (on == 0) continue;
        M16 active{on};
        if (!narrow_lanes<F16, M16>(b, px, py, pz, in_box, active)) continue;
        if (!have_q) {
            load_rows(q, qr);
            qx.v = qr[0], qy.v = qr[1], qz.v = qr[2];
            have_q = true;
        }
        moved |= collide_lanes<F16, M16, Contact::game>(b, px, py, pz, qx, qy, qz, F16{lanes_of(s.radius)}, F16{lanes_of(s.friction)}, active);
    }
    if (!moved) return;  // nothing inside: the particles are as they were
    auto put = [&](Float4* base, __m512 x, __m512 y, __m512 z, __m512 w) {
        transpose16(x, y, z, w);
        const __m512 r[4] = {x, y, z, w};
        for (uint32_t k = 0; k < rows; ++k) _mm512_storeu_ps(&base[i + 4 * k].x, r[k]);
    };
    put(p, px.v, py.v, pz.v, pr[3]);
    put(q, qx.v, qy.v, qz.v, qr[3]);
}

}  // namespace

// The game's collision pass of collidables [first, end) (none convex geometry), sixteen
// particles a group: collide_groups_avx2 (links_avx2.cpp) on sixteen lanes.
void collide_groups_avx512(const Setup& s, State& st, uint32_t first, uint32_t end) {
    using lanes::F16;
    Float4* p = st.positions;
    Float4* q = st.previous_positions;
    for_each_chunk<F16>(s, st, first, end, [&](const CollisionChunk<F16>& ch, uint32_t every) {
        scan_blocks(
            s, p, ch, every, [&](uint32_t i, uint32_t cand) { collide_group16(s, p, q, ch, i, cand, 4); },
            [&](uint32_t i) {
                if (i < s.padded_count) collide_group16(s, p, q, ch, i, every, (s.padded_count - i) / 4);
            });
    });
}

void integrate_avx512(const Setup& s, State& st, bool forces) {
    if (forces) integrate4<true>(s, st);
    else integrate4<false>(s, st);
}

void link_batches16_avx512(Float4* p, const uint32_t* packed, uint32_t count, bool uniform) {
    unsigned char* base = reinterpret_cast<unsigned char*>(p);
    if (uniform) batches16<true>(base, packed, count);
    else batches16<false>(base, packed, count);
}

}  // namespace drape::solver

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC diagnostic pop
#pragma GCC pop_options
#endif

#else  // no AVX-512 path on this compiler/target

namespace drape::solver {
bool has_avx512() { return false; }
void link_batches16_avx512(Float4*, const uint32_t*, uint32_t, bool) {}
void integrate_avx512(const Setup&, State&, bool) {}
void collide_groups_avx512(const Setup&, State&, uint32_t, uint32_t) {}
}  // namespace drape::solver

#endif
