// What a character's cloth costs per frame: ns per step of whole cloth datas of corpus files and of
// each operator kind alone, through the runtime's public C API. The corpus
// cloth is exported in memory by drape's exporter (as `drape cloth` writes it), loaded with
// drape_cloth_file_load, stepped at 30 Hz under a moving root (a triangle wave of the translation,
// as tests/determinism drives it).
//
// Per operator kind: the runtime has no public switch to run one kind, so this benchmark (and only
// it) copies the loaded file's model, keeps in every state only the operators of that kind, and
// points the instance at the copy (rt_instance.h). The operators of a kind then read buffers the
// others no longer refresh; their cost does not depend on the values. Kinds a file lacks are
// taken from the next file of the list that has them (the label names the file and cloth data).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "corpus.h"
#include "drape/exporters/cloth_export.h"
#include "drape/havok/animation.h"
#include "drape/havok/cloth.h"
#include "drape/runtime.h"
#include "havok_corpus.h"
#include "rt_instance.h"
#include "drape/solver_bench.h"
#include "grid_workload.h"

namespace {

struct CorpusCloth {
    const char* file;
    const char* member;
};
// Sekiro c7190 first: its hair01 (2,670 particles) is the largest sim cloth of the corpus.
const CorpusCloth k_files[] = {
    {"sekiro/c7190.chrbnd.dcx", "_c.hkx"},     {"er/game/chr/c5000.chrbnd.dcx", "_c.hkx"},
    {"er/game/chr/c4361.chrbnd.dcx", "_c.hkx"}, {"er/game/chr/c3061.chrbnd.dcx", "_c.hkx"},
    {"er/game/chr/c2030.chrbnd.dcx", "_c.hkx"},
    {"bb/c2020_c.hkx", ""},                     {"ds3/c1400.chrbnd.dcx", "_c.hkx"},
    {"ds3/bd_m_11010.partsbnd.dcx", "_c.hkx"},  {"er/HD_M_3005_c.hkx", ""},
};

struct LoadedFile {
    std::vector<uint8_t> bytes;
    drape_cloth_file* file = nullptr;
    ~LoadedFile() { drape_cloth_file_destroy(file); }
};

// The exported and loaded file (cached; nullptr when the corpus or the exporter cannot give it).
LoadedFile* loaded(size_t index) {
    static std::map<size_t, std::unique_ptr<LoadedFile>> cache;
    auto it = cache.find(index);
    if (it != cache.end()) return it->second.get();
    std::unique_ptr<LoadedFile> lf;
    if (std::filesystem::exists(drape::test::corpus_dir())) {
        auto f = drape::test::load_hkx(k_files[index].file, k_files[index].member);
        auto cloth = f ? std::optional(drape::hcl::read_cloth(*f)) : std::nullopt;
        if (cloth && *cloth) {
            drape::cloth_export::Options o;
            o.sdk = f->sdk;
            if (auto anim = drape::havok::read_animation_container(*f)) o.skeletons = anim->skeletons;
            if (auto bytes = drape::cloth_export::export_cloth(**cloth, o, nullptr)) {
                lf = std::make_unique<LoadedFile>();
                lf->bytes = std::move(*bytes);
                drape_error err;
                if (drape_cloth_file_load(lf->bytes.data(), lf->bytes.size(), &lf->file, &err) != DRAPE_RESULT_OK) lf.reset();
            }
        }
    }
    LoadedFile* r = lf.get();
    cache[index] = std::move(lf);
    return r;
}

using drape::rt::OpKind;
// The operator kinds timed apart. copy_convert: copies, gathers and the input and output
// conversions (the rest of a program).
enum class Kind { all, skin, move_particles, simulate, vertex_frames, mesh_mesh_deform, bone_deform, copy_convert };
constexpr const char* k_kind_names[] = {"all", "skin", "move_particles", "simulate", "vertex_frames", "mesh_mesh_deform", "bone_deform", "copy_convert"};
bool in_kind(OpKind k, Kind kind) {
    switch (kind) {
        case Kind::all: return true;
        case Kind::skin: return k == OpKind::object_space_skin || k == OpKind::bone_space_skin;
        case Kind::move_particles: return k == OpKind::move_particles;
        case Kind::simulate: return k == OpKind::simulate;
        case Kind::vertex_frames: return k == OpKind::update_all_vertex_frames || k == OpKind::update_some_vertex_frames;
        case Kind::mesh_mesh_deform:
            return k == OpKind::object_space_mesh_mesh_deform || k == OpKind::bone_space_mesh_mesh_deform || k == OpKind::mesh_mesh_deform_2014;
        case Kind::bone_deform: return k == OpKind::simple_mesh_bone_deform || k == OpKind::mesh_bone_deform;
        case Kind::copy_convert:
            return k == OpKind::copy_vertices || k == OpKind::gather_all || k == OpKind::gather_some || k == OpKind::input_convert ||
                   k == OpKind::output_convert;
    }
    return false;
}
// Cloth data `c`'s model with only the operators of `kind` in each state. The conversions' plans
// (what of a conversion the state reads, by operator position) are dropped with the other
// operators: a conversion alone copies every stream and runs its whole stand-in skin.
drape::rt::ClothModel only_kind(const drape_cloth_file* f, uint32_t c, Kind kind) {
    drape::rt::ClothModel only = f->model.cloths[c];
    for (auto& st : only.states) {
        std::vector<uint32_t> keep;
        for (uint32_t oi : st.operators)
            if (in_kind(only.operators[oi].kind, kind)) keep.push_back(oi);
        st.operators = keep;
        st.stand_in.clear();
        st.convert_streams.clear();
    }
    return only;
}
// Operators of `kind` in the cloth data's state 0.
size_t ops_of(const drape_cloth_file* f, uint32_t cloth, Kind kind) {
    const drape::rt::ClothModel& m = f->model.cloths[cloth];
    if (m.states.empty()) return 0;
    size_t n = 0;
    for (uint32_t oi : m.states[0].operators) n += in_kind(m.operators[oi].kind, kind);
    return n;
}
uint32_t particles_of(const drape_cloth_file* f, uint32_t cloth) {
    uint32_t n = 0;
    for (uint32_t s = 0; s < drape_cloth_sim_count(f, cloth); ++s) n += drape_cloth_sim_particle_count(f, cloth, s);
    return n;
}

// The identity pose of cloth data c: its transforms and one spare matrix.
std::vector<float> identity_pose(const drape_cloth_file* f, uint32_t c) {
    const uint32_t nt = drape_cloth_transform_count(f, c);
    std::vector<float> pose(size_t(nt) * 16 + 16, 0.0f);
    for (uint32_t i = 0; i < nt; ++i) pose[i * 16] = pose[i * 16 + 5] = pose[i * 16 + 10] = pose[i * 16 + 15] = 1;
    return pose;
}

// The moving root of step k (a triangle wave of the translation, as tests/determinism drives it),
// set on `inst`.
void move_root(drape_instance* inst, std::vector<float>& pose, uint32_t k) {
    const float phase = float(k % 40) / 40.0f, tri = phase < 0.5f ? phase : 1.0f - phase;
    const size_t nt = pose.size() / 16 - 1;
    for (size_t i = 0; i < nt; ++i) pose[i * 16 + 12] = 0.3f * tri, pose[i * 16 + 14] = 0.1f * tri;
    if (nt) drape_instance_set_transforms(inst, 0, uint32_t(nt), pose.data());
}

// `copies` characters of one file: an instance of every cloth data of each, at the identity pose,
// reset.
struct Characters {
    std::vector<drape_instance*> instances;
    std::vector<std::vector<float>> poses;
    std::string error;  // why an instance could not be made (empty: every one was)
    std::vector<std::unique_ptr<drape::rt::ClothModel>> models;  // with Kind other than all
    const drape_cloth_file* file = nullptr;
    // With `kind` other than all each instance runs only the operators of that kind (rt_instance.h).
    Characters(const drape_cloth_file* f, int copies, Kind kind = Kind::all) : file(f) {
        for (int character = 0; character < copies; ++character)
            for (uint32_t c = 0; c < drape_cloth_data_count(f); ++c) {
                drape_instance_def def = drape_default_instance_def();
                def.cloth = c;
                drape_instance* inst = nullptr;
                drape_error err;
                if (drape_instance_create(f, &def, &inst, &err) != DRAPE_RESULT_OK) {
                    error = err.message;
                    return;
                }
                if (kind != Kind::all) {
                    models.push_back(std::make_unique<drape::rt::ClothModel>(only_kind(f, c, kind)));
                    inst->cloth = models.back().get();
                }
                std::vector<float> pose = identity_pose(f, c);
                move_root(inst, pose, 0);
                drape_instance_reset(inst);
                instances.push_back(inst);
                poses.push_back(std::move(pose));
            }
    }
    ~Characters() {
        for (auto* inst : instances) {
            inst->cloth = &file->model.cloths[inst->cloth_index];
            drape_instance_destroy(inst);
        }
    }
    // Every instance's moving root at step k.
    void pose(uint32_t k) {
        for (size_t n = 0; n < instances.size(); ++n) move_root(instances[n], poses[n], k);
    }
};

// Steps one cloth data with only the operators of `kind` (all: every operator).
void run_cloth(benchmark::State& state, const drape_cloth_file* f, uint32_t cloth, Kind kind, const std::string& label) {
    drape_instance_def def = drape_default_instance_def();
    def.cloth = cloth;
    drape_instance* inst = nullptr;
    drape_error err;
    if (drape_instance_create(f, &def, &inst, &err) != DRAPE_RESULT_OK) {
        state.SkipWithError(err.message);
        return;
    }
    drape::rt::ClothModel only = only_kind(f, cloth, kind);
    if (kind != Kind::all) inst->cloth = &only;
    std::vector<float> pose = identity_pose(f, cloth);
    move_root(inst, pose, 0);
    drape_instance_reset(inst);
    uint32_t k = 0;
    for (auto _ : state) {
        move_root(inst, pose, k);
        drape_instance_step(inst, 1.0f / 30);
        ++k;
    }
    state.SetLabel(label);
    state.counters["ns_per_step"] = benchmark::Counter(double(state.iterations()) * 1e-9,
                                                       benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["operators"] = double(ops_of(f, cloth, kind));
    state.counters["particles"] = particles_of(f, cloth);
    inst->cloth = &f->model.cloths[cloth];
    drape_instance_destroy(inst);
}

// The cloth data with the most particles among the corpus files, every operator.
void cloth_corpus_largest(benchmark::State& state) {
    const drape_cloth_file* best = nullptr;
    uint32_t best_cloth = 0, best_n = 0;
    std::string label;
    for (size_t i = 0; i < std::size(k_files); ++i) {
        const LoadedFile* lf = loaded(i);
        if (!lf) continue;
        for (uint32_t c = 0; c < drape_cloth_data_count(lf->file); ++c)
            if (particles_of(lf->file, c) > best_n) {
                best = lf->file;
                best_cloth = c;
                best_n = particles_of(lf->file, c);
                label = std::string(k_files[i].file) + " " + drape_cloth_data_name(lf->file, c);
            }
    }
    if (!best) {
        state.SkipWithError("no corpus cloth (corpus missing or the exporter failed)");
        return;
    }
    run_cloth(state, best, best_cloth, Kind::all, label);
}

// One operator kind alone, in the first file (list order) whose cloth data has it (the cloth data
// with most operators of the kind in that file).
void cloth_operator_kind(benchmark::State& state) {
    const Kind kind = Kind(state.range(0));
    for (size_t i = 0; i < std::size(k_files); ++i) {
        const LoadedFile* lf = loaded(i);
        if (!lf) continue;
        uint32_t best = 0;
        size_t most = 0;
        for (uint32_t c = 0; c < drape_cloth_data_count(lf->file); ++c)
            if (ops_of(lf->file, c, kind) > most) {
                most = ops_of(lf->file, c, kind);
                best = c;
            }
        if (most == 0) continue;
        run_cloth(state, lf->file, best, kind, std::string(k_files[i].file) + " " + drape_cloth_data_name(lf->file, best));
        return;
    }
    state.SkipWithError("no corpus cloth data has this operator kind");
}

// A whole character: every cloth data of corpus file range(0), its default state, stepped at 30 Hz
// under the moving root. Besides the time per step it reports, measured in turns with it on this
// thread's CPU clock, the grid-32 simulate step (bench/cloth_bench.cpp's workload) and the
// character's cost in grid-32 steps.
void cloth_character(benchmark::State& state) {
    const size_t index = size_t(state.range(0));
    const LoadedFile* lf = loaded(index);
    if (!lf) {
        state.SkipWithError("corpus file missing or the exporter failed");
        return;
    }
    const drape_cloth_file* f = lf->file;
    Characters one(f, 1);
    if (!one.error.empty()) {
        state.SkipWithError(one.error.c_str());
        return;
    }
    uint32_t particles = 0;
    for (uint32_t c = 0; c < drape_cloth_data_count(f); ++c) particles += particles_of(f, c);
    uint32_t k = 0;
    auto one_step = [&] {
        one.pose(k++);
        for (auto* inst : one.instances) drape_instance_step(inst, 1.0f / 30);
    };
    for (auto _ : state) one_step();
    // The ratio: the character and the grid-32 step timed in turns, 15 rounds of about 2 ms each
    // on the same thread clock, so both see the same state of the machine; the median of the
    // rounds' ratios (a virtual machine's speed moves within seconds, and the median of the
    // rounds leaves out a round the host interrupted).
    drape::solver_bench::GridRun grid({.n = 32});
    auto time_character = [&](uint32_t steps) {
        const double t0 = drape::solver_bench::thread_seconds();
        for (uint32_t i = 0; i < steps; ++i) one_step();
        return (drape::solver_bench::thread_seconds() - t0) * 1e9 / steps;
    };
    const double estimate = time_character(5);
    const uint32_t character_steps = uint32_t(std::clamp(2e6 / std::max(estimate, 1.0), 4.0, 2000.0));
    constexpr int k_rounds = 15;
    std::vector<double> character, grid_step, ratio;
    for (int r = 0; r < k_rounds; ++r) {
        character.push_back(time_character(character_steps));
        grid_step.push_back(grid.time(200));
        ratio.push_back(character.back() / grid_step.back());
    }
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    const double character_ns = median(character);
    state.SetLabel(k_files[index].file);
    state.counters["us_per_step"] = character_ns * 1e-3;
    state.counters["grid32_us_per_step"] = median(grid_step) * 1e-3;
    state.counters["grid32_steps"] = median(ratio);
    state.counters["particles"] = particles;
    state.counters["ns_per_particle"] = particles ? character_ns / particles : 0;
}

// Where a character's time goes: every cloth data of corpus file range(0), its default state,
// with only the operators of kind range(1) (copy_convert: copies, gathers, conversions), stepped
// at 30 Hz under the moving root. The kinds of one file add up to about its cloth_character time
// (each run alone misses what the others would leave in the cache).
void cloth_character_kind(benchmark::State& state) {
    const size_t index = size_t(state.range(0));
    const Kind kind = Kind(state.range(1));
    const LoadedFile* lf = loaded(index);
    if (!lf) {
        state.SkipWithError("corpus file missing or the exporter failed");
        return;
    }
    Characters one(lf->file, 1, kind);
    if (!one.error.empty()) {
        state.SkipWithError(one.error.c_str());
        return;
    }
    size_t operators = 0;
    for (uint32_t c = 0; c < drape_cloth_data_count(lf->file); ++c) operators += ops_of(lf->file, c, kind);
    uint32_t k = 0;
    for (auto _ : state) {
        one.pose(k++);
        for (auto* inst : one.instances) drape_instance_step(inst, 1.0f / 30);
    }
    state.SetLabel(std::string(k_files[index].file) + " " + k_kind_names[size_t(kind)]);
    state.counters["us_per_step"] = benchmark::Counter(double(state.iterations()) * 1e-6, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["operators"] = double(operators);
}

// A host task system for drape_instances_step: [0, count) split over `workers` threads spawned
// per call (the first range on the calling thread), joined in finish.
struct SpawnTasks {
    uint32_t workers = 1;
    std::vector<std::thread> threads;
};
void* spawn_enqueue(drape_task_fn* task, uint32_t count, uint32_t, void* context, void* user) {
    auto& t = *static_cast<SpawnTasks*>(user);
    const uint32_t ranges = std::max(1u, std::min(t.workers, count));
    for (uint32_t w = 1; w < ranges; ++w) t.threads.emplace_back([=] { task(count * w / ranges, count * (w + 1) / ranges, w, context); });
    task(0, count / ranges, 0, context);
    return &t;
}
void spawn_finish(void* handle, void*) {
    auto& t = *static_cast<SpawnTasks*>(handle);
    for (auto& th : t.threads) th.join();
    t.threads.clear();
}

// A host task system with persistent workers, as an engine's job system runs within a frame:
// the workers spin on a generation counter between tasks (a sleeping worker woken through the
// kernel took 0.1 to 0.3 ms to start on this virtual machine, a third of the step); enqueue
// publishes the task, runs range 0 itself, and finish spins until every worker is done.
class PoolTasks {
public:
    explicit PoolTasks(uint32_t workers) : m_workers(workers) {
        for (uint32_t w = 1; w < workers; ++w) m_threads.emplace_back([this, w] { loop(w); });
    }
    ~PoolTasks() {
        m_stop.store(true, std::memory_order_release);
        for (auto& t : m_threads) t.join();
    }
    static void* enqueue(drape_task_fn* task, uint32_t count, uint32_t, void* context, void* user) {
        auto& p = *static_cast<PoolTasks*>(user);
        p.m_task = task, p.m_count = count, p.m_context = context;
        p.m_pending.store(p.m_workers - 1, std::memory_order_relaxed);
        p.m_generation.fetch_add(1, std::memory_order_release);  // publishes the task
        task(0, count / p.m_workers, 0, context);
        return &p;
    }
    static void finish(void* handle, void*) {
        auto& p = *static_cast<PoolTasks*>(handle);
        while (p.m_pending.load(std::memory_order_acquire) != 0) pause();
    }

private:
    static void pause() {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    void loop(uint32_t w) {
        uint64_t seen = 0;
        for (;;) {
            uint64_t g;
            while ((g = m_generation.load(std::memory_order_acquire)) == seen) {
                if (m_stop.load(std::memory_order_acquire)) return;
                pause();
            }
            seen = g;
            m_task(m_count * w / m_workers, m_count * (w + 1) / m_workers, w, m_context);
            m_pending.fetch_sub(1, std::memory_order_acq_rel);
        }
    }
    uint32_t m_workers;
    std::vector<std::thread> m_threads;
    drape_task_fn* m_task = nullptr;
    uint32_t m_count = 0;
    void* m_context = nullptr;
    std::atomic<uint64_t> m_generation{0};
    std::atomic<uint32_t> m_pending{0};
    std::atomic<bool> m_stop{false};
};

// Eight Elden Ring c4361 characters (every cloth data of each), stepped together through
// drape_instances_step on range(0) threads of the host (1: no task system), spawned per call
// (range(1) 0) or a persistent pool (1).
void cloth_many_characters(benchmark::State& state) {
    const LoadedFile* lf = loaded(2);
    if (!lf) {
        state.SkipWithError("no c4361 cloth (corpus missing or the exporter failed)");
        return;
    }
    Characters eight(lf->file, 8);
    if (!eight.error.empty()) {
        state.SkipWithError(eight.error.c_str());
        return;
    }
    const uint32_t workers = uint32_t(state.range(0));
    const bool pool = state.range(1) != 0;
    SpawnTasks spawn;
    spawn.workers = workers;
    PoolTasks persistent(pool ? workers : 1);
    const drape_task_system tasks = pool ? drape_task_system{PoolTasks::enqueue, PoolTasks::finish, &persistent, workers}
                                         : drape_task_system{spawn_enqueue, spawn_finish, &spawn, workers};
    uint32_t k = 0;
    for (auto _ : state) {
        eight.pose(k++);
        drape_instances_step(eight.instances.data(), uint32_t(eight.instances.size()), 1.0f / 30, workers > 1 ? &tasks : nullptr);
    }
    state.SetLabel("8 x er/game/chr/c4361 (" + std::to_string(eight.instances.size()) + " instances)");
    state.counters["us_per_step"] = benchmark::Counter(double(state.iterations()) * 1e-6, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// What drape_instances_step adds to stepping each instance alone, with many small instances:
// `count` Elden Ring HD_M_3005 cloths (15 particles each) on this thread, together (one call,
// no task system) or one drape_instance_step each. The two should cost the same per instance.
void cloth_many_small(benchmark::State& state) {
    const LoadedFile* lf = loaded(8);
    if (!lf) {
        state.SkipWithError("no HD_M_3005 cloth (corpus missing or the exporter failed)");
        return;
    }
    Characters many(lf->file, int(state.range(0)));
    if (!many.error.empty()) {
        state.SkipWithError(many.error.c_str());
        return;
    }
    const bool together = state.range(1) != 0;
    const uint32_t n = uint32_t(many.instances.size());
    for (auto _ : state) {
        if (together) drape_instances_step(many.instances.data(), n, 1.0f / 30, nullptr);
        else
            for (drape_instance* inst : many.instances) drape_instance_step(inst, 1.0f / 30);
    }
    state.SetLabel(std::to_string(n) + " x er/HD_M_3005_c" + (together ? ", drape_instances_step" : ", one by one"));
    state.counters["ns_per_instance"] = benchmark::Counter(double(state.iterations()) * n * 1e-9,
                                                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

}  // namespace

BENCHMARK(cloth_many_characters)->ArgNames({"threads", "pool"})->Args({1, 0})->Args({2, 0})->Args({2, 1})->UseRealTime()->MinTime(0.5);
BENCHMARK(cloth_many_small)->ArgNames({"instances", "together"})->ArgsProduct({{100, 4000}, {0, 1}})->MinTime(0.2);
BENCHMARK(cloth_character)->ArgName("file")->DenseRange(0, int(std::size(k_files)) - 1)->MinTime(0.2);
BENCHMARK(cloth_character_kind)
    ->ArgNames({"file", "kind_skin1_move2_simulate3_frames4_meshmesh5_bone6_copy7"})
    ->ArgsProduct({benchmark::CreateDenseRange(0, int(std::size(k_files)) - 1, 1), benchmark::CreateDenseRange(1, 7, 1)})
    ->MinTime(0.1);
BENCHMARK(cloth_corpus_largest)->MinTime(0.2);
BENCHMARK(cloth_operator_kind)
    ->ArgName("kind_skin1_move2_simulate3_frames4_meshmesh5")
    ->DenseRange(1, 5)
    ->MinTime(0.2);
