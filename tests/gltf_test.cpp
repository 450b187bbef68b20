// glTF export of every corpus FLVER: structure checks in C++, then the Khronos validator,
// Blender and Godot on all outputs (one run each). External tools are found on PATH (node,
// blender, godot3-server) and the validator module in <build>/node_tools/node_modules; a missing
// tool FAILS the test unless DRAPE_SKIP_EXTERNAL=1.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"  // GCC 12 false positive on string concatenation
#endif
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>
#include <chrono>
#include <thread>

#include "run.h"
#include "corpus.h"
#include "gltf_read.h"
#include "drape/exporters/gltf.h"
#include "drape/flver/flver.h"
#include "flver_corpus.h"
#include "flver_fixture.h"
#include "drape/exporters/textures.h"
#include "drape/tpf/bc.h"
#include "drape/tpf/tpf.h"
#include <algorithm>

using namespace drape;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct Output {
    test::CorpusFlver item;
    flver::Model model;
    fs::path path;
};

const std::vector<Output>& outputs() {
    static std::vector<Output> outs = [] {
        std::vector<Output> o;
        // Per process: ctest runs every TEST_CASE as its own process, several at once.
        static struct Scratch {
            fs::path dir = test::scratch_dir("gltf_" + std::to_string(::getpid()));
            ~Scratch() {
                std::error_code ec;
                fs::remove_all(dir, ec);
            }
        } scratch;
        fs::path dir = scratch.dir;
        for (auto& item : test::corpus_flvers()) {
            auto r = flver::read_flver(item.bytes);
            if (!r) continue;
            Output out{item, std::move(*r), dir / (item.label + ".glb")};
            exporters::GltfOptions opt;
            if (!exporters::write_gltf(out.model, out.path, opt)) continue;
            o.push_back(std::move(out));
        }
        // One model with its textures: ds3/EliteKnight.tpf decoded to PNG by the TPF reader.
        for (auto& base : o) {
            if (base.item.label != "EliteKnight") continue;
            Output t = base;
            t.path = dir / "EliteKnight_textured.glb";
            exporters::GltfOptions opt;
            const auto tpf_bytes = test::load(test::corpus("ds3/EliteKnight.tpf"));
            auto tpf = tpf::read_tpf(tpf_bytes);
            if (!tpf) break;
            const auto encoded = image::encode_tpf_textures(*tpf);
            if (!image::write_textures(encoded, dir / "EliteKnight_textured_tex", "EliteKnight_textured_tex/", opt.textures)) break;
            if (exporters::write_gltf(t.model, t.path, opt)) o.push_back(std::move(t));
            break;
        }
        // One model also as .gltf + .bin.
        if (!o.empty()) {
            Output g = o.front();
            g.path = dir / (g.item.label + "_text.gltf");
            exporters::GltfOptions opt;
            opt.binary = false;
            if (exporters::write_gltf(g.model, g.path, opt)) o.push_back(std::move(g));
        }
        return o;
    }();
    return outs;
}

json peer_flver(const test::CorpusFlver& item) {
    std::ifstream f(test::reference_dir() / "peer" / "soulstruct" / (item.corpus_file + ".json"));
    json p = json::parse(f);
    return item.member.empty() ? p["flver"] : p["members"][item.member]["flver"];
}

// A .glb / .gltf as tinygltf reads it (accessors through it), with its JSON.
using Gltf = test::GltfRead;

Gltf parse(const fs::path& p) { return test::read_gltf(p); }

bool skip_external() {
    const char* s = std::getenv("DRAPE_SKIP_EXTERNAL");
    return s && std::string(s) == "1";
}

std::string find_on_path(const std::string& exe) {
    const char* path = std::getenv("PATH");
    std::stringstream ss(path ? path : "");
    std::string dir;
    while (std::getline(ss, dir, ':')) {
        fs::path p = fs::path(dir) / exe;
        if (fs::exists(p)) return p.string();
    }
    return {};
}

