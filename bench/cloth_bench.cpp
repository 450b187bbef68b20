// The cloth solver on the benchmark grid (tools/solver_bench/grid_workload.h), and Bullet's
// btSoftBody on the same grid, links and steps in the same run, so the ratio is measured side by
// side (bullet_grid also times drape's step on the same grid right after Bullet's, by thread CPU
// time, and reports bullet_over_drape). Bullet is linked into this benchmark only, never into the
// runtime.
#include <benchmark/benchmark.h>

#include <BulletSoftBody/btSoftBodyHelpers.h>
#include <BulletSoftBody/btSoftBodyRigidBodyCollisionConfiguration.h>
#include <BulletSoftBody/btSoftRigidDynamicsWorld.h>
#include <btBulletDynamicsCommon.h>

#include <memory>
#include <vector>

#include "drape/solver_bench.h"
#include "grid_workload.h"

namespace {

using namespace drape::solver;

void set_counters(benchmark::State& state, uint32_t particles) {
    state.counters["ns_per_particle_substep"] =
        benchmark::Counter(double(state.iterations()) * particles * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void drape_grid(benchmark::State& state) {
    GridWorkload w;
    build_grid_workload(w, uint32_t(state.range(0)), uint32_t(state.range(1)));
    const uint8_t lanes = uint8_t(state.range(3));
    if (lanes < 16) w.desc.link_batch_lanes = 8;  // the schedule a CPU without AVX-512 builds
    std::vector<Float4> sm(setup_bytes(w.desc) / sizeof(Float4) + 1);
    const Setup* s = build_setup(w.desc, sm.data(), sm.size() * sizeof(Float4));
    std::vector<Float4> tm(state_bytes(*s, {}) / sizeof(Float4) + 1);
    State* st = build_state(*s, {}, tm.data(), tm.size() * sizeof(Float4));
    StepInputs in;
    in.dt = 1.0f / 60;
    in.mode = state.range(2) ? SolveMode::sequential : SolveMode::scheduled;
    in.max_lanes = lanes;
    for (int i = 0; i < 120; ++i) step(*s, *st, in);
    for (auto _ : state) step(*s, *st, in);
    set_counters(state, s->particle_count);
    state.counters["lanes"] = double(lanes < widest_lanes() ? lanes : widest_lanes());
    state.counters["bottom_y"] = st->positions[s->particle_count - 1].y;
}

// Bullet: the same particles (top row mass 0), the same links appended in the same order, one
// position iteration, no velocity/drift iterations, no damping; static capsules as rigid bodies.
void bullet_grid(benchmark::State& state) {
    GridWorkload w;
    build_grid_workload(w, uint32_t(state.range(0)), uint32_t(state.range(1)));
    btSoftBodyRigidBodyCollisionConfiguration config;
    btCollisionDispatcher dispatcher(&config);
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btSoftRigidDynamicsWorld world(&dispatcher, &broadphase, &solver, &config);
    world.setGravity(btVector3(0, -9.81f, 0));
    btSoftBodyWorldInfo& info = world.getWorldInfo();
    info.m_gravity = btVector3(0, -9.81f, 0);
    info.air_density = 0;
    info.m_sparsesdf.Initialize();
    std::vector<btVector3> x;
    std::vector<btScalar> m;
    for (size_t i = 0; i < w.rest.size(); ++i) {
        x.emplace_back(w.rest[i].x, w.rest[i].y, w.rest[i].z);
        m.push_back(w.particles[i].mass);
    }
    auto* body = new btSoftBody(&info, int(x.size()), x.data(), m.data());
    for (const auto* list : {&w.structural, &w.shear, &w.bend})
        for (const LinkDesc& l : *list)  // links of two pinned nodes move nothing; Bullet would divide by 0 on them
            if (w.particles[l.particle_a].inv_mass > 0 || w.particles[l.particle_b].inv_mass > 0)
                body->appendLink(l.particle_a, l.particle_b);
    body->m_cfg.piterations = 1;
    body->m_cfg.viterations = 0;
    body->m_cfg.diterations = 0;
    body->m_cfg.citerations = 0;
    body->m_cfg.kDP = 0;
    body->m_cfg.kDG = 0;
    body->m_cfg.kLF = 0;
    body->setActivationState(DISABLE_DEACTIVATION);  // no sleeping: every step simulates, as drape does
    world.addSoftBody(body);
    std::vector<std::unique_ptr<btCollisionShape>> shapes;
    std::vector<std::unique_ptr<btRigidBody>> bodies;
    for (const CollidableDesc& c : w.collidables) {
        shapes.push_back(std::make_unique<btCapsuleShapeX>(c.shape.radius, c.shape.end.x - c.shape.start.x));
        btTransform t;
        t.setIdentity();
        t.setOrigin(btVector3(0, c.shape.start.y, c.shape.start.z));
        btRigidBody::btRigidBodyConstructionInfo ci(0, nullptr, shapes.back().get());
        ci.m_startWorldTransform = t;
        bodies.push_back(std::make_unique<btRigidBody>(ci));
        world.addRigidBody(bodies.back().get());
    }
    // With one iteration, stiffness 1 and no damping this body diverges after about 150 steps
    // (Bullet's linearised link projection), so it warms up 20 steps and is timed over the next
    // 100 (benchmark Iterations(100)), while it still hangs; bottom_y shows it stayed finite.
    for (int i = 0; i < 20; ++i) world.stepSimulation(1.0f / 60, 0);
    const double t0 = drape::solver_bench::thread_seconds();
    for (auto _ : state) world.stepSimulation(1.0f / 60, 0);
    const double bullet_ns = (drape::solver_bench::thread_seconds() - t0) * 1e9 / double(state.iterations());
    set_counters(state, uint32_t(x.size()));
    // drape on the same workload right after, timed the same way (thread CPU time): the ratio of
    // this run, whatever the machine's load.
    {
        std::vector<Float4> sm(setup_bytes(w.desc) / sizeof(Float4) + 1);
        const Setup* s = build_setup(w.desc, sm.data(), sm.size() * sizeof(Float4));
        std::vector<Float4> tm(state_bytes(*s, {}) / sizeof(Float4) + 1);
        State* st = build_state(*s, {}, tm.data(), tm.size() * sizeof(Float4));
        StepInputs in;
        in.dt = 1.0f / 60;
        for (int i = 0; i < 120; ++i) step(*s, *st, in);
        const int n = 500;
        const double d0 = drape::solver_bench::thread_seconds();
        for (int i = 0; i < n; ++i) step(*s, *st, in);
        const double drape_ns = (drape::solver_bench::thread_seconds() - d0) * 1e9 / n;
        state.counters["drape_ns_per_particle_substep"] = drape_ns / double(s->particle_count);
        state.counters["bullet_over_drape"] = bullet_ns / drape_ns;
    }
    state.counters["bottom_y"] = body->m_nodes[int(x.size()) - 1].m_x.y();
    for (auto& b : bodies) world.removeRigidBody(b.get());
    world.removeSoftBody(body);
    delete body;
}

}  // namespace

// Args: N, capsules, sequential, widest lanes (16: AVX-512 where the CPU has it; 8: the AVX2
// path and schedule, as on a CPU without AVX-512; 4: the SSE2 path, as on a CPU without AVX2;
// for the same-run comparison).
BENCHMARK(drape_grid)
    ->Args({32, 0, 0, 16})
    ->Args({32, 2, 0, 16})
    ->Args({32, 0, 0, 8})
    ->Args({32, 2, 0, 8})
    ->Args({32, 0, 0, 4})
    ->Args({32, 0, 1, 16})
    ->MinTime(0.2)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);
BENCHMARK(bullet_grid)->Args({32, 0})->Args({32, 2})->Iterations(100)->Repetitions(5)->ReportAggregatesOnly(true);
