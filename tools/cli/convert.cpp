// drape convert: a game folder to .glb + .drcloth + reports (drape::convert); flags and printing.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>

#include "commands.h"
#include "drape/convert/convert.h"

namespace drape::cli {

namespace {

struct ConvertArgs {
    std::string input, output, format = "glb";
    std::vector<std::string> only;
    bool no_cloth = false, no_textures = false;
    bool quiet = false;  // convert's own --quiet, the same as the global drape -q
    bool bake = false, depenetrate = false;
    std::string bake_clip;
    std::string regulation;
    int64_t npc = -1;
};

std::string megabytes(uint64_t b) {
    char s[32];
    std::snprintf(s, sizeof s, "%.1f MB", double(b) / 1e6);
    return s;
}

int run_convert(const ConvertArgs& a, GlobalOptions g) {
    g.quiet = g.quiet || a.quiet;
    convert::Options o;
    o.dcx.oodle_path = g.oodle_path;
    o.jobs = g.jobs;
    o.only = a.only;
    o.format = a.format == "gltf" ? convert::Format::gltf : a.format == "fbx" ? convert::Format::fbx : convert::Format::glb;
    o.cloth = !a.no_cloth;
    o.textures = !a.no_textures;
    o.bake = a.bake;
    o.bake_clip = a.bake_clip;
    o.bake_depenetrate = a.depenetrate;
    o.regulation = a.regulation;
    o.npc_row = a.npc;
    const bool tty = ::isatty(STDERR_FILENO) != 0;
    convert::Progress progress;
    if (!g.quiet) {
        progress = [tty](const convert::ProgressEvent& e) {
            const auto& r = *e.finished;
            const std::string what = (r.folder.empty() ? "" : r.folder + "/") + r.name;
            if (tty) {
                // One line, rewritten: [#####.....] 12/40 c5000
                const int width = 30, filled = e.total ? int(width * e.done / e.total) : width;
                std::cerr << "\r[" << std::string(size_t(filled), '#') << std::string(size_t(width - filled), '.') << "] " << e.done << "/"
                          << e.total << " " << what << (r.ok ? "" : " FAILED") << "\033[K" << std::flush;
                if (e.done == e.total) std::cerr << "\n";
            } else {
                std::cerr << "[" << e.done << "/" << e.total << "] " << what << (r.ok ? " ok" : " FAILED") << "\n";
            }
        };
    }
    const auto report = convert::convert_folder(a.input, a.output, o, progress);
    // Failures always print; the summary unless --quiet.
    for (const auto& r : report.items)
        if (!r.ok) std::cerr << "error: " << (r.folder.empty() ? "" : r.folder + "/") << r.name << ": " << r.error << "\n";
    if (!g.quiet) {
        const auto j = report.to_json();
        std::cout << "drape convert: " << j["converted"] << " of " << j["items"] << " items converted (" << j["characters"]
                  << " characters, " << j["parts"] << " parts) from " << megabytes(report.input_bytes) << " in " << report.seconds
                  << " s with " << report.jobs << " jobs\n";
        std::cout << "  clips " << j["clips"] << ", cloth datas " << j["cloth_datas"] << ", sim cloths " << j["sim_cloths"]
                  << ", particles " << j["particles"] << ", operators " << j["operators"] << ", constraint sets "
                  << j["constraint_sets"] << "\n";
        for (const auto& [cls, n] : j["hcl_classes"].items()) std::cout << "    " << cls << "  " << n << "\n";
        std::cout << "  display masks: " << report.regulation << "\n";
        for (const auto& r : report.items) {
            if (!r.ok) continue;
            std::cout << "  " << (r.folder.empty() ? "" : r.folder + "/") << r.name << " (" << r.kind << "): " << r.meshes << " meshes, "
                      << r.images << " images, " << r.clips << " clips";
            if (r.reparented_bones) std::cout << ", " << r.reparented_bones << " bones re-parented";
            if (r.particles) std::cout << ", cloth " << r.particles << " particles";
            if (r.npc_row >= 0) std::cout << ", NpcParam " << r.npc_row << " (" << r.meshes_hidden << " masked meshes hidden)";
            if (!r.warnings.empty()) std::cout << ", " << r.warnings.size() << " warnings (in the report)";
            std::cout << "\n";
            for (const auto& out : r.outputs) std::cout << "    " << out << "\n";
        }
        if (report.failed()) std::cout << "  " << report.failed() << " failed (listed above and in summary.json)\n";
        std::cout << "  summary: " << (std::filesystem::path(a.output) / "summary.json").string() << "\n";
    }
    if (report.items.empty()) std::cerr << "error: nothing to convert in " << a.input << "\n";
    return report.exit_code() == 0 ? k_exit_ok : k_exit_input;
}

}  // namespace

void register_convert(CLI::App& app, GlobalOptions& global, int& exit_code) {
    auto a = std::make_shared<ConvertArgs>();
    CLI::App* sub = app.add_subcommand(
        "convert",
        "Convert a game folder (chr/, parts/, material/), a mod folder or single files: one .glb per character and part\n"
        "(model, skin, every clip of its anibnds, dummies, textures), its .drcloth, a .report.json, and OUT/summary.json.\n"
        "Exit code 0: everything converted; 1: some inputs failed (each listed); 2: usage.");
    sub->add_option("input", a->input, "Game folder, mod folder or file")->required()->check(CLI::ExistingPath);
    sub->add_option("-o,--output", a->output, "Output folder (nothing is written outside it)")->required();
    sub->add_option("--format", a->format, "glb (default), gltf (.gltf + .bin) or fbx")->check(CLI::IsMember({"glb", "gltf", "fbx"}));
    sub->add_option("--only", a->only, "Only these items (cNNNN, a part's name); repeatable");
    sub->add_flag("--no-cloth", a->no_cloth, "Do not write .drcloth files");
    sub->add_flag("--no-textures", a->no_textures, "Do not decode textures");
    sub->add_flag("-q,--quiet", a->quiet, "Print only errors (as drape -q convert)");
    auto* bake = sub->add_option("--bake", a->bake_clip,
                                 "Also run the cloth runtime over CLIP (default: the first clip, or a sway of the root when there\n"
                                 "is none) and write <name>_baked.glb, in which the cloth moves (give it after the input)")
                     ->expected(0, 1);
    sub->add_flag("--depenetrate", a->depenetrate,
                  "With --bake: move particles left inside a collidable after a step out to its surface (the\n"
                  "runtime's DRAPE_INSTANCE_DEPENETRATE: not the game's arithmetic, off by default)")
        ->needs(bake);
    sub->add_option("--regulation", a->regulation,
                    "The game's params for display masks: regulation.bin (encrypted or not) or gameparam.parambnd.dcx\n"
                    "(default: found in the input folder or above it). Each character shows the meshes of the masks its\n"
                    "first NpcParam row turns on; masked meshes stay in the file, in a second scene")
        ->check(CLI::ExistingFile);
    sub->add_option("--npc", a->npc, "The NpcParam row whose display masks a character shows (default: its first row)");
    sub->callback([a, bake, &global, &exit_code] {
        a->bake = bake->count() > 0;
        exit_code = run_convert(*a, global);
    });
}

}  // namespace drape::cli
