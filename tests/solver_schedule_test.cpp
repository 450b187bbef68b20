// The scheduled (four-lane) link solve and collision give the bits of the plain sequential loop.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "drape/solver_bench.h"
#include "grid_workload.h"
#include "solver_support.h"

using namespace drape::solver;
using drape::solver::test::Sim;

namespace {

// n particles at random rest positions in [-1, 1]^3: one in about `pinned_every` pinned (inverse
// mass 0), the others of inverse mass 0.5, 1.5 or 2.5.
struct RandomParticles {
    std::vector<ParticleDesc> particles;
    std::vector<Float4> rest;
};
RandomParticles random_particles(std::mt19937& rng, uint32_t n, uint32_t pinned_every) {
    RandomParticles r{std::vector<ParticleDesc>(n), std::vector<Float4>(n)};
    std::uniform_real_distribution<float> u(-1, 1);
    for (uint32_t i = 0; i < n; ++i) {
        r.particles[i] = {1, (rng() % pinned_every == 0) ? 0.0f : 0.5f + float(rng() % 3), 0.01f, 0.3f};
        r.rest[i] = {u(rng), u(rng), u(rng), 0};
    }
    return r;
}

void run(Sim& sim, SolveMode mode, int steps, float dt = 1.0f / 60, uint8_t max_lanes = 8) {
    StepInputs in;
    in.dt = dt;
    in.mode = mode;
    in.max_lanes = max_lanes;
    for (int i = 0; i < steps; ++i) sim.step(in);
}

}  // namespace

TEST_CASE("solver schedule: the grid's links solved in commuting groups equal the sequential solve bit for bit") {
    for (uint32_t capsules : {0u, 2u}) {
        GridWorkload w;
        build_grid_workload(w, 32, capsules);
        CHECK(w.link_count() == 5826);  // the grid's count at N = 32
        Sim a(w.desc), b(w.desc);
        REQUIRE(a.ok());
        REQUIRE(b.ok());
        // The schedule is not the trivial one: most links run four at a time.
        const LinkSchedule& ls = a.setup->link_runs[0];
        REQUIRE(a.setup->link_run_count == 1);
        uint32_t batched = 0;
        for (uint32_t l = 0; l < ls.level_count; ++l)
            batched += ls.level_batches4[l] + 2 * ls.level_batches8[l] + 4 * ls.level_batches16[l];
        CHECK(ls.level_count < ls.sequential.count / 8);
        CHECK(batched * 4 >= ls.sequential.count);
        // Nearly every link runs in a full eight-lane batch (the list schedule packs the
        // commuting links; 5,826 links fit in 729 batches and a few singles).
        CHECK(ls.links.count < ls.sequential.count + ls.sequential.count / 50);
        CHECK(ls.uniform);  // standard links: the kernel without the clamp
        Sim c(w.desc);
        REQUIRE(c.ok());
        run(a, SolveMode::scheduled, 200);
        run(b, SolveMode::sequential, 200);
        run(c, SolveMode::scheduled, 200, 1.0f / 60, 4);  // the SSE2 path where AVX2 is present
        CHECK(drape::solver::test::same_bits(a.state->positions, b.state->positions, a.setup->particle_count));
        CHECK(drape::solver::test::same_bits(a.state->previous_positions, b.state->previous_positions, a.setup->particle_count));
        CHECK(drape::solver::test::same_bits(c.state->positions, b.state->positions, a.setup->particle_count));
        CHECK(drape::solver::test::same_bits(c.state->previous_positions, b.state->previous_positions, a.setup->particle_count));
        // And the cloth moved (the comparison is not between two resting grids).
        CHECK(a.p(w.index(16, 31)).y < 0.5f - 0.01f);
    }
}

