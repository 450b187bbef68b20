// TAE reader: hand-made fixtures, every truncation, each error, the whole-id rule that puts
// events on clips, every corpus TAE, and events in the glTF that drape convert writes.
#include <doctest/doctest.h>

#include <cstdint>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "corpus.h"
#include "drape/anim/anibnd.h"
#include "drape/bnd/bnd4.h"
#include "drape/convert/convert.h"
#include "drape/exporters/animation_glb.h"
#include "drape/dcx/dcx.h"
#include "drape/game/containers.h"
#include "drape/io/file.h"
#include "drape/tae/tae.h"
#include "external.h"
#include "game_fixtures.h"
#include "run.h"
#include "sample_game.h"
#include "tae_fixture.h"

using namespace drape;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

void require_corpus() {
    REQUIRE_MESSAGE(fs::exists(test::corpus("er/game/chr/c5000.anibnd.dcx")), "no corpus at " << test::corpus_dir().string());
}

std::vector<uint8_t> params16(std::initializer_list<uint8_t> head) {
    std::vector<uint8_t> p(head);
    p.resize(16, 0);
    return p;
}

Result<tae::Tae> read_patched(std::vector<uint8_t> bytes, size_t at, const void* value, size_t n) {
    std::memcpy(bytes.data() + at, value, n);
    return tae::read_tae(bytes);
}

uint64_t u64_at(const std::vector<uint8_t>& b, size_t at) {
    uint64_t v = 0;
    std::memcpy(&v, b.data() + at, 8);
    return v;
}

json glb_json(const std::vector<uint8_t>& glb) {
    REQUIRE(glb.size() > 20);
    uint32_t len = 0;
    std::memcpy(&len, glb.data() + 12, 4);
    REQUIRE(20 + size_t(len) <= glb.size());
    return json::parse(glb.begin() + 20, glb.begin() + 20 + len);
}

}  // namespace

TEST_CASE("tae: a fixture reads back as written") {
    auto spec = test::small_tae_spec();
    spec.entries[0].events[2].params = params16({0xDE, 0xAD, 0xBE, 0xEF, 1, 2, 3, 4});
    const auto bytes = test::make_tae(spec);
    auto t = tae::read_tae(bytes);
    REQUIRE_MESSAGE(t, t.error().to_string());
    CHECK(t->id == spec.id);
    CHECK(t->version == 0x1000D);
    CHECK(t->game() == tae::Game::elden_ring);
    CHECK(t->skeleton_name == "c9999.hkt");
    CHECK(t->sib_name == "c9999.sib");
    REQUIRE(t->entries.size() == 2);
    const auto& a = t->entries[0];
    CHECK(a.id == 3000);
    CHECK(a.file_kind == 0);
    CHECK(a.file_name == "a000_003000.hkt");
    CHECK_FALSE(a.borrows_motion());
    REQUIRE(a.events.size() == 3);
    for (size_t i = 0; i < 3; ++i) {
        CHECK(a.events[i].type == spec.entries[0].events[i].type);
        CHECK(a.events[i].start == spec.entries[0].events[i].start);
        CHECK(a.events[i].end == spec.entries[0].events[i].end);
        CHECK_MESSAGE(a.events[i].params == spec.entries[0].events[i].params, i << " " << a.events[i].params.size());
    }
    // An unknown type keeps its type and bytes.
    CHECK(a.events[2].type == 9999);
    CHECK(std::string(tae::event_name(9999)).empty());
    REQUIRE(a.groups.size() == 2);
    CHECK(a.groups[1].type == 16);
    CHECK(a.groups[1].events == std::vector<uint32_t>{1});
    CHECK(a.events[0].group == 0);
    CHECK(a.events[1].group == 1);
    CHECK(a.events[2].group == -1);
    const auto& b = t->entries[1];
    CHECK(b.file_kind == 1);
    CHECK(b.source_id == 3000);
    CHECK(b.borrows_motion());
    CHECK(b.events.empty());

    const auto clips = tae::clip_events(*t, 0);
    REQUIRE(clips.size() == 2);
    CHECK(clips[0].clip == "a000_003000");
    CHECK(clips[0].events[0].name == "ChrActionFlag");
    CHECK(clips[0].events[0].group == 0);
    CHECK(clips[0].events[1].group == 16);
    CHECK(clips[0].events[2].group == -1);
    CHECK(clips[0].events[2].name.empty());
    CHECK(clips[1].clip == "a000_003001");
    CHECK(clips[1].motion_from == "a000_003000");
}

