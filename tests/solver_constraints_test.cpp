// What each constraint and collision kind of the simulate kernel does, on tiny cloths.
#include <doctest/doctest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "solver_support.h"

using namespace drape::solver;
using drape::solver::test::distance;
using drape::solver::test::Sim;

namespace {

// Two particles (0 pinned at the origin, 1 free at `x`), no gravity, one constraint set.
struct Pair {
    ParticleDesc particles[2] = {{0, 0, 0, 0}, {1, 1, 0, 0}};
    Float4 rest[2];
    ConstraintSetDesc set;
    SimClothDesc desc;
    explicit Pair(float x) {
        rest[0] = {0, 0, 0, 0};
        rest[1] = {x, 0, 0, 0};
        desc.particles = particles;
        desc.particle_count = 2;
        desc.rest_positions = rest;
        desc.gravity = {0, 0, 0, 0};
        desc.constraint_sets = &set;
        desc.constraint_set_count = 1;
    }
};

float after_one_step(Pair& p) {
    Sim sim(p.desc);
    REQUIRE(sim.ok());
    StepInputs in;
    sim.step(in);
    return sim.p(1).x;
}

}  // namespace

TEST_CASE("solver links: a standard link goes to its rest length both ways, weighted by inverse mass") {
    for (float x : {0.5f, 2.0f}) {
        Pair p(x);
        LinkDesc l{0, 1, 1.0f, 1.0f};
        p.set.kind = ConstraintKind::standard_link;
        p.set.links = &l;
        p.set.count = 1;
        CHECK(after_one_step(p) == doctest::Approx(1.0f));  // the pinned end takes none of it
    }
    Pair half(2.0f);
    LinkDesc l{0, 1, 1.0f, 0.5f};
    half.set.kind = ConstraintKind::standard_link;
    half.set.links = &l;
    half.set.count = 1;
    CHECK(after_one_step(half) == doctest::Approx(1.5f));  // stiffness 0.5: half way
}

TEST_CASE("solver links: a stretch link only shortens, a compressible link is free between its lengths, a bend link pushes and pulls") {
    LinkDesc l{0, 1, 1.0f, 1.0f};
    Pair shorter(0.5f), longer(2.0f);
    for (Pair* p : {&shorter, &longer}) {
        p->set.kind = ConstraintKind::stretch_link;
        p->set.links = &l;
        p->set.count = 1;
    }
    CHECK(after_one_step(shorter) == 0.5f);
    CHECK(after_one_step(longer) == doctest::Approx(1.0f));

    CompressibleLinkDesc c{0, 1, 1.0f, 0.6f, 1.0f};
    for (const std::pair<float, float>& xe : {std::pair{0.8f, 0.8f}, std::pair{0.3f, 0.6f}, std::pair{1.4f, 1.0f}}) {
        const float expected = xe.second;
        Pair p(xe.first);
        p.set.kind = ConstraintKind::compressible_link;
        p.set.compressible_links = &c;
        p.set.count = 1;
        CHECK(after_one_step(p) == doctest::Approx(expected));
    }
    BendLinkDesc b{0, 1, 0.7f, 1.2f, 1.0f, 0.5f};
    for (const std::pair<float, float>& xe : {std::pair{0.9f, 0.9f}, std::pair{0.5f, 0.7f}, std::pair{2.0f, 1.6f}}) {
        const float expected = xe.second;
        Pair p(xe.first);
        p.set.kind = ConstraintKind::bend_link;
        p.set.bend_links = &b;
        p.set.count = 1;
        CHECK(after_one_step(p) == doctest::Approx(expected));  // stretch stiffness 0.5: half of 2.0 -> 1.2
    }
}

