// glTF export of clips: the GLB container, keys against the havoklib peer (mirrored on Z as the
// project's convention states: position (x, y, -z), quaternion (-x, -y, z, w)), root motion,
// merging into a model .glb, and the Khronos validator when it is installed.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "corpus.h"
#include "gltf_read.h"
#include "drape/anim/anibnd.h"
#include "drape/exporters/animation_glb.h"
#include "drape/io/file.h"
#include "havok_corpus.h"

using namespace drape;
using json = nlohmann::json;

namespace {

// The .glb as tinygltf reads it (accessors, nodes, animations), with its JSON for the rest.
struct Parsed {
    test::GltfRead g;
    json doc;

    std::vector<float> floats(int accessor) const { return g.floats(accessor); }
    int node(const std::string& name) const { return g.node(name); }
    const json* animation(const std::string& name) const {
        for (const auto& a : doc["animations"])
            if (a["name"] == name) return &a;
        return nullptr;
    }
    // Output keys of the channel on `node` with `path`.
    std::vector<float> channel(const json& anim, int node, const std::string& path, std::vector<float>* times = nullptr) const {
        const int index = g.animation(anim["name"].get<std::string>());
        REQUIRE(index >= 0);
        return g.channel(index, node, path, times);
    }
};

Parsed parse(const std::vector<uint8_t>& glb) {
    Parsed p;
    p.g = test::read_gltf(glb);
    p.doc = p.g.j;
    return p;
}

anim::ClipSet load_set(const std::string& rel) {
    auto s = anim::read_clip_set(test::load(test::corpus(rel)), rel);
    REQUIRE(s);
    return std::move(*s);
}

}  // namespace

TEST_CASE("anim glb: the container is 4-aligned, padded as the spec says, and round-trips") {
    const std::string js = R"({"asset":{"version":"2.0"}})";  // 27 bytes -> 28 with one space
    const std::vector<uint8_t> bin = {1, 2, 3, 4, 5};
    const auto glb = exporters::write_glb(js, bin);
    REQUIRE(glb.size() == 12 + 8 + 28 + 8 + 8);
    CHECK(std::memcmp(glb.data(), "glTF", 4) == 0);
    CHECK(glb[4] == 2);
    CHECK(glb[8] == glb.size());
    CHECK(std::memcmp(glb.data() + 16, "JSON", 4) == 0);
    CHECK(glb[12 + 8 + 27] == ' ');
    CHECK(std::memcmp(glb.data() + 48 + 4, "BIN\0", 4) == 0);
    CHECK(glb[glb.size() - 1] == 0);
    auto back = exporters::read_glb(glb);
    REQUIRE(back);
    CHECK(back->json.substr(0, js.size()) == js);
    CHECK(back->bin.size() == 8);
    CHECK(std::equal(bin.begin(), bin.end(), back->bin.begin()));
    // Truncated at every length: a clean error within the bytes given.
    for (size_t n = 0; n < glb.size(); ++n) {
        auto r = exporters::read_glb(Bytes(glb.data(), n));
        REQUIRE_FALSE(r);
        CHECK(r.error().offset <= n);
    }
    // Errors: magic, version, length, no JSON chunk.
    auto bad = glb;
    bad[0] = 'x';
    CHECK(exporters::read_glb(bad).error().field == "glb.magic");
    bad = glb;
    bad[4] = 1;
    CHECK(exporters::read_glb(bad).error().field == "glb.version");
    bad = glb;
    bad[8] = 200;
    CHECK(exporters::read_glb(bad).error().field == "glb.length");
    bad = glb;
    bad[16] = 'X';
    CHECK(exporters::read_glb(bad).error().reason.find("no JSON chunk") != std::string::npos);
}

