// docs/havok-cloth.md's run-time arithmetic, one test per rule, each named after the rule it states.
// Expected values are written out from the formulas of docs/havok-cloth.md here, not taken from the solver.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "solver_support.h"

using namespace drape::solver;
using drape::solver::test::Sim;

namespace {

uint32_t bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

// One free particle under a pinned one, joined by a standard link.
struct Pendulum {
    ParticleDesc particles[2] = {{0, 0, 0.0f, 0}, {1, 1, 0.01f, 0.5f}};
    Float4 rest[2] = {{0, 1, 0, 0}, {0.3f, 0.6f, 0, 0}};
    LinkDesc link{0, 1, 0.5f, 1.0f};
    ConstraintSetDesc set;
    SimClothDesc desc;
    Pendulum(uint8_t sub_steps = 1, float damping = 0.2f) {
        set.kind = ConstraintKind::standard_link;
        set.links = &link;
        set.count = 1;
        desc.particles = particles;
        desc.particle_count = 2;
        desc.rest_positions = rest;
        desc.constraint_sets = &set;
        desc.constraint_set_count = 1;
        desc.sub_steps = sub_steps;
        desc.global_damping_per_second = damping;
    }
};

}  // namespace

TEST_CASE("solver rule 1: the substep is (1/subSteps)*timeStep with the reciprocal rounded first, timeStep = dt/slowMotion") {
    int differs_from_division = 0;
    for (uint32_t n : {1u, 2u, 3u, 4u, 7u})
        for (float dt : {1.0f / 30, 1.0f / 60, 0.0333333f, 0.0171f, 0.0412f, 0.1f})
            for (float slow : {1.0f, 0.5f, 3.0f}) {
                const float time_step = dt / slow;
                const float recip = 1.0f / float(n);
                const float expected = recip * time_step;
                CHECK(bits(substep_length(dt, n, slow)) == bits(expected));
                if (bits(expected) != bits(time_step / float(n))) ++differs_from_division;
            }
    CHECK(differs_from_division > 0);  // the order is observable: the test tells the two apart
}

TEST_CASE("solver rule 1: damping is powf(1 - globalDampingPerSecond, dt) with the step's dt in every substep, and previous positions are rescaled when the step length changes") {
    Pendulum pd(2, 0.25f);
    Sim sim(pd.desc);
    REQUIRE(sim.ok());
    StepInputs in;
    in.dt = 1.0f / 30;
    sim.step(in);
    const float h1 = (1.0f / 2.0f) * (1.0f / 30);
    CHECK(bits(sim.state->last_substep_length) == bits(h1));
    CHECK(bits(sim.state->damping) == bits(std::pow(1.0f - 0.25f, 1.0f / 30)));
    CHECK(bits(sim.state->damping) != bits(std::pow(1.0f - 0.25f, h1)));  // two substeps: the substep's power would differ
    // A different dt: previous = p - (p - q) * (h2 * (1/h1)), before anything else moves.
    const Float4 p = sim.p(1), q = sim.state->previous_positions[1];
    in.dt = 1.0f / 20;
    notify(*sim.setup, *sim.state, in);
    const float h2 = (1.0f / 2.0f) * (1.0f / 20);
    const float ratio = h2 * (1.0f / h1);
    const Float4 r = sim.state->previous_positions[1];
    CHECK(bits(r.x) == bits(p.x - (p.x - q.x) * ratio));
    CHECK(bits(r.y) == bits(p.y - (p.y - q.y) * ratio));
    CHECK(bits(sim.state->damping) == bits(std::pow(1.0f - 0.25f, 1.0f / 20)));
    // The same dt again: nothing is rescaled.
    simulate(*sim.setup, *sim.state, in);
    const Float4 q2 = sim.state->previous_positions[1];
    notify(*sim.setup, *sim.state, in);
    CHECK(bits(sim.state->previous_positions[1].x) == bits(q2.x));
}

