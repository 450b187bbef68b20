// drape solver: eight links at a time with AVX2 (256-bit lanes), chosen at run time by cpuid
// (sixteen-lane batches run as two halves), and the Verlet step two particles at a time.
// The same link_kernel as the scalar and SSE2 paths: only correctly rounded operations, no FMA
// (the target is "avx2" without "fma", and the runtime compiles with -ffp-contract=off), so the
// bits equal theirs.
//
// links_avx2_evex.cpp compiles this file once more with DRAPE_WIDE_EVEX: the same kernels for
// AVX-512VL, still on 256-bit registers, but with the 32 registers EVEX encoding gives where
// AVX2 has 16 (a bend item's four particles, weights and inverse masses alone are 24 registers:
// the AVX2 build spills them; c2030's whole step is about 5% faster). Its functions are in
// namespace evex, these in namespace avx2; step.cpp takes the evex ones where sixteen lanes are
// allowed.
#include "solver/lanes.h"  // before the target pragma: its SSE2 functions must not become AVX ones (ODR)
#include "solver/solver.h"

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define DRAPE_SOLVER_AVX2 1
#if defined(DRAPE_WIDE_EVEX)
#define DRAPE_WIDE_NS evex
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx,avx2,avx512f,avx512vl"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx,avx2,avx512f,avx512vl")
#endif
#else
#define DRAPE_WIDE_NS avx2
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx,avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx,avx2")
#endif
#endif
#include <immintrin.h>

#include "solver/lanes_avx2.h"  // inside the target region: its functions are AVX2 code
#include "solver/bend_kernel.h"
#include "solver/collide_kernel.h"
#include "solver/link_kernel.h"
#include "solver/local_range_kernel.h"

namespace drape::solver::lanes {
inline namespace DRAPE_WIDE_NS {

inline __m256 load_pair(const Float4* lo, const Float4* hi) {
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(&lo->x)), _mm_load_ps(&hi->x), 1);
}
// Four floats in both halves.
inline __m256 load_twice(const float* a) { return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(a)), _mm_loadu_ps(a), 1); }
inline void store_pair(Float4* lo, Float4* hi, __m256 v) {
    _mm_store_ps(&lo->x, _mm256_castps256_ps128(v));
    _mm_store_ps(&hi->x, _mm256_extractf128_ps(v, 1));
}

}  // namespace DRAPE_WIDE_NS
}  // namespace drape::solver::lanes

