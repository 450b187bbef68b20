// The hostile inputs of tests/fuzz/regressions: .drcloth files that once crashed a reader (the
// runtime's loader or step, the .drcloth reader behind drape check, drape simulate), each now
// refused with one clean error by every path an engine or a user takes; and binders whose
// members made a reader allocate what they claimed.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "drape/bnd/bnd4.h"
#include "drape/convert/cloth_check.h"
#include "drape/exporters/cloth_read.h"
#include "drape/io/file.h"
#include "drape/tae/tae.h"
#include "rt_instance.h"
#include "drcloth_fixtures.h"
#include "game_fixtures.h"
#include "run.h"
#include "runtime_drive.h"

using namespace drape;

namespace {

std::filesystem::path regressions_dir(const char* format) { return std::filesystem::path(DRAPE_SOURCE_DIR) / "tests/fuzz/regressions" / format; }

struct Input {
    std::string name;
    std::filesystem::path path;
    std::vector<uint8_t> bytes;
};

std::vector<Input> regressions(const char* format = "drcloth") {
    std::vector<Input> out;
    for (const auto& e : std::filesystem::directory_iterator(regressions_dir(format))) {
        if (!e.is_regular_file()) continue;
        auto bytes = read_file(e.path().string());
        REQUIRE_MESSAGE(bytes, bytes.error().to_string());
        out.push_back({e.path().filename().string(), e.path(), std::move(*bytes)});
    }
    std::sort(out.begin(), out.end(), [](const Input& a, const Input& b) { return a.name < b.name; });
    return out;
}

// The lines of `text` that report a problem of `label`: "label: error: ..." and the rules'
// "label: object member: message" (the report's header is "label (drape cloth, ...)").
std::vector<std::string> problem_lines(const std::string& text, const std::string& label) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (line.rfind(label + ": ", 0) == 0) out.push_back(line);
    return out;
}

}  // namespace

TEST_CASE("fuzz regressions: the hand-built files are what drape_fuzz_seeds --regressions writes") {
    std::map<std::string, std::vector<uint8_t>> written;  // path under tests/fuzz/regressions -> bytes
    for (auto& [name, bytes] : test::drcloth_unions_without_table()) written["drcloth/" + name] = bytes;
    written["drcloth/shadow_larger_than_its_buffer.drcloth"] = test::small_drcloth_with_larger_shadow(12);
    written["bnd4/member_claiming_8_gib.bnd"] = test::make_bnd4_member_claiming(uint64_t(8) << 30);
    for (const auto& file : written) {  // no structured bindings: clang 14 cannot capture them in doctest macros
        CAPTURE(file.first);
        auto committed = read_file((regressions_dir("") / file.first).string());
        REQUIRE_MESSAGE(committed, committed.error().to_string());
        CHECK_MESSAGE(*committed == file.second, "regenerate with: drape_fuzz_seeds --regressions tests/fuzz/regressions");
    }
}

TEST_CASE("fuzz regressions: the runtime's C API refuses every file with a message, load, 30 steps or not") {
    const auto inputs = regressions();
    REQUIRE(inputs.size() >= 6);
    for (const auto& in : inputs) {
        CAPTURE(in.name);
        const test::RuntimeRun run = test::run_cloth_file(in.bytes.data(), in.bytes.size(), 30);
        CHECK_MESSAGE(!run.error.empty(), "loaded and ran " << run.instances << " instance(s), " << run.steps << " step(s) without an error");
    }
}

TEST_CASE("fuzz regressions: drape check's readers report every file as one error") {
    const auto inputs = regressions();
    REQUIRE(inputs.size() >= 6);
    for (const auto& in : inputs) {
        CAPTURE(in.name);
        // The .drcloth reader alone: it may read a file the runtime refuses (an index or a count),
        // never crash on one.
        (void)cloth_read::drcloth_to_hcl(in.bytes);
        std::ostringstream out;
        CHECK_FALSE(cloth_check::check_drcloth(in.name, in.bytes, out, false));
        const auto lines = problem_lines(out.str(), in.name);
        INFO(out.str());
        REQUIRE(lines.size() == 1);
        CHECK(lines[0].rfind(in.name + ": error: runtime loader: ", 0) == 0);
        CHECK_FALSE(cloth_check::drcloth_summary(in.bytes));
    }
}

