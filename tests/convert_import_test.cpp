// drape convert's .glb files for the corpus's Elden Ring game folder, opened by the programs a
// user opens them with: the Khronos glTF validator (0 errors), Blender (meshes, vertices, bone
// names, bind-pose bounds) and Godot 3 (meshes, a Skeleton with the game's bone names). The
// expectations are read from the .glb's own JSON and buffer here, not from the exporter.
// External programs: node + gltf-validator, blender, godot3-server; DRAPE_SKIP_EXTERNAL=1 skips.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"  // GCC 12 false positive on string concatenation
#endif
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "corpus.h"
#include "external.h"
#include "drape/convert/convert.h"
#include "drape/exporters/gltf_document.h"

using namespace drape;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

int run(const std::string& cmd, const fs::path& log) {
    const int rc = std::system((cmd + " > '" + log.string() + "' 2>&1").c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string slurp(const fs::path& p) {
    std::ifstream f(p);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

// What a .glb holds, read from its JSON and buffer.
struct GlbFacts {
    fs::path path;
    size_t meshes = 0;                    // nodes that carry a mesh (Blender objects, Godot MeshInstances)
    size_t vertices = 0;                  // distinct indexed vertices per primitive (what Blender keeps)
    std::vector<std::string> joints;      // the skin's joint names
    std::vector<std::string> bones;       // joints and the nodes between them
    std::array<double, 3> lo{1e30, 1e30, 1e30}, hi{-1e30, -1e30, -1e30};  // of the indexed positions, glTF axes
    size_t images = 0, base_colour_materials = 0, animations = 0;
    size_t latin_less_names = 0, game_names = 0;  // node names without [A-Za-z0-9]; extras.game_name kept
};

template <typename T>
std::vector<T> read_accessor(const json& j, const std::vector<uint8_t>& bin, size_t index, size_t comps) {
    const json& a = j["accessors"][index];
    const json& v = j["bufferViews"][a["bufferView"].get<size_t>()];
    const size_t off = v.value("byteOffset", size_t(0)) + a.value("byteOffset", size_t(0));
    std::vector<T> out(a["count"].get<size_t>() * comps);
    REQUIRE(off + out.size() * sizeof(T) <= bin.size());
    std::memcpy(out.data(), bin.data() + off, out.size() * sizeof(T));
    return out;
}

GlbFacts facts_of(const fs::path& path) {
    GlbFacts f;
    f.path = path;
    std::ifstream in(path, std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
    auto g = exporters::read_glb(bytes);
    REQUIRE(g);
    const json j = json::parse(g->json);
    for (const auto& n : j["nodes"]) f.meshes += n.contains("mesh");
    for (const auto& m : j["meshes"])
        for (const auto& p : m["primitives"]) {
            const auto pos = read_accessor<float>(j, g->bin, p["attributes"]["POSITION"].get<size_t>(), 3);
            const size_t ind = p["indices"].get<size_t>();
            std::set<uint32_t> used;
            if (j["accessors"][ind]["componentType"] == 5123)
                for (auto i : read_accessor<uint16_t>(j, g->bin, ind, 1)) used.insert(i);
            else
                for (auto i : read_accessor<uint32_t>(j, g->bin, ind, 1)) used.insert(i);
            f.vertices += used.size();
            for (uint32_t i : used)
                for (size_t c = 0; c < 3; ++c) {
                    f.lo[c] = std::min(f.lo[c], double(pos[i * 3 + c]));
                    f.hi[c] = std::max(f.hi[c], double(pos[i * 3 + c]));
                }
        }
    for (const auto& n : j["skins"][0]["joints"]) f.joints.push_back(j["nodes"][n.get<size_t>()]["name"].get<std::string>());
    // The bones an importer makes: the joints, and the nodes between joints (a node with a joint
    // above and a joint below it; the re-parenting adds such skeleton-only nodes).
    const size_t n = j["nodes"].size();
    std::vector<int> parent(n, -1);
    for (size_t i = 0; i < n; ++i)
        for (const auto& c : j["nodes"][i].value("children", json::array())) parent[c.get<size_t>()] = int(i);
    std::vector<uint8_t> joint(n), below(n), above(n);
    for (const auto& x : j["skins"][0]["joints"]) joint[x.get<size_t>()] = 1;
    for (size_t i = 0; i < n; ++i)
        if (joint[i])
            for (int p = parent[i]; p >= 0 && !below[size_t(p)]; p = parent[size_t(p)]) below[size_t(p)] = 1;
    for (size_t i = 0; i < n; ++i)
        for (int p = parent[i]; p >= 0; p = parent[size_t(p)])
            if (joint[size_t(p)]) {
                above[i] = 1;
                break;
            }
    f.bones = f.joints;
    for (size_t i = 0; i < n; ++i)
        if (!joint[i] && below[i] && above[i]) f.bones.push_back(j["nodes"][i]["name"].get<std::string>());
    for (const auto& nd : j["nodes"]) {
        const std::string name = nd.value("name", std::string());
        bool latin = false;
        for (char c : name) latin = latin || ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'));
        f.latin_less_names += !latin;
        f.game_names += nd.contains("extras") && nd["extras"].contains("game_name");
    }
    f.images = j.value("images", json::array()).size();
    for (const auto& m : j["materials"]) f.base_colour_materials += m["pbrMetallicRoughness"].contains("baseColorTexture");
    f.animations = j.value("animations", json::array()).size();
    return f;
}

// The four characters, converted once for every test here (in name order).
const std::vector<GlbFacts>& converted() {
    static std::vector<GlbFacts> all = [] {
        const fs::path out = test::scratch_dir("convert_import");
        convert::Options o;
        const auto report = convert::convert_folder(test::corpus("er/game"), out, o);
        std::vector<GlbFacts> v;
        for (const auto& r : report.items)
            if (r.ok) v.push_back(facts_of(out / "chr" / (r.name + ".glb")));
        return v;
    }();
    return all;
}

}  // namespace

TEST_CASE("convert imports: the er/game glbs are textured, base colour bound, every c2030 and c5000 clip in" * doctest::test_suite("corpus")) {
    const auto& all = converted();
    REQUIRE(all.size() == 4);
    for (const auto& f : all) {
        CAPTURE(f.path.filename().string());
        CHECK(f.meshes > 0);
        CHECK(f.images > 0);
        CHECK(f.base_colour_materials > 0);
        CHECK(f.joints.size() > 50);
        CHECK(f.latin_less_names == 0);  // Godot 3 refuses a file with a bone it names ""
    }
    CHECK(all[0].path.filename() == "c2030.glb");
    CHECK(all[1].path.filename() == "c3061.glb");
    CHECK(all[2].path.filename() == "c4361.glb");
    CHECK(all[3].path.filename() == "c5000.glb");
    // c2030, c3061 and c4361 name some bones in Japanese only (10, 2 and 10+ of them):
    // prefixed, game name kept.
    CHECK(all[0].game_names == 10);
    CHECK(all[1].game_names == 2);
    CHECK(all[2].game_names >= 10);
    CHECK(all[0].animations == 30);  // c2030.anibnd.dcx holds 30 clips (convert_test reads them)
    CHECK(all[3].animations == 66);  // c5000.anibnd.dcx: 66
}

TEST_CASE("convert imports: the Khronos validator reports 0 errors on every er/game glb" * doctest::test_suite("corpus+external")) {
    if (test::skip_external()) return;
    const auto& all = converted();
    REQUIRE(all.size() == 4);
    for (const auto& f : all) {
        CAPTURE(f.path.string());
        const json rep = test::validate_gltf(f.path);
        REQUIRE_MESSAGE(rep["errors"].get<int>() >= 0, rep.value("why", std::string()));
        for (const auto& m : rep.value("messages", json::array()))
            if (m["severity"].get<int>() == 0)
                MESSAGE(m["code"].get<std::string>() << " " << m["message"].get<std::string>() << " at " << m.value("pointer", ""));
        CHECK(rep["errors"].get<int>() == 0);
    }
}

TEST_CASE("convert imports: Blender imports every er/game glb with its meshes, vertices, bones and bind-pose bounds" * doctest::test_suite("corpus+external")) {
    if (test::skip_external()) return;
    const std::string blender = test::find_on_path("blender");
    REQUIRE_MESSAGE(!blender.empty(), "blender not found on PATH (apt-get install blender; or DRAPE_SKIP_EXTERNAL=1)");
    const auto& all = converted();
    REQUIRE(all.size() == 4);
    json cases = json::array();
    for (const auto& f : all) {
        // Blender names a second bone of the same name "<name>.001" (c3061's FLVER has two
        // Ctrl_Neck and two Ctrl_System bones).
        std::map<std::string, int> seen;
        std::vector<std::string> bones;
        for (const auto& b : f.bones) {
            const int k = seen[b]++;
            char suffix[8];
            std::snprintf(suffix, sizeof suffix, ".%03d", k);
            bones.push_back(k ? b + suffix : b);
        }
        // glTF (x, y, z) -> Blender Z-up (x, -z, y)
        cases.push_back({{"file", f.path.string()},
                         {"meshes", f.meshes},
                         {"vertices", f.vertices},
                         {"bones", bones},
                         {"bbox_min", {f.lo[0], -f.hi[2], f.lo[1]}},
                         {"bbox_max", {f.hi[0], -f.lo[2], f.hi[1]}}});
    }
    const fs::path dir = test::scratch_dir("convert_import_blender");
    std::ofstream(dir / "cases.json") << cases.dump(1);
    const int rc = run(blender + " -b --factory-startup --python " + q(fs::path(DRAPE_SOURCE_DIR) / "tests/blender/check_import.py") + " -- " +
                           q(dir / "cases.json") + " " + q(dir / "result.json"),
                       dir / "blender.log");
    REQUIRE_MESSAGE(fs::exists(dir / "result.json"), "blender exited " << rc << ":\n" << slurp(dir / "blender.log"));
    const json res = json::parse(slurp(dir / "result.json"));
    REQUIRE(res.size() == cases.size());
    for (const auto& r : res) {
        CAPTURE(r["file"].get<std::string>());
        for (const auto& e : r["errors"]) MESSAGE(e.get<std::string>());
        CHECK(r["errors"].empty());
    }
}

TEST_CASE("convert imports: Godot 3 imports every er/game glb with its meshes and a Skeleton of the game's bone names" * doctest::test_suite("corpus+external")) {
    if (test::skip_external()) return;
    REQUIRE_MESSAGE(!test::find_on_path("godot3-server").empty(), "godot3-server not found on PATH (apt-get install godot3-server; or DRAPE_SKIP_EXTERNAL=1)");
    const auto& all = converted();
    REQUIRE(all.size() == 4);
    std::vector<std::pair<std::string, fs::path>> files;
    json cases = json::array();
    for (const auto& f : all) {
        files.emplace_back(f.path.filename().string(), f.path);
        cases.push_back({{"file", "res://models/" + f.path.filename().string()}, {"meshes", f.meshes}, {"bones", f.bones}});
    }
    const auto r = test::godot_check(test::scratch_dir("convert_import_godot"), files, cases);
    CAPTURE(r.log);
    CHECK(r.exit_code == 0);
    CHECK(r.log.find("DRAPE_GODOT_OK " + std::to_string(cases.size())) != std::string::npos);
}