TEST_CASE("anim glb: c2080 keys equal the havoklib peer, mirrored on Z as drape model does, on nodes named like the bones" * doctest::test_suite("corpus")) {
    const auto set = load_set("ds3/c2080.anibnd.dcx");
    REQUIRE(set.skeletons.size() == 1);
    exporters::AnimationGlbReport report;
    auto glb = exporters::animation_glb(set.skeletons[0], set.clips, {}, &report);
    REQUIRE(glb);
    CHECK(report.animations == 3);
    CHECK(report.warnings.empty());
    const Parsed p = parse(*glb);
    const auto& skel = set.skeletons[0];
    // One node per bone, named as in the game, reference pose mirrored.
    for (size_t i = 0; i < skel.bone_names.size(); ++i) {
        const int n = p.node(skel.bone_names[i]);
        REQUIRE(n >= 0);
        const auto& t = p.doc["nodes"][size_t(n)]["translation"];
        CHECK(t[0].get<double>() == doctest::Approx(skel.reference_pose[i].translation[0]));
        CHECK(t[1].get<double>() == doctest::Approx(skel.reference_pose[i].translation[1]));
        CHECK(t[2].get<double>() == doctest::Approx(-skel.reference_pose[i].translation[2]));
    }
    std::ifstream in(test::reference_dir() / "peer" / "havoklib" / "ds3-c2080__a000_000700.json");
    const json peer = json::parse(in);
    const auto& pa = peer["animations"][0];
    const json* anim = p.animation("a000_000700");
    REQUIRE(anim);
    size_t checked = 0;
    for (const auto& track : pa["tracks"]) {
        const int node = p.node(track["boneName"].get<std::string>());
        REQUIRE(node >= 0);
        std::vector<float> times;
        const auto tr = p.channel(*anim, node, "translation", &times);
        const auto rot = p.channel(*anim, node, "rotation");
        REQUIRE(!tr.empty());
        REQUIRE(!rot.empty());
        const auto& frames = track["frames"];
        for (size_t f = 0; f < frames.size(); ++f) {
            const size_t kt = tr.size() == 3 ? 0 : f, kr = rot.size() == 4 ? 0 : f;
            const auto& v = frames[f];
            CHECK(tr[kt * 3 + 0] == doctest::Approx(v[0].get<double>()).epsilon(1e-5));
            CHECK(tr[kt * 3 + 1] == doctest::Approx(v[1].get<double>()).epsilon(1e-5));
            CHECK(tr[kt * 3 + 2] == doctest::Approx(-v[2].get<double>()).epsilon(1e-5));
            const double q[4] = {-v[3].get<double>(), -v[4].get<double>(), v[5].get<double>(), v[6].get<double>()};
            double dot = 0;
            for (size_t k = 0; k < 4; ++k) dot += rot[kr * 4 + k] * q[k];
            CHECK(std::abs(dot) > 1 - 1e-6);
            ++checked;
        }
        if (times.size() > 1) {
            REQUIRE(times.size() == frames.size());
            CHECK(times[30] == doctest::Approx(1.0).epsilon(1e-5));  // 30 Hz keys
        }
    }
    CHECK(checked == 57 * 61);
}

TEST_CASE("anim glb: root motion is a channel on the node above the root bone, and can be left out" * doctest::test_suite("corpus")) {
    const auto set = load_set("bb/a000_003000.hkx");
    const auto skel_set = load_set("bb/skeleton.HKX");
    REQUIRE(set.clips.size() == 1);
    REQUIRE(set.clips[0].root_motion);
    // The raw samples, as the Havok reader gives them.
    auto file = test::load_hkx("bb/a000_003000.hkx");
    REQUIRE(file);
    auto container = havok::read_animation_container(*file);
    REQUIRE(container);
    const auto& raw = container->animations[0].reference_frame->samples;
    exporters::AnimationGlbOptions o;
    o.root_name = "c2020";
    auto glb = exporters::animation_glb(skel_set.skeletons[0], set.clips, o);
    REQUIRE(glb);
    const Parsed p = parse(*glb);
    const int root = p.node("c2020");
    REQUIRE(root == 0);
    CHECK(p.doc["scenes"][0]["nodes"] == json::array({0}));
    CHECK(p.doc["nodes"][0]["children"] == json::array({p.node("Master")}));
    std::vector<float> times;
    const auto t = p.channel(p.doc["animations"][0], root, "translation", &times);
    REQUIRE(t.size() == raw.size() * 3);
    REQUIRE(times.size() == raw.size());
    CHECK(times.back() == doctest::Approx(3.0));
    for (size_t i = 0; i < raw.size(); ++i) {
        CHECK(t[i * 3] == doctest::Approx(raw[i][0]));
        CHECK(t[i * 3 + 2] == doctest::Approx(-raw[i][2]));
    }
    CHECK(!p.channel(p.doc["animations"][0], root, "rotation").empty());
    o.root_motion = false;
    auto without = exporters::animation_glb(skel_set.skeletons[0], set.clips, o);
    REQUIRE(without);
    const Parsed q = parse(*without);
    CHECK(q.channel(q.doc["animations"][0], 0, "translation").empty());
}

