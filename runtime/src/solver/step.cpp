// drape solver: the per-instance state and the step (notify + simulate).
//
// Per substep: move the collidables (translation += v*h, rotation by the half-angle quaternion),
// integrate (Verlet with damping and gravity, plus the action's forces), then the passes in the
// execution order, solve_iterations times. Collision uses the collidables after they are moved
// (docs/havok-cloth.md, "Elden Ring").
#include <bit>
#include <cmath>
#include <cstring>
#include <initializer_list>

#include "solver/arena.h"
#include "solver/lanes.h"
#include "solver/bend_kernel.h"
#include "solver/collide_kernel.h"
#include "solver/link_kernel.h"
#include "solver/local_range_kernel.h"
#include "solver/solver.h"

namespace drape::solver {

using namespace lanes;

// links_avx2.cpp: the eight-lane kernels, in namespace avx2 (AVX2) and, compiled once more for
// AVX-512VL (links_avx2_evex.cpp), in namespace evex: the same operations, the same bits.
bool has_avx2();
#define DRAPE_WIDE_KERNELS                                                                                              \
    /* `count` batches of `width` (8, or 16 run as two halves) lanes. */                                                \
    void link_batches_avx2(Float4* p, const uint32_t* packed, uint32_t count, uint32_t width, bool uniform);            \
    /* The Verlet step of particles [0, returned count), two per vector. */                                              \
    uint32_t integrate_avx2(const Setup& s, State& st, bool forces);                                                     \
    /* Bend-stiffness items j..j+7 (two four-item batches of one level), one per lane. */                               \
    void bend_eight_avx2(const BendStiffnessSet& b, const Setup& s, Float4* p, uint32_t j);                              \
    /* Local-range entries j..j+7 (their particles distinct), one per lane. */                                          \
    void local_range_eight_avx2(const LocalRangeSet& r, const Setup& s, Float4* p, const Float4* ref, const Float4* nrm, \
                                uint32_t j);                                                                             \
    /* The game's collision pass of collidables [first, end) (none convex geometry), eight particles a group. */        \
    void collide_groups_avx2(const Setup& s, State& st, uint32_t first, uint32_t end);
namespace avx2 {
DRAPE_WIDE_KERNELS
}
namespace evex {
DRAPE_WIDE_KERNELS
}
#undef DRAPE_WIDE_KERNELS
// The eight-lane kernels a step with `lanes` lanes runs (lanes >= 8): the AVX-512VL build where
// sixteen lanes are allowed and the CPU has it, else the AVX2 build (a step limited to eight
// lanes runs AVX2 instructions only, so the tests of eight lanes test that build).
inline bool evex_kernels(uint32_t lanes) {
    static const bool cpu = has_avx512vl();
    return lanes >= 16 && cpu;
}
// links_avx512.cpp: `count` sixteen-lane batches.
bool has_avx512();
void link_batches16_avx512(Float4* p, const uint32_t* packed, uint32_t count, bool uniform);
// links_avx512.cpp: the Verlet step of integrate_particles, four particles per 512-bit vector.
void integrate_avx512(const Setup& s, State& st, bool forces);
// links_avx512.cpp: the game's collision pass of collidables [first, end) (none convex
// geometry), sixteen particles a group.
void collide_groups_avx512(const Setup& s, State& st, uint32_t first, uint32_t end);

uint32_t widest_lanes() {
    static const uint32_t lanes = has_avx512() ? 16u : (has_avx2() ? 8u : 4u);
    return lanes;
}

// ---- state -----------------------------------------------------------------------------

namespace {

bool layout_state(const Setup& s, const StateOptions& o, Arena& a, State& st) {
    const bool fill = !a.measuring();
    st.particle_count = s.particle_count;
    st.padded_count = s.padded_count;
    st.positions = a.take_line_aligned<Float4>(s.padded_count);
    st.previous_positions = a.take_line_aligned<Float4>(s.padded_count);
    st.normals = a.take<Float4>(s.padded_count);
    st.triangle_normals = a.take<Float4>(s.triangle_count ? s.triangle_count : 1);
    st.forces = a.take_line_aligned<Float4>(s.padded_count);
    st.collidable_count = s.collidable_count;
    st.runtime_collidable_capacity = o.runtime_collidable_capacity;
    st.collidables = a.take<CollidableState>(s.collidable_count + o.runtime_collidable_capacity);
    st.runtime_shapes = a.take<Shape>(o.runtime_collidable_capacity);
    st.transition_count = s.transition_set_count;
    st.transitions = a.take<TransitionState>(s.transition_set_count);
    for (uint32_t i = 0; i < s.transition_set_count; ++i) {
        float* d = a.take<float>(s.transition_sets[i].count);
        if (fill) st.transitions[i].start_distance = d;
    }
    st.volume_count = s.volume_set_count;
    st.volumes = a.take<VolumeState>(s.volume_set_count);
    st.scratch = a.take<float>(4 * size_t(s.padded_count));
    st.group_words = (s.padded_count / 4 + 63) / 64;
    st.collision_moved = a.take<uint64_t>(st.group_words);
    return !a.overflowed();
}

Quaternion quaternion_from_matrix(const Matrix4& m) {
    // Shepperd's method on the rotation part (columns c0..c2).
    const float m00 = m.c0.x, m11 = m.c1.y, m22 = m.c2.z;
    const float trace = (m00 + m11) + m22;
    Quaternion q;
    if (trace > 0) {
        const float s = std::sqrt(trace + 1.0f) * 2.0f;
        q.w = 0.25f * s;
        q.x = (m.c1.z - m.c2.y) / s;
        q.y = (m.c2.x - m.c0.z) / s;
        q.z = (m.c0.y - m.c1.x) / s;
    } else if (m00 > m11 && m00 > m22) {
        const float s = std::sqrt(((1.0f + m00) - m11) - m22) * 2.0f;
        q.w = (m.c1.z - m.c2.y) / s;
        q.x = 0.25f * s;
        q.y = (m.c1.x + m.c0.y) / s;
        q.z = (m.c2.x + m.c0.z) / s;
    } else if (m11 > m22) {
        const float s = std::sqrt(((1.0f + m11) - m00) - m22) * 2.0f;
        q.w = (m.c2.x - m.c0.z) / s;
        q.x = (m.c1.x + m.c0.y) / s;
        q.y = 0.25f * s;
        q.z = (m.c2.y + m.c1.z) / s;
    } else {
        const float s = std::sqrt(((1.0f + m22) - m00) - m11) * 2.0f;
        q.w = (m.c0.y - m.c1.x) / s;
        q.x = (m.c2.x + m.c0.z) / s;
        q.y = (m.c2.y + m.c1.z) / s;
        q.z = 0.25f * s;
    }
    return q;
}

// Rotation matrix of a unit quaternion, with the translation.
Matrix4 matrix_from(const Quaternion& q, const Float4& t) {
    const float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
    const float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z, wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    Matrix4 m;
    m.c0 = {1.0f - 2.0f * (yy + zz), 2.0f * (xy + wz), 2.0f * (xz - wy), 0};
    m.c1 = {2.0f * (xy - wz), 1.0f - 2.0f * (xx + zz), 2.0f * (yz + wx), 0};
    m.c2 = {2.0f * (xz + wy), 2.0f * (yz - wx), 1.0f - 2.0f * (xx + yy), 0};
    m.c3 = {t.x, t.y, t.z, 1};
    return m;
}

// Inverse of a rigid transform (rotation transposed).
Matrix4 rigid_inverse(const Matrix4& m) {
    Matrix4 r;
    r.c0 = {m.c0.x, m.c1.x, m.c2.x, 0};
    r.c1 = {m.c0.y, m.c1.y, m.c2.y, 0};
    r.c2 = {m.c0.z, m.c1.z, m.c2.z, 0};
    const Float4 t = m.c3;
    r.c3 = {-dot3(Float4{m.c0.x, m.c0.y, m.c0.z, 0}, t), -dot3(Float4{m.c1.x, m.c1.y, m.c1.z, 0}, t),
            -dot3(Float4{m.c2.x, m.c2.y, m.c2.z, 0}, t), 1};
    return r;
}

// M * (x, y, z, w): ((c0*x + c1*y) + c2*z) + c3*w.
Float4 mul(const Matrix4& m, const Float4& v) {
    return {((m.c0.x * v.x + m.c1.x * v.y) + m.c2.x * v.z) + m.c3.x * v.w,
            ((m.c0.y * v.x + m.c1.y * v.y) + m.c2.y * v.z) + m.c3.y * v.w,
            ((m.c0.z * v.x + m.c1.z * v.y) + m.c2.z * v.z) + m.c3.z * v.w,
            ((m.c0.w * v.x + m.c1.w * v.y) + m.c2.w * v.z) + m.c3.w * v.w};
}
Float4 point(const Matrix4& m, const Float4& p) { return mul(m, Float4{p.x, p.y, p.z, 1}); }
Float4 direction(const Matrix4& m, const Float4& p) { return mul(m, Float4{p.x, p.y, p.z, 0}); }
Matrix4 mul(const Matrix4& a, const Matrix4& b) { return {mul(a, b.c0), mul(a, b.c1), mul(a, b.c2), mul(a, b.c3)}; }

void set_collidable(CollidableState& c, const Matrix4& transform, const Float4& v, const Float4& w) {
    c.rotation = quaternion_from_matrix(transform);
    c.translation = {transform.c3.x, transform.c3.y, transform.c3.z, 0};
    c.linear_velocity = v;
    c.angular_velocity = w;
    c.world = matrix_from(c.rotation, c.translation);
    c.world_to_local = rigid_inverse(c.world);
}

}  // namespace

size_t state_bytes(const Setup& setup, const StateOptions& options) {
    Arena a(nullptr, 0);
    a.take<State>(1);
    State st;
    layout_state(setup, options, a, st);
    return a.used() + 16;
}

State* build_state(const Setup& setup, const StateOptions& options, void* memory, size_t size) {
    if (memory == nullptr || (reinterpret_cast<uintptr_t>(memory) & 15) != 0) return nullptr;
    Arena a(memory, size);
    State* st = a.take<State>(1);
    if (st == nullptr || !layout_state(setup, options, a, *st)) return nullptr;
    st->bytes = a.used();
    reset_state(setup, *st, nullptr);
    return st;
}

void reset_state(const Setup& s, State& st, const Float4* positions, const Matrix4* transforms, uint32_t transform_count) {
    for (uint32_t i = 0; i < s.padded_count; ++i) {
        const Float4 p = positions && i < s.particle_count ? positions[i] : s.rest_positions[i];
        st.positions[i] = p;
        st.previous_positions[i] = p;
        st.normals[i] = {0, 0, 0, 0};
        st.forces[i] = {0, 0, 0, 0};
    }
    st.normals_due = false;
    st.last_substep_length = 0;
    st.damping = 1;
    st.substep_length = 0;
    st.time_step = 0;
    st.started = false;
    for (uint32_t i = 0; i < s.collidable_count; ++i) {
        const Collidable& c = s.collidables[i];
        // A collidable that follows a bone starts on it, at rest: started at the file's authoring
        // transform, the first step would drive it from there to its bone within one step and sweep
        // it through the cloth (a pose far from the bind pose pushed c5000's mantle 0.9 m off).
        if (transforms && c.bone >= 0 && uint32_t(c.bone) < transform_count && transform_count >= s.transform_count)
            set_collidable(st.collidables[i], mul(transforms[c.bone], c.offset), Float4{0, 0, 0, 0}, Float4{0, 0, 0, 0});
        else
            set_collidable(st.collidables[i], c.initial_transform, c.initial_linear_velocity, c.initial_angular_velocity);
        st.collidables[i].shape = &c.shape;
        st.collidables[i].enabled = c.enabled;
        st.collidables[i].all_particles = false;
    }
    st.runtime_collidable_count = 0;
    for (uint32_t i = 0; i < st.transition_count; ++i) {
        st.transitions[i].mode = TransitionMode::simulated;
        st.transitions[i].time = 0;
        st.transitions[i].divisor = 1;
        for (uint32_t j = 0; j < s.transition_sets[i].count; ++j) st.transitions[i].start_distance[j] = 0;
    }
    for (uint32_t i = 0; i < st.volume_count; ++i) {
        st.volumes[i].frame = Matrix4{};
        st.volumes[i].eigenvectors[0] = {1, 0, 0, 0};
        st.volumes[i].eigenvectors[1] = {0, 1, 0, 0};
        st.volumes[i].eigenvectors[2] = {0, 0, 1, 0};
    }
}

// ---- floating-point environment ---------------------------------------------------------

namespace {
// The game thread's MXCSR is 0x8000 (docs/havok-cloth.md): round to nearest, flush-to-zero on,
// denormals-are-zero off. The solver runs under the same rounding and flushing (exceptions stay
// masked: masking changes no result) and restores the caller's MXCSR on return.
struct GameFloatMode {
#if DRAPE_SOLVER_SSE2
    unsigned saved;
    GameFloatMode() : saved(_mm_getcsr()) { _mm_setcsr((saved & ~0x7FC0u) | 0x1F80u | 0x8000u); }
    ~GameFloatMode() { _mm_setcsr(saved); }
#endif
};
}  // namespace

// ---- notify ----------------------------------------------------------------------------

void notify(const Setup& s, State& st, const StepInputs& in) {
    GameFloatMode fp;
    st.time_step = in.dt / st.slow_motion;
    const float h = substep_length(in.dt, s.sub_steps, st.slow_motion);
    // Previous positions rescaled when the step length changes, so the velocity is kept.
    if (st.started && st.last_substep_length > 0 && h != st.last_substep_length) {
        const float ratio = h * (1.0f / st.last_substep_length);
        for (uint32_t i = 0; i < s.particle_count; ++i) {
            Float4& q = st.previous_positions[i];
            const Float4& p = st.positions[i];
            q.x = p.x - (p.x - q.x) * ratio;
            q.y = p.y - (p.y - q.y) * ratio;
            q.z = p.z - (p.z - q.z) * ratio;
        }
    }
    st.substep_length = h;
    st.last_substep_length = h;
    // The damping is the step's, not the substep's: powf(1 - d, dt) with the frame's dt, applied
    // in every substep (docs/havok-cloth.md, "The notify step"; the recorded steps reproduce with
    // it, so a cloth of several substeps is damped more per second than one of a single substep).
    st.damping = damping_factor(s.global_damping_per_second, in.dt);
    st.started = true;

    // Transition blend time, advanced before the particles are bounded.
    for (uint32_t i = 0; i < st.transition_count; ++i) {
        TransitionState& t = st.transitions[i];
        const TransitionSet& set = s.transition_sets[i];
        if (t.mode == TransitionMode::simulated) continue;
        t.time += st.time_step;
        if (t.mode == TransitionMode::to_simulation && t.time >= set.to_sim_plus_delay_period) {
            t.mode = TransitionMode::simulated;
            t.time = 0;
        }
    }

    // Collidables driven by their bones: velocities that reach bone*offset in this step.
    if (in.transforms && in.transform_count >= s.transform_count) {
        for (uint32_t i = 0; i < s.collidable_count; ++i) {
            const Collidable& c = s.collidables[i];
            if (c.bone < 0) continue;
            const Matrix4 goal = mul(in.transforms[c.bone], c.offset);
            CollidableState& cs = st.collidables[i];
            drive_velocities(cs.rotation, cs.translation, quaternion_from_matrix(goal), goal.c3, st.time_step,
                             cs.linear_velocity, cs.angular_velocity, in.portable);
        }
    }

    // Run-time collidables: the engine's transform and velocities at this notify.
    const uint32_t rc = in.runtime_collidable_count < st.runtime_collidable_capacity ? in.runtime_collidable_count
                                                                                     : st.runtime_collidable_capacity;
    st.runtime_collidable_count = 0;
    for (uint32_t i = 0; i < rc; ++i) {
        const RuntimeCollidable& r = in.runtime_collidables[i];
        if (r.shape.kind == ShapeKind::convex_geometry) continue;
        Shape& sh = st.runtime_shapes[st.runtime_collidable_count];
        sh = Shape{};
        sh.kind = r.shape.kind;
        if (r.shape.kind == ShapeKind::sphere) {
            sh.p0 = {r.shape.sphere.x, r.shape.sphere.y, r.shape.sphere.z, 0};
            sh.r0 = r.shape.sphere.w;
        } else if (r.shape.kind == ShapeKind::plane) {
            sh.p0 = r.shape.plane_equation;
        } else {
            const bool cap = r.shape.kind == ShapeKind::capsule;
            const Float4& a = cap ? r.shape.start : r.shape.small;
            const Float4& b = cap ? r.shape.end : r.shape.big;
            sh.p0 = {a.x, a.y, a.z, 0};
            sh.p1 = {b.x, b.y, b.z, 0};
            sh.r0 = cap ? r.shape.radius : r.shape.small_radius;
            sh.r1 = cap ? r.shape.radius : r.shape.big_radius;
            const Float4 ax{sh.p1.x - sh.p0.x, sh.p1.y - sh.p0.y, sh.p1.z - sh.p0.z, 0};
            const float l2 = dot3(ax, ax);
            sh.inv_axis_length_sq = l2 > 0 ? 1.0f / l2 : 0.0f;
        }
        CollidableState& cs = st.collidables[s.collidable_count + st.runtime_collidable_count];
        set_collidable(cs, r.transform, r.linear_velocity, r.angular_velocity);
        cs.shape = &sh;
        cs.enabled = r.enabled;
        cs.all_particles = true;
        ++st.runtime_collidable_count;
    }
}

// ---- kernels ---------------------------------------------------------------------------

namespace {

inline void link_scalar(Float4* p, const LinkArrays& l, uint32_t i) {
    Float4& a = p[l.a[i]];
    float ax = a.x, ay = a.y, az = a.z;
    Float4& b = p[l.b[i]];
    float bx = b.x, by = b.y, bz = b.z;
    link_kernel<float, bool>(ax, ay, az, bx, by, bz, l.min_length[i], l.max_length[i], l.k_push[i], l.k_pull[i], l.w_a[i],
                             l.w_b[i], 0.0f);
    a.x = ax; a.y = ay; a.z = az;
    b.x = bx; b.y = by; b.z = bz;
}

// `lanes`: the widest batch the CPU and the inputs allow (16, 8 or 4); wider batches of the
// schedule run as several narrower ones (their links commute).
template <bool Uniform>
void solve_levels(const LinkSchedule& ls, Float4* p, uint32_t lanes) {
    unsigned char* base = reinterpret_cast<unsigned char*>(p);
    const uint32_t words = ls.packed_fields;
    const uint32_t* rec = ls.packed;
    const LinkArrays links = ls.links;  // a local copy: stores to particles cannot alias it
    uint32_t at = 0;
    for (uint32_t l = 0; l < ls.level_count; ++l) {
        const uint32_t b16 = ls.level_batches16[l];
        if (b16) {
            if (lanes >= 16) link_batches16_avx512(p, rec, b16, Uniform);
            else if (lanes >= 8) avx2::link_batches_avx2(p, rec, b16, 16, Uniform);
            else
                for (uint32_t b = 0; b < b16; ++b)
                    for (uint32_t q = 0; q < 16; q += 4) link_batch4_packed<Uniform>(base, rec + 16 * words * b + q, 16);
            rec += 16 * words * b16;
        }
        const uint32_t b8 = ls.level_batches8[l];
        if (b8) {
            if (lanes >= 8) {
                if (evex_kernels(lanes)) evex::link_batches_avx2(p, rec, b8, 8, Uniform);
                else avx2::link_batches_avx2(p, rec, b8, 8, Uniform);
                rec += 8 * words * b8;
            } else {
                for (uint32_t b = 0; b < b8; ++b, rec += 8 * words) {
                    link_batch4_packed<Uniform>(base, rec, 8);
                    link_batch4_packed<Uniform>(base, rec + 4, 8);
                }
            }
        }
        const uint32_t b4 = ls.level_batches4[l];
        for (uint32_t b = 0; b < b4; ++b, rec += 4 * words) link_batch4_packed<Uniform>(base, rec, 4);
        at += 16 * b16 + 8 * b8 + 4 * b4;
        for (uint32_t k = 0; k < ls.level_singles[l]; ++k, ++at) link_scalar(p, links, at);
    }
}

// The lanes a step uses: min(CPU, StepInputs::max_lanes); the sequential mode is the reference
// and runs the four-lane Verlet (every width gives the same bits).
uint32_t step_lanes(const StepInputs& in) {
    if (in.mode == SolveMode::sequential) return 4;
    const uint32_t cpu = widest_lanes();
    return in.max_lanes < cpu ? in.max_lanes : cpu;
}

void solve_links(const LinkSchedule& ls, Float4* p, const StepInputs& in) {
    if (in.mode == SolveMode::sequential) {
        for (uint32_t i = 0; i < ls.sequential.count; ++i) link_scalar(p, ls.sequential, i);
        return;
    }
    const uint32_t lanes = step_lanes(in);
    if (ls.uniform) solve_levels<true>(ls, p, lanes);
    else solve_levels<false>(ls, p, lanes);
}

// Item j (schedule order) alone.
void bend_one(const BendStiffnessSet& b, const Setup& s, Float4* p, uint32_t j) {
    const float im = b.inv_mass_sum[j];
    if (!(im > 0)) return;
    const uint32_t* i = b.particles + 4 * j;
    const float* w = b.weights + 4 * j;
    const Float4 pa = p[i[0]], pb = p[i[1]], pc = p[i[2]], pd = p[i[3]];
    // c = ((wa*pa + wb*pb) + wc*pc) + wd*pd.
    const Float4 c{((w[0] * pa.x + w[1] * pb.x) + w[2] * pc.x) + w[3] * pd.x,
                   ((w[0] * pa.y + w[1] * pb.y) + w[2] * pc.y) + w[3] * pd.y,
                   ((w[0] * pa.z + w[1] * pb.z) + w[2] * pc.z) + w[3] * pd.z, 0};
    const Float4 e{pd.x - pc.x, pd.y - pc.y, pd.z - pc.z, 0};
    const Float4 ab{pb.x - pa.x, pb.y - pa.y, pb.z - pa.z, 0};
    const Float4 m{e.y * ab.z - e.z * ab.y, e.z * ab.x - e.x * ab.z, e.x * ab.y - e.y * ab.x, 0};
    const float m2 = dot3(m, m), e2 = dot3(e, e);
    if (!(m2 > 0) || !(e2 > 0)) return;
    const float inv_m = 1.0f / std::sqrt(m2);
    const Float4 n{m.x * inv_m, m.y * inv_m, m.z * inv_m, 0};
    // hA * hB = |(a - c) x e| * |(b - c) x e| / |e|^2.
    const Float4 ac{pa.x - pc.x, pa.y - pc.y, pa.z - pc.z, 0}, bc{pb.x - pc.x, pb.y - pc.y, pb.z - pc.z, 0};
    const Float4 xa{ac.y * e.z - ac.z * e.y, ac.z * e.x - ac.x * e.z, ac.x * e.y - ac.y * e.x, 0};
    const Float4 xb{bc.y * e.z - bc.z * e.y, bc.z * e.x - bc.x * e.z, bc.x * e.y - bc.y * e.x, 0};
    const float heights = (std::sqrt(dot3(xa, xa)) * std::sqrt(dot3(xb, xb))) / e2;
    const float violation = dot3(c, n) - b.rest_curvature[j] * heights;
    const float g = (b.stiffness[j] * violation) / im;
    // Each particle written back whole (x, y, z and its w): a later item's vector load of it then
    // takes the value from one store, not from three (a failed store-to-load forward).
    for (int q = 0; q < 4; ++q) {
        const float f = (g * w[q]) * s.inv_mass[i[q]];
        const Float4 o = p[i[q]];
        p[i[q]] = Float4{o.x - n.x * f, o.y - n.y * f, o.z - n.z * f, o.w};
    }
}

// Items j..j+3 (schedule order; they share no particle and none names a particle twice), one
// per lane: each lane runs bend_one's expressions in its order, and a lane bend_one would leave
// (im, m2 or e2 not positive) writes its particles back as they were.
void bend_four(const BendStiffnessSet& b, const Setup&, Float4* p, uint32_t j) {
    using lanes::F4;
    const uint32_t* i = b.particles + 4 * j;  // item k, particle q: i[4 * k + q]
    F4 x[4], y[4], z[4], pw[4], w[4], im_of[4];
    for (int q = 0; q < 4; ++q) {
        lanes::transpose(p[i[q]], p[i[4 + q]], p[i[8 + q]], p[i[12 + q]], x[q], y[q], z[q], pw[q]);
        w[q] = lanes::load4(b.batch_weights + 4 * size_t(j) + 4 * q);
        im_of[q] = lanes::load4(b.batch_inv_mass + 4 * size_t(j) + 4 * q);
    }
    if (!lanes::bend_kernel<F4, lanes::M4>(x, y, z, w, im_of, lanes::load4(b.inv_mass_sum + j), lanes::load4(b.stiffness + j),
                                          lanes::load4(b.rest_curvature + j)))
        return;
    for (int q = 0; q < 4; ++q) lanes::untranspose(x[q], y[q], z[q], pw[q], p[i[q]], p[i[4 + q]], p[i[8 + q]], p[i[12 + q]]);
}

// hclBendStiffnessConstraintSet (the reading of the corpus, sim_setups.cpp and docs/runtime.md):
// the wings a, b carry weights summing to 1 (wa = hB/(hA+hB)), the hinge c, d weights summing to
// -1, so c = sum w_i p_i runs from the hinge to the wing segment and vanishes on a flat pair; the
// file's restCurvature is the signed curvature (c.n)/(hA hB), n = unit((d - c) x (b - a)), hA and
// hB the wings' heights over the hinge. The constraint C = c.n - restCurvature * hA * hB (metres,
// heights of the current positions) is projected along n with the inverse-mass-weighted shares:
// p_i -= n * (((stiffness * C) / sum w_j^2 invMass_j) * w_i) * invMass_i. Scheduled: by level,
// four items at a time; sequential: one by one in the file's order. The same bits.
void solve_bend_stiffness(const BendStiffnessSet& b, const Setup& s, Float4* p, SolveMode mode, uint32_t lanes) {
    if (mode == SolveMode::sequential) {
        for (uint32_t j = 0; j < b.count; ++j) bend_one(b, s, p, b.file_order[j]);
        return;
    }
    // Two four-item batches of one level share no particle either: eight lanes take them at once.
    uint32_t j = 0;
    for (uint32_t l = 0; l < b.level_count; ++l) {
        uint32_t k = 0;
        if (evex_kernels(lanes))
            for (; k + 2 <= b.level_batches4[l]; k += 2, j += 8) evex::bend_eight_avx2(b, s, p, j);
        else if (lanes >= 8)
            for (; k + 2 <= b.level_batches4[l]; k += 2, j += 8) avx2::bend_eight_avx2(b, s, p, j);
        for (; k < b.level_batches4[l]; ++k, j += 4) bend_four(b, s, p, j);
        for (uint32_t q = 0; q < b.level_singles[l]; ++q, ++j) bend_one(b, s, p, j);
    }
}

// Local-range entries j..j+3 (their particles distinct), one per lane: each lane runs the
// scalar loop's expressions in its order; a conditional step of the loop is a select, and a
// particle the loop skips (pinned) is written back as it was.
void local_range_four(const LocalRangeSet& r, const Setup& s, Float4* p, const Float4* ref, const Float4* nrm, uint32_t j) {
    using lanes::F4;
    const uint32_t* i = r.particle + j;
    const uint32_t* v = r.vertex + j;
    F4 px, py, pz, pw, cx, cy, cz, cw, nx, ny, nz, nw;
    lanes::transpose(p[i[0]], p[i[1]], p[i[2]], p[i[3]], px, py, pz, pw);
    lanes::transpose(ref[v[0]], ref[v[1]], ref[v[2]], ref[v[3]], cx, cy, cz, cw);
    if (nrm) lanes::transpose(nrm[v[0]], nrm[v[1]], nrm[v[2]], nrm[v[3]], nx, ny, nz, nw);
    else nx = ny = nz = lanes::splat4(0.0f);
    const bool band = r.apply_normal_component && nrm;
    const F4 hi = band ? lanes::load4(r.max_normal_distance + j) : nx, lo = band ? lanes::load4(r.min_normal_distance + j) : nx;
    F4 tx, ty, tz;
    lanes::local_range_kernel<F4, lanes::M4>(px, py, pz, cx, cy, cz, nx, ny, nz, nrm != nullptr, r.apply_normal_component, hi, lo,
                                             lanes::load4(r.maximum_distance + j), r.shape_type, r.stiffness, tx, ty, tz);
    const lanes::M4 live = lanes::mask4(s.dynamic_mask[i[0]], s.dynamic_mask[i[1]], s.dynamic_mask[i[2]], s.dynamic_mask[i[3]]);
    lanes::untranspose(lanes::select(live, tx, px), lanes::select(live, ty, py), lanes::select(live, tz, pz), pw, p[i[0]], p[i[1]], p[i[2]], p[i[3]]);
}

void solve_local_range(const LocalRangeSet& r, const Setup& s, Float4* p, const StepInputs& in) {
    if (r.reference_buffer >= in.buffer_count || in.buffer_positions == nullptr) return;
    const Float4* ref = in.buffer_positions[r.reference_buffer];
    const Float4* nrm = in.buffer_normals ? in.buffer_normals[r.reference_buffer] : nullptr;
    if (ref == nullptr) return;
    uint32_t first = 0;
    if (r.distinct && in.mode != SolveMode::sequential) {
        const uint32_t lanes = step_lanes(in);
        if (evex_kernels(lanes))
            for (; first + 8 <= r.count; first += 8) evex::local_range_eight_avx2(r, s, p, ref, nrm, first);
        else if (lanes >= 8)
            for (; first + 8 <= r.count; first += 8) avx2::local_range_eight_avx2(r, s, p, ref, nrm, first);
        for (; first + 4 <= r.count; first += 4) local_range_four(r, s, p, ref, nrm, first);
    }
    for (uint32_t j = first; j < r.count; ++j) {
        const uint32_t i = r.particle[j];
        if (!s.dynamic_mask[i]) continue;
        const Float4 c = ref[r.vertex[j]];
        const Float4 n = nrm ? nrm[r.vertex[j]] : Float4{0, 0, 0, 0};
        Float4 d{p[i].x - c.x, p[i].y - c.y, p[i].z - c.z, 0};
        const float nd = nrm ? dot3(d, n) : 0.0f;
        float nd_new = nd;
        if (r.apply_normal_component && nrm) {
            nd_new = nd > r.max_normal_distance[j] ? r.max_normal_distance[j] : nd;
            nd_new = nd_new < r.min_normal_distance[j] ? r.min_normal_distance[j] : nd_new;
        }
        const float maxd = r.maximum_distance[j];
        Float4 t;
        if (r.shape_type == 1) {  // cylinder: the radial limit across the normal
            Float4 q{d.x - n.x * nd, d.y - n.y * nd, d.z - n.z * nd, 0};
            const float l2 = dot3(q, q);
            if (l2 > maxd * maxd) {
                const float k = maxd / std::sqrt(l2);
                q = {q.x * k, q.y * k, q.z * k, 0};
            }
            t = {(c.x + q.x) + n.x * nd_new, (c.y + q.y) + n.y * nd_new, (c.z + q.z) + n.z * nd_new, 0};
        } else {  // sphere
            if (nd_new != nd) {
                const float k = nd_new - nd;
                d = {d.x + n.x * k, d.y + n.y * k, d.z + n.z * k, 0};
            }
            const float l2 = dot3(d, d);
            if (l2 > maxd * maxd) {
                const float k = maxd / std::sqrt(l2);
                d = {d.x * k, d.y * k, d.z * k, 0};
            }
            t = {c.x + d.x, c.y + d.y, c.z + d.z, 0};
        }
        if (r.stiffness == 1.0f) {
            p[i].x = t.x; p[i].y = t.y; p[i].z = t.z;
        } else {
            p[i].x = p[i].x + (t.x - p[i].x) * r.stiffness;
            p[i].y = p[i].y + (t.y - p[i].y) * r.stiffness;
            p[i].z = p[i].z + (t.z - p[i].z) * r.stiffness;
        }
    }
}

}  // namespace

// Transition bounds (docs/havok-cloth.md): towards the animation ((1 - (1/period)*t) * start) * (1/s),
// towards the simulation (((1/period)*t) * toSimMaxDistance) * (1/s); t the particle's own blend
// time (the set's time less its delay, within [0, period]).
float transition_bound(TransitionMode mode, float period, float time, float delay, float start, float to_sim_max,
                       float divisor) {
    float t = time - delay;
    t = t < 0 ? 0.0f : (t > period ? period : t);
    const float inv_period = 1.0f / period;
    const float inv_s = 1.0f / divisor;
    if (mode == TransitionMode::to_animation) return ((1.0f - inv_period * t) * start) * inv_s;
    return ((inv_period * t) * to_sim_max) * inv_s;
}

namespace {

void solve_transition(const TransitionSet& set, TransitionState& ts, const Setup& s, Float4* p, const StepInputs& in) {
    if (ts.mode == TransitionMode::simulated) return;
    if (set.reference_buffer >= in.buffer_count || in.buffer_positions == nullptr) return;
    const Float4* ref = in.buffer_positions[set.reference_buffer];
    if (ref == nullptr) return;
    const bool to_anim = ts.mode == TransitionMode::to_animation;
    const float period = to_anim ? set.to_anim_period : set.to_sim_period;
    for (uint32_t j = 0; j < set.count; ++j) {
        const uint32_t i = set.particle[j];
        if (!s.dynamic_mask[i]) continue;
        const float bound = transition_bound(ts.mode, period, ts.time, to_anim ? set.to_anim_delay[j] : set.to_sim_delay[j],
                                             ts.start_distance[j], set.to_sim_max_distance[j], ts.divisor);
        const Float4 c = ref[set.vertex[j]];
        const Float4 d{p[i].x - c.x, p[i].y - c.y, p[i].z - c.z, 0};
        const float l2 = dot3(d, d);
        if (!(l2 > bound * bound)) continue;
        const float k = bound / std::sqrt(l2);
        p[i].x = c.x + d.x * k;
        p[i].y = c.y + d.y * k;
        p[i].z = c.z + d.z * k;
    }
}

// Symmetric 3x3 as a[0..2][0..2].
struct Sym3 {
    float m[3][3];
};

// Frame of a volume set: shape matching. A = sum w_i (p_i - c) f_i^T; its rotation R from the
// polar decomposition A = R S, with S^2 = A^T A diagonalised by a Jacobi solve warm-started from
// the last step's eigenvectors (docs/havok-cloth.md: hclVolumeConstraintMxInstanceData at +0x60).
void volume_frame(const VolumeSet& v, VolumeState& vs, const Float4* p) {
    float cx = 0, cy = 0, cz = 0, wsum = 0;
    for (uint32_t j = 0; j < v.frame_count; ++j) {
        const float w = v.frame_weights[j];
        const Float4& q = p[v.frame_particles[j]];
        cx = cx + q.x * w;
        cy = cy + q.y * w;
        cz = cz + q.z * w;
        wsum = wsum + w;
    }
    if (!(wsum > 0)) return;
    const float inv_w = 1.0f / wsum;
    cx = cx * inv_w; cy = cy * inv_w; cz = cz * inv_w;
    float A[3][3] = {};
    for (uint32_t j = 0; j < v.frame_count; ++j) {
        const float w = v.frame_weights[j];
        const Float4& q = p[v.frame_particles[j]];
        const float d[3] = {(q.x - cx) * w, (q.y - cy) * w, (q.z - cz) * w};
        const float f[3] = {v.frame_vectors[j].x, v.frame_vectors[j].y, v.frame_vectors[j].z};
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) A[r][c] = A[r][c] + d[r] * f[c];
    }
    // S2 = A^T A
    float S2[3][3];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) S2[r][c] = (A[0][r] * A[0][c] + A[1][r] * A[1][c]) + A[2][r] * A[2][c];
    // V: columns = eigenvectors (warm start)
    float V[3][3];
    for (int c = 0; c < 3; ++c) {
        const Float4& e = vs.eigenvectors[c];
        V[0][c] = e.x; V[1][c] = e.y; V[2][c] = e.z;
    }
    // B = V^T S2 V
    float T[3][3], B[3][3];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) T[r][c] = (S2[r][0] * V[0][c] + S2[r][1] * V[1][c]) + S2[r][2] * V[2][c];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) B[r][c] = (V[0][r] * T[0][c] + V[1][r] * T[1][c]) + V[2][r] * T[2][c];
    // Cyclic Jacobi: a fixed number of sweeps (warm-started, one or two suffice step to step).
    for (int sweep = 0; sweep < 4; ++sweep) {
        static const int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
        for (const auto& pr : pairs) {
            const int a = pr[0], b = pr[1];
            const float apq = B[a][b];
            if (apq == 0.0f) continue;
            const float theta = (B[b][b] - B[a][a]) / (2.0f * apq);
            const float t = (theta >= 0 ? 1.0f : -1.0f) / (std::fabs(theta) + std::sqrt(theta * theta + 1.0f));
            const float c = 1.0f / std::sqrt(t * t + 1.0f), sn = t * c;
            for (int k = 0; k < 3; ++k) {  // B = J^T B J
                const float bka = B[k][a], bkb = B[k][b];
                B[k][a] = c * bka - sn * bkb;
                B[k][b] = sn * bka + c * bkb;
            }
            for (int k = 0; k < 3; ++k) {
                const float bak = B[a][k], bbk = B[b][k];
                B[a][k] = c * bak - sn * bbk;
                B[b][k] = sn * bak + c * bbk;
            }
            for (int k = 0; k < 3; ++k) {
                const float vka = V[k][a], vkb = V[k][b];
                V[k][a] = c * vka - sn * vkb;
                V[k][b] = sn * vka + c * vkb;
            }
        }
    }
    const float l0 = B[0][0], l1 = B[1][1], l2 = B[2][2];
    const float eps = 1e-20f;
    for (int c = 0; c < 3; ++c) vs.eigenvectors[c] = {V[0][c], V[1][c], V[2][c], 0};
    if (!(l0 > eps && l1 > eps && l2 > eps)) {  // degenerate group: keep the last rotation, move the origin
        vs.frame.c3 = {cx, cy, cz, 1};
        return;
    }
    const float is[3] = {1.0f / std::sqrt(l0), 1.0f / std::sqrt(l1), 1.0f / std::sqrt(l2)};
    // S^-1 = V diag(is) V^T; R = A S^-1
    float Si[3][3];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) Si[r][c] = ((V[r][0] * is[0]) * V[c][0] + (V[r][1] * is[1]) * V[c][1]) + (V[r][2] * is[2]) * V[c][2];
    float R[3][3];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) R[r][c] = (A[r][0] * Si[0][c] + A[r][1] * Si[1][c]) + A[r][2] * Si[2][c];
    vs.frame.c0 = {R[0][0], R[1][0], R[2][0], 0};
    vs.frame.c1 = {R[0][1], R[1][1], R[2][1], 0};
    vs.frame.c2 = {R[0][2], R[1][2], R[2][2], 0};
    vs.frame.c3 = {cx, cy, cz, 1};
}

}  // namespace

