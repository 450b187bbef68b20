// Runtime instances on a real cloth (Elden Ring HD_M_3005, exported in memory): no allocation in
// 1,000 steps, the allocator callbacks used for everything the instance holds, states by index
// and name, reset, teleport, the loader's refusal of corrupt files, every index error.
#include <doctest/doctest.h>

// This file replaces the global operator new/delete (over malloc/free) to count allocations;
// GCC's -Wmismatched-new-delete cannot see that the pair matches.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "corpus.h"
#include "drape/exporters/cloth_export.h"
#include "drape/havok/animation.h"
#include "drape/havok/cloth.h"
#include "drape/runtime.h"
#include "drape/schema/cloth_generated.h"
#include "drape/schema/verify.h"
#include "drcloth_corpus.h"
#include "drcloth_fixtures.h"
#include "havok_corpus.h"

using namespace drape;

namespace {

// The runtime reads schema 2.x: the exporter's output must pass the 2.x verifier (required).
inline bool exporter_writes_2_x(const std::vector<uint8_t>& b) {
    return drape::schema::verify_cloth_file(b.data(), b.size()).ok();
}

std::atomic<bool> g_counting{false};
std::atomic<size_t> g_news{0};

struct Counter {
    size_t allocs = 0, frees = 0;
};
void* count_alloc(void* user, size_t size, size_t align) {
    ++static_cast<Counter*>(user)->allocs;
    return std::aligned_alloc(align, (size + align - 1) / align * align);
}
void count_free(void* user, void* p) {
    ++static_cast<Counter*>(user)->frees;
    std::free(p);
}

struct Loaded {
    drape_cloth_file* file = nullptr;
    explicit Loaded(const std::vector<uint8_t>& b) {
        drape_error e;
        REQUIRE_MESSAGE(drape_cloth_file_load(b.data(), b.size(), &file, &e) == DRAPE_RESULT_OK, e.message);
    }
    ~Loaded() { drape_cloth_file_destroy(file); }
};

}  // namespace

namespace {
// Allocation failure on demand: the allocation this many allocations from now fails (a throwing
// new throws std::bad_alloc, a nothrow new returns null), once; -1 never.
std::atomic<long> g_allocations_before_failure{-1};

bool this_allocation_fails() {
    long n = g_allocations_before_failure.load();
    while (n >= 0 && !g_allocations_before_failure.compare_exchange_weak(n, n - 1)) {
    }
    return n == 0;
}
}  // namespace

