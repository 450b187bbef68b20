// drape bake (drape::convert): a cloth's motion written into a .glb as sparse morph targets keyed per
// frame. A stand-in cloth whose motion is known in closed form (the skinned cape pushed away from
// the back by a stated offset per row and time) drives the bake of the committed sample, so the
// file-writing half is checked exactly: the targets' counts, the validator, and Blender playing
// the baked and the unbaked file to the same frames (cloth vertices differ by exactly the offset,
// the body not at all), and Godot 3 importing the baked file with its animation.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include <signal.h>
#include <sys/types.h>

#include "corpus.h"
#include "external.h"
#include "drape/anim/anibnd.h"
#include "drape/bnd/bnd4.h"
#include "drape/dcx/dcx.h"
#include "drape/exporters/animation_glb.h"
#include "drape/convert/bake.h"
#include "drape/exporters/gltf.h"
#include "drape/flver/flver.h"
#include "drape/io/file.h"
#include "sample_game.h"

using namespace drape;
using json = nlohmann::json;
using test::SampleFacts;
namespace fs = std::filesystem;

namespace {

std::vector<uint8_t> member(const std::string& rel, const std::string& suffix) {
    auto data = read_file(fs::path(DRAPE_SOURCE_DIR) / "samples/game" / rel);
    REQUIRE(data);
    auto raw = dcx::decompress(*data);
    REQUIRE(raw);
    auto b = bnd::read_bnd4(*raw);
    REQUIRE(b);
    for (const auto& e : b->entries)
        if (e.name.size() >= suffix.size() && e.name.compare(e.name.size() - suffix.size(), suffix.size(), suffix) == 0) {
            auto bytes = bnd::entry_bytes(*b, e);
            REQUIRE(bytes);
            return *bytes;
        }
    FAIL("no member " << suffix << " in " << rel);
    return {};
}

struct Sample {
    flver::Model model;
    havok::Skeleton skeleton;
    std::vector<uint8_t> glb;  // the model with its clip, as drape model + drape animation write it
};

Sample sample() {
    Sample s;
    auto model = flver::read_flver(member("chr/c9999.chrbnd.dcx", "c9999.flver"));
    REQUIRE(model);
    s.model = std::move(*model);
    auto glb = exporters::gltf_bytes(s.model, {});
    REQUIRE(glb);
    auto ani = read_file(fs::path(DRAPE_SOURCE_DIR) / "samples/game/chr/c9999.anibnd.dcx");
    REQUIRE(ani);
    auto set = anim::read_clip_set(*ani, "c9999.anibnd.dcx");
    REQUIRE(set);
    REQUIRE(set->skeletons.size() == 1);
    s.skeleton = set->skeletons[0];
    auto with = exporters::add_animations_to_glb(*glb, s.skeleton, set->clips);
    REQUIRE(with);
    s.glb = std::move(*with);
    return s;
}

// The known offset of the stand-in cloth: cape row r is pushed away from the back (game +Z) by
// 0.12 m * r / 7 * (1.2 + sin(2 pi t)) at step time t. Row 0 (pinned) never moves.
double offset(int row, double t) { return 0.12 * row / (SampleFacts::cape_rows - 1) * (1.2 + std::sin(2 * 3.14159265358979323846 * t)); }

// A cloth whose display buffer is the cape skinned by the bones it is given, plus offset().
class StandIn : public bake::Cloth {
public:
    explicit StandIn(const Sample& s) : m_sample(s) {
        const auto& mesh = s.model.meshes.at(1);
        m_positions.resize(mesh.vertices.positions.size());
    }
    std::vector<std::string> bone_names() const override { return m_sample.skeleton.bone_names; }
    std::vector<DisplayBuffer> display_buffers() const override { return {{SampleFacts::cape_mesh, "", uint32_t(m_positions.size())}}; }
    Result<void> step(std::span<const bake::Mat4> bones, float) override {
        ++steps;
        const double t = double(steps) / 30.0;
        const auto& mesh = m_sample.model.meshes.at(1);
        for (size_t v = 0; v < m_positions.size(); ++v) {
            const auto& p = mesh.vertices.positions[v];
            double x[3] = {0, 0, 0};
            const auto& bw = mesh.vertices.bone_weights[v];
            const double ws[4] = {bw.x, bw.y, bw.z, bw.w};
            for (int k = 0; k < 4; ++k) {
                const double w = ws[k];
                if (w == 0) continue;
                const size_t b = mesh.vertices.bone_indices[v][size_t(k)];
                REQUIRE(b < bones.size());
                // bind: every sample bone is a translation from the origin (no bind rotation)
                const auto bind = bind_translation(b);
                const double q[3] = {p.x - bind[0], p.y - bind[1], p.z - bind[2]};
                const auto& m = bones[b];
                for (int r = 0; r < 3; ++r) x[r] += w * (m[size_t(r)] * q[0] + m[size_t(4 + r)] * q[1] + m[size_t(8 + r)] * q[2] + m[size_t(12 + r)]);
            }
            const int row = int(v) / SampleFacts::cape_columns;
            m_positions[v] = {float(x[0]), float(x[1]), float(x[2] + offset(row, t))};
        }
        return {};
    }
    Result<void> display_positions(size_t index, std::span<bake::Vec3f> out) const override {
        if (index != 0 || out.size() != m_positions.size()) return make_error("bad display buffer request");
        std::copy(m_positions.begin(), m_positions.end(), out.begin());
        return {};
    }
    int steps = 0;

private:
    std::array<double, 3> bind_translation(size_t bone) const {
        std::array<double, 3> t{0, 0, 0};
        for (int b = int(bone); b >= 0; b = m_sample.skeleton.parents[size_t(b)])
            for (int k = 0; k < 3; ++k) t[size_t(k)] += m_sample.skeleton.reference_pose[size_t(b)].translation[size_t(k)];
        return t;
    }
    const Sample& m_sample;
    std::vector<bake::Vec3f> m_positions;
};

using test::skip_external;


}  // namespace