TEST_CASE("solver schedule: random mixed link sets, scheduled equals sequential bit for bit") {
    std::mt19937 rng(1234);
    for (int trial = 0; trial < 20; ++trial) {
        const uint32_t n = 5 + rng() % 60;
        auto [particles, rest] = random_particles(rng, n, 5);
        std::uniform_real_distribution<float> u(-1, 1);
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
        Sim a(d), b(d), c(d);
        REQUIRE(a.ok());
        REQUIRE(b.ok());
        REQUIRE(c.ok());
        CHECK(a.setup->link_run_count == 2);  // {2, 0} and {3, 1, 0}: -1 splits them
        CHECK(!a.setup->link_runs[0].uniform);  // bend links: the general kernel
        run(a, SolveMode::scheduled, 30, 1.0f / 30);
        run(b, SolveMode::sequential, 30, 1.0f / 30);
        run(c, SolveMode::scheduled, 30, 1.0f / 30, 4);
        CHECK(drape::solver::test::same_bits(a.state->positions, b.state->positions, n));
        CHECK(drape::solver::test::same_bits(c.state->positions, b.state->positions, n));
    }
}

TEST_CASE("solver schedule: random standard links alone take the uniform kernel and equal the sequential solve bit for bit") {
    std::mt19937 rng(99);
    for (int trial = 0; trial < 10; ++trial) {
        const uint32_t n = 3 + rng() % 200;
        std::vector<ParticleDesc> particles(n);
        std::vector<Float4> rest(n);
        std::uniform_real_distribution<float> u(-1, 1);
        for (uint32_t i = 0; i < n; ++i) {
            particles[i] = {1, (rng() % 4 == 0) ? 0.0f : 1.0f, 0, 0};
            rest[i] = {u(rng), u(rng), u(rng), 0};
        }
        std::vector<LinkDesc> links;
        const int count = 1 + int(rng() % 2000);
        for (int i = 0; i < count; ++i) {  // duplicates and self-links included
            const uint16_t a = uint16_t(rng() % n), b = rng() % 50 == 0 ? a : uint16_t(rng() % n);
            links.push_back({a, b, std::abs(u(rng)), rng() % 3 == 0 ? 1.0f : std::abs(u(rng))});
        }
        ConstraintSetDesc set;
        set.kind = ConstraintKind::standard_link;
        set.links = links.data();
        set.count = uint32_t(links.size());
        SimClothDesc d;
        d.particles = particles.data();
        d.particle_count = n;
        d.rest_positions = rest.data();
        d.constraint_sets = &set;
        d.constraint_set_count = 1;
        d.solve_iterations = 1 + rng() % 3;
        Sim a(d), b(d), c(d);
        REQUIRE(a.ok());
        REQUIRE(b.ok());
        REQUIRE(c.ok());
        CHECK(a.setup->link_runs[0].uniform);
        run(a, SolveMode::scheduled, 40);
        run(b, SolveMode::sequential, 40);
        run(c, SolveMode::scheduled, 40, 1.0f / 60, 4);
        CHECK(drape::solver::test::same_bits(a.state->positions, b.state->positions, n));
        CHECK(drape::solver::test::same_bits(c.state->positions, b.state->positions, n));
    }
}