TEST_CASE("tae: kind 0 entries borrow motion only with the imports flag and a source") {
    test::TaeSpec spec;
    test::TaeEntrySpec land;
    land.id = 4290;
    land.file_name = "a000_004290.hkt";
    land.imports_motion = true;
    land.source_id = 4200;
    test::TaeEntrySpec plain;
    plain.id = 4291;
    plain.source_id = 4200;  // a source id without the flag borrows nothing
    spec.entries = {land, plain};
    auto t = tae::read_tae(test::make_tae(spec));
    REQUIRE(t);
    CHECK(t->entries[0].borrows_motion());
    CHECK_FALSE(t->entries[1].borrows_motion());
    const auto c = tae::clip_events(*t, 0);
    CHECK(c[0].motion_from == "a000_004200");
    CHECK(c[1].motion_from.empty());
}

TEST_CASE("tae: every truncation of the fixture is refused") {
    const auto bytes = test::make_tae(test::small_tae_spec());
    REQUIRE(tae::read_tae(bytes));
    for (size_t n = 0; n < bytes.size(); ++n) {
        auto r = tae::read_tae(Bytes(bytes.data(), n));
        REQUIRE_FALSE_MESSAGE(r, "prefix " << n);
        CHECK(r.error().offset <= bytes.size());
    }
}

TEST_CASE("tae: errors") {
    const auto good = test::make_tae(test::small_tae_spec());
    auto expect = [](const Result<tae::Tae>& r, const std::string& field, const std::string& reason_part) {
        REQUIRE_FALSE(r);
        CHECK(r.error().field == field);
        CHECK_MESSAGE(r.error().reason.find(reason_part) != std::string::npos, r.error().to_string());
    };
    SUBCASE("magic") {
        auto b = good;
        b[0] = 'X';
        expect(tae::read_tae(b), "tae.magic", "");
    }
    SUBCASE("big endian") {
        const uint8_t one = 1;
        expect(read_patched(good, 4, &one, 1), "tae.big_endian", "big-endian");
    }
    SUBCASE("not 64-bit") {
        const uint8_t zero = 0;
        expect(read_patched(good, 7, &zero, 1), "tae.offset_width", "not a 64-bit TAE");
    }
    SUBCASE("version") {
        const uint32_t v = 0x1000B;
        expect(read_patched(good, 8, &v, 4), "tae.version", "none of 0x1000C");
    }
    SUBCASE("file size") {
        const uint32_t v = uint32_t(good.size() + 1);
        expect(read_patched(good, 12, &v, 4), "tae.file_size", "B present");
    }
    SUBCASE("negative entry count") {
        const int32_t v = -1;
        expect(read_patched(good, 0x54, &v, 4), "tae.entry_count", "negative count");
    }
    SUBCASE("entry table past the end") {
        const uint64_t v = good.size() - 8;
        expect(read_patched(good, 0x58, &v, 8), "tae.entries", "runs past the end");
    }
    const uint64_t entries = u64_at(good, 0x58);
    const uint64_t body = u64_at(good, size_t(entries) + 8);
    SUBCASE("negative event count") {
        const int32_t v = -2;
        expect(read_patched(good, size_t(body) + 0x20, &v, 4), "tae.entry.event_count", "negative count");
    }
    SUBCASE("negative group count") {
        const int32_t v = -2;
        expect(read_patched(good, size_t(body) + 0x24, &v, 4), "tae.entry.group_count", "negative count");
    }
    SUBCASE("entries claiming more headers than the file holds") {
        const int32_t v = int32_t(good.size() / 24 + 1);
        auto r = read_patched(good, size_t(body) + 0x20, &v, 4);
        expect(r, "tae.entry.event_count", "claim");
    }
    const uint64_t headers = u64_at(good, size_t(body));
    SUBCASE("event data past the end") {
        const uint64_t v = good.size() - 4;
        expect(read_patched(good, size_t(headers) + 16, &v, 8), "tae.event.data_offset", "runs past the end");
    }
    SUBCASE("parameter offset past the end") {
        const uint64_t data = u64_at(good, size_t(headers) + 16);
        const uint64_t v = good.size() + 1;
        expect(read_patched(good, size_t(data) + 8, &v, 8), "tae.event.params_offset", "past the end");
    }
    SUBCASE("parameters longer than the cap") {
        // An event's parameters moved into the long skeleton name: the next structure the file
        // points at is the sib name, 1,400 bytes on, more than k_max_param_bytes.
        auto spec = test::small_tae_spec();
        spec.skeleton_name = std::string(700, 'k');
        const auto big = test::make_tae(spec);
        const uint64_t e2 = u64_at(big, 0x58);
        const uint64_t b2 = u64_at(big, size_t(e2) + 8);
        const uint64_t h2 = u64_at(big, size_t(b2));
        const uint64_t data = u64_at(big, size_t(h2) + 16);
        const uint64_t v = 0xD2;  // the name starts at 0xD0, after the header
        expect(read_patched(big, size_t(data) + 8, &v, 8), "tae.event.params", "more than 1024");
    }
    SUBCASE("group member that is no event header") {
        const uint64_t groups = u64_at(good, size_t(body) + 8);
        const uint64_t list = u64_at(good, size_t(groups) + 8);
        const int32_t v = int32_t(headers + 4);
        expect(read_patched(good, size_t(list), &v, 4), "tae.group.member", "no event header");
    }
    SUBCASE("group member list past the end") {
        const uint64_t groups = u64_at(good, size_t(body) + 8);
        const uint64_t v = good.size() / 4 + 1;
        expect(read_patched(good, size_t(groups), &v, 8), "tae.group.member_count", "");
    }
    SUBCASE("file block past the end") {
        const uint64_t v = good.size() - 8;
        expect(read_patched(good, size_t(body) + 0x18, &v, 8), "tae.entry.file_offset", "runs past the end");
    }
}