TEST_CASE("solver bend stiffness: a folded quad flattens toward its rest curvature") {
    // Two triangles hinged on particles 0-1 (pinned); 2 and 3 free, folded up out of the plane.
    ParticleDesc particles[4] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {1, 1, 0, 0}, {1, 1, 0, 0}};
    Float4 rest[4] = {{0, 0, 0, 0}, {1, 0, 0, 0}, {0.5f, 0.7f, 0.5f, 0}, {0.5f, -0.7f, 0.5f, 0}};
    // Curvature weights of a flat hinge: c = (p2 + p3) / 2 - (p0 + p1) / 2 (zero when flat along y).
    BendStiffnessDesc k{-0.5f, -0.5f, 0.5f, 0.5f, 1.0f, 0.0f, 0, 1, 2, 3};
    ConstraintSetDesc set;
    set.kind = ConstraintKind::bend_stiffness;
    set.bend_stiffness_links = &k;
    set.count = 1;
    SimClothDesc d;
    d.particles = particles;
    d.particle_count = 4;
    d.rest_positions = rest;
    d.gravity = {0, 0, 0, 0};
    d.constraint_sets = &set;
    d.constraint_set_count = 1;
    Sim sim(d);
    REQUIRE(sim.ok());
    StepInputs in;
    sim.step(in);
    CHECK(std::abs(sim.p(2).z) < 1e-6f);  // the fold's height removed in one projection
    CHECK(std::abs(sim.p(3).z) < 1e-6f);
    CHECK(sim.p(0).z == 0.0f);  // pinned particles do not move
}

TEST_CASE("solver local range: a particle stays within the sphere or cylinder of its reference vertex") {
    ParticleDesc particles[1] = {{1, 1, 0, 0}};
    Float4 rest[1] = {{0.3f, 0.4f, 0.0f, 0}};  // 0.5 from the reference, 0.4 along the normal
    LocalRangeDesc lc{0, 0, 0.1f, 0.05f, -0.05f};
    ConstraintSetDesc set;
    set.kind = ConstraintKind::local_range;
    set.local_constraints = &lc;
    set.count = 1;
    const uint32_t counts[1] = {1};
    SimClothDesc d;
    d.particles = particles;
    d.particle_count = 1;
    d.rest_positions = rest;
    d.gravity = {0, 0, 0, 0};
    d.constraint_sets = &set;
    d.constraint_set_count = 1;
    d.buffer_count = 1;
    d.buffer_vertex_counts = counts;
    const Float4 ref[1] = {{0, 0, 0, 0}}, nrm[1] = {{0, 1, 0, 0}};
    const Float4* bp[1] = {ref};
    const Float4* bn[1] = {nrm};
    StepInputs in;
    in.buffer_positions = bp;
    in.buffer_normals = bn;
    in.buffer_count = 1;
    {
        Sim sim(d);
        REQUIRE(sim.ok());
        sim.step(in);
        CHECK(distance(sim.p(0), ref[0]) == doctest::Approx(0.1f));  // sphere
    }
    set.shape_type = 1;  // cylinder along the normal: radius 0.1 across it, the height left free
    {
        Sim sim(d);
        REQUIRE(sim.ok());
        sim.step(in);
        CHECK(sim.p(0).x == doctest::Approx(0.1f));
        CHECK(sim.p(0).y == doctest::Approx(0.4f));
    }
    set.apply_normal_component = true;  // and the height limited to [-0.05, 0.05]
    {
        Sim sim(d);
        REQUIRE(sim.ok());
        sim.step(in);
        CHECK(sim.p(0).x == doctest::Approx(0.1f));
        CHECK(sim.p(0).y == doctest::Approx(0.05f));
    }
    // A reference vertex past its buffer is refused at build time.
    LocalRangeDesc bad{0, 5, 0.1f, 0, 0};
    set.local_constraints = &bad;
    Sim refused(d);
    CHECK_FALSE(refused.ok());
    CHECK(refused.error.find("reference vertex 5") != std::string::npos);
}

namespace {

// One free particle of radius 0.05 falling onto a collidable; returns the particle after `steps`.
Float4 drop_on(const CollidableDesc& c, Float4 start, int steps, uint32_t mask = ~0u, float friction = 0,
               Float4 velocity = {}) {
    ParticleDesc particles[1] = {{1, 1, 0.05f, friction}};
    Float4 rest[1] = {start};
    SimClothDesc d;
    d.particles = particles;
    d.particle_count = 1;
    d.rest_positions = rest;
    d.collidables = &c;
    d.collidable_count = 1;
    d.collision_masks = &mask;
    Sim sim(d);
    REQUIRE(sim.ok());
    const float h = 1.0f / 60;
    sim.state->previous_positions[0] = {start.x - velocity.x * h, start.y - velocity.y * h, start.z - velocity.z * h, 0};
    StepInputs in;
    in.dt = h;
    for (int i = 0; i < steps; ++i) sim.step(in);
    return sim.p(0);
}

}  // namespace

