// Test support: the external clients the bake and import tests hand files to (Blender headless,
// Godot 3 headless, the Khronos glTF validator), each behind one call.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace drape::test {

// DRAPE_SKIP_EXTERNAL=1: the tests that need Blender, Godot or Node.js return early.
bool skip_external();
std::string find_on_path(const std::string& exe);  // "" when absent

// Runs tests/blender/check_bake.py on `job` ({"files": [...], "animation": name or null,
// "times": [...], "meshes": [...] or absent, "bones": [...] or absent}) in `dir`; returns its
// result.json ({"errors": [...], "files": {...}}), or {"errors": ["..."]} with the log when
// Blender wrote none.
nlohmann::json blender_bake_check(const std::filesystem::path& dir, const nlohmann::json& job);
// Installs the add-on zip job["addon"] in Blender (headless), imports job["model"], makes clip
// job["animation"] active, attaches job["cloth"] at frame 0 and plays job["frames"] frames
// (tests/blender/check_addon.py); the result holds every visible mesh's world vertices per frame.
nlohmann::json blender_addon_check(const std::filesystem::path& dir, const nlohmann::json& job);

// Copies `files` (name -> path) into a fresh Godot 3 project under `dir` (models/<name>), lets
// the editor import them, then runs tests/godot/check_import.gd on `cases` (each "file" is
// "res://models/<name>"). Returns the exit code and the check's output.
struct GodotResult {
    int exit_code = -1;
    std::string log;
};
GodotResult godot_check(const std::filesystem::path& dir, const std::vector<std::pair<std::string, std::filesystem::path>>& files,
                        const nlohmann::json& cases);

// The Khronos validator (DRAPE_GLTF_VALIDATOR, else build/node_tools) on one file: its report
// ({file, errors, warnings, infos, messages}); {"errors": -1, "why": ...} when it cannot run.
nlohmann::json validate_gltf(const std::filesystem::path& file);

}  // namespace drape::test
