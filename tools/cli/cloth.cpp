// drape cloth: the game's Havok cloth (a *_c.hkx, loose or in a binder) to a .drcloth file.
#include <filesystem>
#include <iostream>

#include "commands.h"
#include "drape/bnd/bnd4.h"
#include "drape/dcx/dcx.h"
#include "drape/exporters/cloth_export.h"
#include "drape/exporters/model_meshes.h"
#include "drape/flver/flver.h"
#include "drape/game/containers.h"
#include "drape/game/loaders.h"
#include "drape/havok/animation.h"
#include "drape/havok/cloth.h"
#include "drape/havok/hkx.h"
#include "drape/io/file.h"

namespace drape::cli {

void register_cloth(CLI::App& app, GlobalOptions& global, int& exit_code) {
    auto* cmd = app.add_subcommand(
        "cloth",
        "Export the Havok cloth of a character or part (a *_c.hkx, loose or inside a chrbnd/partsbnd) to a .drcloth\n"
        "file (docs/cloth-format.md). With a model (--model, or the FLVER in the same binder), display buffers are\n"
        "bound to the model's meshes and their vertex order is verified.");
    struct Args {
        std::string input, model, output;
        bool zstd = false, no_model = false;
    };
    auto args = std::make_shared<Args>();
    cmd->add_option("input", args->input, "Cloth file (.hkx) or binder holding one")->required()->check(CLI::ExistingFile);
    cmd->add_option("--model", args->model, "FLVER (or binder holding one) whose meshes the display buffers drive")
        ->check(CLI::ExistingFile);
    cmd->add_flag("--no-model", args->no_model, "Do not bind display buffers, even to a FLVER in the same binder");
    cmd->add_option("-o,--output", args->output, "Output .drcloth")->required();
    cmd->add_flag("--zstd", args->zstd, "Wrap the file in a zstd frame");
    cmd->callback([args, &global, &exit_code] {
        exit_code = k_exit_input;
        dcx::DecodeOptions dopt;
        dopt.oodle_path = global.oodle_path;
        dopt.jobs = global.jobs;
        auto members = game::open_members(args->input, std::filesystem::path(args->input).filename().string(), dopt);
        if (!members) {
            std::cerr << "error: " << members.error().to_string() << "\n";
            return;
        }
        auto comps = game::compendiums_for(*members, std::filesystem::path(args->input).parent_path());
        if (!comps) {
            std::cerr << "error: " << comps.error().to_string() << "\n";
            return;
        }
        // The first Havok member that holds cloth.
        const game::Member* source = nullptr;
        havok::File file;
        hcl::ClothContainer cloth;
        for (const auto& m : *members) {
            if (!havok::is_packfile(m.bytes) && !havok::is_tagfile(m.bytes)) continue;
            auto f = havok::read_hkx(m.bytes, comps->lookup());
            if (!f) {
                std::cerr << "error: " << f.error().to_string() << " (in " << m.name << ")\n";
                return;
            }
            auto c = hcl::read_cloth(*f);
            if (!c) {
                std::cerr << "error: " << m.name << ": " << c.error().to_string() << "\n";
                return;
            }
            if (c->cloth_datas.empty() && c->collidables.empty()) continue;
            source = &m;
            file = std::move(*f);
            cloth = std::move(*c);
            break;
        }
        if (!source) {
            std::cerr << "error: " << args->input << ": no Havok cloth (hclClothContainer) found\n";
            return;
        }
        cloth_export::Options o;
        o.game = game::game_of_sdk(file.sdk);
        o.sdk = file.sdk;
        o.source_file = source->name;
        o.zstd = args->zstd;
        if (auto anim = havok::read_animation_container(file)) o.skeletons = anim->skeletons;

        // The model: --model, else a FLVER in the same binder.
        if (!args->no_model) {
            std::vector<game::Member> model_members;
            if (!args->model.empty()) {
                auto mm = game::open_members(args->model, std::filesystem::path(args->model).filename().string(), dopt);
                if (!mm) {
                    std::cerr << "error: " << mm.error().to_string() << "\n";
                    return;
                }
                model_members = std::move(*mm);
            } else {
                model_members = *members;
            }
            for (const auto& m : model_members) {
                if (!flver::is_flver(m.bytes)) continue;
                auto model = flver::read_flver(m.bytes);
                if (!model) {
                    std::cerr << "error: " << model.error().to_string() << " (in " << m.name << ")\n";
                    return;
                }
                o.meshes = exporters::cloth_model_meshes(*model);
                o.model_file = m.name;
                break;
            }
            o.model_given = !o.model_file.empty();
            if (!args->model.empty() && o.meshes.empty()) {
                std::cerr << "error: " << args->model << ": no FLVER found\n";
                return;
            }
        }

        // The source is checked by the games' cloth rules too: a file that breaks one still exports (it
        // is the game's data), but the user is told.
        const auto violations = hcl::check(cloth, o.skeletons);
        cloth_export::Report rep;
        auto bytes = cloth_export::export_cloth(cloth, o, &rep);
        if (!bytes) {
            std::cerr << "error: " << bytes.error().to_string() << "\n";
            return;
        }
        std::filesystem::path out(args->output);
        if (auto w = write_file(out, *bytes); !w) {
            std::cerr << "error: " << w.error().to_string() << "\n";
            return;
        }
        if (!global.quiet) {
            std::cout << "wrote " << out.string() << " (" << bytes->size() << " B) from " << source->name << "\n";
            std::cout << "  " << rep.cloth_datas << " cloth data(s), " << rep.sim_cloths << " sim cloth(s), " << rep.particles
                      << " particles, " << rep.constraint_sets << " constraint sets, " << rep.operators << " operators\n";
            std::cout << "  " << rep.collidables << " collidable object(s), referenced " << rep.collidable_references << " time(s) by sim cloths\n";
            for (const auto& s : rep.sim_cloths_figures) {
                std::cout << "  sim cloth " << s.cloth_data << "/" << s.name << ": rest pose ";
                if (s.rest.checked) std::cout << "within " << s.rest.error_m << " m (" << s.rest.particles_checked << " pinned particles)\n";
                else std::cout << "not checked: " << s.rest.reason << "\n";
            }
            if (!o.model_given) std::cout << "  display buffers: not bound (no model)\n";
            for (const auto& b : rep.bindings) {
                std::cout << "  display buffer " << b.cloth_data << "/" << b.buffer << " -> ";
                if (b.mesh_index < 0) std::cout << "unbound: " << b.reason << "\n";
                else if (b.max_error < 0) std::cout << b.mesh_name << " (vertex order not checked: " << b.reason << ")\n";
                else
                    std::cout << b.mesh_name << ", " << b.vertices_checked << " vertices, max bind error " << b.max_error
                              << " of the mesh size" << (b.within_tolerance ? "" : "  ** beyond 4.9e-5 **") << "\n";
            }
            for (const auto& d : rep.dropped)
                if (d.count) std::cout << "  dropped " << d.class_name << "." << d.member << " (" << d.count << "): " << d.reason << "\n";
            if (violations.empty()) {
                std::cout << "  source clean under drape check's rules\n";
            } else {
                std::cout << "  warning: the source breaks " << violations.size() << " of drape check's rules, e.g. "
                          << violations[0].object << " " << violations[0].member << ": " << violations[0].message
                          << " (drape check lists them all)\n";
            }
        }
        bool all_bound_ok = true;
        for (const auto& b : rep.bindings) all_bound_ok &= b.within_tolerance;
        exit_code = all_bound_ok ? k_exit_ok : k_exit_input;
    });
}

}  // namespace drape::cli
