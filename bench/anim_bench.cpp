// Animation decoding for a ~100-bone skeleton: Sekiro c1140 (103 tracks): a000_003000 (1.67 s,
// 51 frames, 77 spline THREECOMP40 rotations, an attack) and a000_000000 (4 s, 121 frames, all
// rotations static, an idle). Counters: `clip_s/s` = clip-seconds processed per
// wall-clock second (its inverse is the decode time per clip-second).
#include <benchmark/benchmark.h>

#include <map>
#include <string>

#include "corpus.h"
#include "drape/anim/anibnd.h"
#include "drape/exporters/animation_glb.h"
#include "drape/havok/hkx.h"
#include "havok_corpus.h"

namespace {

using namespace drape;

struct Fixture {
    havok::Animation raw;
    const havok::Binding* binding = nullptr;
    havok::AnimationContainer container;
    anim::Clip clip;
    havok::Skeleton skeleton;
    bool ok = false;
};

const Fixture& fixture(const std::string& member = "a000_003000.hkx") {
    static std::map<std::string, Fixture> cache;
    if (auto it = cache.find(member); it != cache.end()) return it->second;
    Fixture& f = cache[member];
    f = [&] {
        Fixture x;
        auto file = test::load_hkx("sekiro/c1140.anibnd.dcx", member);
        auto skel = test::load_hkx("sekiro/c1140.anibnd.dcx", "skeleton.hkx");
        if (!file || !skel) return x;
        auto c = havok::read_animation_container(*file);
        auto s = havok::read_animation_container(*skel);
        if (!c || !s || c->animations.empty() || s->skeletons.empty()) return x;
        x.container = std::move(*c);
        x.raw = x.container.animations[0];
        x.binding = x.container.bindings.empty() ? nullptr : &x.container.bindings[0];
        auto clip = anim::decode_clip(x.raw, x.binding);
        if (!clip) return x;
        x.clip = std::move(*clip);
        x.clip.name = anim::clip_name_from_path(member);
        x.skeleton = s->skeletons[0];
        x.ok = true;
        return x;
    }();
    f.binding = f.container.bindings.empty() ? nullptr : &f.container.bindings[0];  // into f's own copy
    return f;
}

void set_rate(benchmark::State& state, double clip_seconds) {
    state.counters["clip_s/s"] = benchmark::Counter(clip_seconds, benchmark::Counter::kIsIterationInvariantRate);
}

// Parsing the spline data into curves (blocks, masks, quantised control points).
void anim_parse_spline(benchmark::State& state) {
    const Fixture& f = fixture();
    if (!f.ok) return state.SkipWithError("corpus clip missing");
    for (auto _ : state) benchmark::DoNotOptimize(anim::decode_clip(f.raw, f.binding));
    set_rate(state, f.clip.duration);
    state.counters["tracks"] = f.clip.num_tracks;
}
BENCHMARK(anim_parse_spline);

// Full decode: parse + every stored frame (30 Hz) of every track to local TRS.
void anim_decode_every_frame(benchmark::State& state, const char* member) {
    const Fixture& f = fixture(member);
    if (!f.ok) return state.SkipWithError("corpus clip missing");
    std::vector<anim::Transform> pose(size_t(f.clip.num_tracks));
    for (auto _ : state) {
        auto c = anim::decode_clip(f.raw, f.binding);
        for (int32_t k = 0; k < c->num_frames; ++k) {
            anim::sample_frame(*c, k, pose);
            benchmark::DoNotOptimize(pose.data());
        }
    }
    set_rate(state, f.clip.duration);
}
BENCHMARK_CAPTURE(anim_decode_every_frame, attack_a000_003000, "a000_003000.hkx");
BENCHMARK_CAPTURE(anim_decode_every_frame, idle_a000_000000, "a000_000000.hkx");

// One pose at an arbitrary time (what a player does every display frame).
void anim_sample_pose(benchmark::State& state) {
    const Fixture& f = fixture();
    if (!f.ok) return state.SkipWithError("corpus clip missing");
    std::vector<anim::Transform> pose(size_t(f.clip.num_tracks));
    float t = 0;
    for (auto _ : state) {
        anim::sample_time(f.clip, t, pose);
        benchmark::DoNotOptimize(pose.data());
        t += 0.0173f;
        if (t > f.clip.duration) t = 0;
    }
}
BENCHMARK(anim_sample_pose);

// Decoded clip to a standalone .glb in memory.
void anim_export_glb(benchmark::State& state) {
    const Fixture& f = fixture();
    if (!f.ok) return state.SkipWithError("corpus clip missing");
    std::vector<anim::Clip> clips{f.clip};
    for (auto _ : state) benchmark::DoNotOptimize(exporters::animation_glb(f.skeleton, clips));
    set_rate(state, f.clip.duration);
}
BENCHMARK(anim_export_glb);

}  // namespace
