// Kraken decoding speed on the Sekiro mtdbnd (12.8 MB of output), next to zlib and zstd
// decompression of the same output (compressed once at set-up, zlib level 9, zstd level 19).
// Figures are MB/s of decompressed output (SetBytesProcessed).
#include <benchmark/benchmark.h>
#include <zlib.h>
#include <zstd.h>

#include <cstring>
#include <vector>

#include "corpus.h"
#include "drape/dcx/kraken.h"

namespace {

struct Data {
    std::vector<uint8_t> stream;  // the Kraken stream (DCX bytes from 0x4C)
    size_t size = 0;              // decoded size
    std::vector<uint8_t> plain;   // decoded output
    std::vector<uint8_t> zlib9;
    std::vector<uint8_t> zstd19;
    bool ok = false;
};

uint32_t be32_at(const std::vector<uint8_t>& b, size_t off) {
    return uint32_t(b[off]) << 24 | uint32_t(b[off + 1]) << 16 | uint32_t(b[off + 2]) << 8 | b[off + 3];
}

const Data& data() {
    static Data d = [] {
        Data d;
        std::vector<uint8_t> file = drape::test::load(drape::test::corpus("sekiro/allmaterialbnd.mtdbnd.dcx"));
        if (file.size() < 0x4C) return d;
        d.size = be32_at(file, 0x1C);
        size_t c = be32_at(file, 0x20);
        if (0x4C + c > file.size()) return d;
        d.stream.assign(file.begin() + 0x4C, file.begin() + 0x4C + long(c));
        d.plain.resize(d.size);
        if (!drape::kraken::decompress(d.stream, d.plain, 1)) return d;
        uLongf zl = compressBound(uLong(d.size));
        d.zlib9.resize(zl);
        if (compress2(d.zlib9.data(), &zl, d.plain.data(), uLong(d.size), 9) != Z_OK) return d;
        d.zlib9.resize(zl);
        d.zstd19.resize(ZSTD_compressBound(d.size));
        size_t zs = ZSTD_compress(d.zstd19.data(), d.zstd19.size(), d.plain.data(), d.size, 19);
        if (ZSTD_isError(zs)) return d;
        d.zstd19.resize(zs);
        d.ok = true;
        return d;
    }();
    return d;
}

void kraken_decode(benchmark::State& state, unsigned jobs) {
    const Data& d = data();
    if (!d.ok) {
        state.SkipWithError("corpus file sekiro/allmaterialbnd.mtdbnd.dcx missing or undecodable");
        return;
    }
    std::vector<uint8_t> out(d.size);
    for (auto _ : state) {
        auto r = drape::kraken::decompress(d.stream, out, jobs);
        if (!r) state.SkipWithError("decode failed");
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(d.size));
    state.counters["ratio"] = double(d.size) / double(d.stream.size());
}

void BM_kraken_mtdbnd_1thread(benchmark::State& state) { kraken_decode(state, 1); }
void BM_kraken_mtdbnd_allcores(benchmark::State& state) { kraken_decode(state, 0); }

void BM_zlib9_mtdbnd(benchmark::State& state) {
    const Data& d = data();
    if (!d.ok) {
        state.SkipWithError("corpus file missing");
        return;
    }
    std::vector<uint8_t> out(d.size);
    for (auto _ : state) {
        uLongf n = uLongf(d.size);
        if (uncompress(out.data(), &n, d.zlib9.data(), uLong(d.zlib9.size())) != Z_OK || n != d.size)
            state.SkipWithError("zlib failed");
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(d.size));
    state.counters["ratio"] = double(d.size) / double(d.zlib9.size());
}

void BM_zstd19_mtdbnd(benchmark::State& state) {
    const Data& d = data();
    if (!d.ok) {
        state.SkipWithError("corpus file missing");
        return;
    }
    std::vector<uint8_t> out(d.size);
    ZSTD_DCtx* dctx = ZSTD_createDCtx();
    for (auto _ : state) {
        size_t n = ZSTD_decompressDCtx(dctx, out.data(), out.size(), d.zstd19.data(), d.zstd19.size());
        if (ZSTD_isError(n) || n != d.size) state.SkipWithError("zstd failed");
        benchmark::DoNotOptimize(out.data());
    }
    ZSTD_freeDCtx(dctx);
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(d.size));
    state.counters["ratio"] = double(d.size) / double(d.zstd19.size());
}

}  // namespace

BENCHMARK(BM_kraken_mtdbnd_1thread)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_kraken_mtdbnd_allcores)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_zlib9_mtdbnd)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_zstd19_mtdbnd)->Unit(benchmark::kMillisecond)->UseRealTime();
