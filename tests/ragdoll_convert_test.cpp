// The ragdoll in the converted character: c5000's .glb has one OMI_physics_body node per body of
// its hknpRagdollData, on its bone, where the file puts the body; the Khronos validator accepts it.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "corpus.h"
#include "drape/convert/convert.h"
#include "drape/exporters/gltf_document.h"
#include "drape/havok/ragdoll.h"
#include "external.h"
#include "havok_corpus.h"

using namespace drape;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

using Q = std::array<double, 4>;
using V = std::array<double, 3>;

Q qmul(const Q& a, const Q& b) {
    return {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1], a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
            a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3], a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
}
V qrot(const Q& q, const V& v) {
    const Q r = qmul(qmul(q, {v[0], v[1], v[2], 0}), {-q[0], -q[1], -q[2], q[3]});
    return {r[0], r[1], r[2]};
}

struct Pose {
    V t{0, 0, 0};
    Q q{0, 0, 0, 1};
};

// A node's local pose (translation/rotation, or a rigid matrix).
Pose local_pose(const json& n) {
    Pose p;
    if (n.contains("matrix")) {
        const auto& m = n["matrix"];
        p.t = {m[12].get<double>(), m[13].get<double>(), m[14].get<double>()};
        const double r00 = m[0], r11 = m[5], r22 = m[10], r21 = m[6], r12 = m[9], r02 = m[8], r20 = m[2], r10 = m[1], r01 = m[4];
        const double w = std::sqrt(std::max(0.0, 1 + r00 + r11 + r22)) / 2;
        p.q = {(r21 - r12) / (4 * w), (r02 - r20) / (4 * w), (r10 - r01) / (4 * w), w};
        return p;
    }
    if (n.contains("translation")) p.t = {n["translation"][0], n["translation"][1], n["translation"][2]};
    if (n.contains("rotation")) p.q = {n["rotation"][0], n["rotation"][1], n["rotation"][2], n["rotation"][3]};
    return p;
}

}  // namespace