TEST_CASE("tae: the category of a TAE and whole clip ids") {
    CHECK(tae::category_of("N:\\FDP\\data\\INTERROOT_win64\\chr\\c0000\\tae\\a02.tae", 2002) == 2);
    CHECK(tae::category_of("a316.tae", 2316) == 316);
    CHECK(tae::category_of("A234.TAE", -1) == 234);
    CHECK(tae::category_of("a23.tae", -1) == 23);
    CHECK(tae::category_of("c2080.tae", 202080) == 0);
    CHECK(tae::category_of("whatever.bin", 4050) == 50);
    CHECK(tae::category_of("whatever.bin", 203000) == 0);
    CHECK(tae::category_of("whatever.bin", 12) == -1);
    CHECK(tae::whole_id(23, 30000) == 23030000);
    // An entry id is any 64-bit number in a file: a sum that does not fit is no id.
    CHECK(tae::whole_id(234, INT64_MAX - 1000) == -1);
    CHECK(tae::whole_id(-3, INT64_MIN + 1000) == -1);
    CHECK(tae::whole_id(0, INT64_MAX) == INT64_MAX);
    CHECK(tae::whole_id(234, INT64_MAX - 234000000) == INT64_MAX);
    CHECK(tae::clip_name(23030000) == "a023_030000");
    CHECK(tae::clip_name(5043000) == "a005_043000");
    CHECK(tae::clip_name(-1).empty());
    CHECK(tae::clip_name(1000000000).empty());
}

TEST_CASE("tae: the name table says which games it knows each name for") {
    size_t ds3 = 0;
    for (const auto& n : tae::event_names()) {
        CHECK(std::string(n.name).size() > 0);
        ds3 += (n.games & (1u << uint8_t(tae::Game::ds3))) != 0;
        CHECK(std::string(tae::event_name(n.type)) == n.name);
    }
    CHECK(ds3 == tae::event_names().size());  // every row comes from the DS3 study
    CHECK(std::string(tae::event_name(0, tae::Game::elden_ring)) == "ChrActionFlag");
    CHECK(std::string(tae::event_name(96, tae::Game::elden_ring)).empty());  // SpawnOneShotFFX: DS3 only
    CHECK(std::string(tae::event_name(96, tae::Game::ds3)) == "SpawnOneShotFFX");
}

