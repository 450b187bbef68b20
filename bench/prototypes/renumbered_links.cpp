// Prototype (issue 11 "Speed", sixth session): does renumbering the particles once at set-up, so
// that link batches load and store contiguous structure-of-arrays runs, beat today's
// gather/transpose batches on the grid? Measured answer: no once the positions are converted into
// and out of the arrays (docs/benchmark-history.md, "Solver speed work, sixth session"). Built by
// the release and bench builds (bench/CMakeLists.txt, target renumbered_links_prototype) so it
// keeps compiling against the solver; not run by `make bench`. Run it by hand (AVX2 machine):
//   ninja -C build/release renumbered_links_prototype
//   build/release/bench/renumbered_links_prototype [linear|first_touch] [latency batches, 8] [rounds, 40] [passes per round, 20] [same_level]
//
// What it compares, on the 32 x 32 grid's 5,826 links (one link pass, thread CPU time, variants
// interleaved round by round, medians of the per-round ratios to today's pass):
//   today   runtime's packed schedule and AVX2 batches (links_avx2.cpp), as solve_levels runs them;
//   soa     particles renumbered into slots; x, y, z in three slot arrays; a window batch is up to
//           eight links of one slot offset (b - a) whose a-slots lie in eight consecutive slots
//           (so the b-slots do too): three unaligned 256-bit loads and stores per side, no
//           transpose; lanes without a link keep their loaded values (blend); links left over run
//           in gather batches (vgatherdps in, scalar stores out);
//   convert the positions copied into the slot arrays before the pass and back after it (what a
//           runtime that keeps Float4 positions in file order pays per link run);
//   aos     the same windows on Float4 positions stored in slot order (four 256-bit loads per side
//           and today's transposes, no inserts or extracts).
// Slot maps: `linear` slot = 11 i + 34 j, built from knowing it is a grid (every link kind's
// links of one dependency level lie on a line i + 3 j = const, and 34 = 3 * 11 + 1 makes a step
// along that line one slot): the best case for any renumbering; `first_touch` the general rule
// (particles sorted by the dependency level of the first link that touches them, then that
// link's file index). Windows and the list schedule over them are found from the links alone.
// Every variant's result is checked bit for bit against the sequential loop in file order.
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

// Today's pass: step.cpp solve_levels<true> with eight lanes.
void today_pass(const LinkSchedule& ls, Float4* p) {
    unsigned char* base = reinterpret_cast<unsigned char*>(p);
    const uint32_t words = ls.packed_fields;
    const uint32_t* rec = ls.packed;
    uint32_t at = 0;
    for (uint32_t l = 0; l < ls.level_count; ++l) {
        const uint32_t b8 = ls.level_batches8[l], b4 = ls.level_batches4[l];
        if (b8) link_batches_avx2(p, rec, b8, 8, true);
        rec += 8 * words * b8;
        for (uint32_t b = 0; b < b4; ++b, rec += 4 * words) link_batch4_packed<true>(base, rec, 4);
        at += 8 * b8 + 4 * b4;
        for (uint32_t k = 0; k < ls.level_singles[l]; ++k, ++at) link_scalar(p, ls.links, at);
    }
}

// ---- renumbered batches ----
enum BatchKind : uint8_t { window_partial, window_full, gather };
constexpr uint32_t kWindowWords = 2 + 5 * 8;  // a slot, b slot, lane mask, rest, stiffness, w_a, w_b
constexpr uint32_t kGatherWords = 6 * 8;      // a slots, b slots, rest, stiffness, w_a, w_b
struct Stream {
    std::vector<uint32_t> words;
    std::vector<uint8_t> kinds;
};
struct Soa {
    float *x, *y, *z;
};

