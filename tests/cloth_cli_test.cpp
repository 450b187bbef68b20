// drape cloth / check / inspect of .drcloth files, end to end through the CLI.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "corpus.h"
#include "drape/exporters/cloth_export.h"
#include "drape/convert/cloth_check.h"
#include "run.h"

using namespace drape;

namespace {
std::string q(const std::filesystem::path& p) { return "'" + p.string() + "'"; }
std::vector<uint8_t> read_all(const std::filesystem::path& p) { return test::load(p); }
void write_all(const std::filesystem::path& p, const std::vector<uint8_t>& b) {
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}
}  // namespace

TEST_CASE("drape cloth: BB c2020_c.hkx exports, drape check verifies it, inspect lists it" * doctest::test_suite("corpus")) {
    auto dir = test::scratch_dir("cloth_cli");
    auto out = dir / "c2020.drcloth";
    auto r = test::run(test::drape_exe() + " cloth " + q(test::corpus("bb/c2020_c.hkx")) + " -o " + q(out));
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("6 cloth data(s), 6 sim cloth(s), 1325 particles") != std::string::npos);
    CHECK(r.out.find("display buffers: not bound (no model)") != std::string::npos);

    auto c = test::run(test::drape_exe() + " check " + q(out));
    CHECK(c.exit_code == 0);
    CHECK(c.out.find("(drape cloth, verified, loaded by the runtime)") != std::string::npos);
    CHECK(c.out.find("clean") != std::string::npos);

    auto i = test::run(test::drape_exe() + " inspect --json " + q(out));
    CHECK(i.exit_code == 0);
    auto j = nlohmann::json::parse(i.out.substr(i.out.find('{')));
    CHECK(j["kind"] == "drape cloth");
    CHECK(j["cloth_datas"].size() == 6);
    CHECK(j["source"]["sdk"] == "hk_2014.1.0-r1");
    size_t particles = 0;
    for (const auto& cd : j["cloth_datas"])
        for (const auto& sc : cd["sim_cloths"]) particles += sc["particles"].get<size_t>();
    CHECK(particles == 1325);
    CHECK(j["dropped"].size() == cloth_export::dropped_members().size());

    // zstd-wrapped output checks and inspects the same.
    auto outz = dir / "c2020z.drcloth";
    auto rz = test::run(test::drape_exe() + " cloth --zstd " + q(test::corpus("bb/c2020_c.hkx")) + " -o " + q(outz));
    CHECK(rz.exit_code == 0);
    CHECK(std::filesystem::file_size(outz) < std::filesystem::file_size(out));
    CHECK(test::run(test::drape_exe() + " check " + q(outz)).exit_code == 0);
}

TEST_CASE("drape check: a corrupted or index-broken .drcloth is reported, never crashes" * doctest::test_suite("corpus")) {
    auto dir = test::scratch_dir("cloth_cli_bad");
    auto out = dir / "c2020.drcloth";
    REQUIRE(test::run(test::drape_exe() + " -q cloth " + q(test::corpus("bb/c2020_c.hkx")) + " -o " + q(out)).exit_code == 0);
    auto good = read_all(out);
    // Truncated: the verifier refuses it.
    auto trunc = dir / "trunc.drcloth";
    write_all(trunc, std::vector<uint8_t>(good.begin(), good.begin() + good.size() / 3));
    auto t = test::run(test::drape_exe() + " check " + q(trunc));
    CHECK(t.exit_code == 1);
    CHECK(t.out.find("the FlatBuffers verifier refused the file (truncated or corrupt)") != std::string::npos);
    // Not a drape file after the zstd magic.
    auto z = dir / "junk.drcloth";
    write_all(z, {0x28, 0xB5, 0x2F, 0xFD, 1, 2, 3});
    auto zr = test::run(test::drape_exe() + " check " + q(z));
    CHECK(zr.exit_code == 1);
    CHECK(zr.out.find("drcloth.zstd") != std::string::npos);
    // A valid FlatBuffer whose indices are out of range: the same rules as for game files catch them.
    {
        hcl::ClothContainer c;
        hcl::ClothData cd;
        cd.name = "broken";
        hcl::SimClothData s;
        s.name = "sim";
        s.particles.resize(4);
        s.fixed_particles = {0, 9};  // 9 >= 4 particles
        cd.sim_cloths.push_back(s);
        hcl::ClothState st;
        st.name = "state";
        st.operators = {3};  // no operator 3
        cd.states.push_back(st);
        c.cloth_datas.push_back(cd);
        auto bytes = cloth_export::export_cloth(c, {});
        REQUIRE(bytes);
        auto p = dir / "broken.drcloth";
        write_all(p, *bytes);
        auto br = test::run(test::drape_exe() + " check " + q(p));
        CHECK(br.exit_code == 1);
        CHECK(br.out.find("fixedParticles[1]") != std::string::npos);
        CHECK(br.out.find("operators[0]") != std::string::npos);
        // The runtime's loader judges the file first and its refusal is reported as such.
        INFO(br.out);
        CHECK(br.out.find("runtime loader: bad index") != std::string::npos);
        const auto loaded = cloth_check::runtime_load(*bytes);
        CHECK(!loaded);
        if (!loaded) CHECK(loaded.error().to_string().find("runtime loader: bad index") != std::string::npos);
        CHECK(bool(cloth_check::runtime_load(good)));  // the exported game file loads
        // drape inspect of the same file goes through the same loader and reports its message.
        auto ir = test::run(test::drape_exe() + " inspect " + q(p));
        CHECK(ir.exit_code != 0);
        CHECK(ir.out.find("runtime loader: bad index") != std::string::npos);
    }
    // Byte flips anywhere never crash check (exit 0 or 1).
    uint32_t x = 12345;
    for (int k = 0; k < 40; ++k) {
        auto m = good;
        x = x * 1664525u + 1013904223u;
        m[x % m.size()] ^= uint8_t(1 + (x >> 24) % 255);
        auto p = dir / ("m" + std::to_string(k) + ".drcloth");
        write_all(p, m);
        auto mr2 = test::run(test::drape_exe() + " -q check " + q(p));
        CHECK((mr2.exit_code == 0 || mr2.exit_code == 1));
    }
}

TEST_CASE("drape cloth: errors" * doctest::test_suite("corpus")) {
    auto dir = test::scratch_dir("cloth_cli_err");
    auto r = test::run(test::drape_exe() + " cloth " + q(test::corpus("ds3/EliteKnight.flver")) + " -o " + q(dir / "x.drcloth"));
    CHECK(r.exit_code == 1);
    CHECK(r.out.find("no Havok cloth (hclClothContainer) found") != std::string::npos);
    auto r2 = test::run(test::drape_exe() + " cloth " + q(test::corpus("bb/c2020_c.hkx")) + " --model " +
                        q(test::corpus("bb/c2020.HKX")) + " -o " + q(dir / "y.drcloth"));
    CHECK(r2.exit_code == 1);
    CHECK(r2.out.find("no FLVER found") != std::string::npos);
    auto r3 = test::run(test::drape_exe() + " cloth " + q(test::corpus("bb/c2020_c.hkx")));
    CHECK(r3.exit_code == 2);  // -o is required
}
