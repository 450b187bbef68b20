// drape::convert: one item from its input files to its outputs.
#include "item.h"
#include "pool.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "drape/convert/cloth_drive.h"
#include "drape/anim/anibnd.h"
#include "drape/exporters/animation_glb.h"
#include "drape/convert/bake.h"
#include "drape/convert/bake_runtime.h"
#include "drape/exporters/cloth_export.h"
#include "drape/exporters/ragdoll_glb.h"
#ifdef DRAPE_HAVE_FBX
#include "drape/exporters/fbx.h"
#endif
#include "drape/exporters/gltf.h"
#include "drape/exporters/model_meshes.h"
#include "drape/exporters/textures.h"
#include "drape/flver/flver.h"
#include "drape/game/containers.h"
#include "drape/game/loaders.h"
#include "drape/game/materials.h"
#include "drape/havok/cloth.h"
#include "drape/havok/hkx.h"
#include "drape/havok/ragdoll.h"
#include "drape/io/file.h"
#include "drape/tpf/tpf.h"

namespace drape::convert {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace {

// The cloth's figures over 150 steps at 30 Hz under `clip` (the sway of its rest pose without one):
// what drape simulate reports, per sim cloth the first state runs, without the timing (the report
// is the same bytes on every run).
ojson cloth_run_report(const std::vector<uint8_t>& drcloth, const havok::Skeleton* skeleton, const anim::Clip* clip) {
    drive::RunOptions ro;
    ro.steps = 150;
    if (skeleton && clip) ro.anim_skeleton = skeleton, ro.clip = clip;
    auto stats = drive::simulate(drcloth, ro);
    if (!stats) return {{"error", stats.error().to_string()}};
    ojson sims = ojson::array();
    for (const auto& s : *stats) {
        if (!s.in_state) continue;
        ojson by_kind = ojson::object();
        for (size_t k = 0; k < drive::k_link_kinds; ++k) by_kind[drive::link_kind_name(drive::LinkKind(k))] = s.max_link_stretch_by_kind[k];
        sims.push_back({{"cloth", s.cloth}, {"sim", s.sim}, {"state", s.state}, {"finite", s.finite}, {"max_link_stretch", s.max_link_stretch},
                        {"max_link_stretch_by_kind", by_kind}, {"max_firm_link_stretch", s.max_firm_link_stretch},
                        {"max_pinned_error_m", s.max_pinned_error_m},
                        {"max_skin_distance_m", s.max_skin_distance_m}, {"max_skin_distance_bound_m", s.max_skin_distance_bound_m},
                        {"max_local_range_excess_m", s.max_local_range_excess_m}, {"max_driven_bone_distance_m", s.max_driven_bone_distance_m},
                        {"max_below_skin_m", s.max_below_skin_m}, {"max_penetration_m", s.max_penetration_m},
                        {"max_reference_penetration_m", s.max_reference_penetration_m},
                        {"max_reference_link_stretch", s.max_reference_link_stretch}});
    }
    return {{"clip", clip ? clip->name : std::string("sway")}, {"steps", ro.steps}, {"sims", std::move(sims)}};
}

std::string rel(const ItemInputs& in, const fs::path& p) { return relative_label(p, in.base); }

}  // namespace

NpcParams load_npc_params(const fs::path& path, const std::string& label, const dcx::DecodeOptions& dcx) {
    NpcParams out;
    auto members = game::open_members(path, label, dcx);
    if (!members) {
        out.status = label + ": " + members.error().to_string() + "; every mesh shown";
        return out;
    }
    for (auto& m : *members) {
        if (param::param_name(m.name) != "NpcParam") continue;
        out.game = param::game_of_member_path(m.name);
        out.bytes = std::move(m.bytes);
        auto table = param::read_param(out.bytes);
        if (!table) {
            out.status = label + ": NpcParam: " + table.error().to_string() + "; every mesh shown";
            return out;
        }
        const std::string game = param::game_name(out.game);
        auto layout = param::find_layout(out.game, table->type, param::regulation_version(m.binder_version));
        if (!layout) {
            // The rows are still listed (ids and names); their masks are not known.
            out.status = label + ": " + game + " NpcParam (" + table->type + ", " + std::to_string(table->row_size) +
                         "-byte rows): no known layout, masks unknown; every mesh shown";
            out.table = std::move(*table);
            return out;
        }
        if (auto fits = param::check_layout(*table, *layout); !fits) {
            out.status = label + ": " + game + " NpcParam: " + fits.error().to_string() + "; every mesh shown";
            return out;
        }
        out.status = label + ": " + game + " NpcParam, " + std::to_string(table->rows.size()) + " rows";
        out.table = std::move(*table);
        out.layout = std::move(*layout);
        return out;
    }
    out.status = label + ": no NpcParam among its " + std::to_string(members->size()) + " members; every mesh shown";
    return out;
}

std::string relative_label(const fs::path& p, const fs::path& base) {
    const fs::path r = p.lexically_relative(base.empty() ? fs::path(".") : base);
    return r.empty() ? p.generic_string() : r.generic_string();
}

namespace {

// The display masks of `name`'s NpcParam row (the one options.npc_row names, else its first)
// applied to the model's mesh nodes; the item's report says which rows there are and what was
// shown.
void apply_display_masks(exporters::GltfDocument& doc, const exporters::ModelNodes& placed, const std::string& name, const Options& options,
                         const NpcParams& npc, ItemResult& r, std::vector<std::string>& warnings) {
    if (!npc.table) {
        r.display_masks = npc.status.empty() ? "no regulation found: every mesh shown" : npc.status;
        return;
    }
    const auto character = param::character_number(name);
    if (!character) {
        r.display_masks = "not a character (cNNNN): every mesh shown";
        return;
    }
    if (!npc.layout) {  // the rows by their ids; no masks applied
        for (const auto& row : npc.table->rows)
            if (param::npc_row_of_character(npc.game, row.id, *character)) r.npc_rows.push_back({row.id, row.name, 0, false});
        r.display_masks = npc.status;
        return;
    }
    auto rows = param::display_masks(*npc.table, *npc.layout, npc.game, *character);
    if (!rows) {
        r.display_masks = npc.status + ": " + rows.error().to_string() + "; every mesh shown";
        return;
    }
    for (const auto& row : *rows) r.npc_rows.push_back({row.row_id, row.row_name, row.masks});
    if (rows->empty()) {
        r.display_masks = npc.status + ": no NpcParam row of " + name + "; every mesh shown";
        return;
    }
    const param::NpcMasks* chosen = &rows->front();
    if (options.npc_row >= 0) {
        chosen = nullptr;
        for (const auto& row : *rows)
            if (row.row_id == options.npc_row) chosen = &row;
        if (!chosen) {
            warnings.push_back("--npc " + std::to_string(options.npc_row) + " is not a row of " + name + "; its first row (" +
                                 std::to_string(rows->front().row_id) + ") is shown");
            chosen = &rows->front();
        }
    }
    r.npc_row = chosen->row_id;
    r.meshes_hidden = exporters::show_display_masks(doc, placed, chosen->masks, "NpcParam " + std::to_string(chosen->row_id));
    r.display_masks = npc.status + ": row " + std::to_string(chosen->row_id) + " shown";
}

// A member name shortened for messages: its last path component.
std::string leaf_name(const std::string& member) {
    const size_t at = member.find_last_of("\\/>");
    return at == std::string::npos ? member : member.substr(at + 1);
}

std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(uint8_t(c)));
    return s;
}

