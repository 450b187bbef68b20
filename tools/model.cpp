// drape model: one FLVER (loose, or inside DCX/BND4 such as a .partsbnd.dcx) to .glb/.gltf.
// The whole-folder `convert` reuses load_flver_file() and exporters::write_gltf().
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <iostream>

#include "commands.h"
#include "drape/bnd/bnd4.h"
#include "drape/dcx/dcx.h"
#include "drape/exporters/gltf.h"
#include "drape/flver/flver.h"
#include "drape/game/materials.h"
#include "drape/matbin/matbin.h"
#include "drape/havok/animation.h"
#include "drape/havok/hkx.h"
#include "drape/exporters/png.h"
#include "drape/io/file.h"
#include "drape/tpf/tpf.h"
#ifdef DRAPE_HAVE_FBX
#include "drape/exporters/fbx.h"
#endif
#include "containers.h"
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

// Every TPF reachable through DCX and BND4 layers of `bytes` (decompressed copies).
void collect_tpfs(std::vector<uint8_t> bytes, const dcx::DecodeOptions& dopt, std::vector<std::vector<uint8_t>>& out,
                  unsigned depth = 0) {
    if (depth > 4) return;
    if (dcx::is_dcx(bytes)) {
        if (auto d = dcx::decompress(bytes, dopt)) collect_tpfs(std::move(*d), dopt, out, depth + 1);
        return;
    }
    if (bytes.size() >= 4 && std::memcmp(bytes.data(), "TPF\0", 4) == 0) {
        out.push_back(std::move(bytes));
        return;
    }
    if (bnd::is_bnd4(bytes)) {
        auto b = bnd::read_bnd4(bytes);
        if (!b) return;
        for (const auto& e : b->entries)
            if (auto eb = bnd::entry_bytes(*b, e)) collect_tpfs(std::move(*eb), dopt, out, depth + 1);
    }
}

}  // namespace

Result<std::optional<havok::Skeleton>> load_havok_skeleton(const std::filesystem::path& path, const dcx::DecodeOptions& dopt) {
    auto opened = open_members(path, path.filename().string(), dopt);
    if (!opened) return opened.error();
    std::vector<Member>& members = *opened;
    auto comps = compendiums_for(members, path.parent_path());
    havok::CompendiumSet none;
    const havok::CompendiumSet& set = comps ? *comps : none;
    // Prefer a member named like the anibnd's skeleton, then any Havok member with a skeleton.
    std::stable_sort(members.begin(), members.end(), [](const auto& a, const auto& b) {
        auto is_skel = [](const std::string& n) {
            std::string l = n;
            for (char& c : l) c = char(std::tolower(uint8_t(c)));
            return l.find("skeleton") != std::string::npos;
        };
        return is_skel(a.name) && !is_skel(b.name);
    });
    for (const auto& m : members) {
        const auto& b = m.bytes;
        if (!havok::is_packfile(b) && !havok::is_tagfile(b)) continue;
        auto f = havok::read_hkx(b, set.lookup());
        if (!f) continue;
        auto c = havok::read_animation_container(*f);
        if (c && !c->skeletons.empty()) return std::optional<havok::Skeleton>(c->skeletons[0]);
    }
    return std::optional<havok::Skeleton>();
}

exporters::Skeleton to_export_skeleton(const havok::Skeleton& s) {
    exporters::Skeleton out;
    for (size_t i = 0; i < s.bone_names.size(); ++i) {
        exporters::SkeletonBone b;
        b.name = s.bone_names[i];
        b.parent = i < s.parents.size() ? s.parents[i] : -1;
        if (i < s.reference_pose.size()) {
            const auto& t = s.reference_pose[i];
            b.translation = {t.translation[0], t.translation[1], t.translation[2]};
            b.rotation = {t.rotation[0], t.rotation[1], t.rotation[2], t.rotation[3]};
            b.scale = {t.scale[0], t.scale[1], t.scale[2]};
        }
        out.bones.push_back(b);
    }
    return out;
}

