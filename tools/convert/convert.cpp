// drape::convert: finding the items of a folder and running them on a pool of jobs.
#include "drape/convert/convert.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <chrono>
#include <exception>
#include <functional>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

#include "drape/dcx/dcx.h"
#include "drape/flver/flver.h"
#include "drape/game/containers.h"
#include "drape/io/file.h"
#include "drape/matbin/matbin.h"
#include "item.h"
#include "pool.h"

namespace drape::convert {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(uint8_t(c)));
    return s;
}

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The name without its extensions ("c5000.chrbnd.dcx" -> "c5000").
// Every file under `root`, recursively, in name order. Symbolic links are followed: a game folder
// assembled from an install unpacked on another drive links its chr/ or parts/ there. Each real
// folder is read once: a link to a folder inside `root` is left to the walk that reaches it
// directly, and a link back to a folder read already (a loop) is not followed; both are said, as
// is a link to nothing. Paths stay as the walk reached them, so outputs mirror the input's layout.
std::vector<fs::path> folder_files(const fs::path& root, std::vector<std::string>& skipped) {
    std::vector<fs::path> files;
    std::error_code ec;
    const fs::path real_root = fs::canonical(root, ec);
    std::set<fs::path> read{real_root};
    const auto inside_root = [&](const fs::path& real) {
        const auto rel = real.lexically_relative(real_root);
        return !rel.empty() && *rel.begin() != "..";
    };
    std::function<void(const fs::path&)> walk = [&](const fs::path& folder) {
        std::vector<fs::directory_entry> entries;
        std::error_code e;
        for (fs::directory_iterator it(folder, fs::directory_options::skip_permission_denied, e); !e && it != fs::directory_iterator(); it.increment(e))
            entries.push_back(*it);
        std::sort(entries.begin(), entries.end(), [](const auto& x, const auto& y) { return x.path().filename() < y.path().filename(); });
        for (const auto& entry : entries) {
            const std::string label = relative_label(entry.path(), root);
            const bool link = entry.is_symlink(e);
            if (entry.is_regular_file(e)) {
                files.push_back(entry.path());
            } else if (entry.is_directory(e)) {
                const fs::path real = fs::canonical(entry.path(), e);
                if (e) skipped.push_back(label + ": a folder whose real path cannot be resolved: " + e.message());
                else if (link && inside_root(real)) skipped.push_back(label + ": a link to " + relative_label(real, real_root) + ", read there");
                else if (!read.insert(real).second) skipped.push_back(label + ": a link to a folder read already (" + real.generic_string() + "), not followed");
                else walk(entry.path());
            } else if (link && !fs::exists(entry.path(), e)) {
                skipped.push_back(label + ": a link to nothing");
            }
        }
    };
    walk(root);
    return files;
}

// The game's params for the display masks: regulation.bin (Elden Ring, DS3), else Sekiro's
// gameparam parambnd, among the walked files, else in the input folder's ancestors (a chr/ folder
// given alone). Empty when there is none.
fs::path find_params(const std::vector<fs::path>& found, const fs::path& start) {
    for (const char* want : {"regulation.bin", "gameparam.parambnd.dcx"})
        for (const auto& f : found)
            if (lower(f.filename().string()) == want) return f;
    std::error_code ec;
    fs::path d = fs::absolute(start, ec);
    for (int up = 0; !ec && up < 8; ++up, d = d.parent_path()) {
        for (const char* rel : {"regulation.bin", "param/gameparam/gameparam.parambnd.dcx", "param/gameparam.parambnd.dcx"})
            if (fs::is_regular_file(d / rel, ec)) return d / rel;
        if (d == d.parent_path()) break;
    }
    return {};
}

std::string stem_of(const std::string& file_name) {
    const size_t dot = file_name.find('.');
    return dot == std::string::npos ? file_name : file_name.substr(0, dot);
}

struct Classified {
    enum Role { none, model, anibnd, texbnd, tpf, cloth, materials, params } role = none;
    std::string key;         // the item the file belongs to
    bool main_anibnd = false;
    bool high_res = false;   // texbnd _h
    bool part = false;       // .partsbnd
};