TEST_CASE("fuzz regressions: drape check prints one error line and exits 1, drape simulate exits 1, on every file") {
    const auto inputs = regressions();
    REQUIRE(inputs.size() >= 6);
    for (const auto& in : inputs) {
        CAPTURE(in.name);
        const std::string path = in.path.string();
        const auto check = test::run("'" + test::drape_exe() + "' check '" + path + "'");
        INFO(check.out);
        CHECK(check.exit_code == 1);
        const auto lines = problem_lines(check.out, path);
        REQUIRE(lines.size() == 1);
        CHECK(lines[0].rfind(path + ": error: ", 0) == 0);
        const auto simulate = test::run("'" + test::drape_exe() + "' simulate '" + path + "'");
        INFO(simulate.out);
        CHECK(simulate.exit_code == 1);
    }
}

TEST_CASE("fuzz regressions: a binder member claiming more than the decompression guard allows is refused before allocating") {
    const auto inputs = regressions("bnd4");
    REQUIRE(inputs.size() >= 2);
    for (const auto& in : inputs) {
        CAPTURE(in.name);
        auto binder = bnd::read_bnd4(in.bytes);
        REQUIRE_MESSAGE(binder, binder.error().to_string());
        size_t refused = 0;
        for (const auto& e : binder->entries) {
            auto bytes = bnd::entry_bytes(*binder, e);
            if (!bytes && bytes.error().to_string().find("zlib.uncompressed_size: declared uncompressed size") != std::string::npos) ++refused;
        }
        CHECK(refused >= 1);
        // drape inspect lists the binder and reports the member; it does not run out of memory.
        const auto r = test::run("'" + test::drape_exe() + "' inspect '" + in.path.string() + "'");
        INFO(r.out);
        CHECK((r.exit_code == 0 || r.exit_code == 1));
    }
}

TEST_CASE("fuzz regressions: a TAE entry whose whole id does not fit in 64 bits names no clip") {
    const std::vector<Input> inputs = regressions("tae");
    REQUIRE(!inputs.empty());
    size_t entries = 0;
    for (const Input& in : inputs) {
        INFO(in.name);
        auto t = tae::read_tae(Bytes(in.bytes.data(), in.bytes.size()));
        REQUIRE_MESSAGE(bool(t), (t ? std::string() : t.error().to_string()));
        for (const auto& e : t->entries) {
            entries += e.id > INT64_MAX - 234000000;  // past what category 234 can add to
            if (e.id > INT64_MAX - 234000000) CHECK(tae::whole_id(234, e.id) == -1);
        }
        for (const auto& c : tae::clip_events(*t, 234)) CHECK(!c.clip.empty());
    }
    CHECK(entries >= 1);
}

TEST_CASE("fuzz regressions: the files that broke the runtime's load while valid load, step 30 times and read back") {
    const std::vector<Input> inputs = regressions("drcloth_loads");
    REQUIRE(!inputs.empty());
    for (const Input& in : inputs) {
        CAPTURE(in.name);
        const test::RuntimeRun run = test::run_cloth_file(in.bytes.data(), in.bytes.size(), 30);
        CHECK_MESSAGE(run.error.empty(), run.error);
        CHECK(run.instances >= 1);
        CHECK(run.steps == 30 * run.instances);
        // A local stream shorter than the blocks need is dropped at load (empty: not written).
        drape_cloth_file* f = nullptr;
        drape_error err;
        REQUIRE(drape_cloth_file_load(in.bytes.data(), in.bytes.size(), &f, &err) == DRAPE_RESULT_OK);
        for (const auto& m : f->model.cloths)
            for (const auto& d : m.deforms) {
                size_t need = 0;
                for (const auto& b : d.blocks) need = std::max<size_t>(need, size_t(b.local) * 16 + 16);
                for (const auto* ls : {&d.local_n, &d.local_t, &d.local_b}) CHECK((ls->empty() || ls->x.size() >= need));
            }
        drape_cloth_file_destroy(f);
    }
}
