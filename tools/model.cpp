// drape model: one FLVER (loose, or inside DCX/BND4 such as a .partsbnd.dcx) to .glb/.gltf.
// The whole-folder `convert` reuses load_flver_file() and exporters::write_gltf().
#include <filesystem>
#include <iostream>

#include "commands.h"
#include "drape/bnd/bnd4.h"
#include "drape/dcx/dcx.h"
#include "drape/exporters/gltf.h"
#include "drape/flver/flver.h"
#include "drape/io/file.h"
#include "model.h"

namespace drape::cli {

namespace {

// The FLVER bytes of a file: itself, or the first FLVER member found through DCX and BND4
// layers. `chain` receives the container names for error messages.
Result<std::vector<uint8_t>> find_flver(std::vector<uint8_t> bytes, const dcx::DecodeOptions& dopt, std::vector<std::string>& chain,
                                        unsigned depth = 0) {
    if (depth > 4) return make_error("containers nested too deeply", "model.input");
    if (flver::is_flver(bytes)) return bytes;
    if (dcx::is_dcx(bytes)) {
        auto d = dcx::decompress(bytes, dopt);
        if (!d) return std::move(d).error();
        return find_flver(std::move(*d), dopt, chain, depth + 1);
    }
    if (bnd::is_bnd4(bytes)) {
        auto b = bnd::read_bnd4(bytes);
        if (!b) return std::move(b).error();
        for (const auto& e : b->entries) {
            auto eb = bnd::entry_bytes(*b, e);
            if (!eb) return std::move(eb).error().within(e.name);
            if (flver::is_flver(*eb) || dcx::is_dcx(*eb) || bnd::is_bnd4(*eb)) {
                chain.push_back(e.name);
                auto r = find_flver(std::move(*eb), dopt, chain, depth + 1);
                if (r) return r;
                chain.pop_back();
            }
        }
        return make_error("no FLVER member in the binder", "model.input");
    }
    return make_error("not a FLVER, DCX or BND4 file", "model.input");
}

}  // namespace

Result<flver::Model> load_flver_file(const std::filesystem::path& path, const dcx::DecodeOptions& dopt) {
    auto bytes = read_file(path);
    if (!bytes) return std::move(bytes).error();
    std::vector<std::string> chain;
    auto fb = find_flver(std::move(*bytes), dopt, chain);
    auto wrap = [&](Error e) {
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) e.within(*it);
        e.within(path.filename().string());
        return e;
    };
    if (!fb) return wrap(std::move(fb).error());
    auto m = flver::read_flver(*fb);
    if (!m) return wrap(std::move(m).error());
    return m;
}

void register_model(CLI::App& app, GlobalOptions& global, int& exit_code) {
    auto* cmd = app.add_subcommand("model",
                                   "Convert one model (a .flver, or a binder holding one such as a .partsbnd.dcx) to glTF 2.0:\n"
                                   "bones named as in the game, one skin, meshes with display masks, dummy polys, materials.");
    struct Opts {
        std::string input, output, skeleton;
        std::vector<std::string> textures;
        bool text = false;
    };
    auto o = std::make_shared<Opts>();
    cmd->add_option("file", o->input, "FILE.flver or FILE.partsbnd.dcx (any DCX/BND4 holding a FLVER)")->required()->check(CLI::ExistingFile);
    cmd->add_option("-o,--output", o->output, "Output .glb (or .gltf, written with a .bin beside it)")->required();
    cmd->add_option("--skeleton", o->skeleton,
                    "A skeleton to match the FLVER's bones against by name; writes OUT.bones.txt (FLVER files and\n"
                    "binders are read today; Havok Skeleton.hkx once the Havok reader is wired in)");
    cmd->add_option("--textures", o->textures, "TPF files with the model's textures (decoded once the TPF reader is wired in)");
    cmd->add_flag("--gltf", o->text, "Write .gltf + .bin instead of .glb (also chosen by an .gltf output name)");
    cmd->callback([o, &global, &exit_code] {
        dcx::DecodeOptions dopt;
        dopt.oodle_path = global.oodle_path;
        dopt.jobs = global.jobs;
        auto model = load_flver_file(o->input, dopt);
        if (!model) {
            std::cerr << "error: " << model.error().to_string() << "\n";
            exit_code = k_exit_input;
            return;
        }
        std::filesystem::path out(o->output);
        exporters::GltfOptions gopt;
        gopt.binary = !(o->text || out.extension() == ".gltf");
        if (!o->textures.empty())
            std::cerr << "warning: --textures: TPF decoding is not wired into `drape model` yet; materials keep their texture paths in extras\n";
        if (!o->skeleton.empty()) {
            auto sk = load_flver_file(o->skeleton, dopt);
            if (!sk) {
                std::cerr << "error: --skeleton: " << sk.error().to_string() << "\n";
                exit_code = k_exit_input;
                return;
            }
            auto rep = exporters::match_skeleton(*model, exporters::skeleton_from_flver(*sk));
            auto report_path = out;
            report_path.replace_extension(".bones.txt");
            std::string text = rep.to_text();
            if (auto w = write_file(report_path, text.data(), text.size()); !w) {
                std::cerr << "error: " << w.error().to_string() << "\n";
                exit_code = k_exit_input;
                return;
            }
            if (!global.quiet) std::cout << text.substr(0, text.find('\n')) << " -> " << report_path.string() << "\n";
        }
        auto r = exporters::write_gltf(*model, out, gopt);
        if (!r) {
            std::cerr << "error: " << r.error().to_string() << "\n";
            exit_code = k_exit_input;
            return;
        }
        if (!global.quiet)
            std::cout << o->input << " -> " << out.string() << " (" << model->nodes.size() << " bones, " << model->meshes.size()
                      << " meshes, " << model->dummies.size() << " dummies)\n";
    });
}

}  // namespace drape::cli