bool is_havok(Bytes b) { return havok::is_packfile(b) || havok::is_tagfile(b); }

// Textures of the item, by key, encoded only when a material asks for them.
struct TextureIndex {
    struct Source {
        size_t tpf;
        size_t texture;
    };
    std::vector<std::vector<uint8_t>> tpf_bytes;
    std::vector<tpf::Tpf> tpfs;
    std::map<std::string, Source> by_key;  // first wins: high resolution and model binder first

    void add(std::vector<uint8_t> bytes, std::vector<std::string>& warnings, const std::string& from) {
        tpf_bytes.push_back(std::move(bytes));
        auto t = tpf::read_tpf(tpf_bytes.back());
        if (!t) {
            warnings.push_back(from + ": TPF: " + t.error().to_string());
            tpf_bytes.pop_back();
            return;
        }
        tpfs.push_back(std::move(*t));
        const size_t ti = tpfs.size() - 1;
        for (size_t k = 0; k < tpfs[ti].textures.size(); ++k) by_key.emplace(exporters::texture_key(tpfs[ti].textures[k].name), Source{ti, k});
    }
    // The texture a material key names: itself, else its low-resolution twin (`_l` suffix).
    const Source* resolve(const std::string& key) const {
        if (auto it = by_key.find(key); it != by_key.end()) return &it->second;
        if (auto it = by_key.find(key + "_l"); it != by_key.end()) return &it->second;
        return nullptr;
    }
};

struct Census {
    ItemResult& r;
    void add_cloth(const havok::File& f, const cloth_export::Report& rep) {
        r.cloth_datas += rep.cloth_datas;
        r.sim_cloths += rep.sim_cloths;
        r.particles += rep.particles;
        r.constraint_sets += rep.constraint_sets;
        r.operators += rep.operators;
        for (const auto& [cls, n] : hcl::census(f)) r.hcl_classes[cls] += n;
    }
};

double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Splits an item's wall time into its stages: lap(stage) adds the time since the previous lap
// to r.stage_seconds[stage], less the time read_input spent reading files meanwhile (its own
// "read" stage).
class StageClock {
public:
    explicit StageClock(ItemResult& r) : m_r(r), m_last(std::chrono::steady_clock::now()), m_read(r.stage_seconds["read"]) {}
    void lap(const char* stage) {
        const double read = m_r.stage_seconds["read"];
        m_r.stage_seconds[stage] += std::max(0.0, seconds_since(m_last) - (read - m_read));
        m_last = std::chrono::steady_clock::now();
        m_read = read;
    }

private:
    ItemResult& m_r;
    std::chrono::steady_clock::time_point m_last;
    double m_read = 0;
};

// What a branch of an item recorded in its own ItemResult, appended to the item's.
void merge_part(ItemResult& r, ItemResult& part) {
    r.inputs.insert(r.inputs.end(), part.inputs.begin(), part.inputs.end());
    r.input_bytes += part.input_bytes;
    for (auto& w : part.warnings) r.warnings.push_back(std::move(w));
    for (const auto& [stage, seconds] : part.stage_seconds) r.stage_seconds[stage] += seconds;
    r.clip_failures += part.clip_failures;
    part = ItemResult{};
}

// task(i) for i in [0, n) on the run's pool (idle threads take some), or in order without one.
void fan_out(SharedCache& cache, size_t n, const std::function<void(size_t)>& task) {
    if (cache.pool) {
        cache.pool->parallel_for(n, task);
        return;
    }
    for (size_t i = 0; i < n; ++i) task(i);
}

Result<std::vector<uint8_t>> read_input(ItemResult& r, const ItemInputs& in, const fs::path& p) {
    const auto t0 = std::chrono::steady_clock::now();
    auto b = read_file(p);
    r.stage_seconds["read"] += seconds_since(t0);
    if (!b) return std::move(b.error().within(rel(in, p)));
    r.inputs.push_back(rel(in, p));
    r.input_bytes += b->size();
    return b;
}

}  // namespace

void SharedCache::materials_pending() {
    std::lock_guard<std::mutex> lock(m_materials_mutex);
    m_materials_ready = false;
}

void SharedCache::materials_indexed() {
    {
        std::lock_guard<std::mutex> lock(m_materials_mutex);
        m_materials_ready = true;
    }
    m_materials_cv.notify_all();
}

void SharedCache::wait_for_materials() {
    std::unique_lock<std::mutex> lock(m_materials_mutex);
    m_materials_cv.wait(lock, [this] { return m_materials_ready; });
}

uint64_t OpenedModel::held_bytes() const {
    uint64_t n = 0;
    for (const auto& m : members) n += m.bytes.size();
    return n;
}

