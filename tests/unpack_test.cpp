// drape unpack, the library: DCX, BND4, BXF4 and TPF to a folder, member
// paths sanitised (nothing outside the folder whatever a stored name holds), ids, flags and
// stored names in the manifest, nested containers with --recursive, corpus binders.
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "corpus.h"
#include "drape/bnd/bnd4.h"
#include "drape/dcx/dcx.h"
#include "drape/convert/unpack.h"
#include "drape/io/file.h"
#include "drape/tpf/tpf.h"
#include "run.h"
#include "tpf_fixture.h"

using namespace drape;
namespace fs = std::filesystem;

namespace {

bnd::Binder binder_of(const std::vector<std::pair<int32_t, std::string>>& members) {
    bnd::Binder b;
    b.version = "07D7R6";
    b.raw_format = 0x74;
    b.format = 0x2E;
    b.extended = 4;
    b.unicode = true;
    for (const auto& [id, name] : members) {
        bnd::Entry e;
        e.flags = 0x40;
        e.id = id;
        e.name = name;
        b.entries.push_back(e);
    }
    return b;
}

std::vector<uint8_t> bytes_of(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

nlohmann::json manifest(const fs::path& folder) {
    auto b = read_file(folder / game::k_unpack_manifest);
    REQUIRE_MESSAGE(b, b.error().to_string());
    return nlohmann::json::parse(b->begin(), b->end());
}

// Every regular file under `root`, relative, sorted.
std::vector<std::string> files_under(const fs::path& root) {
    std::vector<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(root))
        if (e.is_regular_file()) out.push_back(fs::relative(e.path(), root).generic_string());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST_CASE("unpack: a DCX-compressed BND4 with hostile names stays inside its folder") {
    const auto dir = test::scratch_dir("unpack_hostile");
    auto b = binder_of({{10, "N:\\FDP\\data\\chr\\c0000\\a.hkx"},
                        {11, "..\\..\\..\\evil.txt"},
                        {12, "C:\\Windows\\abs.txt"},
                        {13, "/etc/passwd"},
                        {14, "chr\\c0000\\a.hkx"},  // sanitises to a path already taken? no: differs from member 10
                        {15, "N:\\FDP\\data\\chr\\c0000\\a.hkx"},  // the same stored name twice
                        {16, "drape-unpack.json"}});
    b.entries[2].flags = 0x42;  // a flag byte kept as is in the manifest
    std::vector<std::vector<uint8_t>> payloads;
    for (size_t i = 0; i < b.entries.size(); ++i) payloads.push_back(bytes_of("member " + std::to_string(i)));
    std::vector<Bytes> views(payloads.begin(), payloads.end());
    auto bnd = bnd::write_bnd4(b, views);
    REQUIRE(bnd);
    auto dcx = dcx::compress(*bnd);
    REQUIRE(dcx);
    auto r = game::unpack(*dcx, "c0000.anibnd.dcx", dir);
    REQUIRE_MESSAGE(r, r.error().to_string());
    CHECK(r->errors.empty());
    CHECK(r->folder == dir / "c0000-anibnd-dcx");
    CHECK(r->files == 8);
    CHECK(r->containers == 1);
    // Nothing outside the folder.
    CHECK(files_under(dir) == std::vector<std::string>{
                                  "c0000-anibnd-dcx/FDP/data/chr/c0000/a.hkx",
                                  "c0000-anibnd-dcx/FDP/data/chr/c0000/a.hkx~5",
                                  "c0000-anibnd-dcx/Windows/abs.txt",
                                  "c0000-anibnd-dcx/chr/c0000/a.hkx",
                                  "c0000-anibnd-dcx/drape-unpack.json",
                                  "c0000-anibnd-dcx/drape-unpack.json~6",
                                  "c0000-anibnd-dcx/etc/passwd",
                                  "c0000-anibnd-dcx/evil.txt",
                              });
    CHECK(test::load(r->folder / "evil.txt") == bytes_of("member 1"));
    CHECK(test::load(r->folder / "FDP/data/chr/c0000/a.hkx~5") == bytes_of("member 5"));
    // No temporary file is left behind.
    for (const auto& f : files_under(dir)) CHECK(f.find(".drape-tmp") == std::string::npos);
    const auto m = manifest(r->folder);
    CHECK(m["drape_unpack"] == 1);
    CHECK(m["container"] == "BND4");
    CHECK(m["dcx"]["compression"] == "DFLT");
    CHECK(m["binder"]["version"] == "07D7R6");
    CHECK(m["binder"]["format"] == "0x2E");
    CHECK(m["binder"]["extended"] == 4);
    REQUIRE(m["members"].size() == 7);
    CHECK(m["members"][1]["id"] == 11);
    CHECK(m["members"][1]["name"] == "..\\..\\..\\evil.txt");
    CHECK(m["members"][1]["path"] == "evil.txt");
    CHECK(m["members"][2]["flags"] == "0x42");
    CHECK(m["members"][5]["path"] == "FDP/data/chr/c0000/a.hkx~5");
    CHECK(m["members"][6]["path"] == "drape-unpack.json~6");
    CHECK(m["members"][0]["size"] == 8);
}

TEST_CASE("unpack: TPF to DDS files, nested binders with recursive, BXF4 pairs") {
    const auto dir = test::scratch_dir("unpack_nested");
    test::DdsSpec spec;
    spec.fourcc = test::fourcc_code("DXT1");
    const auto dds = test::make_dds(spec, std::vector<uint8_t>(8, 0x11));
    test::TpfTextureSpec t0{"c9999_a", 0, 0, 1, 0, dds};
    test::TpfTextureSpec t1{"..\\up\\c9999_n", 0, 0, 1, 0, dds};
    const auto tpf = test::make_tpf({t0, t1});
    auto inner = binder_of({{1, "inner\\x.bin"}});
    const auto inner_payload = bytes_of("inner");
    auto inner_bnd = bnd::write_bnd4(inner, {Bytes(inner_payload)});
    REQUIRE(inner_bnd);
    auto outer = binder_of({{100, "N:\\X\\c9999.tpf"}, {200, "N:\\X\\c9999.anibnd"}});
    auto outer_bnd = bnd::write_bnd4(outer, {Bytes(tpf), Bytes(*inner_bnd)});
    REQUIRE(outer_bnd);

    // Without recursive: the members as stored.
    auto flat = game::unpack(*outer_bnd, "c9999.chrbnd", dir / "flat");
    REQUIRE_MESSAGE(flat, flat.error().to_string());
    CHECK(files_under(dir / "flat") == std::vector<std::string>{"c9999-chrbnd/X/c9999.anibnd", "c9999-chrbnd/X/c9999.tpf",
                                                                 "c9999-chrbnd/drape-unpack.json"});
    // With recursive: each nested container beside its member, with its own manifest.
    game::UnpackOptions o;
    o.recursive = true;
    auto deep = game::unpack(*outer_bnd, "c9999.chrbnd", dir / "deep", o);
    REQUIRE_MESSAGE(deep, deep.error().to_string());
    CHECK(deep->errors.empty());
    CHECK(deep->containers == 3);
    CHECK(files_under(dir / "deep") == std::vector<std::string>{
                                           "c9999-chrbnd/X/c9999-anibnd/drape-unpack.json",
                                           "c9999-chrbnd/X/c9999-anibnd/inner/x.bin",
                                           "c9999-chrbnd/X/c9999-tpf/c9999_a.dds",
                                           "c9999-chrbnd/X/c9999-tpf/drape-unpack.json",
                                           "c9999-chrbnd/X/c9999-tpf/up/c9999_n.dds",
                                           "c9999-chrbnd/X/c9999.anibnd",
                                           "c9999-chrbnd/X/c9999.tpf",
                                           "c9999-chrbnd/drape-unpack.json",
                                       });
    CHECK(test::load(dir / "deep/c9999-chrbnd/X/c9999-tpf/c9999_a.dds") == dds);
    const auto tm = manifest(dir / "deep/c9999-chrbnd/X/c9999-tpf");
    CHECK(tm["container"] == "TPF");
    CHECK(tm["textures"][1]["name"] == "..\\up\\c9999_n");
    CHECK(tm["textures"][1]["path"] == "up/c9999_n.dds");
    CHECK(manifest(dir / "deep/c9999-chrbnd")["members"][0]["unpacked"] == "c9999-tpf");

    // A DCX of a plain file: the payload, named after the DCX.
    const auto plain = bytes_of("just bytes");
    auto d = dcx::compress(plain);
    REQUIRE(d);
    auto one = game::unpack(*d, "x.flver.dcx", dir / "one");
    REQUIRE_MESSAGE(one, one.error().to_string());
    CHECK(test::load(dir / "one/x-flver-dcx/x.flver") == plain);
    CHECK(manifest(dir / "one/x-flver-dcx")["file"] == "x.flver");

    // BXF4: header file and data file (layout as bnd4_test builds it).
    auto le = bnd::write_bnd4(inner, {Bytes(inner_payload)});
    REQUIRE(le);
    std::vector<uint8_t> bhd = *le;
    std::memcpy(bhd.data(), "BHF4", 4);
    std::vector<uint8_t> bdt = *le;
    std::memset(bdt.data(), 0, 0x30);
    std::memcpy(bdt.data(), "BDF4", 4);
    bdt[0x0A] = 1;
    bdt[0x10] = 0x30;
    std::memcpy(bdt.data() + 0x18, "07D7R6", 6);
    auto bx = game::unpack_bxf4(bhd, bdt, "c9999.hkxbhd", dir / "bxf");
    REQUIRE_MESSAGE(bx, bx.error().to_string());
    CHECK(test::load(dir / "bxf/c9999-hkxbhd/inner/x.bin") == inner_payload);
    CHECK(manifest(dir / "bxf/c9999-hkxbhd")["container"] == "BXF4");

    // Not a container.
    auto no = game::unpack(plain, "x.txt", dir / "no");
    REQUIRE_FALSE(no);
    CHECK(no.error().to_string() == "x.txt: not a container drape unpacks (DCX, BND4, BXF4 or TPF)");
}

TEST_CASE("unpack: corpus binders unpack with every member, id and flag" * doctest::test_suite("corpus")) {
    size_t binders = 0, members = 0;
    for (const char* rel : {"ds3/c2080.anibnd.dcx", "sekiro/WP_A_2300.anibnd", "er/WP_A_0550_1.anibnd", "ds3/DS3_am.dcx", "er/systex.tpf.dcx"}) {
        CAPTURE(rel);
        const auto dir = test::scratch_dir("unpack_corpus");
        const auto bytes = test::load(test::corpus(rel));
        game::UnpackOptions o;
        o.recursive = true;
        const std::string name = fs::path(rel).filename().string();
        auto r = game::unpack(bytes, name, dir, o);
        REQUIRE_MESSAGE(r, r.error().to_string());
        CHECK(r->errors.empty());
        const auto m = manifest(r->folder);
        ++binders;
        if (m["container"] == "TPF") {
            auto plain = dcx::decompress(bytes);
            REQUIRE(plain);
            auto t = tpf::read_tpf(*plain);
            REQUIRE(t);
            REQUIRE(m["textures"].size() == t->textures.size());
            for (size_t i = 0; i < t->textures.size(); ++i) {
                const auto dds = test::load(r->folder / m["textures"][i]["path"].get<std::string>());
                CHECK(dds == std::vector<uint8_t>(t->textures[i].dds.begin(), t->textures[i].dds.end()));
            }
            continue;
        }
        auto plain = dcx::is_dcx(bytes) ? dcx::decompress(bytes) : Result<std::vector<uint8_t>>(bytes);
        REQUIRE(plain);
        auto b = bnd::read_bnd4(*plain);
        REQUIRE(b);
        REQUIRE(m["members"].size() == b->entries.size());
        for (size_t i = 0; i < b->entries.size(); ++i) {
            const auto& e = b->entries[i];
            const auto& j = m["members"][i];
            CHECK(j["name"] == e.name);
            if (b->has_ids()) CHECK(j["id"] == e.id);
            CHECK(j["flags"] == hex(e.flags));
            auto want = bnd::entry_bytes(*b, e);
            REQUIRE(want);
            CHECK(test::load(r->folder / j["path"].get<std::string>()) == *want);
            ++members;
        }
    }
    CHECK(binders == 5);
    CHECK(members >= 5 + 3 + 11 + 1);
}

TEST_CASE("unpack cli: drape unpack FILE... -o DIR [--recursive]" * doctest::test_suite("corpus")) {
    const auto dir = test::scratch_dir("unpack_cli");
    const std::string exe = test::drape_exe();
    auto r = test::run(exe + " unpack " + test::corpus("ds3/c2080.anibnd.dcx").string() + " " + test::corpus("er/systex.tpf.dcx").string() +
                       " -o " + dir.string());
    CHECK_MESSAGE(r.exit_code == 0, r.out);
    CHECK_MESSAGE(r.out.find("c2080-anibnd-dcx: 6 files, 1 container") != std::string::npos, r.out);
    CHECK(fs::is_regular_file(dir / "c2080-anibnd-dcx" / game::k_unpack_manifest));
    CHECK(fs::is_regular_file(dir / "systex-tpf-dcx" / game::k_unpack_manifest));
    // A member that cannot be read is named, the others are written, the exit code says so.
    auto b = binder_of({{1, "good.bin"}, {2, "bad.bin"}});
    b.entries[1].flags = 0xC0;  // compressed (bit 7 as stored in a little-endian-bit binder): its bytes must be a DCX
    const auto good = bytes_of("good"), bad = bytes_of("not a dcx");
    auto bnd = bnd::write_bnd4(b, {Bytes(good), Bytes(bad)});
    REQUIRE(bnd);
    REQUIRE(write_file(dir / "mixed.bnd", *bnd));
    r = test::run(exe + " unpack " + (dir / "mixed.bnd").string() + " -o " + (dir / "out").string() + " --recursive");
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(r.out.find("drape unpack: not unpacked: mixed.bnd > bad.bin") != std::string::npos, r.out);
    CHECK_MESSAGE(r.out.find("1 not unpacked") != std::string::npos, r.out);
    CHECK(test::load(dir / "out/mixed-bnd/good.bin") == good);
    // Not a container, and a .bhd without its .bdt.
    REQUIRE(write_file(dir / "x.txt", good));
    r = test::run(exe + " unpack " + (dir / "x.txt").string() + " -o " + (dir / "out").string());
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(r.out.find("x.txt: not a container drape unpacks") != std::string::npos, r.out);
}

TEST_CASE("unpack: a DCX binder cut at every length fails cleanly or unpacks what it holds") {
    auto b = binder_of({{1, "a.bin"}, {2, "..\\b.bin"}});
    const auto a = bytes_of("aaaa"), bb = bytes_of("bbbbbb");
    auto bnd = bnd::write_bnd4(b, {Bytes(a), Bytes(bb)});
    REQUIRE(bnd);
    const auto dir = test::scratch_dir("unpack_truncated");
    size_t ok = 0;
    for (size_t n = 0; n <= bnd->size(); ++n) {
        auto r = game::unpack(Bytes(bnd->data(), n), "t.bnd", dir / std::to_string(n));
        if (r) ++ok;
        else CHECK(!r.error().to_string().empty());
    }
    CHECK(ok >= 1);  // at least the whole file
    for (const auto& f : files_under(dir)) CHECK(f.find("..") == std::string::npos);
}