// The volume batch target (docs/havok-cloth.md): ((c0*x + t) + c1*y) + c2*z.
Float4 volume_target(const Matrix4& frame, const Float4& v) {
    return {((frame.c0.x * v.x + frame.c3.x) + frame.c1.x * v.y) + frame.c2.x * v.z,
            ((frame.c0.y * v.x + frame.c3.y) + frame.c1.y * v.y) + frame.c2.y * v.z,
            ((frame.c0.z * v.x + frame.c3.z) + frame.c1.z * v.y) + frame.c2.z * v.z, 0};
}

namespace {

void solve_volume(const VolumeSet& v, VolumeState& vs, const Setup& s, Float4* p) {
    volume_frame(v, vs, p);
    for (uint32_t j = 0; j < v.apply_count; ++j) {
        const uint32_t i = v.apply_particles[j];
        if (!s.dynamic_mask[i]) continue;
        const Float4 t = volume_target(vs.frame, v.apply_vectors[j]);
        const float k = v.apply_stiffness[j];
        p[i].x = p[i].x + (t.x - p[i].x) * k;
        p[i].y = p[i].y + (t.y - p[i].y) * k;
        p[i].z = p[i].z + (t.z - p[i].z) * k;
    }
}

// ---- collision ---------------------------------------------------------------------------

}  // namespace

