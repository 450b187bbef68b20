// The scheduled (four-lane) link solve and collision give the bits of the plain sequential loop.
#include <doctest/doctest.h>

#include <random>

#include "solver/grid_workload.h"
#include "solver_support.h"

using namespace drape::solver;
using drape::solver::test::Sim;

namespace {

void run(Sim& sim, SolveMode mode, int steps, float dt = 1.0f / 60) {
    StepInputs in;
    in.dt = dt;
    in.mode = mode;
    for (int i = 0; i < steps; ++i) sim.step(in);
}

}  // namespace

TEST_CASE("solver schedule: the grid's links solved in commuting groups equal the sequential solve bit for bit") {
    for (uint32_t capsules : {0u, 2u}) {
        GridWorkload w;
        build_grid_workload(w, 32, capsules);
        CHECK(w.link_count() == 5826);  // the count at N = 32
        Sim a(w.desc), b(w.desc);
        REQUIRE(a.ok());
        REQUIRE(b.ok());
        // The schedule is not the trivial one: most links run four at a time.
        const LinkSchedule& ls = a.setup->link_runs[0];
        REQUIRE(a.setup->link_run_count == 1);
        uint32_t batched = 0;
        for (uint32_t l = 0; l < ls.level_count; ++l) batched += ls.level_batches4[l];
        CHECK(ls.level_count < ls.sequential.count / 8);
        CHECK(batched * 4 >= ls.sequential.count);
        run(a, SolveMode::scheduled, 200);
        run(b, SolveMode::sequential, 200);
        CHECK(drape::solver::test::same_bits(a.state->positions, b.state->positions, a.setup->particle_count));
        CHECK(drape::solver::test::same_bits(a.state->previous_positions, b.state->previous_positions, a.setup->particle_count));
        // And the cloth moved (the comparison is not between two resting grids).
        CHECK(a.p(w.index(16, 31)).y < 0.5f - 0.01f);
    }
}

TEST_CASE("solver schedule: random mixed link sets, scheduled equals sequential bit for bit") {
    std::mt19937 rng(1234);
    for (int trial = 0; trial < 20; ++trial) {
        const uint32_t n = 5 + rng() % 60;
        std::vector<ParticleDesc> particles(n);
        std::vector<Float4> rest(n);
        std::uniform_real_distribution<float> u(-1, 1);
        for (uint32_t i = 0; i < n; ++i) {
            particles[i] = {1, (rng() % 5 == 0) ? 0.0f : 0.5f + float(rng() % 3), 0.01f, 0.3f};
            rest[i] = {u(rng), u(rng), u(rng), 0};
        }
        std::vector<LinkDesc> standard, stretch;
        std::vector<BendLinkDesc> bend;
        std::vector<CompressibleLinkDesc> comp;
        auto pick = [&] { return uint16_t(rng() % n); };
        for (int i = 0; i < 200; ++i) standard.push_back({pick(), pick(), 0.1f + 0.5f * std::abs(u(rng)), 0.5f + 0.5f * std::abs(u(rng))});
        for (int i = 0; i < 100; ++i) stretch.push_back({pick(), pick(), 0.3f, 0.8f});
        for (int i = 0; i < 100; ++i) bend.push_back({pick(), pick(), 0.2f, 0.6f, 0.4f, 0.9f});
        for (int i = 0; i < 100; ++i) comp.push_back({pick(), pick(), 0.5f, 0.2f, 0.7f});
        std::vector<ConstraintSetDesc> sets(4);
        sets[0].kind = ConstraintKind::standard_link; sets[0].links = standard.data(); sets[0].count = uint32_t(standard.size());
        sets[1].kind = ConstraintKind::stretch_link; sets[1].links = stretch.data(); sets[1].count = uint32_t(stretch.size());
        sets[2].kind = ConstraintKind::bend_link; sets[2].bend_links = bend.data(); sets[2].count = uint32_t(bend.size());
        sets[3].kind = ConstraintKind::compressible_link; sets[3].compressible_links = comp.data(); sets[3].count = uint32_t(comp.size());
        const int32_t exec[] = {2, 0, -1, 3, 1, 0};
        CollidableDesc sphere;
        sphere.shape.kind = ShapeKind::sphere;
        sphere.shape.sphere = {0, 0, 0, 0.4f};
        SimClothDesc d;
        d.particles = particles.data();
        d.particle_count = n;
        d.rest_positions = rest.data();
        d.constraint_sets = sets.data();
        d.constraint_set_count = 4;
        d.execution = exec;
        d.execution_count = 6;
        d.solve_iterations = 2;
        d.sub_steps = 2;
        d.collidables = &sphere;
        d.collidable_count = 1;
        Sim a(d), b(d);
        REQUIRE(a.ok());
        REQUIRE(b.ok());
        CHECK(a.setup->link_run_count == 2);  // {2, 0} and {3, 1, 0}: -1 splits them
        run(a, SolveMode::scheduled, 30, 1.0f / 30);
        run(b, SolveMode::sequential, 30, 1.0f / 30);
        CHECK(drape::solver::test::same_bits(a.state->positions, b.state->positions, n));
    }
}