TEST_CASE("solver rule 2: stiffness models 0 and 1 give 1.0 and keep-velocity follows adaptConstraintStiffness, subSteps, slowMotion and worldStepping") {
    for (uint32_t model : {0u, 1u})
        for (uint32_t n : {1u, 2u, 4u}) {
            CHECK(constraint_stiffness(model, n, 1.0f, 1.0f) == 1.0f);
            CHECK(constraint_stiffness(model, n, 0.5f, 2.0f) == 1.0f);
        }
    CHECK(bits(constraint_stiffness(2, 3, 1.0f, 1.0f)) == bits(std::pow(3.0f, -1.725f)));
    // (model != 1 || adapt) && (subSteps != 1 || slowMotion != 1 || worldStepping != 1)
    CHECK_FALSE(keep_velocity(1, false, 2, 1, 1));  // the game's model 1 without adapt: never
    CHECK_FALSE(keep_velocity(1, true, 1, 1, 1));   // adapt but one substep at normal speed
    CHECK(keep_velocity(1, true, 2, 1, 1));
    CHECK(keep_velocity(1, true, 1, 0.5f, 1));
    CHECK(keep_velocity(1, true, 1, 1, 2));
    CHECK(keep_velocity(0, false, 3, 1, 1));
    CHECK_FALSE(keep_velocity(0, false, 1, 1, 1));
    // A new instance uses model 1 (the constructor's), so adaptConstraintStiffness never softens.
    Pendulum pd;
    Sim sim(pd.desc);
    REQUIRE(sim.ok());
    CHECK(sim.state->stiffness_model == 1);
}

TEST_CASE("solver rule 3: four-lane dot products are (x+z)+(y+w), three-lane (x+y)+z, plane queries ((x*px+y*py)+z*pz)+w") {
    // 1e8 + 1 rounds to 1e8 in f32, so each order gives a different answer.
    const Float4 a{1e8f, 1, -1e8f, 1}, one{1, 1, 1, 1};
    CHECK(dot4(a, one) == 2.0f);                                   // (1e8 + -1e8) + (1 + 1)
    CHECK(((1e8f + 1.0f) + -1e8f) + 1.0f == 1.0f);                 // the in-order sum would be 1
    const Float4 b{1e8f, -1e8f, 1, 0};
    CHECK(dot3(b, one) == 1.0f);                                   // (1e8 + -1e8) + 1
    CHECK(1e8f + (-1e8f + 1.0f) == 0.0f);                          // x + (y + z) would be 0
    const Float4 plane{1, 1, 1, 1}, p{1e8f, -1e8f, 1, 0};
    CHECK(plane_distance(plane, p) == 2.0f);                       // ((1e8 - 1e8) + 1) + 1
    const Float4 p2{1, 1e8f, -1e8f, 0};
    CHECK(plane_distance(plane, p2) == 1.0f);                      // ((1 + 1e8) - 1e8) + 1 = 0 + 1
}

TEST_CASE("solver rule 3: a plane collision adds the particle's radius to the plane query") {
    ParticleDesc particles[1] = {{1, 1, 0.1f, 0}};
    Float4 rest[1] = {{0, 0.05f, 0, 0}};
    CollidableDesc ground;
    ground.shape.kind = ShapeKind::plane;
    ground.shape.plane_equation = {0, 1, 0, 0};
    SimClothDesc d;
    d.particles = particles;
    d.particle_count = 1;
    d.rest_positions = rest;
    d.gravity = {0, 0, 0, 0};
    d.collidables = &ground;
    d.collidable_count = 1;
    Sim sim(d);
    REQUIRE(sim.ok());
    StepInputs in;
    sim.step(in);
    CHECK(sim.p(0).y == doctest::Approx(0.1f).epsilon(1e-6));  // pushed to distance = radius
}

TEST_CASE("solver rule 4: collidable driving takes goal*conj(current), angle through the asin polynomial, axis by rsqrt and one Newton step, velocities axis*angle/dt and (target-current)*(1/dt)") {
    const Quaternion cur{0, 0, 0, 1};
    const float half = 0.3f;  // a rotation of 0.6 rad about (1, 2, 2)/3
    const Quaternion goal{std::sin(half) / 3, 2 * std::sin(half) / 3, 2 * std::sin(half) / 3, std::cos(half)};
    const Float4 ct{1, 2, 3, 0}, gt{1.5f, 1.0f, 3.25f, 0};
    const float dt = 1.0f / 30;
    Float4 v, w;
    drive_velocities(cur, ct, goal, gt, dt, v, w);
    const float inv_dt = 1.0f / dt;
    CHECK(bits(v.x) == bits((gt.x - ct.x) * inv_dt));
    CHECK(bits(v.y) == bits((gt.y - ct.y) * inv_dt));
    CHECK(bits(v.z) == bits((gt.z - ct.z) * inv_dt));
    // axis * angle / dt: angle 0.6, axis (1, 2, 2)/3
    CHECK(w.x == doctest::Approx(0.6f / 3 / dt).epsilon(1e-5));
    CHECK(w.y == doctest::Approx(1.2f / 3 / dt).epsilon(1e-5));
    CHECK(w.z == doctest::Approx(1.2f / 3 / dt).epsilon(1e-5));
    // Portable mode (the correctly rounded 1/sqrt seeds the Newton step) agrees to rounding.
    Float4 vp, wp;
    drive_velocities(cur, ct, goal, gt, dt, vp, wp, true);
    CHECK(wp.x == doctest::Approx(w.x).epsilon(1e-6));
    CHECK(bits(vp.x) == bits(v.x));
    // The goal's sign does not matter (q and -q are one rotation).
    Float4 v2, w2;
    drive_velocities(cur, ct, Quaternion{-goal.x, -goal.y, -goal.z, -goal.w}, gt, dt, v2, w2);
    CHECK(w2.x == doctest::Approx(w.x).epsilon(1e-6));
}

