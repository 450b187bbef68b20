// Prototype (issue 11 "Speed", seventh session): is the AVX2 link batch bound by the shuffle
// port, and what do the ways around it give? Built by the release and bench builds
// (bench/CMakeLists.txt, target shuffle_port_links_prototype) so it keeps compiling against the
// solver; not run by `make bench`. Run it by hand (AVX2 machine):
//   ninja -C build/release shuffle_port_links_prototype
//   build/release/bench/shuffle_port_links_prototype [rounds, 40] [passes per round, 20]
//   build/release/bench/shuffle_port_links_prototype ports
// `ports`: the throughput of single instructions (twelve independent copies per iteration) in
// cycles of the same run's clock: one per cycle means one port, two per cycle two ports. On
// this VM (Sapphire Rapids): vunpcklps, vunpckhpd, vpermilps imm, vinsertf128 reg and vpermps
// one per cycle (port 5 alone); vshufps, vaddps and vmulps two; vblendps three; vblendvps one.
//
// What it compares, on the 32 x 32 grid's 5,826 links (one link pass of the runtime's schedule:
// 727 eight-lane batches, 5 four-lane, 1 single; thread CPU time; variants interleaved round by
// round; medians of the per-round ratios to `unpck`):
//   unpck     the eight-lane batch as main had it before this session: transpose8 by vunpcklps /
//             vunpckhps / vunpcklpd / vunpckhpd (32 shuffles per batch, all on port 5 on Golden
//             Cove / Sapphire Rapids);
//   shufps    the same data flow, transpose8 by vshufps only (ports 1 and 5 there; the solver's
//             transpose8, solver/lanes_avx2.h);
//   pairs     the links computed in the particles' own layout: each ymm holds the particles of
//             links k and k+4, d = b - a and d*d per pair, only the squares transposed (7
//             vshufps) to form (xx+yy)+zz, the square root and divide once per eight links, the
//             factors put back per pair by one vshufps each (8), the moves in place with the w
//             lane restored by an immediate blend: 15 shuffles per batch instead of 32;
//   pipelined the shufps batch cut in two, the front (loads, transpose, d, length, square root,
//             divide, factors) of batch n+1 issued before the back (moves, transpose, stores) of
//             batch n (a new run starts at each of the 14 batches that read the one before);
//   runtime   the runtime's own eight-lane loop (links_avx2.cpp link_batches_avx2: the shufps batch);
//   no_transpose  ablation: `unpck` without its four transposes (the lanes compute on the rows as
//             loaded: the bits are wrong, only the time counts);
//   no_divsqrt    ablation: `unpck` with multiplies for the square root and the divide;
//   move_only / loads_only / stores_only  ablations: the sixteen particle loads and stores only;
//             the loads and the arithmetic without the stores (`no_transpose` minus its stores);
//             the sixteen stores of a constant row only (offsets still loaded).
// Streams (the same rounds): `schedule` the runtime's; `independent` and `scattered` the same
// batches with offsets rewritten so that no batch shares a particle with the 63 before it
// (particles in order: four cache lines per side; or in a random order: sixteen, as the
// schedule's); `l1_stream` the first 64 batches' 12 KB of stream run over and over (the pass's
// own stream is 140 KB, more than the 48 KB L1). A clock in the same run (a dependent-multiply
// chain) turns ns into cycles; the VM's throughput drifts 1.5-2.7x between runs while that
// chain does not, so compare cells of one run only.
// Every variant but the ablations is checked bit for bit against the sequential loop in file order.
#include <immintrin.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "solver/grid_workload.h"
#include "solver/lanes.h"
#include "solver/lanes_avx2.h"
#include "solver/link_kernel.h"
#include "solver/solver.h"
#include "prototype_common.h"

using namespace drape::solver;
using namespace drape::solver::lanes;
using drape::solver::prototype::cpu_seconds;
using drape::solver::prototype::link_scalar;

namespace {

inline __m256 load_pair_at(const unsigned char* base, uint32_t lo, uint32_t hi) {
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(reinterpret_cast<const float*>(base + lo))),
                                _mm_load_ps(reinterpret_cast<const float*>(base + hi)), 1);
}
inline void store_pair_at(unsigned char* base, uint32_t lo, uint32_t hi, __m256 v) {
    _mm_store_ps(reinterpret_cast<float*>(base + lo), _mm256_castps256_ps128(v));
    _mm_store_ps(reinterpret_cast<float*>(base + hi), _mm256_extractf128_ps(v, 1));
}