namespace drape::solver {

#if defined(DRAPE_WIDE_EVEX)
bool has_avx512vl() {
    static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
    return yes;
}
#else
bool has_avx2() {
    static const bool yes = __builtin_cpu_supports("avx2");
    return yes;
}
#endif

namespace DRAPE_WIDE_NS {
namespace {

inline __m256 load_pair_at(const unsigned char* base, uint32_t lo, uint32_t hi) {
    return lanes::load_pair(reinterpret_cast<const Float4*>(base + lo), reinterpret_cast<const Float4*>(base + hi));
}
inline void store_pair_at(unsigned char* base, uint32_t lo, uint32_t hi, __m256 v) {
    lanes::store_pair(reinterpret_cast<Float4*>(base + lo), reinterpret_cast<Float4*>(base + hi), v);
}

// Eight links of a packed batch whose fields are `Stride` words apart (8: an eight-lane batch;
// 16: one half of a sixteen-lane batch). `rec` points at the lanes' first a-offset word.
template <bool Uniform, uint32_t Stride>
inline void batch8(unsigned char* base, const uint32_t* rec) {
    using namespace lanes;
    const uint32_t* ia = rec;
    const uint32_t* ib = rec + Stride;
    __m256 a0 = load_pair_at(base, ia[0], ia[4]), a1 = load_pair_at(base, ia[1], ia[5]);
    __m256 a2 = load_pair_at(base, ia[2], ia[6]), a3 = load_pair_at(base, ia[3], ia[7]);
    __m256 b0 = load_pair_at(base, ib[0], ib[4]), b1 = load_pair_at(base, ib[1], ib[5]);
    __m256 b2 = load_pair_at(base, ib[2], ib[6]), b3 = load_pair_at(base, ib[3], ib[7]);
    transpose8(a0, a1, a2, a3);
    transpose8(b0, b1, b2, b3);
    F8 ax{a0}, ay{a1}, az{a2}, bx{b0}, by{b1}, bz{b2};
    const float* f = reinterpret_cast<const float*>(rec + 2 * Stride);
    if constexpr (Uniform) {
        link_kernel_uniform<F8, M8>(ax, ay, az, bx, by, bz, F8{_mm256_loadu_ps(f)}, F8{_mm256_loadu_ps(f + Stride)},
                                    F8{_mm256_loadu_ps(f + 2 * Stride)}, F8{_mm256_loadu_ps(f + 3 * Stride)},
                                    F8{_mm256_setzero_ps()});
    } else {
        link_kernel<F8, M8>(ax, ay, az, bx, by, bz, F8{_mm256_loadu_ps(f)}, F8{_mm256_loadu_ps(f + Stride)},
                            F8{_mm256_loadu_ps(f + 2 * Stride)}, F8{_mm256_loadu_ps(f + 3 * Stride)},
                            F8{_mm256_loadu_ps(f + 4 * Stride)}, F8{_mm256_loadu_ps(f + 5 * Stride)}, F8{_mm256_setzero_ps()});
    }
    a0 = ax.v; a1 = ay.v; a2 = az.v;
    b0 = bx.v; b1 = by.v; b2 = bz.v;
    transpose8(a0, a1, a2, a3);
    transpose8(b0, b1, b2, b3);
    store_pair_at(base, ia[0], ia[4], a0); store_pair_at(base, ia[1], ia[5], a1);
    store_pair_at(base, ia[2], ia[6], a2); store_pair_at(base, ia[3], ia[7], a3);
    store_pair_at(base, ib[0], ib[4], b0); store_pair_at(base, ib[1], ib[5], b1);
    store_pair_at(base, ib[2], ib[6], b2); store_pair_at(base, ib[3], ib[7], b3);
}

// Batches of width `Width` (8, or 16 run as two halves; the links of a batch commute) of a
// packed stream (solver.h LinkSchedule::packed).
template <bool Uniform, uint32_t Width>
void batches(unsigned char* base, const uint32_t* rec, uint32_t count) {
    constexpr uint32_t words = Width * (Uniform ? 6 : 8);
    for (uint32_t n = 0; n < count; ++n, rec += words)
        for (uint32_t half = 0; half < Width; half += 8) batch8<Uniform, Width>(base, rec + half);
}

// Verlet as step.cpp integrate_particles states it, two particles per vector (a particle's four
// lanes in each half): per lane the same operations in the same order, so the same bits.
template <bool Forces>
void integrate_pairs(const Setup& s, State& st, uint32_t pairs) {
    const __m256 damping = _mm256_set1_ps(st.damping), h2 = _mm256_set1_ps(st.substep_length * st.substep_length);
    const __m256 g = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(&s.gravity.x));
    // Lanes x, y, z of each half take their particle's dynamic-mask word, w a zero word (w is kept).
    const __m256i spread_xyz = _mm256_setr_epi32(0, 0, 0, 2, 1, 1, 1, 2);
    const __m256i spread_all = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
    float* const p = &st.positions[0].x;
    float* const q = &st.previous_positions[0].x;
    const float* const force = Forces ? &st.forces[0].x : nullptr;
    for (uint32_t k = 0; k < pairs; ++k) {
        const __m256 pk = _mm256_loadu_ps(p + 8 * k), qk = _mm256_loadu_ps(q + 8 * k);
        const __m256 v = _mm256_mul_ps(_mm256_sub_ps(pk, qk), damping);
        __m256 a = g;
        if constexpr (Forces) {
            const __m256i im = _mm256_castsi128_si256(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s.inv_mass + 2 * k)));
            const __m256 inv_mass = _mm256_permutevar8x32_ps(_mm256_castsi256_ps(im), spread_all);
            a = _mm256_add_ps(g, _mm256_mul_ps(_mm256_loadu_ps(force + 8 * k), inv_mass));
        }
        const __m256 np = _mm256_add_ps(_mm256_add_ps(pk, v), _mm256_mul_ps(a, h2));
        _mm256_storeu_ps(q + 8 * k, pk);
        const __m256i dyn = _mm256_castsi128_si256(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s.dynamic_mask + 2 * k)));
        const __m256 keep_new = _mm256_permutevar8x32_ps(_mm256_castsi256_ps(dyn), spread_xyz);  // ~0u or 0 per lane
        _mm256_storeu_ps(p + 8 * k, _mm256_blendv_ps(pk, np, keep_new));
    }
}

}  // namespace