Classified classify(const std::string& file_name) {
    static const std::regex chr_id(R"(^(c\d{4})(_.*)?$)", std::regex::icase);
    const std::string l = lower(file_name);
    const std::string stem = stem_of(file_name);
    Classified c;
    std::smatch m;
    const bool is_chr = std::regex_match(stem, m, chr_id);
    const std::string chr = is_chr ? lower(m[1].str()) : "";
    const std::string suffix = is_chr && m[2].matched ? lower(m[2].str()) : "";
    if (ends_with(l, ".chrbnd.dcx") || ends_with(l, ".chrbnd")) {
        c.role = Classified::model;
        c.key = is_chr ? chr + suffix : stem;
    } else if (ends_with(l, ".partsbnd.dcx") || ends_with(l, ".partsbnd")) {
        c.role = Classified::model;
        c.part = true;
        c.key = stem;
    } else if (ends_with(l, ".flver") || ends_with(l, ".flver.dcx")) {
        c.role = Classified::model;
        c.key = stem;
    } else if (ends_with(l, ".anibnd.dcx") || ends_with(l, ".anibnd")) {
        c.role = Classified::anibnd;
        // cNNNN_divNN, cNNNN_aNN*: clips on the main anibnd's skeleton.
        c.key = is_chr && (suffix.empty() || suffix.rfind("_div", 0) == 0 || suffix.rfind("_a", 0) == 0) ? chr : stem;
        c.main_anibnd = !is_chr || suffix.empty();
    } else if (ends_with(l, ".texbnd.dcx") || ends_with(l, ".texbnd")) {
        c.role = Classified::texbnd;
        c.key = is_chr && (suffix == "_h" || suffix == "_l") ? chr : stem;
        c.high_res = suffix == "_h";
    } else if (ends_with(l, ".tpf") || ends_with(l, ".tpf.dcx")) {
        c.role = Classified::tpf;
        c.key = stem;
    } else if (ends_with(l, "_c.hkx") || ends_with(l, "_c.hkx.dcx")) {
        c.role = Classified::cloth;
        c.key = stem.substr(0, stem.size() - 2);
    } else if (ends_with(l, ".matbinbnd.dcx") || ends_with(l, ".matbinbnd") || ends_with(l, ".mtdbnd.dcx") || ends_with(l, ".mtdbnd")) {
        c.role = Classified::materials;
    } else if (l == "regulation.bin" || ends_with(l, ".parambnd.dcx") || ends_with(l, ".parambnd")) {
        c.role = Classified::params;
    }
    return c;
}

}  // namespace

AnimationBinders animation_binders_of(const fs::path& file) {
    AnimationBinders out;
    const Classified self = classify(file.filename().string());
    if (self.key.empty()) return out;
    std::error_code ec;
    std::vector<fs::path> beside;
    for (fs::directory_iterator it(file.parent_path().empty() ? fs::path(".") : file.parent_path(), ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec)) beside.push_back(it->path());
    std::sort(beside.begin(), beside.end());
    for (const auto& f : beside) {
        const Classified c = classify(f.filename().string());
        if (c.role != Classified::anibnd || lower(c.key) != lower(self.key)) continue;
        if (c.main_anibnd && out.main.empty()) out.main = f;
        else if (!c.main_anibnd) out.clips.push_back(f);
    }
    // c0000.anibnd.dcx and c0000.anibnd both main: the first in name order is kept, the other is
    // a clip binder of the same skeleton.
    return out;
}

Result<anim::ClipSet> load_character_clips(const fs::path& file, const dcx::DecodeOptions& dcx) {
    const AnimationBinders binders = animation_binders_of(file);
    if (binders.main.empty()) return make_error("no " + classify(file.filename().string()).key + ".anibnd[.dcx] beside it", file.string());
    auto read = [&](const fs::path& p) -> Result<anim::ClipSet> {
        auto data = read_file(p);
        if (!data) return data.error();
        return anim::read_clip_set(*data, p.filename().string(), dcx);
    };
    auto set = read(binders.main);
    if (!set) return set.error();
    if (set->skeletons.empty()) return make_error("no skeleton in " + binders.main.filename().string(), file.string());
    for (const auto& p : binders.clips) {
        auto more = read(p);
        if (!more) {
            set->failures.push_back({p.filename().string(), more.error(), ""});
            continue;
        }
        for (auto& c : more->clips) set->clips.push_back(std::move(c));
        for (auto& f : more->failures) set->failures.push_back(std::move(f));
    }
    return set;
}