TEST_CASE("solver schedule: particles around spheres, capsules, tapered capsules and planes collide with the bits of the sequential loop, four, eight and sixteen particles a group") {
    // The collision groups (four particles; eight where the CPU has AVX2, the last four of a
    // count not a multiple of eight as a half group; sixteen where it has AVX-512, the last
    // four to twelve as a part of one) skip lanes outside a shape's bounding box;
    // particles are placed around each shape's surface (inside, on it, just outside) with radii
    // of 0 to 5 cm.
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1, 1);
    for (int trial = 0; trial < 12; ++trial) {
        const uint32_t n = 16 + rng() % 300;
        std::vector<CollidableDesc> shapes(4);
        shapes[0].shape.kind = ShapeKind::sphere;
        shapes[0].shape.sphere = {0.1f * u(rng), 0.1f * u(rng), 0, 0.2f + 0.1f * u(rng)};
        shapes[1].shape.kind = ShapeKind::capsule;
        shapes[1].shape.start = {-0.5f, 0.4f * u(rng), 0.1f, 0};
        shapes[1].shape.end = {0.5f, 0.4f * u(rng), -0.1f, 0};
        shapes[1].shape.radius = 0.1f + 0.05f * u(rng);
        shapes[2].shape.kind = ShapeKind::tapered_capsule;
        shapes[2].shape.small = {0.2f * u(rng), -0.5f, 0, 0};
        shapes[2].shape.big = {0.2f * u(rng), 0.5f, 0.1f, 0};
        shapes[2].shape.small_radius = 0.05f;
        shapes[2].shape.big_radius = 0.15f + 0.05f * u(rng);
        shapes[3].shape.kind = ShapeKind::plane;
        shapes[3].shape.plane_equation = {0, 1, 0, 0.8f};
        for (CollidableDesc& c : shapes) {  // moved and turned a little every step
            c.linear_velocity = {0.3f * u(rng), 0.3f * u(rng), 0.3f * u(rng), 0};
            c.angular_velocity = {u(rng), u(rng), u(rng), 0};
        }
        std::vector<ParticleDesc> particles(n);
        std::vector<Float4> rest(n);
        for (uint32_t i = 0; i < n; ++i) {
            particles[i] = {1, rng() % 8 == 0 ? 0.0f : 1.0f, 0.05f * std::abs(u(rng)), 0.5f * std::abs(u(rng))};
            const float scale = 0.1f + 0.5f * std::abs(u(rng));
            rest[i] = {scale * u(rng), scale * u(rng), scale * u(rng), 0};
        }
        std::vector<uint32_t> masks(n);
        for (uint32_t i = 0; i < n; ++i) masks[i] = rng() % 5 == 0 ? uint32_t(rng() % 16) : ~0u;
        SimClothDesc d;
        d.particles = particles.data();
        d.particle_count = n;
        d.rest_positions = rest.data();
        d.collidables = shapes.data();
        d.collidable_count = uint32_t(shapes.size());
        d.collision_masks = masks.data();
        Sim b(d);
        REQUIRE(b.ok());
        run(b, SolveMode::sequential, 60);
        for (uint8_t lanes : {uint8_t(4), uint8_t(8), uint8_t(16)}) {
            CAPTURE(int(lanes));
            Sim a(d);
            REQUIRE(a.ok());
            run(a, SolveMode::scheduled, 60, 1.0f / 60, lanes);
            CHECK(drape::solver::test::same_bits(a.state->positions, b.state->positions, n));
            CHECK(drape::solver::test::same_bits(a.state->previous_positions, b.state->previous_positions, n));
        }
        // The plane holds the falling particles (1 s of gravity would take them below -4 m), so
        // the shapes did push: the comparison is not between untouched clouds.
        bool pushed = false;
        for (uint32_t i = 0; i < n && !pushed; ++i)
            pushed = particles[i].inv_mass > 0 && masks[i] == ~0u && b.p(i).y > -0.9f;
        CHECK(pushed);
    }
}