TEST_CASE("solver rule 4: each substep turns by the half-angle quaternion with w ((1-0.822948u)-0.130529u^2)-(0.044408u)u^2, u = |w dt/2|^2*4/pi^2, then normalises") {
    const Float4 omega{0, 0, 12.0f, 0};
    const float h = 1.0f / 60;
    const Quaternion r = integrate_rotation(Quaternion{0, 0, 0, 1}, omega, h);
    // The games' quaternion before normalising: xyz = w*h/2, w from the polynomial.
    const float az = 12.0f * (h * 0.5f);
    const float u = (az * az) * 0.405284735f;
    const float qw = ((1.0f - 0.822948f * u) - 0.130529f * (u * u)) - (0.044408f * u) * (u * u);
    const float norm = 1.0f / std::sqrt(az * az + qw * qw);
    CHECK(bits(r.z) == bits(az * norm));
    CHECK(bits(r.w) == bits(qw * norm));
    CHECK(r.x == 0.0f);
    // The polynomial is theta*cot(theta): the result turns by |w| h (0.2 rad) to within 1e-5.
    CHECK(2.0f * std::atan2(r.z, r.w) == doctest::Approx(0.2f).epsilon(1e-4));
}

TEST_CASE("solver rule 4: between steps a driven collidable's translation advances by its velocity times the f32 step, and collision uses the collidables after they are moved") {
    // A sphere collidable follows bone 0; the bone jumps 0.5 m in x; a particle sits at the new place.
    ParticleDesc particles[1] = {{1, 1, 0.0f, 0}};
    Float4 rest[1] = {{0.5f, 0, 0, 0}};
    CollidableDesc c;
    c.shape.kind = ShapeKind::sphere;
    c.shape.sphere = {0, 0, 0, 0.2f};
    c.bone = 0;
    SimClothDesc d;
    d.particles = particles;
    d.particle_count = 1;
    d.rest_positions = rest;
    d.gravity = {0, 0, 0, 0};
    d.collidables = &c;
    d.collidable_count = 1;
    d.transform_count = 1;
    Sim sim(d);
    REQUIRE(sim.ok());
    Matrix4 bone;
    bone.c3 = {0.5f, 0, 0.1f, 1};
    StepInputs in;
    in.dt = 1.0f / 30;
    in.transforms = &bone;
    in.transform_count = 1;
    sim.step(in);
    const CollidableState& cs = sim.state->collidables[0];
    const float inv_dt = 1.0f / (1.0f / 30);
    const float vx = (0.5f - 0.0f) * inv_dt;
    CHECK(bits(cs.linear_velocity.x) == bits(vx));
    CHECK(bits(cs.translation.x) == bits(0.0f + vx * (1.0f / 30)));
    // The particle was outside the sphere where it stood before the step (0.5 m away) and
    // inside it after the move: it is pushed out to the sphere's surface.
    CHECK(drape::solver::test::distance(sim.p(0), Float4{cs.translation.x, cs.translation.y, cs.translation.z, 0}) ==
          doctest::Approx(0.2f).epsilon(1e-5));
}