namespace {

// The pre-pass, on the pool's threads: every item's model file opened (read, unpacked, first
// FLVER parsed), the material_key of every material path each names collected (only those
// MATBINs/MTDs are indexed), and the opened model kept for its item within the budget; beside
// them, each material binder read (`binders`: the bytes for MaterialLibrary::add_bytes, or the
// error add_file would have given; a KRAK binder as read, for add_bytes to decode only its
// headers and kept members, a DFLT/ZSTD one decompressed here, off the indexing thread). Unreadable models add nothing (their
// item reports them).
std::vector<std::string> open_models(const std::vector<ItemInputs>& work, const std::vector<fs::path>& libraries, const dcx::DecodeOptions& dcx,
                                     uint64_t budget, JobPool& pool, std::vector<std::unique_ptr<OpenedModel>>& opened,
                                     std::vector<Result<std::vector<uint8_t>>>& binders) {
    std::vector<std::set<std::string>> keys(work.size());
    opened.clear();
    opened.resize(work.size());
    binders.assign(libraries.size(), std::vector<uint8_t>{});
    std::atomic<uint64_t> held{0};
    // The binders first: the bigger tasks start first.
    pool.run_items(libraries.size() + work.size(), [&](size_t task) {
        if (task < libraries.size()) {
            const fs::path& lib = libraries[task];
            try {
                binders[task] = matbin::MaterialLibrary::read_binder(lib, dcx);
            } catch (const std::exception& e) {
                binders[task] = make_error(std::string("internal error: ") + e.what(), "convert.materials").within(lib.filename().string());
            }
            return;
        }
        const size_t i = task - libraries.size();
        const ItemInputs& g = work[i];
        if (g.model.empty()) return;
        try {
            auto bytes = read_file(g.model);
            if (!bytes) return;
            std::error_code ec;
            const std::string label = relative_label(g.model, g.base);
            auto o = std::make_unique<OpenedModel>(open_model(std::move(*bytes), label, dcx));
            if (o->model && *o->model)
                for (const auto& mat : (*o->model)->materials)
                    if (!mat.mtd.empty()) keys[i].insert(matbin::material_key(mat.mtd));
            const uint64_t cost = 2 * o->held_bytes();
            if (held.fetch_add(cost) + cost <= budget) opened[i] = std::move(o);
            else held.fetch_sub(cost);
        } catch (...) {
            // What the readers cannot report as a value (an allocation refused for a hostile
            // size): the item opens its model itself and fails alone, with its one-line error.
            keys[i].clear();
            opened[i].reset();
        }
    });
    std::set<std::string> all;
    for (auto& k : keys) all.merge(k);
    return {all.begin(), all.end()};
}

bool wanted(const Options& o, const std::string& key) {
    if (o.only.empty()) return true;
    const std::string k = lower(key);
    return std::any_of(o.only.begin(), o.only.end(), [&](const std::string& s) { return lower(s) == k; });
}

}  // namespace

size_t Report::failed() const {
    return size_t(std::count_if(items.begin(), items.end(), [](const ItemResult& r) { return !r.ok; }));
}

int Report::exit_code() const { return items.empty() || failed() ? 1 : 0; }