TEST_CASE("solver collision: sphere, plane, capsule and tapered capsule keep a particle out by its radius") {
    CollidableDesc sphere;
    sphere.shape.kind = ShapeKind::sphere;
    sphere.shape.sphere = {0, 0, 0, 0.5f};
    const Float4 on_sphere = drop_on(sphere, {0.0f, 0.6f, 0, 0}, 30);
    CHECK(distance(on_sphere, Float4{}) == doctest::Approx(0.55f).epsilon(1e-4));

    CollidableDesc plane;
    plane.shape.kind = ShapeKind::plane;
    plane.shape.plane_equation = {0, 1, 0, 0.5f};  // y = -0.5
    CHECK(drop_on(plane, {0, 0, 0, 0}, 60).y == doctest::Approx(-0.45f).epsilon(1e-4));

    CollidableDesc capsule;
    capsule.shape.kind = ShapeKind::capsule;
    capsule.shape.start = {-1, 0, 0, 0};
    capsule.shape.end = {1, 0, 0, 0};
    capsule.shape.radius = 0.2f;
    const Float4 on_capsule = drop_on(capsule, {0.7f, 0.3f, 0, 0}, 30);
    CHECK(std::sqrt(on_capsule.y * on_capsule.y + on_capsule.z * on_capsule.z) == doctest::Approx(0.25f).epsilon(1e-4));
    CHECK(on_capsule.x == doctest::Approx(0.7f));

    // Tapered: small end (0, 0.75, 0) r 0.07, big end (0, -0.45, 0) r 0.21 (the spear's shape).
    CollidableDesc taper;
    taper.shape.kind = ShapeKind::tapered_capsule;
    taper.shape.small = {0, 0.75f, 0, 0};
    taper.shape.big = {0, -0.45f, 0, 0};
    taper.shape.small_radius = 0.07f;
    taper.shape.big_radius = 0.21f;
    // Exact distance to the hull (two end spheres and the tangent cone), independently written.
    auto hull_distance = [](Float4 p) {
        const float ax = 0, ay = 0.75f, r0 = 0.07f, by = -0.45f, r1 = 0.21f;
        const float L = ay - by;  // axis from small to big along -y
        const float x = ay - p.y, y = std::sqrt((p.x - ax) * (p.x - ax) + p.z * p.z);
        const float s = (r0 - r1) / L, c = std::sqrt(1 - s * s);
        const float m = x * c - y * s;
        if (m < 0) return std::sqrt(x * x + y * y) - r0;
        if (m > L * c) return std::sqrt((x - L) * (x - L) + y * y) - r1;
        return (x * s + y * c) - r0;
    };
    for (Float4 start : {Float4{0.05f, 0.3f, 0.02f, 0}, Float4{0.0f, 0.78f, 0.01f, 0}, Float4{0.1f, -0.6f, 0.0f, 0}}) {
        const Float4 out = drop_on(taper, start, 1);
        CHECK(hull_distance(out) >= 0.05f - 2e-5f);  // never inside (the particle's radius kept)
    }
    const Float4 side = drop_on(taper, {0.05f, 0.3f, 0.02f, 0}, 1);
    CHECK(hull_distance(side) == doctest::Approx(0.05f).epsilon(1e-3));  // pushed exactly to the hull
}

TEST_CASE("solver collision: convex geometry pushes a particle out of its tetrahedron") {
    // One tetrahedron: the unit corner 0 <= x, y, z, x + y + z <= 1; planes as columns (outward).
    Matrix4 planes;
    planes.c0 = {-1, 0, 0, 0};
    planes.c1 = {0, -1, 0, 0};
    planes.c2 = {0, 0, -1, 0};
    const float k = 1.0f / std::sqrt(3.0f);
    planes.c3 = {k, k, k, -k};
    CollidableDesc convex;
    convex.shape.kind = ShapeKind::convex_geometry;
    convex.shape.tetrahedra_equations = &planes;
    convex.shape.tetrahedra_count = 1;
    ParticleDesc particles[1] = {{1, 1, 0.0f, 0}};
    Float4 rest[1] = {{0.1f, 0.3f, 0.3f, 0}};  // inside, nearest the x = 0 face
    SimClothDesc d;
    d.particles = particles;
    d.particle_count = 1;
    d.rest_positions = rest;
    d.gravity = {0, 0, 0, 0};
    d.collidables = &convex;
    d.collidable_count = 1;
    Sim sim(d);
    REQUIRE(sim.ok());
    StepInputs in;
    sim.step(in);
    CHECK(sim.p(0).x == doctest::Approx(0.0f).epsilon(1e-6));
    CHECK(sim.p(0).y == doctest::Approx(0.3f));
}

