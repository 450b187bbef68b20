// The runtime's opt-in depenetration (StepInputs::depenetration_rounds, DRAPE_INSTANCE_DEPENETRATE):
// not the game's arithmetic. A particle the game's collision pass leaves wedged between two
// overlapping capsules ends outside both, with its velocity kept and no friction applied; where
// nothing is left inside, the step keeps the game's bits. Expected values are computed here in
// double from the geometry, not by the solver.
#include <doctest/doctest.h>

#include <cmath>

#include "grid_workload.h"
#include "solver_support.h"

using namespace drape::solver;
using drape::solver::test::Sim;

namespace {

// Distance in double from p to the segment a-b.
double segment_distance(const Float4& p, const double* a, const double* b) {
    const double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double e[3] = {p.x - a[0], p.y - a[1], p.z - a[2]};
    const double l2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    double t = (e[0] * d[0] + e[1] * d[1] + e[2] * d[2]) / l2;
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    const double f[3] = {e[0] - d[0] * t, e[1] - d[1] * t, e[2] - d[2] * t};
    return std::sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
}

constexpr float k_capsule_radius = 0.3f, k_particle_radius = 0.02f;
// Two parallel capsules along x, 0.4 m apart (y = -0.2 and y = +0.2), radius 0.3: they overlap
// around y = 0, where the particle starts inside both.
const double k_axis[2][2][3] = {{{-1, -0.2, 0}, {1, -0.2, 0}}, {{-1, 0.2, 0}, {1, 0.2, 0}}};

struct Wedged {
    ParticleDesc particles[1] = {{1, 1, k_particle_radius, 0.5f}};  // friction 0.5: the game's push takes tangential motion off
    Float4 rest[1] = {{0.0f, 0.05f, 0.1f, 0}};
    CollidableDesc col[2];
    int32_t execution[1] = {-1};
    SimClothDesc d;
    Wedged() {
        for (int k = 0; k < 2; ++k) {
            col[k].shape.kind = ShapeKind::capsule;
            col[k].shape.start = {float(k_axis[k][0][0]), float(k_axis[k][0][1]), float(k_axis[k][0][2]), 0};
            col[k].shape.end = {float(k_axis[k][1][0]), float(k_axis[k][1][1]), float(k_axis[k][1][2]), 0};
            col[k].shape.radius = k_capsule_radius;
        }
        d.particles = particles;
        d.particle_count = 1;
        d.rest_positions = rest;
        d.gravity = {0, 0, 0, 0};
        d.collidables = col;
        d.collidable_count = 2;
        d.execution = execution;
        d.execution_count = 1;
    }
};

}  // namespace

TEST_CASE("runtime depenetration: a particle the collision pass leaves wedged between two overlapping capsules ends outside both, its velocity kept, no friction") {
    Wedged w;
    const double surface = double(k_capsule_radius) + k_particle_radius;
    for (SolveMode mode : {SolveMode::sequential, SolveMode::scheduled}) {
        INFO("mode " << int(mode));
        // The game's single pass: out of capsule 0, then out of capsule 1, back into capsule 0.
        Sim game(w.d);
        REQUIRE(game.ok());
        StepInputs in;
        in.mode = mode;
        game.step(in);
        const Float4 pg = game.state->positions[0], qg = game.state->previous_positions[0];
        CHECK(segment_distance(pg, k_axis[0][0], k_axis[0][1]) < surface - 0.005);  // wedged: inside capsule 0 by over 5 mm
        CHECK(std::fabs(segment_distance(pg, k_axis[1][0], k_axis[1][1]) - surface) < 1e-6);

        Sim depen(w.d);
        REQUIRE(depen.ok());
        in.depenetration_rounds = 16;
        depen.step(in);
        const Float4 p = depen.state->positions[0], q = depen.state->previous_positions[0];
        CHECK(segment_distance(p, k_axis[0][0], k_axis[0][1]) >= surface - 1e-5);
        CHECK(segment_distance(p, k_axis[1][0], k_axis[1][1]) >= surface - 1e-5);
        // Moved off the game's position (the test is not of a particle the pass already cleared)...
        CHECK(drape::solver::test::distance(p, pg) > 0.005f);
        // ... and the previous position by the same offset: the velocity the game's step gave it
        // (its push and its friction) is kept, nothing is added and no friction is taken again.
        CHECK(std::fabs((p.x - q.x) - (pg.x - qg.x)) < 1e-6f);
        CHECK(std::fabs((p.y - q.y) - (pg.y - qg.y)) < 1e-6f);
        CHECK(std::fabs((p.z - q.z) - (pg.z - qg.z)) < 1e-6f);
        // A second step of the same: the particle stays outside both.
        depen.step(in);
        CHECK(segment_distance(depen.state->positions[0], k_axis[0][0], k_axis[0][1]) >= surface - 1e-5);
        CHECK(segment_distance(depen.state->positions[0], k_axis[1][0], k_axis[1][1]) >= surface - 1e-5);
    }
}

