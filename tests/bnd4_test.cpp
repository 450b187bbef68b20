// BND4 / BXF4: every corpus binder, round trips, truncation, hostile names and every error.
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "corpus.h"
#include "drape/bnd/bnd4.h"
#include "drape/dcx/dcx.h"

using namespace drape;

namespace {

std::vector<uint8_t> open_inner(const std::string& rel) {
    auto bytes = test::load(test::corpus(rel));
    REQUIRE(!bytes.empty());
    if (!dcx::is_dcx(bytes)) return bytes;
    auto r = dcx::decompress(bytes);
    REQUIRE_MESSAGE(r, r.error().to_string());
    return std::move(r).value();
}

int manifest_count(const std::string& contents) {
    std::smatch m;
    static const std::regex re(R"(BND4 \((\d+) files\))");
    if (std::regex_search(contents, m, re)) return std::stoi(m[1]);
    return -1;
}

bnd::Binder small_binder() {
    bnd::Binder b;
    b.version = "07D7R6";
    b.raw_format = 0x74;
    b.format = 0x2E;
    b.extended = 4;
    b.unicode = true;
    bnd::Entry e;
    e.flags = 0x40;
    e.id = 100;
    e.name = "N:\\FDP\\data\\chr\\c0000\\a.hkx";
    b.entries.push_back(e);
    e.id = 200;
    e.name = "N:\\FDP\\data\\chr\\c0000\\b.tae";
    b.entries.push_back(e);
    return b;
}

}  // namespace

TEST_CASE("bnd4: every corpus binder opens, counts match MANIFEST.tsv and members match the peer" * doctest::test_suite("corpus")) {
    int binders = 0;
    for (const auto& row : test::manifest()) {
        int count = manifest_count(row.contents);
        if (count < 0) continue;
        CAPTURE(row.file);
        auto inner = open_inner(row.file);
        auto b = bnd::read_bnd4(inner);
        REQUIRE_MESSAGE(b, b.error().to_string());
        CHECK(int(b->entries.size()) == count);
        std::ifstream pf(test::reference_dir() / "peer" / "soulstruct" / (row.file + ".json"));
        REQUIRE(pf);
        auto peer = nlohmann::json::parse(pf);
        ++binders;
        if (!peer.contains("binder")) {
            // The peer cannot decode KRAK (it needs the Windows Oodle DLL): the count is all we compare.
            CHECK(peer["dcx"]["compression"] == "KRAK");
            continue;
        }
        const auto& members = peer["binder"]["members"];
        REQUIRE(members.size() == b->entries.size());
        for (size_t i = 0; i < members.size(); ++i) {
            CHECK(b->entries[i].name == members[i]["name"].get<std::string>());
            CHECK(b->entries[i].id == members[i]["id"].get<int32_t>());
            CHECK(b->entries[i].stored_size == members[i]["size"].get<uint64_t>());
            CHECK(bnd::reverse_bits(b->entries[i].flags) == members[i]["flags"].get<int>());
        }
        CHECK(b->version == peer["binder"]["signature"].get<std::string>());
        CHECK(b->format == peer["binder"]["flags"].get<int>());
    }
    CHECK(binders == 11);  // the Sekiro mtdbnd (KRAK, 3,170 members) included
}

TEST_CASE("bnd4: corpus binders round-trip byte for byte" * doctest::test_suite("corpus")) {
    for (const char* f : {"ds3/DS3_am.dcx", "ds3/c0000.anibnd.dcx", "ds3/c2080.anibnd.dcx", "sekiro/c0000.anibnd.dcx",
                          "sekiro/c1140.anibnd.dcx", "sekiro/WP_A_2300.anibnd", "er/c3000.anibnd.dcx",
                          "er/WP_A_0550_1.anibnd", "er/m60_23_28_01_60465600.mapbnd", "er/regulation.112.decrypted.bin",
                          "sekiro/allmaterialbnd.mtdbnd.dcx"}) {
        CAPTURE(f);
        auto inner = open_inner(f);
        auto b = bnd::read_bnd4(inner);
        REQUIRE(b);
        std::vector<Bytes> payloads;
        for (auto& e : b->entries) payloads.push_back(e.data);
        auto out = bnd::write_bnd4(*b, payloads);
        REQUIRE(out);
        CHECK(out->size() == inner.size());
        size_t first_diff = 0;
        while (first_diff < std::min(out->size(), inner.size()) && (*out)[first_diff] == inner[first_diff]) ++first_diff;
        CHECK_MESSAGE(*out == inner, "first difference at " << first_diff);
    }
}