// Every lane width under the Verlet with forces: AVX-512 (sixteen-lane batches, four-particle
// Verlet with masked tails) where the CPU has it, AVX2 and SSE2, on the grid with capsules under
// wind and a varying dt and on random mixed link sets of particle counts that are not multiples
// of 4, each against the sequential loop (and w of every particle kept).
TEST_CASE("solver schedule: under wind and a varying dt the AVX-512, AVX2 and SSE2 paths give the bits of the sequential solve") {
    auto run_with_wind = [](Sim& sim, SolveMode mode, uint8_t lanes, int steps) {
        WindField f;
        f.direction = {0.6f, 0, 0.8f, 0};
        f.speed = 4.0f;
        StepInputs in;
        in.mode = mode;
        in.max_lanes = lanes;
        in.wind_fields = &f;
        in.wind_field_count = 1;
        for (int i = 0; i < steps; ++i) {
            in.dt = i % 3 == 0 ? 1.0f / 30 : 1.0f / 60;
            sim.step(in);
        }
    };
    std::vector<uint8_t> widths = {8, 4};
    if (widest_lanes() >= 16) widths.insert(widths.begin(), 16);
    else MESSAGE("this CPU (or OS) has no AVX-512F: the sixteen-lane path is not run here");
    // Runs `desc` at every width and sequentially; every result must equal the sequential bits.
    // Returns where the sequential run (so every width) left particle `probe`.
    auto check_widths = [&](const SimClothDesc& desc, int steps, uint32_t n, bool check_w, uint32_t probe = 0) {
        Sim seq(desc);
        REQUIRE(seq.ok());
        run_with_wind(seq, SolveMode::sequential, 16, steps);
        for (uint8_t lanes : widths) {
            INFO("lanes " << int(lanes));
            Sim wide(desc);
            REQUIRE(wide.ok());
            run_with_wind(wide, SolveMode::scheduled, lanes, steps);
            CHECK(drape::solver::test::same_bits(wide.state->positions, seq.state->positions, n));
            CHECK(drape::solver::test::same_bits(wide.state->previous_positions, seq.state->previous_positions, n));
            if (check_w) {
                bool w_kept = true;
                for (uint32_t i = 0; i < n; ++i) w_kept = w_kept && wide.p(i).w == float(i) && wide.state->previous_positions[i].w == float(i);
                CHECK(w_kept);
            }
        }
        return seq.p(probe);
    };
    {
        GridWorkload w;
        build_grid_workload(w, 32, 2);
        Sim probe(w.desc);
        REQUIRE(probe.ok());
        const LinkSchedule& ls = probe.setup->link_runs[0];
        uint32_t wide_links = 0, sixteens = 0;
        for (uint32_t l = 0; l < ls.level_count; ++l) {
            wide_links += 8 * ls.level_batches8[l] + 16 * ls.level_batches16[l];
            sixteens += ls.level_batches16[l];
        }
        // Nine links in ten run in eight-lane batches, or sixteen-lane ones where the CPU has
        // AVX-512F (AVX2 runs those as two halves, SSE2 as four quarters).
        CHECK(wide_links * 10 >= ls.sequential.count * 9);
        CHECK((sixteens > 0) == (widest_lanes() >= 16));
        const uint32_t n = w.desc.particle_count;
        check_widths(w.desc, 150, n, false);
        // The eight-lane schedule a CPU without AVX-512 builds, under every width here (on an
        // AVX-512 CPU: sixteen-lane Verlet, eight-lane link batches).
        w.desc.link_batch_lanes = 8;
        Sim narrow(w.desc);
        REQUIRE(narrow.ok());
        uint32_t narrow_sixteens = 0;
        for (uint32_t l = 0; l < narrow.setup->link_runs[0].level_count; ++l) narrow_sixteens += narrow.setup->link_runs[0].level_batches16[l];
        CHECK(narrow_sixteens == 0);
        const Float4 moved = check_widths(w.desc, 150, n, false, w.index(16, 31));
        CHECK(moved.z > 0.05f);  // the wind moved the cloth off its plane
    }
    std::mt19937 rng(4321);
    std::uniform_real_distribution<float> u(-1, 1);
    for (int trial = 0; trial < 12; ++trial) {
        const uint32_t n = 5 + rng() % 120;
        std::vector<ParticleDesc> particles(n);
        std::vector<Float4> rest(n);
        for (uint32_t i = 0; i < n; ++i) {
            particles[i] = {1, (rng() % 5 == 0) ? 0.0f : 0.5f + float(rng() % 3), 0.01f, 0.3f};
            rest[i] = {u(rng), u(rng), u(rng), float(i)};  // w is kept: checked below
        }
        std::vector<LinkDesc> standard;
        std::vector<BendLinkDesc> bend;
        auto pick = [&] { return uint16_t(rng() % n); };
        for (int i = 0; i < 400; ++i) standard.push_back({pick(), pick(), 0.1f + 0.5f * std::abs(u(rng)), 0.5f + 0.5f * std::abs(u(rng))});
        for (int i = 0; i < 200; ++i) bend.push_back({pick(), pick(), 0.2f, 0.6f, 0.4f, 0.9f});
        std::vector<ConstraintSetDesc> sets(2);
        sets[0].kind = ConstraintKind::standard_link; sets[0].links = standard.data(); sets[0].count = uint32_t(standard.size());
        sets[1].kind = ConstraintKind::bend_link; sets[1].bend_links = bend.data(); sets[1].count = uint32_t(bend.size());
        const int32_t exec[] = {0, -1, 1};  // a uniform run, then a general one
        SimClothDesc d;
        d.particles = particles.data();
        d.particle_count = n;
        d.rest_positions = rest.data();
        d.constraint_sets = sets.data();
        d.constraint_set_count = 2;
        d.execution = exec;
        d.execution_count = 3;
        d.solve_iterations = 2;
        check_widths(d, 30, n, true);
    }
}

