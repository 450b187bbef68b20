// drape::convert: a whole game folder (or a mod folder, or single files) to one .glb per
// character and armour part, with its clips, textures, cloth (.drcloth) and a report.
//
// Input layout (the game's, as the community's unpackers leave it):
//   chr/cNNNN.chrbnd.dcx        model (FLVER), cloth (*_c.hkx), TPFs
//   chr/cNNNN.anibnd.dcx        skeleton and clips; cNNNN_divNN / cNNNN_aNN* anibnds beside it
//                               hold more clips on the main anibnd's skeleton
//   chr/cNNNN_h.texbnd.dcx      high-resolution textures, else cNNNN_l.texbnd.dcx (names `_l`)
//   parts/*.partsbnd.dcx        armour parts (cloth in *_c.hkx), on chr/c0000.anibnd.dcx's skeleton
//   material/, mtd/             material libraries (MATBIN, MTD) for empty FLVER texture paths
// Loose files group by name the same way (EliteKnight.flver + EliteKnight.tpf).
//
// Output, all inside `out` (member names never reach a path unsanitised):
//   OUT/<relative folder>/<name>.glb (or .gltf + .bin)   model, skin, clips, dummies, textures
//   OUT/<relative folder>/<name>.drcloth                 the cloth (one per cloth file)
//   OUT/<relative folder>/<name>.report.json             bone match, cloth binding, warnings
//   OUT/summary.json                                     every item with its census or error
// Each file is written under a temporary name and renamed when complete.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "drape/anim/anibnd.h"
#include "drape/dcx/dcx.h"

namespace drape::convert {

enum class Format : uint8_t { glb, gltf, fbx };

// The animation binders of the character (or part) `file` belongs to, grouped as convert groups
// them: for chr/c3061.chrbnd.dcx (or one of its anibnds), chr/c3061.anibnd[.dcx] (the main one,
// which holds the skeleton) and the cNNNN_divNN / cNNNN_aNN* anibnds beside it, whose clips play
// on that skeleton, in name order. Empty members when there are none.
struct AnimationBinders {
    std::filesystem::path main;
    std::vector<std::filesystem::path> clips;
};
AnimationBinders animation_binders_of(const std::filesystem::path& file);

// Every clip of those binders on the main binder's skeleton (the main binder's clips first, then
// each clip binder's in name order); a binder or clip that does not read is listed in
// ClipSet::failures with its reason. Fails when there is no main binder or it holds no skeleton.
Result<anim::ClipSet> load_character_clips(const std::filesystem::path& file, const dcx::DecodeOptions& dcx = {});

struct Options {
    dcx::DecodeOptions dcx;          // jobs is forced to 1: one decoder thread per job
    unsigned jobs = 0;               // characters converted at once; 0 = every core
    std::vector<std::string> only;   // item names to convert (cNNNN, a part's stem); empty = all
    Format format = Format::glb;
    bool cloth = true;               // write .drcloth files
    bool textures = true;            // decode and embed textures
    // Also run the cloth runtime over a clip and write OUT/<folder>/<name>_baked.glb (bake.h):
    // bake_clip names the clip (empty: the first; a sway of the root when the model has none).
    bool bake = false;
    std::string bake_clip;
    // With bake: the runtime's opt-in depenetration (DRAPE_INSTANCE_DEPENETRATE; not the game's
    // arithmetic, off by default): particles left inside a collidable after a step are moved out.
    bool bake_depenetrate = false;
    // The game's params, for the display masks each character's NpcParam row turns on: a
    // regulation (regulation.bin, encrypted or not) or a parambnd. Empty: regulation.bin or
    // param/gameparam/gameparam.parambnd.dcx found in the input folder or above it; none found,
    // every mesh is shown (docs/params.md).
    std::filesystem::path regulation;
    // The NpcParam row whose masks a character shows; -1: the character's first row.
    int64_t npc_row = -1;
    // The material-name pre-pass opens every item's model (decompressed members + parsed FLVER)
    // and hands it to its item; what it keeps meanwhile is bounded by this many bytes (members
    // counted twice for the parsed model). An item beyond it opens its model again itself.
    uint64_t opened_model_budget = 96ull << 20;
};

// One converted (or failed) character, part, or other group of files.
struct ItemResult {
    std::string name;                  // c5000, bd_m_1100, EliteKnight
    std::string kind;                  // "character", "part", "model", "animations", "cloth"
    std::string folder;                // relative folder of the inputs ("chr", "" for the root)
    std::vector<std::string> inputs;   // relative paths
    std::vector<std::string> outputs;  // relative to OUT
    bool ok = false;
    std::string error;                 // one line when !ok
    std::vector<std::string> warnings;
    size_t meshes = 0, meshes_dropped = 0, images = 0, bones = 0, clips = 0, clip_failures = 0, reparented_bones = 0;
    size_t ragdoll_bodies = 0, ragdoll_joints = 0;
    // Display masks: the character's NpcParam rows (id, name, the masks each turns on), the row
    // shown (-1: none), the masked mesh nodes left out of the default scene, and how the masks
    // were chosen or why they were not.
    struct NpcRow {
        int32_t id = 0;
        std::string name;
        uint32_t masks = 0;
        bool masks_known = true;  // false: the table's layout is not known (ids and names only)
    };
    std::vector<NpcRow> npc_rows;
    int64_t npc_row = -1;
    size_t meshes_hidden = 0;
    std::string display_masks;  // hknpRagdollData bodies / constraints written into the .glb
    size_t cloth_datas = 0, sim_cloths = 0, particles = 0, constraint_sets = 0, operators = 0;
    std::map<std::string, size_t> hcl_classes;  // cloth objects per Havok class (docs/havok-cloth.md#the-census)
    uint64_t input_bytes = 0;
    double seconds = 0;
    // CPU-bound stages of the item and their wall time (s): read, unpack, flver, materials,
    // texture_decode, png_encode, clips_read, gltf_build, gltf_write, cloth. The per-stage
    // breakdown of the convert benchmark (README) is their sum over the items.
    std::map<std::string, double> stage_seconds;
};

struct Report {
    std::vector<ItemResult> items;     // in name order
    std::vector<std::string> skipped;  // files that belong to no item (relative paths, with why)
    uint64_t input_bytes = 0;
    double seconds = 0;
    unsigned jobs = 1;
    std::string regulation;  // the params read for display masks (or why none), as each item reports
    double material_seconds = 0;  // the model pre-pass (every item's model opened, on the jobs) and indexing the MATBIN / MTD binders (beside the first items), once per run

    size_t failed() const;
    // 0: every item converted; 1: some failed (or nothing was found to convert).
    int exit_code() const;
    nlohmann::ordered_json to_json() const;  // what OUT/summary.json holds
};

struct ProgressEvent {
    size_t done = 0, total = 0;
    const ItemResult* finished = nullptr;  // the item just finished
};
// Called from worker threads, one call at a time.
using Progress = std::function<void(const ProgressEvent&)>;

// Converts every item found under `root` (a folder, or one file with its companions in the same
// folder) into `out`. Never throws for bad input: a file that cannot be read fails its item (with
// a one-line error in the report) and the others go on.
Report convert_folder(const std::filesystem::path& root, const std::filesystem::path& out, const Options& options,
                      const Progress& progress = {});

}  // namespace drape::convert
