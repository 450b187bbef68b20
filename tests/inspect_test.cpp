// drape inspect, end to end through the built CLI.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "corpus.h"
#include "run.h"

using namespace drape;

namespace {
std::string q(const std::filesystem::path& p) { return "'" + p.string() + "'"; }
}  // namespace

TEST_CASE("inspect: tree of a DS3 anibnd names every member with its id and kind" * doctest::test_suite("corpus")) {
    auto r = test::run(test::drape_exe() + " inspect " + q(test::corpus("ds3/c2080.anibnd.dcx")));
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("c2080.anibnd.dcx  DCX  183,280 B (stored 46,682 B)  compression=DFLT") != std::string::npos);
    CHECK(r.out.find("[1000000] N:\\FDP\\data\\INTERROOT_win64\\chr\\c2080\\hkx\\skeleton.HKX  Havok packfile  6,096 B  "
                     "version=hk_2014.1.0-r1") != std::string::npos);
    CHECK(r.out.find("c2080.tae  TAE  147,648 B") != std::string::npos);
}

TEST_CASE("inspect: --json of every corpus file parses and reports the right kinds" * doctest::test_suite("corpus")) {
    size_t files = 0;
    for (const auto& row : test::manifest()) {
        CAPTURE(row.file);
        ++files;
        auto r = test::run(test::drape_exe() + " inspect --json " + q(test::corpus(row.file)));
        auto start = r.out.find('{');
        REQUIRE(start != std::string::npos);
        auto j = nlohmann::json::parse(r.out.substr(start), nullptr, false);
        REQUIRE_FALSE(j.is_discarded());
        CHECK(j["size"].get<uint64_t>() >= 1);
        std::string kind = j["kind"];
        if (row.format.rfind("DCX", 0) == 0) CHECK(kind == "DCX");
        else if (row.format.rfind("BND4", 0) == 0) CHECK(kind == "BND4");
        else if (row.format.rfind("packfile", 0) == 0) CHECK(kind == "Havok packfile");
        else if (row.format.rfind("FLVER2", 0) == 0) CHECK(kind == "FLVER");
        else if (row.format == "TPF") CHECK(kind == "TPF");
        CHECK(r.exit_code == 0);  // KRAK included: drape decodes Kraken itself
    }
    CHECK(files >= 41);  // every row of MANIFEST.tsv (41 files when this was written)
}

TEST_CASE("inspect: exit codes and errors" * doctest::test_suite("corpus")) {
    auto missing = test::run(test::drape_exe() + " inspect /nonexistent/file.dcx");
    CHECK(missing.exit_code == 2);  // CLI11 checks the path exists: a usage error
    auto none = test::run(test::drape_exe() + " inspect");
    CHECK(none.exit_code == 2);
    CHECK(none.out.find("files is required") != std::string::npos);
    auto nosub = test::run(test::drape_exe());
    CHECK(nosub.exit_code == 2);
    auto help = test::run(test::drape_exe() + " inspect --help");
    CHECK(help.exit_code == 0);
    CHECK(help.out.find("--json") != std::string::npos);
    // A corrupt file: exit 1, one line naming the container chain, offset and field.
    auto dir = test::scratch_dir("inspect_errors");
    auto bad = dir / "bad.anibnd.dcx";
    {
        auto bytes = test::load(test::corpus("ds3/c2080.anibnd.dcx"));
        REQUIRE_MESSAGE(bytes.size() > 0x20, "ds3/c2080.anibnd.dcx is not in the corpus at " << test::corpus_dir().string());
        bytes[0x1F] ^= 0x01;  // declared uncompressed size off by one
        FILE* f = std::fopen(bad.c_str(), "wb");
        std::fwrite(bytes.data(), 1, bytes.size(), f);
        std::fclose(f);
    }
    auto r = test::run(test::drape_exe() + " inspect " + q(bad));
    CHECK(r.exit_code == 1);
    CHECK(r.out.find("error: bad.anibnd.dcx @0xB65A zlib: stream ends after 183280 B, declared 183281 B") != std::string::npos);
    auto dirr = test::run(test::drape_exe() + " inspect " + q(dir));
    CHECK(dirr.exit_code == 1);
    CHECK(dirr.out.find("is a folder, not a file") != std::string::npos);
}

TEST_CASE("inspect: the Sekiro mtdbnd (KRAK) lists its 3,170 members with no Oodle library" * doctest::test_suite("corpus")) {
    auto r = test::run(test::drape_exe() + " inspect " + q(test::corpus("sekiro/allmaterialbnd.mtdbnd.dcx")));
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("compression=KRAK") != std::string::npos);
    CHECK(r.out.find("members=3170") != std::string::npos);
    size_t lines = 0;
    for (size_t p = r.out.find(".mtd"); p != std::string::npos; p = r.out.find(".mtd", p + 1)) ++lines;
    CHECK(lines >= 3170);
}

TEST_CASE("inspect: --json of a Havok file dumps its object graph, and --objects does it inside binders" * doctest::test_suite("corpus")) {
    auto r = test::run(test::drape_exe() + " inspect --json " + q(test::corpus("bb/skeleton.HKX")));
    REQUIRE(r.exit_code == 0);
    auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
    REQUIRE(j.contains("objects"));
    std::vector<std::string> classes;
    for (const auto& o : j["objects"]["objects"]) classes.push_back(o["class"]);
    CHECK(classes == std::vector<std::string>{"hkRootLevelContainer", "hkaAnimationContainer", "hkaSkeleton"});
    // The skeleton's name and bone count match the peer's reading of the same file.
    std::ifstream pf(test::reference_dir() / "peer" / "soulstruct" / "bb" / "skeleton.HKX.json");
    REQUIRE(pf);
    auto peer = nlohmann::json::parse(pf);
    const auto& sk = j["objects"]["objects"][2]["members"];
    CHECK(sk["name"] == peer["havok"]["skeletons"][0]["name"]);

    auto b = test::run(test::drape_exe() + " inspect --json --objects " + q(test::corpus("er/WP_A_0550_1.anibnd")));
    REQUIRE(b.exit_code == 0);
    auto jb = nlohmann::json::parse(b.out.substr(b.out.find('{')));
    size_t with_objects = 0;
    for (const auto& c : jb["children"]) with_objects += c.contains("objects");
    CHECK(with_objects == 10);  // ten tagfiles; the compendium holds types, not objects
    auto plain = test::run(test::drape_exe() + " inspect --json " + q(test::corpus("er/WP_A_0550_1.anibnd")));
    CHECK(plain.out.find("\"objects\"") == std::string::npos);
}
