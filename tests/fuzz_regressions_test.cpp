// The hostile inputs of tests/fuzz/regressions: .drcloth files that once crashed a reader (the
// runtime's loader or step, the .drcloth reader behind drape check, drape simulate), each now
// refused with one clean error by every path an engine or a user takes.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "drape/exporters/cloth_check.h"
#include "drape/exporters/cloth_read.h"
#include "drape/io/file.h"
#include "drcloth_fixtures.h"
#include "run.h"
#include "runtime_drive.h"

using namespace drape;

namespace {

std::filesystem::path regressions_dir() { return std::filesystem::path(DRAPE_SOURCE_DIR) / "tests/fuzz/regressions"; }

struct Input {
    std::string name;
    std::filesystem::path path;
    std::vector<uint8_t> bytes;
};

std::vector<Input> regressions() {
    std::vector<Input> out;
    for (const auto& e : std::filesystem::directory_iterator(regressions_dir())) {
        if (!e.is_regular_file() || e.path().extension() != ".drcloth") continue;
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
    std::map<std::string, std::vector<uint8_t>> written;
    for (auto& [name, bytes] : test::drcloth_unions_without_table()) written[name] = bytes;
    written["shadow_larger_than_its_buffer.drcloth"] = test::small_drcloth_with_larger_shadow(12);
    for (const auto& file : written) {  // no structured bindings: clang 14 cannot capture them in doctest macros
        CAPTURE(file.first);
        auto committed = read_file((regressions_dir() / file.first).string());
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
