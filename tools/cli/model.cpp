// drape model: one FLVER (loose, or inside DCX/BND4 such as a .partsbnd.dcx) to .glb/.gltf.
// Flags and printing only: loading is drape::game (loaders.h), writing drape::exporters.
#include <filesystem>
#include <iostream>
#include <map>

#include "commands.h"
#include "drape/exporters/gltf.h"
#include "drape/exporters/textures.h"
#include "drape/game/loaders.h"
#include "drape/game/materials.h"
#include "drape/io/file.h"
#include "drape/matbin/matbin.h"
#include "drape/tpf/tpf.h"
#ifdef DRAPE_HAVE_FBX
#include "drape/exporters/fbx.h"
#endif

namespace drape::cli {

namespace {

struct ModelOptions {
    std::string input, output, skeleton;
    std::vector<std::string> textures;
    std::string materials, format;
    bool text = false;
};

// Materials: FLVERs that leave texture paths empty name them in their MATBIN / MTD.
void resolve_materials(flver::Model& model, const ModelOptions& o, const dcx::DecodeOptions& dopt, bool quiet) {
    bool empty_paths = false;
    for (const auto& m : model.materials)
        for (const auto& t : m.textures) empty_paths = empty_paths || t.path.empty();
    if (empty_paths || !o.materials.empty()) {
        std::vector<std::filesystem::path> files;
        if (o.materials.empty())
            files = matbin::MaterialLibrary::binders_for(o.input);
        else if (std::filesystem::is_directory(o.materials))
            files = matbin::MaterialLibrary::binders_in(o.materials);
        else
            files = {o.materials};
        if (!o.materials.empty() && files.empty()) std::cerr << "warning: --materials: no material binder in " << o.materials << "\n";
        matbin::MaterialLibrary library;
        for (const auto& f : files)
            if (auto a = library.add_file(f, dopt); !a) std::cerr << "warning: materials: " << a.error().to_string() << "\n";
        if (library.size() > 0) {
            for (const auto& w : game::resolve_material_textures(model, library)) std::cerr << "warning: " << w << "\n";
            if (!quiet)
                std::cout << "materials: " << game::resolved_material_count(model) << " of " << model.materials.size()
                          << " resolved through " << library.size() << " definitions\n";
        }
    }
}

// Matches the model's bones against --skeleton and writes OUT.bones.txt; false (after printing why) on failure.
bool write_bone_report(const flver::Model& model, const ModelOptions& o, const std::filesystem::path& out, const dcx::DecodeOptions& dopt,
                       bool quiet) {
    exporters::Skeleton skeleton;
    auto hk = game::load_havok_skeleton(o.skeleton, dopt);
    if (hk && *hk) {
        skeleton = exporters::skeleton_from_havok(**hk);
    } else {
        auto sk = game::load_flver_file(o.skeleton, dopt);
        if (!sk) {
            std::cerr << "error: --skeleton: no Havok skeleton, and " << sk.error().to_string() << "\n";
            return false;
        }
        skeleton = exporters::skeleton_from_flver(*sk);
    }
    auto rep = exporters::match_skeleton(model, skeleton);
    auto report_path = out;
    report_path.replace_extension(".bones.txt");
    std::string text = rep.to_text();
    if (auto w = write_file(report_path, text.data(), text.size()); !w) {
        std::cerr << "error: " << w.error().to_string() << "\n";
        return false;
    }
    if (!quiet) std::cout << text.substr(0, text.find('\n')) << " -> " << report_path.string() << "\n";
    return true;
}

void run_model(const ModelOptions& o, const GlobalOptions& global, int& exit_code) {
    dcx::DecodeOptions dopt;
    dopt.oodle_path = global.oodle_path;
    dopt.jobs = global.jobs;
    auto model = game::load_flver_file(o.input, dopt);
    if (!model) {
        std::cerr << "error: " << model.error().to_string() << "\n";
        exit_code = k_exit_input;
        return;
    }
    for (const auto& w : model->warnings) std::cerr << "warning: " << o.input << ": " << w << "\n";
    std::filesystem::path out(o.output);
    exporters::GltfOptions gopt;
    std::string format = o.format;
    if (format.empty()) format = out.extension() == ".fbx" ? "fbx" : (o.text || out.extension() == ".gltf") ? "gltf" : "glb";
    gopt.binary = format != "gltf";
#ifndef DRAPE_HAVE_FBX
    if (format == "fbx") {
        std::cerr << "error: --format fbx: this drape was built without Assimp\n";
        exit_code = k_exit_usage;
        return;
    }
#endif
    resolve_materials(*model, o, dopt, global.quiet);
    // Textures: TPFs inside the input binder (a .partsbnd holds the part's TPF) and --textures.
    std::vector<std::vector<uint8_t>> tpfs;
    if (auto in = read_file(o.input)) tpfs = game::collect_tpfs(*in, dopt);
    for (const auto& t : o.textures) {
        auto tb = read_file(t);
        if (!tb) {
            std::cerr << "error: --textures: " << tb.error().to_string() << "\n";
            exit_code = k_exit_input;
            return;
        }
        auto more = game::collect_tpfs(*tb, dopt);
        if (more.empty()) std::cerr << "warning: --textures: no TPF in " << t << "\n";
        for (auto& m : more) tpfs.push_back(std::move(m));
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
    if (!o.skeleton.empty() && !write_bone_report(*model, o, out, dopt, global.quiet)) {
        exit_code = k_exit_input;
        return;
    }
    Result<void> r;
#ifdef DRAPE_HAVE_FBX
    if (format == "fbx") {
        auto glb = exporters::gltf_bytes(*model, gopt);
        auto fbx = glb ? exporters::fbx_from_glb(*glb) : Result<std::vector<uint8_t>>(glb.error());
        r = fbx ? write_file(out, *fbx) : Result<void>(fbx.error());
    } else
#endif
        r = exporters::write_gltf(*model, out, gopt);
    if (!r) {
        std::cerr << "error: " << r.error().to_string() << "\n";
        exit_code = k_exit_input;
        return;
    }
    if (!global.quiet)
        std::cout << o.input << " -> " << out.string() << " (" << model->nodes.size() << " bones, " << model->meshes.size()
                  << " meshes, " << model->dummies.size() << " dummies)\n";
}

}  // namespace

void register_model(CLI::App& app, GlobalOptions& global, int& exit_code) {
    auto* cmd = app.add_subcommand("model",
                                   "Convert one model (a .flver, or a binder holding one such as a .partsbnd.dcx) to glTF 2.0:\n"
                                   "bones named as in the game, one skin, meshes with display masks, dummy polys, materials.");
    auto o = std::make_shared<ModelOptions>();
    cmd->add_option("file", o->input, "FILE.flver or FILE.partsbnd.dcx (any DCX/BND4 holding a FLVER)")->required()->check(CLI::ExistingFile);
    cmd->add_option("-o,--output", o->output, "Output .glb (or .gltf, written with a .bin beside it)")->required();
    cmd->add_option("--skeleton", o->skeleton,
                    "A skeleton to match the FLVER's bones against by name: a Havok skeleton (Skeleton.hkx, an\n"
                    ".anibnd(.dcx), a cloth *_c.hkx) or another FLVER; writes the bone-match report OUT.bones.txt");
    cmd->add_option("--textures", o->textures,
                    "TPF files (or DCX/binders holding TPFs) with the model's textures; decoded to PNG in OUT_tex/.\n"
                    "TPFs inside the input binder are used too");
    cmd->add_flag("--gltf", o->text, "Write .gltf + .bin instead of .glb (also chosen by an .gltf output name)");
    cmd->add_option("--materials", o->materials,
                    "Material definitions for FLVERs whose texture paths are empty (Elden Ring, Sekiro): a folder\n"
                    "(its *.matbinbnd.dcx / *.mtdbnd.dcx, also in material/ and mtd/) or one binder. Default: the\n"
                    "material/ or mtd/ folder of the input's game folder (searched up to two folders above it)");
    cmd->add_option("--format", o->format, "glb, gltf or fbx (FBX through Assimp; default: by the output's extension)")
        ->check(CLI::IsMember({"glb", "gltf", "fbx"}));
    cmd->callback([o, &global, &exit_code] { run_model(*o, global, exit_code); });
}

}  // namespace drape::cli