TEST_CASE("solver schedule: bend stiffness items four and eight at a time by level equal the file's order bit for bit") {
    std::mt19937 rng(77);
    for (int trial = 0; trial < 20; ++trial) {
        const uint32_t n = 300 + rng() % 300;  // room for items that share no particle
        auto [particles, rest] = random_particles(rng, n, 6);
        std::uniform_real_distribution<float> u(-1, 1);
        // Random items: most on four distinct particles; some name a particle twice (they run
        // alone), some have a flat hinge (c == d: e2 = 0, skipped) or only pinned particles.
        std::vector<BendStiffnessDesc> items;
        auto pick = [&] { return uint16_t(rng() % n); };
        for (int i = 0; i < 200; ++i) {
            BendStiffnessDesc b{};
            b.particle_a = pick(), b.particle_b = pick(), b.particle_c = pick(), b.particle_d = pick();
            if (i % 17 == 0) b.particle_d = b.particle_c;
            b.weight_a = 0.5f + 0.1f * u(rng), b.weight_b = 1.0f - b.weight_a, b.weight_c = -0.5f + 0.1f * u(rng), b.weight_d = -1.0f - b.weight_c;
            b.bend_stiffness = 0.8f + 0.2f * u(rng);
            b.rest_curvature = 0.3f * u(rng);
            items.push_back(b);
        }
        // A chain after them, every item on the same four particles, longer than the random items'
        // levels go: its last levels hold one item.
        for (int i = 0; i < 40; ++i) {
            BendStiffnessDesc b = items[size_t(i)];
            b.particle_a = 0, b.particle_b = 1, b.particle_c = 2, b.particle_d = 3;
            items.push_back(b);
        }
        std::vector<LinkDesc> standard;
        for (int i = 0; i < 60; ++i) standard.push_back({pick(), pick(), 0.2f + 0.3f * std::abs(u(rng)), 0.7f});
        std::vector<ConstraintSetDesc> sets(2);
        sets[0].kind = ConstraintKind::bend_stiffness; sets[0].bend_stiffness_links = items.data(); sets[0].count = uint32_t(items.size());
        sets[0].clamp_bend_stiffness = trial % 2 == 0;
        sets[1].kind = ConstraintKind::standard_link; sets[1].links = standard.data(); sets[1].count = uint32_t(standard.size());
        SimClothDesc d;
        d.particles = particles.data();
        d.particle_count = n;
        d.rest_positions = rest.data();
        d.constraint_sets = sets.data();
        d.constraint_set_count = 2;
        d.solve_iterations = 2;
        Sim a(d), b(d);
        REQUIRE(a.ok());
        REQUIRE(b.ok());
        REQUIRE(a.setup->bend_stiffness_set_count == 1);
        const BendStiffnessSet& bs = a.setup->bend_stiffness_sets[0];
        uint32_t four = 0, alone = 0, eight = 0, odd = 0;
        for (uint32_t l = 0; l < bs.level_count; ++l)
            four += bs.level_batches4[l], alone += bs.level_singles[l], eight += bs.level_batches4[l] / 2, odd += bs.level_batches4[l] % 2;
        CHECK(4 * four + alone == bs.stored);
        CHECK(bs.stored >= bs.count);
        CHECK(bs.stored < bs.count + 8 * bs.level_count);  // at most seven padding items a level
        CHECK(odd == 0);  // every level's batches pair up: the eight-lane kernel takes them all
        CHECK(four > 0);   // the scheduled path runs four at a time
        CHECK(eight > 0);  // and, with eight lanes, two batches of a level at once
        // The items that run alone: those that name a particle twice, and those of a level with
        // at most two four-able items (one by one, not a padded batch); a level's last four-able
        // items otherwise fill their batch with padding. The levels as the file's order gives
        // them: an item one past the latest level of its particles.
        uint32_t twice = 0, few = 0;
        std::vector<uint32_t> last(n, 0);
        std::map<uint32_t, uint32_t> fourable;  // level -> its items that name four particles
        for (const BendStiffnessDesc& k : items) {
            const uint16_t q[4] = {k.particle_a, k.particle_b, k.particle_c, k.particle_d};
            const bool repeats = q[0] == q[1] || q[0] == q[2] || q[0] == q[3] || q[1] == q[2] || q[1] == q[3] || q[2] == q[3];
            twice += repeats;
            uint32_t lv = 0;
            for (uint16_t p : q) lv = std::max(lv, last[p]);
            for (uint16_t p : q) last[p] = lv + 1;
            if (!repeats) ++fourable[lv];
        }
        for (const auto& [lv, count] : fourable) few += count <= 2 ? count : 0;
        CHECK(few > 0);  // the chain's levels at least
        CHECK(alone == twice + few);
        run(b, SolveMode::sequential, 40, 1.0f / 30);
        for (uint8_t lanes : {uint8_t(4), uint8_t(8)}) {
            CAPTURE(int(lanes));
            Sim scheduled(d);
            run(scheduled, SolveMode::scheduled, 40, 1.0f / 30, lanes);
            CHECK(drape::solver::test::same_bits(scheduled.state->positions, b.state->positions, n));
            CHECK(drape::solver::test::same_bits(scheduled.state->previous_positions, b.state->previous_positions, n));
        }
    }
}