// Runs a shell command, output to `log`; returns the exit status.
int run(const std::string& cmd, const fs::path& log) {
    std::string full = cmd + " > '" + log.string() + "' 2>&1";
    int rc = std::system(full.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string slurp(const fs::path& p) {
    std::ifstream f(p);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

}  // namespace

TEST_CASE("gltf: every corpus FLVER exports, structure matches the FLVER" * doctest::test_suite("corpus")) {
    const auto& outs = outputs();
    REQUIRE(outs.size() == test::corpus_flvers().size() + 2);
    for (const auto& o : outs) {
        CAPTURE(o.path.filename().string());
        json p = peer_flver(o.item);
        Gltf g = parse(o.path);
        const auto& names = p["bone_names"];
        // Root node, then one node per bone with the game's names, in order.
        REQUIRE(g.j["nodes"].size() >= names.size() + 1);
        for (size_t i = 0; i < names.size(); ++i) CHECK(g.j["nodes"][i + 1]["name"] == names[i]);
        REQUIRE(g.j["skins"].size() == 1);
        CHECK(g.j["skins"][0]["joints"].size() == names.size());
        CHECK(g.j["meshes"].size() == p["mesh_count"].get<size_t>());
        // Dummies: one node named dummy_<id> per dummy poly.
        size_t dummies = 0;
        for (const auto& n : g.j["nodes"]) dummies += n["name"].get<std::string>().rfind("dummy_", 0) == 0;
        CHECK(dummies == p["dummy_count"].get<size_t>());

        for (size_t mi = 0; mi < g.j["meshes"].size(); ++mi) {
            CAPTURE(mi);
            const auto& gm = g.j["meshes"][mi];
            const auto& prim = gm["primitives"][0];
            const auto& mesh = o.model.meshes[mi];
            // Display mask in the name and extras (material "#NN#").
            std::string mat = p["meshes"][mi]["material_name"];
            int mask = (mat.size() >= 4 && mat[0] == '#' && mat[3] == '#') ? std::stoi(mat.substr(1, 2)) : -1;
            CHECK(gm["extras"]["display_mask"].get<int>() == mask);
            if (mask >= 0) CHECK(gm["name"].get<std::string>().find("_mask" + mat.substr(1, 2)) != std::string::npos);
            // Vertices: every FLVER vertex in FLVER order (glTF vertex i = FLVER vertex i, which the
            // cloth's display buffers need); positions mirrored (x, y, -z).
            auto pos = g.accessor<float>(prim["attributes"]["POSITION"]);
            REQUIRE(pos.size() == size_t(mesh.vertices.count) * 3);
            for (uint32_t u = 0; u < mesh.vertices.count; u += 97) {
                const auto& v = mesh.vertices.positions[u];
                CHECK(pos[u * 3 + 0] == v.x);
                CHECK(pos[u * 3 + 2] == -v.z);
            }
            // _DRAPE_VERTEX: each vertex's FLVER index, for hosts whose importers reorder vertices.
            REQUIRE(prim["attributes"].contains("_DRAPE_VERTEX"));
            auto flver_index = g.accessor<float>(prim["attributes"]["_DRAPE_VERTEX"]);
            REQUIRE(flver_index.size() == size_t(mesh.vertices.count));
            size_t in_order = 0;
            for (uint32_t u = 0; u < mesh.vertices.count; ++u) in_order += flver_index[u] == float(u);
            CHECK(in_order == mesh.vertices.count);
            float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
            for (uint32_t u = 0; u < mesh.vertices.count; ++u) {
                const auto& v = mesh.vertices.positions[u];
                float m[3] = {v.x, v.y, -v.z};
                for (int c = 0; c < 3; ++c) lo[c] = std::min(lo[c], m[c]), hi[c] = std::max(hi[c], m[c]);
            }
            const auto& acc = g.j["accessors"][prim["attributes"]["POSITION"].get<size_t>()];
            for (int c = 0; c < 3; ++c) {
                CHECK(acc["min"][size_t(c)].get<double>() == doctest::Approx(lo[c]).epsilon(1e-6));
                CHECK(acc["max"][size_t(c)].get<double>() == doctest::Approx(hi[c]).epsilon(1e-6));
            }
            // Winding: glTF front faces are counter-clockwise; the geometric normal must agree
            // with the vertex normals.
            auto nrm = g.accessor<float>(prim["attributes"]["NORMAL"]);
            std::vector<uint32_t> idx;
            const auto& ia = g.j["accessors"][prim["indices"].get<size_t>()];
            if (ia["componentType"] == 5123) {
                auto i16 = g.accessor<uint16_t>(prim["indices"]);
                idx.assign(i16.begin(), i16.end());
            } else {
                idx = g.accessor<uint32_t>(prim["indices"]);
            }
            CHECK(idx.size() == mesh.lod0()->triangles(mesh.vertices.count).size() * 3);
            size_t agree = 0;
            for (size_t t = 0; t + 2 < idx.size(); t += 3) {
                const float* a = &pos[idx[t] * 3];
                const float* b = &pos[idx[t + 1] * 3];
                const float* c = &pos[idx[t + 2] * 3];
                float u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
                float cr[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
                float d = 0;
                for (int k = 0; k < 3; ++k)
                    d += cr[k] * (nrm[idx[t] * 3 + size_t(k)] + nrm[idx[t + 1] * 3 + size_t(k)] + nrm[idx[t + 2] * 3 + size_t(k)]);
                agree += d > 0;
            }
            CHECK(double(agree) >= 0.95 * double(idx.size() / 3));
            // Skin weights: normalised, joints in range.
            auto wts = g.accessor<float>(prim["attributes"]["WEIGHTS_0"]);
            auto jts = g.accessor<uint16_t>(prim["attributes"]["JOINTS_0"]);
            for (size_t k = 0; k < wts.size(); k += 4) {
                CHECK(wts[k] + wts[k + 1] + wts[k + 2] + wts[k + 3] == doctest::Approx(1.0).epsilon(1e-5));
                for (size_t c = 0; c < 4; ++c) CHECK(jts[k + c] < names.size());
            }
        }
    }
}

TEST_CASE("gltf: characters face +Z with their left side at +X (glTF's convention)") {
    for (const auto& o : outputs()) {
        Gltf g = parse(o.path);
        auto ibm = g.accessor<float>(g.j["skins"][0]["inverseBindMatrices"]);
        // World position of a joint from its inverse bind matrix: -R^T t.
        auto world_pos = [&](const std::string& name, float out[3]) {
            const auto& joints = g.j["skins"][0]["joints"];
            for (size_t j = 0; j < joints.size(); ++j) {
                if (g.j["nodes"][joints[j].get<size_t>()]["name"] != name) continue;
                const float* m = &ibm[j * 16];
                for (int r = 0; r < 3; ++r) out[r] = -(m[r * 4 + 0] * m[12] + m[r * 4 + 1] * m[13] + m[r * 4 + 2] * m[14]);
                return true;
            }
            return false;
        };
        float foot[3], toe[3];
        if (!(world_pos("L_Foot", foot) && world_pos("L_Toe0", toe)) && !(world_pos("L Foot", foot) && world_pos("L Toe0", toe)))
            continue;
        CAPTURE(o.path.filename().string());
        CHECK(toe[2] > foot[2]);  // toes ahead of the ankle: facing +Z
        CHECK(foot[0] > 0);       // the left foot on +X
    }
}

TEST_CASE("gltf: bone-match report on the FLVER's own skeleton and a hand-made one" * doctest::test_suite("corpus")) {
    auto items = test::flvers_in("ds3/EliteKnight.flver");
    REQUIRE(items.size() == 1);
    auto m = flver::read_flver(items[0].bytes);
    REQUIRE(m);
    auto self = exporters::match_skeleton(*m, exporters::skeleton_from_flver(*m));
    CHECK(self.matched.size() == m->nodes.size());
    CHECK(self.flver_only.empty());
    CHECK(self.havok_only.empty());
    CHECK(self.pose_mismatches.empty());
    // Hand-made: Master at the origin with identity rotation (the FLVER's Master is turned
    // 90 degrees about Y: rotate_euler [0, 1.5708, 0] in soulstruct's reading), an extra bone,
    // and no Pelvis.
    exporters::Skeleton s;
    s.bones.push_back({"Master", -1, {0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}});
    s.bones.push_back({"NotInFlver", 0, {0, 1, 0}, {0, 0, 0, 1}, {1, 1, 1}});
    auto rep = exporters::match_skeleton(*m, s, 1e-3f, 0.1f);
    CHECK(rep.matched == std::vector<std::string>{"Master"});
    CHECK(rep.havok_only == std::vector<std::string>{"NotInFlver"});
    CHECK(rep.flver_only.size() == m->nodes.size() - 1);
    REQUIRE(rep.pose_mismatches.size() == 1);
    CHECK(rep.pose_mismatches[0].rotation_error_deg == doctest::Approx(90.0).epsilon(1e-3));
    CHECK(rep.to_text().find("pose-differs Master") != std::string::npos);
    // Parts share the skeleton's bind pose. DS3_am keeps the node hierarchy,
    // EliteKnight's nodes are all top-level (soulstruct: every parent -1); their model-space
    // bind poses must still agree on the body's bones.
    auto am_items = test::flvers_in("ds3/DS3_am.dcx");
    REQUIRE(am_items.size() == 1);
    auto am = flver::read_flver(am_items[0].bytes);
    REQUIRE(am);
    auto cross = exporters::match_skeleton(*am, exporters::skeleton_from_flver(*m));
    CHECK(cross.matched.size() == 109);
    CHECK(cross.pose_mismatches.size() <= 4);
    for (const auto& mm : cross.pose_mismatches) CHECK(mm.name.find("_Weapon") + mm.name.find("_Shield") != 2 * std::string::npos);
    for (const char* body : {"Pelvis", "Spine", "Neck", "Head", "L_Hand", "R_Foot", "L_Finger01"}) {
        bool mismatched = false;
        for (const auto& mm : cross.pose_mismatches) mismatched |= mm.name == body;
        CHECK_FALSE(mismatched);
    }
}

TEST_CASE("gltf: the Khronos validator reports no errors on any output" * doctest::test_suite("external")) {
    if (skip_external()) return;
    std::string node = find_on_path("node");
    REQUIRE_MESSAGE(!node.empty(), "node not found on PATH (apt-get install nodejs; or DRAPE_SKIP_EXTERNAL=1)");
    // $DRAPE_GLTF_VALIDATOR, else <build>/node_tools (npm install --prefix <build>/node_tools gltf-validator),
    // else a global npm install.
    fs::path module = std::getenv("DRAPE_GLTF_VALIDATOR") ? fs::path(std::getenv("DRAPE_GLTF_VALIDATOR"))
                                                          : fs::path(DRAPE_BINARY_DIR) / "node_tools/node_modules/gltf-validator";
    for (const char* global : {"/usr/local/lib/node_modules/gltf-validator", "/usr/lib/node_modules/gltf-validator"})
        if (!fs::exists(module / "package.json") && !std::getenv("DRAPE_GLTF_VALIDATOR") && fs::exists(fs::path(global) / "package.json"))
            module = global;
    REQUIRE_MESSAGE(fs::exists(module / "package.json"),
                    "gltf-validator not found at " << module.string()
                                                   << " (npm install --prefix <build>/node_tools gltf-validator)");
    std::string cmd = node + " " + q(fs::path(DRAPE_SOURCE_DIR) / "tests/gltf/validate.mjs") + " " + q(module);
    for (const auto& o : outputs()) cmd += " " + q(o.path);
    fs::path log = test::scratch_dir("gltf_validator") / "report.json";
    REQUIRE(run(cmd, log) == 0);
    json rep = json::parse(slurp(log));
    REQUIRE(rep.size() == outputs().size());
    for (const auto& f : rep) {
        CAPTURE(f["file"].get<std::string>());
        MESSAGE("gltf-validator " << fs::path(f["file"].get<std::string>()).filename().string() << ": " << f["errors"].get<int>()
                                  << " errors, " << f["warnings"].get<int>() << " warnings, " << f["infos"].get<int>()
                                  << " infos (docs/model-export.md explains the infos)");
        for (const auto& m : f["messages"])
            if (m["severity"].get<int>() <= 1)
                MESSAGE(fs::path(f["file"].get<std::string>()).filename().string() << ": " << m["code"].get<std::string>() << " "
                                                                                   << m["message"].get<std::string>() << " at "
                                                                                   << m.value("pointer", ""));
        CHECK(f["errors"].get<int>() == 0);
    }
}

TEST_CASE("gltf: Blender imports every output with the FLVER's meshes, vertices, bones and bind-pose bounds" * doctest::test_suite("external")) {
    if (skip_external()) return;
    std::string blender = find_on_path("blender");
    REQUIRE_MESSAGE(!blender.empty(), "blender not found on PATH (apt-get install blender; or DRAPE_SKIP_EXTERNAL=1)");
    // Expectations from the peer reading (names, bounding boxes) and from the files (vertex counts).
    json cases = json::array();
    for (const auto& o : outputs()) {
        json p = peer_flver(o.item);
        Gltf g = parse(o.path);
        // Blender keeps the vertices the triangles use (it drops the ones only LOD1/LOD2 use).
        size_t vertices = 0;
        for (const auto& m : g.j["meshes"]) {
            const auto& ind = m["primitives"][0]["indices"];
            std::set<uint32_t> distinct;
            if (g.j["accessors"][ind.get<size_t>()]["componentType"] == 5123)
                for (auto i : g.accessor<uint16_t>(ind)) distinct.insert(i);
            else
                for (auto i : g.accessor<uint32_t>(ind)) distinct.insert(i);
            vertices += distinct.size();
        }
        // FLVER header box (game x, y, z) -> glTF (x, y, -z) -> Blender Z-up (x, -z_gltf, y_gltf) = (x, z, y).
        const auto& bmin = p["bounding_box_min"];
        const auto& bmax = p["bounding_box_max"];
        cases.push_back({{"file", o.path.string()},
                         {"meshes", p["mesh_count"]},
                         {"vertices", vertices},
                         {"bones", p["bone_names"]},
                         {"bbox_min", {bmin[0], bmin[2], bmin[1]}},
                         {"bbox_max", {bmax[0], bmax[2], bmax[1]}}});
    }
    fs::path dir = test::scratch_dir("gltf_blender");
    {
        std::ofstream f(dir / "cases.json");
        f << cases.dump(1);
    }
    int rc = run(blender + " -b --factory-startup --python " + q(fs::path(DRAPE_SOURCE_DIR) / "tests/blender/check_import.py") +
                     " -- " + q(dir / "cases.json") + " " + q(dir / "result.json"),
                 dir / "blender.log");
    std::string log = slurp(dir / "blender.log");
    REQUIRE_MESSAGE(fs::exists(dir / "result.json"), "blender exited " << rc << ":\n" << log);
    json res = json::parse(slurp(dir / "result.json"));
    REQUIRE(res.size() == cases.size());
    for (const auto& r : res) {
        CAPTURE(r["file"].get<std::string>());
        for (const auto& e : r["errors"]) MESSAGE(e.get<std::string>());
        CHECK(r["errors"].empty());
    }
}

TEST_CASE("gltf: Godot 3 imports every output and finds the meshes and a Skeleton with the game's bone names" * doctest::test_suite("corpus+external")) {
    if (skip_external()) return;
    std::string godot = find_on_path("godot3-server");
    REQUIRE_MESSAGE(!godot.empty(), "godot3-server not found on PATH (apt-get install godot3-server; or DRAPE_SKIP_EXTERNAL=1)");
    fs::path proj = test::scratch_dir("gltf_godot");
    fs::copy_file(fs::path(DRAPE_SOURCE_DIR) / "tests/godot/project.godot", proj / "project.godot");
    fs::copy_file(fs::path(DRAPE_SOURCE_DIR) / "tests/godot/check_import.gd", proj / "check_import.gd");
    fs::create_directories(proj / "models");
    REQUIRE_MESSAGE(!outputs().empty(), "no corpus FLVER was exported (is the corpus at " << test::corpus_dir().string() << "?)");
    fs::copy(outputs().front().path.parent_path() / "EliteKnight_textured_tex", proj / "models" / "EliteKnight_textured_tex",
             fs::copy_options::recursive);
    json cases = json::array();
    for (const auto& o : outputs()) {
        if (o.path.extension() != ".glb") continue;
        fs::copy_file(o.path, proj / "models" / o.path.filename());
        json p = peer_flver(o.item);
        cases.push_back({{"file", "res://models/" + o.path.filename().string()}, {"meshes", p["mesh_count"]}, {"bones", p["bone_names"]}});
    }
    {
        std::ofstream f(proj / "cases.json");
        f << cases.dump();
    }
    // The editor imports the files, then lingers: start it in the background, wait until every
    // model has its imported scene and .md5, then stop it (by its pid; a 120 s timeout bounds it).
    const std::string pidfile = (proj / "godot.pid").string();
    REQUIRE(std::system(("timeout 120 " + godot + " -e --quit --path " + q(proj) + " > " + q(proj / "import.log") +
                         " 2>&1 & echo $! > '" + pidfile + "'")
                            .c_str()) == 0);
    pid_t pid = 0;
    {
        std::ifstream pf(pidfile);
        pf >> pid;
    }
    REQUIRE(pid > 0);
    for (int tick = 0; tick < 240; ++tick) {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        size_t scn = 0, md5 = 0;
        if (fs::exists(proj / ".import"))
            for (const auto& e : fs::directory_iterator(proj / ".import")) {
                scn += e.path().extension() == ".scn";
                md5 += e.path().extension() == ".md5";
            }
        bool alive = ::kill(pid, 0) == 0;
        if ((scn >= cases.size() && md5 >= cases.size()) || !alive) break;
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
    ::kill(pid, SIGTERM);
    for (int tick = 0; tick < 50 && ::kill(pid, 0) == 0; ++tick) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    int rc = run("timeout 120 " + godot + " --path " + q(proj) + " -s res://check_import.gd", proj / "check.log");
    std::string log = slurp(proj / "check.log");
    CAPTURE(log);
    CHECK(rc == 0);
    CHECK(log.find("DRAPE_GODOT_OK " + std::to_string(cases.size())) != std::string::npos);
}


namespace {
int run_cli(std::vector<std::string> args) { return drape::test::run_drape(args).exit_code; }
}  // namespace

TEST_CASE("drape model: a .dcx binder to .glb with a bone report, a .mapbnd to .gltf, errors" * doctest::test_suite("corpus")) {
    fs::path dir = test::scratch_dir("cli_model");
    CHECK(run_cli({"model", test::corpus("ds3/DS3_am.dcx").string(), "-o", (dir / "am.glb").string(), "--skeleton",
                   test::corpus("ds3/EliteKnight.flver").string()}) == 0);
    CHECK(fs::file_size(dir / "am.glb") > 1000);
    std::string report = slurp(dir / "am.bones.txt");
    // Both FLVERs name Martin/HD_M_7200 vs AM_F_1210/Head differently (soulstruct's bone lists).
    CHECK(report.find("flver-only AM_F_1210") != std::string::npos);
    CHECK(report.find("skeleton-only HD_M_7200") != std::string::npos);
    CHECK(run_cli({"model", test::corpus("er/m60_23_28_01_60465600.mapbnd").string(), "-o", (dir / "m60.gltf").string()}) == 0);
    CHECK(fs::exists(dir / "m60.bin"));
    Gltf g = parse(dir / "m60.gltf");
    CHECK(g.j["nodes"][1]["name"] == "m60_23_28_01_60465600");
    // A binder without a FLVER, and a missing --skeleton file.
    CHECK(run_cli({"model", test::corpus("ds3/c0000.anibnd.dcx").string(), "-o", (dir / "x.glb").string()}) == 1);
    CHECK_FALSE(fs::exists(dir / "x.glb"));
    CHECK(run_cli({"model", test::corpus("ds3/EliteKnight.flver").string()}) == drape::test::k_drape_usage);
}

TEST_CASE("gltf: textures bind by role (_a base colour, _n normal, _r KHR_materials_specular), originals in extras" * doctest::test_suite("corpus+external")) {
    const Output* t = nullptr;
    for (const auto& o : outputs())
        if (o.path.filename() == "EliteKnight_textured.glb") t = &o;
    REQUIRE(t);
    Gltf g = parse(t->path);
    const auto& m0 = g.j["materials"][0];
    // soulstruct: material "1" has HD_M_7200_a (g_DiffuseTexture), _n (g_BumpmapTexture), _r (g_SpecularTexture).
    auto image_of = [&](const json& texinfo) {
        return g.j["images"][g.j["textures"][texinfo["index"].get<size_t>()]["source"].get<size_t>()]["uri"].get<std::string>();
    };
    // The TPF names them HD_M_7200_a/_n/_r (soulstruct's reading of ds3/EliteKnight.tpf).
    CHECK(image_of(m0["pbrMetallicRoughness"]["baseColorTexture"]) == "EliteKnight_textured_tex/HD_M_7200_a.png");
    CHECK(image_of(m0["normalTexture"]) == "EliteKnight_textured_tex/HD_M_7200_n.png");
    CHECK(image_of(m0["extensions"]["KHR_materials_specular"]["specularColorTexture"]) == "EliteKnight_textured_tex/HD_M_7200_r.png");
    for (const auto& img : g.j["images"]) CHECK(fs::exists(t->path.parent_path() / img["uri"].get<std::string>()));
    // tinygltf decodes each PNG (stb_image, not our code): the base colour holds the TPF's pixels.
    REQUIRE(g.m().images.size() == g.j["images"].size());
    size_t compared = 0;
    for (size_t i = 0; i < g.m().images.size(); ++i) {
        if (g.j["images"][i]["uri"] != "EliteKnight_textured_tex/HD_M_7200_a.png") continue;
        const auto tpf_bytes = test::load(test::corpus("ds3/EliteKnight.tpf"));
        auto tpf = tpf::read_tpf(tpf_bytes);
        REQUIRE(tpf);
        for (const auto& tex : tpf->textures) {
            if (tex.name != "HD_M_7200_a") continue;
            auto dds = tpf::parse_dds(tex.dds);
            REQUIRE(dds);
            auto decoded = tpf::decode_surface(*dds);
            REQUIRE(decoded);
            const tpf::Image rgba8 = tpf::to_unorm8_clamped(*decoded);
            int w = 0, h = 0;
            const auto pixels = g.rgba(int(i), &w, &h);
            REQUIRE(uint32_t(w) == rgba8.width);
            REQUIRE(uint32_t(h) == rgba8.height);
            REQUIRE(pixels.size() == size_t(w) * size_t(h) * 4);
            size_t differ = 0;
            for (size_t p = 0; p < size_t(w) * size_t(h); ++p)
                for (size_t c = 0; c < 4; ++c) {
                    const uint8_t want = c < rgba8.channels ? rgba8.u8[p * rgba8.channels + c] : (c == 3 ? 255 : rgba8.u8[p * rgba8.channels]);
                    differ += pixels[p * 4 + c] != want;
                }
            CHECK(differ == 0);
            ++compared;
        }
    }
    CHECK(compared == 1);
    // The _n PNG's blue is rebuilt as the normal's Z (the game keeps gloss there): checked with
    // Pillow, every 97th pixel must be a unit vector within the 8-bit rounding.
    if (!skip_external()) {
        fs::path png = t->path.parent_path() / "EliteKnight_textured_tex/HD_M_7200_n.png";
        fs::path log = test::scratch_dir("gltf_normal_png") / "out.txt";
        std::string py = "from PIL import Image; im = Image.open('" + png.string() +
                         "').convert('RGB'); px = list(im.getdata())[::97]; "
                         "bad = [p for p in px if abs(sum((c / 127.5 - 1) ** 2 for c in p) - 1) > 0.03]; "
                         "print(len(px), len(bad))";
        // Debian's python3-pil lives with /usr/bin/python3 (a pyenv python3 may shadow it on PATH).
        const std::string python = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
        REQUIRE(run(python + " -c \"" + py + "\"", log) == 0);
        size_t total = 0, bad = 1;
        std::istringstream(slurp(log)) >> total >> bad;
        CHECK(total > 1000);
        CHECK(bad == 0);
    }
    CHECK(m0["extras"]["mtd"] == "M[ARSN].mtd");
    CHECK(m0["extras"]["textures"].size() == 6);
    CHECK(m0["extras"]["textures"][1]["path"] == "N:\\FDP\\data\\Other\\SysTex\\SYSTEX_DummyBurn_m.tif");
    // SYSTEX placeholders are never bound.
    for (const auto& img : g.j["images"]) CHECK(img["uri"].get<std::string>().find("systex") == std::string::npos);
    CHECK(exporters::texture_key("N:\\FDP\\x\\HD_M_7200_a.tif") == "hd_m_7200_a");
}

TEST_CASE("gltf: dummy polys follow the CreateWorld rule and rigid vertices sit in their node's space") {
    test::FlverFixture fx;
    fx.dynamic = false;
    fx.normal_w = 1;  // every vertex in node 1's space: translated +1 in Y
    auto m = flver::read_flver(fx.build());
    REQUIRE(m);
    exporters::GltfOptions opt;
    auto bytes = exporters::gltf_bytes(*m, opt);
    REQUIRE(bytes);
    fs::path p = test::scratch_dir("gltf_fixture") / "fx.glb";
    { std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes->data()), long(bytes->size())); }
    Gltf g = parse(p);
    // Dummy 100: position (0,1,0) on parent node 0 (identity), forward (0,0,1), upward (0,1,0),
    // attached to node 1 (translation (0,1,0)). By hand: CreateWorld gives right = f x u =
    // (-1,0,0), up = right x f = (0,1,0), backward = -f: a half turn about Y at (0,1,0), which is
    // node 1's origin: local translation 0, rotation (0, +-1, 0, 0) (the Z mirror keeps it).
    const json* d = nullptr;
    for (const auto& n : g.j["nodes"])
        if (n["name"] == "dummy_100") d = &n;
    REQUIRE(d);
    CHECK(std::find(g.j["nodes"][2]["children"].begin(), g.j["nodes"][2]["children"].end(), json(int(&*d - &g.j["nodes"][0]))) !=
          g.j["nodes"][2]["children"].end());
    for (int c = 0; c < 3; ++c) CHECK(std::fabs((*d)["translation"][size_t(c)].get<double>()) < 1e-6);
    CHECK(std::fabs((*d)["rotation"][1].get<double>()) == doctest::Approx(1.0));
    CHECK((*d)["extras"]["reference_id"] == 100);
    CHECK((*d)["extras"]["attach_node"] == "bone1");
    CHECK((*d)["extras"]["parent_node"] == "bone0");
    // Rigid: positions y 0..2 in node 1's space (translation y = 1) -> 1..3; z mirrored.
    const auto& acc = g.j["accessors"][g.j["meshes"][0]["primitives"][0]["attributes"]["POSITION"].get<size_t>()];
    CHECK(acc["min"][1].get<double>() == doctest::Approx(1.0));
    CHECK(acc["max"][1].get<double>() == doctest::Approx(3.0));
    CHECK(acc["min"][2].get<double>() == doctest::Approx(-1.0));
    auto jts = g.accessor<uint16_t>(g.j["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"]);
    CHECK(jts[0] == 1);
    // Display mask 3 from "#03#Cape".
    CHECK(g.j["meshes"][0]["name"] == "mesh00_mask03_#03#Cape");
    // 16-bit joints end to end: node 299 of 300.
    test::FlverFixture big;
    big.node_count = 300;
    big.bone_index = 299;
    auto mb = flver::read_flver(big.build());
    REQUIRE(mb);
    auto bb = exporters::gltf_bytes(*mb, opt);
    REQUIRE(bb);
    { std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bb->data()), long(bb->size())); }
    Gltf gb = parse(p);
    auto jb = gb.accessor<uint16_t>(gb.j["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"]);
    CHECK(jb[0] == 299);
}
