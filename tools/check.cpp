// drape check: validates Havok cloth files against the rules seed 000 proves.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "commands.h"
#include "drape/bnd/bnd4.h"
#include "drape/dcx/dcx.h"
#include "drape/havok/animation.h"
#include "drape/havok/cloth.h"
#include "drape/havok/hkx.h"
#include "drape/io/file.h"

namespace drape::cli {

namespace {

struct Member {
    std::string name;
    std::vector<uint8_t> bytes;
};

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
    std::vector<uint8_t> bytes = std::move(*data);
    if (dcx::is_dcx(bytes)) {
        dcx::DecodeOptions opt;
        opt.oodle_path = global.oodle_path;
        auto d = dcx::decompress(bytes, opt);
        if (!d) {
            std::cout << path << ": error: " << d.error().to_string() << "\n";
            return false;
        }
        bytes = std::move(*d);
    }
    std::vector<Member> members;
    if (bnd::is_bnd4(bytes)) {
        auto b = bnd::read_bnd4(bytes);
        if (!b) {
            std::cout << path << ": error: " << b.error().to_string() << "\n";
            return false;
        }
        for (const auto& e : b->entries) {
            auto eb = bnd::entry_bytes(*b, e);
            if (eb && is_havok(*eb)) members.push_back({path + " > " + e.name, std::move(*eb)});
        }
    } else {
        members.push_back({path, std::move(bytes)});
    }
    havok::CompendiumSet set;
    std::vector<Bytes> siblings;
    for (const auto& m : members) siblings.emplace_back(m.bytes);
    std::vector<std::vector<uint8_t>> folder;
    if (members.size() == 1 && havok::tagfile_compendium_id(members[0].bytes)) {
        // a loose tagfile: its compendium is a .compendium file in the same folder
        std::error_code ec;
        const auto dir = std::filesystem::path(path).parent_path();
        for (const auto& de : std::filesystem::directory_iterator(dir.empty() ? "." : dir, ec)) {
            if (de.path().extension() != ".compendium") continue;
            if (auto c = drape::read_file(de.path().string())) folder.push_back(std::move(*c));
        }
        for (const auto& c : folder) siblings.emplace_back(c);
    }
    if (auto r = set.add_siblings(siblings); !r) {
        std::cout << path << ": error: compendium: " << r.error().to_string() << "\n";
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
        ok &= check_one(m.name, m.bytes, set, global.quiet);
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
                                   "collidable, transform set equal to the file's skeleton. Prints the hcl object counts per class and one\n"
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