TEST_CASE("solver normals: each particle's normal sums its triangles in triangle order, as a loop scattering the triangles would, bit for bit") {
    std::mt19937 rng(5);
    for (int trial = 0; trial < 10; ++trial) {
        const uint32_t n = 20 + rng() % 200;
        std::vector<ParticleDesc> particles(n, ParticleDesc{1, 1, 0.01f, 0.3f});
        std::vector<Float4> rest(n);
        std::uniform_real_distribution<float> u(-1, 1);
        for (auto& r : rest) r = {u(rng), u(rng), u(rng), 0};
        std::vector<uint16_t> tris;
        for (uint32_t k = 0; k < 3 * (n + n / 2); ++k) tris.push_back(uint16_t(rng() % n));
        tris[3] = tris[4];  // a triangle naming a particle twice adds its normal twice
        std::vector<LinkDesc> standard;
        for (uint32_t i = 0; i + 1 < n; ++i) standard.push_back({uint16_t(i), uint16_t(i + 1), 0.3f, 0.8f});
        ConstraintSetDesc set;
        set.kind = ConstraintKind::standard_link, set.links = standard.data(), set.count = uint32_t(standard.size());
        SimClothDesc d;
        d.particles = particles.data();
        d.particle_count = n;
        d.rest_positions = rest.data();
        d.constraint_sets = &set;
        d.constraint_set_count = 1;
        d.triangle_indices = tris.data();
        d.triangle_index_count = uint32_t(tris.size());
        d.do_normals = true;
        Sim a(d);
        REQUIRE(a.ok());
        run(a, SolveMode::scheduled, 5, 1.0f / 30);
        std::vector<Float4> want(n, Float4{0, 0, 0, 0});
        const Float4* p = a.state->positions;
        for (size_t t = 0; t < tris.size(); t += 3) {
            const uint32_t i0 = tris[t], i1 = tris[t + 1], i2 = tris[t + 2];
            const float ux = p[i1].x - p[i0].x, uy = p[i1].y - p[i0].y, uz = p[i1].z - p[i0].z;
            const float vx = p[i2].x - p[i0].x, vy = p[i2].y - p[i0].y, vz = p[i2].z - p[i0].z;
            const float nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
            for (uint32_t v : {i0, i1, i2}) want[v].x = want[v].x + nx, want[v].y = want[v].y + ny, want[v].z = want[v].z + nz;
        }
        for (auto& w : want) {
            const float l2 = (w.x * w.x + w.y * w.y) + w.z * w.z;
            if (l2 > 0) {
                const float il = 1.0f / std::sqrt(l2);
                w = {w.x * il, w.y * il, w.z * il, 0};
            }
        }
        CHECK(drape::solver::test::same_bits(a.state->normals, want.data(), n));
    }
}