TEST_CASE("anim glb: --model adds the clips to an existing .glb, matching bones by name" * doctest::test_suite("corpus")) {
    const auto set = load_set("er/WP_A_0550_1.anibnd");
    auto skel = set.skeletons[0];
    REQUIRE(skel.bone_names.size() == 2);
    skel.reference_pose[1].translation = {0.1f, 0.2f, 0.3f, 0};  // something to tell the mirrors apart
    // A model as the FLVER exporter writes it: node 0 the model root, the bones below it, the game
    // mirrored on Z, an accessor of its own in the BIN chunk.
    const auto& rp = skel.reference_pose;
    json model = {{"asset", {{"version", "2.0"}}},
                  {"scene", 0},
                  {"scenes", json::array({{{"nodes", json::array({0, 3})}}})},
                  {"nodes", json::array({{{"name", "WP_A_0550"}, {"children", json::array({1})}},
                                         {{"name", skel.bone_names[0]},
                                          {"translation", json::array({rp[0].translation[0], rp[0].translation[1], -rp[0].translation[2]})},
                                          {"children", json::array({2})}},
                                         {{"name", skel.bone_names[1]},
                                          {"translation", json::array({rp[1].translation[0], rp[1].translation[1], -rp[1].translation[2]})}},
                                         {{"name", "mesh"}}})},
                  {"buffers", json::array({{{"byteLength", 12}}})},
                  {"bufferViews", json::array({{{"buffer", 0}, {"byteLength", 12}}})},
                  {"accessors", json::array({{{"bufferView", 0}, {"componentType", 5126}, {"count", 1}, {"type", "VEC3"}}})}};
    const float sentinel[3] = {1.5f, -2.5f, 3.5f};
    std::vector<uint8_t> bin(12);
    std::memcpy(bin.data(), sentinel, 12);
    const auto model_glb = exporters::write_glb(model.dump(), bin);
    exporters::AnimationGlbOptions o;
    o.mirror = exporters::Mirror::detect;
    exporters::AnimationGlbReport report;
    auto out = exporters::add_animations_to_glb(model_glb, skel, set.clips, o, &report);
    REQUIRE_MESSAGE(out, (out ? "" : out.error().to_string()));
    CHECK(report.mirror == exporters::Mirror::z);
    CHECK(report.animations == 9);
    const Parsed p = parse(*out);
    CHECK(p.doc["nodes"].size() == 4);  // no node added: the root bone has a parent
    CHECK(p.floats(0) == std::vector<float>{1.5f, -2.5f, 3.5f});  // the model's data kept in place
    CHECK(p.doc["animations"].size() == 9);
    const json* anim = p.animation("a614_040050_1");
    REQUIRE(anim);
    CHECK(!p.channel(*anim, 2, "scale").empty());
    // A model that states its convention is believed over the bones' vote.
    model["nodes"][0]["extras"] = {{"coordinates", "game (x, y, z) -> glTF (-x, y, z); metres"}};
    REQUIRE(exporters::add_animations_to_glb(exporters::write_glb(model.dump(), bin), skel, set.clips, o, &report));
    CHECK(report.mirror == exporters::Mirror::x);
    model["nodes"][0]["extras"] = {{"coordinates", "game (x, y, z) -> glTF (x, y, -z); metres"}};
    REQUIRE(exporters::add_animations_to_glb(exporters::write_glb(model.dump(), bin), skel, set.clips, o, &report));
    CHECK(report.mirror == exporters::Mirror::z);
    model["nodes"][0].erase("extras");
    // The model's root bone without a parent: a root-motion node is inserted above it.
    model["scenes"][0]["nodes"] = json::array({1, 3});
    model["nodes"][0].erase("children");
    auto out2 = exporters::add_animations_to_glb(exporters::write_glb(model.dump(), bin), skel, set.clips, o, &report);
    REQUIRE(out2);
    const Parsed p2 = parse(*out2);
    CHECK(p2.doc["nodes"].size() == 5);
    CHECK(p2.doc["nodes"][4]["children"] == json::array({1}));
    CHECK(p2.doc["scenes"][0]["nodes"] == json::array({4, 3}));
    // Errors of the model file.
    auto bad = exporters::add_animations_to_glb(exporters::write_glb("[1,2]", {}), skel, set.clips, o);
    REQUIRE_FALSE(bad);
    CHECK(bad.error().reason.find("not a JSON object") != std::string::npos);
    bad = exporters::add_animations_to_glb(exporters::write_glb(R"({"nodes":[]})", {}), skel, set.clips, o);
    REQUIRE_FALSE(bad);
    CHECK(bad.error().reason.find("no nodes") != std::string::npos);
    bad = exporters::add_animations_to_glb(exporters::write_glb(R"({"nodes":[{}],"buffers":[{"uri":"a.bin","byteLength":4}]})", {}), skel, set.clips, o);
    REQUIRE_FALSE(bad);
    CHECK(bad.error().reason.find("self-contained") != std::string::npos);
    bad = exporters::add_animations_to_glb(exporters::write_glb(R"({"nodes":[{"children":[7]}]})", {}), skel, set.clips, o);
    REQUIRE_FALSE(bad);
    CHECK(bad.error().reason.find("out of range") != std::string::npos);
    struct BadModel {
        const char* json;
        const char* reason;
    } bad_models[] = {{R"({"nodes":[{}],"buffers":{}})", "not an array"},
                      {R"({"nodes":[{}],"accessors":7})", "not an array"},
                      {R"({"nodes":[3]})", "node 0 is not an object"},
                      {R"({"nodes":[{"children":5}]})", "children is not an array"},
                      {R"({"nodes":[{"children":["a"]}]})", "out of range"}};
    for (const auto& b : bad_models) {
        CAPTURE(b.json);
        auto r = exporters::add_animations_to_glb(exporters::write_glb(b.json, {}), skel, set.clips, o);
        REQUIRE_FALSE(r);
        CHECK(r.error().reason.find(b.reason) != std::string::npos);
    }
    auto broken = skel;
    broken.parents.pop_back();
    auto r1 = exporters::add_animations_to_glb(model_glb, broken, set.clips, o);
    REQUIRE_FALSE(r1);
    CHECK(r1.error().reason.find("parents for 2 bones") != std::string::npos);
    auto r2 = exporters::animation_glb(broken, set.clips);
    REQUIRE_FALSE(r2);
    CHECK(r2.error().reason.find("parents for 2 bones") != std::string::npos);
    // A GLB whose length field is below its own header.
    auto tiny = exporters::write_glb("{}", {});
    tiny[8] = 4, tiny[9] = tiny[10] = tiny[11] = 0;
    auto r3 = exporters::read_glb(tiny);
    REQUIRE_FALSE(r3);
    CHECK(r3.error().reason.find("shorter than the header") != std::string::npos);
}