nlohmann::ordered_json Report::to_json() const {
    nlohmann::ordered_json j;
    size_t characters = 0, parts = 0, clips = 0, cloth_datas = 0, sim_cloths = 0, particles = 0, operators = 0, constraint_sets = 0;
    std::map<std::string, size_t> classes;
    std::map<std::string, double> stages;
    for (const auto& r : items)
        for (const auto& [k, v] : r.stage_seconds) stages[k] += v;
    for (const auto& r : items) {
        if (!r.ok) continue;
        characters += r.kind == "character";
        parts += r.kind == "part";
        clips += r.clips;
        cloth_datas += r.cloth_datas;
        sim_cloths += r.sim_cloths;
        particles += r.particles;
        operators += r.operators;
        constraint_sets += r.constraint_sets;
        for (const auto& [k, v] : r.hcl_classes) classes[k] += v;
    }
    j["format"] = "drape convert summary 1";
    j["items"] = items.size();
    j["converted"] = items.size() - failed();
    j["failed"] = failed();
    j["characters"] = characters;
    j["parts"] = parts;
    j["clips"] = clips;
    j["cloth_datas"] = cloth_datas;
    j["sim_cloths"] = sim_cloths;
    j["particles"] = particles;
    j["operators"] = operators;
    j["constraint_sets"] = constraint_sets;
    j["hcl_classes"] = classes;
    j["input_bytes"] = input_bytes;
    j["seconds"] = seconds;
    j["jobs"] = jobs;
    j["regulation"] = regulation;
    j["material_seconds"] = material_seconds;
    j["stage_seconds"] = stages;  // summed over the items (wall time per job)
    auto& list = j["results"] = nlohmann::ordered_json::array();
    for (const auto& r : items) list.push_back(item_json(r));
    j["skipped"] = skipped;
    return j;
}

