// drape inspect --json --full / --max-array N: the whole object graph,
// streamed. The streaming writer is checked against the document builder it replaces, and the
// CLI's array lengths against the Havok reader's own counts.
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "corpus.h"
#include "drape/exporters/havok_json.h"
#include "drape/exporters/havok_json_stream.h"
#include "drape/io/json_writer.h"
#include "havok_corpus.h"
#include "run.h"

using namespace drape;

namespace {

std::string q(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

nlohmann::json streamed(const havok::File& f, size_t max_array) {
    std::ostringstream s;
    JsonWriter w(s);
    exporters::write_havok_json(w, f, max_array);
    CHECK(w.complete());
    return nlohmann::json::parse(s.str());
}

}  // namespace

TEST_CASE("json writer: nesting, commas, escapes, numbers") {
    std::ostringstream s;
    JsonWriter w(s, 0);
    w.begin_object().field("a", 1).field("s", std::string_view("q\"\\\n\x01\xE9\xAA\xA8\xFF", 9)).key("arr").begin_array();
    w.value(1.5).value(2.0).value(NAN).value(-INFINITY).value(true).null().begin_object().end_object().begin_array().end_array();
    w.end_array().field("big", uint64_t(18446744073709551615ull)).field("neg", int64_t(-5)).end_object();
    CHECK(w.complete());
    CHECK(s.str() == "{\"a\":1,\"s\":\"q\\\"\\\\\\n\\u0001\xE9\xAA\xA8\\\\xFF\",\"arr\":[1.5,2.0,\"nan\",\"-inf\",true,null,{},[]],"
                     "\"big\":18446744073709551615,\"neg\":-5}");
    const auto j = nlohmann::json::parse(s.str());
    CHECK(j["s"] == "q\"\\\n\x01\xE9\xAA\xA8\\xFF");
    CHECK(j["arr"][0] == 1.5);
    // Misuse is a programming error.
    std::ostringstream t;
    JsonWriter bad(t);
    bad.begin_object();
    CHECK_THROWS_AS(bad.value(1), std::logic_error);
    CHECK_THROWS_AS(bad.end_array(), std::logic_error);
    bad.end_object();
    CHECK_THROWS_AS(bad.begin_object(), std::logic_error);
    // Indented output parses the same.
    std::ostringstream u;
    JsonWriter pretty(u, 2);
    pretty.begin_array().value("x").begin_object().field("k", 3).end_object().end_array();
    CHECK(nlohmann::json::parse(u.str()) == nlohmann::json::parse("[\"x\", {\"k\": 3}]"));
}

TEST_CASE("havok json: the streamed document equals the built one, cut and full" * doctest::test_suite("corpus")) {
    size_t files = 0;
    for (const auto& case_ : std::vector<std::pair<std::string, std::string>>{{"bb/skeleton.HKX", ""},
                                                                                      {"ds3/c1240_a00_3000.hkx", ""},
                                                                                      {"er/WP_A_0550_1.anibnd", "a614_040050_1.hkx"},
                                                                                      {"sekiro/c1140.anibnd.dcx", "a000_001040.hkx"},
                                                                                      {"er/HD_M_3005_c.hkx", ""}}) {
        // No structured bindings: clang 14 cannot capture them in doctest macros.
        const std::string& rel = case_.first;
        const std::string& member = case_.second;
        CAPTURE(rel);
        auto f = test::load_hkx(rel, member);
        REQUIRE_MESSAGE(f, f.error().to_string());
        for (size_t max_array : {size_t(0), size_t(8), size_t(64)}) {
            CAPTURE(max_array);
            CHECK(streamed(*f, max_array) == nlohmann::json::parse(exporters::havok_json(*f, max_array).dump()));
        }
        ++files;
    }
    CHECK(files == 5);
}

TEST_CASE("inspect: --json cuts arrays at 64, --max-array N at N, --full and --max-array 0 keep all" * doctest::test_suite("corpus")) {
    const auto path = test::corpus("ds3/c1240_a00_3000.hkx");
    auto f = test::load_hkx("ds3/c1240_a00_3000.hkx");
    REQUIRE(f);
    const auto item = f->first_of("hkaSplineCompressedAnimation");
    REQUIRE(item);
    const havok::Value spline = f->object(*item);
    REQUIRE(spline.valid());
    const uint64_t data_size = spline["data"].size();
    REQUIRE(data_size > 1000);
    auto data_of = [&](const std::string& flags) {
        auto r = test::run(test::drape_exe() + " inspect --json " + flags + " " + q(path));
        REQUIRE_MESSAGE(r.exit_code == 0, r.out);
        const auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
        for (const auto& o : j["objects"]["objects"])
            if (o["class"] == "hkaSplineCompressedAnimation") return o["members"]["data"];
        FAIL("no spline object");
        return nlohmann::json();
    };
    auto cut = data_of("");
    REQUIRE(cut.size() == 65);
    CHECK(cut[64]["truncated"] == data_size - 64);
    auto hundred = data_of("--max-array 100");
    REQUIRE(hundred.size() == 101);
    CHECK(hundred[100]["truncated"] == data_size - 100);
    auto full = data_of("--full");
    REQUIRE(full.size() == data_size);
    CHECK(full == data_of("--max-array 0"));
    for (uint64_t i = 0; i < data_size; ++i) REQUIRE(full[i] == spline["data"].at(i).as_uint());
    // Inside binders too, with --objects.
    auto r = test::run(test::drape_exe() + " inspect --json --objects --full " + q(test::corpus("er/WP_A_0550_1.anibnd")));
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("\"truncated\"") == std::string::npos);
    const auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
    size_t with_objects = 0;
    for (const auto& c : j["children"]) with_objects += c.contains("objects");
    CHECK(with_objects == 10);
    // Two files: an array.
    auto two = test::run(test::drape_exe() + " inspect --json " + q(path) + " " + q(test::corpus("bb/skeleton.HKX")));
    REQUIRE(two.exit_code == 0);
    const auto arr = nlohmann::json::parse(two.out.substr(two.out.find('[')));
    CHECK(arr.size() == 2);
}