// Main's transpose before this session (unpck: port 5 only on this core).
inline void transpose8_unpck(__m256& r0, __m256& r1, __m256& r2, __m256& r3) {
    const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpacklo_ps(r2, r3);
    const __m256 t2 = _mm256_unpackhi_ps(r0, r1), t3 = _mm256_unpackhi_ps(r2, r3);
    r0 = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(t0), _mm256_castps_pd(t1)));
    r1 = _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(t0), _mm256_castps_pd(t1)));
    r2 = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(t2), _mm256_castps_pd(t3)));
    r3 = _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(t2), _mm256_castps_pd(t3)));
}

enum Variant { v_unpck, v_shufps, v_pairs, v_pipelined, v_runtime, v_no_transpose, v_no_divsqrt, v_move_only, v_loads_only, v_stores_only, variants };
const char* const kNames[variants] = {"unpck", "shufps", "pairs", "pipelined", "runtime", "no_transpose", "no_divsqrt", "move_only", "loads_only", "stores_only"};

// A clock in the same run: 1,000 dependent 64-bit multiplies (three cycles each on Intel cores
// since Sandy Bridge; adds of an immediate are no clock: Golden Cove folds them at rename) take 3,000 cycles.
double ns_per_cycle() {
    uint64_t x = 3;
    const double t0 = cpu_seconds();
    for (int i = 0; i < 100000; ++i) {
        asm volatile(".rept 1000\n\timulq %0, %0\n\t.endr" : "+r"(x));
    }
    return (cpu_seconds() - t0) * 1e9 / (100000.0 * 3000.0);
}

