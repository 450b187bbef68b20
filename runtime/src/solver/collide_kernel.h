// drape solver: the collision of particles with capsules, tapered capsules, spheres and planes,
// on lanes (docs/runtime.md, "Links, bend stiffness and collision", states the rules). Shared by
// the four-lane groups of step.cpp (SSE2) and the eight-lane groups of links_avx2.cpp (AVX2), so
// that both run the same expressions in the same order, lane by lane.
//
// Everything but WorldShape has internal linkage in each file that includes it: step.cpp compiles
// it for SSE2, links_avx2.cpp inside its AVX2 target region; one definition of either kind shared
// between the two would let the linker give the SSE2 callers AVX2 code.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <initializer_list>

#include "solver/lanes.h"
#include "solver/solver.h"

namespace drape::solver {

// A shape in world space for this substep.
struct WorldShape {
    ShapeKind kind;
    float c0x, c0y, c0z, c1x, c1y, c1z;  // centres / end points (plane: normal in c0, offset in r0)
    float r0, r1;
    float ux, uy, uz, length, sin_t, cos_t;  // capsules: unit axis c0->c1, its length, cone terms
    float inv_l2;
    bool degenerate_cone;  // tapered capsule where one sphere holds the other: the bigger sphere alone
};

// The shape of collidable `cs` where it is this substep (step.cpp).
WorldShape world_shape(const CollidableState& cs);

namespace {

using namespace lanes;

// A WorldShape's terms splatted to lanes once per collision pass (the same values: a splat
// copies, and dx/dy/dz and len_cos are the scalar c1 - c0 and length * cos_t).
//
// The box: no particle outside it can be inside the shape (spheres, capsules, tapered capsules:
// the end points' box grown by the larger radius plus the largest particle radius, with a
// margin of 1/128 of that plus 2^-16 of the coordinates' size, far above the few roundings of
// the distance the collision computes). Lanes outside it are skipped: the collision would have
// found them outside and left them as they are, so the bits do not change.
template <class V>
struct ShapeLanes {
    ShapeKind kind;
    bool degenerate_cone;
    bool has_box;
    V c0x, c0y, c0z, c1x, c1y, c1z, r0, r1, ux, uy, uz, sin_t, cos_t, inv_l2, dx, dy, dz, len_cos;
    V lo_x, lo_y, lo_z, hi_x, hi_y, hi_z;
    Float4 box_lo, box_hi;  // the same box as one vector each (x, y, z, 0), for a group's bounds
    // Capsules and tapered capsules: the squared distance from the segment c0-c1 beyond which a
    // particle cannot touch the shape (its bigger radius plus the largest particle radius, grown
    // as the box is), and the segment's 1/|c1 - c0|^2 (0 for a point). Only with has_box.
    bool has_bound;
    V bound2, seg_inv_l2;
};
template <class V>
ShapeLanes<V> shape_lanes(const WorldShape& w, float max_particle_radius = -1) {
    ShapeLanes<V> l;
    l.kind = w.kind;
    l.degenerate_cone = w.degenerate_cone;
    l.c0x = splat_v<V>(w.c0x); l.c0y = splat_v<V>(w.c0y); l.c0z = splat_v<V>(w.c0z);
    l.c1x = splat_v<V>(w.c1x); l.c1y = splat_v<V>(w.c1y); l.c1z = splat_v<V>(w.c1z);
    l.r0 = splat_v<V>(w.r0); l.r1 = splat_v<V>(w.r1);
    l.ux = splat_v<V>(w.ux); l.uy = splat_v<V>(w.uy); l.uz = splat_v<V>(w.uz);
    l.sin_t = splat_v<V>(w.sin_t); l.cos_t = splat_v<V>(w.cos_t); l.inv_l2 = splat_v<V>(w.inv_l2);
    l.dx = splat_v<V>(w.c1x - w.c0x); l.dy = splat_v<V>(w.c1y - w.c0y); l.dz = splat_v<V>(w.c1z - w.c0z);
    l.len_cos = splat_v<V>(w.length * w.cos_t);
    // Only for finite, non-negative radii and finite end points (otherwise every lane is tested).
    constexpr float big = 1e30f;
    float size = 1;
    for (float c : {w.c0x, w.c0y, w.c0z, w.c1x, w.c1y, w.c1z}) size = std::fabs(c) > size ? std::fabs(c) : size;
    l.has_box = w.kind != ShapeKind::plane && max_particle_radius >= 0 && w.r0 >= 0 && w.r1 >= 0 && w.r0 < big &&
                w.r1 < big && max_particle_radius < big && size < big;
    if (l.has_box) {
        const float r = (w.r0 > w.r1 ? w.r0 : w.r1) + max_particle_radius;
        const float grow = (r + r * (1.0f / 128)) + size * (1.0f / 65536);
        l.lo_x = splat_v<V>((w.c0x < w.c1x ? w.c0x : w.c1x) - grow);
        l.lo_y = splat_v<V>((w.c0y < w.c1y ? w.c0y : w.c1y) - grow);
        l.lo_z = splat_v<V>((w.c0z < w.c1z ? w.c0z : w.c1z) - grow);
        l.hi_x = splat_v<V>((w.c0x > w.c1x ? w.c0x : w.c1x) + grow);
        l.hi_y = splat_v<V>((w.c0y > w.c1y ? w.c0y : w.c1y) + grow);
        l.hi_z = splat_v<V>((w.c0z > w.c1z ? w.c0z : w.c1z) + grow);
        l.box_lo = {(w.c0x < w.c1x ? w.c0x : w.c1x) - grow, (w.c0y < w.c1y ? w.c0y : w.c1y) - grow,
                    (w.c0z < w.c1z ? w.c0z : w.c1z) - grow, 0};
        l.box_hi = {(w.c0x > w.c1x ? w.c0x : w.c1x) + grow, (w.c0y > w.c1y ? w.c0y : w.c1y) + grow,
                    (w.c0z > w.c1z ? w.c0z : w.c1z) + grow, 0};
        // The shape lies within `r - max_particle_radius` of its segment (a tapered capsule's cone
        // between its end spheres too); grown by `grow` the bound stays above every rounding of
        // the exact tests, so a lane it rejects the collision would leave as it is.
        const float dx = w.c1x - w.c0x, dy = w.c1y - w.c0y, dz = w.c1z - w.c0z, l2 = (dx * dx + dy * dy) + dz * dz;
        l.has_bound = (w.kind == ShapeKind::capsule || w.kind == ShapeKind::tapered_capsule) && l2 < big;
        l.bound2 = splat_v<V>(grow * grow);
        l.seg_inv_l2 = splat_v<V>(l2 > 0 ? 1.0f / l2 : 0.0f);
    } else {
        l.has_bound = false;
    }
    return l;
}

// What a contact does: the game's collision pass (push out, friction), or the opt-in
// depenetration (StepInputs::depenetration_rounds: only particles deeper than
// k_depenetration_slack, moved out with their previous position, no friction).
enum class Contact : uint8_t { game, depenetrate };

// The depth test of a contact: inside below 0 for the game, below -k_depenetration_slack for
// the depenetration.
template <Contact C, class V>
inline V contact_threshold() {
    if constexpr (C == Contact::depenetrate) return splat_v<V>(-k_depenetration_slack);
    else return splat_v<V>(0.0f);
}

// Pushes lanes out of a surface given per lane the outward unit normal n and the signed
// distance `dist` (negative inside), then takes `friction` of the tangential motion off.
// Depenetration: the previous position moves by the same offset (the velocity is kept) and
// `friction` is not read.
template <class V, class M, Contact C = Contact::game>
inline void push_out(V& px, V& py, V& pz, V& qx, V& qy, V& qz, V nx, V ny, V nz, V dist, V friction, M inside) {
    if constexpr (C == Contact::depenetrate) {
        (void)friction;
        const V ox = nx * dist, oy = ny * dist, oz = nz * dist;
        qx = select(inside, qx - ox, qx);
        qy = select(inside, qy - oy, qy);
        qz = select(inside, qz - oz, qz);
        px = select(inside, px - ox, px);
        py = select(inside, py - oy, py);
        pz = select(inside, pz - oz, pz);
        return;
    }
    const V npx = px - nx * dist, npy = py - ny * dist, npz = pz - nz * dist;
    const V vx = npx - qx, vy = npy - qy, vz = npz - qz;
    const V vn = (vx * nx + vy * ny) + vz * nz;
    const V tx = vx - nx * vn, ty = vy - ny * vn, tz = vz - nz * vn;
    qx = select(inside, qx + tx * friction, qx);
    qy = select(inside, qy + ty * friction, qy);
    qz = select(inside, qz + tz * friction, qz);
    px = select(inside, npx, px);
    py = select(inside, npy, py);
    pz = select(inside, npz, pz);
}

// Inlined into the group loop: called out of line its lanes travel through memory (GCC leaves
// it out of line in the collision groups' loop otherwise).
#if defined(__GNUC__) || defined(__clang__)
#define DRAPE_COLLIDE_INLINE inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define DRAPE_COLLIDE_INLINE __forceinline
#else
#define DRAPE_COLLIDE_INLINE inline
#endif
template <class V, class M, Contact C = Contact::game>
DRAPE_COLLIDE_INLINE bool collide_lanes(const ShapeLanes<V>& w, V& px, V& py, V& pz, V& qx, V& qy, V& qz, V radius, V friction, M active) {
    const V zero = splat_v<V>(0.0f), one = splat_v<V>(1.0f);
    const V threshold = contact_threshold<C, V>();
    if (w.kind == ShapeKind::plane) {
        // ((x*px + y*py) + z*pz) + w, then the particle's radius.
        const V nx = w.c0x, ny = w.c0y, nz = w.c0z;
        const V d = (((px * nx + py * ny) + pz * nz) + w.r0) - radius;
        const M inside = mask_and(active, lt(d, threshold));
        if (!any(inside)) return false;
        push_out<V, M, C>(px, py, pz, qx, qy, qz, nx, ny, nz, d, friction, inside);
        return true;
    }
    const V ax = px - w.c0x, ay = py - w.c0y, az = pz - w.c0z;
    if (w.kind == ShapeKind::tapered_capsule && !w.degenerate_cone) {
        const V ux = w.ux, uy = w.uy, uz = w.uz;
        const V x = (ax * ux + ay * uy) + az * uz;
        const V ex = ax - ux * x, ey = ay - uy * x, ez = az - uz * x;  // across the axis
        const V y2 = (ex * ex + ey * ey) + ez * ez;
        const V y = vsqrt(y2);
        const V s = w.sin_t, c = w.cos_t;
        const V m = x * c - y * s;  // position along the tangent line, 0 at the small tangent point
        const M at_small = lt(m, zero);
        const M at_big = gt(m, w.len_cos);
        // End spheres.
        const V bx = px - w.c1x, by = py - w.c1y, bz = pz - w.c1z;
        const V sx = select(at_big, bx, ax), sy = select(at_big, by, ay), sz = select(at_big, bz, az);
        const V sr = select(at_big, w.r1, w.r0);
        const V sl = vsqrt((sx * sx + sy * sy) + sz * sz);
        const M on_sphere = mask_or(at_small, at_big);
        // Cone side: normal u*s + (e/y)*c, distance x*s + y*c - r0.
        const M has_y = gt(y, zero);
        const V iy = select(has_y, one / y, zero);
        const V cnx = ux * s + (ex * iy) * c, cny = uy * s + (ey * iy) * c, cnz = uz * s + (ez * iy) * c;
        const V cd = (x * s + y * c) - w.r0;
        const V isl = select(gt(sl, zero), one / sl, zero);
        const V nx = select(on_sphere, sx * isl, cnx), ny = select(on_sphere, sy * isl, cny), nz = select(on_sphere, sz * isl, cnz);
        const V dist = select(on_sphere, sl - sr, cd) - radius;
        const M valid = select_mask(on_sphere, gt(sl, zero), has_y);
        const M inside = mask_and(mask_and(active, valid), lt(dist, threshold));
        if (!any(inside)) return false;
        push_out<V, M, C>(px, py, pz, qx, qy, qz, nx, ny, nz, dist, friction, inside);
        return true;
    }
    // Sphere and capsule (and a tapered capsule reduced to its bigger sphere): the closest point
    // of the segment, t = clamp(((p - a).(b - a)) / |b - a|^2, 0, 1).
    V ex = ax, ey = ay, ez = az;
    V r = w.r0;
    if (w.kind == ShapeKind::capsule) {
        const V dx = w.dx, dy = w.dy, dz = w.dz;
        V t = ((ax * dx + ay * dy) + az * dz) * w.inv_l2;
        t = vmin(vmax(t, zero), one);
        ex = ax - dx * t;
        ey = ay - dy * t;
        ez = az - dz * t;
    }
    const V d2 = (ex * ex + ey * ey) + ez * ez;
    const V rr = r + radius;
    V limit = rr;  // inside when |e| < rr (the game), |e| < rr - slack (depenetration)
    if constexpr (C == Contact::depenetrate) limit = vmax(rr + threshold, zero);
    const M inside = mask_and(mask_and(active, lt(d2, limit * limit)), gt(d2, zero));
    if (!any(inside)) return false;
    const V d = vsqrt(d2);
    const V id = select(inside, one / d, zero);
    push_out<V, M, C>(px, py, pz, qx, qy, qz, ex * id, ey * id, ez * id, d - rr, friction, inside);
    return true;
}

// The lanes of particles i..i+3 that collide with a collidable: dynamic and (all particles or
// the mask's bit).
inline bool lanes_on(const Setup& s, uint32_t i, bool all, uint32_t bit, uint32_t* m) {
#if DRAPE_SOLVER_SSE2
    const __m128i dyn = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.dynamic_mask + i));
    const __m128i cm = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.collision_mask + i));
    const __m128i off = all ? _mm_setzero_si128() : _mm_cmpeq_epi32(_mm_and_si128(cm, _mm_set1_epi32(int(bit))), _mm_setzero_si128());
    const __m128i on = _mm_andnot_si128(off, dyn);
    _mm_store_si128(reinterpret_cast<__m128i*>(m), on);
    return _mm_movemask_epi8(on) != 0;
