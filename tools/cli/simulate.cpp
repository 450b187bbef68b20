// drape simulate: runs a cloth through the runtime for N steps under a clip of its character (or
// each clip, or a sway of the rest pose) and reports, per sim cloth, the figures that say whether
// the cloth is right (drape::drive::SimStats). Flags and printing only: the driving is
// drape::drive, the character's clips are found by drape::convert as convert finds them.
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "drape/convert/cloth_drive.h"
#include "commands.h"
#include "drape/game/containers.h"
#include "drape/anim/anibnd.h"
#include "drape/convert/convert.h"
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

// The worst of each figure of `b` into `a` (same cloth data and sim), remembering the clip of
// the largest stretch.
void keep_worst(drive::SimStats& a, const drive::SimStats& b, const std::string& clip, std::string& worst_clip) {
    if (b.max_link_stretch > a.max_link_stretch) {
        a.max_link_stretch = b.max_link_stretch, a.max_link_stretch_step = b.max_link_stretch_step;
        a.max_link_particles[0] = b.max_link_particles[0], a.max_link_particles[1] = b.max_link_particles[1];
        worst_clip = clip;
    }
    for (size_t k = 0; k < drive::k_link_kinds; ++k) a.max_link_stretch_by_kind[k] = std::max(a.max_link_stretch_by_kind[k], b.max_link_stretch_by_kind[k]);
    a.max_firm_link_stretch = std::max(a.max_firm_link_stretch, b.max_firm_link_stretch);
    a.finite = a.finite && b.finite;
    a.steps += b.steps;
    a.max_penetration_m = std::max(a.max_penetration_m, b.max_penetration_m);
    a.max_isolated_penetration_m = std::max(a.max_isolated_penetration_m, b.max_isolated_penetration_m);
    a.max_pinned_error_m = std::max(a.max_pinned_error_m, b.max_pinned_error_m);
    if (b.max_skin_distance_m > a.max_skin_distance_m) a.max_skin_distance_m = b.max_skin_distance_m, a.max_skin_distance_bound_m = b.max_skin_distance_bound_m;
    a.max_local_range_excess_m = std::max(a.max_local_range_excess_m, b.max_local_range_excess_m);
    a.max_driven_bone_distance_m = std::max(a.max_driven_bone_distance_m, b.max_driven_bone_distance_m);
    a.max_below_skin_m = std::max(a.max_below_skin_m, b.max_below_skin_m);
    a.max_reference_penetration_m = std::max(a.max_reference_penetration_m, b.max_reference_penetration_m);
    a.max_reference_link_stretch = std::max(a.max_reference_link_stretch, b.max_reference_link_stretch);
    a.ns_per_step = std::max(a.ns_per_step, b.ns_per_step);
}

