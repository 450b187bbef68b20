// Havok readers: every corpus hkx loads; skeletons equal the peers' readings; error paths.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "corpus.h"
#include "drape/havok/animation.h"
#include "drape/havok/hkx.h"
#include "havok_corpus.h"

using namespace drape;
using namespace drape::havok;

namespace {

nlohmann::json peer(const std::string& relative) {
    std::ifstream in(test::reference_dir() / "peer" / "soulstruct" / (relative + ".json"));
    REQUIRE(in.good());
    return nlohmann::json::parse(in);
}

// The peer's skeleton list for a member (binder) or the file (loose).
nlohmann::json peer_skeletons(const nlohmann::json& j, const std::string& member) {
    if (member.empty()) return j.at("havok").at("skeletons");
    return j.at("members").at(member).at("havok").at("skeletons");
}

void check_skeleton_against_peer(const Skeleton& s, const nlohmann::json& p) {
    REQUIRE(s.bone_names.size() == p.at("bone_count").get<size_t>());
    for (size_t i = 0; i < s.bone_names.size(); ++i) {
        CHECK(s.bone_names[i] == p["bone_names"][i].get<std::string>());
        CHECK(s.parents[i] == p["parent_indices"][i].get<int>());
        const auto& rp = p["reference_pose"][i];
        for (int k = 0; k < 3; ++k) {
            CHECK(s.reference_pose[i].translation[k] == doctest::Approx(rp["translation"][k].get<double>()).epsilon(1e-6));
            CHECK(s.reference_pose[i].scale[k] == doctest::Approx(rp["scale"][k].get<double>()).epsilon(1e-6));
        }
        for (int k = 0; k < 4; ++k) CHECK(s.reference_pose[i].rotation[k] == doctest::Approx(rp["rotation_xyzw"][k].get<double>()).epsilon(1e-6));
    }
    CHECK(s.reference_floats.size() == p.at("reference_float_count").get<size_t>());
}

void check_peer_skeleton(const std::string& relative, const std::string& member_suffix) {
    CAPTURE(relative);
    auto f = test::load_hkx(relative, member_suffix);
    REQUIRE_MESSAGE(f, (f ? "" : f.error().to_string()));
    auto c = read_animation_container(*f);
    REQUIRE_MESSAGE(c, (c ? "" : c.error().to_string()));
    REQUIRE(c->skeletons.size() == 1);
    const nlohmann::json j = peer(relative);
    std::string member;
    if (j.contains("members"))
        for (auto it = j["members"].begin(); it != j["members"].end(); ++it)
            if (it.key().size() >= member_suffix.size() && it.key().compare(it.key().size() - member_suffix.size(), member_suffix.size(), member_suffix) == 0)
                member = it.key();
    const auto ps = peer_skeletons(j, member);
    REQUIRE(ps.size() == 1);
    check_skeleton_against_peer(c->skeletons[0], ps[0]);
}

std::vector<uint8_t> member_bytes(const std::string& relative, const std::string& suffix) {
    for (auto& m : test::hkx_members(relative))
        if (m.name.size() >= suffix.size() && m.name.compare(m.name.size() - suffix.size(), suffix.size(), suffix) == 0) return m.bytes;
    FAIL("member " << suffix << " not found in " << relative);
    return {};
}

}  // namespace

TEST_CASE("havok: every Havok file of the corpus loads, loose or in binders, compendiums resolved" * doctest::test_suite("corpus")) {
    const auto files = test::corpus_hkx_files();
    REQUIRE(files.size() >= 14);
    size_t loaded = 0, with_tcrf = 0;
    for (const auto& rel : files) {
        const auto members = test::hkx_members(rel);
        CAPTURE(rel);
        CHECK(!members.empty());
        std::vector<Bytes> sib;
        for (const auto& m : members) sib.emplace_back(m.bytes);
        CompendiumSet set;
        REQUIRE(set.add_siblings(sib));
        for (const auto& m : members) {
            if (is_compendium(m.bytes)) continue;
            CAPTURE(m.name);
            auto f = read_hkx(m.bytes, set.lookup());
            CHECK_MESSAGE(f, (f ? "" : f.error().to_string()));
            if (!f) continue;
            ++loaded;
            if (f->compendium_id) ++with_tcrf;
            CHECK(f->root != 0);
            CHECK(f->class_name(f->root) == "hkRootLevelContainer");
            auto c = read_animation_container(*f);
            CHECK_MESSAGE(c, (c ? "" : c.error().to_string()));
        }
    }
    // MANIFEST: sekiro c1140 (4 tagfiles) + WP_A_2300 (2) + ER WP_A_0550_1 (10) + ER c5000.anibnd (67)
    // + ER c2030.anibnd (31) use compendiums.
    CHECK(with_tcrf == 114);
    CHECK(loaded >= 30);
}