#else
    bool any_active = false;
    for (int l = 0; l < 4; ++l) {
        m[l] = s.dynamic_mask[i + l] & ((all || (s.collision_mask[i + l] & bit)) ? ~0u : 0u);
        any_active |= m[l] != 0;
    }
    return any_active;
#endif
}

// Of the candidate collidables `cand` (bit c for w[c], c < 8), those whose box may hold one of
// the particles p[0..N-1]: bit c is cleared only when none of them is inside w[c]'s box, so the
// lane-by-lane box test would reject every one. The particles' bounds are taken once (min and
// max of the untransposed particles), then each box costs one overlap test. An axis on which a
// particle is NaN counts as overlapping (min/max would drop the NaN), so the test stays a
// superset of the lanes' test. A collidable without a box stays set.
template <uint32_t N, class V>
inline uint32_t near_boxes(const Float4* p, const ShapeLanes<V>* w, uint32_t cand) {
    uint32_t near = 0;
#if DRAPE_SOLVER_SSE2
    __m128 lo = _mm_load_ps(&p[0].x), hi = lo, nan = _mm_cmpunord_ps(lo, lo);
    for (uint32_t j = 1; j < N; ++j) {
        const __m128 v = _mm_load_ps(&p[j].x);
        lo = _mm_min_ps(lo, v);
        hi = _mm_max_ps(hi, v);
        nan = _mm_or_ps(nan, _mm_cmpunord_ps(v, v));
    }
    for (uint32_t left = cand; left != 0; left &= left - 1) {
        const uint32_t k = uint32_t(std::countr_zero(left));
        if (!w[k].has_box) {
            near |= 1u << k;
            continue;
        }
        const __m128 overlap = _mm_or_ps(_mm_and_ps(_mm_cmplt_ps(lo, _mm_load_ps(&w[k].box_hi.x)), _mm_cmplt_ps(_mm_load_ps(&w[k].box_lo.x), hi)), nan);
        if ((_mm_movemask_ps(overlap) & 7) == 7) near |= 1u << k;
    }
#else
    for (uint32_t left = cand; left != 0; left &= left - 1) {
        const uint32_t k = uint32_t(std::countr_zero(left));
        bool in = !w[k].has_box;
        const Float4 &lo = w[k].box_lo, &hi = w[k].box_hi;
        for (uint32_t j = 0; j < N && !in; ++j)
            in = lo.x < p[j].x && p[j].x < hi.x && lo.y < p[j].y && p[j].y < hi.y && lo.z < p[j].z && p[j].z < hi.z;
        if (in) near |= 1u << k;
    }
#endif
    return near;
}