TEST_CASE("runtime depenetration: where the collision pass leaves no particle inside, depenetration on gives the game's bits") {
    // The benchmark grid draped over its two capsules: hundreds of particles pushed onto a hull
    // every step, none wedged (the capsules are 0.8 m apart).
    for (uint32_t capsules : {0u, 2u}) {
        INFO("capsules " << capsules);
        GridWorkload w;
        build_grid_workload(w, 16, capsules);
        Sim game(w.desc), depen(w.desc);
        REQUIRE(game.ok());
        REQUIRE(depen.ok());
        StepInputs in;
        in.dt = 1.0f / 60;
        StepInputs on = in;
        on.depenetration_rounds = 16;
        uint32_t touching = 0;
        for (int s = 0; s < 200; ++s) {
            game.step(in);
            depen.step(on);
        }
        for (uint32_t i = 0; i < w.desc.particle_count && capsules; ++i) {
            const Float4& p = game.state->positions[i];
            for (const CollidableDesc& c : w.collidables) {
                const double a[3] = {c.shape.start.x + c.transform.c3.x, c.shape.start.y + c.transform.c3.y, c.shape.start.z + c.transform.c3.z};
                const double b[3] = {c.shape.end.x + c.transform.c3.x, c.shape.end.y + c.transform.c3.y, c.shape.end.z + c.transform.c3.z};
                if (segment_distance(p, a, b) < double(c.shape.radius) + 1e-4) ++touching;
            }
        }
        if (capsules) CHECK(touching >= 10);  // the grid lies on the capsules (20 particle-capsule contacts at 16 x 16)
        CHECK(drape::solver::test::same_bits(game.state->positions, depen.state->positions, w.desc.particle_count));
        CHECK(drape::solver::test::same_bits(game.state->previous_positions, depen.state->previous_positions, w.desc.particle_count));
    }
}

TEST_CASE("runtime depenetration: after a last collision pass only the groups it moved are searched, with the bits of searching every group") {
    // The wedged particle and two pinned ones joined by a link (a pass that moves nothing). With
    // the link set first the collision pass is the step's last, and the first round visits only
    // the groups that pass moved; with it last the first round visits every group. Same bits.
    ParticleDesc particles[3] = {{1, 1, k_particle_radius, 0.5f}, {1, 0, 0, 0}, {1, 0, 0, 0}};
    Float4 rest[3] = {{0.0f, 0.05f, 0.1f, 0}, {5, 5, 5, 0}, {6, 5, 5, 0}};
    LinkDesc link{1, 2, 1.0f, 1.0f};
    ConstraintSetDesc set;
    set.kind = ConstraintKind::standard_link;
    set.count = 1;
    set.links = &link;
    Wedged w;
    const double surface = double(k_capsule_radius) + k_particle_radius;
    const int32_t collision_last[2] = {0, -1}, links_last[2] = {-1, 0};
    Float4 result[2][3];
    for (int order = 0; order < 2; ++order) {
        SimClothDesc d = w.d;
        d.particles = particles;
        d.particle_count = 3;
        d.rest_positions = rest;
        d.constraint_sets = &set;
        d.constraint_set_count = 1;
        d.execution = order == 0 ? collision_last : links_last;
        d.execution_count = 2;
        Sim sim(d);
        REQUIRE_MESSAGE(sim.ok(), sim.error);
        StepInputs in;
        in.depenetration_rounds = 16;
        for (int s = 0; s < 3; ++s) sim.step(in);
        for (int i = 0; i < 3; ++i) result[order][i] = sim.state->positions[i];
        CHECK(segment_distance(result[order][0], k_axis[0][0], k_axis[0][1]) >= surface - 1e-5);
        CHECK(segment_distance(result[order][0], k_axis[1][0], k_axis[1][1]) >= surface - 1e-5);
    }
    CHECK(drape::solver::test::same_bits(result[0], result[1], 3));
}