void print_json(const std::string& input, const std::vector<std::string>& clips, bool depenetrate, const std::vector<drive::SimStats>& stats,
                const std::vector<std::string>& worst_clip) {
    std::cout << "{\"file\": " << json_string(input) << ", \"clips\": [";
    for (size_t i = 0; i < clips.size(); ++i) std::cout << (i ? ", " : "") << json_string(clips[i]);
    std::cout << "], \"depenetrate\": " << (depenetrate ? "true" : "false") << ", \"sims\": [";
    for (size_t i = 0; i < stats.size(); ++i) {
        const auto& s = stats[i];
        std::cout << (i ? ", " : "") << "{\"cloth\": " << json_string(s.cloth) << ", \"sim\": " << json_string(s.sim)
                  << ", \"state\": " << json_string(s.state) << ", \"in_state\": " << (s.in_state ? "true" : "false")
                  << ", \"particles\": " << s.particles << ", \"steps\": " << s.steps << ", \"finite\": " << (s.finite ? "true" : "false")
                  << ", \"max_link_stretch\": " << s.max_link_stretch << ", \"max_link_stretch_by_kind\": {";
        for (size_t k = 0; k < drive::k_link_kinds; ++k)
            std::cout << (k ? ", " : "") << '"' << drive::link_kind_name(drive::LinkKind(k)) << "\": " << s.max_link_stretch_by_kind[k];
        std::cout << "}, \"max_firm_link_stretch\": " << s.max_firm_link_stretch << ", \"max_link_stretch_step\": " << s.max_link_stretch_step << ", \"max_link_particles\": [" << s.max_link_particles[0]
                  << ", " << s.max_link_particles[1] << "], \"worst_clip\": " << json_string(worst_clip[i])
                  << ", \"max_pinned_error_m\": " << s.max_pinned_error_m << ", \"max_skin_distance_m\": " << s.max_skin_distance_m
                  << ", \"max_skin_distance_bound_m\": " << s.max_skin_distance_bound_m << ", \"max_local_range_excess_m\": " << s.max_local_range_excess_m
                  << ", \"max_driven_bone_distance_m\": " << s.max_driven_bone_distance_m << ", \"max_below_skin_m\": " << s.max_below_skin_m
                  << ", \"max_penetration_m\": " << s.max_penetration_m << ", \"max_isolated_penetration_m\": " << s.max_isolated_penetration_m
                  << ", \"max_reference_penetration_m\": " << s.max_reference_penetration_m
                  << ", \"max_reference_link_stretch\": " << s.max_reference_link_stretch << ", \"ns_per_step\": " << s.ns_per_step << "}";
    }
    std::cout << "]}\n";
}

void print_text(const std::vector<drive::SimStats>& stats, const std::vector<std::string>& worst_clip) {
    for (size_t i = 0; i < stats.size(); ++i) {
        const auto& s = stats[i];
        std::cout << s.cloth << " / " << s.sim << " (" << s.particles << " particles, state " << s.state << "): ";
        if (!s.in_state) {
            std::cout << "not simulated in this state\n";
            continue;
        }
        std::cout << s.steps << " steps, " << (s.finite ? "finite" : "NOT FINITE") << "\n    link stretch " << s.max_link_stretch << " (";
        for (size_t k = 0; k < drive::k_link_kinds; ++k) std::cout << (k ? ", " : "") << drive::link_kind_name(drive::LinkKind(k)) << " " << s.max_link_stretch_by_kind[k];
        std::cout << "; firm links " << s.max_firm_link_stretch << "; step " << s.max_link_stretch_step << ", particles " << s.max_link_particles[0] << "-" << s.max_link_particles[1]
                  << (worst_clip[i].empty() ? "" : ", clip " + worst_clip[i]) << ")\n    pinned error " << s.max_pinned_error_m
                  << " m, farthest from its skinned place " << s.max_skin_distance_m << " m (bound " << s.max_skin_distance_bound_m
                  << " m, largest excess " << s.max_local_range_excess_m << " m), driven bones from particles "
                  << (s.max_driven_bone_distance_m < 0 ? std::string("(none)") : std::to_string(s.max_driven_bone_distance_m) + " m")
                  << ", below the skin " << s.max_below_skin_m << " m\n    penetration " << s.max_penetration_m << " m (" << s.max_isolated_penetration_m
                  << " m clear of other collidables; skinned place inside by " << s.max_reference_penetration_m
                  << " m)\n    links between the skinned places stretched up to " << s.max_reference_link_stretch << ", " << s.ns_per_step << " ns/step\n";
    }
}

}  // namespace