// Counting every operator new of the process while g_counting is set (the step must not allocate
// through the C++ heap either).
void* operator new(size_t n) {
    if (g_counting) ++g_news;
    void* p = this_allocation_fails() ? nullptr : std::malloc(n ? n : 1);
    if (!p) throw std::bad_alloc();
    return p;
}
void* operator new[](size_t n) { return ::operator new(n); }
// Every unaligned form is replaced, so whatever `new` allocated, the matching `delete` frees
// (std::get_temporary_buffer uses the nothrow form: left to the library, ASan reports
// alloc-dealloc-mismatch when our delete frees its block).
void* operator new(size_t n, const std::nothrow_t&) noexcept {
    if (g_counting) ++g_news;
    return this_allocation_fails() ? nullptr : std::malloc(n ? n : 1);
}
void* operator new[](size_t n, const std::nothrow_t& t) noexcept { return ::operator new(n, t); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
// The aligned forms too (the loader allocates the solver's set-ups 64-byte aligned).
void* operator new(size_t n, std::align_val_t a) {
    if (g_counting) ++g_news;
    const size_t align = size_t(a);
    void* p = this_allocation_fails() ? nullptr : std::aligned_alloc(align, (n + align - 1) / align * align);
    if (!p) throw std::bad_alloc();
    return p;
}
void* operator new[](size_t n, std::align_val_t a) { return ::operator new(n, a); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { std::free(p); }

TEST_CASE("runtime no allocation: 1000 steps call neither the instance allocator nor operator new, with depenetration off and on" * doctest::test_suite("corpus")) {
    REQUIRE_MESSAGE(std::filesystem::exists(test::corpus_dir()), "no corpus at " << test::corpus_dir());
    const auto bytes = test::exported_drcloth("er/HD_M_3005_c.hkx");
    REQUIRE_MESSAGE(exporter_writes_2_x(bytes), "the exporter's output is not a schema 2.x file the runtime reads");
    Loaded l(bytes);
    std::vector<float> last[2];
    for (uint32_t flags : {0u, uint32_t(DRAPE_INSTANCE_DEPENETRATE)}) {
        INFO("flags " << flags);
        Counter counter;
        drape_instance_def def = drape_default_instance_def();
        def.allocator = {count_alloc, count_free, &counter};
        def.flags = flags;
        drape_instance* inst = nullptr;
        drape_error e;
        REQUIRE(drape_instance_create(l.file, &def, &inst, &e) == DRAPE_RESULT_OK);
        CHECK(counter.allocs == 1);  // one block
        const uint32_t nt = drape_cloth_transform_count(l.file, 0);
        std::vector<float> pose(size_t(nt) * 16 + 16, 0.0f);
        for (uint32_t i = 0; i < nt; ++i) pose[i * 16] = pose[i * 16 + 5] = pose[i * 16 + 10] = pose[i * 16 + 15] = 1;
        const float wind[3] = {0.6f, 0, 0.8f};
        REQUIRE(drape_instance_set_wind(inst, 0, wind, 4.0f) == DRAPE_RESULT_OK);
        // Two run-time capsules overlapping around the cloth's lowest particle (6 cm apart,
        // radius 5 cm), so particles wedge between them and the depenetration has work.
        const uint32_t np = drape_cloth_sim_particle_count(l.file, 0, 0);
        std::vector<float> xyz(size_t(np) * 3);
        drape_instance_set_transforms(inst, 0, nt, pose.data());
        REQUIRE(drape_instance_step(inst, 1.0f / 30) == DRAPE_RESULT_OK);  // the particles where the pose puts them
        REQUIRE(drape_instance_read_particles(inst, 0, xyz.data(), xyz.size()) == DRAPE_RESULT_OK);
        REQUIRE(np > 0);
        uint32_t lowest = 0;
        for (uint32_t i = 1; i < np; ++i)
            if (xyz[size_t(i) * 3 + 1] < xyz[size_t(lowest) * 3 + 1]) lowest = i;
        const float centre[3] = {xyz[size_t(lowest) * 3], xyz[size_t(lowest) * 3 + 1], xyz[size_t(lowest) * 3 + 2]};
        for (uint32_t c = 0; c < 2; ++c) {
            drape_collidable col{};
            col.kind = DRAPE_SHAPE_CAPSULE;
            col.a[0] = -0.5f, col.a[1] = c ? 0.03f : -0.03f, col.a[3] = 0.05f;
            col.b[0] = 0.5f, col.b[1] = col.a[1];
            col.transform[0] = col.transform[5] = col.transform[10] = col.transform[15] = 1;
            for (int k = 0; k < 3; ++k) col.transform[12 + k] = centre[k];
            col.enabled = 1;
            REQUIRE(drape_instance_set_collidable(inst, 0, c, &col) == DRAPE_RESULT_OK);
        }
        g_news = 0;
        bool ok = true;
        g_counting = true;
        for (int s = 0; s < 1000; ++s) {
            for (uint32_t i = 0; i < nt; ++i) pose[i * 16 + 12] = 0.001f * float(s % 60);
            drape_instance_set_transforms(inst, 0, nt, pose.data());
            ok = ok && drape_instance_step(inst, 1.0f / 30) == DRAPE_RESULT_OK;  // no doctest macro inside the counted loop
        }
        g_counting = false;
        CHECK(ok);
        CHECK(g_news == 0);
        CHECK(counter.allocs == 1);
        CHECK(counter.frees == 0);
        REQUIRE(drape_instance_read_particles(inst, 0, xyz.data(), xyz.size()) == DRAPE_RESULT_OK);
        last[flags ? 1 : 0] = xyz;
        drape_instance_destroy(inst);
        CHECK(counter.frees == 1);
    }
    CHECK(last[0] != last[1]);  // the depenetration acted (the runs are not both free of wedged particles)
}

TEST_CASE("runtime states: select by index and by name, unknown names refused" * doctest::test_suite("corpus")) {
    REQUIRE_MESSAGE(std::filesystem::exists(test::corpus_dir()), "no corpus at " << test::corpus_dir());
    const auto bytes = test::exported_drcloth("er/HD_M_3005_c.hkx");
    REQUIRE_MESSAGE(exporter_writes_2_x(bytes), "the exporter's output is not a schema 2.x file the runtime reads");
    Loaded l(bytes);
    drape_instance_def def = drape_default_instance_def();
    drape_instance* inst = nullptr;
    REQUIRE(drape_instance_create(l.file, &def, &inst, nullptr) == DRAPE_RESULT_OK);
    const uint32_t n = drape_cloth_state_count(l.file, 0);
    REQUIRE(n >= 1);
    const std::string last = drape_cloth_state_name(l.file, 0, n - 1);
    CHECK(drape_instance_select_state_by_name(inst, last.c_str()) == DRAPE_RESULT_OK);
    CHECK(drape_instance_state(inst) == n - 1);
    CHECK(drape_instance_select_state(inst, 0) == DRAPE_RESULT_OK);
    CHECK(drape_instance_select_state_by_name(inst, "no such state") == DRAPE_RESULT_NOT_FOUND);
    CHECK(std::string(drape_instance_error_message(inst)).find("no such state") != std::string::npos);
    CHECK(drape_instance_select_state(inst, n) == DRAPE_RESULT_INVALID_ARGUMENT);
    drape_instance_destroy(inst);
}

namespace {

// Every particle of sim 0 of cloth data `cloth` after a reset with every transform at its rest
// pose moved by `lift` metres up (flags as given).
std::vector<float> reset_particles(drape_cloth_file* file, uint32_t cloth, float lift, uint32_t flags = 0) {
    drape_instance_def def = drape_default_instance_def();
    def.cloth = cloth;
    def.flags = flags;
    drape_instance* inst = nullptr;
    REQUIRE(drape_instance_create(file, &def, &inst, nullptr) == DRAPE_RESULT_OK);
    const uint32_t nt = drape_cloth_transform_count(file, cloth);
    std::vector<float> pose(size_t(nt) * 16);
    for (uint32_t i = 0; i < nt; ++i) {
        REQUIRE(drape_cloth_transform_rest_pose(file, cloth, i, &pose[size_t(i) * 16]));
        pose[size_t(i) * 16 + 13] += lift;
    }
    REQUIRE(drape_instance_set_transforms(inst, 0, nt, pose.data()) == DRAPE_RESULT_OK);
    REQUIRE(drape_instance_reset(inst) == DRAPE_RESULT_OK);
    std::vector<float> xyz(size_t(drape_cloth_sim_particle_count(file, cloth, 0)) * 3);
    REQUIRE(drape_instance_read_particles(inst, 0, xyz.data(), xyz.size()) == DRAPE_RESULT_OK);
    drape_instance_destroy(inst);
    return xyz;
}

}  // namespace

TEST_CASE("runtime reset: a sim whose particles the _curAtoS_ state does not reach starts where _preAtoS_ put its previous positions (Elden Ring c2030's skirt)" * doctest::test_suite("corpus")) {
    // c2030's skirt: _curAtoS_#01#_Default gathers the skinned mesh into a buffer of the other sim
    // cloth (MeshSim_Fall), _preAtoS_ into MeshSim's previous positions. Its particles used to
    // keep their rest pose whatever the pose of the reset: 7.7 times a link's length at the first
    // step of a000_003001.
    const auto bytes = test::exported_drcloth("er/game/chr/c2030.chrbnd.dcx", "_c.hkx");
    Loaded l(bytes);
    uint32_t skirt = UINT32_MAX;
    for (uint32_t c = 0; c < drape_cloth_data_count(l.file); ++c)
        if (std::string(drape_cloth_data_name(l.file, c)).find("Skirt") != std::string::npos) skirt = c;
    REQUIRE(skirt != UINT32_MAX);
    const std::vector<float> rest = reset_particles(l.file, skirt, 0.0f), lifted = reset_particles(l.file, skirt, 1.0f);
    size_t off = 0;
    for (size_t i = 0; i < rest.size() / 3; ++i)
        off += std::fabs(lifted[i * 3] - rest[i * 3]) > 1e-4f || std::fabs(lifted[i * 3 + 1] - (rest[i * 3 + 1] + 1.0f)) > 1e-4f ||
               std::fabs(lifted[i * 3 + 2] - rest[i * 3 + 2]) > 1e-4f;
    CHECK(rest.size() / 3 == 951);
    CHECK(off == 0);  // every particle followed the pose, pinned or free
}

TEST_CASE("runtime DRAPE_INSTANCE_RECORD_REFERENCE: each particle's skinned place as the simulate operator read it, though the state copies the particles over it afterwards (Sekiro c7190's hair)" * doctest::test_suite("corpus")) {
    const auto bytes = test::exported_drcloth("sekiro/c7190.chrbnd.dcx", "_c.hkx");
    Loaded l(bytes);
    REQUIRE(std::string(drape_cloth_data_name(l.file, 0)) == "c7110_hair01");
    drape_instance_def def = drape_default_instance_def();
    def.flags = DRAPE_INSTANCE_RECORD_REFERENCE;
    drape_instance* inst = nullptr;
    REQUIRE(drape_instance_create(l.file, &def, &inst, nullptr) == DRAPE_RESULT_OK);
    const uint32_t nt = drape_cloth_transform_count(l.file, 0), np = drape_cloth_sim_particle_count(l.file, 0, 0);
    std::vector<float> pose(size_t(nt) * 16), ref(size_t(np) * 6), xyz(size_t(np) * 3), buffer(size_t(np) * 3);
    for (uint32_t i = 0; i < nt; ++i) REQUIRE(drape_cloth_transform_rest_pose(l.file, 0, i, &pose[size_t(i) * 16]));
    REQUIRE(drape_instance_set_transforms(inst, 0, nt, pose.data()) == DRAPE_RESULT_OK);
    REQUIRE(drape_instance_reset(inst) == DRAPE_RESULT_OK);
    REQUIRE(drape_instance_read_reference(inst, 0, ref.data(), ref.size()) == DRAPE_RESULT_OK);
    CHECK(std::isnan(ref[0]));  // no step yet
    // The rest pose moved 2 cm along x a step: the skinned mesh follows, the hair lags behind.
    for (int step = 1; step <= 10; ++step) {
        for (uint32_t i = 0; i < nt; ++i) pose[size_t(i) * 16 + 12] += 0.02f;
        REQUIRE(drape_instance_set_transforms(inst, 0, nt, pose.data()) == DRAPE_RESULT_OK);
        REQUIRE(drape_instance_step(inst, 1.0f / 30) == DRAPE_RESULT_OK);
    }
    REQUIRE(drape_instance_read_reference(inst, 0, ref.data(), ref.size()) == DRAPE_RESULT_OK);
    REQUIRE(drape_instance_read_particles(inst, 0, xyz.data(), xyz.size()) == DRAPE_RESULT_OK);
    REQUIRE(drape_instance_read_buffer(inst, 0, DRAPE_STREAM_POSITION, buffer.data(), buffer.size()) == DRAPE_RESULT_OK);
    double recorded_vs_particles = 0, buffer_vs_particles = 0;
    for (uint32_t i = 0; i < np; ++i)
        for (int k = 0; k < 3; ++k) {
            recorded_vs_particles = std::max(recorded_vs_particles, double(std::fabs(ref[i * 6 + k] - xyz[i * 3 + k])));
            buffer_vs_particles = std::max(buffer_vs_particles, double(std::fabs(buffer[i * 3 + k] - xyz[i * 3 + k])));
        }
    MESSAGE("hair01 after 10 steps: buffer 0 within " << buffer_vs_particles << " m of the particles, the recorded skinned place " << recorded_vs_particles << " m");
    CHECK(buffer_vs_particles == 0);       // the state copied the particles into the reference buffer
    CHECK(recorded_vs_particles > 0.01);   // the skinned place is elsewhere
    drape_instance_def plain = drape_default_instance_def();
    drape_instance* other = nullptr;
    REQUIRE(drape_instance_create(l.file, &plain, &other, nullptr) == DRAPE_RESULT_OK);
    CHECK(drape_instance_read_reference(other, 0, ref.data(), ref.size()) == DRAPE_RESULT_INVALID_ARGUMENT);  // not recorded
    CHECK(drape_instance_read_reference(inst, 0, ref.data(), 5) == DRAPE_RESULT_BUFFER_TOO_SMALL);
    drape_instance_destroy(other);
    drape_instance_destroy(inst);
}

TEST_CASE("runtime teleport moves every particle by the matrix and keeps the cloth's shape" * doctest::test_suite("corpus")) {
    REQUIRE_MESSAGE(std::filesystem::exists(test::corpus_dir()), "no corpus at " << test::corpus_dir());
    const auto bytes = test::exported_drcloth("er/HD_M_3005_c.hkx");
    REQUIRE_MESSAGE(exporter_writes_2_x(bytes), "the exporter's output is not a schema 2.x file the runtime reads");
    Loaded l(bytes);
    drape_instance_def def = drape_default_instance_def();
    drape_instance* inst = nullptr;
    REQUIRE(drape_instance_create(l.file, &def, &inst, nullptr) == DRAPE_RESULT_OK);
    REQUIRE(drape_instance_reset(inst) == DRAPE_RESULT_OK);
    const uint32_t np = drape_cloth_sim_particle_count(l.file, 0, 0);
    std::vector<float> before(np * 3), after(np * 3);
    REQUIRE(drape_instance_read_particles(inst, 0, before.data(), before.size()) == DRAPE_RESULT_OK);
    const float shift[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 100, -2, 3, 1};
    REQUIRE(drape_instance_teleport(inst, shift) == DRAPE_RESULT_OK);
    REQUIRE(drape_instance_read_particles(inst, 0, after.data(), after.size()) == DRAPE_RESULT_OK);
    for (uint32_t i = 0; i < np; ++i) {
        CHECK(after[i * 3] == before[i * 3] + 100);
        CHECK(after[i * 3 + 1] == before[i * 3 + 1] - 2);
    }
    CHECK(drape_instance_read_particles(inst, 0, after.data(), 2) == DRAPE_RESULT_BUFFER_TOO_SMALL);
    drape_instance_destroy(inst);
}

TEST_CASE("runtime loader: truncation at every length (every 97th) and flipped bytes are refused or loaded, never crash" * doctest::test_suite("corpus")) {
    REQUIRE_MESSAGE(std::filesystem::exists(test::corpus_dir()), "no corpus at " << test::corpus_dir());
    const auto bytes = test::exported_drcloth("er/HD_M_3005_c.hkx");
    REQUIRE_MESSAGE(exporter_writes_2_x(bytes), "the exporter's output is not a schema 2.x file the runtime reads");
    drape_error e;
    drape_cloth_file* f = nullptr;
    for (size_t n = 0; n < bytes.size(); n += 97) {
        CHECK(drape_cloth_file_load(bytes.data(), n, &f, &e) != DRAPE_RESULT_OK);
        CHECK(f == nullptr);
        CHECK(e.message[0] != 0);
    }
    CHECK(drape_cloth_file_load(bytes.data(), 4, &f, &e) == DRAPE_RESULT_NOT_CLOTH_FILE);
    std::vector<uint8_t> wrong = bytes;
    std::memcpy(wrong.data() + 4, "XXXX", 4);
    CHECK(drape_cloth_file_load(wrong.data(), wrong.size(), &f, &e) == DRAPE_RESULT_NOT_CLOTH_FILE);
    CHECK(std::string(e.message).find("DRCL") != std::string::npos);
}

TEST_CASE("runtime: an allocation failure anywhere in a load is DRAPE_RESULT_OUT_OF_MEMORY, not an exception out of the C API") {
    const auto bytes = test::small_drcloth();
    drape_cloth_file* file = nullptr;
    drape_error e;
    g_news = 0;
    g_counting = true;
    const drape_result whole = drape_cloth_file_load(bytes.data(), bytes.size(), &file, &e);
    g_counting = false;
    drape_cloth_file_destroy(file);
    REQUIRE_MESSAGE(whole == DRAPE_RESULT_OK, e.message);
    const long allocations = long(g_news);
    REQUIRE(allocations > 20);  // the model's vectors and strings, the solver's set-up
    for (long k = 0; k < allocations; ++k) {
        CAPTURE(k);
        file = nullptr;
        e = drape_error{};
        g_allocations_before_failure = k;
        const drape_result r = drape_cloth_file_load(bytes.data(), bytes.size(), &file, &e);
        g_allocations_before_failure = -1;
        CHECK(r == DRAPE_RESULT_OUT_OF_MEMORY);
        CHECK(file == nullptr);
        CHECK(std::string(e.message) == "drape_cloth_file_load: out of memory");
        drape_cloth_file_destroy(file);
    }
}

namespace {
void* throwing_alloc(void*, size_t, size_t) { throw std::bad_alloc(); }
void* throwing_other(void*, size_t, size_t) { throw std::runtime_error("the engine's allocator refused"); }
void plain_free(void*, void* p) { std::free(p); }
}  // namespace

TEST_CASE("runtime: an engine allocator that throws is DRAPE_RESULT_OUT_OF_MEMORY or DRAPE_RESULT_BAD_DATA from drape_instance_create") {
    const auto bytes = test::small_drcloth();
    Loaded l(bytes);
    drape_instance_def def = drape_default_instance_def();
    def.allocator = {throwing_alloc, plain_free, nullptr};
    drape_instance* inst = nullptr;
    drape_error e;
    CHECK(drape_instance_create(l.file, &def, &inst, &e) == DRAPE_RESULT_OUT_OF_MEMORY);
    CHECK(inst == nullptr);
    CHECK(std::string(e.message) == "drape_instance_create: out of memory");
    def.allocator = {throwing_other, plain_free, nullptr};
    CHECK(drape_instance_create(l.file, &def, &inst, &e) == DRAPE_RESULT_BAD_DATA);
    CHECK(std::string(e.message) == "drape_instance_create: the engine's allocator refused");
}

TEST_CASE("drape_runtime_version is MAJOR.MINOR.PATCH with the cloth format's version the schema defines") {
    const cloth_fb::FormatVersionT format;  // the defaults of schema/cloth.fbs, as flatc generated them
    const std::string expected = std::to_string(format.major) + "." + std::to_string(format.minor) + ".0";
    const char* version = drape_runtime_version();
    REQUIRE(version != nullptr);
    CHECK(std::string(version) == expected);
    CHECK(format.major == 2);  // the shared library's SONAME (libdrape_runtime.so.2) carries it
}

namespace {
// A host's task system for drape_instances_step: splits [0, count) over `workers` threads, the
// first range on the calling thread, and joins the others in finish.
struct ThreadTasks {
    uint32_t workers = 2;
    std::vector<std::thread> threads;
    uint32_t enqueued = 0;
};
void* thread_enqueue(drape_task_fn* task, uint32_t count, uint32_t min_range, void* context, void* user) {
    auto& t = *static_cast<ThreadTasks*>(user);
    ++t.enqueued;
    const uint32_t ranges = std::max(1u, std::min(t.workers, count / std::max(1u, min_range)));
    for (uint32_t w = 1; w < ranges; ++w)
        t.threads.emplace_back([=] { task(count * w / ranges, count * (w + 1) / ranges, w, context); });
    task(0, count / ranges, 0, context);
    return &t;
}
void thread_finish(void* handle, void*) {
    auto& t = *static_cast<ThreadTasks*>(handle);
    for (auto& th : t.threads) th.join();
    t.threads.clear();
}
void* run_nothing(drape_task_fn*, uint32_t, uint32_t, void*, void*) { return nullptr; }
}  // namespace

TEST_CASE("runtime: eight instances stepped on the host's threads through drape_instances_step give the bits of stepping each alone" * doctest::test_suite("corpus")) {
    REQUIRE_MESSAGE(std::filesystem::exists(test::corpus_dir()), "no corpus at " << test::corpus_dir());
    const auto bytes = test::exported_drcloth("er/game/chr/c4361.chrbnd.dcx", "_c.hkx");
    Loaded l(bytes);
    const uint32_t clothes = drape_cloth_data_count(l.file);
    REQUIRE(clothes >= 2);
    constexpr uint32_t k_instances = 8;
    std::vector<drape_instance*> alone(k_instances), together(k_instances);
    for (auto* set : {&alone, &together})
        for (uint32_t i = 0; i < k_instances; ++i) {
            drape_instance_def def = drape_default_instance_def();
            def.cloth = i % clothes;
            drape_error e;
            REQUIRE(drape_instance_create(l.file, &def, &(*set)[i], &e) == DRAPE_RESULT_OK);
        }
    // Each instance its own pose: the rest pose raised by a few centimetres per instance and step.
    auto pose = [&](drape_instance* inst, uint32_t i, uint32_t step) {
        const uint32_t c = i % clothes, nt = drape_cloth_transform_count(l.file, c);
        std::vector<float> m(size_t(nt) * 16);
        for (uint32_t t = 0; t < nt; ++t) {
            float* o = &m[size_t(t) * 16];
            if (!drape_cloth_transform_rest_pose(l.file, c, t, o)) {
                std::fill(o, o + 16, 0.0f);
                o[0] = o[5] = o[10] = o[15] = 1;
            }
            o[13] += 0.01f * float(i) * std::sin(0.3f * float(step));
        }
        REQUIRE(drape_instance_set_transforms(inst, 0, nt, m.data()) == DRAPE_RESULT_OK);
    };
    for (uint32_t i = 0; i < k_instances; ++i) {
        pose(alone[i], i, 0), pose(together[i], i, 0);
        REQUIRE(drape_instance_reset(alone[i]) == DRAPE_RESULT_OK);
        REQUIRE(drape_instance_reset(together[i]) == DRAPE_RESULT_OK);
    }
    ThreadTasks host;
    const drape_task_system tasks{thread_enqueue, thread_finish, &host, host.workers};
    for (uint32_t step = 1; step <= 30; ++step) {
        for (uint32_t i = 0; i < k_instances; ++i) {
            pose(alone[i], i, step), pose(together[i], i, step);
            REQUIRE(drape_instance_step(alone[i], 1.0f / 30) == DRAPE_RESULT_OK);
        }
        REQUIRE(drape_instances_step(together.data(), k_instances, 1.0f / 30, &tasks) == DRAPE_RESULT_OK);
    }
    CHECK(host.enqueued == 30);
    for (uint32_t i = 0; i < k_instances; ++i) {
        const uint32_t c = i % clothes;
        for (uint32_t s = 0; s < drape_cloth_sim_count(l.file, c); ++s) {
            const size_t n = size_t(drape_cloth_sim_particle_count(l.file, c, s)) * 3;
            std::vector<float> a(n), b(n);
            REQUIRE(drape_instance_read_particles(alone[i], s, a.data(), n) == DRAPE_RESULT_OK);
            REQUIRE(drape_instance_read_particles(together[i], s, b.data(), n) == DRAPE_RESULT_OK);
            CHECK(std::memcmp(a.data(), b.data(), n * sizeof(float)) == 0);
        }
    }
    // Without a task system, one after another; errors.
    CHECK(drape_instances_step(together.data(), k_instances, 1.0f / 30, nullptr) == DRAPE_RESULT_OK);
    std::vector<drape_instance*> twice{together[0], together[1], together[0]};
    CHECK(drape_instances_step(twice.data(), 3, 1.0f / 30, &tasks) == DRAPE_RESULT_INVALID_ARGUMENT);
    CHECK(std::string(drape_instance_error_message(together[0])).find("instance 2 is also instance 0") != std::string::npos);
    std::vector<drape_instance*> later{together[1], together[0], together[2], together[0], together[1]};
    CHECK(drape_instances_step(later.data(), 5, 1.0f / 30, nullptr) == DRAPE_RESULT_INVALID_ARGUMENT);
    CHECK(std::string(drape_instance_error_message(together[0])).find("instance 3 is also instance 1") != std::string::npos);
    // The refused lists leave nothing behind: the same instances, each once, step.
    CHECK(drape_instances_step(together.data(), k_instances, 1.0f / 30, &tasks) == DRAPE_RESULT_OK);
    const drape_task_system lazy{run_nothing, nullptr, nullptr, 2};
    CHECK(drape_instances_step(together.data(), k_instances, 1.0f / 30, &lazy) == DRAPE_RESULT_INVALID_ARGUMENT);
    CHECK(std::string(drape_instance_error_message(together[0])).find("did not run instance 0") != std::string::npos);
    CHECK(drape_instances_step(together.data(), 2, -1.0f, &tasks) == DRAPE_RESULT_INVALID_ARGUMENT);  // a bad dt: each instance's own refusal
    CHECK(drape_instances_step(nullptr, 2, 1.0f / 30, &tasks) == DRAPE_RESULT_INVALID_ARGUMENT);
    CHECK(drape_instances_step(nullptr, 0, 1.0f / 30, &tasks) == DRAPE_RESULT_OK);
    for (auto* set : {&alone, &together})
        for (auto* inst : *set) drape_instance_destroy(inst);
}