// Of particles i..i+N-1 (N a multiple of 4): the union of the collision masks of the dynamic
// ones, and whether one is dynamic. Collidable k < 32 collides with a lane of them by its mask
// exactly when bit k of the union is set (lanes_on's test, for all of them at once).
template <uint32_t N>
inline uint32_t dynamic_mask_union(const Setup& s, uint32_t i, bool& any_dynamic) {
#if DRAPE_SOLVER_SSE2
    __m128i u = _mm_setzero_si128(), d = _mm_setzero_si128();
    for (uint32_t j = 0; j < N; j += 4) {
        const __m128i dyn = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.dynamic_mask + i + j));
        const __m128i cm = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.collision_mask + i + j));
        u = _mm_or_si128(u, _mm_and_si128(cm, dyn));
        d = _mm_or_si128(d, dyn);
    }
    u = _mm_or_si128(u, _mm_shuffle_epi32(u, 0x4E));
    u = _mm_or_si128(u, _mm_shuffle_epi32(u, 0xB1));
    any_dynamic = _mm_movemask_epi8(d) != 0;
    return uint32_t(_mm_cvtsi128_si32(u));
#else
    uint32_t u = 0, d = 0;
    for (uint32_t j = 0; j < N; ++j) u |= s.collision_mask[i + j] & s.dynamic_mask[i + j], d |= s.dynamic_mask[i + j];
    any_dynamic = d != 0;
    return u;
