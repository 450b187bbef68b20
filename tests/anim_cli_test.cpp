// drape animation (the CLI): exit codes, output file, skeleton lookup, clip selection.
#include <doctest/doctest.h>

#include <vector>

#include "commands.h"
#include "corpus.h"
#include "drape/exporters/animation_glb.h"
#include "drape/io/file.h"

namespace {

int run(std::vector<std::string> args) {
    CLI::App app{"drape"};
    drape::cli::GlobalOptions global;
    global.quiet = true;
    int code = 0;
    drape::cli::register_animation(app, global, code);
    std::vector<const char*> argv{"drape"};
    for (const auto& a : args) argv.push_back(a.c_str());
    try {
        app.parse(int(argv.size()), argv.data());
    } catch (const CLI::ParseError&) {
        return drape::cli::k_exit_usage;
    }
    return code;
}

}  // namespace

TEST_CASE("anim cli: drape animation writes a .glb, needs a skeleton, selects clips") {
    const auto dir = drape::test::scratch_dir("anim_cli");
    const std::string out = (dir / "c2080.glb").string();
    CHECK(run({"animation", drape::test::corpus("ds3/c2080.anibnd.dcx").string(), "-o", out, "--clip", "a000_000700"}) == drape::cli::k_exit_ok);
    auto bytes = drape::read_file(out);
    REQUIRE(bytes);
    auto glb = drape::exporters::read_glb(*bytes);
    REQUIRE(glb);
    CHECK(glb->json.find("\"a000_000700\"") != std::string::npos);
    CHECK(glb->json.find("\"a000_000000\"") == std::string::npos);
    // A loose clip without a skeleton of its own: refused, then accepted with --skeleton.
    const std::string bb = drape::test::corpus("bb/a000_003000.hkx").string();
    CHECK(run({"animation", bb, "-o", (dir / "bb.glb").string()}) == drape::cli::k_exit_input);
    CHECK(run({"animation", bb, "--skeleton", drape::test::corpus("bb/skeleton.HKX").string(), "-o", (dir / "bb.glb").string(),
               "--no-root-motion", "--rate", "60"}) == drape::cli::k_exit_ok);
    CHECK(run({"animation", bb, "--clip", "nope", "--skeleton", drape::test::corpus("bb/skeleton.HKX").string(), "-o",
               (dir / "x.glb").string()}) == drape::cli::k_exit_input);
    CHECK(run({"animation", bb, "--mirror", "y", "-o", (dir / "x.glb").string()}) == drape::cli::k_exit_usage);
    // Not an animation file.
    CHECK(run({"animation", drape::test::corpus("ds3/EliteKnight.tpf").string(), "-o", (dir / "x.glb").string()}) == drape::cli::k_exit_input);
}