OpenedModel open_model(std::vector<uint8_t> file, const std::string& label, const dcx::DecodeOptions& dcx) {
    OpenedModel o;
    o.file_bytes = file.size();
    o.members = game::open_members_lenient(file, label, dcx, o.errors);
    file = {};
    for (size_t i = 0; i < o.members.size(); ++i)
        if (flver::is_flver(o.members[i].bytes)) {
            o.flver = i;
            o.model = flver::read_flver(o.members[i].bytes);
            break;
        }
    return o;
}

namespace {

// What every stage of one item needs: its inputs, the run's options and shared cache, and
// where its outputs go (OUT/<folder>/<name>, as out_rel in the report and stem_path on disk).
struct ItemContext {
    const ItemInputs& in;
    const Options& options;
    SharedCache& cache;
    std::string out_rel;
    fs::path stem_path;
};

// The model binder's members and its FLVER, read by open_model_binder.
struct ModelBinder {
    std::vector<game::Member> members;
    std::optional<flver::Model> model;
};

// The skeleton and the clips of the item's anibnds, read by read_clips.
struct ClipsRead {
    std::optional<havok::Skeleton> skeleton;
    std::vector<anim::Clip> clips;
};

// The ragdoll of the model binder, read by read_ragdoll.
struct RagdollRead {
    std::optional<havok::Ragdoll> ragdoll;
    std::string source;
};

// What the glTF branch writes, kept apart from the cloth branch's (they run concurrently).
struct GltfBranch {
    ItemResult part;
    std::optional<Error> error;
    std::vector<std::string> outputs;
    ojson bone_match, ragdoll_report;
    std::vector<uint8_t> bake_glb;      // for --bake: the document as a .glb
    std::optional<anim::Clip> run_clip;  // the clip the cloth's figures are taken under
};

// The cloth files of the item, exported in memory: written after the glTF branch, in order.
struct ClothOut {
    std::string suffix;
    std::vector<uint8_t> bytes;
};

// What the cloth branch writes, kept apart from the glTF branch's.
struct ClothBranch {
    ItemResult part;
    std::vector<ClothOut> files;
    ojson reports = ojson::array();
};

// The output stem of an item: OUT/<folder>/<name>.* through the same sanitiser as member names.
Result<ItemContext> item_context(const ItemInputs& in, const fs::path& out, const Options& options, SharedCache& cache) {
    const std::string out_rel = (in.folder.empty() ? "" : sanitize_member_path(in.folder) + "/") + sanitize_member_path(in.name);
    auto out_stem = safe_join(out, out_rel);
    if (!out_stem) return out_stem.error();
    return ItemContext{in, options, cache, out_rel, *out_stem};
}

std::string item_kind(const ItemInputs& in) {
    return in.model.empty() ? (in.main_anibnd.empty() && in.clip_anibnds.empty() ? "cloth" : "animations")
           : in.part        ? "part"
           : lower(in.model.filename().string()).find(".chrbnd") != std::string::npos ? "character"
                                                                                      : "model";
}

// The model binder: its members (FLVER, TPFs, cloth) and the FLVER read. `opened` is the
// pre-pass's reading of the binder, if it made one.
Result<ModelBinder> open_model_binder(const ItemContext& c, OpenedModel* opened, ItemResult& r, StageClock& clock) {
    const ItemInputs& in = c.in;
    ModelBinder out;
    OpenedModel own;
    if (opened) {  // opened by the pre-pass: counted as read here
        r.inputs.push_back(rel(in, in.model));
        r.input_bytes += opened->file_bytes;
    } else {
        auto bytes = read_input(r, in, in.model);
        if (!bytes) return bytes.error();
        own = open_model(std::move(*bytes), rel(in, in.model), c.options.dcx);
        opened = &own;
    }
    out.members = std::move(opened->members);
    const std::vector<Error> errors = std::move(opened->errors);
    for (const auto& e : errors) r.warnings.push_back("skipped: " + e.to_string());
    if (opened->flver == SIZE_MAX) {
        if (!errors.empty()) return errors.front();
        return make_error("no FLVER inside", "convert.model").within(rel(in, in.model));
    }
    const game::Member& fm = out.members[opened->flver];
    for (size_t i = opened->flver + 1; i < out.members.size(); ++i)
        if (flver::is_flver(out.members[i].bytes)) r.warnings.push_back(out.members[i].name + ": another FLVER in the binder; not converted");
    clock.lap("unpack");
    Result<flver::Model>& m = *opened->model;
    if (!m) return std::move(m.error().within(leaf_name(fm.name)).within(rel(in, in.model)));
    out.model = std::move(*m);
    opened->model.reset();
    clock.lap("flver");
    return out;
}

// One anibnd's skeleton (if none yet), clips, failures and TAEs into `read`.
void add_clip_set(anim::ClipSet& set, ClipsRead& read, std::vector<anim::TaeMember>& taes, ItemResult& p) {
    if (!read.skeleton && !set.skeletons.empty()) read.skeleton = set.skeletons[0];
    for (auto& f : set.failures) p.warnings.push_back("clip " + f.member + ": " + f.error.to_string());
    p.clip_failures += set.failures.size();
    for (auto& c : set.clips) read.clips.push_back(std::move(c));
    for (auto& t : set.taes) taes.push_back(std::move(t));
}

// The skeleton and clips of the main anibnd and the clip anibnds; the player's skeleton when
// none of them has one. Records into `p`, this branch's part of the item's result.
ClipsRead read_clips(const ItemContext& c, ItemResult& p) {
    const ItemInputs& in = c.in;
    SharedCache& cache = c.cache;
    StageClock clock(p);
    ClipsRead read;
    std::vector<anim::TaeMember> taes;  // of every binder read: one binder's TAE may name another's clips
    // The anibnd's members are read and decoded on the pool's idle threads too (c5000's 66
    // clips were one thread's work while the other job had finished).
    anim::ParallelFor members_in_parallel;
    if (cache.pool && cache.pool->threads() > 1)
        members_in_parallel = [&cache](size_t n, const std::function<void(size_t)>& task) { cache.pool->parallel_for(n, task); };
    std::vector<fs::path> anibnds;
    if (!in.main_anibnd.empty()) anibnds.push_back(in.main_anibnd);
    anibnds.insert(anibnds.end(), in.clip_anibnds.begin(), in.clip_anibnds.end());
    for (const auto& path : anibnds) {
        auto b = read_input(p, in, path);
        if (!b) {
            p.warnings.push_back(b.error().to_string());
            continue;
        }
        auto set = anim::read_clip_set(*b, rel(in, path), c.options.dcx, members_in_parallel);
        if (!set) {
            p.warnings.push_back(set.error().to_string());
            continue;
        }
        add_clip_set(*set, read, taes, p);
    }
    if (!in.clip_anibnds.empty()) (void)anim::attach_events(read.clips, taes);
    if (!read.skeleton && !in.player_anibnd.empty()) {
        std::call_once(cache.player_once, [&] {
            dcx::DecodeOptions d = c.options.dcx;
            if (auto s = game::load_havok_skeleton(in.player_anibnd, d); s && *s) cache.player_skeleton = **s;
        });
        read.skeleton = cache.player_skeleton;
        if (read.skeleton) p.warnings.push_back("skeleton: the player's (" + rel(in, in.player_anibnd) + ")");
    }
    if (!read.clips.empty() && !read.skeleton) {
        p.warnings.push_back(std::to_string(read.clips.size()) + " clips left out: no skeleton (no main anibnd beside them)");
        read.clips.clear();
    }
    clock.lap("clips_read");
    return read;
}

// Elden Ring and Sekiro leave FLVER texture paths empty: the material library fills them.
void resolve_materials(flver::Model& model, SharedCache& cache, ItemResult& p) {
    size_t empty_paths = 0;
    for (const auto& mat : model.materials)
        for (const auto& t : mat.textures) empty_paths += t.path.empty();
    if (!empty_paths) return;
    if (cache.materials.sources().empty()) {
        p.warnings.push_back(std::to_string(empty_paths) +
                             " material texture paths are empty and no material/ or mtd/ binder is in the folder; those "
                             "textures stay unbound");
    } else {
        for (auto& w : game::resolve_material_textures(model, cache.materials)) p.warnings.push_back(w);
    }
}

// The TPFs of the texture binder, of the model binder and loose beside it, indexed by name.
// The binder's TPF members are moved into the index.
TextureIndex index_textures(const ItemContext& c, std::vector<game::Member>& members, ItemResult& p) {
    const ItemInputs& in = c.in;
    TextureIndex index;
    const fs::path texbnd = !in.texbnd_high.empty() ? in.texbnd_high : in.texbnd_low;
    if (!texbnd.empty()) {
        if (auto b = read_input(p, in, texbnd)) {
            for (auto& t : game::collect_tpfs(*b, c.options.dcx)) index.add(std::move(t), p.warnings, rel(in, texbnd));
        } else {
            p.warnings.push_back(b.error().to_string());
        }
    }
    for (auto& m : members)
        if (tpf::is_tpf(m.bytes)) index.add(std::move(m.bytes), p.warnings, m.name);
    for (const auto& path : in.tpfs)
        if (auto b = read_input(p, in, path)) {
            for (auto& t : game::collect_tpfs(*b, c.options.dcx)) index.add(std::move(t), p.warnings, rel(in, path));
        } else {
            p.warnings.push_back(b.error().to_string());
        }
    return index;
}

// The textures the model's materials name, decoded and encoded as PNG into gopt's embedded
// textures. Returns the seconds spent decoding (summed over the threads that did it).
double encode_textures(const flver::Model& model, const TextureIndex& index, SharedCache& cache, exporters::GltfOptions& gopt,
                       ItemResult& p) {
    double decode_seconds = 0;
    // Only the textures the materials name are decoded.
    std::set<std::string> keys;
    for (const auto& mat : model.materials)
        for (const auto& t : mat.textures)
            if (!t.path.empty()) keys.insert(exporters::texture_key(t.path));
    // Each distinct texture is decoded and encoded once, on the pool's idle threads; the
    // results are used in key order, so the output does not depend on the job count.
    std::vector<std::pair<size_t, size_t>> sources;
    std::map<std::pair<size_t, size_t>, size_t> slot_of;
    for (const auto& key : keys)
        if (const TextureIndex::Source* s = index.resolve(key))
            if (slot_of.emplace(std::make_pair(s->tpf, s->texture), sources.size()).second) sources.push_back({s->tpf, s->texture});
    std::vector<image::EncodedTexture> encoded(sources.size());
    std::vector<std::string> names(sources.size());
    const std::function<void(size_t)> encode_one = [&](size_t k) {
        tpf::Tpf one;
        one.textures.push_back(index.tpfs[sources[k].first].textures[sources[k].second]);
        names[k] = one.textures[0].name;
        auto e = image::encode_tpf_textures(one);
        if (!e.empty()) encoded[k] = std::move(e[0]);
        else encoded[k].error = "not decoded";
    };
    fan_out(cache, sources.size(), encode_one);
    for (const auto& e : encoded) decode_seconds += e.decode_seconds;
    for (const auto& key : keys) {
        const TextureIndex::Source* s = index.resolve(key);
        if (!s) continue;
        const size_t k = slot_of.at({s->tpf, s->texture});
        if (!encoded[k].error.empty()) {
            p.warnings.push_back("texture " + names[k] + ": " + encoded[k].error);
            continue;
        }
        gopt.embedded_textures[key] = encoded[k].png;
    }
    return decode_seconds;
}

// The materials resolved and the textures embedded into gopt; the binder's TPF members are
// released. Records into `p`, this branch's part of the item's result.
void read_textures(const ItemContext& c, ModelBinder& binder, exporters::GltfOptions& gopt, ItemResult& p) {
    c.cache.wait_for_materials();
    StageClock clock(p);
    if (binder.model) {
        resolve_materials(*binder.model, c.cache, p);
        clock.lap("materials");
    }
    if (binder.model && c.options.textures) {
        const TextureIndex index = index_textures(c, binder.members, p);
        clock.lap("texture_read");
        const double decode_seconds = encode_textures(*binder.model, index, c.cache, gopt, p);
        clock.lap("png_encode");
        p.stage_seconds["png_encode"] -= decode_seconds;
        p.stage_seconds["texture_decode"] += decode_seconds;
    }
    for (auto& m : binder.members)
        if (tpf::is_tpf(m.bytes) || m.bytes.empty()) m.bytes = {};
}

// The ragdoll: the binder's Havok members other than cloth (cXXXX.hkx), read before the cloth
// branch takes the members.
RagdollRead read_ragdoll(const std::vector<game::Member>& members, ItemResult& r) {
    RagdollRead read;
    std::vector<game::Member> havok_members;
    for (const auto& m : members)
        if (havok::is_compendium(m.bytes)) havok_members.push_back(m);
    auto comps = game::compendiums_for(havok_members, {});
    havok::CompendiumSet none;
    const havok::CompendiumSet& set = comps ? *comps : none;
    for (const auto& m : members) {
        if (!is_havok(m.bytes) || lower(m.name).ends_with("_c.hkx")) continue;
        auto f = havok::read_hkx(m.bytes, set.lookup());
        if (!f || f->objects_of("hknpRagdollData").empty()) continue;
        auto rs = havok::read_ragdolls(*f);
        if (!rs) {
            r.warnings.push_back(m.name + ": ragdoll: " + rs.error().to_string());
            continue;
        }
        if (rs->empty()) continue;
        if (read.ragdoll) {
            r.warnings.push_back(m.name + ": a second ragdoll; not converted");
            continue;
        }
        read.ragdoll = std::move(rs->front());
        read.source = m.name;
    }
    return read;
}

// The report's "bone_match": how the FLVER's bones meet the Havok skeleton, and the bones
// re-parented to follow it.
ojson bone_match_json(const exporters::BoneMatchReport& match, const exporters::ReparentReport& rp, const havok::Skeleton& skeleton) {
    ojson bones = {{"skeleton", skeleton.name},
                   {"matched", match.matched.size()},
                   {"flver_only", match.flver_only},
                   {"skeleton_only", match.havok_only},
                   {"parent_mismatches", match.parent_mismatches.size()}};
    ojson moved = ojson::array();
    for (const auto& m : rp.reparented)
        moved.push_back({{"bone", m.bone}, {"flver_parent", m.flver_parent}, {"skeleton_parent", m.skeleton_parent}});
    bones["reparented"] = std::move(moved);
    bones["added_skeleton_nodes"] = rp.added_nodes;
    ojson poses = ojson::array();
    for (const auto& pm : match.pose_mismatches)
        poses.push_back({{"bone", pm.name}, {"translation_m", pm.translation_error}, {"rotation_deg", pm.rotation_error_deg}});
    bones["pose_mismatches"] = std::move(poses);
    return bones;
}

// The model into the document, with its bones re-parented to the skeleton, its ragdoll and its
// display masks. The figures go to r (fields the cloth branch does not touch), the warnings
// to the branch's part.
Result<void> add_model_to_gltf(const ItemContext& c, exporters::GltfDocument& doc, const flver::Model& model, const ClipsRead& clips,
                               const RagdollRead& ragdoll, const exporters::GltfOptions& gopt, exporters::AnimationGlbOptions& aopt,
                               GltfBranch& g, ItemResult& r) {
    ItemResult& p = g.part;
    exporters::ModelReport mrep;
    auto placed = exporters::add_model(doc, model, gopt, &mrep);
    if (!placed) return placed.error();
    r.meshes = mrep.meshes_written;
    r.meshes_dropped = mrep.meshes_dropped;
    r.images = mrep.images;
    r.bones = model.nodes.size();
    for (const auto& w : mrep.warnings) p.warnings.push_back(w);
    if (clips.skeleton) {
        auto match = exporters::match_skeleton(model, exporters::skeleton_from_havok(*clips.skeleton));
        auto rp = exporters::reparent_to_skeleton(doc, *placed, model, *clips.skeleton);
        r.reparented_bones = rp.reparented.size();
        g.bone_match = bone_match_json(match, rp, *clips.skeleton);
        aopt.pose_untracked_bones = true;
    }
    if (ragdoll.ragdoll) {
        const havok::Ragdoll& rd = *ragdoll.ragdoll;
        const auto rr = exporters::add_ragdoll(doc, rd, placed->root);
        r.ragdoll_bodies = rr.bodies;
        r.ragdoll_joints = rr.joints;
        for (const auto& w : rr.warnings) p.warnings.push_back(w);
        g.ragdoll_report = {{"source", ragdoll.source},
                            {"name", rd.name},
                            {"skeleton", rd.skeleton},
                            {"ragdoll_skeleton", rd.ragdoll_skeleton},
                            {"declared_bodies", rd.declared_bodies},
                            {"bodies", rr.bodies},
                            {"shapes", rr.shapes},
                            {"joints", rr.joints},
                            {"unplaced", rr.unplaced}};
    }
    apply_display_masks(doc, *placed, c.in.name, c.options, c.cache.npc, r, p.warnings);
    return {};
}

// The document written as --format asks (.glb, .gltf + .bin, or .fbx); with --bake, the
// document is also kept as a .glb for the bake.
Result<void> write_gltf(const ItemContext& c, exporters::GltfDocument& doc, GltfBranch& g) {
    const Options& options = c.options;
    if (options.format == Format::fbx) {
#ifdef DRAPE_HAVE_FBX
        // Assimp reads the document as a glb (in memory) and writes binary FBX 7.4.
        std::vector<uint8_t> glb_bytes = doc.glb();
        auto fbx = exporters::fbx_from_glb(glb_bytes);
        if (!fbx) return fbx.error();
        if (options.bake) g.bake_glb = std::move(glb_bytes);  // the baked file is a .glb in every format
        fs::path path = c.stem_path;
        path += ".fbx";
        if (auto w = write_file_atomic(path, *fbx); !w) return w.error();
        g.outputs.push_back(c.out_rel + ".fbx");
#else
        return make_error("--format fbx: this drape was built without Assimp (libassimp-dev)", "convert.format");
#endif
    } else if (options.format == Format::gltf) {
        fs::path gltf = c.stem_path;
        gltf += ".gltf";
        fs::path bin = c.stem_path;
        bin += ".bin";
        const std::string text = doc.gltf_text(bin.filename().string());
        if (auto w = write_file_atomic(bin, doc.bin()); !w) return w.error();
        if (auto w = write_file_atomic(gltf, std::vector<uint8_t>(text.begin(), text.end())); !w) return w.error();
        g.outputs.push_back(c.out_rel + ".gltf");
        g.outputs.push_back(c.out_rel + ".bin");
        if (options.bake) g.bake_glb = doc.glb();  // the baked file is a .glb in every format
    } else {
        fs::path glb = c.stem_path;
        glb += ".glb";
        if (options.bake) {  // the bake reads the document back: assemble it once in memory
            g.bake_glb = doc.glb();
            if (auto w = write_file_atomic(glb, g.bake_glb); !w) return w.error();
        } else if (auto w = write_file_atomic(glb, [&](std::ostream& o) { return doc.write_glb(o); }); !w) {
            return w.error();
        }
        g.outputs.push_back(c.out_rel + ".glb");
    }
    return {};
}

// The glTF branch: the document (model, re-parented bones, ragdoll, display masks, clips),
// built and written. The clips are consumed.
std::optional<Error> build_gltf(const ItemContext& c, const std::optional<flver::Model>& model, ClipsRead& clips,
                                const RagdollRead& ragdoll, const exporters::GltfOptions& gopt, GltfBranch& g, ItemResult& r) {
    SharedCache& cache = c.cache;
    ItemResult& p = g.part;
    StageClock clock(p);
    if (!model && !clips.skeleton) return std::nullopt;
    exporters::GltfDocument doc;
    exporters::AnimationGlbOptions aopt;
    aopt.mirror = exporters::Mirror::z;
    exporters::AnimationGlbReport arep;
    if (model) {
        if (auto a = add_model_to_gltf(c, doc, *model, clips, ragdoll, gopt, aopt, g, r); !a) return a.error();
    } else {
        // Clips without a model: the skeleton itself carries them.
        aopt.root_name = c.in.name + "_root";
    }
    if (clips.skeleton) {
        if (cache.pool && cache.pool->threads() > 1) {
            aopt.parallel_for = [&cache](size_t n, const std::function<void(size_t)>& task) { cache.pool->parallel_for(n, task); };
            aopt.parallel_batch = 2 * size_t(cache.pool->threads());
        }
        Result<void> a = model ? exporters::add_clips(doc, *clips.skeleton, clips.clips, aopt, &arep)
                               : exporters::add_skeleton_and_clips(doc, *clips.skeleton, clips.clips, aopt, &arep);
        if (!a) return a.error();
        r.clips = arep.animations;
        for (const auto& w : arep.warnings) p.warnings.push_back(w);
    }
    // The clip the cloth's figures are taken under: the one --bake names, else the first.
    for (auto& clip : clips.clips)
        if (!g.run_clip && (c.options.bake_clip.empty() || clip.name == c.options.bake_clip)) g.run_clip = clip;
    clips.clips.clear();
    clips.clips.shrink_to_fit();
    if (const size_t n = exporters::prefix_latin_less_node_names(doc.json()))
        p.warnings.push_back(std::to_string(n) + " node names without a Latin letter or digit got a \"nodeN_\" prefix (Godot 3 "
                             "drops such names and fails the import); extras.game_name keeps the game's name");
    clock.lap("gltf_build");
    if (auto w = write_gltf(c, doc, g); !w) return w.error();
    doc = exporters::GltfDocument{};
    clock.lap("gltf_write");  // with the document's destruction
    return std::nullopt;
}

// The report's entry for one exported cloth file.
ojson cloth_file_json(const std::string& source, const std::string& file, const cloth_export::Report& rep,
                      const std::vector<hcl::Violation>& violations) {
    ojson cr = {{"source", source}, {"file", file}, {"cloth_datas", rep.cloth_datas},
                {"sim_cloths", rep.sim_cloths}, {"particles", rep.particles}, {"constraint_sets", rep.constraint_sets},
                {"operators", rep.operators}};
    ojson binds = ojson::array();
    for (const auto& b : rep.bindings)
        binds.push_back({{"cloth_data", b.cloth_data}, {"buffer", b.buffer}, {"mesh", b.mesh_index >= 0 ? ojson(b.mesh_name) : ojson()},
                         {"max_bind_error", b.max_error}, {"vertices_checked", b.vertices_checked},
                         {"within_tolerance", b.within_tolerance}});
    cr["display_buffers"] = std::move(binds);
    ojson dropped = ojson::array();
    for (const auto& d : rep.dropped)
        if (d.count) dropped.push_back({{"member", d.class_name + "." + d.member}, {"count", d.count}, {"reason", d.reason}});
    cr["dropped"] = std::move(dropped);
    ojson rules = ojson::array();
    for (const auto& v : violations) rules.push_back(v.object + " " + v.member + ": " + v.message);
    cr["rule_violations"] = std::move(rules);
    return cr;
}

// The Havok members of the model binder (taken from it) and of the loose *_c.hkx files.
std::vector<game::Member> cloth_members(const ItemContext& c, std::vector<game::Member>& members, ItemResult& p) {
    std::vector<game::Member> havok_members;
    for (auto& m : members)
        if (is_havok(m.bytes) || havok::is_compendium(m.bytes)) havok_members.push_back(std::move(m));
    members.clear();
    for (const auto& path : c.in.cloth_files) {
        auto b = read_input(p, c.in, path);
        if (!b) {
            p.warnings.push_back(b.error().to_string());
            continue;
        }
        std::vector<Error> errors;
        for (auto& m : game::open_members_lenient(*b, rel(c.in, path), c.options.dcx, errors)) havok_members.push_back(std::move(m));
        for (const auto& e : errors) p.warnings.push_back("skipped: " + e.to_string());
    }
    return havok_members;
}

// The cloth branch: the cloth files read and exported in memory (written after both branches,
// in order). The census figures go to r (fields the glTF branch does not touch).
void export_cloth(const ItemContext& c, ModelBinder& binder, ClothBranch& cb, ItemResult& r) {
    if (!c.options.cloth) return;
    ItemResult& p = cb.part;
    StageClock clock(p);
    const std::optional<flver::Model>& model = binder.model;
    const std::vector<game::Member> havok_members = cloth_members(c, binder.members, p);
    auto comps = game::compendiums_for(havok_members, {});
    havok::CompendiumSet none;
    if (!comps) p.warnings.push_back("compendium: " + comps.error().to_string());
    const havok::CompendiumSet& set = comps ? *comps : none;
    const auto meshes = model ? exporters::cloth_model_meshes(*model) : std::vector<cloth_export::ModelMesh>{};
    for (const auto& m : havok_members) {
        if (!is_havok(m.bytes)) continue;
        auto f = havok::read_hkx(m.bytes, set.lookup());
        if (!f) {
            // A Havok member that is not cloth (ragdoll, physics) may fail to read; only report it.
            p.warnings.push_back(m.name + ": " + f.error().to_string());
            continue;
        }
        auto cl = hcl::read_cloth(*f);
        if (!cl) {
            p.warnings.push_back(m.name + ": cloth: " + cl.error().to_string());
            continue;
        }
        if (cl->cloth_datas.empty()) continue;
        cloth_export::Options o;
        o.game = game::game_of_sdk(f->sdk);
        o.sdk = f->sdk;
        o.source_file = leaf_name(m.name);
        if (auto anim = havok::read_animation_container(*f)) o.skeletons = anim->skeletons;
        o.meshes = meshes;
        if (model) o.model_file = leaf_name(c.in.model.filename().string());
        const auto violations = hcl::check(*cl, o.skeletons);
        if (!violations.empty())
            p.warnings.push_back(m.name + ": the cloth breaks " + std::to_string(violations.size()) + " of drape check's rules, e.g. " +
                                 violations[0].object + " " + violations[0].member + ": " + violations[0].message +
                                 " (exported as the game stores it; the report lists them all)");
        cloth_export::Report rep;
        auto bytes = cloth_export::export_cloth(*cl, o, &rep);
        if (!bytes) {
            p.warnings.push_back(m.name + ": cloth export: " + bytes.error().to_string());
            continue;
        }
        const size_t written = cb.files.size();
        const std::string suffix = written == 0 ? "" : "_" + std::to_string(written + 1);
        if (c.options.bake && written > 0)
            p.warnings.push_back("bake: only the first cloth file is baked; " + c.out_rel + suffix + ".drcloth is not");
        Census{r}.add_cloth(*f, rep);
        cb.reports.push_back(cloth_file_json(m.name, c.out_rel + suffix + ".drcloth", rep, violations));
        cb.files.push_back({suffix, std::move(*bytes)});
    }
    clock.lap("cloth");
}

// The report's "display_masks": the NPC rows of the model and the masks each shows.
ojson display_masks_json(const ItemResult& r) {
    ojson rows = ojson::array();
    for (const auto& row : r.npc_rows) {
        ojson masks = ojson::array();
        for (int k = 0; k < 32; ++k)
            if (row.masks >> k & 1u) masks.push_back(k);
        rows.push_back({{"row", row.id}, {"name", row.name}, {"masks", row.masks_known ? std::move(masks) : ojson(nullptr)}});
    }
    return {{"status", r.display_masks}, {"npc_rows", std::move(rows)},
            {"shown_row", r.npc_row >= 0 ? ojson(r.npc_row) : ojson(nullptr)},
            {"meshes_hidden", r.meshes_hidden}};
}

// The cloth files written, in order, each with the figures of a run of it; the first kept
// for --bake.
Result<void> write_cloth_files(const ItemContext& c, ClothBranch& cb, const ClipsRead& clips, const GltfBranch& g,
                               std::vector<std::string>& outputs, ojson& item_report, std::vector<uint8_t>& bake_cloth, ItemResult& r) {
    StageClock write_clock(r);
    for (auto& f : cb.files) {
        fs::path path = c.stem_path;
        path += f.suffix + ".drcloth";
        if (auto w = write_file_atomic(path, f.bytes); !w) return w.error();
        outputs.push_back(c.out_rel + f.suffix + ".drcloth");
        item_report["cloth_run"][c.out_rel + f.suffix + ".drcloth"] =
            cloth_run_report(f.bytes, clips.skeleton ? &*clips.skeleton : nullptr, g.run_clip ? &*g.run_clip : nullptr);
        if (c.options.bake && bake_cloth.empty()) bake_cloth = std::move(f.bytes);
        f.bytes = {};
    }
    if (!cb.reports.empty()) item_report["cloth"] = std::move(cb.reports);
    if (c.options.cloth) write_clock.lap("cloth");
    return {};
}

// The cloth's motion over a clip into <name>_baked.glb. Without cloth there is nothing to bake
// (most characters have none): no warning.
Result<void> write_bake(const ItemContext& c, const std::vector<uint8_t>& bake_glb, const std::vector<uint8_t>& bake_cloth,
                        std::vector<std::string>& outputs, ojson& item_report, ItemResult& r) {
    if (!c.options.bake || bake_glb.empty() || bake_cloth.empty()) return {};
    bake::BakeOptions bo;
    bo.clip = c.options.bake_clip;
    bo.depenetrate = c.options.bake_depenetrate;
    bake::BakeReport brep;
    auto baked = bake::bake_with_runtime(bake_glb, bake_cloth, bo, &brep);
    if (!baked) {
        r.warnings.push_back("bake: " + baked.error().to_string());
        return {};
    }
    fs::path p = c.stem_path;
    p += "_baked.glb";
    if (auto w = write_file_atomic(p, *baked); !w) return w.error();
    outputs.push_back(c.out_rel + "_baked.glb");
    item_report["bake"] = {{"file", c.out_rel + "_baked.glb"}, {"animation", brep.animation}, {"frames", brep.frames},
                           {"rate_hz", bo.rate}, {"meshes", brep.meshes}, {"vertex_offsets", brep.write.stored_vertices},
                           {"bytes_added", brep.write.bytes_added}, {"max_offset_m", brep.max_offset}};
    return {};
}

// <name>.report.json: the item's summary plus the bone match and cloth figures.
Result<void> write_item_report(const ItemContext& c, ItemResult& r, const ojson& item_report) {
    ojson rep = item_json(r);
    for (auto& [k, v] : item_report.items()) rep[k] = v;
    r.outputs.push_back(c.out_rel + ".report.json");
    rep["outputs"] = r.outputs;
    const std::string text = rep.dump(1, ' ', false, ojson::error_handler_t::replace);
    fs::path rp = c.stem_path;
    rp += ".report.json";
    if (auto w = write_file_atomic(rp, std::vector<uint8_t>(text.begin(), text.end())); !w) return w.error();
    return {};
}

}  // namespace

