// hknpRagdollData typed view: every ragdoll of the corpus, a hand-made 2018 tagfile ragdoll
// (tests/support/ragdoll_fixture.cpp), truncation at every length, every error message.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "corpus.h"
#include "drape/exporters/gltf_document.h"
#include "drape/exporters/ragdoll_glb.h"
#include "drape/havok/hkx.h"
#include "drape/havok/ragdoll.h"
#include "havok_corpus.h"
#include "ragdoll_fixture.h"

using namespace drape;
using namespace drape::havok;

namespace {

float from_bits(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

struct CorpusRagdoll {
    const char* file;
    const char* member;  // suffix of the binder member ("" = the file itself)
};

// Every corpus file with an hknpRagdollData (drape inspect lists their classes).
const CorpusRagdoll k_corpus_ragdolls[] = {
    {"bb/c2020.HKX", ""},
    {"ds3/c1400.chrbnd.dcx", "c1400.HKX"},
    {"sekiro/c7190.chrbnd.dcx", "c7190.hkx"},
    {"er/game/chr/c5000.chrbnd.dcx", "c5000.hkx"},
    {"er/game/chr/c2030.chrbnd.dcx", "c2030.hkx"},
    {"er/game/chr/c4361.chrbnd.dcx", "c4361.hkx"},
    {"er/game/chr/c3061.chrbnd.dcx", "c3061.hkx"},
};

}  // namespace

TEST_CASE("hknp ragdoll: every corpus ragdoll reads, one body per declared bodyCinfo" * doctest::test_suite("corpus")) {
    REQUIRE_MESSAGE(std::filesystem::exists(test::corpus("bb/c2020.HKX")), "no corpus at " << test::corpus_dir().string());
    size_t files = 0;
    for (const auto& c : k_corpus_ragdolls) {
        const std::string file = c.file;
        CAPTURE(file);
        auto f = test::load_hkx(c.file, c.member);
        REQUIRE(f);
        auto rs = read_ragdolls(*f);
        REQUIRE_MESSAGE(rs, (rs ? "" : rs.error().to_string()));
        const auto items = f->objects_of("hknpRagdollData");
        REQUIRE(items.size() == 1);
        REQUIRE(rs->size() == 1);
        const Ragdoll& r = rs->front();
        // The declared lengths, through the generic view (not the typed one).
        const Value obj = f->object(items[0]);
        const uint64_t declared = obj["bodyCinfos"].size();
        CHECK(declared > 0);
        REQUIRE(r.bodies.size() == declared);
        REQUIRE(r.declared_bodies == declared);
        REQUIRE(r.constraints.size() == obj["constraintCinfos"].size());
        MESSAGE(file << ": " << r.bodies.size() << " bodies, " << r.constraints.size() << " constraints, skeleton " << r.skeleton);
        size_t mapped = 0, capsules = 0;
        for (const auto& b : r.bodies) {
            CHECK(std::isfinite(b.mass));
            // c2030's Ragdoll_Barrier is a massless sphere of motion type 0 (not simulated).
            CHECK((b.mass > 0 || b.motion_type == 0));
            if (b.bone >= 0) ++mapped;
            if (b.shape.kind != RagdollShapeKind::capsule) continue;
            ++capsules;
            CHECK(b.shape.radius > b.shape.convex_radius);
            // 2016+ files state the capsule radius in a.w: drape's radius (convexRadius plus the
            // polytope's margin) must agree with it.
            if (f->year >= 2016) CHECK(std::fabs(b.shape.radius - b.shape.stated_radius) < 1e-4f);
            else CHECK(b.shape.stated_radius == 0.0f);
        }
        CHECK(capsules > 0);
        CHECK(mapped == r.bodies.size());  // every body of the corpus rides a character bone
        for (const auto& k : r.constraints) {
            CHECK(k.body_a != k.body_b);
            CHECK(k.kind != RagdollConstraintKind::other);
        }
        ++files;
    }
    REQUIRE(files == std::size(k_corpus_ragdolls));
}

TEST_CASE("hknp ragdoll: DS3 c1400 body 0 as read by hand" * doctest::test_suite("corpus")) {
    auto f = test::load_hkx("ds3/c1400.chrbnd.dcx", "c1400.HKX");
    REQUIRE(f);
    auto rs = read_ragdolls(*f);
    REQUIRE(rs);
    REQUIRE(rs->size() == 1);
    const RagdollBody& b = rs->front().bodies.at(0);
    CHECK(b.name == "Ragdoll_Pelvis001");
    // hknpCapsuleShape at 0x49c0 of __data__: convexRadius 1c 82 d0 3d at +20, a.w 0 at +92, the
    // first vertex's y 0c 85 20 bd (-0.0391894) against a.y ac 4e 1c 3d... (0.0381609).
    REQUIRE(b.shape.kind == RagdollShapeKind::capsule);
    CHECK(b.shape.convex_radius == from_bits(0x3dd0821c));
    CHECK(b.shape.stated_radius == 0.0f);
    CHECK(b.shape.radius == doctest::Approx(from_bits(0x3dd0821c) + (from_bits(0x3d208500) - from_bits(0x3d1c4ea2))).epsilon(1e-4));
    // motionCinfo 0: inverseMass cd 0b 14 3e (0.1445665); the shape's mass properties state 6.917234 kg.
    CHECK(b.mass == doctest::Approx(1.0 / 0.1445665).epsilon(1e-5));
    REQUIRE(b.shape.has_mass_properties);
    CHECK(b.shape.shape_mass == doctest::Approx(b.mass).epsilon(1e-5));
    // inverseInertiaLocal x = 14.695: the shape's packed inertia x is its inverse.
    CHECK(b.inertia[0] == doctest::Approx(b.shape.inertia[0]).epsilon(1e-3));
    CHECK(b.dynamic_friction == 1.0f);
    CHECK(b.max_linear_speed == 200.0f);
    CHECK(b.collision_filter_info == 32800u);
}

namespace {

Result<std::vector<Ragdoll>> read_fixture(const std::vector<uint8_t>& bytes) {
    auto f = read_hkx(bytes);
    if (!f) return f.error();
    return read_ragdolls(*f);
}

std::vector<uint8_t> fixture(const test::RagdollFixtureOptions& o = {}) {
    auto b = test::ragdoll_tagfile(o);
    REQUIRE_MESSAGE(b, (b ? "" : b.error().to_string()));
    return *b;
}

std::string fixture_error(const test::RagdollFixtureOptions& o) {
    auto r = read_fixture(fixture(o));
    REQUIRE(!r);
    return r.error().to_string();
}

}  // namespace

TEST_CASE("hknp ragdoll: the hand-made 2018 ragdoll reads back its values") {
    using F = test::RagdollFixtureFacts;
    auto rs = read_fixture(fixture());
    REQUIRE_MESSAGE(rs, (rs ? "" : rs.error().to_string()));
    REQUIRE(rs->size() == 1);
    const Ragdoll& r = rs->front();
    REQUIRE(r.bodies.size() == 2);
    REQUIRE(r.constraints.size() == 1);
    CHECK(r.skeleton == "Master");
    CHECK(r.ragdoll_skeleton == "Ragdoll_Pelvis");
    const RagdollBody& b1 = r.bodies[1];
    CHECK(b1.name == "Ragdoll_Spine");
    CHECK(b1.bone == 1);
    CHECK(b1.bone_name == "Spine");
    CHECK(b1.ragdoll_bone_name == "Ragdoll_Spine");
    CHECK(b1.mass == F::mass1);
    CHECK(b1.dynamic_friction == F::friction);
    CHECK(b1.linear_damping == 0.5f);
    CHECK(b1.collision_filter_info == 33952u);
    CHECK(b1.motion_type == 2);
    REQUIRE(b1.shape.kind == RagdollShapeKind::capsule);
    CHECK(b1.shape.radius == F::radius);
    CHECK(b1.shape.stated_radius == F::radius);
    CHECK(b1.shape.a[1] == F::half_length);
    CHECK(b1.shape.b[1] == -F::half_length);
    CHECK(b1.inertia[0] == 2.0f);
    CHECK(b1.inertia[1] == 1.0f);
    // The body sits body1_y up in model space, its bone bone1_y up: bone_y apart.
    CHECK(b1.frame.translation[1] == doctest::Approx(F::body1_y - F::bone1_y));
    const RagdollConstraint& c = r.constraints[0];
    CHECK(c.kind == RagdollConstraintKind::ragdoll);
    CHECK(c.name == "hkRagdollConstraint001");
    CHECK(c.body_a == 1);
    CHECK(c.body_b == 0);
    CHECK(c.twist_min == F::twist_min);
    CHECK(c.twist_max == F::twist_max);
    CHECK(c.cone_max == F::cone_max);
    CHECK(c.plane_min == F::plane_min);
    CHECK(c.plane_max == F::plane_max);
    CHECK(c.frame_b[13] == F::body1_y);
}

TEST_CASE("hknp ragdoll: every prefix of the hand-made ragdoll is refused cleanly") {
    const std::vector<uint8_t> full = fixture();
    size_t refused = 0;
    for (size_t n = 0; n < full.size(); ++n) {
        const std::vector<uint8_t> cut(full.begin(), full.begin() + long(n));
        auto r = read_fixture(cut);
        // A prefix may still be a whole tagfile only if the writer padded the end; none is here.
        if (!r) ++refused;
        else CHECK_MESSAGE(r->empty(), "prefix " << n << " read a ragdoll");
    }
    CHECK(refused == full.size());
}

TEST_CASE("hknp ragdoll: error messages") {
    SUBCASE("not a ragdoll") {
        auto f = read_hkx(fixture());
        REQUIRE(f);
        auto r = read_ragdoll(*f, f->root);
        REQUIRE(!r);
        CHECK(r.error().to_string().find("is hkRootLevelContainer, not hknpRagdollData") != std::string::npos);
    }
    SUBCASE("material out of range") {
        test::RagdollFixtureOptions o;
        o.material_id = 3;
        CHECK(fixture_error(o).find("body 1 names material 3 of 1") != std::string::npos);
    }
    SUBCASE("motion properties out of range") {
        test::RagdollFixtureOptions o;
        o.motion_properties_id = 7;
        CHECK(fixture_error(o).find("body 1 names motion properties 7 of 1") != std::string::npos);
    }
    SUBCASE("constraint body out of range") {
        test::RagdollFixtureOptions o;
        o.constraint_body_b = 5;
        CHECK(fixture_error(o).find("constraint 0 joins bodies 1 and 5 of 2") != std::string::npos);
    }
    SUBCASE("boneToBodyMap longer than the ragdoll skeleton") {
        test::RagdollFixtureOptions o;
        o.extra_bone_to_body = 0;
        CHECK(fixture_error(o).find("boneToBodyMap has 3 entries for a ragdoll skeleton of 2 bones") != std::string::npos);
    }
    SUBCASE("bone mapped to a missing body") {
        test::RagdollFixtureOptions o;
        o.bone_to_body_1 = 4;
        CHECK(fixture_error(o).find("ragdoll bone 1 maps to body 4 of 2") != std::string::npos);
    }
}

TEST_CASE("hknp ragdoll: add_ragdoll puts the hand-made bodies on their bones with OMI physics") {
    using F = test::RagdollFixtureFacts;
    auto rs = read_fixture(fixture());
    REQUIRE(rs);
    REQUIRE(rs->size() == 1);
    exporters::GltfDocument doc;
    auto& j = doc.json();
    // A root at the origin, Pelvis under it, Spine bone1_y above Pelvis; no node for anything else.
    j["nodes"] = nlohmann::json::array({{{"name", "root"}, {"children", {1}}},
                                        {{"name", "Pelvis"}, {"children", {2}}},
                                        {{"name", "Spine"}, {"translation", {0.0, F::bone1_y, 0.0}}}});
    j["scenes"] = nlohmann::json::array({{{"nodes", {0}}}});
    const auto rep = exporters::add_ragdoll(doc, rs->front(), 0);
    CHECK(rep.bodies == 2);
    CHECK(rep.shapes == 2);
    CHECK(rep.joints == 1);
    CHECK(rep.unplaced == 0);
    const auto& nodes = j["nodes"];
    REQUIRE(nodes.size() == 5);
    CHECK(nodes[3]["name"] == "Ragdoll_Pelvis");
    CHECK(nodes[4]["name"] == "Ragdoll_Spine");
    CHECK(nodes[1]["children"].back() == 3);
    CHECK(nodes[2]["children"].back() == 4);
    // The spine body sits body1_y - bone1_y above its bone; the capsule already runs along Y.
    CHECK(nodes[4]["translation"][1].get<double>() == doctest::Approx(F::body1_y - F::bone1_y));
    CHECK(nodes[4]["rotation"][3].get<double>() == doctest::Approx(1.0));
    const auto& body = nodes[4]["extensions"]["OMI_physics_body"];
    CHECK(body["motion"]["type"] == "dynamic");
    CHECK(body["motion"]["mass"].get<double>() == F::mass1);
    const auto& shape = j["extensions"]["OMI_physics_shape"]["shapes"][body["collider"]["shape"].get<size_t>()];
    CHECK(shape["type"] == "capsule");
    CHECK(shape["capsule"]["radius"].get<double>() == F::radius);
    CHECK(shape["capsule"]["height"].get<double>() == doctest::Approx(2.0 * F::half_length + 2.0 * F::radius));
    const auto& mat = j["extensions"]["OMI_physics_body"]["physicsMaterials"][body["collider"]["physicsMaterial"].get<size_t>()];
    CHECK(mat["dynamicFriction"].get<double>() == F::friction);
    // The joint on body B's node (the pelvis), with its limits.
    REQUIRE(nodes[3]["extras"]["ragdoll_joints"].size() == 1);
    CHECK(nodes[3]["extras"]["ragdoll_joints"][0]["twist_max"].get<double>() == F::twist_max);
    const auto& used = j["extensionsUsed"];
    CHECK(std::find(used.begin(), used.end(), "OMI_physics_body") != used.end());
    CHECK(std::find(used.begin(), used.end(), "OMI_physics_shape") != used.end());

    SUBCASE("a body whose bone has no node goes under the fallback at its model-space pose") {
        exporters::GltfDocument d2;
        d2.json()["nodes"] = nlohmann::json::array({{{"name", "root"}}});
        d2.json()["scenes"] = nlohmann::json::array({{{"nodes", {0}}}});
        const auto r2 = exporters::add_ragdoll(d2, rs->front(), 0);
        CHECK(r2.unplaced == 2);
        CHECK(r2.warnings.size() == 2);
        CHECK(d2.json()["nodes"][2]["translation"][1].get<double>() == doctest::Approx(F::body1_y));
    }
}

TEST_CASE("hknp ragdoll: every prefix of the DS3 c1400 packfile is refused cleanly" * doctest::test_suite("corpus")) {
    const auto members = test::hkx_members("ds3/c1400.chrbnd.dcx");
    const test::HkxMember* m = nullptr;
    for (const auto& x : members)
        if (x.name.size() >= 9 && x.name.compare(x.name.size() - 9, 9, "c1400.HKX") == 0) m = &x;
    REQUIRE(m != nullptr);
    size_t refused = 0;
    for (size_t n = 0; n < m->bytes.size(); ++n) {
        auto f = read_hkx(Bytes(m->bytes.data(), n));
        if (!f) {
            ++refused;
            continue;
        }
        auto r = read_ragdolls(*f);
        if (!r) ++refused;
    }
    CHECK(refused == m->bytes.size());
    auto whole = read_hkx(m->bytes);
    REQUIRE(whole);
    auto r = read_ragdolls(*whole);
    REQUIRE(r);
    CHECK(r->size() == 1);
}