void register_simulate(CLI::App& app, GlobalOptions& global, int& exit_code) {
    auto* cmd = app.add_subcommand("simulate",
                                   "Run a cloth (.drcloth, or a binder/tagfile with Havok cloth) through the drape runtime under a clip of\n"
                                   "its character (or each clip, or a sway of its rest pose) and report per sim cloth: finite, link stretch\n"
                                   "per link kind and over firm links (stiffness >= 0.5), pinned error, distance from the skinned place\n"
                                   "against its local-range bound, driven bones' distance from the particles, how far below the skin,\n"
                                   "penetration, ns per step.");
    struct Args {
        std::string input, animation, clip;
        uint32_t steps = 1000;
        float dt = 1.0f / 30;
        bool json = false, all_clips = false, depenetrate = false;
    };
    auto args = std::make_shared<Args>();
    cmd->add_option("input", args->input, "Cloth: .drcloth, or a chrbnd/partsbnd/*_c.hkx")->required()->check(CLI::ExistingFile);
    cmd->add_option("--animation", args->animation,
                    "The character's animation binder (.anibnd[.dcx]); its cNNNN_divNN / cNNNN_aNN anibnds beside it are read too.\n"
                    "Default with --clip or --all-clips: the anibnds beside the input, as drape convert finds them")
        ->check(CLI::ExistingFile);
    cmd->add_option("--clip", args->clip, "Clip name (default: the first clip; without binders, a sway of the rest pose)");
    cmd->add_flag("--all-clips", args->all_clips, "Run under each clip in turn and report the worst figure of each sim cloth")->excludes("--clip");
    cmd->add_option("--steps", args->steps, "Steps (per clip)")->default_val(1000)->check(CLI::Range(1u, 10000000u));
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
        std::vector<const anim::Clip*> runs{nullptr};  // nullptr: the sway
        const bool want_clips = !args->animation.empty() || !args->clip.empty() || args->all_clips;
        if (want_clips) {
            auto set = convert::load_character_clips(args->animation.empty() ? args->input : args->animation, dopt);
            if (!set) {
                std::cerr << "error: " << set.error().to_string() << "\n";
                return;
            }
            clips = std::move(*set);
            for (const auto& f : clips.failures) std::cerr << "warning: " << f.member << (f.clip.empty() ? "" : " " + f.clip) << ": " << f.error.to_string() << "\n";
            // Track parts the files cannot give hold the skeleton's reference pose, as drape
            // convert and drape animation write them; each is said.
            if (!clips.skeletons.empty())
                for (auto& c : clips.clips) {
                    anim::use_reference_pose(c, clips.skeletons[0]);
                    for (const auto& u : c.undecoded) std::cerr << "warning: " << anim::undecoded_message(c, u, clips.skeletons[0]) << "\n";
                }
            if (clips.clips.empty()) {
                std::cerr << "error: " << (args->animation.empty() ? args->input : args->animation) << ": its binders hold no clip\n";
                return;
            }
            ro.anim_skeleton = &clips.skeletons[0];
            runs = {&clips.clips[0]};
            if (args->all_clips) {
                runs.clear();
                for (const auto& c : clips.clips) runs.push_back(&c);
            } else if (!args->clip.empty()) {
                runs = {nullptr};
                for (const auto& c : clips.clips)
                    if (c.name == args->clip) runs = {&c};
                if (!runs[0]) {
                    std::cerr << "error: no clip named " << args->clip << " (" << clips.clips.size() << " clips: " << clips.clips.front().name << " ...)\n";
                    return;
                }
            }
        }
        std::vector<drive::SimStats> worst;
        std::vector<std::string> worst_clip, names;
        for (const anim::Clip* clip : runs) {
            ro.clip = clip;
            const std::string name = clip ? clip->name : "";
            if (clip) names.push_back(name);
            auto stats = drive::simulate(bytes, ro);
            if (!stats) {
                std::cerr << "error: " << args->input << (name.empty() ? "" : " under " + name) << ": " << stats.error().to_string() << "\n";
                return;
            }
            if (worst.empty()) {
                worst = *stats;
                worst_clip.assign(worst.size(), name);
            } else {
                for (size_t i = 0; i < worst.size() && i < stats->size(); ++i) keep_worst(worst[i], (*stats)[i], name, worst_clip[i]);
            }
        }
        if (args->json) print_json(args->input, names, ro.depenetrate, worst, worst_clip);
        else print_text(worst, worst_clip);
        bool ok = true;
        for (const auto& s : worst) ok = ok && s.finite;
        exit_code = ok ? k_exit_ok : k_exit_input;
    });
}

}  // namespace drape::cli