template <bool Blend>
inline void soa_window(Soa s, const uint32_t* r) {
    const uint32_t a = r[0], b = r[1];
    const float* f = reinterpret_cast<const float*>(r + 2);
    F8 ax{_mm256_loadu_ps(s.x + a)}, ay{_mm256_loadu_ps(s.y + a)}, az{_mm256_loadu_ps(s.z + a)};
    F8 bx{_mm256_loadu_ps(s.x + b)}, by{_mm256_loadu_ps(s.y + b)}, bz{_mm256_loadu_ps(s.z + b)};
    const F8 oax = ax, oay = ay, oaz = az, obx = bx, oby = by, obz = bz;
    link_kernel_uniform<F8, M8>(ax, ay, az, bx, by, bz, F8{_mm256_loadu_ps(f + 8)}, F8{_mm256_loadu_ps(f + 16)},
                                F8{_mm256_loadu_ps(f + 24)}, F8{_mm256_loadu_ps(f + 32)}, F8{_mm256_setzero_ps()});
    if (Blend) {  // lanes without a link store what they loaded (a slot there may be another particle)
        const __m256 m = _mm256_loadu_ps(f);
        ax.v = _mm256_blendv_ps(oax.v, ax.v, m), ay.v = _mm256_blendv_ps(oay.v, ay.v, m), az.v = _mm256_blendv_ps(oaz.v, az.v, m);
        bx.v = _mm256_blendv_ps(obx.v, bx.v, m), by.v = _mm256_blendv_ps(oby.v, by.v, m), bz.v = _mm256_blendv_ps(obz.v, bz.v, m);
    }
    _mm256_storeu_ps(s.x + a, ax.v), _mm256_storeu_ps(s.y + a, ay.v), _mm256_storeu_ps(s.z + a, az.v);
    _mm256_storeu_ps(s.x + b, bx.v), _mm256_storeu_ps(s.y + b, by.v), _mm256_storeu_ps(s.z + b, bz.v);
}
inline void soa_gather(Soa s, const uint32_t* r) {
    const __m256i ia = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r));
    const __m256i ib = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r + 8));
    const float* f = reinterpret_cast<const float*>(r + 16);
    F8 ax{_mm256_i32gather_ps(s.x, ia, 4)}, ay{_mm256_i32gather_ps(s.y, ia, 4)}, az{_mm256_i32gather_ps(s.z, ia, 4)};
    F8 bx{_mm256_i32gather_ps(s.x, ib, 4)}, by{_mm256_i32gather_ps(s.y, ib, 4)}, bz{_mm256_i32gather_ps(s.z, ib, 4)};
    link_kernel_uniform<F8, M8>(ax, ay, az, bx, by, bz, F8{_mm256_loadu_ps(f)}, F8{_mm256_loadu_ps(f + 8)},
                                F8{_mm256_loadu_ps(f + 16)}, F8{_mm256_loadu_ps(f + 24)}, F8{_mm256_setzero_ps()});
    alignas(32) float t[6][8];
    _mm256_store_ps(t[0], ax.v), _mm256_store_ps(t[1], ay.v), _mm256_store_ps(t[2], az.v);
    _mm256_store_ps(t[3], bx.v), _mm256_store_ps(t[4], by.v), _mm256_store_ps(t[5], bz.v);
    for (int k = 0; k < 8; ++k) s.x[r[k]] = t[0][k], s.y[r[k]] = t[1][k], s.z[r[k]] = t[2][k];
    for (int k = 0; k < 8; ++k) s.x[r[8 + k]] = t[3][k], s.y[r[8 + k]] = t[4][k], s.z[r[8 + k]] = t[5][k];
}
void soa_pass(const Stream& st, Soa s) {
    const uint32_t* r = st.words.data();
    for (uint8_t k : st.kinds) {
        if (k == window_partial) soa_window<true>(s, r), r += kWindowWords;
        else if (k == window_full) soa_window<false>(s, r), r += kWindowWords;
        else soa_gather(s, r), r += kGatherWords;
    }
}