// The bug docs/animation.md#events records: TAEs matched to clips by the first two digits put a234.tae's events on the
// Longsword's a023_* clips. Here a binder holds a23.tae and a234.tae, each with entry 100, and
// clips a023_000100 and a234_000100: each TAE's events land on its own clip only.
TEST_CASE("tae: events land on the clips of their own category only") {
    auto base = test::sample_game_files();
    REQUIRE(base);
    std::vector<uint8_t> anibnd;
    for (auto& [path, bytes] : *base)
        if (path == "chr/c9999.anibnd.dcx") anibnd = bytes;
    REQUIRE_FALSE(anibnd.empty());
    auto plain = dcx::decompress(anibnd, {});
    REQUIRE(plain);
    auto bnd = bnd::read_bnd4(*plain);
    REQUIRE(bnd);
    std::vector<test::NamedBytes> members;
    std::vector<uint8_t> clip;
    for (const auto& e : bnd->entries) {
        auto b = bnd::entry_bytes(*bnd, e);
        REQUIRE(b);
        if (e.name.find("a000_002000") != std::string::npos) clip = *b;
        members.push_back({e.name, *b});
    }
    REQUIRE_FALSE(clip.empty());
    members.push_back({"N:\\GR\\data\\INTERROOT_win64\\chr\\c9999\\hkx\\a023_000100.hkx", clip});
    members.push_back({"N:\\GR\\data\\INTERROOT_win64\\chr\\c9999\\hkx\\a234_000100.hkx", clip});
    members.push_back({"N:\\GR\\data\\INTERROOT_win64\\chr\\c9999\\hkx\\a234_000101.hkx", clip});
    auto tae_of = [](int32_t id, uint32_t type) {
        test::TaeSpec s;
        s.id = id;
        test::TaeEntrySpec e;
        e.id = 100;
        e.events.push_back({type, 0.1f, 0.2f, params16({uint8_t(type)})});
        test::TaeEntrySpec borrow;
        borrow.id = 101;
        borrow.file_kind = 1;
        borrow.source_id = tae::whole_id(id % 1000, 100) > 0 ? int32_t(tae::whole_id(id % 1000, 100)) : 100;
        s.entries = {e, borrow};
        return test::make_tae(s);
    };
    members.push_back({"N:\\GR\\data\\INTERROOT_win64\\chr\\c9999\\tae\\a23.tae", tae_of(5023, 23)});
    members.push_back({"N:\\GR\\data\\INTERROOT_win64\\chr\\c9999\\tae\\a234.tae", tae_of(5234, 234)});
    const auto binder = test::make_bnd4(members);
    auto set = anim::read_clip_set(binder, "c9999.anibnd");
    REQUIRE(set);
    CHECK(set->failures.empty());
    REQUIRE(set->taes.size() == 2);
    CHECK(set->taes[0].category == 23);
    CHECK(set->taes[1].category == 234);
    std::map<std::string, const anim::Clip*> by;
    for (const auto& c : set->clips) by[c.name] = &c;
    REQUIRE(by.count("a023_000100"));
    REQUIRE(by.count("a234_000100"));
    REQUIRE(by.count("a234_000101"));
    REQUIRE(by.count("a000_002000"));
    REQUIRE(by["a023_000100"]->events.size() == 1);
    CHECK(by["a023_000100"]->events[0].type == 23);
    REQUIRE(by["a234_000100"]->events.size() == 1);
    CHECK(by["a234_000100"]->events[0].type == 234);
    CHECK(by["a234_000101"]->motion_from == "a234_000100");
    CHECK(by["a000_002000"]->events.empty());
    CHECK(set->clips_with_events == 2);

    // Through the exporter: each glTF animation carries its own events.
    ::drape::havok::Skeleton skel = set->skeletons.at(0);
    std::vector<anim::Clip> clips(set->clips.begin(), set->clips.end());
    auto glb = exporters::animation_glb(skel, clips);
    REQUIRE(glb);
    const json doc = glb_json(*glb);
    size_t seen = 0;
    for (const auto& a : doc["animations"]) {
        const std::string name = a["name"];
        if (name == "a023_000100" || name == "a234_000100") {
            ++seen;
            REQUIRE(a["extras"]["events"].size() == 1);
            const auto& e = a["extras"]["events"][0];
            CHECK(e["type"] == (name == "a023_000100" ? 23 : 234));
            CHECK(e["group"] == -1);
            CHECK(e["name"] == "");
            CHECK(e["start"].get<double>() == doctest::Approx(0.1));
            CHECK(e["params"].get<std::string>().substr(0, 2) == (name == "a023_000100" ? "17" : "ea"));
        } else if (name == "a234_000101") {
            ++seen;
            CHECK(a["extras"]["motion_from"] == "a234_000100");
        } else {
            CHECK_FALSE(a.contains("extras"));
        }
    }
    CHECK(seen == 3);
}