TEST_CASE("solver collision: masks select collidables, friction takes off tangential motion, run-time collidables apply to every particle") {
    CollidableDesc plane;
    plane.shape.kind = ShapeKind::plane;
    plane.shape.plane_equation = {0, 1, 0, 0.5f};
    CHECK(drop_on(plane, {0, 0, 0, 0}, 60, 0u).y < -1.0f);  // mask bit 0 clear: falls through
    CHECK(drop_on(plane, {0, 0, 0, 0}, 60, 1u).y > -0.46f);
    // Sliding along the plane: friction 1 stops it, friction 0 keeps its speed.
    const Float4 slide{2, 0, 0, 0};
    const Float4 sticky = drop_on(plane, {0, -0.45f, 0, 0}, 30, ~0u, 1.0f, slide);
    const Float4 slick = drop_on(plane, {0, -0.45f, 0, 0}, 30, ~0u, 0.0f, slide);
    CHECK(sticky.x < 0.05f);
    CHECK(slick.x == doctest::Approx(1.0f).epsilon(0.02));  // 2 m/s for 0.5 s

    // A run-time collidable (the engine's) acts although the particle's mask is 0.
    ParticleDesc particles[1] = {{1, 1, 0.05f, 0}};
    Float4 rest[1] = {{0, 0, 0, 0}};
    const uint32_t mask = 0;
    SimClothDesc d;
    d.particles = particles;
    d.particle_count = 1;
    d.rest_positions = rest;
    d.collision_masks = &mask;
    StateOptions options;
    options.runtime_collidable_capacity = 2;
    Sim sim(d, options);
    REQUIRE(sim.ok());
    RuntimeCollidable rc;
    rc.shape.kind = ShapeKind::tapered_capsule;
    rc.shape.small = {0, 0.75f, 0, 0};
    rc.shape.big = {0, -0.45f, 0, 0};
    rc.shape.small_radius = 0.07f;
    rc.shape.big_radius = 0.21f;
    rc.transform.c3 = {0, -0.9f, 0, 1};  // under the particle: its top sphere at y = -0.15
    StepInputs in;
    in.dt = 1.0f / 60;
    in.runtime_collidables = &rc;
    in.runtime_collidable_count = 1;
    for (int i = 0; i < 60; ++i) sim.step(in);
    CHECK(sim.p(0).y == doctest::Approx(-0.15f + 0.07f + 0.05f).epsilon(1e-3));
}

TEST_CASE("solver setup: every index is checked once at build time") {
    ParticleDesc particles[2] = {{1, 1, 0, 0}, {1, 1, 0, 0}};
    Float4 rest[2] = {};
    LinkDesc bad{0, 2, 1, 1};
    ConstraintSetDesc set;
    set.kind = ConstraintKind::standard_link;
    set.links = &bad;
    set.count = 1;
    SimClothDesc d;
    d.particles = particles;
    d.particle_count = 2;
    d.rest_positions = rest;
    d.constraint_sets = &set;
    d.constraint_set_count = 1;
    CHECK(setup_bytes(d) == 0);
    Sim a(d);
    CHECK(a.error == "constraint set 0 link 0: particle out of 2");
    set.count = 0;
    const int32_t exec[] = {0, 1};
    d.execution = exec;
    d.execution_count = 2;
    Sim b(d);
    CHECK(b.error == "constraint execution 1: 1 out of 1 sets");
    d.execution = nullptr;
    CollidableDesc c;
    c.bone = 3;
    d.collidables = &c;
    d.collidable_count = 1;
    d.transform_count = 2;
    Sim e(d);
    CHECK(e.error == "collidable 0: bone 3 out of 2 transforms");
    c.bone = 1;
    Sim ok(d);
    CHECK(ok.ok());
    // Too little memory is refused, not overrun.
    std::vector<Float4> small(4);
    char err[128] = {};
    CHECK(build_setup(d, small.data(), small.size() * sizeof(Float4), err, sizeof err) == nullptr);
}