// A window on Float4 slots: rows (s0|s1) (s2|s3) (s4|s5) (s6|s7), so the lanes after the transpose
// are slots 0 2 4 6 1 3 5 7 (the stream's fields are stored in that lane order for this kernel).
template <bool Blend>
inline void aos_window(float* w, const uint32_t* r) {
    float* A = w + 4 * size_t(r[0]);
    float* B = w + 4 * size_t(r[1]);
    const float* f = reinterpret_cast<const float*>(r + 2);
    __m256 a0 = _mm256_loadu_ps(A), a1 = _mm256_loadu_ps(A + 8), a2 = _mm256_loadu_ps(A + 16), a3 = _mm256_loadu_ps(A + 24);
    __m256 b0 = _mm256_loadu_ps(B), b1 = _mm256_loadu_ps(B + 8), b2 = _mm256_loadu_ps(B + 16), b3 = _mm256_loadu_ps(B + 24);
    transpose8(a0, a1, a2, a3);
    transpose8(b0, b1, b2, b3);
    F8 ax{a0}, ay{a1}, az{a2}, bx{b0}, by{b1}, bz{b2};
    link_kernel_uniform<F8, M8>(ax, ay, az, bx, by, bz, F8{_mm256_loadu_ps(f + 8)}, F8{_mm256_loadu_ps(f + 16)},
                                F8{_mm256_loadu_ps(f + 24)}, F8{_mm256_loadu_ps(f + 32)}, F8{_mm256_setzero_ps()});
    if (Blend) {
        const __m256 m = _mm256_loadu_ps(f);
        a0 = _mm256_blendv_ps(a0, ax.v, m), a1 = _mm256_blendv_ps(a1, ay.v, m), a2 = _mm256_blendv_ps(a2, az.v, m);
        b0 = _mm256_blendv_ps(b0, bx.v, m), b1 = _mm256_blendv_ps(b1, by.v, m), b2 = _mm256_blendv_ps(b2, bz.v, m);
    } else {
        a0 = ax.v, a1 = ay.v, a2 = az.v, b0 = bx.v, b1 = by.v, b2 = bz.v;
    }
    transpose8(a0, a1, a2, a3);
    transpose8(b0, b1, b2, b3);
    _mm256_storeu_ps(A, a0), _mm256_storeu_ps(A + 8, a1), _mm256_storeu_ps(A + 16, a2), _mm256_storeu_ps(A + 24, a3);
    _mm256_storeu_ps(B, b0), _mm256_storeu_ps(B + 8, b1), _mm256_storeu_ps(B + 16, b2), _mm256_storeu_ps(B + 24, b3);
}
inline __m256 load_pair(const float* w, uint32_t lo, uint32_t hi) {
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(w + 4 * size_t(lo))), _mm_loadu_ps(w + 4 * size_t(hi)), 1);
}
inline void store_pair(float* w, uint32_t lo, uint32_t hi, __m256 v) {
    _mm_storeu_ps(w + 4 * size_t(lo), _mm256_castps256_ps128(v));
    _mm_storeu_ps(w + 4 * size_t(hi), _mm256_extractf128_ps(v, 1));
}
inline void aos_gather(float* w, const uint32_t* r) {  // today's batch on the renumbered Float4 copy
    const uint32_t *ia = r, *ib = r + 8;
    __m256 a0 = load_pair(w, ia[0], ia[4]), a1 = load_pair(w, ia[1], ia[5]), a2 = load_pair(w, ia[2], ia[6]), a3 = load_pair(w, ia[3], ia[7]);
    __m256 b0 = load_pair(w, ib[0], ib[4]), b1 = load_pair(w, ib[1], ib[5]), b2 = load_pair(w, ib[2], ib[6]), b3 = load_pair(w, ib[3], ib[7]);
    transpose8(a0, a1, a2, a3);
    transpose8(b0, b1, b2, b3);
    F8 ax{a0}, ay{a1}, az{a2}, bx{b0}, by{b1}, bz{b2};
    const float* f = reinterpret_cast<const float*>(r + 16);
    link_kernel_uniform<F8, M8>(ax, ay, az, bx, by, bz, F8{_mm256_loadu_ps(f)}, F8{_mm256_loadu_ps(f + 8)},
                                F8{_mm256_loadu_ps(f + 16)}, F8{_mm256_loadu_ps(f + 24)}, F8{_mm256_setzero_ps()});
    a0 = ax.v, a1 = ay.v, a2 = az.v, b0 = bx.v, b1 = by.v, b2 = bz.v;
    transpose8(a0, a1, a2, a3);
    transpose8(b0, b1, b2, b3);
    store_pair(w, ia[0], ia[4], a0), store_pair(w, ia[1], ia[5], a1), store_pair(w, ia[2], ia[6], a2), store_pair(w, ia[3], ia[7], a3);
    store_pair(w, ib[0], ib[4], b0), store_pair(w, ib[1], ib[5], b1), store_pair(w, ib[2], ib[6], b2), store_pair(w, ib[3], ib[7], b3);
}
void aos_pass(const Stream& st, float* w) {
    const uint32_t* r = st.words.data();
    for (uint8_t k : st.kinds) {
        if (k == window_partial) aos_window<true>(w, r), r += kWindowWords;
        else if (k == window_full) aos_window<false>(w, r), r += kWindowWords;
        else aos_gather(w, r), r += kGatherWords;
    }
}