TEST_CASE("havok: skeletons equal the peer's reading (DS3, BB, ER, Havok demo)" * doctest::test_suite("corpus")) {
    check_peer_skeleton("bb/skeleton.HKX", "");
    check_peer_skeleton("ds3/c0000.anibnd.dcx", "Skeleton.HKX");
    check_peer_skeleton("ds3/c2080.anibnd.dcx", "skeleton.HKX");
    check_peer_skeleton("er/c3000.anibnd.dcx", "Skeleton.HKX");
    check_peer_skeleton("er/WP_A_0550_1.anibnd", "skeleton_1.hkx");
    check_peer_skeleton("havok-demo/allosaur_skeleton_x64.hkx", "");
}

TEST_CASE("havok: Sekiro skeletons (no peer reads them) are well formed" * doctest::test_suite("corpus")) {
    // The peer fails on Sekiro (hkPropertyBag). Checked here: names present and unique, every
    // parent precedes its child, unit rotations, unit scales, and the names the skeleton of the
    // player and the weapon are known to start with.
    struct Case {
        const char* file;
        const char* member;
        const char* first_bone;
    } cases[] = {{"sekiro/c0000.anibnd.dcx", "skeleton.hkx", "Master"},
                 {"sekiro/c1140.anibnd.dcx", "skeleton.hkx", "Master"},
                 {"sekiro/WP_A_2300.anibnd", "Skeleton.HKX", nullptr}};
    for (const auto& cs : cases) {
        CAPTURE(cs.file);
        auto f = test::load_hkx(cs.file, cs.member);
        REQUIRE_MESSAGE(f, (f ? "" : f.error().to_string()));
        CHECK(f->sdk == "20160200");
        auto c = read_animation_container(*f);
        REQUIRE(c);
        REQUIRE(c->skeletons.size() == 1);
        const Skeleton& s = c->skeletons[0];
        REQUIRE(!s.bone_names.empty());
        if (cs.first_bone) CHECK(s.bone_names[0] == cs.first_bone);
        CHECK(s.reference_pose.size() == s.bone_names.size());
        for (size_t i = 0; i < s.bone_names.size(); ++i) {
            CHECK(!s.bone_names[i].empty());
            CHECK(s.parents[i] < int(i));
            const auto& q = s.reference_pose[i].rotation;
            CHECK(std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) == doctest::Approx(1.0).epsilon(1e-3));
            CHECK(s.reference_pose[i].scale[0] == doctest::Approx(1.0).epsilon(1e-3));
        }
    }
}

TEST_CASE("havok: a tagfile without its compendium fails with the compendium id" * doctest::test_suite("corpus")) {
    const auto bytes = member_bytes("er/WP_A_0550_1.anibnd", "skeleton_1.hkx");
    auto f = read_hkx(bytes);
    REQUIRE_FALSE(f);
    // TCRF id, LE u64 of fb f4 7e af 39 5f dc 45 (read with xxd)
    CHECK(f.error().reason == "types live in compendium 0x45DC5F39AF7EF4FB, which was not found beside the tagfile");
    CHECK(f.error().field == "TCRF");
    CompendiumSet wrong;
    REQUIRE(wrong.add(member_bytes("sekiro/WP_A_2300.anibnd", "WP_A_2300.compendium")));
    auto g = read_tagfile(bytes, &wrong.compendiums[0]);
    REQUIRE_FALSE(g);
    CHECK(g.error().reason == "compendium 0x45DC5F39AF7EF4FB does not match the one given");
}

TEST_CASE("havok: SDK 2019 is refused with a clear error" * doctest::test_suite("corpus")) {
    auto bytes = member_bytes("er/c3000.anibnd.dcx", "Skeleton.HKX");
    // SDKV payload starts at 0x10 (TAG0 header 8 + SDKV header 8)
    REQUIRE(std::string(bytes.begin() + 0x10, bytes.begin() + 0x18) == "20180100");
    bytes[0x13] = '9';
    auto f = read_tagfile(bytes);
    REQUIRE_FALSE(f);
    CHECK(f.error().reason == "unsupported Havok SDK '20190100' (drape reads 2015, 2016 and 2018 tagfiles)");
}

