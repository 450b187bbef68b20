// drape model: one FLVER (loose, or inside DCX/BND4 such as a .partsbnd.dcx) to .glb/.gltf.
// Flags and printing only: loading is drape::game (loaders.h), writing drape::exporters.
#include <filesystem>
#include <iostream>
#include <map>

#include "commands.h"
#include "drape/exporters/gltf.h"
#include "drape/exporters/textures.h"
#include "drape/game/loaders.h"
#include "drape/io/file.h"
#include "drape/tpf/tpf.h"

namespace drape::cli {

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
                    "A skeleton to match the FLVER's bones against by name: a Havok skeleton (Skeleton.hkx, an\n"
                    ".anibnd(.dcx), a cloth *_c.hkx) or another FLVER; writes the bone-match report OUT.bones.txt");
    cmd->add_option("--textures", o->textures,
                    "TPF files (or DCX/binders holding TPFs) with the model's textures; decoded to PNG in OUT_tex/.\n"
                    "TPFs inside the input binder are used too");
    cmd->add_flag("--gltf", o->text, "Write .gltf + .bin instead of .glb (also chosen by an .gltf output name)");
    cmd->callback([o, &global, &exit_code] {
        dcx::DecodeOptions dopt;
        dopt.oodle_path = global.oodle_path;
        dopt.jobs = global.jobs;
        auto model = game::load_flver_file(o->input, dopt);
        if (!model) {
            std::cerr << "error: " << model.error().to_string() << "\n";
            exit_code = k_exit_input;
            return;
        }
        std::filesystem::path out(o->output);
        exporters::GltfOptions gopt;
        gopt.binary = !(o->text || out.extension() == ".gltf");
        // Textures: TPFs inside the input binder (a .partsbnd holds the part's TPF) and --textures.
        std::vector<std::vector<uint8_t>> tpfs;
        if (auto in = read_file(o->input)) tpfs = game::collect_tpfs(*in, dopt);
        for (const auto& t : o->textures) {
            auto tb = read_file(t);
            if (!tb) {
                std::cerr << "error: --textures: " << tb.error().to_string() << "\n";
                exit_code = k_exit_input;
                return;
            }
            auto more = game::collect_tpfs(*tb, dopt);
            if (more.empty()) std::cerr << "warning: --textures: no TPF in " << t << "\n";
        }
        // Decoded to PNG in OUT_tex/ beside the output.
        std::vector<image::EncodedTexture> encoded;
        for (const auto& bytes : tpfs) {
            auto tpf = tpf::read_tpf(bytes);
            if (!tpf) {
                std::cerr << "warning: TPF: " << tpf.error().to_string() << "\n";
                continue;
            }
            for (auto& t : image::encode_tpf_textures(*tpf)) {
                if (!t.error.empty()) std::cerr << "warning: texture " << t.name << ": " << t.error << "\n";
                else encoded.push_back(std::move(t));
            }
        }
        if (!encoded.empty()) {
            const std::string folder = out.stem().string() + "_tex";
            if (auto w = image::write_textures(encoded, out.parent_path() / folder, folder + "/", gopt.textures); !w) {
                std::cerr << "error: " << w.error().to_string() << "\n";
                exit_code = k_exit_input;
                return;
            }
        }
        if (!o->skeleton.empty()) {
            exporters::Skeleton skeleton;
            auto hk = game::load_havok_skeleton(o->skeleton, dopt);
            if (hk && *hk) {
                skeleton = exporters::skeleton_from_havok(**hk);
            } else {
                auto sk = game::load_flver_file(o->skeleton, dopt);
                if (!sk) {
                    std::cerr << "error: --skeleton: no Havok skeleton, and " << sk.error().to_string() << "\n";
                    exit_code = k_exit_input;
                    return;
                }
                skeleton = exporters::skeleton_from_flver(*sk);
            }
            auto rep = exporters::match_skeleton(*model, skeleton);
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