// Every TAE member of the corpus binders reads; the number of TAE members per binder is the
// manifest's (an independent listing).
TEST_CASE("tae: every corpus TAE reads" * doctest::test_suite("corpus")) {
    require_corpus();
    const std::map<std::string, size_t> expected = {
        {"ds3/c0000.anibnd.dcx", 3},    {"ds3/c2080.anibnd.dcx", 1},      {"sekiro/c0000.anibnd.dcx", 13},
        {"sekiro/c1140.anibnd.dcx", 1}, {"er/c3000.anibnd.dcx", 1},       {"er/game/chr/c5000.anibnd.dcx", 1},
        {"er/game/chr/c2030.anibnd.dcx", 1},
    };
    size_t files = 0, taes = 0, entries = 0, events = 0;
    for (const auto& fc : expected) {
        const std::string file = fc.first;
        const size_t count = fc.second;
        auto members = game::open_members(test::corpus(file), file, {});
        REQUIRE_MESSAGE(members, members.error().to_string());
        size_t here = 0;
        for (const auto& m : *members) {
            if (!tae::is_tae(m.bytes)) continue;
            ++here;
            auto t = tae::read_tae(m.bytes);
            REQUIRE_MESSAGE(t, t.error().to_string());
            const int32_t category = tae::category_of(m.name, t->id);
            CHECK(category >= 0);
            CHECK(t->game() != tae::Game::unknown);
            CHECK(t->entries.size() > 0);
            CHECK(t->event_count() > 0);
            // The category rule agrees with the clip file each standard entry names.
            size_t named = 0, agree = 0;
            for (const auto& e : t->entries) {
                if (e.file_kind != 0 || e.file_name.size() < 11) continue;
                ++named;
                agree += e.file_name.substr(0, 11) == tae::clip_name(tae::whole_id(category, e.id));
            }
            MESSAGE(m.name << ": id " << t->id << ", category " << category << ", " << t->entries.size() << " entries, "
                           << t->event_count() << " events, " << agree << " of " << named << " named clips agree");
            entries += t->entries.size();
            events += t->event_count();
        }
        CHECK_MESSAGE(here == count, file);
        taes += here;
        ++files;
    }
    CHECK(files == 7);
    CHECK(taes == 21);
    CHECK(entries > 0);
    CHECK(events > 0);
}

// The clip-naming rule checked against the file names the entries store, on every corpus TAE:
// a standard entry names `aXXX_YYYYYY.hkt`; XXX_YYYYYY is the whole id (borrowing entries of
// character TAEs may name another clip's file, so only most need to agree).
TEST_CASE("tae: whole ids agree with the clip files the corpus entries name" * doctest::test_suite("corpus")) {
    require_corpus();
    size_t named = 0, agree = 0;
    for (const char* file : {"ds3/c0000.anibnd.dcx", "ds3/c2080.anibnd.dcx", "sekiro/c0000.anibnd.dcx", "sekiro/c1140.anibnd.dcx",
                             "er/c3000.anibnd.dcx"}) {
        auto members = game::open_members(test::corpus(file), file, {});
        REQUIRE(members);
        for (const auto& m : *members) {
            if (!tae::is_tae(m.bytes)) continue;
            auto t = tae::read_tae(m.bytes);
            REQUIRE(t);
            const int32_t category = tae::category_of(m.name, t->id);
            for (const auto& e : t->entries) {
                if (e.file_kind != 0 || e.borrows_motion() || e.file_name.size() < 11) continue;
                ++named;
                agree += e.file_name.substr(0, 11) == tae::clip_name(tae::whole_id(category, e.id));
            }
        }
    }
    MESSAGE(agree << " of " << named << " standard entries name the clip of their whole id");
    REQUIRE(named > 0);
    CHECK(agree * 100 >= named * 95);
}

