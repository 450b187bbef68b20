// Texture decode throughput: megapixels per second per format.
//
// - "corpus/<texture>": the top mip of each EliteKnight texture (BC1 sRGB 1024², BC7 512²,
//   BC1 sRGB 512²), decoded from the real blocks.
// - "synthetic/<format>": a 512x512 image of pseudo-random blocks (BC7/BC6H with every mode),
//   for the formats the corpus does not use.
// Counter "Mpx/s" = decoded pixels / wall time / 1e6.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "corpus.h"
#include "drape/dcx/dcx.h"
#include "drape/exporters/png.h"
#include "drape/game/loaders.h"
#include "drape/tpf/bc.h"
#include "drape/tpf/tpf.h"

namespace {

using namespace drape;
using namespace drape::tpf;

void set_mpx(benchmark::State& state, uint64_t pixels_per_iteration) {
    state.counters["Mpx/s"] = benchmark::Counter(double(pixels_per_iteration) * double(state.iterations()) / 1e6,
                                                 benchmark::Counter::kIsRate);
}

const std::vector<uint8_t>& elite_knight() {
    static std::vector<uint8_t> bytes = test::load(test::corpus("ds3/EliteKnight.tpf"));
    return bytes;
}

// EliteKnight.tpf's texture `index` decoded (top mip) with its name, for the PNG benchmarks; on
// failure the benchmark is skipped with the reason and nullopt returned.
struct NamedImage {
    std::string name;
    Image image;
};
std::optional<NamedImage> elite_knight_image(benchmark::State& state, size_t index) {
    auto tpf = read_tpf(elite_knight());
    if (!tpf || index >= tpf->textures.size()) {
        state.SkipWithError("EliteKnight.tpf not found in the corpus");
        return std::nullopt;
    }
    auto dds = parse_dds(tpf->textures[index].dds);
    auto img = dds ? decode_surface(*dds) : Result<Image>(dds.error());
    if (!img) {
        state.SkipWithError(img.error().to_string().c_str());
        return std::nullopt;
    }
    return NamedImage{tpf->textures[index].name, std::move(*img)};
}

// The texture `name` of the TPFs inside a corpus binder (KRAK texbnds through drape's decoder),
// decoded; skipped with the reason when missing.
std::optional<NamedImage> binder_image(benchmark::State& state, const char* file, const char* name) {
    const auto bytes = test::load(test::corpus(file));
    for (const auto& tpf_bytes : game::collect_tpfs(bytes, dcx::DecodeOptions{})) {
        auto tpf = read_tpf(tpf_bytes);
        if (!tpf) continue;
        for (const auto& tex : tpf->textures) {
            if (tex.name != name) continue;
            auto dds = parse_dds(tex.dds);
            auto img = dds ? decode_surface(*dds) : Result<Image>(dds.error());
            if (!img) {
                state.SkipWithError(img.error().to_string().c_str());
                return std::nullopt;
            }
            return NamedImage{tex.name, std::move(*img)};
        }
    }
    state.SkipWithError((std::string(name) + " not found in " + file).c_str());
    return std::nullopt;
}

void bm_corpus_texture(benchmark::State& state, size_t index) {
    auto tpf = read_tpf(elite_knight());
    if (!tpf || index >= tpf->textures.size()) {
        state.SkipWithError("EliteKnight.tpf not found in the corpus");
        return;
    }
    auto dds = parse_dds(tpf->textures[index].dds);
    if (!dds) {
        state.SkipWithError("bad DDS");
        return;
    }
    state.SetLabel(tpf->textures[index].name + " " + pixel_format_name(dds->format) + " " +
                   std::to_string(dds->width) + "x" + std::to_string(dds->height));
    for (auto _ : state) {
        auto img = decode_surface(*dds);
        benchmark::DoNotOptimize(img);
    }
    set_mpx(state, uint64_t(dds->width) * dds->height);
}

void bm_synthetic(benchmark::State& state, PixelFormat format) {
    const uint32_t w = 512, h = 512;
    const uint32_t unit = format_unit_size(format);
    const bool block = is_block_compressed(format);
    std::vector<uint8_t> data(size_t(block ? (w / 4) * (h / 4) : w * h) * unit);
    uint64_t s = 42;
    for (auto& b : data) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        b = uint8_t(s >> 56);
    }
    if (format == PixelFormat::bc7) {
        for (size_t i = 0; i < data.size(); i += 16) {
            const uint32_t mode = uint32_t(i / 16) % 8;
            data[i] = uint8_t((data[i] & ~((2u << mode) - 1)) | (1u << mode));
        }
    }
    state.SetLabel(std::string(pixel_format_name(format)) + " 512x512");
    for (auto _ : state) {
        auto img = decode_pixels(format, data, w, h);
        benchmark::DoNotOptimize(img);
    }
    set_mpx(state, uint64_t(w) * h);
}

