// drape model --skeleton with a Havok skeleton: the bone-match report, checked against the names
// the soulstruct peer reads from the same two files.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "corpus.h"
#include "run.h"

using namespace drape;

namespace {
std::string q(const std::filesystem::path& p) { return "'" + p.string() + "'"; }
nlohmann::json peer(const std::string& rel) {
    std::ifstream f(test::reference_dir() / "peer" / "soulstruct" / (rel + ".json"));
    REQUIRE(f);
    return nlohmann::json::parse(f);
}
}  // namespace

TEST_CASE("model: --skeleton with a Havok anibnd matches FLVER bones to the skeleton by name" * doctest::test_suite("corpus")) {
    // Expected sets from the peer: the FLVER's bone names and the Havok skeleton's.
    auto fl = peer("ds3/DS3_am.dcx");
    std::set<std::string> flver_names, havok_names;
    for (const auto& [k, v] : fl["members"].items())
        if (v.contains("flver"))
            for (const auto& b : v["flver"]["bones"]) flver_names.insert(b["name"].get<std::string>());
    auto an = peer("ds3/c0000.anibnd.dcx");
    for (const auto& [k, v] : an["members"].items())
        if (v.contains("havok") && !v["havok"]["skeletons"].empty())
            for (const auto& b : v["havok"]["skeletons"][0]["bone_names"]) havok_names.insert(b.get<std::string>());
    REQUIRE(!flver_names.empty());
    REQUIRE(!havok_names.empty());
    size_t both = 0;
    for (const auto& n : flver_names) both += havok_names.count(n);

    auto dir = test::scratch_dir("model_skeleton");
    auto out = dir / "am.glb";
    auto r = test::run(test::drape_exe() + " model " + q(test::corpus("ds3/DS3_am.dcx")) + " --skeleton " +
                       q(test::corpus("ds3/c0000.anibnd.dcx")) + " -o " + q(out));
    REQUIRE(r.exit_code == 0);
    std::ifstream rep(dir / "am.bones.txt");
    REQUIRE(rep);
    std::string first;
    std::getline(rep, first);
    std::smatch m;
    REQUIRE(std::regex_search(first, m, std::regex(R"(bone match: (\d+) matched, (\d+) FLVER-only, (\d+) skeleton-only)")));
    CHECK(size_t(std::stoul(m[1])) == both);
    CHECK(size_t(std::stoul(m[2])) == flver_names.size() - both);
    CHECK(size_t(std::stoul(m[3])) == havok_names.size() - both);
    // Every FLVER-only bone is listed by name.
    std::string rest((std::istreambuf_iterator<char>(rep)), std::istreambuf_iterator<char>());
    for (const auto& n : flver_names)
        if (!havok_names.count(n)) CHECK(rest.find("flver-only " + n) != std::string::npos);
}