TEST_CASE("anim glb: every corpus clip exports, the Khronos validator finds no error" * doctest::test_suite("corpus+external")) {
    const auto dir = test::scratch_dir("anim_glb");
    struct Pair {
        const char* clips;
        const char* skeleton;
    } pairs[] = {{"ds3/c2080.anibnd.dcx", nullptr},
                 {"bb/a000_003000.hkx", "bb/skeleton.HKX"},
                 {"sekiro/c1140.anibnd.dcx", nullptr},
                 {"sekiro/WP_A_2300.anibnd", nullptr},
                 {"er/WP_A_0550_1.anibnd", nullptr},
                 {"havok-demo/allosaur_run_spline_S32_V16_B255_D1_x64.hkx", "havok-demo/allosaur_skeleton_x64.hkx"},
                 {"havok-demo/allosaur_run_interleaved_x64.hkx", "havok-demo/allosaur_skeleton_x64.hkx"}};
    std::string files;
    for (const auto& pr : pairs) {
        CAPTURE(pr.clips);
        const auto set = load_set(pr.clips);
        const auto skel = pr.skeleton ? load_set(pr.skeleton).skeletons : set.skeletons;
        REQUIRE(skel.size() == 1);
        exporters::AnimationGlbReport report;
        auto glb = exporters::animation_glb(skel[0], set.clips, {}, &report);
        REQUIRE(glb);
        CHECK(report.animations == set.clips.size());
        CHECK(report.warnings.empty());
        const auto path = dir / (anim::clip_name_from_path(pr.clips) + ".glb");
        REQUIRE(write_file(path, *glb));
        files.append(" ").append(path.string());
    }
    // The validator module: $DRAPE_GLTF_VALIDATOR (make test sets it), else <build>/node_tools
    // (npm install --prefix <build>/node_tools gltf-validator). Missing is a failure unless
    // DRAPE_SKIP_EXTERNAL=1, like the model tests.
    std::string modules = std::string(DRAPE_BINARY_DIR) + "/node_tools/node_modules";
    if (const char* v = std::getenv("DRAPE_GLTF_VALIDATOR"); v && *v)
        modules = std::filesystem::path(v).parent_path().string();
    if (!std::ifstream(modules + "/gltf-validator/package.json").good()) {
        if (const char* skip = std::getenv("DRAPE_SKIP_EXTERNAL"); skip && std::string(skip) == "1") {
            MESSAGE("gltf-validator not installed under " << modules << "; skipped (DRAPE_SKIP_EXTERNAL=1)");
            return;
        }
        FAIL("gltf-validator not found under " << modules << " (make deps installs it; or DRAPE_SKIP_EXTERNAL=1)");
    }
    const auto script = dir / "validate.js";
    std::ofstream(script) << R"(const v = require('gltf-validator'); const fs = require('fs');
(async () => { let bad = 0;
  for (const f of process.argv.slice(2)) {
    const r = await v.validateBytes(new Uint8Array(fs.readFileSync(f)), {maxIssues: 50});
    console.log(f, 'errors', r.issues.numErrors, 'warnings', r.issues.numWarnings);
    for (const m of r.issues.messages) if (m.severity <= 1) console.log('  ', m.code, m.pointer, m.message);
    if (r.issues.numErrors || r.issues.numWarnings) bad = 1;
  }
  process.exit(bad); })();
)";
    std::string cmd = "NODE_PATH=";
    cmd.append(modules).append(" node ").append(script.string()).append(files).append(" > ").append((dir / "validator.txt").string()).append(" 2>&1");
    CHECK_MESSAGE(std::system(cmd.c_str()) == 0, "see " << (dir / "validator.txt").string());
}