TEST_CASE("solver rule 5: transition bounds multiply by reciprocals, ((1-(1/period)*t)*start)*(1/s) to the animation and (((1/period)*t)*toSimMaxDistance)*(1/s) to the simulation") {
    const float period = 0.1f, t = 0.037f, start = 0.42f, maxd = 0.3f, s = 3.0f;
    CHECK(bits(transition_bound(TransitionMode::to_animation, period, t, 0, start, maxd, s)) ==
          bits(((1.0f - (1.0f / period) * t) * start) * (1.0f / s)));
    CHECK(bits(transition_bound(TransitionMode::to_simulation, period, t, 0, start, maxd, s)) ==
          bits((((1.0f / period) * t) * maxd) * (1.0f / s)));
    // A particle's delay shifts its clock; the clock stays within [0, period].
    CHECK(transition_bound(TransitionMode::to_animation, period, 0.01f, 0.05f, start, maxd, 1) == start);
    CHECK(transition_bound(TransitionMode::to_animation, period, 1.0f, 0, start, maxd, 1) == 0.0f);
    // In a cloth: blending to the animation brings the particle onto its reference vertex.
    ParticleDesc particles[1] = {{1, 1, 0, 0}};
    Float4 rest[1] = {{1, 0, 0, 0}};
    TransitionDesc tp{0, 0, 0, 0, 0.3f};
    ConstraintSetDesc set;
    set.kind = ConstraintKind::transition;
    set.transition_particles = &tp;
    set.count = 1;
    const uint32_t vertex_counts[1] = {1};
    SimClothDesc d;
    d.particles = particles;
    d.particle_count = 1;
    d.rest_positions = rest;
    d.gravity = {0, 0, 0, 0};
    d.constraint_sets = &set;
    d.constraint_set_count = 1;
    d.buffer_count = 1;
    d.buffer_vertex_counts = vertex_counts;
    Sim sim(d);
    REQUIRE(sim.ok());
    const Float4 ref[1] = {{0, 0, 0, 0}};
    const Float4* buffers[1] = {ref};
    StepInputs in;
    in.dt = 1.0f / 30;
    in.buffer_positions = buffers;
    in.buffer_count = 1;
    begin_transition(*sim.setup, *sim.state, 0, TransitionMode::to_animation, in);
    CHECK(sim.state->transitions[0].start_distance[0] == 1.0f);
    sim.step(in);  // t = 1/30: bound (1 - 10/30) * 1
    CHECK(sim.p(0).x == doctest::Approx(1.0f - (1.0f / 0.1f) * (1.0f / 30)).epsilon(1e-5));
    for (int i = 0; i < 3; ++i) sim.step(in);
    CHECK(std::abs(sim.p(0).x) < 1e-6f);
}

TEST_CASE("solver rule 5: the volume constraint's batch target is ((c0*x+t)+c1*y)+c2*z and its Jacobi eigen-solve is warm-started from the last step's eigenvectors") {
    Matrix4 f;
    f.c0 = {0.3f, 0.7f, -0.2f, 0};
    f.c1 = {1e7f, 0.1f, 0.5f, 0};
    f.c2 = {-0.9f, 0.2f, 0.4f, 0};
    f.c3 = {-1e7f, 2, 3, 1};
    const Float4 v{1, 1, 0.5f, 0};
    const Float4 t = volume_target(f, v);
    CHECK(bits(t.x) == bits(((f.c0.x * v.x + f.c3.x) + f.c1.x * v.y) + f.c2.x * v.z));
    CHECK(bits(t.y) == bits(((f.c0.y * v.x + f.c3.y) + f.c1.y * v.y) + f.c2.y * v.z));
    CHECK(bits(t.x) != bits(((f.c0.x * v.x + f.c1.x * v.y) + f.c2.x * v.z) + f.c3.x));  // the order shows
    // A rigid tetrahedron of particles, displaced: the volume constraint restores its shape, and
    // the eigenvectors it keeps are those of the last solve (the next step starts from them).
    ParticleDesc particles[4];
    Float4 rest[4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {-1, -1, -1, 0}};
    VolumeEntryDesc frames[4], applies[4];
    for (int i = 0; i < 4; ++i) {
        particles[i] = {1, 1, 0, 0};
        frames[i] = {rest[i], uint16_t(i), 0.25f};  // centroid is 0: frame vectors are the rest offsets
        applies[i] = {rest[i], uint16_t(i), 1.0f};
    }
    ConstraintSetDesc set;
    set.kind = ConstraintKind::volume_mx;
    set.frame_datas = frames;
    set.frame_count = 4;
    set.apply_datas = applies;
    set.apply_count = 4;
    SimClothDesc d;
    d.particles = particles;
    d.particle_count = 4;
    d.rest_positions = rest;
    d.gravity = {0, 0, 0, 0};
    d.constraint_sets = &set;
    d.constraint_set_count = 1;
    Sim sim(d);
    REQUIRE(sim.ok());
    sim.p(0).x = 1.3f;  // squash one corner
    sim.state->previous_positions[0].x = 1.3f;
    StepInputs in;
    sim.step(in);
    const Float4 e0 = sim.state->volumes[0].eigenvectors[0];
    CHECK(!(e0.x == 1 && e0.y == 0 && e0.z == 0));  // the solve moved the warm start
    // Rest shape restored up to the rigid fit: every pair distance within 10% of rest.
    for (int i = 0; i < 4; ++i)
        for (int j = i + 1; j < 4; ++j) {
            const float r = drape::solver::test::distance(rest[i], rest[j]);
            CHECK(drape::solver::test::distance(sim.p(i), sim.p(j)) == doctest::Approx(r).epsilon(0.1));
        }
}

