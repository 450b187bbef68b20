// drape simulate: runs a cloth through the runtime for N steps and reports, per sim cloth,
// whether it stayed finite, its largest link stretch, its deepest collidable penetration and the
// time per step. Flags and printing only: the driving is drape::drive (tools/drive).
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cloth_drive.h"
#include "commands.h"
#include "drape/game/containers.h"
#include "drape/anim/anibnd.h"
#include "drape/exporters/cloth_export.h"
#include "drape/havok/animation.h"
#include "drape/havok/cloth.h"
#include "drape/io/file.h"

namespace drape::cli {

namespace {

std::string json_string(const std::string& s) {
    std::ostringstream o;
    o << '"';
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') o << '\\' << char(c);
        else if (c < 0x20 || c >= 0x7F) o << "\\u" << std::hex << std::setw(4) << std::setfill('0') << int(c) << std::dec;
        else o << char(c);
    }
    o << '"';
    return o.str();
}

// The cloth of FILE as .drcloth bytes: the file itself, or the first Havok cloth of a binder /
// tagfile exported in memory (with the file's skeleton, the cloth's own).
bool cloth_bytes(const std::string& path, const dcx::DecodeOptions& dopt, std::vector<uint8_t>& out, std::optional<havok::Skeleton>& skeleton) {
    auto members = game::open_members(path, std::filesystem::path(path).filename().string(), dopt);
    if (!members) {
        std::cerr << "error: " << members.error().to_string() << "\n";
        return false;
    }
    for (const auto& m : *members)
        if (m.bytes.size() >= 8 && std::memcmp(m.bytes.data() + 4, "DRCL", 4) == 0) {
            out = m.bytes;
            return true;
        }
    auto comps = game::compendiums_for(*members, std::filesystem::path(path).parent_path());
    if (!comps) {
        std::cerr << "error: " << comps.error().to_string() << "\n";
        return false;
    }
    for (const auto& m : *members) {
        if (!havok::is_packfile(m.bytes) && !havok::is_tagfile(m.bytes)) continue;
        auto f = havok::read_hkx(m.bytes, comps->lookup());
        if (!f) continue;
        auto c = hcl::read_cloth(*f);
        if (!c || c->cloth_datas.empty()) continue;
        cloth_export::Options o;
        o.sdk = f->sdk;
        o.source_file = m.name;
        if (auto anim = havok::read_animation_container(*f)) {
            o.skeletons = anim->skeletons;
            if (!anim->skeletons.empty()) skeleton = anim->skeletons[0];
        }
        auto bytes = cloth_export::export_cloth(*c, o, nullptr);
        if (!bytes) {
            std::cerr << "error: " << m.name << ": " << bytes.error().to_string() << "\n";
            return false;
        }
        out = std::move(*bytes);
        return true;
    }
    std::cerr << "error: " << path << ": neither a .drcloth nor a file with Havok cloth\n";
    return false;
}

}  // namespace