#endif
}

// The collidables of one chunk (at most 8, slot c = collidable first + c), ready for the groups
// of V's width.
template <class V>
struct CollisionChunk {
    static constexpr uint32_t size = 8;
    ShapeLanes<V> w[size];
    uint32_t bits[size];  // the collidable's mask bit (0 from bit 32 on)
    bool all[size];       // run-time collidable: applies to every particle
    uint32_t first = 0;
    uint32_t by_mask = 0, by_all = 0;  // enabled slots that go by the masks / apply to every particle
};

// The slots of `ch` whose collidable collides with a dynamic particle of i..i+N-1 by its mask
// (or applies to every particle): exactly the slots lanes_on finds a lane for.
template <uint32_t N, class V>
DRAPE_COLLIDE_INLINE uint32_t slots_on(const Setup& s, const CollisionChunk<V>& ch, uint32_t i) {
    bool any_dynamic = false;
    const uint32_t u = dynamic_mask_union<N>(s, i, any_dynamic);
    return ((ch.first < 32 ? (u >> ch.first) : 0u) & ch.by_mask) | (any_dynamic ? ch.by_all : 0u);
}

// The lanes inside shape `b`'s box (its has_box must be set).
template <class V, class M>
DRAPE_COLLIDE_INLINE M in_box_lanes(const ShapeLanes<V>& b, V px, V py, V pz) {
    const M in_x = mask_and(lt(b.lo_x, px), lt(px, b.hi_x));
    const M in_y = mask_and(lt(b.lo_y, py), lt(py, b.hi_y));
    const M in_z = mask_and(lt(b.lo_z, pz), lt(pz, b.hi_z));
    return mask_and(in_x, mask_and(in_y, in_z));
}

