// Test support: Blender, Godot 3 and the glTF validator behind one call each (external.h).
#include "external.h"
#include "gltf_read.h"

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace drape::test {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

bool skip_external() {
    const char* s = std::getenv("DRAPE_SKIP_EXTERNAL");
    return s && std::string(s) == "1";
}

std::string find_on_path(const std::string& exe) {
    const char* path = std::getenv("PATH");
    const std::string p = path ? path : "";
    size_t start = 0;
    while (start <= p.size()) {
        const size_t end = p.find(':', start);
        const fs::path cand = fs::path(p.substr(start, end == std::string::npos ? std::string::npos : end - start)) / exe;
        if (fs::exists(cand)) return cand.string();
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return "";
}

json blender_bake_check(const fs::path& dir, const json& job) {
    std::ofstream(dir / "job.json") << job.dump();
    fs::remove(dir / "result.json");
    const std::string cmd = "blender -b --factory-startup --python " + q(fs::path(DRAPE_SOURCE_DIR) / "tests/blender/check_bake.py") + " -- " +
                            q(dir / "job.json") + " " + q(dir / "result.json") + " > " + q(dir / "blender.log") + " 2>&1";
    const int rc = std::system(cmd.c_str());
    if (!fs::exists(dir / "result.json"))
        return {{"errors", {"Blender (exit " + std::to_string(rc) + ") wrote no result: " + slurp(dir / "blender.log")}}, {"files", json::object()}};
    return json::parse(slurp(dir / "result.json"));
}

json blender_addon_check(const fs::path& dir, const json& job) {
    std::ofstream(dir / "addon_job.json") << job.dump();
    fs::remove(dir / "addon_result.json");
    // The add-on installs into a scripts folder of the test's own, not the user's Blender configuration.
    const std::string cmd = "BLENDER_USER_SCRIPTS=" + q(dir / "blender_scripts") + " blender -b --factory-startup --python " +
                            q(fs::path(DRAPE_SOURCE_DIR) / "tests/blender/check_addon.py") + " -- " +
                            q(dir / "addon_job.json") + " " + q(dir / "addon_result.json") + " > " + q(dir / "addon_blender.log") + " 2>&1";
    const int rc = std::system(cmd.c_str());
    if (!fs::exists(dir / "addon_result.json"))
        return {{"errors", {"Blender (exit " + std::to_string(rc) + ") wrote no result: " + slurp(dir / "addon_blender.log")}}, {"frames", json::array()}};
    return json::parse(slurp(dir / "addon_result.json"));
}

GodotResult godot_check(const fs::path& dir, const std::vector<std::pair<std::string, fs::path>>& files, const json& cases) {
    GodotResult r;
    const std::string godot = find_on_path("godot3-server");
    if (godot.empty()) {
        r.log = "godot3-server not found on PATH (apt-get install godot3-server; or DRAPE_SKIP_EXTERNAL=1)";
        return r;
    }
    fs::create_directories(dir / "models");
    fs::copy_file(fs::path(DRAPE_SOURCE_DIR) / "tests/godot/project.godot", dir / "project.godot", fs::copy_options::overwrite_existing);
    fs::copy_file(fs::path(DRAPE_SOURCE_DIR) / "tests/godot/check_import.gd", dir / "check_import.gd", fs::copy_options::overwrite_existing);
    for (const auto& [name, path] : files) fs::copy_file(path, dir / "models" / name, fs::copy_options::overwrite_existing);
    std::ofstream(dir / "cases.json") << cases.dump();
    // The editor imports, then lingers: wait for every imported scene, then stop it by its pid
    // (a 300 s timeout bounds it).
    const std::string pidfile = (dir / "godot.pid").string();
    if (std::system(("timeout 300 " + godot + " -e --quit --path " + q(dir) + " > " + q(dir / "import.log") + " 2>&1 & echo $! > '" + pidfile + "'")
                        .c_str()) != 0) {
        r.log = "cannot start " + godot;
        return r;
    }
    pid_t pid = 0;
    std::ifstream(pidfile) >> pid;
    if (pid <= 0) {
        r.log = "no pid for the Godot import";
        return r;
    }
    for (int tick = 0; tick < 600; ++tick) {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        size_t scn = 0, md5 = 0;
        if (fs::exists(dir / ".import"))
            for (const auto& e : fs::directory_iterator(dir / ".import")) {
                scn += e.path().extension() == ".scn";
                md5 += e.path().extension() == ".md5";
            }
        if ((scn >= files.size() && md5 >= files.size()) || ::kill(pid, 0) != 0) break;
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
    ::kill(pid, SIGTERM);
    for (int tick = 0; tick < 50 && ::kill(pid, 0) == 0; ++tick) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    r.exit_code = std::system(("timeout 300 " + godot + " --path " + q(dir) + " -s res://check_import.gd > " + q(dir / "check.log") + " 2>&1").c_str());
    r.log = slurp(dir / "check.log");
    return r;
}

json validate_gltf(const fs::path& file) {
    const std::string node = find_on_path("node");
    if (node.empty()) return {{"errors", -1}, {"why", "node not found on PATH (apt-get install nodejs; or DRAPE_SKIP_EXTERNAL=1)"}};
    const fs::path module = std::getenv("DRAPE_GLTF_VALIDATOR") ? fs::path(std::getenv("DRAPE_GLTF_VALIDATOR"))
                                                                : fs::path(DRAPE_BINARY_DIR) / "node_tools/node_modules/gltf-validator";
    if (!fs::exists(module / "package.json")) return {{"errors", -1}, {"why", "gltf-validator not found at " + module.string() + " (make deps-test)"}};
    fs::path report = file;
    report += ".validator.json";
    const std::string cmd = node + " " + q(fs::path(DRAPE_SOURCE_DIR) / "tests/gltf/validate.mjs") + " " + q(module) + " " + q(file) + " > " + q(report) + " 2>&1";
    if (std::system(cmd.c_str()) != 0) return {{"errors", -1}, {"why", "the validator failed: " + slurp(report)}};
    const json all = json::parse(slurp(report), nullptr, false);
    if (!all.is_array() || all.size() != 1) return {{"errors", -1}, {"why", "the validator's output does not parse: " + slurp(report)}};
    // A second, independent reader: tinygltf must read the file too.
    json r = all[0];
    if (const std::string why = tinygltf_refusal(file); !why.empty()) {
        r["errors"] = r["errors"].get<int>() + 1;
        r["messages"].push_back({{"severity", 0}, {"code", "TINYGLTF_REFUSED"}, {"message", why}});
    }
    return r;
}

}  // namespace drape::test