// PNG encoding of decoded colour textures (RGBA8), per (filter, level, deflate): deflate 0 is
// drape's fast encoder (level unused), 1 libdeflate at the level; both in the same run.
void bm_png_encode(benchmark::State& state, size_t index) {
    const auto named = elite_knight_image(state, index);
    if (!named) return;
    const Image* img = &named->image;
    image::PngOptions options;
    options.filter = image::PngFilter(state.range(0));
    options.level = int(state.range(1));
    options.deflate = state.range(2) ? image::PngDeflate::libdeflate : image::PngDeflate::fast;
    size_t bytes = 0;
    for (auto _ : state) {
        auto png = image::encode_png(*img, options);
        bytes = png ? png->size() : 0;
        benchmark::DoNotOptimize(png);
    }
    static const char* k_filters[] = {"adaptive", "none", "sub", "up", "average", "paeth"};
    state.SetLabel(named->name + " " + std::to_string(img->channels) + "ch " + std::to_string(img->width) + "x" +
                   std::to_string(img->height) + " " +  k_filters[state.range(0) % 6] +
                   (state.range(2) ? " libdeflate level " + std::to_string(options.level) : std::string(" fast")) + " -> " + std::to_string(bytes) + " B");
    set_mpx(state, uint64_t(img->width) * img->height);
}

double thread_cpu_seconds() {
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// The default PNG path (drape's deflate, no filter) against libdeflate level 1 on the same
// decoded texture, interleaved in one loop (the order swapped every iteration), each timed by
// the thread's CPU clock: a ratio that the machine's load moves far less than either rate
// (the target is >= 100 Mpx/s per core for the colour map; libdeflate level 1 gives about 60).
// Counters: both rates from the summed times, the ratio of the sums, and the ratio of the
// fastest encode of each ("best").
// index: EliteKnight.tpf's texture, or 3 for Elden Ring's c4361_body_a (1024^2 BC1 with alpha:
// RGBA rows, where the EliteKnight colour map is opaque and written as RGB).
void bm_png_fast_vs_libdeflate(benchmark::State& state, size_t index) {
    const auto named = index < 3 ? elite_knight_image(state, index)
                                 : binder_image(state, "er/game/chr/c4361_h.texbnd.dcx", "c4361_body_a");
    if (!named) return;
    const Image* img = &named->image;
    image::PngOptions fast;
    fast.deflate = image::PngDeflate::fast;
    image::PngOptions lib1;
    lib1.deflate = image::PngDeflate::libdeflate;
    lib1.level = 1;
    double fast_sum = 0, lib_sum = 0, fast_best = 1e30, lib_best = 1e30;
    size_t fast_bytes = 0, lib_bytes = 0;
    bool odd = false;
    for (auto _ : state) {
        for (int k = 0; k < 2; ++k) {
            const bool run_fast = (k == 0) != odd;
            const double t0 = thread_cpu_seconds();
            auto png = image::encode_png(*img, run_fast ? fast : lib1);
            const double t = thread_cpu_seconds() - t0;
            benchmark::DoNotOptimize(png);
            (run_fast ? fast_bytes : lib_bytes) = png ? png->size() : 0;
            (run_fast ? fast_sum : lib_sum) += t;
            double& best = run_fast ? fast_best : lib_best;
            best = std::min(best, t);
        }
        odd = !odd;
    }
    const double px = double(img->width) * img->height;
    const double n = double(state.iterations());
    state.counters["fast_Mpx/s"] = px * n / fast_sum / 1e6;
    state.counters["lib1_Mpx/s"] = px * n / lib_sum / 1e6;
    state.counters["fast/lib1"] = lib_sum / fast_sum;
    state.counters["fast/lib1_best"] = lib_best / fast_best;
    state.SetLabel(named->name + " " + std::to_string(img->width) + "x" + std::to_string(img->height) + " fast " +
                   std::to_string(fast_bytes) + " B, libdeflate level 1 " + std::to_string(lib_bytes) + " B");
}

}  // namespace

BENCHMARK_CAPTURE(bm_corpus_texture, EliteKnight_a, 0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_corpus_texture, EliteKnight_n, 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_corpus_texture, EliteKnight_r, 2)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_synthetic, BC1, PixelFormat::bc1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_synthetic, BC2, PixelFormat::bc2)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_synthetic, BC3, PixelFormat::bc3)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_synthetic, BC4, PixelFormat::bc4)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_synthetic, BC5, PixelFormat::bc5)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_synthetic, BC6H_UF16, PixelFormat::bc6h_uf16)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_synthetic, BC7, PixelFormat::bc7)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_synthetic, B8G8R8A8, PixelFormat::bgra8)->Unit(benchmark::kMillisecond);
// The default (none, level 1) and Up on the three EliteKnight textures, the alternatives on the albedo.
// The default (fast, no filter) beside libdeflate level 1 on the three EliteKnight textures;
// the other filters and levels on the albedo.
BENCHMARK_CAPTURE(bm_png_encode, a, 0)
    ->Args({1, 1, 0})->Args({1, 1, 1})->Args({3, 1, 0})->Args({3, 1, 1})->Args({1, 0, 1})->Args({0, 1, 1})
    ->Args({0, 6, 1})->Args({2, 1, 1})->Args({4, 1, 1})->Args({5, 1, 1})->Args({3, 6, 1})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_png_encode, n, 1)->Args({1, 1, 0})->Args({1, 1, 1})->Args({3, 1, 0})->Args({3, 1, 1})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_png_encode, r, 2)->Args({1, 1, 0})->Args({1, 1, 1})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_png_fast_vs_libdeflate, a, 0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_png_fast_vs_libdeflate, n, 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_png_fast_vs_libdeflate, r, 2)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_png_fast_vs_libdeflate, er_c4361_body_a, 3)->Unit(benchmark::kMillisecond);