uint32_t bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const bool first_touch = argc > 1 && std::strcmp(argv[1], "first_touch") == 0;
    const uint32_t latency = argc > 2 ? uint32_t(std::atoi(argv[2])) : 8;
    const int rounds = argc > 3 ? std::atoi(argv[3]) : 40, reps = argc > 4 ? std::atoi(argv[4]) : 20;
    const bool same_level = argc > 5 && std::strcmp(argv[5], "same_level") == 0;
    const uint32_t N = 32;
    GridWorkload grid;
    build_grid_workload(grid, N, 0);
    grid.desc.link_batch_lanes = 8;  // the eight-lane schedule these experiments measure
    std::vector<Float4> setup_memory(setup_bytes(grid.desc) / 16 + 1);
    const Setup* setup = build_setup(grid.desc, setup_memory.data(), setup_memory.size() * 16);
    const LinkSchedule& ls = setup->link_runs[0];
    const LinkArrays& q = ls.sequential;
    const uint32_t n = q.count, P = setup->particle_count;
    constexpr uint32_t kNone = ~0u;

    // Dependencies of the file order (as setup.cpp schedule_links): the last earlier link on each particle.
    std::vector<uint32_t> last(P, kNone), next_a(n, kNone), next_b(n, kNone), level(n), height(n);
    for (uint32_t k = 0; k < n; ++k) {
        uint32_t d = 0;
        for (uint32_t p : {q.a[k], q.b[k]}) {
            const uint32_t j = last[p];
            if (j != kNone) (q.a[j] == p ? next_a[j] : next_b[j]) = k, d = std::max(d, level[j]);
            last[p] = k;
        }
        level[k] = d + 1;
    }
    for (uint32_t k = n; k-- > 0;) {
        uint32_t h = 0;
        for (uint32_t x : {next_a[k], next_b[k]})
            if (x != kNone) h = std::max(h, height[x]);
        height[k] = h + 1;
    }
    const uint32_t words = (n + 63) / 64;  // reach[k]: the links reachable from k (bit sets)
    std::vector<uint64_t> reach(size_t(n) * words, 0);
    for (uint32_t k = n; k-- > 0;)
        for (uint32_t x : {next_a[k], next_b[k]})
            if (x != kNone) {
                reach[size_t(k) * words + x / 64] |= 1ull << (x % 64);
                for (uint32_t t = 0; t < words; ++t) reach[size_t(k) * words + t] |= reach[size_t(x) * words + t];
            }
    auto reaches = [&](uint32_t x, uint32_t y) { return ((reach[size_t(x) * words + y / 64] >> (y % 64)) & 1) != 0; };

    // The slot of each particle.
    std::vector<uint32_t> slot(P);
    uint32_t slots = 0;
    if (first_touch) {
        std::vector<uint64_t> key(P, ~0ull);
        for (uint32_t k = 0; k < n; ++k) {
            const uint64_t kk = (uint64_t(level[k]) << 40) | (uint64_t(k) << 1);
            key[q.a[k]] = std::min(key[q.a[k]], kk);
            key[q.b[k]] = std::min(key[q.b[k]], kk | 1);
        }
        std::vector<uint32_t> order(P);
        for (uint32_t p = 0; p < P; ++p) order[p] = p;
        std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) { return key[x] < key[y]; });
        for (uint32_t s = 0; s < P; ++s) slot[order[s]] = s + 16;
        slots = P + 16;
    } else {
        // 11 i + 34 j is one-to-one for j in [0, 32) whatever i (34 > 31); the 8 * 11 + 64 in front
        // keeps window lanes that run off the grid's left edge inside the arrays.
        for (uint32_t p = 0; p < P; ++p) slot[p] = 11 * (p % N) + 34 * (p / N) + 8 * 11 + 64;
        slots = *std::max_element(slot.begin(), slot.end()) + 1;
    }
    const uint32_t array_slots = slots + 64;

    // Windows: links of one slot offset (b - a), sorted by a slot, at most eight consecutive a-slots,
    // mutually independent (and with same_level, of one dependency level: no cycles among windows).
    if (!same_level) std::fill(level.begin(), level.end(), 0u);
    std::vector<uint32_t> order(n);
    for (uint32_t k = 0; k < n; ++k) order[k] = k;
    auto offset = [&](uint32_t k) { return int(slot[q.b[k]]) - int(slot[q.a[k]]); };
    std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
        if (offset(x) != offset(y)) return offset(x) < offset(y);
        if (level[x] != level[y]) return level[x] < level[y];
        return slot[q.a[x]] < slot[q.a[y]];
    });
    std::vector<uint32_t> group_of(n);
    std::vector<std::vector<uint32_t>> groups;
    for (uint32_t at = 0; at < n;) {
        const uint32_t k0 = order[at];
        std::vector<uint32_t> g{k0};
        uint32_t e = at + 1;
        if (offset(k0) >= 8 || offset(k0) <= -8)  // the a and b windows must not overlap
            for (; e < n; ++e) {
                const uint32_t k = order[e];
                if (offset(k) != offset(k0) || level[k] != level[k0] || slot[q.a[k]] >= slot[q.a[k0]] + 8) break;
                bool independent = true;
                for (uint32_t o : g) independent = independent && !reaches(o, k) && !reaches(k, o);
                if (!independent) break;
                g.push_back(k);
            }
        at = e;
        for (uint32_t k : g) group_of[k] = uint32_t(groups.size());
        groups.push_back(g);
    }
    // List schedule of the windows (a window is ready when every link before its links is done,
    // and at least `latency` batches after the batch that finished the last of them).
    const uint32_t G = uint32_t(groups.size());
    std::vector<uint32_t> waiting(G, 0), group_height(G, 0);
    for (uint32_t k = 0; k < n; ++k) {
        group_height[group_of[k]] = std::max(group_height[group_of[k]], height[k]);
        for (uint32_t x : {next_a[k], next_b[k]})
            if (x != kNone && group_of[x] != group_of[k]) ++waiting[group_of[x]];
    }
    std::vector<std::pair<uint32_t, uint32_t>> pending;  // (ready time, group)
    std::vector<uint32_t> ready;
    for (uint32_t g = 0; g < G; ++g)
        if (!waiting[g]) ready.push_back(g);
    Stream soa_stream;
    uint32_t emitted = 0, window_links = 0, windows = 0, full = 0, gathers = 0;
    auto put = [&](float v) { soa_stream.words.push_back(bits(v)); };
    for (uint32_t t = 0; emitted < G; ++t) {
        for (size_t i = 0; i < pending.size();)
            if (pending[i].first <= t) ready.push_back(pending[i].second), pending[i] = pending.back(), pending.pop_back();
            else ++i;
        if (ready.empty()) {
            if (pending.empty()) {
                std::printf("the windows' dependencies form a cycle: try same_level\n");
                return 1;
            }
            continue;
        }
        std::sort(ready.begin(), ready.end(), [&](uint32_t x, uint32_t y) {
            return group_height[x] != group_height[y] ? group_height[x] > group_height[y] : x < y;
        });
        std::vector<uint32_t> take;
        const std::vector<uint32_t>& top = groups[ready[0]];
        if (top.size() >= 2) {
            take.push_back(ready[0]);
            ready.erase(ready.begin());
            const uint32_t a0 = slot[q.a[top[0]]], b0 = a0 + uint32_t(offset(top[0]));
            uint32_t lane[8] = {kNone, kNone, kNone, kNone, kNone, kNone, kNone, kNone};
            for (uint32_t k : top) lane[slot[q.a[k]] - a0] = k;
            soa_stream.kinds.push_back(top.size() == 8 ? window_full : window_partial);
            soa_stream.words.push_back(a0);
            soa_stream.words.push_back(b0);
            for (uint32_t k : lane) soa_stream.words.push_back(k == kNone ? 0u : ~0u);
            for (const float* field : {q.min_length, q.k_push, q.w_a, q.w_b})
                for (uint32_t k : lane) put(k == kNone ? 0.0f : field[k]);
            ++windows, full += top.size() == 8, window_links += uint32_t(top.size());
        } else {  // single links that fit no window: up to eight ready ones in a gather batch
            for (size_t i = 0; i < ready.size() && take.size() < 8;)
                if (groups[ready[i]].size() == 1) take.push_back(ready[i]), ready.erase(ready.begin() + long(i));
                else ++i;
            soa_stream.kinds.push_back(gather);
            auto link = [&](uint32_t m) { return groups[take[m]][0]; };
            const uint32_t m_count = uint32_t(take.size());
            for (uint32_t m = 0; m < 8; ++m) soa_stream.words.push_back(m < m_count ? slot[q.a[link(m)]] : slots + m);
            for (uint32_t m = 0; m < 8; ++m) soa_stream.words.push_back(m < m_count ? slot[q.b[link(m)]] : slots + 8 + m);
            for (const float* field : {q.min_length, q.k_push, q.w_a, q.w_b})
                for (uint32_t m = 0; m < 8; ++m) put(m < m_count ? field[link(m)] : 0.0f);
            ++gathers;
        }
        for (uint32_t g : take) {
            ++emitted;
            for (uint32_t k : groups[g])
                for (uint32_t x : {next_a[k], next_b[k]})
                    if (x != kNone && group_of[x] != g && --waiting[group_of[x]] == 0) pending.push_back({t + latency, group_of[x]});
        }
    }
    // The AoS kernel reads a window's fields in lane order 0 2 4 6 1 3 5 7.
    Stream aos_stream = soa_stream;
    {
        static const int lane_slot[8] = {0, 2, 4, 6, 1, 3, 5, 7};
        uint32_t* r = aos_stream.words.data();
        const uint32_t* o = soa_stream.words.data();
        for (uint8_t k : soa_stream.kinds) {
            if (k == gather) {
                r += kGatherWords, o += kGatherWords;
                continue;
            }
            for (int field = 0; field < 5; ++field)
                for (int lane = 0; lane < 8; ++lane) r[2 + 8 * field + lane] = o[2 + 8 * field + lane_slot[lane]];
            r += kWindowWords, o += kWindowWords;
        }
    }
    uint32_t today_batches = 0;
    for (uint32_t l = 0; l < ls.level_count; ++l) today_batches += ls.level_batches8[l] + ls.level_batches4[l] + ls.level_singles[l];
    std::printf("%s map: %u slots for %u particles; %u windows (%u full) hold %u of %u links (%.1f%%), %u gather batches; "
                "today: %u batches\n",
                first_touch ? "first_touch" : "linear", slots, P, windows, full, window_links, n, 100.0 * window_links / n, gathers,
                today_batches);

    // Positions: the rest pose moved a little, so every link does work.
    std::vector<Float4> start(setup->padded_count);
    std::srand(1);
    for (uint32_t i = 0; i < P; ++i) {
        start[i] = setup->rest_positions[i];
        start[i].x += float(std::rand() % 1000) * 1e-5f;
        start[i].y -= float(std::rand() % 1000) * 2e-5f;
        start[i].z += float(std::rand() % 1000 - 500) * 1e-5f;
        start[i].w = 1.0f;
    }
    std::vector<Float4> expected = start, today = start, soa_positions = start, aos_positions = start;
    std::vector<float> xs(array_slots, 0.0f), ys(array_slots, 0.0f), zs(array_slots, 0.0f);
    std::vector<Float4> aos_slots(array_slots + 8);
    const Soa soa{xs.data(), ys.data(), zs.data()};
    auto to_soa = [&](const Float4* p) {
        for (uint32_t i = 0; i < P; ++i) xs[slot[i]] = p[i].x, ys[slot[i]] = p[i].y, zs[slot[i]] = p[i].z;
    };
    auto from_soa = [&](Float4* p) {
        for (uint32_t i = 0; i < P; ++i) p[i].x = xs[slot[i]], p[i].y = ys[slot[i]], p[i].z = zs[slot[i]];
    };
    auto to_aos = [&](const Float4* p) {
        for (uint32_t i = 0; i < P; ++i) aos_slots[slot[i]] = p[i];
    };
    auto from_aos = [&](Float4* p) {
        for (uint32_t i = 0; i < P; ++i) p[i] = aos_slots[slot[i]];
    };
    for (int r = 0; r < 3; ++r) {
        for (uint32_t i = 0; i < n; ++i) link_scalar(expected.data(), q, i);
        today_pass(ls, today.data());
        to_soa(soa_positions.data()), soa_pass(soa_stream, soa), from_soa(soa_positions.data());
        to_aos(aos_positions.data()), aos_pass(aos_stream, &aos_slots[0].x), from_aos(aos_positions.data());
    }
    auto same = [&](const std::vector<Float4>& v) { return std::memcmp(v.data(), expected.data(), P * sizeof(Float4)) == 0; };
    std::printf("bits equal to the sequential loop after 3 passes: today %s, soa %s, aos %s\n", same(today) ? "yes" : "NO",
                same(soa_positions) ? "yes" : "NO", same(aos_positions) ? "yes" : "NO");

    enum { v_today, v_soa, v_soa_convert, v_convert, v_aos, v_aos_copy, variants };
    std::vector<double> ns[variants];
    for (int r = 0; r < rounds; ++r) {
        double t[variants + 1];
        t[0] = cpu_seconds();
        for (int i = 0; i < reps; ++i) today_pass(ls, today.data());
        t[1] = cpu_seconds();
        for (int i = 0; i < reps; ++i) soa_pass(soa_stream, soa);
        t[2] = cpu_seconds();
        for (int i = 0; i < reps; ++i) to_soa(soa_positions.data()), soa_pass(soa_stream, soa), from_soa(soa_positions.data());
        t[3] = cpu_seconds();
        for (int i = 0; i < reps; ++i) to_soa(soa_positions.data()), from_soa(soa_positions.data());
        t[4] = cpu_seconds();
        for (int i = 0; i < reps; ++i) aos_pass(aos_stream, &aos_slots[0].x);
        t[5] = cpu_seconds();
        for (int i = 0; i < reps; ++i) to_aos(aos_positions.data()), aos_pass(aos_stream, &aos_slots[0].x), from_aos(aos_positions.data());
        t[6] = cpu_seconds();
        for (int v = 0; v < variants; ++v) ns[v].push_back((t[v + 1] - t[v]) * 1e9 / reps / P);
    }
    const char* names[variants] = {"today", "soa windows", "soa windows + conversion", "conversion alone", "aos windows",
                                   "aos windows + renumbered copy"};
    for (int v = 0; v < variants; ++v) {
        std::vector<double> ratio;
        for (int r = 0; r < rounds; ++r) ratio.push_back(ns[v][size_t(r)] / ns[v_today][size_t(r)]);
        std::printf("%-30s %6.2f ns per particle, %.3f of today's (median of per-round ratios)\n", names[v], median(ns[v]),
                    median(ratio));
    }
    return 0;
}