// The shape of collidable `cs` where it is this substep (collide_kernel.h).
WorldShape world_shape(const CollidableState& cs) {
    const Shape& sh = *cs.shape;
    WorldShape w{};
    w.kind = sh.kind;
    if (sh.kind == ShapeKind::plane) {
        const Float4 n = direction(cs.world, sh.p0);
        const Float4 o = cs.world.c3;
        w.c0x = n.x; w.c0y = n.y; w.c0z = n.z;
        w.r0 = sh.p0.w - dot3(n, o);
        return w;
    }
    const Float4 a = point(cs.world, sh.p0), b = point(cs.world, sh.p1);
    w.c0x = a.x; w.c0y = a.y; w.c0z = a.z;
    w.c1x = b.x; w.c1y = b.y; w.c1z = b.z;
    w.r0 = sh.r0;
    w.r1 = sh.r1;
    if (sh.kind == ShapeKind::sphere) {
        w.c1x = a.x; w.c1y = a.y; w.c1z = a.z;
        w.r1 = sh.r0;
        w.inv_l2 = 0;
        return w;
    }
    const Float4 ax{b.x - a.x, b.y - a.y, b.z - a.z, 0};
    const float l2 = dot3(ax, ax);
    w.inv_l2 = l2 > 0 ? 1.0f / l2 : 0.0f;
    w.length = std::sqrt(l2);
    const float il = w.length > 0 ? 1.0f / w.length : 0.0f;
    w.ux = ax.x * il; w.uy = ax.y * il; w.uz = ax.z * il;
    if (sh.kind == ShapeKind::tapered_capsule) {
        const float dr = w.r0 - w.r1;
        w.degenerate_cone = !(std::fabs(dr) < w.length);
        if (!w.degenerate_cone) {
            w.sin_t = dr / w.length;
            w.cos_t = std::sqrt(1.0f - w.sin_t * w.sin_t);
        } else if (w.r1 > w.r0) {  // big sphere alone
            w.c0x = w.c1x; w.c0y = w.c1y; w.c0z = w.c1z; w.r0 = w.r1;
        }
    }
    return w;
}

