// The benchmark grid (grid_workload.h states the workload) and its timing (drape/solver_bench.h).
#include "grid_workload.h"

#include "drape/solver_bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include <time.h>

namespace drape::solver {

void build_grid_workload(GridWorkload& w, uint32_t n, uint32_t capsules) {
    w.n = n;
    w.particles.assign(size_t(n) * n, ParticleDesc{1.0f, 1.0f, 0.0f, 0.0f});
    w.rest.assign(size_t(n) * n, Float4{});
    const float step = 2.0f / float(n - 1);
    for (uint32_t j = 0; j < n; ++j)
        for (uint32_t i = 0; i < n; ++i) {
            w.rest[w.index(i, j)] = {-1.0f + step * float(i), 2.5f - step * float(j), 0.0f, 0.0f};
            if (j == 0) w.particles[w.index(i, j)] = {0.0f, 0.0f, 0.0f, 0.0f};  // the top row is pinned
        }
    auto link = [&](std::vector<LinkDesc>& to, uint32_t a, uint32_t b) {
        const Float4 &pa = w.rest[a], &pb = w.rest[b];
        const float dx = pb.x - pa.x, dy = pb.y - pa.y, dz = pb.z - pa.z;
        to.push_back({uint16_t(a), uint16_t(b), std::sqrt((dx * dx + dy * dy) + dz * dz), 1.0f});
    };
    w.structural.clear();
    w.shear.clear();
    w.bend.clear();
    for (uint32_t j = 0; j < n; ++j)
        for (uint32_t i = 0; i < n; ++i) {
            if (i + 1 < n) link(w.structural, w.index(i, j), w.index(i + 1, j));
            if (j + 1 < n) link(w.structural, w.index(i, j), w.index(i, j + 1));
        }
    for (uint32_t j = 0; j + 1 < n; ++j)
        for (uint32_t i = 0; i + 1 < n; ++i) {
            link(w.shear, w.index(i, j), w.index(i + 1, j + 1));
            link(w.shear, w.index(i + 1, j), w.index(i, j + 1));
        }
    for (uint32_t j = 0; j < n; ++j)
        for (uint32_t i = 0; i < n; ++i) {
            if (i + 2 < n) link(w.bend, w.index(i, j), w.index(i + 2, j));
            if (j + 2 < n) link(w.bend, w.index(i, j), w.index(i, j + 2));
        }
    w.sets.assign(3, ConstraintSetDesc{});
    std::vector<LinkDesc>* lists[3] = {&w.structural, &w.shear, &w.bend};
    for (int s = 0; s < 3; ++s) {
        w.sets[s].kind = ConstraintKind::standard_link;
        w.sets[s].links = lists[s]->data();
        w.sets[s].count = uint32_t(lists[s]->size());
    }
    w.collidables.clear();
    for (uint32_t c = 0; c < capsules && c < 2; ++c) {
        CollidableDesc d;
        d.shape.kind = ShapeKind::capsule;
        const float y = 2.5f - (c == 0 ? 0.6f : 1.4f);
        d.shape.start = {-0.6f, y, -0.05f, 0};
        d.shape.end = {0.6f, y, -0.05f, 0};
        d.shape.radius = 0.1f;
        w.collidables.push_back(d);
    }
    SimClothDesc& s = w.desc;
    s = SimClothDesc{};
    s.particles = w.particles.data();
    s.particle_count = uint32_t(w.particles.size());
    s.rest_positions = w.rest.data();
    s.gravity = {0, -9.81f, 0, 0};
    s.global_damping_per_second = 0;
    s.sub_steps = 1;
    s.solve_iterations = 1;
    s.constraint_sets = w.sets.data();
    s.constraint_set_count = 3;
    s.collidables = w.collidables.empty() ? nullptr : w.collidables.data();
    s.collidable_count = uint32_t(w.collidables.size());
}

}  // namespace drape::solver

namespace drape::solver_bench {

double thread_seconds() {
#if defined(CLOCK_THREAD_CPUTIME_ID)
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
#else
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
#endif
}

struct GridRun::Impl {
    solver::GridWorkload w;
    std::vector<solver::Float4> setup_memory, state_memory;
    const solver::Setup* setup = nullptr;
    solver::State* state = nullptr;
    solver::StepInputs in;
    GridResult shape;
};

GridRun::GridRun(const GridOptions& o) : impl_(std::make_unique<Impl>()) {
    using namespace solver;
    Impl& g = *impl_;
    build_grid_workload(g.w, o.n, o.capsules);
    if (o.max_lanes < 16) g.w.desc.link_batch_lanes = 8;  // as on a CPU without AVX-512
    g.setup_memory.resize(setup_bytes(g.w.desc) / sizeof(Float4) + 1);
    g.setup = build_setup(g.w.desc, g.setup_memory.data(), g.setup_memory.size() * sizeof(Float4));
    g.shape.cpu_lanes = widest_lanes();
    if (!g.setup) return;
    g.state_memory.resize(state_bytes(*g.setup, {}) / sizeof(Float4) + 1);
    g.state = build_state(*g.setup, {}, g.state_memory.data(), g.state_memory.size() * sizeof(Float4));
    if (!g.state) return;
    g.in.dt = 1.0f / 60;
    g.in.mode = o.sequential ? SolveMode::sequential : SolveMode::scheduled;
    g.in.max_lanes = o.max_lanes;
    for (int i = 0; i < 120; ++i) step(*g.setup, *g.state, g.in);
    const Setup& s = *g.setup;
    g.shape.particles = s.particle_count;
    g.shape.sub_steps = s.sub_steps;
    g.shape.links = g.w.link_count();
    g.shape.levels = s.link_run_count ? s.link_runs[0].level_count : 0;
    for (uint32_t l = 0; l < g.shape.levels; ++l) {
        const LinkSchedule& ls = s.link_runs[0];
        g.shape.batches16 += ls.level_batches16[l];
        g.shape.batches8 += ls.level_batches8[l];
        g.shape.batches4 += ls.level_batches4[l];
        g.shape.singles += ls.level_singles[l];
    }
}

GridRun::~GridRun() = default;

const GridResult& GridRun::shape() const { return impl_->shape; }

double GridRun::time(uint32_t steps) {
    Impl& g = *impl_;
    if (!g.state || steps == 0) return 0;
    const double t0 = thread_seconds();
    for (uint32_t i = 0; i < steps; ++i) solver::step(*g.setup, *g.state, g.in);
    return (thread_seconds() - t0) * 1e9 / double(steps);
}

GridResult bench_grid(const GridOptions& o) {
    GridRun run(o);
    GridResult r = run.shape();
    if (!r.particles) return r;
    std::vector<double> per_step;
    for (int b = 0; b < std::max(o.batches, 1); ++b) {
        uint64_t steps = 0;
        double ns = 0;
        do {
            ns += run.time(50) * 50;
            steps += 50;
        } while (ns * 1e-9 < o.min_batch_seconds);
        per_step.push_back(ns / double(steps));
    }
    std::sort(per_step.begin(), per_step.end());
    r.ns_per_step = per_step[per_step.size() / 2];
    r.ns_per_particle_substep = r.ns_per_step / (double(r.particles) * r.sub_steps);
    return r;
}

}  // namespace drape::solver_bench