// Uniform eight-lane batch, fields 8 words apart (solver.h LinkSchedule::packed).
template <Variant V>
inline void batch8(unsigned char* base, const uint32_t* rec) {
    const uint32_t* ia = rec;
    const uint32_t* ib = rec + 8;
    const float* f = reinterpret_cast<const float*>(rec + 16);
    if constexpr (V == v_stores_only) {  // ablation: the sixteen stores of constant rows (the offsets loaded)
        const __m256 c = _mm256_loadu_ps(f + 8);
        store_pair_at(base, ia[0], ia[4], c), store_pair_at(base, ia[1], ia[5], c);
        store_pair_at(base, ia[2], ia[6], c), store_pair_at(base, ia[3], ia[7], c);
        store_pair_at(base, ib[0], ib[4], c), store_pair_at(base, ib[1], ib[5], c);
        store_pair_at(base, ib[2], ib[6], c), store_pair_at(base, ib[3], ib[7], c);
        return;
    }
    __m256 a0 = load_pair_at(base, ia[0], ia[4]), a1 = load_pair_at(base, ia[1], ia[5]);
    __m256 a2 = load_pair_at(base, ia[2], ia[6]), a3 = load_pair_at(base, ia[3], ia[7]);
    __m256 b0 = load_pair_at(base, ib[0], ib[4]), b1 = load_pair_at(base, ib[1], ib[5]);
    __m256 b2 = load_pair_at(base, ib[2], ib[6]), b3 = load_pair_at(base, ib[3], ib[7]);
    if constexpr (V == v_pairs) {
        // Row k holds [particle of link k | particle of link k+4], so lanes 0-3 and 4-7 of the
        // transposed squares are links 0-3 and 4-7: the packed fields' lane order.
        const __m256 d0 = _mm256_sub_ps(b0, a0), d1 = _mm256_sub_ps(b1, a1), d2 = _mm256_sub_ps(b2, a2),
                     d3 = _mm256_sub_ps(b3, a3);
        const __m256 s0 = _mm256_mul_ps(d0, d0), s1 = _mm256_mul_ps(d1, d1), s2 = _mm256_mul_ps(d2, d2),
                     s3 = _mm256_mul_ps(d3, d3);
        const __m256 t0 = _mm256_shuffle_ps(s0, s1, 0x44), t1 = _mm256_shuffle_ps(s2, s3, 0x44);
        const __m256 t2 = _mm256_shuffle_ps(s0, s1, 0xEE), t3 = _mm256_shuffle_ps(s2, s3, 0xEE);
        const F8 xx{_mm256_shuffle_ps(t0, t1, 0x88)}, yy{_mm256_shuffle_ps(t0, t1, 0xDD)}, zz{_mm256_shuffle_ps(t2, t3, 0x88)};
        const F8 len2 = (xx + yy) + zz;  // link_kernel_uniform's (dx*dx + dy*dy) + dz*dz
        const F8 len = vsqrt(len2), zero{_mm256_setzero_ps()};
        const F8 rest{_mm256_loadu_ps(f)}, k{_mm256_loadu_ps(f + 8)}, w_a{_mm256_loadu_ps(f + 16)}, w_b{_mm256_loadu_ps(f + 24)};
        const F8 fl = select(gt(len, zero), ((len - rest) / len) * k, zero);
        const __m256 fa = (fl * w_a).v, fb = (fl * w_b).v;
        // Pair k: the factors of links k and k+4 in every lane of their halves; a + d*fa, b - d*fb; w kept.
        a0 = _mm256_blend_ps(a0, _mm256_add_ps(a0, _mm256_mul_ps(d0, _mm256_shuffle_ps(fa, fa, 0x00))), 0x77);
        a1 = _mm256_blend_ps(a1, _mm256_add_ps(a1, _mm256_mul_ps(d1, _mm256_shuffle_ps(fa, fa, 0x55))), 0x77);
        a2 = _mm256_blend_ps(a2, _mm256_add_ps(a2, _mm256_mul_ps(d2, _mm256_shuffle_ps(fa, fa, 0xAA))), 0x77);
        a3 = _mm256_blend_ps(a3, _mm256_add_ps(a3, _mm256_mul_ps(d3, _mm256_shuffle_ps(fa, fa, 0xFF))), 0x77);
        b0 = _mm256_blend_ps(b0, _mm256_sub_ps(b0, _mm256_mul_ps(d0, _mm256_shuffle_ps(fb, fb, 0x00))), 0x77);
        b1 = _mm256_blend_ps(b1, _mm256_sub_ps(b1, _mm256_mul_ps(d1, _mm256_shuffle_ps(fb, fb, 0x55))), 0x77);
        b2 = _mm256_blend_ps(b2, _mm256_sub_ps(b2, _mm256_mul_ps(d2, _mm256_shuffle_ps(fb, fb, 0xAA))), 0x77);
        b3 = _mm256_blend_ps(b3, _mm256_sub_ps(b3, _mm256_mul_ps(d3, _mm256_shuffle_ps(fb, fb, 0xFF))), 0x77);
    } else if constexpr (V == v_move_only) {  // ablation: loads, stores and the field loads only
        const __m256 k = _mm256_loadu_ps(f + 8);
        a0 = _mm256_or_ps(a0, _mm256_and_ps(k, _mm256_setzero_ps()));  // keep the field load alive, bits unchanged
    } else if constexpr (V == v_no_divsqrt) {  // ablation: unpck's batch with multiplies for the square root and divide
        transpose8_unpck(a0, a1, a2, a3), transpose8_unpck(b0, b1, b2, b3);
        const F8 dx = F8{b0} - F8{a0}, dy = F8{b1} - F8{a1}, dz = F8{b2} - F8{a2};
        const F8 len2 = (dx * dx + dy * dy) + dz * dz, len = len2 * len2, zero{_mm256_setzero_ps()};
        const F8 rest{_mm256_loadu_ps(f)}, k{_mm256_loadu_ps(f + 8)}, w_a{_mm256_loadu_ps(f + 16)}, w_b{_mm256_loadu_ps(f + 24)};
        const F8 fl = select(gt(len, zero), ((len - rest) * len) * k, zero);
        F8 ax{a0}, ay{a1}, az{a2}, bx{b0}, by{b1}, bz{b2};
        move_link_ends(ax, ay, az, bx, by, bz, dx, dy, dz, fl, w_a, w_b);
        a0 = ax.v, a1 = ay.v, a2 = az.v, b0 = bx.v, b1 = by.v, b2 = bz.v;
        transpose8_unpck(a0, a1, a2, a3), transpose8_unpck(b0, b1, b2, b3);
    } else {
        if constexpr (V == v_unpck) transpose8_unpck(a0, a1, a2, a3), transpose8_unpck(b0, b1, b2, b3);
        if constexpr (V == v_shufps || V == v_pipelined) transpose8(a0, a1, a2, a3), transpose8(b0, b1, b2, b3);
        F8 ax{a0}, ay{a1}, az{a2}, bx{b0}, by{b1}, bz{b2};
        link_kernel_uniform<F8, M8>(ax, ay, az, bx, by, bz, F8{_mm256_loadu_ps(f)}, F8{_mm256_loadu_ps(f + 8)},
                                    F8{_mm256_loadu_ps(f + 16)}, F8{_mm256_loadu_ps(f + 24)}, F8{_mm256_setzero_ps()});
        a0 = ax.v, a1 = ay.v, a2 = az.v, b0 = bx.v, b1 = by.v, b2 = bz.v;
        if constexpr (V == v_unpck) transpose8_unpck(a0, a1, a2, a3), transpose8_unpck(b0, b1, b2, b3);
        if constexpr (V == v_shufps || V == v_pipelined) transpose8(a0, a1, a2, a3), transpose8(b0, b1, b2, b3);
    }
    if constexpr (V == v_loads_only) {  // ablation: the sixteen loads, one store of their sum
        const __m256 sum = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                                         _mm256_add_ps(_mm256_add_ps(b0, b1), _mm256_add_ps(b2, b3)));
        _mm256_storeu_ps(reinterpret_cast<float*>(base) + 4 * 1024, sum);  // the spare slots past the grid
        return;
    }
    store_pair_at(base, ia[0], ia[4], a0), store_pair_at(base, ia[1], ia[5], a1);
    store_pair_at(base, ia[2], ia[6], a2), store_pair_at(base, ia[3], ia[7], a3);
    store_pair_at(base, ib[0], ib[4], b0), store_pair_at(base, ib[1], ib[5], b1);
    store_pair_at(base, ib[2], ib[6], b2), store_pair_at(base, ib[3], ib[7], b3);
}

