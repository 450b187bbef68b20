// FLVER throughput in MB/s of input FLVER bytes: the reader alone, and FLVER to .glb bytes
// (read + build + serialise, no disk write).
#include <benchmark/benchmark.h>

#include <map>
#include <string>

#include "corpus.h"
#include "drape/exporters/gltf.h"
#include "drape/flver/flver.h"

namespace {

const std::vector<uint8_t>& flver_bytes(const char* rel) {
    static std::map<std::string, std::vector<uint8_t>> cache;
    auto it = cache.find(rel);
    if (it != cache.end()) return it->second;
    return cache[rel] = drape::test::load(drape::test::corpus(rel));
}

void flver_read(benchmark::State& state, const char* rel) {
    const auto& b = flver_bytes(rel);
    if (b.empty()) return state.SkipWithError("corpus file missing");
    for (auto _ : state) {
        auto r = drape::flver::read_flver(b);
        if (!r) return state.SkipWithError(r.error().to_string().c_str());
        benchmark::DoNotOptimize(r->meshes.data());
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(b.size()));
}

void flver_to_glb(benchmark::State& state, const char* rel) {
    const auto& b = flver_bytes(rel);
    if (b.empty()) return state.SkipWithError("corpus file missing");
    drape::exporters::GltfOptions options;
    options.name = "bench";
    for (auto _ : state) {
        auto r = drape::flver::read_flver(b);
        if (!r) return state.SkipWithError(r.error().to_string().c_str());
        auto g = drape::exporters::gltf_bytes(*r, options);
        if (!g) return state.SkipWithError(g.error().to_string().c_str());
        benchmark::DoNotOptimize(g->data());
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(b.size()));
}

}  // namespace

BENCHMARK_CAPTURE(flver_read, c2800_bb, "bb/c2800.flver")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(flver_read, elite_knight_ds3, "ds3/EliteKnight.flver")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(flver_to_glb, c2800_bb, "bb/c2800.flver")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(flver_to_glb, elite_knight_ds3, "ds3/EliteKnight.flver")->Unit(benchmark::kMillisecond);