TEST_CASE("bnd4: names, hashes and ids") {
    CHECK(bnd::reverse_bits(0x74) == 0x2E);
    CHECK(bnd::reverse_bits(0x54) == 0x2A);
    CHECK(bnd::reverse_bits(0x40) == 0x02);
    // h = h*37 + c over "/a" (lowercased, leading slash added).
    CHECK(bnd::path_hash("A") == uint32_t('/') * 37u + uint32_t('a'));
    CHECK(bnd::path_hash("\\A") == bnd::path_hash("/a"));
    auto b = small_binder();
    auto bytes = bnd::write_bnd4(b, {Bytes(), Bytes()});
    REQUIRE(bytes);
    auto r = bnd::read_bnd4(*bytes);
    REQUIRE(r);
    CHECK(r->entries[1].id == 200);
    CHECK(r->entries[1].path == "FDP/data/chr/c0000/b.tae");
    CHECK(bnd::find_entry(*r, "A.HKX") == &r->entries[0]);
    CHECK(bnd::find_entry(*r, "c0000/b.tae") == &r->entries[1]);
    CHECK(bnd::find_entry(*r, "missing") == nullptr);
}

TEST_CASE("bnd4: Shift-JIS names, big-endian binders and BXF4 pairs") {
    auto b = small_binder();
    b.unicode = false;
    b.entries[0].name = "chr\\\xE3\x82\xAD\xE3\x83\xA3\xE3\x83\xA9.hkx";  // "キャラ" in UTF-8
    const uint8_t d0[] = {1, 2, 3}, d1[] = {4, 5};
    auto bytes = bnd::write_bnd4(b, {Bytes(d0), Bytes(d1)});
    REQUIRE(bytes);
    auto r = bnd::read_bnd4(*bytes);
    REQUIRE(r);
    CHECK(r->entries[0].name == b.entries[0].name);
    CHECK(std::vector<uint8_t>(r->entries[1].data.begin(), r->entries[1].data.end()) == std::vector<uint8_t>{4, 5});

    b.big_endian = true;
    b.bit_big_endian = true;
    b.raw_format = 0x2E;
    auto be = bnd::write_bnd4(b, {Bytes(d0), Bytes(d1)});
    REQUIRE(be);
    auto rb = bnd::read_bnd4(*be);
    REQUIRE_MESSAGE(rb, rb.error().to_string());
    CHECK(rb->big_endian);
    CHECK(rb->entries[0].id == 100);
    CHECK(rb->entries[0].data.size() == 3);

    // BXF4: the header file is a BND4 layout with magic BHF4 and data offsets into the .bdt.
    auto le = bnd::write_bnd4(small_binder(), {Bytes(d0), Bytes(d1)});
    REQUIRE(le);
    std::vector<uint8_t> bhd = *le;
    std::memcpy(bhd.data(), "BHF4", 4);
    std::vector<uint8_t> bdt(0x30, 0);
    std::memcpy(bdt.data(), "BDF4", 4);
    bdt[0x0A] = 1;
    bdt[0x10] = 0x30;
    std::memcpy(bdt.data() + 0x18, "07D7R6", 6);
    bdt.resize(le->size(), 0xEE);  // same offsets as the BND4 layout
    auto x = bnd::read_bxf4(bhd, std::span(le->data(), le->size()));
    CHECK_FALSE(x);  // the data file must start with BDF4
    std::memcpy(bdt.data() + (le->size() - 5), d0, 3);
    std::memcpy(bdt.data() + (le->size() - 2), d1, 2);
    auto x2 = bnd::read_bxf4(bhd, bdt);
    REQUIRE_MESSAGE(x2, x2.error().to_string());
    CHECK(x2->is_bxf);
    CHECK(x2->bdt_version == "07D7R6");
    CHECK(x2->bdt_header_size == 0x30);
}

TEST_CASE("bnd4: compressed members unwrap through DCX") {
    auto b = small_binder();
    const uint8_t text[] = "hello hello hello hello";
    auto z = dcx::compress(Bytes(text, sizeof text), {});
    REQUIRE(z);
    b.entries[0].flags = 0x40 | 0x80;  // raw byte: bit-reversed bit 0 = compressed
    b.entries[0].uncompressed_size = sizeof text;
    auto bytes = bnd::write_bnd4(b, {Bytes(*z), Bytes(text, 5)});
    REQUIRE(bytes);
    auto r = bnd::read_bnd4(*bytes);
    REQUIRE(r);
    CHECK(r->entries[0].compressed(false));
    auto out = bnd::entry_bytes(*r, r->entries[0]);
    REQUIRE(out);
    CHECK(std::memcmp(out->data(), text, sizeof text) == 0);
    auto plain = bnd::entry_bytes(*r, r->entries[1]);
    REQUIRE(plain);
    CHECK(plain->size() == 5);
    // Flagged compressed but holding neither DCX nor zlib.
    auto bad = bnd::write_bnd4(b, {Bytes(text, 5), Bytes(text, 5)});
    auto rb = bnd::read_bnd4(*bad);
    REQUIRE(rb);
    auto e = bnd::entry_bytes(*rb, rb->entries[0]);
    REQUIRE_FALSE(e);
    CHECK(e.error().reason == "member is flagged compressed but is neither DCX nor zlib");
}

