// drape solver: the arithmetic docs/havok-cloth.md states ("At run time", "Sekiro", "Elden Ring"), one
// function per rule, each with its test (tests/solver_rules_test.cpp).
#include <cmath>

#include "solver/solver.h"

#if defined(__SSE__) || defined(_M_X64)
#include <xmmintrin.h>
#define DRAPE_SOLVER_HAS_RSQRT 1
#endif

namespace drape::solver {

float substep_length(float dt, uint32_t sub_steps, float slow_motion) {
    const float time_step = dt / slow_motion;
    const float inv_sub_steps = 1.0f / float(sub_steps);  // rounded first, as the game does
    return inv_sub_steps * time_step;
}

float damping_factor(float global_damping_per_second, float h) { return std::pow(1.0f - global_damping_per_second, h); }

float constraint_stiffness(uint32_t model, uint32_t sub_steps, float slow_motion, float world_stepping) {
    if (model == 0 || model == 1) return 1.0f;
    return std::pow((float(sub_steps) * slow_motion) * world_stepping, -1.725f);
}

bool keep_velocity(uint32_t model, bool adapt, uint32_t sub_steps, float slow_motion, float world_stepping) {
    return (model != 1 || adapt) && (sub_steps != 1 || slow_motion != 1.0f || world_stepping != 1.0f);
}

namespace {

// acos on [0, 1] through the asin polynomial (Abramowitz & Stegun 4.4.46, |error| <= 2e-8):
// acos(x) = sqrt(1 - x) * P(x), asin(x) = pi/2 - acos(x).
float acos_poly(float x) {
    const float p = ((((((-0.0012624911f * x + 0.0066700901f) * x - 0.0170881256f) * x + 0.0308918810f) * x -
                       0.0501743046f) * x + 0.0889789874f) * x - 0.2145988016f) * x + 1.5707963050f;
    return std::sqrt(1.0f - x) * p;
}

// 1/sqrt(x) by the processor's estimate and one Newton step (docs/havok-cloth.md). Where there is no
// estimate instruction, the correctly rounded value seeds the step.
float rsqrt_newton(float x, bool portable) {
#if DRAPE_SOLVER_HAS_RSQRT
    const float r = portable ? 1.0f / std::sqrt(x) : _mm_cvtss_f32(_mm_rsqrt_ss(_mm_set_ss(x)));
#else
    (void)portable;
    const float r = 1.0f / std::sqrt(x);
#endif
    return (0.5f * r) * (3.0f - (x * r) * r);
}

}  // namespace

void drive_velocities(const Quaternion& cur, const Float4& cur_t, const Quaternion& goal_in, const Float4& goal_t, float dt,
                      Float4& linear_velocity, Float4& angular_velocity, bool portable) {
    const float inv_dt = 1.0f / dt;
    linear_velocity = {(goal_t.x - cur_t.x) * inv_dt, (goal_t.y - cur_t.y) * inv_dt, (goal_t.z - cur_t.z) * inv_dt, 0};
    // q and -q are one rotation: take the goal on the current's side, so the angle is <= pi.
    Quaternion goal = goal_in;
    const Float4 g4{goal.x, goal.y, goal.z, goal.w}, c4{cur.x, cur.y, cur.z, cur.w};
    float real = dot4(g4, c4);  // real part of goal * conj(current)
    if (real < 0) {
        goal = {-goal.x, -goal.y, -goal.z, -goal.w};
        real = -real;
    }
    // Imaginary part of goal * conj(current): cw*g - gw*c - g x c.
    const float vx = (cur.w * goal.x - goal.w * cur.x) - (goal.y * cur.z - goal.z * cur.y);
    const float vy = (cur.w * goal.y - goal.w * cur.y) - (goal.z * cur.x - goal.x * cur.z);
    const float vz = (cur.w * goal.z - goal.w * cur.z) - (goal.x * cur.y - goal.y * cur.x);
    const Float4 v{vx, vy, vz, 0};
    const float n2 = dot3(v, v);
    if (!(n2 > 0)) {
        angular_velocity = {0, 0, 0, 0};
        return;
    }
    const float angle = 2.0f * acos_poly(real > 1.0f ? 1.0f : real);
    const float r = rsqrt_newton(n2, portable);
    const float s = angle / dt;
    angular_velocity = {(vx * r) * s, (vy * r) * s, (vz * r) * s, 0};
}

Quaternion integrate_rotation(const Quaternion& q, const Float4& w, float h) {
    const float half = h * 0.5f;
    const Float4 a{w.x * half, w.y * half, w.z * half, 0};
    const float u = dot3(a, a) * 0.405284735f;  // |w h / 2|^2 * 4 / pi^2
    // ((1 - 0.822948 u) - 0.130529 u^2) - (0.044408 u) u^2: theta*cot(theta), so that (a, w)
    // normalised is (sin theta axis, cos theta).
    const float u2 = u * u;
    const float dw = ((1.0f - 0.822948f * u) - 0.130529f * u2) - (0.044408f * u) * u2;
    // dq * q
    Quaternion r;
    r.x = (dw * q.x + a.x * q.w) + (a.y * q.z - a.z * q.y);
    r.y = (dw * q.y + a.y * q.w) + (a.z * q.x - a.x * q.z);
    r.z = (dw * q.z + a.z * q.w) + (a.x * q.y - a.y * q.x);
    r.w = dw * q.w - dot3(a, Float4{q.x, q.y, q.z, 0});
    const float n = dot4(Float4{r.x, r.y, r.z, r.w}, Float4{r.x, r.y, r.z, r.w});
    const float inv = 1.0f / std::sqrt(n);
    return {r.x * inv, r.y * inv, r.z * inv, r.w * inv};
}

bool wind_reuses_previous(uint32_t i, uint32_t n, float stride) {
    if (i == 0 || i + 1 >= n) return false;  // first and last always computed
    float whole;
    const float frac = std::modf(stride * float(i), &whole);
    return frac + stride >= 1.0f;
}

}  // namespace drape::solver