ItemResult convert_item(const ItemInputs& in, const fs::path& out, const Options& options, SharedCache& cache, OpenedModel* opened) {
    ItemResult r;
    r.name = in.name;
    r.folder = in.folder;
    r.kind = item_kind(in);
    for (const auto& e : in.extra_models) r.warnings.push_back(rel(in, e) + ": a second model of the same name; not converted");
    auto context = item_context(in, out, options, cache);
    if (!context) {
        r.error = context.error().to_string();
        return r;
    }
    const ItemContext& c = *context;
    auto fail = [&](const Error& e) {
        r.ok = false;
        r.error = e.to_string();
        return r;
    };

    StageClock clock(r);
    ModelBinder binder;
    if (!in.model.empty()) {
        auto b = open_model_binder(c, opened, r, clock);
        if (!b) return fail(b.error());
        binder = std::move(*b);
    }

    // Two branches on the pool's threads: (1) skeleton and clips, (2) materials and textures.
    // Each records into its own ItemResult part (inputs, warnings, stage times), merged into r
    // in the order the stages had when they ran one after the other (textures first), so the
    // report does not depend on which thread ran what.
    exporters::GltfOptions gopt;
    gopt.name = in.name;
    ClipsRead clips;
    ItemResult clips_part, textures_part;
    // The clips first: the textures wait for the material library, which may still be indexed.
    fan_out(cache, 2, [&](size_t b) {
        if (b == 0) clips = read_clips(c, clips_part);
        else read_textures(c, binder, gopt, textures_part);
    });
    merge_part(r, textures_part);
    merge_part(r, clips_part);

    RagdollRead ragdoll;
    if (binder.model) {
        ragdoll = read_ragdoll(binder.members, r);
        clock.lap("ragdoll");
    }

    // Two more branches: (1) the glTF document built and written; (2) the cloth files read and
    // exported (written after both, in order). Each writes only its own struct and its own
    // fields of r. The glTF branch first (the longer one; it fans its clips out further).
    GltfBranch g;
    ClothBranch cb;
    fan_out(cache, 2, [&](size_t b) {
        if (b == 0) g.error = build_gltf(c, binder.model, clips, ragdoll, gopt, g, r);
        else export_cloth(c, binder, cb, r);
    });
    merge_part(r, g.part);
    if (g.error) return fail(*g.error);
    std::vector<std::string> outputs = std::move(g.outputs);
    ojson item_report;
    if (!g.bone_match.is_null()) item_report["bone_match"] = std::move(g.bone_match);
    if (!g.ragdoll_report.is_null()) item_report["ragdoll"] = std::move(g.ragdoll_report);
    if (!r.display_masks.empty()) item_report["display_masks"] = display_masks_json(r);
    merge_part(r, cb.part);
    std::vector<uint8_t> bake_cloth;  // for --bake: the first .drcloth
    if (auto w = write_cloth_files(c, cb, clips, g, outputs, item_report, bake_cloth, r); !w) return fail(w.error());
    if (auto w = write_bake(c, g.bake_glb, bake_cloth, outputs, item_report, r); !w) return fail(w.error());
    g.bake_glb.clear();
    bake_cloth.clear();

    if (outputs.empty()) return fail(make_error("nothing to convert: no model, skeleton or cloth could be read", "convert.item"));
    r.ok = true;
    r.outputs = outputs;
    if (auto w = write_item_report(c, r, item_report); !w) return fail(w.error());
    return r;
}

