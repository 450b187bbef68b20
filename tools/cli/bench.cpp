// drape bench --grid N [--capsules 2] [--sequential]: the solver's speed on the benchmark grid
// (drape/solver_bench.h states it). Prints one line: ns_per_particle_substep=<value>.
#include <cstdio>

#include "commands.h"
#include "drape/solver_bench.h"

namespace drape::cli {

void register_bench(CLI::App& app, GlobalOptions&, int& exit_code) {
    auto* cmd = app.add_subcommand("bench", "Time the cloth solver on the benchmark grid");
    struct Options {
        unsigned grid = 32, capsules = 0, lanes = 16;
        bool sequential = false, verbose = false;
    };
    auto opt = std::make_shared<Options>();
    cmd->add_option("--grid", opt->grid, "N: an N x N hanging grid (headline 32)")->required()->check(CLI::Range(3u, 255u));
    cmd->add_option("--capsules", opt->capsules, "static capsules in the grid's way (0 or 2)")->check(CLI::IsMember({0u, 2u}));
    cmd->add_option("--lanes", opt->lanes, "widest link batches to use: 16 (AVX-512), 8 (AVX2) or 4 (SSE2); "
                                           "the CPU's widest when it has less (same bits)")
        ->check(CLI::IsMember({4u, 8u, 16u}));
    cmd->add_flag("--sequential", opt->sequential, "the plain scalar loop in file order instead of the schedule");
    cmd->add_flag("--verbose", opt->verbose, "also print the step time, particles, links and levels");
    cmd->callback([opt, &exit_code] {
        solver_bench::GridOptions o;
        o.n = opt->grid;
        o.capsules = opt->capsules;
        o.sequential = opt->sequential;
        o.max_lanes = uint8_t(opt->lanes);
        const auto r = solver_bench::bench_grid(o);
        std::printf("ns_per_particle_substep=%.3f\n", r.ns_per_particle_substep);
        if (opt->verbose)
            std::printf("ns_per_step=%.0f particles=%u links=%u levels=%u batches16=%u batches8=%u batches4=%u singles=%u "
                        "cpu_lanes=%u\n",
                        r.ns_per_step, r.particles, r.links, r.levels, r.batches16, r.batches8, r.batches4, r.singles,
                        r.cpu_lanes);
        exit_code = r.particles ? k_exit_ok : k_exit_input;
    });
}

}  // namespace drape::cli