void link_batches_avx2(Float4* p, const uint32_t* packed, uint32_t count, uint32_t width, bool uniform) {
    unsigned char* base = reinterpret_cast<unsigned char*>(p);
    if (width == 16) {
        if (uniform) batches<true, 16>(base, packed, count);
        else batches<false, 16>(base, packed, count);
    } else {
        if (uniform) batches<true, 8>(base, packed, count);
        else batches<false, 8>(base, packed, count);
    }
}

// Items j..j+7 one per lane (two four-item batches of one level: no particle shared, none named
// twice): bend_kernel as bend_four runs it, the rows of item k and k + 4 in one register's halves.
void bend_eight_avx2(const BendStiffnessSet& b, const Setup&, Float4* p, uint32_t j) {
    using namespace lanes;
    const uint32_t* i = b.particles + 4 * j;  // item k, particle q: i[4 * k + q]
    F8 x[4], y[4], z[4], w[4], im_of[4];
    __m256 pw[4];
    for (int q = 0; q < 4; ++q) {
        __m256 r0 = load_pair(p + i[q], p + i[16 + q]), r1 = load_pair(p + i[4 + q], p + i[20 + q]);
        __m256 r2 = load_pair(p + i[8 + q], p + i[24 + q]), r3 = load_pair(p + i[12 + q], p + i[28 + q]);
        transpose8(r0, r1, r2, r3);
        x[q].v = r0, y[q].v = r1, z[q].v = r2, pw[q] = r3;
        // Items j..j+3 in the low half, j+4..j+7 in the high half: the two batches' lanes.
        const float* bw = b.batch_weights + 4 * size_t(j) + 4 * q;
        const float* bm = b.batch_inv_mass + 4 * size_t(j) + 4 * q;
        w[q].v = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(bw)), _mm_loadu_ps(bw + 16), 1);
        im_of[q].v = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(bm)), _mm_loadu_ps(bm + 16), 1);
    }
    if (!bend_kernel<F8, M8>(x, y, z, w, im_of, F8{_mm256_loadu_ps(b.inv_mass_sum + j)}, F8{_mm256_loadu_ps(b.stiffness + j)},
                             F8{_mm256_loadu_ps(b.rest_curvature + j)}))
        return;
    for (int q = 0; q < 4; ++q) {
        __m256 r0 = x[q].v, r1 = y[q].v, r2 = z[q].v, r3 = pw[q];
        transpose8(r0, r1, r2, r3);
        store_pair(p + i[q], p + i[16 + q], r0), store_pair(p + i[4 + q], p + i[20 + q], r1);
        store_pair(p + i[8 + q], p + i[24 + q], r2), store_pair(p + i[12 + q], p + i[28 + q], r3);
    }
}