namespace {

// Convex geometry: a union of tetrahedra, four planes each (column k = plane k, outward normal
// and offset, in the shape's frame). A particle inside a tetrahedron (every plane distance below
// its radius) leaves through the plane it is least deep behind. Scalar: only 63 Elden Ring shapes.
template <Contact C = Contact::game>
bool collide_convex(const Shape& sh, const CollidableState& cs, Float4& p, Float4& q, float radius, float friction) {
    const float threshold = contact_threshold<C, float>();
    const Matrix4 to_shape = mul(sh.local_from_world, cs.world_to_local);
    bool moved = false;
    for (uint32_t t = 0; t < sh.tetrahedra_count; ++t) {
        const Matrix4& planes = sh.tetrahedra[t];
        const Float4 lp = point(to_shape, p);
        const Float4* pl[4] = {&planes.c0, &planes.c1, &planes.c2, &planes.c3};
        float best = -3.4e38f;
        int best_k = -1;
        for (int k = 0; k < 4; ++k) {
            const float d = plane_distance(*pl[k], lp) - radius;
            if (!(d < threshold)) {
                best_k = -1;
                break;
            }
            if (d > best) {
                best = d;
                best_k = k;
            }
        }
        if (best_k < 0) continue;
        // The plane's normal back in world space (to_shape is rigid: its inverse is its transpose).
        const Float4 ln{pl[best_k]->x, pl[best_k]->y, pl[best_k]->z, 0};
        const Float4 wn{dot3(Float4{to_shape.c0.x, to_shape.c0.y, to_shape.c0.z, 0}, ln),
                        dot3(Float4{to_shape.c1.x, to_shape.c1.y, to_shape.c1.z, 0}, ln),
                        dot3(Float4{to_shape.c2.x, to_shape.c2.y, to_shape.c2.z, 0}, ln), 0};
        float px = p.x, py = p.y, pz = p.z, qx = q.x, qy = q.y, qz = q.z;
        push_out<float, bool, C>(px, py, pz, qx, qy, qz, wn.x, wn.y, wn.z, best, friction, true);
        p.x = px; p.y = py; p.z = pz;
        q.x = qx; q.y = qy; q.z = qz;
        moved = true;
    }
    return moved;
}

// The particle groups (four particles each) a depenetration round visits, as a bit set: round 0
// visits every group, each later round the groups the one before moved. Particle indices are
// 16-bit in the files, so 16,385 groups cover every cloth; a larger one visits every group in
// every round.
constexpr uint32_t k_group_set_words = (65536 / 4 + 1 + 63) / 64;
struct GroupSet {
    uint64_t bits[k_group_set_words];
};

// Collidables first..end-1 (none convex geometry) on every particle, four particles at a time:
// each group is transposed once for all of them and written back only when one moved it. A
// particle meets the collidables in their order, as in the sequential loop; particles are
// independent of each other, so the loop order over them does not matter.
//
// Groups go sixteen particles at a time (scan_blocks, collide_kernel.h); with eight lanes the
// game's pass runs in links_avx2.cpp (collide_groups_avx2), two groups per register.
//
// Each group moved is added to `moved_groups` (a bit per group, when not nullptr; the game's pass
// records them for the depenetration). Depenetration: only the groups of `todo` (`todo_words`
// words; every group when nullptr); true when one moved.
template <Contact C = Contact::game>
bool collide_groups(const Setup& s, State& st, uint32_t first, uint32_t end, const uint64_t* todo = nullptr,
                    uint32_t todo_words = 0, uint64_t* moved_groups = nullptr) {
    bool any_group = false;
    Float4* p = st.positions;
    Float4* q = st.previous_positions;
    auto group = [&](uint32_t i, const CollisionChunk<F4>& ch, uint32_t cand) {
        if (collide_group<C>(s, p, q, ch, i, cand) && (C == Contact::depenetrate || moved_groups)) {
            any_group = true;
            if (moved_groups) moved_groups[i >> 8] |= uint64_t(1) << ((i >> 2) & 63);
        }
    };
    for_each_chunk<F4>(s, st, first, end, [&](const CollisionChunk<F4>& ch, uint32_t every) {
        if (C == Contact::game || todo == nullptr) {
            scan_blocks(
                s, p, ch, every,
                [&](uint32_t i, uint32_t cand) {
                    for (uint32_t j = i; j < i + 16; j += 4) group(j, ch, cand);
                },
                [&](uint32_t i) {
                    for (; i < s.padded_count; i += 4) group(i, ch, every);
                });
        } else {
            for (uint32_t wd = 0; wd < todo_words; ++wd)
                for (uint64_t b = todo[wd]; b != 0; b &= b - 1) {
                    const uint32_t g = wd * 64 + uint32_t(std::countr_zero(b));
                    if (collide_group<C>(s, p, q, ch, 4 * g, every)) {
                        any_group = true;
                        if (moved_groups) moved_groups[wd] |= uint64_t(1) << (g & 63);
                    }
                }
        }
    });
    return any_group;
}

// The opt-in depenetration (StepInputs::depenetration_rounds; not the game's arithmetic): after
// the step, the particles still deeper than k_depenetration_slack inside a collidable they
// collide with are moved out to its surface (hull plus particle radius) along the collision
// pass's normal, with their previous position, without friction. A round meets every enabled
// collidable in order (convex geometry too); the next round visits only the groups the last one
// moved, until a round moves nothing or `rounds` ran.
// Round 0: when the step's last pass was the collision pass (`after_collision`), only the groups
// it moved (State::collision_moved): a particle it left where it was is outside every
// collidable by the pass's own test, so only a moved one can be inside (wedged: pushed by a later
// collidable into an earlier one). Otherwise round 0 visits every group.
void depenetrate(const Setup& s, State& st, uint32_t rounds, bool after_collision) {
    const uint32_t total = st.collidable_count + st.runtime_collidable_count;
    const uint32_t groups = s.padded_count / 4;
    const bool tracked = st.group_words <= k_group_set_words;
    GroupSet sets[2];
    const uint64_t* todo = after_collision ? st.collision_moved : nullptr;
    if (todo) {
        bool any = false;
        for (uint32_t w = 0; w < st.group_words; ++w) any |= todo[w] != 0;
        if (!any) return;  // the collision pass moved nothing: nothing is inside
    }
    for (uint32_t round = 0; round < rounds; ++round) {
        GroupSet& moved = sets[round & 1];
        uint64_t* record = tracked ? moved.bits : nullptr;
        if (record) std::memset(record, 0, sizeof(uint64_t) * st.group_words);
        bool any_moved = false;
        uint32_t pending = 0;
        for (uint32_t k = 0; k <= total; ++k) {
            const bool convex = k < total && st.collidables[k].enabled && st.collidables[k].shape &&
                                st.collidables[k].shape->kind == ShapeKind::convex_geometry;
            if (k < total && !convex) continue;
            any_moved |= collide_groups<Contact::depenetrate>(s, st, pending, k, todo, st.group_words, record);
            pending = k + 1;
            if (k == total) break;
            const CollidableState& cs = st.collidables[k];
            const uint32_t bit = k < 32 ? (1u << k) : 0u;
            for (uint32_t g = 0; g < groups; ++g) {
                if (todo && !((todo[g >> 6] >> (g & 63)) & 1u)) continue;
                for (uint32_t i = 4 * g; i < 4 * g + 4 && i < s.particle_count; ++i)
                    if (s.dynamic_mask[i] && (cs.all_particles || (s.collision_mask[i] & bit)) &&
                        collide_convex<Contact::depenetrate>(*cs.shape, cs, st.positions[i], st.previous_positions[i], s.radius[i], 0.0f)) {
                        any_moved = true;
                        if (record) record[g >> 6] |= uint64_t(1) << (g & 63);
                    }
            }
        }
        if (!any_moved) return;
        todo = record;  // untracked (a cloth of more than 65,540 particles): every group again
    }
}

// `moved_groups` (nullptr, or State::collision_moved while the depenetration is on): cleared,
// then a bit set for each four-particle group a collidable moved.
// `lanes` >= 8 and no `moved_groups`: the groups run eight particles at a time (links_avx2.cpp).
void collide(const Setup& s, State& st, SolveMode mode, uint32_t lanes, uint64_t* moved_groups) {
    const uint32_t total = st.collidable_count + st.runtime_collidable_count;
    Float4* p = st.positions;
    Float4* q = st.previous_positions;
    if (moved_groups) std::memset(moved_groups, 0, sizeof(uint64_t) * st.group_words);
    auto mark = [moved_groups](uint32_t i) {
        if (moved_groups) moved_groups[i >> 8] |= uint64_t(1) << ((i >> 2) & 63);
    };
    auto groups = [&](uint32_t first, uint32_t end) {
        if (lanes >= 16 && !moved_groups) collide_groups_avx512(s, st, first, end);
        else if (evex_kernels(lanes) && !moved_groups) evex::collide_groups_avx2(s, st, first, end);
        else if (lanes >= 8 && !moved_groups) avx2::collide_groups_avx2(s, st, first, end);
        else collide_groups(s, st, first, end, nullptr, 0, moved_groups);
    };
    uint32_t pending = 0;  // scheduled mode: collidables pending..k-1 still to run as groups
    for (uint32_t k = 0; k < total; ++k) {
        const CollidableState& cs = st.collidables[k];
        if (!cs.enabled || cs.shape == nullptr) continue;
        const uint32_t bit = k < 32 ? (1u << k) : 0u;
        const bool all = cs.all_particles;
        if (cs.shape->kind == ShapeKind::convex_geometry) {
            if (mode != SolveMode::sequential) groups(pending, k);
            pending = k + 1;
            for (uint32_t i = 0; i < s.particle_count; ++i)
                if (s.dynamic_mask[i] && (all || (s.collision_mask[i] & bit)) &&
                    collide_convex(*cs.shape, cs, p[i], q[i], s.radius[i], s.friction[i]))
                    mark(i);
            continue;
        }
        if (mode != SolveMode::sequential) continue;  // runs in collide_groups
        const ShapeLanes<float> w = shape_lanes<float>(world_shape(cs));
        for (uint32_t i = 0; i < s.particle_count; ++i) {
            const bool active = s.dynamic_mask[i] && (all || (s.collision_mask[i] & bit));
            if (!active) continue;
            float px = p[i].x, py = p[i].y, pz = p[i].z, qx = q[i].x, qy = q[i].y, qz = q[i].z;
            if (collide_lanes<float, bool>(w, px, py, pz, qx, qy, qz, s.radius[i], s.friction[i], true)) mark(i);
            p[i].x = px; p[i].y = py; p[i].z = pz;
            q[i].x = qx; q[i].y = qy; q[i].z = qz;
        }
    }
    if (mode != SolveMode::sequential) groups(pending, total);
}

// Verlet: v = (p - q) * damping; q = p; p = (p + v) + a * h^2, a = gravity (+ force * inv_mass).
// One particle per four-lane vector (x, y, z, w); w and pinned particles are left as they are
// (a pinned particle's new position is computed and not kept: no branch in the loop).
// Particles [first, particle_count): the AVX2 path (links_avx2.cpp integrate_avx2) does the
// others two at a time with these operations.
template <bool Forces>
void integrate_particles(const Setup& s, State& st, uint32_t first) {
    const float hh = st.substep_length * st.substep_length;
    const F4 damping = splat4(st.damping), h2 = splat4(hh);
    const F4 g = load4(&s.gravity.x);
    Float4* const p = st.positions;
    Float4* const q = st.previous_positions;
    const Float4* const force = st.forces;
    const uint32_t* const dynamic = s.dynamic_mask;
    const float* const inv_mass = s.inv_mass;
    const uint32_t n = s.particle_count;
    alignas(16) static const uint32_t xyz_bits[4] = {~0u, ~0u, ~0u, 0u};
    const M4 xyz = mask_from_bits(xyz_bits);
    for (uint32_t i = first; i < n; ++i) {
        const F4 pi = load4(&p[i].x), qi = load4(&q[i].x);
        const F4 v = (pi - qi) * damping;
        F4 a = g;
        if constexpr (Forces) a = g + load4(&force[i].x) * splat4(inv_mass[i]);
        const F4 np = (pi + v) + a * h2;
        store4(&q[i].x, pi);
        store4(&p[i].x, select(mask_and(xyz, mask_splat(dynamic[i])), np, pi));
    }
}
// Sixteen lanes (AVX-512F): four particles per vector; eight or more (AVX2): two per vector, the
// rest on SSE2 (the same rule as solve_levels' link batches); the sequential and four-lane solves
// keep the SSE2 loop, so the tests comparing them with the wide solves also compare the loops.
void integrate(const Setup& s, State& st, bool forces, uint32_t lanes) {
    if (lanes >= 16) {
        integrate_avx512(s, st, forces);
        return;
    }
    const uint32_t first = lanes >= 8 ? avx2::integrate_avx2(s, st, forces) : 0;
    if (forces) integrate_particles<true>(s, st, first);
    else integrate_particles<false>(s, st, first);
}


// The Elden Ring cloth action (docs/havok-cloth.md): fields sampled once per step at the centre of the
// particles' bounding box; per particle ((-1/dt)*(p - q) + direction*speed) * c, with c the mass
// share times |direction . normal| times the stiffness (the stiffness times 0.7 without normals);
// with stride s, an interior particle reuses its predecessor's force when modff(s*i) + s >= 1.
void compute_normals(const Setup& s, State& st);

bool wind(const Setup& s, State& st, const StepInputs& in) {
    if (in.wind_field_count == 0 || in.wind_fields == nullptr || s.particle_count == 0) return false;
    // Deferred normals the caller did not bring up to date: from the positions as they are now
    // (the caller's contract is to update them before the positions change).
    if (st.normals_due) compute_normals(s, st);
    Float4 lo = st.positions[0], hi = st.positions[0];
    for (uint32_t i = 1; i < s.particle_count; ++i) {
        const Float4& p = st.positions[i];
        lo = {p.x < lo.x ? p.x : lo.x, p.y < lo.y ? p.y : lo.y, p.z < lo.z ? p.z : lo.z, 0};
        hi = {p.x > hi.x ? p.x : hi.x, p.y > hi.y ? p.y : hi.y, p.z > hi.z ? p.z : hi.z, 0};
    }
    st.wind_sample_point = {(lo.x + hi.x) * 0.5f, (lo.y + hi.y) * 0.5f, (lo.z + hi.z) * 0.5f, 0};
    Float4 dir = in.wind_fields[0].direction;
    Float4 wv{dir.x * in.wind_fields[0].speed, dir.y * in.wind_fields[0].speed, dir.z * in.wind_fields[0].speed, 0};
    if (in.wind_field_count > 1) {  // per lane: the largest positive part plus the most negative part
        float pos[3] = {0, 0, 0}, neg[3] = {0, 0, 0};
        for (uint32_t f = 0; f < in.wind_field_count; ++f) {
            const WindField& w = in.wind_fields[f];
            const float v[3] = {w.direction.x * w.speed, w.direction.y * w.speed, w.direction.z * w.speed};
            for (int l = 0; l < 3; ++l) {
                const float up = v[l] > 0 ? v[l] : 0.0f, down = v[l] < 0 ? v[l] : 0.0f;
                pos[l] = up > pos[l] ? up : pos[l];
                neg[l] = down < neg[l] ? down : neg[l];
            }
        }
        wv = {pos[0] + neg[0], pos[1] + neg[1], pos[2] + neg[2], 0};
        const float l2 = dot3(wv, wv);
        const float il = l2 > 0 ? 1.0f / std::sqrt(l2) : 0.0f;
        dir = {wv.x * il, wv.y * il, wv.z * il, 0};
    }
    float stride = in.wind_stride < 0 ? 0.0f : (in.wind_stride > 1 ? 1.0f : in.wind_stride);
    const float k = in.wind_stiffness;
    const float inv_dt = -1.0f / st.time_step;
    const bool normals = s.do_normals && s.triangle_count > 0;
    const uint32_t n = s.particle_count;
    for (uint32_t i = 0; i < n; ++i) {
        if (wind_reuses_previous(i, n, stride)) {
            st.forces[i] = st.forces[i - 1];
            continue;
        }
        const Float4& p = st.positions[i];
        const Float4& q = st.previous_positions[i];
        float c;
        if (normals) {
            const float dn = dot3(dir, st.normals[i]);
            c = (s.mass_share[i] * (dn < 0 ? -dn : dn)) * k;
        } else {
            c = (s.mass_share[i] * k) * 0.7f;
        }
        st.forces[i] = {(inv_dt * (p.x - q.x) + wv.x) * c, (inv_dt * (p.y - q.y) + wv.y) * c, (inv_dt * (p.z - q.z) + wv.z) * c, 0};
    }
    return true;
}

void compute_normals(const Setup& s, State& st) {
    st.normals_due = false;
    if (!s.do_normals || s.triangle_count == 0) return;
    // Each triangle's normal once, then each particle's triangles in triangle order from +0: the
    // sums of a loop scattering the triangles into their corners, in its order.
    const Float4* p = st.positions;
    for (uint32_t t = 0; t < s.triangle_count; ++t) {
        const uint32_t a = s.triangles[3 * t], b = s.triangles[3 * t + 1], c = s.triangles[3 * t + 2];
        const float ux = p[b].x - p[a].x, uy = p[b].y - p[a].y, uz = p[b].z - p[a].z;
        const float vx = p[c].x - p[a].x, vy = p[c].y - p[a].y, vz = p[c].z - p[a].z;
        st.triangle_normals[t] = {uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx, 0};
    }
    for (uint32_t i = 0; i < s.particle_count; ++i) {
        float nx = 0.0f, ny = 0.0f, nz = 0.0f;
        for (uint32_t e = s.normal_first[i]; e < s.normal_first[i + 1]; ++e) {
            const Float4& n = st.triangle_normals[s.normal_triangles[e]];
            nx = nx + n.x, ny = ny + n.y, nz = nz + n.z;
        }
        st.normals[i] = {nx, ny, nz, 0};
    }
    for (uint32_t i = 0; i < s.particle_count; ++i) {
        Float4& n = st.normals[i];
        const float l2 = dot3(n, n);
        if (l2 > 0) {
            const float il = 1.0f / std::sqrt(l2);
            n = {n.x * il, n.y * il, n.z * il, 0};
        }
    }
}

void move_collidables(State& st, float h) {
    const uint32_t total = st.collidable_count + st.runtime_collidable_count;
    for (uint32_t k = 0; k < total; ++k) {
        CollidableState& c = st.collidables[k];
        const Float4& v = c.linear_velocity;
        c.translation = {c.translation.x + v.x * h, c.translation.y + v.y * h, c.translation.z + v.z * h, 0};
        const Float4& w = c.angular_velocity;
        if (w.x != 0 || w.y != 0 || w.z != 0) c.rotation = integrate_rotation(c.rotation, w, h);
        c.world = matrix_from(c.rotation, c.translation);
        c.world_to_local = rigid_inverse(c.world);
    }
}

}  // namespace