TEST_CASE("ragdoll convert: c5000's glb has one OMI_physics_body node per body, on its bone, where the file puts it" * doctest::test_suite("corpus+external")) {
    REQUIRE_MESSAGE(fs::exists(test::corpus("er/game/chr/c5000.chrbnd.dcx")), "no corpus at " << test::corpus_dir().string());
    // The count the file declares, through the generic view.
    auto f = test::load_hkx("er/game/chr/c5000.chrbnd.dcx", "c5000.hkx");
    REQUIRE(f);
    const auto items = f->objects_of("hknpRagdollData");
    REQUIRE(items.size() == 1);
    const uint64_t declared = f->object(items[0])["bodyCinfos"].size();
    REQUIRE(declared > 0);

    const fs::path dir = test::scratch_dir("ragdoll_convert_c5000");
    convert::Options o;
    o.jobs = 1;
    o.only = {"c5000"};
    o.textures = false;
    o.cloth = false;
    const auto rep = convert::convert_folder(test::corpus("er/game"), dir / "out", o);
    REQUIRE(rep.items.size() == 1);
    REQUIRE_MESSAGE(rep.items[0].ok, rep.items[0].error);
    CHECK(rep.items[0].ragdoll_bodies == declared);
    const json report = json::parse(test::load(dir / "out/chr/c5000.report.json"));
    CHECK(report["ragdoll_bodies"].get<uint64_t>() == declared);
    CHECK(report["ragdoll"]["declared_bodies"].get<uint64_t>() == declared);

    const fs::path glb_path = dir / "out/chr/c5000.glb";
    auto glb = exporters::read_glb(test::load(glb_path));
    REQUIRE(glb);
    const json doc = json::parse(glb->json);
    const auto& used = doc["extensionsUsed"];
    CHECK(std::find(used.begin(), used.end(), "OMI_physics_body") != used.end());
    CHECK(std::find(used.begin(), used.end(), "OMI_physics_shape") != used.end());
    const json& shapes = doc["extensions"]["OMI_physics_shape"]["shapes"];
    const json& nodes = doc["nodes"];
    std::vector<int> parent(nodes.size(), -1);
    for (size_t i = 0; i < nodes.size(); ++i)
        for (const auto& c : nodes[i].value("children", json::array())) parent[c.get<size_t>()] = int(i);
    auto world = [&](int i) {
        Pose w;
        for (int k = i; k >= 0; k = parent[size_t(k)]) {
            const Pose l = local_pose(nodes[size_t(k)]);
            const V r = qrot(l.q, w.t);
            w.t = {l.t[0] + r[0], l.t[1] + r[1], l.t[2] + r[2]};
            w.q = qmul(l.q, w.q);
        }
        return w;
    };
    size_t bodies = 0, capsules = 0;
    double worst = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
        const json& n = nodes[i];
        if (!n.contains("extensions") || !n["extensions"].contains("OMI_physics_body")) continue;
        ++bodies;
        const json& e = n["extras"]["ragdoll"];
        const json& body = n["extensions"]["OMI_physics_body"];
        CHECK(body["motion"]["type"] == "dynamic");
        CHECK(body["motion"]["mass"].get<double>() == e["mass"].get<double>());
        // On the node of its bone.
        REQUIRE(parent[i] >= 0);
        CHECK(nodes[size_t(parent[i])]["name"] == e["bone_name"]);
        if (e["shape"]["kind"] != "capsule") continue;
        ++capsules;
        const json& s = shapes.at(body["collider"]["shape"].get<size_t>());
        CHECK(s["type"] == "capsule");
        CHECK(s["capsule"]["radius"].get<double>() == e["shape"]["radius"].get<double>());
        // The node's world place is the capsule's centre as the file places it (bodyCinfo position
        // and orientation, model space), Z mirrored; its Y axis runs from b to a.
        const Pose w = world(int(i));
        const V a{e["shape"]["a"][0], e["shape"]["a"][1], e["shape"]["a"][2]}, b{e["shape"]["b"][0], e["shape"]["b"][1], e["shape"]["b"][2]};
        const Q bq{e["world"]["rotation"][0], e["world"]["rotation"][1], e["world"]["rotation"][2], e["world"]["rotation"][3]};
        const V bt{e["world"]["translation"][0], e["world"]["translation"][1], e["world"]["translation"][2]};
        const V c = qrot(bq, {(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2});
        const V game{bt[0] + c[0], bt[1] + c[1], bt[2] + c[2]};
        worst = std::max(worst, std::hypot(w.t[0] - game[0], w.t[1] - game[1], w.t[2] + game[2]));
        const V axis = qrot(bq, {a[0] - b[0], a[1] - b[1], a[2] - b[2]});
        const V y = qrot(w.q, {0, 1, 0});
        const double len = std::hypot(axis[0], axis[1], axis[2]);
        if (len > 1e-6) CHECK((y[0] * axis[0] + y[1] * axis[1] - y[2] * axis[2]) / len == doctest::Approx(1.0).epsilon(1e-4));
        CHECK(s["capsule"]["height"].get<double>() == doctest::Approx(len + 2 * e["shape"]["radius"].get<double>()).epsilon(1e-5));
    }
    MESSAGE("c5000: " << bodies << " body nodes (" << capsules << " capsules), worst place error " << worst << " m");
    REQUIRE(bodies == declared);
    CHECK(capsules > 0);
    CHECK(worst < 1e-3);

    if (test::skip_external()) return;
    const json v = test::validate_gltf(glb_path);
    REQUIRE_MESSAGE(v["errors"].get<int>() >= 0, v.value("why", std::string()));
    for (const auto& m : v.value("messages", json::array()))
        if (m["severity"].get<int>() == 0) MESSAGE(m["code"].get<std::string>() << " " << m["message"].get<std::string>() << " at " << m.value("pointer", ""));
    CHECK(v["errors"].get<int>() == 0);
}