// The runtime defers the particle normals (StepInputs::defer_normals) and brings them up to date
// before the positions move again, only where a step with wind follows. Calm steps, then wind:
// the same bits as computing them at the end of every step; brought up to date after the
// positions moved (a pinned particle set between steps), they would differ.
TEST_CASE("solver normals: deferred to before the next move of the positions, the wind that reads them gives the same bits as normals computed every step") {
    std::mt19937 rng(17);
    const uint32_t n = 96;
    std::vector<ParticleDesc> particles(n, ParticleDesc{1, 1, 0.01f, 0.3f});
    for (uint32_t i = 0; i < n; i += 12) particles[i].inv_mass = 0;  // pinned: set between steps, as a move-particles operator does
    std::vector<Float4> rest(n);
    for (uint32_t i = 0; i < n; ++i) rest[i] = {float(i % 12) * 0.05f, -float(i / 12) * 0.05f, 0.01f * float(rng() % 5), 0};
    std::vector<uint16_t> tris;
    for (uint32_t r = 0; r + 1 < n / 12; ++r)
        for (uint32_t c = 0; c + 1 < 12; ++c) {
            const uint16_t a = uint16_t(r * 12 + c), b = uint16_t(a + 1), d = uint16_t(a + 12), e = uint16_t(a + 13);
            tris.insert(tris.end(), {a, d, b, b, d, e});
        }
    std::vector<LinkDesc> links;
    for (uint32_t i = 0; i + 12 < n; ++i) links.push_back({uint16_t(i), uint16_t(i + 12), 0.05f, 0.9f});
    ConstraintSetDesc set;
    set.kind = ConstraintKind::standard_link, set.links = links.data(), set.count = uint32_t(links.size());
    SimClothDesc d;
    d.particles = particles.data();
    d.particle_count = n;
    d.rest_positions = rest.data();
    d.constraint_sets = &set;
    d.constraint_set_count = 1;
    d.triangle_indices = tris.data();
    d.triangle_index_count = uint32_t(tris.size());
    d.do_normals = true;
    const WindField wind{{0.6f, 0.0f, 0.8f, 0}, 4.0f};
    // mode 0: normals every step; 1: deferred, updated before the pinned particles move; 2:
    // deferred, updated after they moved (wrong).
    auto run_mode = [&](int mode, std::vector<Float4>& out) {
        Sim s(d);
        REQUIRE(s.ok());
        for (int k = 0; k < 24; ++k) {
            const bool windy = k >= 12;
            if (mode == 1 && windy) drape::solver::update_normals(*s.setup, *s.state);
            for (uint32_t i = 0; i < n; i += 12) s.p(i).x = s.p(i).x + 0.01f, s.state->previous_positions[i].x = s.p(i).x;
            if (mode == 2 && windy) drape::solver::update_normals(*s.setup, *s.state);
            StepInputs in;
            in.dt = 1.0f / 30;
            in.defer_normals = mode != 0;
            in.wind_fields = windy ? &wind : nullptr;
            in.wind_field_count = windy ? 1 : 0;
            s.step(in);
        }
        out.assign(s.state->positions, s.state->positions + n);
    };
    std::vector<Float4> every, deferred, late;
    run_mode(0, every);
    run_mode(1, deferred);
    run_mode(2, late);
    CHECK(drape::solver::test::same_bits(deferred.data(), every.data(), n));
    CHECK_FALSE(drape::solver::test::same_bits(late.data(), every.data(), n));  // the normals do matter here
}