TEST_CASE("bake: the stand-in cloth's motion becomes one sparse morph target per frame on the cape") {
    const Sample s = sample();
    StandIn cloth(s);
    bake::BakeReport rep;
    auto out = bake::bake(s.glb, cloth, {}, &rep);
    REQUIRE_MESSAGE(out, out.error().to_string());
    CHECK(rep.animation == SampleFacts::clip);
    CHECK(rep.frames == size_t(SampleFacts::clip_frames));  // 1.5 s at 30 Hz, both ends
    CHECK(cloth.steps == 30 + SampleFacts::clip_frames);     // warm-up, then one step per frame
    REQUIRE(rep.meshes.size() == 1);
    CHECK(rep.meshes[0] == "mesh01_c9999_cape");
    CHECK(rep.write.targets == size_t(SampleFacts::clip_frames));
    // The pinned row never leaves its skinned place, so it is never stored: 42 of 48 per frame.
    CHECK(rep.write.stored_vertices == size_t((SampleFacts::cape_vertices - SampleFacts::cape_columns) * SampleFacts::clip_frames));
    CHECK(rep.max_offset == doctest::Approx(0.12 * 2.2).epsilon(0.01));
    // The file keeps what it had and gains the targets and a weights channel.
    auto before = bake::Scene::parse(s.glb);
    auto after = bake::Scene::parse(*out);
    REQUIRE(before);
    REQUIRE(after);
    CHECK(after->node_count() == before->node_count());
    CHECK(after->animation_names() == before->animation_names());
    const auto g = exporters::read_glb(*out);
    REQUIRE(g);
    const json doc = json::parse(g->json);
    const json& cape = doc["meshes"][1];
    CHECK(cape["primitives"][0]["targets"].size() == size_t(SampleFacts::clip_frames));
    CHECK(cape["weights"].size() == size_t(SampleFacts::clip_frames));
    CHECK(doc["meshes"][0]["primitives"][0].contains("targets") == false);
    size_t weight_channels = 0;
    for (const auto& c : doc["animations"][0]["channels"]) weight_channels += c["target"]["path"] == "weights";
    CHECK(weight_channels == 1);
    CHECK(doc["skins"].size() == 1);
    CHECK(doc["materials"].size() == 2);
}