namespace {

// What the walk of the input found: the items (files grouped by folder and name) and the
// files the items share (material libraries, params, the player's anibnd).
struct FolderScan {
    fs::path base;  // what labels are relative to
    std::vector<fs::path> files;
    std::vector<ItemInputs> work;
    std::vector<fs::path> material_libraries, param_files;
};

// The files to look at: a folder's files (recursively, through symbolic links), or one file
// with the other files of its folder as companions. `only_key` is set in the second case.
std::vector<fs::path> input_files(const fs::path& root, fs::path& base, std::string& only_key, std::vector<std::string>& skipped) {
    std::error_code ec;
    std::vector<fs::path> files;
    if (fs::is_regular_file(root, ec)) {
        base = root.parent_path();
        only_key = lower(classify(root.filename().string()).key);
        for (const auto& de : fs::directory_iterator(base.empty() ? "." : base, ec))
            if (de.is_regular_file(ec)) files.push_back(de.path());
    } else {
        files = folder_files(root, skipped);
    }
    std::sort(files.begin(), files.end());
    return files;
}

// One classified file into its item's inputs.
void add_to_item(ItemInputs& g, const Classified& c, const fs::path& f) {
    switch (c.role) {
        case Classified::model:
            if (!g.model.empty()) g.extra_models.push_back(f);
            else g.model = f;
            g.part = g.part || c.part;
            break;
        case Classified::anibnd:
            if (c.main_anibnd && g.main_anibnd.empty()) g.main_anibnd = f;
            else g.clip_anibnds.push_back(f);
            break;
        case Classified::texbnd: (c.high_res ? g.texbnd_high : g.texbnd_low) = f; break;
        case Classified::tpf: g.tpfs.push_back(f); break;
        case Classified::cloth: g.cloth_files.push_back(f); break;
        default: break;
    }
}

// The walk: files grouped by (folder, key) into items; textures of no model skipped.
FolderScan scan_folder(const fs::path& root, const Options& options, std::vector<std::string>& skipped) {
    FolderScan scan;
    scan.base = root;
    std::string only_key;
    scan.files = input_files(root, scan.base, only_key, skipped);
    const fs::path& base = scan.base;
    std::map<std::pair<std::string, std::string>, ItemInputs> groups;
    fs::path player_anibnd;
    for (const auto& f : scan.files) {
        const std::string rel = relative_label(f, base);
        const std::string folder = fs::path(rel).parent_path().generic_string();
        const std::string name = f.filename().string();
        Classified c = classify(name);
        if (lower(name) == "c0000.anibnd.dcx" && player_anibnd.empty()) player_anibnd = f;
        if (c.role == Classified::params) {
            scan.param_files.push_back(f);
            continue;
        }
        if (c.role == Classified::materials) {
            scan.material_libraries.push_back(f);
            continue;
        }
        if (c.role == Classified::none) {
            skipped.push_back(rel + ": not a model, animation, texture or cloth file");
            continue;
        }
        if (!only_key.empty() && lower(c.key) != only_key) continue;
        if (!wanted(options, c.key)) continue;
        ItemInputs& g = groups[{folder, lower(c.key)}];
        if (g.name.empty()) g.name = c.key;
        g.folder = folder;
        g.base = base;
        add_to_item(g, c, f);
    }
    // A folder without material/ or mtd/ inside (chr/ given alone, a single file): the game's
    // binders beside or above it.
    if (scan.material_libraries.empty() && !scan.files.empty())
        scan.material_libraries = matbin::MaterialLibrary::binders_for(scan.files.front());
    for (auto& [k, g] : groups) {
        if (g.model.empty() && g.main_anibnd.empty() && g.cloth_files.empty() && g.clip_anibnds.empty()) {
            for (const auto& t : g.tpfs) skipped.push_back(relative_label(t, base) + ": textures of no model");
            if (!g.texbnd_high.empty()) skipped.push_back(relative_label(g.texbnd_high, base) + ": textures of no model");
            if (!g.texbnd_low.empty()) skipped.push_back(relative_label(g.texbnd_low, base) + ": textures of no model");
            continue;
        }
        if (g.part && !player_anibnd.empty()) g.player_anibnd = player_anibnd;
        g.material_libraries = scan.material_libraries;
        scan.work.push_back(std::move(g));
    }
    return scan;
}

// The NpcParam the characters' display masks come from: read once, before the items.
void load_display_params(const FolderScan& scan, const Options& options, const dcx::DecodeOptions& dcx, SharedCache& cache) {
    const fs::path params =
        options.regulation.empty() ? find_params(scan.param_files, scan.base.empty() ? fs::path(".") : scan.base) : options.regulation;
    if (!params.empty())
        cache.npc = load_npc_params(params, params.filename().string(), dcx);
    else
        cache.npc.status = "no regulation.bin or gameparam.parambnd.dcx in or above the input: every mesh shown";
}

// Indexes the material binders read by the pre-pass, keeping only the definitions `names`
// lists; the binders' bytes are dropped as they are indexed. Returns the seconds it took.
double index_materials(const FolderScan& scan, std::vector<std::string> names, std::vector<Result<std::vector<uint8_t>>>& binders,
                       const dcx::DecodeOptions& dcx, SharedCache& cache, std::vector<std::string>& skipped) {
    const auto t = std::chrono::steady_clock::now();
    try {
        if (!scan.material_libraries.empty()) cache.materials.keep_only(std::move(names));
        for (size_t k = 0; k < scan.material_libraries.size(); ++k) {
            const fs::path& lib = scan.material_libraries[k];
            const std::string label = relative_label(lib, scan.base);
            Result<void> a = binders[k] ? cache.materials.add_bytes(std::move(*binders[k]), lib.filename().string(), dcx)
                                        : Result<void>(binders[k].error());
            binders[k] = std::vector<uint8_t>{};  // indexed: the binder's bytes are dropped
            if (!a) skipped.push_back(label + ": " + a.error().to_string());
        }
    } catch (const std::exception& e) {
        skipped.push_back(std::string("material library: internal error: ") + e.what());
    }
    binders.clear();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    cache.materials_indexed();  // whatever happened: the items must not wait forever
    return seconds;
}

// The biggest items start first (their fan-out then finds the other threads idle sooner);
// results keep the folder order.
std::vector<size_t> largest_first(const std::vector<ItemInputs>& work) {
    std::vector<size_t> order(work.size());
    std::vector<uintmax_t> weight(work.size());
    auto size_of = [](const fs::path& p) -> uintmax_t {
        std::error_code e;
        const uintmax_t n = p.empty() ? 0 : fs::file_size(p, e);
        return e ? 0 : n;
    };
    for (size_t i = 0; i < work.size(); ++i) {
        order[i] = i;
        weight[i] = size_of(work[i].model) + size_of(work[i].main_anibnd) + size_of(work[i].texbnd_high) + size_of(work[i].texbnd_low);
        for (const auto& p : work[i].clip_anibnds) weight[i] += size_of(p);
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return weight[a] > weight[b]; });
    return order;
}