ojson item_json(const ItemResult& r) {
    ojson j = {{"name", r.name}, {"kind", r.kind}, {"folder", r.folder}, {"ok", r.ok}};
    if (!r.ok) j["error"] = r.error;
    j["inputs"] = r.inputs;
    j["outputs"] = r.outputs;
    j["meshes"] = r.meshes;
    j["meshes_dropped"] = r.meshes_dropped;
    j["images"] = r.images;
    j["bones"] = r.bones;
    j["clips"] = r.clips;
    j["clip_failures"] = r.clip_failures;
    j["reparented_bones"] = r.reparented_bones;
    j["ragdoll_bodies"] = r.ragdoll_bodies;
    if (!r.display_masks.empty()) j["display_masks"] = {{"npc_rows", r.npc_rows.size()}, {"shown_row", r.npc_row >= 0 ? ojson(r.npc_row) : ojson(nullptr)}, {"meshes_hidden", r.meshes_hidden}};
    j["ragdoll_joints"] = r.ragdoll_joints;
    j["cloth_datas"] = r.cloth_datas;
    j["sim_cloths"] = r.sim_cloths;
    j["particles"] = r.particles;
    j["constraint_sets"] = r.constraint_sets;
    j["operators"] = r.operators;
    j["hcl_classes"] = r.hcl_classes;
    j["warnings"] = r.warnings;
    j["input_bytes"] = r.input_bytes;
    j["seconds"] = r.seconds;
    j["stage_seconds"] = r.stage_seconds;
    return j;
}

}  // namespace drape::convert
