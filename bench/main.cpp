// drape_bench: the Google Benchmark entry point (every bench/*.cpp registers its benchmarks).
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