// One item converted and timed. A bad file never stops the batch: the readers report errors
// as values, but what they cannot (an allocation refused for a hostile size, a task of the
// item that threw on another thread) fails this item alone, with its one-line error.
ItemResult convert_guarded(const ItemInputs& item, const fs::path& out, const Options& per_job, SharedCache& cache,
                           std::unique_ptr<OpenedModel>& opened) {
    const auto s = std::chrono::steady_clock::now();
    ItemResult r;
    try {
        r = convert_item(item, out, per_job, cache, opened.get());
    } catch (const std::exception& e) {
        r = ItemResult{};
        r.name = item.name;
        r.folder = item.folder;
        r.error = std::string("internal error: ") + e.what();
    } catch (...) {
        r = ItemResult{};
        r.name = item.name;
        r.folder = item.folder;
        r.error = "internal error: an exception that is not a std::exception";
    }
    opened.reset();  // what the item left of its opened model
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count();
    return r;
}

}  // namespace

Report convert_folder(const fs::path& root, const fs::path& out, const Options& options, const Progress& progress) {
    const auto t0 = std::chrono::steady_clock::now();
    Report report;
    FolderScan scan = scan_folder(root, options, report.skipped);
    std::vector<ItemInputs>& work = scan.work;

    unsigned jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
    // Not capped by the item count: an item fans its textures and clips out on every thread.
    report.jobs = jobs;
    Options per_job = options;
    per_job.dcx.jobs = 1;  // jobs x decoder threads never exceed the cores
    report.items.resize(work.size());
    std::mutex progress_mutex;
    size_t done = 0;
    SharedCache cache;
    load_display_params(scan, options, per_job.dcx, cache);
    report.regulation = cache.npc.status;
    JobPool pool(jobs);
    const auto materials_t0 = std::chrono::steady_clock::now();
    // Only the definitions the items' FLVERs name are kept (the rest of the binders is dropped
    // once indexed): a name pre-pass over the models, whose opened models the items then take.
    std::vector<std::unique_ptr<OpenedModel>> opened;
    std::vector<Result<std::vector<uint8_t>>> binders;
    std::vector<std::string> names =
        open_models(work, scan.material_libraries, per_job.dcx, options.opened_model_budget, pool, opened, binders);
    const double prepass_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - materials_t0).count();
    // Indexing the binders (their headers and kept members decoded) is the first task of the
    // run below, beside the first items: they read their clips meanwhile and wait
    // for it only before they resolve their materials.
    double index_seconds = 0;
    cache.materials_pending();
    const std::vector<size_t> order = largest_first(work);
    cache.pool = &pool;
    pool.run_items(work.size() + 1, [&](size_t task) {
        if (task == 0) {  // started first, so no item waits for it before it runs
            index_seconds = index_materials(scan, std::move(names), binders, per_job.dcx, cache, report.skipped);
            return;
        }
        const size_t i = order[task - 1];
        report.items[i] = convert_guarded(work[i], out, per_job, cache, opened[i]);
        std::lock_guard<std::mutex> lock(progress_mutex);
        ++done;
        if (progress) progress({done, work.size(), &report.items[i]});
    });
    cache.pool = nullptr;
    report.material_seconds = prepass_seconds + index_seconds;
    for (const auto& r : report.items) report.input_bytes += r.input_bytes;
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // OUT/summary.json (atomic like every output).
    const std::string text = report.to_json().dump(1);
    if (auto w = write_file_atomic(out / "summary.json", std::vector<uint8_t>(text.begin(), text.end())); !w)
        report.skipped.push_back("summary.json: " + w.error().to_string());
    return report;
}

}  // namespace drape::convert
