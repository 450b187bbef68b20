// drape::convert internals: one item (a character, a part, a loose model) and its inputs.
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "drape/convert/convert.h"
#include "drape/flver/flver.h"
#include "drape/game/containers.h"
#include "drape/havok/animation.h"
#include "drape/io/error.h"
#include "drape/matbin/matbin.h"
#include "drape/param/param.h"

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

// The game's NpcParam, read once per run for the characters' display masks.
struct NpcParams {
    std::string status;                  // what was read ("regulation.bin: Elden Ring NpcParam, 12,345 rows") or why not
    std::vector<uint8_t> bytes;          // the PARAM the table's rows point into
    std::optional<param::Param> table;   // the table read (its rows listed even without a layout)
    std::optional<param::Layout> layout; // set only when a layout fits the table: the masks are known
    param::Game game = param::Game::unknown;
};
// Reads NpcParam from `path` (a regulation or parambnd); the status says what was found.
NpcParams load_npc_params(const std::filesystem::path& path, const std::string& label, const dcx::DecodeOptions& dcx);

struct SharedCache {
    // The run's threads: an item fans its textures and clips out on it (null: sequential).
    JobPool* pool = nullptr;
    std::once_flag player_once;
    std::optional<havok::Skeleton> player_skeleton;
    // The folder's MATBIN / MTD binders (lookups are thread-safe). convert_folder indexes them
    // on one thread while the first items read their clips: an item calls wait_for_materials()
    // before it looks a material up.
    matbin::MaterialLibrary materials;
    NpcParams npc;  // read before the items start; read-only after
    void materials_pending();  // before the library is indexed
    void materials_indexed();  // once it is: wakes the waiting items
    void wait_for_materials();

private:
    std::mutex m_materials_mutex;
    std::condition_variable m_materials_cv;
    bool m_materials_ready = true;
};

// An item's model file read, unpacked (binder layers, DCX) and its first FLVER parsed: once, by
// convert_folder's material-name pre-pass, which hands it to the item (no second decompression
// and parse of the model).
struct OpenedModel {
    uint64_t file_bytes = 0;           // size of the model file as read
    std::vector<game::Member> members;  // every member, decompressed
    std::vector<Error> errors;          // layers that could not be opened (skipped)
    size_t flver = SIZE_MAX;            // index of the first FLVER member, SIZE_MAX = none
    std::optional<Result<flver::Model>> model;  // that FLVER parsed (empty when there is none)
    uint64_t held_bytes() const;        // decompressed member bytes (what keeping it costs, roughly)
};
OpenedModel open_model(std::vector<uint8_t> file, const std::string& label, const dcx::DecodeOptions& dcx);

// Converts one item. `opened`, when given, is its model file already opened by open_model (the
// item takes its contents); otherwise the item reads and opens the model file itself.
ItemResult convert_item(const ItemInputs& in, const std::filesystem::path& out, const Options& options, SharedCache& cache,
                        OpenedModel* opened = nullptr);
nlohmann::ordered_json item_json(const ItemResult& r);

// `p`, found by walking the input folder `base`, as a path relative to it: lexical, so that a
// file reached through a symbolic link keeps the place it has in the input (and its outputs the
// same place under the output folder).
std::string relative_label(const std::filesystem::path& p, const std::filesystem::path& base);


}  // namespace drape::convert
