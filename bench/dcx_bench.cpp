// DCX throughput: drape's container layer against bare zstd and zlib calls on the same payloads.
// Figures are MB/s of decompressed output (SetBytesProcessed).
#include <benchmark/benchmark.h>
#include <zlib.h>
#include <zstd.h>

#include <map>
#include <string>

#include "corpus.h"
#include "drape/bnd/bnd4.h"
#include "drape/dcx/dcx.h"

namespace {

struct Sample {
    std::vector<uint8_t> file;
    uint32_t usize = 0, csize = 0;
    const uint8_t* payload() const { return file.data() + 0x4C; }
};

uint32_t be32(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

const Sample& sample(const char* rel) {
    static std::map<std::string, Sample> cache;
    auto it = cache.find(rel);
    if (it != cache.end()) return it->second;
    Sample s;
    s.file = drape::test::load(drape::test::corpus(rel));
    if (s.file.size() >= 0x4C) {
        s.usize = be32(s.file.data() + 0x1C);
        s.csize = be32(s.file.data() + 0x20);
    }
    return cache[rel] = std::move(s);
}

void drape_dcx(benchmark::State& state, const char* rel) {
    const Sample& s = sample(rel);
    if (s.file.empty()) return state.SkipWithError("corpus file missing");
    for (auto _ : state) {
        auto r = drape::dcx::decompress(s.file);
        if (!r) return state.SkipWithError(r.error().to_string().c_str());
        benchmark::DoNotOptimize(r->data());
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * s.usize);
}

void bare_zstd(benchmark::State& state, const char* rel) {
    const Sample& s = sample(rel);
    if (s.file.empty()) return state.SkipWithError("corpus file missing");
    for (auto _ : state) {
        std::vector<uint8_t> out(s.usize);
        size_t r = ZSTD_decompress(out.data(), out.size(), s.payload(), s.csize);
        if (ZSTD_isError(r)) return state.SkipWithError("zstd failed");
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * s.usize);
}

void bare_zlib(benchmark::State& state, const char* rel) {
    const Sample& s = sample(rel);
    if (s.file.empty()) return state.SkipWithError("corpus file missing");
    for (auto _ : state) {
        std::vector<uint8_t> out(s.usize);
        uLongf len = s.usize;
        if (uncompress(out.data(), &len, s.payload(), s.csize) != Z_OK) return state.SkipWithError("zlib failed");
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * s.usize);
}

void drape_bnd4_open(benchmark::State& state) {
    const Sample& s = sample("er/regulation.112.decrypted.bin");
    auto inner = drape::dcx::decompress(s.file);
    if (!inner) return state.SkipWithError("decode failed");
    for (auto _ : state) {
        auto b = drape::bnd::read_bnd4(*inner);
        benchmark::DoNotOptimize(b);
    }
    state.SetItemsProcessed(int64_t(state.iterations()) * 194);
}

}  // namespace

BENCHMARK_CAPTURE(drape_dcx, er_regulation_zstd, "er/regulation.112.decrypted.bin")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bare_zstd, er_regulation_zstd, "er/regulation.112.decrypted.bin")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(drape_dcx, sekiro_c0000_anibnd_dflt, "sekiro/c0000.anibnd.dcx")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bare_zlib, sekiro_c0000_anibnd_dflt, "sekiro/c0000.anibnd.dcx")->Unit(benchmark::kMillisecond);
BENCHMARK(drape_bnd4_open)->Unit(benchmark::kMicrosecond);