void register_simulate(CLI::App& app, GlobalOptions& global, int& exit_code) {
    auto* cmd = app.add_subcommand("simulate",
                                   "Run a cloth (.drcloth, or a binder/tagfile with Havok cloth) through the drape runtime and report\n"
                                   "per sim cloth: finite, largest link stretch, deepest penetration, ns per step.");
    struct Args {
        std::string input, animation, clip;
        uint32_t steps = 1000;
        float dt = 1.0f / 30;
        bool json = false;
        bool depenetrate = false;
    };
    auto args = std::make_shared<Args>();
    cmd->add_option("input", args->input, "Cloth: .drcloth, or a chrbnd/partsbnd/*_c.hkx")->required()->check(CLI::ExistingFile);
    cmd->add_option("--animation", args->animation, "Animation binder (.anibnd[.dcx]) whose clip drives the cloth's bones")->check(CLI::ExistingFile);
    cmd->add_option("--clip", args->clip, "Clip name (default: the first clip of the binder)");
    cmd->add_option("--steps", args->steps, "Steps")->default_val(1000)->check(CLI::Range(1u, 10000000u));
    cmd->add_option("--dt", args->dt, "Seconds per step")->default_val(1.0f / 30)->check(CLI::PositiveNumber);
    cmd->add_flag("--json", args->json, "Print JSON");
    cmd->add_flag("--depenetrate", args->depenetrate,
                  "After each step move particles still inside a collidable out to its surface (the runtime's\n"
                  "DRAPE_INSTANCE_DEPENETRATE: not the game's arithmetic, off by default)");
    cmd->callback([args, &global, &exit_code] {
        exit_code = k_exit_input;
        dcx::DecodeOptions dopt;
        dopt.oodle_path = global.oodle_path;
        dopt.jobs = global.jobs;
        std::vector<uint8_t> bytes;
        std::optional<havok::Skeleton> cloth_skeleton;
        if (!cloth_bytes(args->input, dopt, bytes, cloth_skeleton)) return;
        drive::RunOptions ro;
        ro.steps = args->steps;
        ro.dt = args->dt;
        ro.depenetrate = args->depenetrate;
        if (cloth_skeleton) ro.cloth_skeleton = &*cloth_skeleton;
        anim::ClipSet clips;
        if (!args->animation.empty()) {
            auto data = read_file(args->animation);
            if (!data) {
                std::cerr << "error: " << data.error().to_string() << "\n";
                return;
            }
            auto set = anim::read_clip_set(*data, std::filesystem::path(args->animation).filename().string(), dopt);
            if (!set) {
                std::cerr << "error: " << set.error().to_string() << "\n";
                return;
            }
            clips = std::move(*set);
            if (clips.skeletons.empty() || clips.clips.empty()) {
                std::cerr << "error: " << args->animation << ": no skeleton or no clip\n";
                return;
            }
            const anim::Clip* pick = &clips.clips[0];
            if (!args->clip.empty()) {
                pick = nullptr;
                for (const auto& c : clips.clips)
                    if (c.name == args->clip) pick = &c;
                if (!pick) {
                    std::cerr << "error: " << args->animation << ": no clip named " << args->clip << "\n";
                    return;
                }
            }
            ro.clip = pick;
            ro.anim_skeleton = &clips.skeletons[0];
        }
        auto stats = drive::simulate(bytes, ro);
        if (!stats) {
            std::cerr << "error: " << args->input << ": " << stats.error().to_string() << "\n";
            return;
        }
        if (args->json) {
            std::cout << "{\"file\": " << json_string(args->input) << ", \"clip\": " << json_string(ro.clip ? ro.clip->name : "")
                      << ", \"depenetrate\": " << (ro.depenetrate ? "true" : "false") << ", \"sims\": [";
            for (size_t i = 0; i < stats->size(); ++i) {
                const auto& s = (*stats)[i];
                std::cout << (i ? ", " : "") << "{\"cloth\": " << json_string(s.cloth) << ", \"sim\": " << json_string(s.sim)
                          << ", \"particles\": " << s.particles << ", \"steps\": " << s.steps << ", \"finite\": " << (s.finite ? "true" : "false")
                          << ", \"max_link_stretch\": " << s.max_link_stretch << ", \"max_link_stretch_step\": " << s.max_link_stretch_step
                          << ", \"max_link_particles\": [" << s.max_link_particles[0] << ", " << s.max_link_particles[1] << "]"
                          << ", \"max_penetration_m\": " << s.max_penetration_m
                          << ", \"max_isolated_penetration_m\": " << s.max_isolated_penetration_m << ", \"max_pinned_error_m\": " << s.max_pinned_error_m << ", \"ns_per_step\": " << s.ns_per_step
                          << ", \"simulated\": " << (s.simulated ? "true" : "false") << "}";
            }
            std::cout << "]}\n";
        } else {
            for (const auto& s : *stats)
                std::cout << s.cloth << " / " << s.sim << ": " << s.particles << " particles, " << s.steps << " steps, "
                          << (s.finite ? "finite" : "NOT FINITE") << ", max link stretch " << s.max_link_stretch << " (step " << s.max_link_stretch_step
                          << ", particles " << s.max_link_particles[0] << "-" << s.max_link_particles[1] << "), max penetration "
                          << s.max_penetration_m << " m (" << s.max_isolated_penetration_m << " m clear of other collidables), pinned error " << s.max_pinned_error_m << " m, " << s.ns_per_step << " ns/step"
                          << (s.simulated ? "" : " (no simulate kernel in this build)") << "\n";
        }
        bool ok = true;
        for (const auto& s : *stats) ok = ok && s.finite;
        exit_code = ok ? k_exit_ok : k_exit_input;
    });
}

}  // namespace drape::cli