void simulate(const Setup& s, State& st, const StepInputs& in) {
    GameFloatMode fp;
    if (!st.started) notify(s, st, in);
    const bool forces = wind(s, st, in);
    const float h = st.substep_length;
    const uint32_t lanes = step_lanes(in);
    for (uint32_t sub = 0; sub < s.sub_steps; ++sub) {
        move_collidables(st, h);
        integrate(s, st, forces, lanes);
        for (uint32_t it = 0; it < s.solve_iterations; ++it) {
            for (uint32_t k = 0; k < s.pass_count; ++k) {
                const Pass& pass = s.passes[k];
                switch (pass.kind) {
                    case PassKind::links: solve_links(s.link_runs[pass.index], st.positions, in); break;
                    case PassKind::bend_stiffness: solve_bend_stiffness(s.bend_stiffness_sets[pass.index], s, st.positions, in.mode, lanes); break;
                    case PassKind::local_range: if (!in.skip_local_range) solve_local_range(s.local_range_sets[pass.index], s, st.positions, in); break;
                    case PassKind::transition: {
                        const TransitionSet& t = s.transition_sets[pass.index];
                        solve_transition(t, st.transitions[t.state_index], s, st.positions, in);
                        break;
                    }
                    case PassKind::volume_mx: {
                        const VolumeSet& v = s.volume_sets[pass.index];
                        solve_volume(v, st.volumes[v.state_index], s, st.positions);
                        break;
                    }
                    case PassKind::collision:
                        if (!in.skip_collision) collide(s, st, in.mode, lanes, in.depenetration_rounds ? st.collision_moved : nullptr);
                        break;
                }
            }
        }
    }
    if (in.depenetration_rounds) {
        const bool after_collision = !in.skip_collision && s.pass_count > 0 && s.passes[s.pass_count - 1].kind == PassKind::collision;
        depenetrate(s, st, in.depenetration_rounds, after_collision);
    }
    if (in.defer_normals) st.normals_due = s.do_normals && s.triangle_count > 0;
    else compute_normals(s, st);
}

void update_normals(const Setup& s, State& st) {
    if (st.normals_due) compute_normals(s, st);
}

void step(const Setup& s, State& st, const StepInputs& in) {
    notify(s, st, in);
    simulate(s, st, in);
}

void begin_transition(const Setup& s, State& st, uint32_t set_index, TransitionMode mode, const StepInputs& in) {
    if (set_index >= st.transition_count) return;
    const TransitionSet& set = s.transition_sets[set_index];
    TransitionState& t = st.transitions[set_index];
    t.mode = mode;
    t.time = 0;
    const Float4* ref = set.reference_buffer < in.buffer_count && in.buffer_positions ? in.buffer_positions[set.reference_buffer]
                                                                                       : nullptr;
    for (uint32_t j = 0; j < set.count; ++j) {
        float d = 0;
        if (ref) {
            const Float4& p = st.positions[set.particle[j]];
            const Float4& c = ref[set.vertex[j]];
            const Float4 v{p.x - c.x, p.y - c.y, p.z - c.z, 0};
            d = std::sqrt(dot3(v, v));
        }
        t.start_distance[j] = d;
    }
}

}  // namespace drape::solver