TEST_CASE("havok: a compendium alone and non-Havok bytes are refused" * doctest::test_suite("corpus")) {
    const auto comp = member_bytes("er/WP_A_0550_1.anibnd", "WP_A_0550_1.compendium");
    auto f = read_hkx(comp);
    REQUIRE_FALSE(f);
    CHECK(f.error().reason == "a type compendium (TCM0) holds no objects; open a tagfile that uses it");
    const uint8_t junk[16] = {1, 2, 3};
    auto g = read_hkx(Bytes(junk, 16));
    REQUIRE_FALSE(g);
    CHECK(g.error().reason == "not a Havok file (no packfile magic, TAG0 or TCM0)");
}

TEST_CASE("havok: packfile of another version or layout is refused" * doctest::test_suite("corpus")) {
    auto bytes = test::load(test::corpus("bb/skeleton.HKX"));
    REQUIRE_MESSAGE(bytes.size() > 0x10, "bb/skeleton.HKX is not in the corpus at " << test::corpus_dir().string());
    auto v = bytes;
    v[0x0C] = 8;
    auto f = read_packfile(v);
    REQUIRE_FALSE(f);
    CHECK(f.error().reason == "unsupported packfile version 8 'hk_2014.1.0-r1' (drape reads hk_2014 packfiles)");
    auto p = bytes;
    p[0x10] = 4;
    auto g = read_packfile(p);
    REQUIRE_FALSE(g);
    CHECK(g.error().reason == "unsupported layout: pointer size 4, little endian 1 (drape reads 64-bit little-endian packfiles)");
}

TEST_CASE("havok: varints round-trip at every length boundary") {
    const uint64_t values[] = {0, 0x7F, 0x80, 0x3FFF, 0x4000, 0x1FFFFF, 0x200000, 0x7FFFFFF, 0x8000000, (1ull << 35) - 1, 1ull << 35,
                               (1ull << 40) - 1, 1ull << 40, (1ull << 59) - 1, 1ull << 59, ~0ull};
    const size_t lengths[] = {1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 8, 8, 9, 9};
    for (size_t i = 0; i < std::size(values); ++i) {
        std::vector<uint8_t> b;
        write_varint(b, values[i]);
        CHECK(b.size() == lengths[i]);
        ByteReader r(b);
        uint64_t v = 0;
        REQUIRE(read_varint(r, v, "v"));
        CHECK(v == values[i]);
        CHECK(r.remaining() == 0);
    }
    // the "C3 00 01" of 2018 member counts is 0x030001 (docs/formats.md#varints)
    const uint8_t c3[] = {0xC3, 0x00, 0x01};
    ByteReader r(c3);
    uint64_t v = 0;
    REQUIRE(read_varint(r, v, "v"));
    CHECK(v == 0x030001);
    const uint8_t bad[] = {0xFA};
    ByteReader rb(bad);
    CHECK_FALSE(read_varint(rb, v, "v"));
    CHECK(rb.error().reason == "bad varint prefix 0xFA");
}

TEST_CASE("havok: truncation at every length fails cleanly (tagfile, compendium, packfile)" * doctest::test_suite("corpus")) {
    const auto tag = member_bytes("er/WP_A_0550_1.anibnd", "skeleton_1.hkx");
    const auto comp = member_bytes("er/WP_A_0550_1.anibnd", "WP_A_0550_1.compendium");
    CompendiumSet set;
    REQUIRE(set.add(comp));
    REQUIRE(read_tagfile(tag, &set.compendiums[0]));
    for (size_t n = 0; n < tag.size(); ++n) {
        auto r = read_tagfile(Bytes(tag.data(), n), &set.compendiums[0]);
        REQUIRE_FALSE(r);
        CHECK(r.error().offset <= n);
    }
    for (size_t n = 0; n < comp.size(); ++n) {
        auto r = read_compendium(Bytes(comp.data(), n));
        REQUIRE_FALSE(r);
        CHECK(r.error().offset <= n);
    }
    const auto pack = test::load(test::corpus("bb/skeleton.HKX"));
    REQUIRE(read_packfile(pack));
    for (size_t n = 0; n < pack.size(); ++n) {
        auto r = read_packfile(Bytes(pack.data(), n));
        REQUIRE_FALSE(r);
        CHECK(r.error().offset <= n);
    }
}
