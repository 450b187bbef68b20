// The depenetration option through the command line: `drape simulate --depenetrate` (reported in
// its JSON) and `drape bake --depenetrate`.
#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "corpus.h"
#include "run.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace drape;

namespace {

// `drape simulate FILE --steps 300 --json [--depenetrate]`, REQUIRED to succeed; its JSON.
json simulate_json(const std::string& file, bool depenetrate) {
    const auto r = test::run("'" + test::drape_exe() + "' simulate '" + test::corpus(file).string() + "' --steps 300 --json" +
                             (depenetrate ? " --depenetrate" : ""));
    INFO(r.out);
    REQUIRE(r.exit_code == 0);
    return json::parse(r.out);
}

}  // namespace

TEST_CASE("runtime depenetration cli: drape simulate --depenetrate reports it and leaves no particle of Sekiro c7190 inside, the default run its hair wedged 1.7 cm deep" * doctest::test_suite("corpus")) {
    REQUIRE_MESSAGE(fs::exists(test::corpus_dir()), "no corpus at " << test::corpus_dir());
    const json game = simulate_json("sekiro/c7190.chrbnd.dcx", false), depenetrated = simulate_json("sekiro/c7190.chrbnd.dcx", true);
    CHECK(game["depenetrate"] == false);
    CHECK(depenetrated["depenetrate"] == true);
    REQUIRE(game["sims"].size() == 5);
    REQUIRE(depenetrated["sims"].size() == 5);
    double deepest_game = 0, deepest = 0;
    for (size_t i = 0; i < 5; ++i) {
        deepest_game = std::max(deepest_game, game["sims"][i]["max_penetration_m"].get<double>());
        deepest = std::max(deepest, depenetrated["sims"][i]["max_penetration_m"].get<double>());
        CHECK(depenetrated["sims"][i]["finite"] == true);
    }
    CHECK(deepest_game > 0.01);  // measured 1.66 cm in the first 300 steps (hair01 between two head capsules)
    CHECK(deepest <= 1e-5);
}

TEST_CASE("runtime depenetration cli: drape bake --depenetrate on the sample game, where no particle is wedged, writes the bake without it byte for byte") {
    const fs::path dir = test::scratch_dir("depenetration_bake");
    auto r = test::run("'" + test::drape_exe() + "' -q convert '" + (fs::path(DRAPE_SOURCE_DIR) / "samples/game").string() + "' -o '" + (dir / "out").string() + "'");
    INFO(r.out);
    REQUIRE(r.exit_code == 0);
    const std::string model = (dir / "out/chr/c9999.glb").string(), cloth = (dir / "out/chr/c9999.drcloth").string();
    r = test::run("'" + test::drape_exe() + "' -q bake '" + model + "' '" + cloth + "' -o '" + (dir / "game.glb").string() + "'");
    REQUIRE(r.exit_code == 0);
    r = test::run("'" + test::drape_exe() + "' -q bake '" + model + "' '" + cloth + "' --depenetrate -o '" + (dir / "depenetrated.glb").string() + "'");
    REQUIRE(r.exit_code == 0);
    const auto a = test::load(dir / "game.glb"), b = test::load(dir / "depenetrated.glb");
    REQUIRE(a.size() > 10000);
    CHECK(a == b);
}

TEST_CASE("runtime depenetration cli: drape convert --bake --depenetrate bakes the sample as --bake does (nothing wedged there), and --depenetrate without --bake is a usage error") {
    const fs::path dir = test::scratch_dir("depenetration_convert_bake");
    const std::string game = (fs::path(DRAPE_SOURCE_DIR) / "samples/game").string();
    auto r = test::run("'" + test::drape_exe() + "' -q convert '" + game + "' --bake -o '" + (dir / "plain").string() + "'");
    INFO(r.out);
    REQUIRE(r.exit_code == 0);
    r = test::run("'" + test::drape_exe() + "' -q convert '" + game + "' --bake --depenetrate -o '" + (dir / "depenetrated").string() + "'");
    REQUIRE(r.exit_code == 0);
    const auto a = test::load(dir / "plain/chr/c9999_baked.glb"), b = test::load(dir / "depenetrated/chr/c9999_baked.glb");
    REQUIRE(a.size() > 10000);
    CHECK(a == b);
    r = test::run("'" + test::drape_exe() + "' -q convert '" + game + "' --depenetrate -o '" + (dir / "usage").string() + "'");
    CHECK(r.exit_code == 2);
    CHECK(r.out.find("--bake") != std::string::npos);
}
