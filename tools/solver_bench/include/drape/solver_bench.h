// drape::solver_bench: the cloth solver's speed on the benchmark grid, the figure `drape bench`
// prints and `make bench` compares with (the grid is stated in tools/solver_bench/grid_workload.h:
// an N x N hanging cloth, top row pinned, structural, shear and bend links, optional capsules).
#pragma once

#include <cstdint>
#include <memory>

namespace drape::solver_bench {

struct GridOptions {
    uint32_t n = 32;         // an n x n grid, 3 <= n <= 255
    uint32_t capsules = 0;   // static capsules in its way: 0 or 2
    bool sequential = false; // the plain scalar loop in file order instead of the schedule
    uint8_t max_lanes = 16;  // widest link batches used: 16, 8 or 4 (the CPU's widest when less)
    int batches = 5;         // the result is the median of this many batches
    double min_batch_seconds = 0.2;
};

struct GridResult {
    double ns_per_particle_substep = 0;  // median of the batches; 0 when the grid could not be built
    double ns_per_step = 0;
    uint32_t particles = 0, links = 0, levels = 0, sub_steps = 0;
    uint32_t batches16 = 0, batches8 = 0, batches4 = 0, singles = 0;  // of the first link run's schedule
    uint32_t cpu_lanes = 0;  // the widest batch this CPU runs
};

// Seconds of this thread's CPU time (POSIX), else of the steady clock: what the benchmarks count.
double thread_seconds();

// 1/60 s steps, 120 warm-up steps, then the median of the batches, each at least
// min_batch_seconds of thread_seconds(); pinned particles count as particles. Single thread.
// Below 16 lanes the schedule is also built of eight-lane batches, as on a CPU without AVX-512.
GridResult bench_grid(const GridOptions& options);

// The grid built once and warmed up (120 steps), then timed a batch at a time on request: for a
// caller that times its own work in turns with the grid's, so that both see the same state of the
// machine (a virtual machine's speed moves within seconds). Single thread; the options' batches
// and min_batch_seconds are not used.
class GridRun {
public:
    explicit GridRun(const GridOptions& options);
    ~GridRun();
    GridRun(const GridRun&) = delete;
    GridRun& operator=(const GridRun&) = delete;

    // The grid's shape; particles == 0 when it could not be built (then time() returns 0).
    const GridResult& shape() const;
    // thread_seconds() of `steps` more steps, per step, in nanoseconds.
    double time(uint32_t steps);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace drape::solver_bench
