// drape convert throughput on the corpus's Elden Ring game folder, beside the pure DCX
// decompression of the same input files, in one run. MB/s of input (SetBytesProcessed) and
// characters per second (the "items" counter). One job: the per-core figure.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "corpus.h"
#include "drape/convert/convert.h"
#include "drape/dcx/dcx.h"
#include "drape/io/file.h"

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> er_inputs() {
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(drape::test::corpus("er/game/chr"), ec))
        if (e.is_regular_file()) files.push_back(e.path());
    return files;
}

void BM_convert_er_game(benchmark::State& state) {
    const fs::path root = drape::test::corpus("er/game");
    if (!fs::is_directory(root)) return state.SkipWithError("corpus er/game missing");
    const fs::path out = fs::temp_directory_path() / "drape_convert_bench";
    drape::convert::Options o;
    o.jobs = unsigned(state.range(0));
    uint64_t bytes = 0;
    size_t items = 0;
    std::map<std::string, double> stages;  // summed over the items and iterations
    double total = 0, materials = 0;
    for (auto _ : state) {
        auto r = drape::convert::convert_folder(root, out, o);
        if (r.failed()) state.SkipWithError("an item failed");
        bytes += r.input_bytes;
        items += r.items.size();
        materials += r.material_seconds;
        total += r.material_seconds;
        for (const auto& i : r.items)
            for (const auto& [k, v] : i.stage_seconds) {
                stages[k] += v;
                total += v;
            }
    }
    state.SetBytesProcessed(int64_t(bytes));
    state.counters["items"] = benchmark::Counter(double(items), benchmark::Counter::kIsRate);
    // The per-stage breakdown: each stage's share (%) of the job time (items' stages + the
    // material library, loaded once per run).
    if (total > 0) {
        state.counters["%material_library"] = 100 * materials / total;
        for (const auto& [k, v] : stages) state.counters["%" + k] = 100 * v / total;
    }
    std::error_code ec;
    fs::remove_all(out, ec);
}
BENCHMARK(BM_convert_er_game)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same input files, only read and DCX-decompressed (single-threaded decoder).
void BM_decompress_er_game(benchmark::State& state) {
    std::vector<std::vector<uint8_t>> files;
    uint64_t total = 0;
    for (const auto& p : er_inputs())
        if (auto b = drape::read_file(p)) {
            total += b->size();
            files.push_back(std::move(*b));
        }
    if (files.empty()) return state.SkipWithError("corpus er/game missing");
    drape::dcx::DecodeOptions d;
    d.jobs = 1;
    for (auto _ : state)
        for (const auto& f : files)
            if (drape::dcx::is_dcx(f)) benchmark::DoNotOptimize(drape::dcx::decompress(f, d));
    state.SetBytesProcessed(int64_t(total * state.iterations()));
}
BENCHMARK(BM_decompress_er_game)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