// `pipelined`: the shufps batch cut in two, the front (loads, transpose, d, length, square root,
// divide, the factors) of batch n+1 issued before the back (moves, transpose, stores) of batch n,
// so the long chain of n+1 starts while n's moves wait less in the scheduler. Valid only on runs
// where no batch shares a particle with the one before it (pass() cuts the runs so).
struct Front {
    __m256 ax, ay, az, aw, bx, by, bz, bw, dx, dy, dz, fa, fb;
};
inline Front front(const unsigned char* base, const uint32_t* rec) {
    const uint32_t* ia = rec;
    const uint32_t* ib = rec + 8;
    const float* f = reinterpret_cast<const float*>(rec + 16);
    Front s;
    s.ax = load_pair_at(base, ia[0], ia[4]), s.ay = load_pair_at(base, ia[1], ia[5]);
    s.az = load_pair_at(base, ia[2], ia[6]), s.aw = load_pair_at(base, ia[3], ia[7]);
    s.bx = load_pair_at(base, ib[0], ib[4]), s.by = load_pair_at(base, ib[1], ib[5]);
    s.bz = load_pair_at(base, ib[2], ib[6]), s.bw = load_pair_at(base, ib[3], ib[7]);
    transpose8(s.ax, s.ay, s.az, s.aw), transpose8(s.bx, s.by, s.bz, s.bw);
    const F8 dx = F8{s.bx} - F8{s.ax}, dy = F8{s.by} - F8{s.ay}, dz = F8{s.bz} - F8{s.az};
    const F8 len = vsqrt((dx * dx + dy * dy) + dz * dz), zero{_mm256_setzero_ps()};
    const F8 fl = select(gt(len, zero), ((len - F8{_mm256_loadu_ps(f)}) / len) * F8{_mm256_loadu_ps(f + 8)}, zero);
    s.dx = dx.v, s.dy = dy.v, s.dz = dz.v;
    s.fa = (fl * F8{_mm256_loadu_ps(f + 16)}).v, s.fb = (fl * F8{_mm256_loadu_ps(f + 24)}).v;
    return s;
}
inline void back(unsigned char* base, const uint32_t* rec, const Front& s) {
    const uint32_t* ia = rec;
    const uint32_t* ib = rec + 8;
    const F8 dx{s.dx}, dy{s.dy}, dz{s.dz}, fa{s.fa}, fb{s.fb};  // move_link_ends with its products f*w done in front
    __m256 a0 = (F8{s.ax} + dx * fa).v, a1 = (F8{s.ay} + dy * fa).v, a2 = (F8{s.az} + dz * fa).v, a3 = s.aw;
    __m256 b0 = (F8{s.bx} - dx * fb).v, b1 = (F8{s.by} - dy * fb).v, b2 = (F8{s.bz} - dz * fb).v, b3 = s.bw;
    transpose8(a0, a1, a2, a3), transpose8(b0, b1, b2, b3);
    store_pair_at(base, ia[0], ia[4], a0), store_pair_at(base, ia[1], ia[5], a1);
    store_pair_at(base, ia[2], ia[6], a2), store_pair_at(base, ia[3], ia[7], a3);
    store_pair_at(base, ib[0], ib[4], b0), store_pair_at(base, ib[1], ib[5], b1);
    store_pair_at(base, ib[2], ib[6], b2), store_pair_at(base, ib[3], ib[7], b3);
}