TEST_CASE("anim glb: every key of every c5000 clip equals anim::sample_frame at that frame, mirrored on Z (constant channels: one key)" * doctest::test_suite("corpus")) {
    const auto bytes = read_file(test::corpus("er/game/chr/c5000.anibnd.dcx"));
    REQUIRE(bytes);
    auto set = anim::read_clip_set(*bytes, "c5000.anibnd.dcx");
    REQUIRE(set);
    REQUIRE(!set->skeletons.empty());
    REQUIRE(set->clips.size() >= 60);
    const havok::Skeleton& skel = set->skeletons[0];
    exporters::AnimationGlbOptions o;
    o.mirror = exporters::Mirror::z;
    o.root_motion = false;
    auto glb = exporters::animation_glb(skel, set->clips, o);
    REQUIRE(glb);
    const Parsed p = parse(*glb);
    size_t clips = 0, keys = 0, spline_clips = 0, additive = 0;
    for (const auto& clip : set->clips) {
        CAPTURE(clip.name);
        const json* a = p.animation(clip.name);
        REQUIRE(a);
        ++clips;
        spline_clips += clip.spline.has_value();
        additive += clip.blend_hint != anim::BlendHint::normal;
        const auto bones = anim::tracks_to_bones(clip, skel);
        size_t mismatches = 0;
        std::vector<anim::Transform> pose(size_t(clip.num_tracks));
        std::vector<std::array<std::vector<float>, 3>> out(size_t(clip.num_tracks));  // T, R, S per track
        for (size_t t = 0; t < bones.size(); ++t) {
            if (bones[t] < 0) continue;
            const int node = int(bones[t]) + 1;  // add_skeleton_and_clips: node 0 is the root
            out[t] = {p.channel(*a, node, "translation"), p.channel(*a, node, "rotation"), p.channel(*a, node, "scale")};
        }
        for (int32_t f = 0; f < std::max(clip.num_frames, 1); ++f) {
            anim::sample_frame(clip, f, pose);
            for (size_t t = 0; t < bones.size(); ++t) {
                if (bones[t] < 0) continue;
                anim::Transform x = pose[t];
                if (clip.blend_hint != anim::BlendHint::normal) {
                    const auto& r = skel.reference_pose[size_t(bones[t])];
                    anim::Transform base;
                    base.translation = {r.translation[0], r.translation[1], r.translation[2]};
                    base.rotation = anim::normalize(r.rotation);
                    base.scale = {r.scale[0], r.scale[1], r.scale[2]};
                    x = anim::apply_additive(clip.blend_hint, base, x);
                }
                const std::array<float, 3> tr = {x.translation[0], x.translation[1], -x.translation[2]};
                const std::array<float, 4> q = {-x.rotation[0], -x.rotation[1], x.rotation[2], x.rotation[3]};
                const auto& T = out[t][0];
                const auto& R = out[t][1];
                const auto& S = out[t][2];
                const size_t kt = T.size() == 3 ? 0 : size_t(f), kr = R.size() == 4 ? 0 : size_t(f), ks = S.size() == 3 ? 0 : size_t(f);
                if (T.size() < kt * 3 + 3 || R.size() < kr * 4 + 4 || S.size() < ks * 3 + 3) {  // a channel short of keys
                    ++mismatches;
                    continue;
                }
                for (int c = 0; c < 3; ++c) {
                    mismatches += T[kt * 3 + size_t(c)] != tr[size_t(c)];
                    mismatches += S[ks * 3 + size_t(c)] != x.scale[size_t(c)];
                }
                // The writer keeps neighbouring keys in one hemisphere: q or -q.
                const bool same = R[kr * 4] == q[0] && R[kr * 4 + 1] == q[1] && R[kr * 4 + 2] == q[2] && R[kr * 4 + 3] == q[3];
                const bool negated = R[kr * 4] == -q[0] && R[kr * 4 + 1] == -q[1] && R[kr * 4 + 2] == -q[2] && R[kr * 4 + 3] == -q[3];
                mismatches += !(same || negated);
                ++keys;
            }
        }
        CHECK(mismatches == 0);
    }
    CHECK(clips == set->clips.size());
    CHECK(spline_clips >= 60);
    CHECK(additive >= 1);
    CHECK(keys > 100000);
}