// `active` without the lanes farther from a capsule's segment than its bound (has_bound): those
// are outside the shape.
template <class V, class M>
DRAPE_COLLIDE_INLINE M within_bound(const ShapeLanes<V>& b, V px, V py, V pz, M active) {
    const V zero = splat_v<V>(0.0f), one = splat_v<V>(1.0f);
    const V ax = px - b.c0x, ay = py - b.c0y, az = pz - b.c0z;
    const V t = vmin(vmax(((ax * b.dx + ay * b.dy) + az * b.dz) * b.seg_inv_l2, zero), one);
    const V ex = ax - b.dx * t, ey = ay - b.dy * t, ez = az - b.dz * t;
    return mask_and(active, lt((ex * ex + ey * ey) + ez * ez, b.bound2));
}

// `active` narrowed to the lanes inside shape `b`'s box (`in_box`, where it has one) and within
// its bound (where it has one); false when no lane is left.
template <class V, class M>
DRAPE_COLLIDE_INLINE bool narrow_lanes(const ShapeLanes<V>& b, V px, V py, V pz, M in_box, M& active) {
    if (b.has_box) {
        active = mask_and(active, in_box);
        if (!any(active)) return false;
    }
    if (b.has_bound) {
        active = within_bound<V, M>(b, px, py, pz, active);
        if (!any(active)) return false;
    }
    return true;
}

