// drape inspect --param: the rows of a PARAM table as JSON and CSV, end to end through the built CLI.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "corpus.h"
#include "drape/dcx/dcx.h"
#include "drape/game/containers.h"
#include "drape/param/param.h"
#include "game_fixtures.h"
#include "param_fixture.h"
#include "run.h"

using namespace drape;

namespace {

std::string q(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

std::filesystem::path write_fixture(const std::string& name, const std::vector<uint8_t>& bytes) {
    const auto path = test::scratch_dir("param_cli_" + name) / name;  // a fresh folder per file
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    return path;
}

std::vector<uint8_t> fixture_binder() {
    test::ParamSpec s;
    s.rows = {{10, "first, with a comma", std::vector<uint8_t>{1, 2, 3, 4}}, {20, "", std::vector<uint8_t>{0xAB, 0xCD, 0xEF, 0x01}}};
    return test::make_bnd4({{"N:\\GR\\data\\Param\\param\\GameParam\\TestParam.param", test::make_param(s)}});
}

}  // namespace

TEST_CASE("inspect --param: a table without a layout prints id, name and hex, in JSON and CSV") {
    auto dcx = dcx::compress(fixture_binder());
    REQUIRE(dcx);
    const auto enc = test::encrypt_regulation(*dcx, test::elden_ring_regulation_key(), std::vector<uint8_t>(16, 3));
    const auto path = write_fixture("regulation.bin", enc);

    // the note on stderr ("no layout ...") is left out of what is parsed
    auto r = test::run("(" + test::drape_exe() + " inspect " + q(path) + " --param testparam 2>/dev/null)");
    CHECK(r.exit_code == 0);
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    REQUIRE_FALSE(j.is_discarded());
    CHECK(j["param"] == "TestParam");
    CHECK(j["type"] == "TEST_PARAM_ST");
    CHECK(j["decoded"] == false);
    REQUIRE(j["rows"].size() == 2);
    CHECK(j["rows"][0]["id"] == 10);
    CHECK(j["rows"][1]["hex"] == "abcdef01");

    r = test::run("(" + test::drape_exe() + " inspect " + q(path) + " --param TestParam --csv 2>/dev/null)");
    CHECK(r.exit_code == 0);
    CHECK(r.out == "id,name,hex\n10,\"first, with a comma\",01020304\n20,,abcdef01\n");

    // two files: one JSON array, a file without the table as null
    const auto other = write_fixture("empty.parambnd", test::make_bnd4({}));
    r = test::run("(" + test::drape_exe() + " inspect " + q(path) + " " + q(other) + " --param TestParam 2>/dev/null)");
    CHECK(r.exit_code == 1);
    j = nlohmann::json::parse(r.out, nullptr, false);
    REQUIRE_FALSE(j.is_discarded());
    REQUIRE(j.size() == 2);
    CHECK(j[0]["rows"].size() == 2);
    CHECK(j[1].is_null());
}

TEST_CASE("inspect --param: an unknown table name fails with the member count, --help explains the option") {
    const auto path = write_fixture("gameparam.parambnd", fixture_binder());
    auto r = test::run(test::drape_exe() + " inspect " + q(path) + " --param NpcParam");
    CHECK(r.exit_code == 1);
    CHECK(r.out.find("no PARAM named NpcParam among its 1 members") != std::string::npos);
    r = test::run(test::drape_exe() + " inspect --help");
    CHECK(r.out.find("--param") != std::string::npos);
    CHECK(r.out.find("--csv") != std::string::npos);
}

TEST_CASE("inspect --param: Elden Ring NpcParam decoded by name" * doctest::test_suite("corpus")) {
    const auto file = test::corpus("er/regulation.112.decrypted.bin");
    REQUIRE_MESSAGE(std::filesystem::exists(file), "no corpus at " << test::corpus_dir().string());
    auto r = test::run(test::drape_exe() + " inspect " + q(file) + " --param NpcParam");
    CHECK(r.exit_code == 0);
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    REQUIRE_FALSE(j.is_discarded());
    CHECK(j["decoded"] == true);
    CHECK(j["binder_version"] == "11210015");
    CHECK(j["row_size"] == 736);
    // the row count the table's header states (bytes 0x0A..0x0B of NpcParam.param)
    auto members = game::open_members(file, "regulation", {});
    REQUIRE(members);
    uint16_t stated = 0;
    for (const auto& m : *members)
        if (param::param_name(m.name) == "NpcParam" && m.bytes.size() > 0x0C) std::memcpy(&stated, m.bytes.data() + 0x0A, 2);
    const size_t rows = j["rows"].size();
    CHECK(rows == stated);
    size_t c5000 = 0;
    for (const auto& row : j["rows"]) {
        REQUIRE(row["fields"].contains("modelDispMask31"));
        if (row["id"].get<int64_t>() / 10000 == 5000) ++c5000;
    }
    CHECK(c5000 > 0);
    r = test::run(test::drape_exe() + " inspect " + q(file) + " --param NpcParam --csv");
    CHECK(r.exit_code == 0);
    CHECK(size_t(std::count(r.out.begin(), r.out.end(), '\n')) == rows + 1);
}