TEST_CASE("solver rule 8: the wind stride computes 0, 2, 5, 7 and 9 of ten particles at s = 0.6 (modff(s*i)+s >= 1 reuses), first and last always") {
    std::vector<uint32_t> computed;
    for (uint32_t i = 0; i < 10; ++i)
        if (!wind_reuses_previous(i, 10, 0.6f)) computed.push_back(i);
    CHECK(computed == std::vector<uint32_t>{0, 2, 5, 7, 9});
    CHECK_FALSE(wind_reuses_previous(0, 1, 0.6f));
}

TEST_CASE("solver rule 8: the wind force is ((-1/dt)*(position-previous) + direction*speed) * c, c = mass share * |direction.normal| * 10 (0.7 * mass share * 10 without normals), sampled at the bounding box centre") {
    ParticleDesc particles[3] = {{0.625f, 1.6f, 0, 0}, {0.625f, 1.6f, 0, 0}, {1.25f, 0.8f, 0, 0}};
    Float4 rest[3] = {{0, 0, 0, 0}, {1, 0, 0, 0}, {0, 2, 0, 0}};
    SimClothDesc d;
    d.particles = particles;
    d.particle_count = 3;
    d.rest_positions = rest;
    d.gravity = {0, 0, 0, 0};
    Sim sim(d);
    REQUIRE(sim.ok());
    sim.state->previous_positions[2] = {0, 1.9f, 0.05f, 0};  // moving
    WindField f;
    f.direction = {0.6f, 0, 0.8f, 0};
    f.speed = 7.0f;
    StepInputs in;
    in.dt = 1.0f / 30;
    in.wind_fields = &f;
    in.wind_field_count = 1;
    const Float4 p2 = sim.p(2), q2 = sim.state->previous_positions[2];
    sim.step(in);
    CHECK(sim.state->wind_sample_point.x == 0.5f);
    CHECK(sim.state->wind_sample_point.y == 1.0f);
    const float share = 1.25f * (1.0f / 2.5f);
    const float c = (share * 10.0f) * 0.7f;  // no normals
    const float inv = -1.0f / (1.0f / 30);
    CHECK(bits(sim.state->forces[2].x) == bits((inv * (p2.x - q2.x) + 0.6f * 7.0f) * c));
    CHECK(bits(sim.state->forces[2].y) == bits((inv * (p2.y - q2.y) + 0.0f * 7.0f) * c));
    CHECK(bits(sim.state->forces[2].z) == bits((inv * (p2.z - q2.z) + 0.8f * 7.0f) * c));
    // The forces push the cloth: the free particles moved along the wind.
    CHECK(sim.p(0).x > 0.0f);
    CHECK(sim.p(0).z > 0.0f);
}

TEST_CASE("solver rule 8: several wind fields combine per lane through max(sample, 0) and min(sample, 0)") {
    ParticleDesc particles[2] = {{1, 1, 0, 0}, {1, 1, 0, 0}};
    Float4 rest[2] = {{0, 0, 0, 0}, {1, 0, 0, 0}};
    SimClothDesc d;
    d.particles = particles;
    d.particle_count = 2;
    d.rest_positions = rest;
    d.gravity = {0, 0, 0, 0};
    Sim sim(d);
    REQUIRE(sim.ok());
    WindField f[3];
    f[0].direction = {1, 0, 0, 0}; f[0].speed = 2;   // +2 x
    f[1].direction = {0.6f, -0.8f, 0, 0}; f[1].speed = 5;  // +3 x, -4 y
    f[2].direction = {-1, 0, 0, 0}; f[2].speed = 1;  // -1 x
    StepInputs in;
    in.wind_fields = f;
    in.wind_field_count = 3;
    sim.step(in);
    // Combined sample: x = max(2, 3, 0) + min(-1, 0) = 2, y = 0 + -4, z = 0; both particles at rest.
    const float c = (0.5f * 10.0f) * 0.7f;
    CHECK(sim.state->forces[0].x == doctest::Approx(2.0f * c));
    CHECK(sim.state->forces[0].y == doctest::Approx(-4.0f * c));
    CHECK(sim.state->forces[0].z == 0.0f);
}
