// The collision pass's group loop (runtime/src/solver/step.cpp collide_groups): sixteen-particle
// blocks skipped by one bounds test, chunks of eight collidables, run-time collidables that apply
// to every particle (also past the masks' 32 bits), disabled collidables and a NaN particle sharing a
// block with colliding ones: the scheduled pass gives the bits of the plain sequential loop.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>

#include "solver_support.h"

using namespace drape::solver;
using drape::solver::test::Sim;

TEST_CASE("runtime collision groups: blocks of a sheet over thirty-four scattered collidables (run-time ones past bit 31 of the masks, run-time and disabled ones, a NaN particle) give the sequential loop's bits") {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(-1, 1);
    constexpr uint32_t side = 40, n = side * side;  // a sheet in row order: blocks are spatially coherent
    for (int trial = 0; trial < 4; ++trial) {
        INFO("trial " << trial);
        std::vector<ParticleDesc> particles(n);
        std::vector<Float4> rest(n);
        std::vector<uint32_t> masks(n);
        for (uint32_t j = 0; j < side; ++j)
            for (uint32_t i = 0; i < side; ++i) {
                const uint32_t k = j * side + i;
                particles[k] = {1, rng() % 10 == 0 ? 0.0f : 1.0f, 0.02f * std::abs(u(rng)), 0.5f * std::abs(u(rng))};
                rest[k] = {-1.0f + 2.0f * float(i) / float(side - 1), 0.05f * u(rng), -1.0f + 2.0f * float(j) / float(side - 1), 0};
                masks[k] = rng() % 4 == 0 ? uint32_t(rng()) : ~0u;
            }
        // A pinned NaN particle in a block the shapes reach (it stays NaN: nothing moves a pinned one).
        const uint32_t nan_particle = 20 * side + 21;
        particles[nan_particle].inv_mass = 0;
        rest[nan_particle] = {std::numeric_limits<float>::quiet_NaN(), 0, 0, 0};
        std::vector<CollidableDesc> shapes(30);  // the most the masks allow is 32
        for (size_t c = 0; c < shapes.size(); ++c) {
            CollidableDesc& d = shapes[c];
            const float x = 0.9f * u(rng), z = 0.9f * u(rng);
            switch (c % 3) {
                case 0:
                    d.shape.kind = ShapeKind::sphere;
                    d.shape.sphere = {x, 0.05f * u(rng), z, 0.08f + 0.04f * u(rng)};
                    break;
                case 1:
                    d.shape.kind = ShapeKind::capsule;
                    d.shape.start = {x - 0.1f, 0.02f * u(rng), z, 0};
                    d.shape.end = {x + 0.1f, 0.02f * u(rng), z + 0.1f * u(rng), 0};
                    d.shape.radius = 0.06f + 0.03f * u(rng);
                    break;
                default:
                    d.shape.kind = ShapeKind::tapered_capsule;
                    d.shape.small = {x, -0.05f, z, 0};
                    d.shape.big = {x + 0.1f * u(rng), 0.05f, z + 0.1f, 0};
                    d.shape.small_radius = 0.03f;
                    d.shape.big_radius = 0.08f + 0.03f * u(rng);
            }
            d.linear_velocity = {0.2f * u(rng), 0.2f * u(rng), 0.2f * u(rng), 0};
            d.angular_velocity = {u(rng), u(rng), u(rng), 0};
            d.enabled = c % 7 != 3;
        }
        // Four run-time collidables (apply to every particle whatever its mask), collidables 30 to
        // 33: the last two past the masks' 32 bits.
        RuntimeCollidable runtime[4];
        runtime[0].shape.kind = ShapeKind::capsule;
        runtime[0].shape.start = {-0.8f, 0, 0.3f, 0};
        runtime[0].shape.end = {0.8f, 0, 0.35f, 0};
        runtime[0].shape.radius = 0.05f;
        runtime[1].shape.kind = ShapeKind::sphere;
        runtime[1].shape.sphere = {0.3f, 0, -0.4f, 0.15f};
        runtime[2].shape.kind = ShapeKind::sphere;
        runtime[2].shape.sphere = {-0.5f, 0, -0.6f, 0.12f};
        runtime[3].shape.kind = ShapeKind::tapered_capsule;
        runtime[3].shape.small = {0.6f, -0.05f, 0.6f, 0};
        runtime[3].shape.big = {0.7f, 0.05f, 0.7f, 0};
        runtime[3].shape.small_radius = 0.04f;
        runtime[3].shape.big_radius = 0.1f;
        for (RuntimeCollidable& r : runtime) r.linear_velocity = {0.1f * u(rng), 0, 0.1f * u(rng), 0};
        SimClothDesc d;
        d.particles = particles.data();
        d.particle_count = n;
        d.rest_positions = rest.data();
        d.gravity = {0, -2.0f, 0, 0};
        d.collidables = shapes.data();
        d.collidable_count = uint32_t(shapes.size());
        d.collision_masks = masks.data();
        StateOptions so;
        so.runtime_collidable_capacity = 4;
        Sim a(d, so), b(d, so);
        REQUIRE_MESSAGE(a.ok(), a.error);
        REQUIRE(b.ok());
        StepInputs in;
        in.dt = 1.0f / 60;
        in.runtime_collidables = runtime;
        in.runtime_collidable_count = 4;
        for (int s = 0; s < 60; ++s) {
            in.mode = SolveMode::scheduled;
            a.step(in);
            in.mode = SolveMode::sequential;
            b.step(in);
        }
        CHECK(std::isnan(a.p(nan_particle).x));
        CHECK(drape::solver::test::same_bits(a.state->positions, b.state->positions, n));
        CHECK(drape::solver::test::same_bits(a.state->previous_positions, b.state->previous_positions, n));
        // The shapes did push (particles held up above the fall gravity alone would give).
        uint32_t held = 0;
        for (uint32_t i = 0; i < n; ++i)
            if (particles[i].inv_mass > 0 && a.p(i).y > -0.5f) ++held;
        CHECK(held > 20);
    }
}