template <Variant V>
__attribute__((noinline)) void batches(unsigned char* base, const uint32_t* rec, uint32_t count) {
    if constexpr (V == v_pipelined) {
        if (count == 0) return;
        Front cur = front(base, rec);
        for (uint32_t n = 1; n < count; ++n, rec += 48) {
            const Front next = front(base, rec + 48);
            back(base, rec, cur);
            cur = next;
        }
        back(base, rec, cur);
    } else {
        for (uint32_t n = 0; n < count; ++n, rec += 48) batch8<V>(base, rec);
    }
}

// For `pipelined`: per eight-lane batch in stream order, whether it shares a particle with the
// batch before it (14 of the grid's 727): the pipelined loop starts a new run there.
std::vector<uint8_t> g_reads_previous;

// One pass as step.cpp solve_levels<true> runs it with eight lanes; the eight-lane batches by V.
template <Variant V>
void pass(const LinkSchedule& ls, Float4* p, const uint32_t* rec) {
    unsigned char* base = reinterpret_cast<unsigned char*>(p);
    const uint32_t words = ls.packed_fields;
    uint32_t at = 0, m = 0;
    for (uint32_t l = 0; l < ls.level_count; ++l) {
        const uint32_t b8 = ls.level_batches8[l], b4 = ls.level_batches4[l];
        if (b8) {
            if constexpr (V == v_runtime) {
                link_batches_avx2(p, rec, b8, 8, true);  // the runtime's own
            } else if constexpr (V == v_pipelined) {
                uint32_t first = 0;
                for (uint32_t k = 1; k <= b8; ++k)
                    if (k == b8 || g_reads_previous[m + k]) batches<V>(base, rec + 48 * first, k - first), first = k;
            } else {
                batches<V>(base, rec, b8);
            }
            m += b8;
        }
        rec += 8 * words * b8;
        for (uint32_t b = 0; b < b4; ++b, rec += 4 * words) link_batch4_packed<true>(base, rec, 4);
        at += 8 * b8 + 4 * b4;
        for (uint32_t k = 0; k < ls.level_singles[l]; ++k, ++at) link_scalar(p, ls.links, at);
    }
}

void run(Variant v, const LinkSchedule& ls, Float4* p, const uint32_t* rec) {
    switch (v) {
        case v_unpck: pass<v_unpck>(ls, p, rec); break;
        case v_shufps: pass<v_shufps>(ls, p, rec); break;
        case v_pairs: pass<v_pairs>(ls, p, rec); break;
        case v_pipelined: pass<v_pipelined>(ls, p, rec); break;
        case v_runtime: pass<v_runtime>(ls, p, rec); break;
        case v_no_transpose: pass<v_no_transpose>(ls, p, rec); break;
        case v_no_divsqrt: pass<v_no_divsqrt>(ls, p, rec); break;
        case v_loads_only: pass<v_loads_only>(ls, p, rec); break;
        case v_stores_only: pass<v_stores_only>(ls, p, rec); break;
        default: pass<v_move_only>(ls, p, rec); break;
    }
}

