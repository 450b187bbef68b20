// drape check: validates Havok cloth files against the rules seed 000 proves.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "commands.h"
#include "drcloth_check.h"
#include "drape/bnd/bnd4.h"
#include "drape/dcx/dcx.h"
#include "drape/game/containers.h"
#include "drape/havok/animation.h"
#include "drape/havok/cloth.h"
#include "drape/havok/hkx.h"
#include "drape/io/file.h"

namespace drape::cli {

namespace {

bool is_havok(Bytes b) { return havok::is_packfile(b) || havok::is_tagfile(b) || havok::is_compendium(b); }

// Checks one Havok file; prints its report. Returns false when the file failed or broke a rule.
bool check_one(const std::string& label, Bytes bytes, const havok::CompendiumSet& set, bool quiet) {
    auto f = havok::read_hkx(bytes, set.lookup());
    if (!f) {
        std::cout << label << ": error: " << f.error().to_string() << "\n";
        return false;
    }
    const auto counts = hcl::census(*f);
    auto cloth = hcl::read_cloth(*f);
    if (!cloth) {
        std::cout << label << ": error: " << cloth.error().to_string() << "\n";
        return false;
    }
    auto anim = havok::read_animation_container(*f);
    std::vector<havok::Skeleton> skeletons;
    if (anim) skeletons = anim->skeletons;
    const auto violations = hcl::check(*cloth, skeletons);
    if (!quiet) {
        std::cout << label << " (" << f->sdk << ", " << (f->form == havok::Form::packfile ? "packfile" : "tagfile") << ")\n";
        if (counts.empty()) std::cout << "  no cloth objects\n";
        for (const auto& [cls, n] : counts) std::cout << "  " << cls << "  " << n << "\n";
        size_t particles = 0, sets = 0;
        for (const auto& cd : cloth->cloth_datas)
            for (const auto& s : cd.sim_cloths) {
                particles += s.particles.size();
                sets += s.static_constraint_sets.size();
            }
        if (!cloth->cloth_datas.empty()) std::cout << "  particles " << particles << ", constraint sets " << sets << "\n";
    }
    if (!anim) std::cout << label << ": warning: skeleton not read: " << anim.error().to_string() << "\n";
    for (const auto& v : violations) std::cout << label << ": " << v.object << " " << v.member << ": " << v.message << "\n";
    if (!quiet) std::cout << "  " << (violations.empty() ? "clean" : std::to_string(violations.size()) + " violation(s)") << "\n";
    return violations.empty();
}

bool check_path(const std::string& path, const GlobalOptions& global) {
    auto data = drape::read_file(path);
    if (!data) {
        std::cout << path << ": error: " << data.error().to_string() << "\n";
        return false;
    }
    if (looks_like_drcloth(*data)) return check_drcloth(path, *data, std::cout, global.quiet);
    dcx::DecodeOptions opt;
    opt.oodle_path = global.oodle_path;
    opt.jobs = global.jobs;
    auto opened = game::open_members(*data, path, opt);
    if (!opened) {
        std::cout << path << ": error: " << opened.error().to_string() << "\n";
        return false;
    }
    std::vector<game::Member> members;
    const bool loose = opened->size() == 1 && (*opened)[0].name == path;
    for (auto& m : *opened)
        if (loose || is_havok(m.bytes)) members.push_back(std::move(m));
    auto set = game::compendiums_for(members, std::filesystem::path(path).parent_path());
    if (!set) {
        std::cout << path << ": error: compendium: " << set.error().to_string() << "\n";
        return false;
    }
    bool ok = true;
    size_t checked = 0;
    for (const auto& m : members) {
        if (havok::is_compendium(m.bytes)) continue;
        if (!is_havok(m.bytes)) {
            std::cout << m.name << ": error: not a Havok file\n";
            ok = false;
            continue;
        }
        ok &= check_one(m.name, m.bytes, *set, global.quiet);
        ++checked;
    }
    if (checked == 0) {
        std::cout << path << ": error: no Havok file inside\n";
        return false;
    }
    return ok;
}

}  // namespace

void register_check(CLI::App& app, GlobalOptions& global, int& exit_code) {
    auto* cmd = app.add_subcommand("check",
                                   "Validate Havok cloth files (.hkx, loose or inside DCX/BND4 binders) against every rule seed 000\n"
                                   "proves: particle, operator, state, buffer and transform set indices in range, constraint execution,\n"
                                   "move-particle pairs, reference vertices, copy ranges, whole triangles, one bone and offset per\n"
                                   "collidable, transform set equal to the file's skeleton. A .drcloth is verified (FlatBuffers verifier)\n"
                                   "and checked by the same rules. Prints the hcl object counts per class and one\n"
                                   "line per violation; exits 1 when a rule fails or a file cannot be read.");
    auto files = std::make_shared<std::vector<std::string>>();
    cmd->add_option("files", *files, "Havok files or binders to check")->required();
    cmd->callback([files, &global, &exit_code] {
        bool ok = true;
        for (const auto& p : *files) ok &= check_path(p, global);
        exit_code = ok ? k_exit_ok : k_exit_input;
    });
}

}  // namespace drape::cli