TEST_CASE("anim: read_clip_set with a parallel_for gives the set read in binder order, whatever order the members run in" * doctest::test_suite("corpus")) {
    const auto bytes = read_file(test::corpus("er/game/chr/c5000.anibnd.dcx"));
    REQUIRE(bytes);
    auto serial = anim::read_clip_set(*bytes, "c5000.anibnd.dcx");
    REQUIRE(serial);
    size_t calls = 0;
    const anim::ParallelFor backwards = [&](size_t n, const std::function<void(size_t)>& task) {
        ++calls;
        for (size_t i = n; i-- > 0;) task(i);
    };
    auto parallel = anim::read_clip_set(*bytes, "c5000.anibnd.dcx", {}, backwards);
    REQUIRE(parallel);
    CHECK(calls == 1);
    REQUIRE(parallel->clips.size() == serial->clips.size());
    CHECK(serial->clips.size() >= 60);
    for (size_t i = 0; i < serial->clips.size(); ++i) {
        CHECK(parallel->clips[i].name == serial->clips[i].name);
        CHECK(parallel->clips[i].num_frames == serial->clips[i].num_frames);
    }
    REQUIRE(parallel->skeletons.size() == serial->skeletons.size());
    CHECK(parallel->skeletons[0].bone_names == serial->skeletons[0].bone_names);
    CHECK(parallel->failures.size() == serial->failures.size());
}