// `l1_stream`: the schedule's first 64 eight-lane batches (12 KB of stream) run over and over, as
// many batches as a pass has: the same work with a stream that stays in L1 (the pass's own stream
// is 140 KB and streams through the 48 KB L1, taking particle lines with it).
template <Variant V>
__attribute__((noinline)) void looped(unsigned char* base, const uint32_t* rec, uint32_t count) {
    for (uint32_t n = 0; n < count; ++n) batch8<V>(base, rec + 48 * (n % 64));
}
void run_looped(Variant v, Float4* p, const uint32_t* rec, uint32_t count) {
    unsigned char* base = reinterpret_cast<unsigned char*>(p);
    switch (v) {
        case v_unpck: looped<v_unpck>(base, rec, count); break;
        case v_shufps: looped<v_shufps>(base, rec, count); break;
        case v_pairs: looped<v_pairs>(base, rec, count); break;
        case v_pipelined: looped<v_pipelined>(base, rec, count); break;
        case v_runtime: looped<v_pipelined>(base, rec, count); break;
        case v_no_transpose: looped<v_no_transpose>(base, rec, count); break;
        case v_no_divsqrt: looped<v_no_divsqrt>(base, rec, count); break;
        case v_loads_only: looped<v_loads_only>(base, rec, count); break;
        case v_stores_only: looped<v_stores_only>(base, rec, count); break;
        default: looped<v_move_only>(base, rec, count); break;
    }
}