Result<void> add_textures(const std::vector<std::vector<uint8_t>>& tpfs, const std::filesystem::path& out,
                          std::map<std::string, std::string>& textures, std::vector<std::string>& warnings) {
    const std::string folder = out.stem().string() + "_tex";
    for (const auto& bytes : tpfs) {
        auto tpf = tpf::read_tpf(bytes);
        if (!tpf) {
            warnings.push_back("TPF: " + tpf.error().to_string());
            continue;
        }
        auto written = image::export_tpf_textures(*tpf, out.parent_path() / folder);
        if (!written) return std::move(written).error();
        for (size_t i = 0; i < written->size(); ++i) {
            const auto& t = (*written)[i];
            if (!t.error.empty()) {
                warnings.push_back("texture " + t.name + ": " + t.error);
                continue;
            }
            const std::string key = exporters::texture_key(t.name);
            textures[key] = folder + "/" + t.file_name;
            // `_n` maps keep gloss in blue (seed 003 §3); glTF reads blue as the normal's Z, so
            // rebuild it from red and green: z = sqrt(1 - x^2 - y^2), x, y = 2 * v / 255 - 1.
            if (key.size() > 2 && key.compare(key.size() - 2, 2, "_n") == 0 && i < tpf->textures.size()) {
                auto dds = tpf::parse_dds(tpf->textures[i].dds);
                if (!dds) continue;
                auto img = tpf::decode_surface(*dds);
                if (!img || img->is_float || img->channels < 3) continue;
                const uint32_t ch = img->channels;
                for (size_t p = 0; p + ch <= img->u8.size(); p += ch) {
                    float x = img->u8[p] / 127.5f - 1.0f, y = img->u8[p + 1] / 127.5f - 1.0f;
                    float z = std::sqrt(std::max(0.0f, 1.0f - x * x - y * y));
                    img->u8[p + 2] = uint8_t(std::lround((z + 1.0f) * 127.5f));
                }
                auto png = image::encode_png(*img);
                if (!png) return std::move(png).error();
                if (auto w = write_file(t.png, *png); !w) return w;
            }
        }
    }
    return {};
}

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
        std::string materials, format;
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
    cmd->add_option("--materials", o->materials,
                    "Material definitions for FLVERs whose texture paths are empty (Elden Ring, Sekiro): a folder\n"
                    "(its *.matbinbnd.dcx / *.mtdbnd.dcx, also in material/ and mtd/) or one binder. Default: the\n"
                    "material/ or mtd/ folder of the input's game folder (searched up to two folders above it)");
    cmd->add_option("--format", o->format, "glb, gltf or fbx (FBX through Assimp; default: by the output's extension)")
        ->check(CLI::IsMember({"glb", "gltf", "fbx"}));
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
        std::string format = o->format;
        if (format.empty()) format = out.extension() == ".fbx" ? "fbx" : (o->text || out.extension() == ".gltf") ? "gltf" : "glb";
        gopt.binary = format != "gltf";
#ifndef DRAPE_HAVE_FBX
        if (format == "fbx") {
            std::cerr << "error: --format fbx: this drape was built without Assimp\n";
            exit_code = k_exit_usage;
            return;
        }
#endif
        // Materials: FLVERs that leave texture paths empty name them in their MATBIN / MTD.
        bool empty_paths = false;
        for (const auto& m : model->materials)
            for (const auto& t : m.textures) empty_paths = empty_paths || t.path.empty();
        if (empty_paths || !o->materials.empty()) {
            std::vector<std::filesystem::path> files;
            if (o->materials.empty())
                files = matbin::MaterialLibrary::binders_for(o->input);
            else if (std::filesystem::is_directory(o->materials))
                files = matbin::MaterialLibrary::binders_in(o->materials);
            else
                files = {o->materials};
            if (!o->materials.empty() && files.empty()) std::cerr << "warning: --materials: no material binder in " << o->materials << "\n";
            matbin::MaterialLibrary library;
            for (const auto& f : files)
                if (auto a = library.add_file(f, dopt); !a) std::cerr << "warning: materials: " << a.error().to_string() << "\n";
            if (library.size() > 0) {
                for (const auto& w : game::resolve_material_textures(*model, library)) std::cerr << "warning: " << w << "\n";
                if (!global.quiet)
                    std::cout << "materials: " << game::resolved_material_count(*model) << " of " << model->materials.size()
                              << " resolved through " << library.size() << " definitions\n";
            }
        }
        // Textures: TPFs inside the input binder (a .partsbnd holds the part's TPF) and --textures.
        std::vector<std::vector<uint8_t>> tpfs;
        if (auto in = read_file(o->input)) collect_tpfs(std::move(*in), dopt, tpfs);
        for (const auto& t : o->textures) {
            auto tb = read_file(t);
            if (!tb) {
                std::cerr << "error: --textures: " << tb.error().to_string() << "\n";
                exit_code = k_exit_input;
                return;
            }
            size_t before = tpfs.size();
            collect_tpfs(std::move(*tb), dopt, tpfs);
            if (tpfs.size() == before) std::cerr << "warning: --textures: no TPF in " << t << "\n";
        }
        std::vector<std::string> warnings;
        if (auto a = add_textures(tpfs, out, gopt.textures, warnings); !a) {
            std::cerr << "error: " << a.error().to_string() << "\n";
            exit_code = k_exit_input;
            return;
        }
        for (const auto& w : warnings) std::cerr << "warning: " << w << "\n";
        if (!o->skeleton.empty()) {
            exporters::Skeleton skeleton;
            auto hk = load_havok_skeleton(o->skeleton, dopt);
            if (hk && *hk) {
                skeleton = to_export_skeleton(**hk);
            } else {
                auto sk = load_flver_file(o->skeleton, dopt);
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
            std::cout << o->input << " -> " << out.string() << " (" << model->nodes.size() << " bones, " << model->meshes.size()
                      << " meshes, " << model->dummies.size() << " dummies)\n";
    });
}

}  // namespace drape::cli