// Entries j..j+7 one per lane (the set names each particle once): local_range_kernel as
// local_range_four runs it, entries k and k + 4 in one register's halves.
void local_range_eight_avx2(const LocalRangeSet& r, const Setup& s, Float4* p, const Float4* ref, const Float4* nrm, uint32_t j) {
    using namespace lanes;
    const uint32_t* i = r.particle + j;
    const uint32_t* v = r.vertex + j;
    auto rows = [](const Float4* base, const uint32_t* at, __m256& x, __m256& y, __m256& z, __m256& w) {
        x = load_pair(base + at[0], base + at[4]), y = load_pair(base + at[1], base + at[5]);
        z = load_pair(base + at[2], base + at[6]), w = load_pair(base + at[3], base + at[7]);
        transpose8(x, y, z, w);
    };
    __m256 px, py, pz, pw, cx, cy, cz, cw, nx, ny, nz, nw;
    rows(p, i, px, py, pz, pw);
    rows(ref, v, cx, cy, cz, cw);
    if (nrm) rows(nrm, v, nx, ny, nz, nw);
    else nx = ny = nz = _mm256_setzero_ps();
    const bool band = r.apply_normal_component && nrm;
    const F8 hi{band ? _mm256_loadu_ps(r.max_normal_distance + j) : nx}, lo{band ? _mm256_loadu_ps(r.min_normal_distance + j) : nx};
    F8 tx, ty, tz;
    local_range_kernel<F8, M8>(F8{px}, F8{py}, F8{pz}, F8{cx}, F8{cy}, F8{cz}, F8{nx}, F8{ny}, F8{nz}, nrm != nullptr,
                               r.apply_normal_component, hi, lo, F8{_mm256_loadu_ps(r.maximum_distance + j)}, r.shape_type, r.stiffness, tx, ty, tz);
    const uint32_t* dyn = s.dynamic_mask;
    const __m256 live = _mm256_castsi256_ps(
        _mm256_setr_epi32(int(dyn[i[0]]), int(dyn[i[1]]), int(dyn[i[2]]), int(dyn[i[3]]), int(dyn[i[4]]), int(dyn[i[5]]), int(dyn[i[6]]), int(dyn[i[7]])));
    __m256 x = _mm256_blendv_ps(px, tx.v, live), y = _mm256_blendv_ps(py, ty.v, live), z = _mm256_blendv_ps(pz, tz.v, live), w = pw;
    transpose8(x, y, z, w);
    store_pair(p + i[0], p + i[4], x), store_pair(p + i[1], p + i[5], y);
    store_pair(p + i[2], p + i[6], z), store_pair(p + i[3], p + i[7], w);
}

namespace {

// lanes_on (collide_kernel.h) for particles i..i+7 at once, in a register; with Half for i..i+3,
// the upper lanes off (the masks past i + 3 may lie beyond the arrays). Kept in registers: lane
// masks stored in halves and read back as one vector would wait for the stores each time (a
// failed store-to-load forward: a tenth of the collision's time on the corpus's hair).
template <bool Half>
DRAPE_COLLIDE_INLINE __m256i lanes_on8(const Setup& s, uint32_t i, bool all, uint32_t bit) {
    __m256i dyn, cm;
    if (Half) {
        dyn = _mm256_inserti128_si256(_mm256_setzero_si256(), _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.dynamic_mask + i)), 0);
        cm = _mm256_inserti128_si256(_mm256_setzero_si256(), _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.collision_mask + i)), 0);
    } else {
        dyn = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s.dynamic_mask + i));
        cm = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s.collision_mask + i));
    }
    if (all) return dyn;
    const __m256i off = _mm256_cmpeq_epi32(_mm256_and_si256(cm, _mm256_set1_epi32(int(bit))), _mm256_setzero_si256());
    return _mm256_andnot_si256(off, dyn);
}