// One group i..i+3 against the slots `cand` of the chunk that may touch it: lane by lane each
// slot's box first, and only for a lane in a box its collidable's lane masks and the collision
// (a union of the group's masks tried first cost more than it saved on the corpus's hair).
// Skipping a lane outside a box or off the masks is what the collision would do with it (box
// comment above): the same bits. The group is written back only when a collidable moved one of
// its particles (then true).
template <Contact C>
DRAPE_COLLIDE_INLINE bool collide_group(const Setup& s, Float4* p, Float4* q, const CollisionChunk<F4>& ch, uint32_t i, uint32_t cand) {
    F4 px, py, pz, pw, qx, qy, qz, qw;
    transpose(p[i], p[i + 1], p[i + 2], p[i + 3], px, py, pz, pw);
    bool have_q = false;  // previous positions are transposed when a lane passes a box
    bool moved = false;
    for (; cand != 0; cand &= cand - 1) {
        const uint32_t c = uint32_t(std::countr_zero(cand));
        const ShapeLanes<F4>& b = ch.w[c];
        M4 in_box{};
        if (b.has_box) {
            in_box = in_box_lanes<F4, M4>(b, px, py, pz);
            if (!any(in_box)) continue;
        }
        alignas(16) uint32_t m[4];
        if (!lanes_on(s, i, ch.all[c], ch.bits[c], m)) continue;
        M4 active = mask_from_bits(m);
        if (!narrow_lanes<F4, M4>(b, px, py, pz, in_box, active)) continue;
        if (!have_q) {
            transpose(q[i], q[i + 1], q[i + 2], q[i + 3], qx, qy, qz, qw);
            have_q = true;
        }
        moved |= collide_lanes<F4, M4, C>(b, px, py, pz, qx, qy, qz, load4(s.radius + i), load4(s.friction + i), active);
    }
    if (!moved) return false;  // nothing inside: the particles are as they were
    untranspose(px, py, pz, pw, p[i], p[i + 1], p[i + 2], p[i + 3]);
    untranspose(qx, qy, qz, qw, q[i], q[i + 1], q[i + 2], q[i + 3]);
    return true;
}

// The chunk of collidables [c0, c1) (at most CollisionChunk::size) as they are this substep: their
// shapes on V's lanes, mask bits, and which apply by mask or to every particle.
template <class V>
inline void build_chunk(const Setup& s, const State& st, uint32_t c0, uint32_t c1, CollisionChunk<V>& ch) {
    ch.first = c0;
    ch.by_mask = ch.by_all = 0;
    for (uint32_t c = 0; c < c1 - c0; ++c) {
        const uint32_t k = c0 + c;
        const CollidableState& cs = st.collidables[k];
        if (!cs.enabled || cs.shape == nullptr) continue;
        ch.w[c] = shape_lanes<V>(world_shape(cs), s.max_radius);
        ch.bits[c] = k < 32 ? (1u << k) : 0u;
        ch.all[c] = cs.all_particles;
        if (ch.all[c]) ch.by_all |= 1u << c;
        else if (k < 32) ch.by_mask |= 1u << c;  // a file collidable past bit 31 collides with no particle
    }
}

// Collidables [first, end) a chunk at a time (at most CollisionChunk::size each): `fn(ch, every)`
// for each chunk with an enabled slot, `every` its slots that go by the masks or apply to every
// particle.
template <class V, class Fn>
DRAPE_COLLIDE_INLINE void for_each_chunk(const Setup& s, const State& st, uint32_t first, uint32_t end, Fn fn) {
    for (uint32_t c0 = first; c0 < end; c0 += CollisionChunk<V>::size) {
        const uint32_t c1 = end - c0 < CollisionChunk<V>::size ? end : c0 + CollisionChunk<V>::size;
        CollisionChunk<V> ch;
        build_chunk(s, st, c0, c1, ch);
        const uint32_t every = ch.by_mask | ch.by_all;
        if (every != 0) fn(ch, every);
    }
}

// The game's pass over every particle for one chunk, sixteen particles a block: a block off every
// collidable's masks or outside every box is skipped after one test of its bounds (a cloth's
// particle order is mostly spatially coherent). Where blocks keep touching a collidable (hair
// around a head) that test rejects nothing and only costs, so after eight blocks in a row it did
// not reject it runs on every eighth block only, until one is rejected. `block(i, cand)` runs
// particles i..i+15 against the slots `cand`; `rest(i)` the particles from i to the padded count
// (fewer than sixteen) against every slot.
template <class V, class Block, class Rest>
DRAPE_COLLIDE_INLINE void scan_blocks(const Setup& s, const Float4* p, const CollisionChunk<V>& ch, uint32_t every, Block block, Rest rest) {
    const uint32_t n = s.padded_count;
    uint32_t i = 0, not_rejected = 0;
    for (uint32_t b = 0; i + 16 <= n; i += 16, ++b) {
        uint32_t cand = every;
        if (not_rejected < 8 || (b & 7) == 0) {
            cand = slots_on<16>(s, ch, i);
            if (cand != 0) cand = near_boxes<16>(p + i, ch.w, cand);
            if (cand == 0) {
                not_rejected = 0;
                continue;
            }
            ++not_rejected;
        }
        block(i, cand);
    }
    if (i < n) rest(i);
}

}  // namespace
}  // namespace drape::solver
