// Havok: parse + typed views (skeleton, animations, cloth) of BB c2020_c.hkx and of every Havok
// file of the corpus (loose or in binders, decompressed beforehand). Bytes/s = Havok bytes parsed.
#include <benchmark/benchmark.h>

#include "corpus.h"
#include "drape/havok/animation.h"
#include "drape/havok/cloth.h"
#include "drape/havok/hkx.h"
#include "havok_corpus.h"

namespace {

struct Input {
    std::vector<std::vector<uint8_t>> files;  // every non-compendium Havok member
    drape::havok::CompendiumSet compendiums;
    size_t bytes = 0;
};

uint64_t parse_and_type(drape::Bytes b, const drape::havok::CompendiumSet& set) {
    auto f = drape::havok::read_hkx(b, set.lookup());
    if (!f) return 0;
    uint64_t sum = f->items.size();
    if (auto a = drape::havok::read_animation_container(*f)) sum += a->skeletons.size() + a->animations.size();
    if (auto c = drape::hcl::read_cloth(*f)) sum += c->cloth_datas.size();
    return sum;
}

void BM_havok_c2020_c(benchmark::State& state) {
    const auto bytes = drape::test::load(drape::test::corpus("bb/c2020_c.hkx"));
    drape::havok::CompendiumSet none;
    for (auto _ : state) benchmark::DoNotOptimize(parse_and_type(bytes, none));
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes.size()));
}
BENCHMARK(BM_havok_c2020_c)->Unit(benchmark::kMillisecond);

void BM_havok_corpus(benchmark::State& state) {
    static Input in = [] {
        Input i;
        for (const auto& rel : drape::test::corpus_hkx_files()) {
            auto members = drape::test::hkx_members(rel);
            for (auto& m : members) {
                if (drape::havok::is_compendium(m.bytes)) {
                    (void)i.compendiums.add(m.bytes);
                } else {
                    i.bytes += m.bytes.size();
                    i.files.push_back(std::move(m.bytes));
                }
            }
        }
        return i;
    }();
    for (auto _ : state)
        for (const auto& f : in.files) benchmark::DoNotOptimize(parse_and_type(f, in.compendiums));
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(in.bytes));
    state.counters["files"] = double(in.files.size());
}
BENCHMARK(BM_havok_corpus)->Unit(benchmark::kMillisecond);

}  // namespace