TEST_CASE("bake: errors name the clip that is missing and refuse a model without the cloth's mesh") {
    const Sample s = sample();
    StandIn cloth(s);
    bake::BakeOptions o;
    o.clip = "a000_999999";
    auto r = bake::bake(s.glb, cloth, o);
    REQUIRE_FALSE(r);
    CHECK(r.error().to_string().find("no clip 'a000_999999' in the model (it has: a000_002000)") != std::string::npos);
    o = {};
    o.rate = 0;
    r = bake::bake(s.glb, cloth, o);
    REQUIRE_FALSE(r);
    CHECK(r.error().to_string().find("rate") != std::string::npos);
    // A model without the cape: nothing to bind the display buffer to.
    flver::Model body = s.model;
    body.meshes.pop_back();
    auto glb = exporters::gltf_bytes(body, {});
    REQUIRE(glb);
    r = bake::bake(*glb, cloth, {});
    REQUIRE_FALSE(r);
    CHECK(r.error().to_string().find("no display buffer of the cloth matches a mesh") != std::string::npos);
    auto bad = bake::Scene::parse(std::vector<uint8_t>{1, 2, 3});
    CHECK_FALSE(bad);
}

TEST_CASE("bake: without a clip the root sways, and the sway is a new animation of the file") {
    const Sample s = sample();
    auto glb = exporters::gltf_bytes(s.model, {});  // no clip
    REQUIRE(glb);
    StandIn cloth(s);
    bake::BakeOptions o;
    o.sway_seconds = 2;
    bake::BakeReport rep;
    auto out = bake::bake(*glb, cloth, o, &rep);
    REQUIRE_MESSAGE(out, out.error().to_string());
    CHECK(rep.animation == "drape_sway");
    CHECK(rep.frames == 61);
    auto sc = bake::Scene::parse(*out);
    REQUIRE(sc);
    CHECK(sc->animation_names() == std::vector<std::string>{"drape_sway"});
    // The root bone turns: Master's world rotation differs between 0.5 s and 1.5 s.
    const int master = sc->find_node("Master");
    REQUIRE(master >= 0);
    auto a = sc->world_matrices(0, 0.5), b = sc->world_matrices(0, 1.5);
    REQUIRE(a);
    REQUIRE(b);
    CHECK(std::abs((*a)[size_t(master)][8] - (*b)[size_t(master)][8]) > 0.5);  // sin(25 deg) either way
}