// Particles i..i+7 against the chunk's slots `cand`, entries i..i+3 and i+4..i+7 in one register's
// halves: collide_group (collide_kernel.h) with eight lanes, each lane the same expressions. With
// Half, particles i..i+3 only: the upper lanes repeat them, take no part, and are not stored.
template <bool Half>
DRAPE_COLLIDE_INLINE void collide_group8(const Setup& s, Float4* p, Float4* q, const CollisionChunk<F8>& ch, uint32_t i, uint32_t cand) {
    using namespace lanes;
    const uint32_t hi = Half ? i : i + 4;
    __m256 r0 = load_pair(p + i, p + hi), r1 = load_pair(p + i + 1, p + hi + 1), r2 = load_pair(p + i + 2, p + hi + 2), r3 = load_pair(p + i + 3, p + hi + 3);
    transpose8(r0, r1, r2, r3);
    F8 px{r0}, py{r1}, pz{r2}, qx{}, qy{}, qz{};
    const __m256 pw = r3;
    __m256 qw = _mm256_setzero_ps();
    bool have_q = false;  // previous positions are transposed when a lane passes a box
    bool moved = false;
    for (; cand != 0; cand &= cand - 1) {
        const uint32_t c = uint32_t(std::countr_zero(cand));
        const ShapeLanes<F8>& b = ch.w[c];
        M8 in_box{};
        if (b.has_box) {
            in_box = in_box_lanes<F8, M8>(b, px, py, pz);
            if (!any(in_box)) continue;
        }
        const __m256i on = lanes_on8<Half>(s, i, ch.all[c], ch.bits[c]);
        if (_mm256_testz_si256(on, on)) continue;
        M8 active{_mm256_castsi256_ps(on)};
        if (!narrow_lanes<F8, M8>(b, px, py, pz, in_box, active)) continue;
        if (!have_q) {
            __m256 t0 = load_pair(q + i, q + hi), t1 = load_pair(q + i + 1, q + hi + 1), t2 = load_pair(q + i + 2, q + hi + 2), t3 = load_pair(q + i + 3, q + hi + 3);
            transpose8(t0, t1, t2, t3);
            qx.v = t0, qy.v = t1, qz.v = t2, qw = t3;
            have_q = true;
        }
        const F8 radius{Half ? load_twice(s.radius + i) : _mm256_loadu_ps(s.radius + i)};
        const F8 friction{Half ? load_twice(s.friction + i) : _mm256_loadu_ps(s.friction + i)};
        moved |= collide_lanes<F8, M8, Contact::game>(b, px, py, pz, qx, qy, qz, radius, friction, active);
    }
    if (!moved) return;  // nothing inside: the particles are as they were
    auto put = [&](Float4* base, __m256 x, __m256 y, __m256 z, __m256 w) {
        transpose8(x, y, z, w);
        const __m256 rows[4] = {x, y, z, w};
        for (uint32_t k = 0; k < 4; ++k) {
            _mm_store_ps(&base[i + k].x, _mm256_castps256_ps128(rows[k]));
            if (!Half) _mm_store_ps(&base[i + 4 + k].x, _mm256_extractf128_ps(rows[k], 1));
        }
    };
    put(p, px.v, py.v, pz.v, pw);
    put(q, qx.v, qy.v, qz.v, qw);
}

}  // namespace

void collide_groups_avx2(const Setup& s, State& st, uint32_t first, uint32_t end) {
    Float4* p = st.positions;
    Float4* q = st.previous_positions;
    for_each_chunk<F8>(s, st, first, end, [&](const CollisionChunk<F8>& ch, uint32_t every) {
        scan_blocks(
            s, p, ch, every,
            [&](uint32_t i, uint32_t cand) {
                collide_group8<false>(s, p, q, ch, i, cand);
                collide_group8<false>(s, p, q, ch, i + 8, cand);
            },
            [&](uint32_t i) {
                for (; i + 8 <= s.padded_count; i += 8) collide_group8<false>(s, p, q, ch, i, every);
                if (i < s.padded_count) collide_group8<true>(s, p, q, ch, i, every);
            });
    });
}

uint32_t integrate_avx2(const Setup& s, State& st, bool forces) {
    const uint32_t pairs = s.particle_count / 2;
    if (forces) integrate_pairs<true>(s, st, pairs);
    else integrate_pairs<false>(s, st, pairs);
    return 2 * pairs;
}

}  // namespace DRAPE_WIDE_NS
}  // namespace drape::solver

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else  // no AVX2 path on this compiler/target

namespace drape::solver {
#if defined(DRAPE_WIDE_EVEX)
bool has_avx512vl() { return false; }
namespace evex {
#else
bool has_avx2() { return false; }
namespace avx2 {
#endif
void link_batches_avx2(Float4*, const uint32_t*, uint32_t, uint32_t, bool) {}
uint32_t integrate_avx2(const Setup&, State&, bool) { return 0; }
void bend_eight_avx2(const BendStiffnessSet&, const Setup&, Float4*, uint32_t) {}
void local_range_eight_avx2(const LocalRangeSet&, const Setup&, Float4*, const Float4*, const Float4*, uint32_t) {}
void collide_groups_avx2(const Setup&, State&, uint32_t, uint32_t) {}
}  // namespace avx2 / evex
}  // namespace drape::solver

#endif