#define DRAPE_R12(I) I(0) I(1) I(2) I(3) I(4) I(5) I(6) I(7) I(8) I(9) I(10) I(11)
#define DRAPE_PORT_TEST(name, ins)                                                                                                \
    double name(long n) {                                                                                                         \
        const double t0 = cpu_seconds();                                                                                          \
        for (long i = 0; i < n; ++i)                                                                                              \
            asm volatile(DRAPE_R12(ins)::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", \
                         "xmm11");                                                                                                \
        return (cpu_seconds() - t0) / double(n) / 12.0 * 1e9;                                                                     \
    }
#define UNPCKLPS(k) "vunpcklps %%ymm14, %%ymm15, %%ymm" #k "\n"
#define UNPCKHPD(k) "vunpckhpd %%ymm14, %%ymm15, %%ymm" #k "\n"
#define SHUFPS(k) "vshufps $0x44, %%ymm14, %%ymm15, %%ymm" #k "\n"
#define PERMILPS(k) "vpermilps $0x55, %%ymm15, %%ymm" #k "\n"
#define PERMPS(k) "vpermps %%ymm14, %%ymm15, %%ymm" #k "\n"
#define INSERTF128(k) "vinsertf128 $1, %%xmm14, %%ymm15, %%ymm" #k "\n"
#define ADDPS(k) "vaddps %%ymm14, %%ymm15, %%ymm" #k "\n"
#define MULPS(k) "vmulps %%ymm14, %%ymm15, %%ymm" #k "\n"
#define BLENDPS(k) "vblendps $0x88, %%ymm14, %%ymm15, %%ymm" #k "\n"
#define BLENDVPS(k) "vblendvps %%ymm13, %%ymm14, %%ymm15, %%ymm" #k "\n"
DRAPE_PORT_TEST(t_unpcklps, UNPCKLPS)
DRAPE_PORT_TEST(t_unpckhpd, UNPCKHPD)
DRAPE_PORT_TEST(t_shufps, SHUFPS)
DRAPE_PORT_TEST(t_permilps, PERMILPS)
DRAPE_PORT_TEST(t_permps, PERMPS)
DRAPE_PORT_TEST(t_insertf128, INSERTF128)
DRAPE_PORT_TEST(t_addps, ADDPS)
DRAPE_PORT_TEST(t_mulps, MULPS)
DRAPE_PORT_TEST(t_blendps, BLENDPS)
DRAPE_PORT_TEST(t_blendvps, BLENDVPS)

int ports() {
    const long n = 20000000;
    struct Row {
        const char* name;
        double (*f)(long);
    };
    const Row rows[] = {{"vunpcklps ymm", t_unpcklps}, {"vunpckhpd ymm", t_unpckhpd}, {"vshufps ymm", t_shufps},
                        {"vpermilps ymm, imm", t_permilps}, {"vpermps ymm", t_permps}, {"vinsertf128 reg", t_insertf128},
                        {"vaddps ymm", t_addps}, {"vmulps ymm", t_mulps}, {"vblendps ymm", t_blendps},
                        {"vblendvps ymm", t_blendvps}};
    for (const Row& r : rows) {
        const double c0 = ns_per_cycle(), t = r.f(n), c1 = ns_per_cycle();
        std::printf("%-20s %.2f per cycle\n", r.name, 0.5 * (c0 + c1) / t);
    }
    return 0;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "ports") == 0) return ports();
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 40, reps = argc > 2 ? std::atoi(argv[2]) : 20;
    GridWorkload grid;
    build_grid_workload(grid, 32, 0);
    grid.desc.link_batch_lanes = 8;  // the eight-lane schedule these experiments measure
    std::vector<Float4> setup_memory(setup_bytes(grid.desc) / 16 + 1);
    const Setup* setup = build_setup(grid.desc, setup_memory.data(), setup_memory.size() * 16);
    const LinkSchedule& ls = setup->link_runs[0];
    const LinkArrays& q = ls.sequential;
    const uint32_t n = q.count, P = setup->particle_count;
    if (!ls.uniform || ls.packed_fields != 6) {
        std::printf("the grid's schedule is not uniform: this prototype measures the uniform kernel only\n");
        return 1;
    }
    uint32_t b8 = 0, b4 = 0, singles = 0;
    for (uint32_t l = 0; l < ls.level_count; ++l) b8 += ls.level_batches8[l], b4 += ls.level_batches4[l], singles += ls.level_singles[l];
    std::printf("grid 32: %u links, %u eight-lane batches, %u four-lane, %u single\n", n, b8, b4, singles);

    {  // How far back a batch's inputs were produced: for each batch, the nearest earlier batch it shares a particle with.
        std::vector<int> last(setup->padded_count, -1000000);
        std::vector<uint32_t> hist(10, 0);
        uint32_t at = 0;
        int batch = 0;
        auto visit = [&](uint32_t width) {
            int nearest = 1000000;
            for (uint32_t j = 0; j < width; ++j)
                for (uint32_t p : {ls.links.a[at + j], ls.links.b[at + j]}) nearest = std::min(nearest, batch - last[p]);
            for (uint32_t j = 0; j < width; ++j)
                for (uint32_t p : {ls.links.a[at + j], ls.links.b[at + j]}) last[p] = batch;
            if (width == 8) ++hist[std::min(nearest, 9)], g_reads_previous.push_back(nearest == 1);
            at += width, ++batch;
        };
        for (uint32_t l = 0; l < ls.level_count; ++l) {
            for (uint32_t k = 0; k < ls.level_batches8[l]; ++k) visit(8);
            for (uint32_t k = 0; k < ls.level_batches4[l]; ++k) visit(4);
            for (uint32_t k = 0; k < ls.level_singles[l]; ++k) visit(1);
        }
        std::printf("eight-lane batches by the distance to the nearest batch they depend on (1..8, 9+):");
        for (uint32_t d = 1; d < 10; ++d) std::printf(" %u", hist[d]);
        std::printf("\n");
    }
    // Positions: the rest pose moved a little so every link does work; w lanes varied (kept bit for bit).
    std::vector<Float4> start(setup->padded_count + 8);  // + room for loads_only's sum
    std::srand(1);
    for (uint32_t i = 0; i < P; ++i) {
        start[i] = setup->rest_positions[i];
        start[i].x += float(std::rand() % 1000) * 1e-5f;
        start[i].y -= float(std::rand() % 1000) * 2e-5f;
        start[i].z += float(std::rand() % 1000 - 500) * 1e-5f;
        start[i].w = (i % 3 == 0) ? -0.0f : float(i) * 0.25f;
    }
    std::vector<Float4> expected = start;
    std::vector<std::vector<Float4>> pos(variants, start);
    for (int r = 0; r < 3; ++r) {
        for (uint32_t i = 0; i < n; ++i) link_scalar(expected.data(), q, i);
        for (int v = 0; v < variants; ++v) run(Variant(v), ls, pos[v].data(), ls.packed);
    }
    for (int v = 0; v < variants; ++v) {
        const bool same = std::memcmp(pos[v].data(), expected.data(), P * sizeof(Float4)) == 0;
        std::printf("%-13s bits equal to the sequential loop after 3 passes: %s%s\n", kNames[v], same ? "yes" : "NO",
                    v >= v_no_transpose ? " (ablation: not expected to)" : "");
    }

    // Three streams, timed in the same rounds: `schedule` the runtime's; `independent` the same
    // batches with their particle offsets rewritten so that no batch shares a particle with the 63
    // before it (lane j of batch m: particles 16 m + j and 16 m + 8 + j, mod 1,024: four cache
    // lines per side); `scattered` the same with the 1,024 particles in a random order (sixteen
    // lines per batch, as the schedule's). The four-lane batches and the single stay the schedule's.
    enum { s_schedule, s_independent, s_scattered, s_l1, streams };
    const char* const stream_names[streams] = {"schedule", "independent", "scattered", "l1_stream"};
    const size_t packed_words = size_t(ls.links.count) * ls.packed_fields;
    std::vector<uint32_t> stream[streams];
    for (int st = 0; st < streams; ++st) {
        stream[st].assign(ls.packed, ls.packed + packed_words);
        if (st == s_schedule) continue;
        if (st == s_l1) {  // the first 64 eight-lane batches, contiguous
            std::vector<uint32_t> first;
            const uint32_t* rec = ls.packed;
            for (uint32_t l = 0; l < ls.level_count && first.size() < 64 * 48; ++l) {
                for (uint32_t k = 0; k < ls.level_batches8[l] && first.size() < 64 * 48; ++k, rec += 48) first.insert(first.end(), rec, rec + 48);
                rec += 4 * 6 * ls.level_batches4[l];
            }
            stream[st] = first;
            continue;
        }
        std::vector<uint32_t> perm(1024);
        for (uint32_t i = 0; i < 1024; ++i) perm[i] = i;
        std::srand(7);
        if (st == s_scattered)
            for (uint32_t i = 1023; i > 0; --i) std::swap(perm[i], perm[uint32_t(std::rand()) % (i + 1)]);
        uint32_t* rec = stream[st].data();
        uint32_t m = 0;
        for (uint32_t l = 0; l < ls.level_count; ++l) {
            for (uint32_t k = 0; k < ls.level_batches8[l]; ++k, ++m, rec += 48)
                for (uint32_t j = 0; j < 8; ++j) rec[j] = 16 * perm[(16 * m + j) % 1024], rec[8 + j] = 16 * perm[(16 * m + 8 + j) % 1024];
            rec += 4 * 6 * ls.level_batches4[l];
        }
    }
    const double cycle = ns_per_cycle();
    constexpr int cells = int(variants) * int(streams);
    std::vector<double> ns[cells], ratio[cells];
    for (int r = 0; r < rounds; ++r) {
        double t[cells];
        for (int k = 0; k < cells; ++k) {
            const int c = (k + r) % cells;  // rotate the order so no cell always runs first
            const int v = c % variants, st = c / variants;
            const double t0 = cpu_seconds();
            if (st == s_l1) {
                for (int i = 0; i < reps; ++i) run_looped(Variant(v), pos[v].data(), stream[st].data(), b8);
            } else {
                for (int i = 0; i < reps; ++i) run(Variant(v), ls, pos[v].data(), stream[st].data());
            }
            t[c] = cpu_seconds() - t0;
        }
        for (int c = 0; c < cells; ++c) ns[c].push_back(t[c] / reps * 1e9), ratio[c].push_back(t[c] / t[0]);
    }
    std::printf("%d rounds of %d passes, thread CPU time, medians; ratio = per-round median of cell / (unpck, schedule):\n", rounds,
                reps);
    for (int c = 0; c < cells; ++c)
        std::printf("%-11s %-13s %8.0f ns per pass  %6.2f ns per eight-lane batch (the pass / %u)  %.3f\n",
                    stream_names[c / variants], kNames[c % variants], median(ns[c]), median(ns[c]) / b8, b8, median(ratio[c]));
    const double cycle_after = ns_per_cycle();
    std::printf("clock (dependent multiplies) before and after: %.4f and %.4f ns per cycle; (unpck, schedule) = %.1f cycles per batch\n",
                cycle, cycle_after, median(ns[0]) / b8 / (0.5 * (cycle + cycle_after)));
    return 0;
}