TEST_CASE("solver schedule: local-range entries four and eight at a time equal the sequential loop bit for bit, sphere and cylinder, with and without the normal band") {
    std::mt19937 rng(99);
    for (int trial = 0; trial < 16; ++trial) {
        const uint32_t n = 30 + rng() % 120;
        std::vector<ParticleDesc> particles(n);
        std::vector<Float4> rest(n), ref(n), nrm(n);
        std::uniform_real_distribution<float> u(-1, 1);
        for (uint32_t i = 0; i < n; ++i) {
            particles[i] = {1, (rng() % 7 == 0) ? 0.0f : 1.0f, 0.01f, 0.3f};
            rest[i] = {u(rng), u(rng), u(rng), 0};
            ref[i] = {rest[i].x + 0.3f * u(rng), rest[i].y + 0.3f * u(rng), rest[i].z + 0.3f * u(rng), 0};
            const float nx = u(rng), ny = u(rng), nz = u(rng), l = std::sqrt(nx * nx + ny * ny + nz * nz) + 1e-3f;
            nrm[i] = {nx / l, ny / l, nz / l, 0};
        }
        // Every particle once (the four-lane path), in a shuffled order.
        std::vector<LocalRangeDesc> lr;
        std::vector<uint16_t> order(n);
        for (uint32_t i = 0; i < n; ++i) order[i] = uint16_t(i);
        std::shuffle(order.begin(), order.end(), rng);
        for (uint16_t i : order) {
            LocalRangeDesc e;
            e.particle_index = i, e.reference_vertex = uint16_t(rng() % n);
            e.maximum_distance = (rng() % 5 == 0) ? 0.0f : 0.05f + 0.3f * std::abs(u(rng));
            e.max_normal_distance = 0.1f * std::abs(u(rng)), e.min_normal_distance = -0.1f * std::abs(u(rng));
            lr.push_back(e);
        }
        std::vector<LinkDesc> standard;
        for (uint32_t i = 0; i + 1 < n; ++i) standard.push_back({uint16_t(i), uint16_t(i + 1), 0.2f, 0.9f});
        std::vector<ConstraintSetDesc> sets(2);
        sets[0].kind = ConstraintKind::standard_link, sets[0].links = standard.data(), sets[0].count = uint32_t(standard.size());
        sets[1].kind = ConstraintKind::local_range, sets[1].local_constraints = lr.data(), sets[1].count = uint32_t(lr.size());
        sets[1].shape_type = uint32_t(trial % 2);
        sets[1].apply_normal_component = (trial / 2) % 2 == 0;
        sets[1].stiffness = (trial / 4) % 2 ? 0.5f : 1.0f;
        sets[1].reference_buffer = 0;
        SimClothDesc d;
        d.particles = particles.data();
        d.particle_count = n;
        d.rest_positions = rest.data();
        d.constraint_sets = sets.data();
        d.constraint_set_count = 2;
        const uint32_t vertices[1] = {n};
        d.buffer_count = 1, d.buffer_vertex_counts = vertices;
        Sim a(d), a8(d), b(d);  // a: four lanes, a8: eight where the CPU has AVX2, b: the sequential loop
        INFO(a.error);
        REQUIRE(a.ok());
        REQUIRE(a8.ok());
        REQUIRE(b.ok());
        REQUIRE(a.setup->local_range_set_count == 1);
        CHECK(a.setup->local_range_sets[0].distinct);
        const Float4* positions[1] = {ref.data()};
        const Float4* normals[1] = {trial % 8 < 6 ? nrm.data() : nullptr};  // some trials without normals
        StepInputs in;
        in.dt = 1.0f / 30;
        in.buffer_positions = positions, in.buffer_normals = normals, in.buffer_count = 1;
        for (int step = 0; step < 20; ++step) {
            in.mode = SolveMode::scheduled;
            in.max_lanes = 4;
            a.step(in);
            in.max_lanes = 8;
            a8.step(in);
            in.mode = SolveMode::sequential;
            b.step(in);
        }
        CHECK(drape::solver::test::same_bits(a.state->positions, b.state->positions, n));
        CHECK(drape::solver::test::same_bits(a8.state->positions, b.state->positions, n));
    }
}

TEST_CASE("solver bench: a grid run states the grid it steps and times its steps, and bench_grid reads the same grid") {
    // An 8 x 8 grid: 2*8*7 structural, 2*7*7 shear and 2*8*6 bend links.
    drape::solver_bench::GridRun run({.n = 8});
    const auto& shape = run.shape();
    CHECK(shape.particles == 64);
    CHECK(shape.links == 112 + 98 + 96);
    CHECK(shape.sub_steps == 1);
    CHECK(shape.levels > 0);
    CHECK(shape.batches16 * 16 + shape.batches8 * 8 + shape.batches4 * 4 + shape.singles >= 112 + 98 + 96);
    const double t = run.time(20);
    CHECK(std::isfinite(t));
    CHECK(t > 0);
    CHECK(run.time(0) == 0);
    const auto r = drape::solver_bench::bench_grid({.n = 8, .batches = 1, .min_batch_seconds = 0.001});
    CHECK(r.particles == shape.particles);
    CHECK(r.links == shape.links);
    CHECK(r.levels == shape.levels);
    CHECK(r.ns_per_step > 0);
    CHECK(r.ns_per_particle_substep == doctest::Approx(r.ns_per_step / 64));
}