TEST_CASE("bake: Blender plays baked and unbaked to the same frames, the cape differs by the cloth's offset and the body not at all" * doctest::test_suite("external")) {
    if (skip_external()) return;
    REQUIRE_MESSAGE(std::system("blender --version > /dev/null 2>&1") == 0, "Blender is not installed (apt-get install blender), or set DRAPE_SKIP_EXTERNAL=1");
    const Sample s = sample();
    StandIn cloth(s);
    bake::BakeReport rep;
    auto out = bake::bake(s.glb, cloth, {}, &rep);
    REQUIRE(out);
    const auto dir = test::scratch_dir("bake_blender");
    REQUIRE(write_file(dir / "unbaked.glb", s.glb));
    REQUIRE(write_file(dir / "baked.glb", *out));
    // Two baked frames: k = 10 and 33 (t = k / 30); the stand-in stepped 30 + k + 1 times by then.
    const int frames[2] = {10, 33};
    json job = {{"files", {(dir / "unbaked.glb").string(), (dir / "baked.glb").string()}}, {"animation", SampleFacts::clip}, {"times", json::array()}};
    for (int k : frames) job["times"].push_back(k / 30.0);
    const json r = test::blender_bake_check(dir, job);
    REQUIRE_MESSAGE(r["errors"].empty(), r["errors"].dump());
    const json& un = r["files"][(dir / "unbaked.glb").string()];
    const json& ba = r["files"][(dir / "baked.glb").string()];
    CHECK(ba["shape_keys"]["mesh01_c9999_cape"].get<int>() == SampleFacts::clip_frames + 1);  // the basis and one per frame
    for (size_t f = 0; f < 2; ++f) {
        CAPTURE(frames[f]);
        const double t = double(30 + frames[f] + 1) / 30.0;
        const json& mu = un["frames"][f]["meshes"];
        const json& mb = ba["frames"][f]["meshes"];
        // The body: equal.
        double body = 0;
        for (size_t v = 0; v < mu["mesh00_c9999_body"].size(); ++v)
            for (size_t c = 0; c < 3; ++c) body = std::max(body, std::abs(mu["mesh00_c9999_body"][v][c].get<double>() - mb["mesh00_c9999_body"][v][c].get<double>()));
        CHECK(body < 1e-5);
        // The cape: moved by the offset (game +Z is glTF -Z, Blender +Y), within Blender's float
        // arithmetic; the lowest row by more than 0.05 m.
        double worst = 0, lowest = 1e9;
        const json& cu = mu["mesh01_c9999_cape"];
        const json& cb = mb["mesh01_c9999_cape"];
        REQUIRE(cu.size() == size_t(SampleFacts::cape_vertices));
        for (size_t v = 0; v < cu.size(); ++v) {
            const int row = int(v) / SampleFacts::cape_columns;
            const double want[3] = {0, offset(row, t), 0};
            for (size_t c = 0; c < 3; ++c) worst = std::max(worst, std::abs(cb[v][c].get<double>() - cu[v][c].get<double>() - want[c]));
            if (row == SampleFacts::cape_rows - 1) lowest = std::min(lowest, cb[v][1].get<double>() - cu[v][1].get<double>());
        }
        CHECK(worst < 1e-3);
        CHECK(lowest > 0.05);
    }
}

namespace {

std::vector<uint8_t> baked_sample() {
    const Sample s = sample();
    StandIn cloth(s);
    auto out = bake::bake(s.glb, cloth, {});
    REQUIRE(out);
    return *out;
}

}  // namespace

TEST_CASE("bake: the Khronos validator reports no errors on the baked sample" * doctest::test_suite("external")) {
    if (skip_external()) return;
    const auto dir = test::scratch_dir("bake_validator");
    REQUIRE(write_file(dir / "baked.glb", baked_sample()));
    const json rep = test::validate_gltf(dir / "baked.glb");
    REQUIRE_MESSAGE(rep["errors"].get<int>() >= 0, rep.value("why", ""));
    for (const auto& m : rep["messages"])
        if (m["severity"].get<int>() == 0) MESSAGE(m["code"].get<std::string>() << " " << m["message"].get<std::string>() << " at " << m.value("pointer", ""));
    MESSAGE("gltf-validator baked.glb: " << rep["errors"].get<int>() << " errors, " << rep["warnings"].get<int>() << " warnings");
    CHECK(rep["errors"].get<int>() == 0);
}

TEST_CASE("bake: Godot 3 imports the baked sample with its blend shapes and the clip that keys them" * doctest::test_suite("external")) {
    if (skip_external()) return;
    const fs::path dir = test::scratch_dir("bake_godot");
    REQUIRE(write_file(dir / "baked.glb", baked_sample()));
    const json cases = json::array({{{"file", "res://models/baked.glb"}, {"mode", "bake"}, {"animation", SampleFacts::clip},
                                     {"blend_shapes", SampleFacts::clip_frames}, {"shape_meshes", 1}}});
    const auto r = test::godot_check(dir / "project", {{"baked.glb", dir / "baked.glb"}}, cases);
    CAPTURE(r.log);
    CHECK(r.exit_code == 0);
    CHECK(r.log.find("DRAPE_GODOT_OK 1") != std::string::npos);
}
