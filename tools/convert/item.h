// drape::convert internals: one item (a character, a part, a loose model) and its inputs.
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "drape/convert/convert.h"
#include "drape/havok/animation.h"
#include "drape/io/error.h"
#include "drape/matbin/matbin.h"

namespace drape::convert {

struct ItemInputs {
    std::string name, folder;
    std::filesystem::path base;                       // the root the relative paths start from
    std::filesystem::path model;                      // chrbnd, partsbnd or loose FLVER
    std::vector<std::filesystem::path> extra_models;  // more model files of the same name (reported)
    bool part = false;
    std::filesystem::path main_anibnd;
    std::vector<std::filesystem::path> clip_anibnds;  // _divNN, _aNN*: clips on the main skeleton
    std::filesystem::path texbnd_high, texbnd_low;
    std::vector<std::filesystem::path> tpfs;          // loose TPFs of the same name
    std::vector<std::filesystem::path> cloth_files;   // loose *_c.hkx
    std::filesystem::path player_anibnd;              // parts: chr/c0000.anibnd.dcx
    std::vector<std::filesystem::path> material_libraries;
};

// What jobs share: the player skeleton, loaded once.
class JobPool;

struct SharedCache {
    // The run's threads: an item fans its textures and clips out on it (null: sequential).
    JobPool* pool = nullptr;
    std::once_flag player_once;
    std::optional<havok::Skeleton> player_skeleton;
    // The folder's MATBIN / MTD binders, indexed before the jobs start (lookups are thread-safe).
    matbin::MaterialLibrary materials;
};

ItemResult convert_item(const ItemInputs& in, const std::filesystem::path& out, const Options& options, SharedCache& cache);
nlohmann::ordered_json item_json(const ItemResult& r);

// Writes `path` through a temporary file in the same folder and a rename, so that an
// interrupted run leaves no half-written file under the final name.
Result<void> write_atomic(const std::filesystem::path& path, const std::vector<uint8_t>& bytes);
// The same for content written by `write` (false when it failed), e.g. a .glb streamed out.
Result<void> write_atomic(const std::filesystem::path& path, const std::function<bool(std::ostream&)>& write);

}  // namespace drape::convert