TEST_CASE("bnd4: truncation at every length fails cleanly with an offset") {
    const uint8_t d0[] = {1, 2, 3, 4, 5, 6, 7}, d1[] = {8, 9};
    auto bytes = bnd::write_bnd4(small_binder(), {Bytes(d0), Bytes(d1)});
    REQUIRE(bytes);
    for (size_t n = 0; n < bytes->size(); ++n) {
        auto r = bnd::read_bnd4(std::span(bytes->data(), n));
        REQUIRE_FALSE(r);
        CHECK(r.error().has_offset);
        CHECK(r.error().offset <= n);
    }
    CHECK(bnd::read_bnd4(*bytes));
}

TEST_CASE("bnd4: one test per error message") {
    const uint8_t d0[] = {1, 2, 3}, d1[] = {4, 5};
    auto good = *bnd::write_bnd4(small_binder(), {Bytes(d0), Bytes(d1)});
    auto e = [](std::vector<uint8_t> v) {
        auto r = bnd::read_bnd4(v);
        return r ? std::string("(ok)") : r.error().to_string();
    };
    auto with = [&](size_t at, std::initializer_list<uint8_t> bytes) {
        auto v = good;
        size_t i = at;
        for (uint8_t b : bytes) v[i++] = b;
        return v;
    };
    CHECK(e(with(0, {'B', 'N', 'D', '3'})) == "@0x0 bnd4.magic: bad magic: expected \"BND4\", found \"BND3\"");
    CHECK(e(with(0x0C, {0xFF, 0xFF, 0xFF, 0xFF})) == "@0xC bnd4.file_count: negative file count -1");
    CHECK(e(with(0x0C, {0xFF, 0xFF, 0xFF, 0x0F})) == "@0x40 bnd4.file_count: 268435455 x 36 B exceeds 258 B left");
    CHECK(e(with(0x10, {0x30})) == "@0x10 bnd4.header_size: expected 0x40, found 0x30");
    CHECK(e(with(0x20, {0x20})) == "@0x20 bnd4.file_header_size: format 0x2E implies 0x24, header says 0x20");
    CHECK(e(with(0x32, {3})) == "@0x32 bnd4.extended: unknown value 0x3 (known: 0, 1, 4, 0x80)");
    CHECK(e(with(0x44, {0})) == "@0x44 bnd4.file.minus_one: expected 0xFFFFFFFF, found 0xFFFFFF00");
    CHECK(e(with(0x40 + 0x20, {0xF0, 0xFF, 0, 0})) == "@0xFFF0 bnd4.file.name: string offset 0xFFF0 is past the end");
    CHECK(e(with(0x40 + 0x18, {0xF0, 0xFF, 0, 0})) == "@0x0 bnd4.file[0].data: range 0xFFF0+0x3 is outside 0x0..0x142");
    {
        // A name that runs to the end of the file without its terminator.
        auto v = good;
        uint32_t name_off = uint32_t(v.size() - 2);
        std::memcpy(v.data() + 0x40 + 0x20, &name_off, 4);
        v[v.size() - 1] = 0x41, v[v.size() - 2] = 0x41;
        CHECK(e(v) == "@0x140 bnd4.file.name: unterminated UTF-16 string");
    }
    {
        auto r = bnd::write_bnd4(small_binder(), {Bytes(d0)});
        REQUIRE_FALSE(r);
        CHECK(r.error().to_string() == "write_bnd4: 1 payloads for 2 entries");
        auto b = small_binder();
        b.is_bxf = true;
        r = bnd::write_bnd4(b, {Bytes(d0), Bytes(d1)});
        REQUIRE_FALSE(r);
        CHECK(r.error().to_string() == "write_bnd4: BXF4 binders are written as two files; not supported here");
    }
    {
        auto bad = bnd::read_bxf4(good, good);
        REQUIRE_FALSE(bad);
        CHECK(bad.error().to_string() == "(.bdt) @0x0 bdf4.magic: bad magic: expected \"BDF4\", found \"BND4\"");
    }
}