TEST_CASE("tae: convert of Elden Ring c5000 carries events in its animations" * doctest::test_suite("corpus+external")) {
    require_corpus();
    const fs::path out = test::scratch_dir("tae_convert_c5000");
    convert::Options o;
    o.only = {"c5000"};
    o.jobs = 2;
    o.textures = false;
    o.cloth = false;
    const auto report = convert::convert_folder(test::corpus("er/game"), out, o);
    REQUIRE(report.items.size() >= 1);
    fs::path glb;
    for (const auto& it : report.items) {
        CHECK_MESSAGE(it.ok, it.error);
        for (const auto& p : fs::recursive_directory_iterator(out))
            if (p.path().filename() == "c5000.glb") glb = p.path();
    }
    REQUIRE_MESSAGE(!glb.empty(), "no c5000.glb under " << out.string());
    const json doc = glb_json(test::load(glb));
    REQUIRE(doc.contains("animations"));
    size_t with_events = 0, events = 0, named = 0, borrowing = 0;
    for (const auto& a : doc["animations"]) {
        if (!a.contains("extras")) continue;
        if (a["extras"].contains("motion_from")) ++borrowing;
        if (!a["extras"].contains("events")) continue;
        ++with_events;
        for (const auto& e : a["extras"]["events"]) {
            ++events;
            named += !e["name"].get<std::string>().empty();
            CHECK(e["type"].is_number_unsigned());
            CHECK(e["start"].is_number());
            CHECK(e["group"].is_number_integer());
            CHECK(e["params"].get<std::string>().size() % 2 == 0);
        }
    }
    MESSAGE(doc["animations"].size() << " animations, " << with_events << " with events (" << events << " events, " << named
                                     << " named), " << borrowing << " borrowing motion");
    CHECK(with_events > 0);
    CHECK(events > 0);
    CHECK(named > 0);
    const json v = test::validate_gltf(glb);
    if (v.value("errors", -1) == -1) {
        MESSAGE("glTF validator not run: " << v.dump());
    } else {
        CHECK_MESSAGE(v["errors"] == 0, v.dump());
    }
}

TEST_CASE("tae: inspect --json prints a TAE member's events" * doctest::test_suite("corpus")) {
    require_corpus();
    const auto r = test::run("'" + test::drape_exe() + "' inspect --json '" + test::corpus("er/game/chr/c2030.anibnd.dcx").string() + "'");
    REQUIRE_MESSAGE(r.exit_code == 0, r.out);
    const json doc = json::parse(r.out.substr(0, r.out.rfind('}') + 1));
    size_t taes = 0, events = 0;
    std::function<void(const json&)> walk = [&](const json& n) {
        if (n.contains("tae")) {
            ++taes;
            for (const auto& e : n["tae"]["entries"]) events += e["events"].size();
            CHECK(n["tae"]["event_count"].get<size_t>() == events);
        }
        if (n.contains("children"))
            for (const auto& c : n["children"]) walk(c);
    };
    walk(doc);
    CHECK(taes == 1);
    CHECK(events > 0);
}

// The player's TAEs sit in c0000.anibnd.dcx and its clips in the binders beside it: attaching over
// the merged lists puts the events on clips of another binder, by the same whole-id rule.
TEST_CASE("tae: events attach to clips read from another binder") {
    test::TaeSpec spec;
    spec.id = 2023;
    test::TaeEntrySpec e;
    e.id = 30000;
    e.events.push_back({0, 0.0f, 1.0f, params16({7})});
    spec.entries = {e};
    auto t = tae::read_tae(test::make_tae(spec));
    REQUIRE(t);
    std::vector<anim::TaeMember> taes = {{"N:\\chr\\c0000\\tae\\a23.tae", 23, *t}};
    std::vector<anim::Clip> clips(3);
    clips[0].name = "a023_030000";
    clips[1].name = "a002_030000";  // the first two digits of a23 / a234: never a match
    clips[2].name = "a234_030000";
    CHECK(anim::attach_events(clips, taes) == 1);
    CHECK(clips[0].events.size() == 1);
    CHECK(clips[1].events.empty());
    CHECK(clips[2].events.empty());
}
