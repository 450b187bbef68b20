// drape check: validates Havok cloth files against the rules every game cloth file satisfies
// (docs/havok-cloth.md#validity-rules), and measures the
// figures that prove its arithmetic on them (rest pose per sim cloth, binding per display buffer).
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands.h"
#include "drape/convert/cloth_check.h"
#include "drape/dcx/dcx.h"
#include "drape/exporters/cloth_export.h"
#include "drape/exporters/model_meshes.h"
#include "drape/flver/flver.h"
#include "drape/game/containers.h"
#include "drape/havok/animation.h"
#include "drape/havok/cloth.h"
#include "drape/havok/cloth_figures.h"
#include "drape/havok/hkx.h"
#include "drape/io/file.h"

namespace drape::cli {
using cloth_check::check_drcloth;
using cloth_check::drcloth_summary;
using cloth_check::looks_like_drcloth;

namespace {

using json = nlohmann::ordered_json;

bool is_havok(Bytes b) { return havok::is_packfile(b) || havok::is_tagfile(b) || havok::is_compendium(b); }

json violation_json(const hcl::Violation& v) { return {{"object", v.object}, {"member", v.member}, {"message", v.message}}; }

// The figures of one cloth file, as JSON (the structure docs/cloth-format.md and the README give).
json figures_json(const hcl::ClothContainer& cloth, const cloth_export::Report& rep) {
    json cds = json::array();
    for (size_t ci = 0; ci < cloth.cloth_datas.size(); ++ci) {
        const auto& cd = cloth.cloth_datas[ci];
        json d;
        d["name"] = cd.name;
        json census = json::object();
        for (const auto& [cls, n] : hcl::typed_census(cloth, int(ci))) census[cls] = n;
        d["census"] = census;
        hcl::ClothContainer one;
        one.cloth_datas.push_back(cd);
        json viol = json::array();
        for (const auto& v : hcl::check(one, {})) viol.push_back(violation_json(v));
        d["violations"] = viol;
        json sims = json::array();
        for (const auto& f : rep.sim_cloths_figures) {
            if (f.cloth_data_index != ci) continue;
            json s = {{"name", f.name}, {"particles", f.particles}, {"fixed_particles", f.fixed_particles}};
            if (f.rest.checked) {
                s["rest_pose_error_m"] = f.rest.error_m;
                s["rest_pose_particles_checked"] = f.rest.particles_checked;
                s["rest_pose_error_steps"] = f.rest.error_steps;
            } else {
                s["rest_pose_error_m"] = nullptr;
                s["rest_pose_reason"] = f.rest.reason;
            }
            sims.push_back(s);
        }
        d["sim_cloths"] = sims;
        json bufs = json::array();
        for (const auto& b : rep.bindings) {
            if (b.cloth_data_index != ci) continue;
            json j = {{"name", b.buffer}, {"buffer_index", b.buffer_index}};
            if (b.mesh_index >= 0) {
                j["bound_mesh"] = b.mesh_name;
                j["bound_mesh_index"] = b.mesh_index;
            } else {
                j["bound_mesh"] = nullptr;
                j["bound_mesh_reason"] = b.reason;
            }
            if (b.max_error >= 0) {
                j["bind_position_error"] = b.max_error;
                j["bind_position_error_m"] = b.max_distance_m;
                j["mesh_size_m"] = b.mesh_size_m;
                j["vertices_checked"] = b.vertices_checked;
            } else {
                j["bind_position_error"] = nullptr;
                if (b.mesh_index >= 0) j["bind_position_reason"] = b.reason;
                else j["bind_position_reason"] = "the buffer is not bound";
            }
            j["skin_operators"] = b.skin_operators;
            json others = json::array();
            for (uint32_t w : b.other_writers) others.push_back({{"index", w}, {"class", cd.operators[w].class_name}, {"name", cd.operators[w].name}});
            j["other_writers"] = others;
            bufs.push_back(j);
        }
        d["display_buffers"] = bufs;
        cds.push_back(d);
    }
    return cds;
}

struct CheckOutput {
    bool as_json = false, quiet = false;
    json* doc = nullptr;  // the current input's "files" array when json
};

// Checks one Havok file; prints its report (or adds it to the JSON). Returns false when the file
// failed or broke a rule. `meshes`: the model's meshes (the binder's FLVER), for the figures.
bool check_one(const std::string& label, Bytes bytes, const havok::CompendiumSet& set, const std::vector<cloth_export::ModelMesh>* meshes,
               const CheckOutput& out) {
    json fj = {{"file", label}};
    auto fail = [&](const std::string& e) {
        if (out.as_json) {
            fj["ok"] = false;
            fj["error"] = e;
            out.doc->push_back(fj);
        } else {
            std::cout << label << ": error: " << e << "\n";
        }
        return false;
    };
    auto f = havok::read_hkx(bytes, set.lookup());
    if (!f) return fail(f.error().to_string());
    const auto counts = hcl::census(*f);
    auto cloth = hcl::read_cloth(*f);
    if (!cloth) return fail(cloth.error().to_string());
    auto anim = havok::read_animation_container(*f);
    std::vector<havok::Skeleton> skeletons;
    if (anim) skeletons = anim->skeletons;
    const auto violations = hcl::check(*cloth, skeletons);
    const auto finds = hcl::findings(*cloth);
    cloth_export::Options opt;
    opt.sdk = f->sdk;
    opt.skeletons = skeletons;
    opt.model_given = meshes != nullptr;
    if (meshes) opt.meshes = *meshes;
    const auto rep = cloth_export::measure(*cloth, opt);
    if (out.as_json) {
        fj["sdk"] = f->sdk;
        fj["form"] = f->form == havok::Form::packfile ? "packfile" : "tagfile";
        json census = json::object();
        for (const auto& [cls, n] : counts) census[cls] = n;
        fj["census"] = census;
        fj["control_byte_rule"] = hcl::control_byte_rule_name(hcl::control_byte_rule_for_sdk(f->sdk));
        if (!anim) fj["warning"] = "skeleton not read: " + anim.error().to_string();
        json viol = json::array();
        for (const auto& v : violations) viol.push_back(violation_json(v));
        fj["violations"] = viol;
        json fs = json::array();
        for (const auto& x : finds) fs.push_back({{"kind", x.kind}, {"object", x.object}, {"member", x.member}, {"message", x.message}});
        fj["findings"] = fs;
        fj["cloth_datas"] = figures_json(*cloth, rep);
        fj["ok"] = violations.empty();
        out.doc->push_back(fj);
        return violations.empty();
    }
    if (!out.quiet) {
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
        for (const auto& s : rep.sim_cloths_figures) {
            std::cout << "  sim cloth " << s.cloth_data << "/" << s.name << ": rest pose ";
            if (s.rest.checked) std::cout << "within " << s.rest.error_m << " m (" << s.rest.particles_checked << " pinned particles)\n";
            else std::cout << "not checked: " << s.rest.reason << "\n";
        }
        for (const auto& b : rep.bindings) {
            std::cout << "  display buffer " << b.cloth_data << "/" << b.buffer << " -> ";
            if (b.mesh_index < 0) std::cout << "unbound: " << b.reason << "\n";
            else if (b.max_error < 0) std::cout << b.mesh_name << " (vertex order not checked: " << b.reason << ")\n";
            else std::cout << b.mesh_name << ", " << b.vertices_checked << " vertices, bind error " << b.max_error << " of the mesh size\n";
        }
    }
    if (!anim) std::cout << label << ": warning: skeleton not read: " << anim.error().to_string() << "\n";
    for (const auto& v : violations) std::cout << label << ": " << v.object << " " << v.member << ": " << v.message << "\n";
    for (const auto& x : finds) std::cout << label << ": finding (" << x.kind << "): " << x.object << " " << x.member << ": " << x.message << "\n";
    if (!out.quiet) std::cout << "  " << (violations.empty() ? "clean" : std::to_string(violations.size()) + " violation(s)") << "\n";
    return violations.empty();
}

bool check_path(const std::string& path, const GlobalOptions& global, const CheckOutput& base, json* inputs) {
    CheckOutput out = base;
    json input = {{"input", path}};
    json files = json::array();
    out.doc = &files;
    auto fail = [&](const std::string& e) {
        if (out.as_json) {
            input["ok"] = false;
            input["error"] = e;
            input["files"] = files;
            inputs->push_back(input);
        } else {
            std::cout << path << ": error: " << e << "\n";
        }
        return false;
    };
    auto data = drape::read_file(path);
    if (!data) return fail(data.error().to_string());
    if (looks_like_drcloth(*data)) {
        if (out.as_json) return fail("a .drcloth: drape check --json reports Havok cloth files; drape check FILE.drcloth verifies it");
        return check_drcloth(path, *data, std::cout, global.quiet);
    }
    dcx::DecodeOptions opt;
    opt.oodle_path = global.oodle_path;
    opt.jobs = global.jobs;
    auto opened = game::open_members(*data, path, opt);
    if (!opened) return fail(opened.error().to_string());
    std::vector<game::Member> members;
    const bool loose = opened->size() == 1 && (*opened)[0].name == path;
    // The model of the binder (its FLVER), for the display-buffer figures.
    std::vector<cloth_export::ModelMesh> meshes;
    bool have_model = false;
    for (auto& m : *opened) {
        if (!have_model && flver::is_flver(m.bytes)) {
            if (auto model = flver::read_flver(m.bytes)) {
                meshes = exporters::cloth_model_meshes(*model);
                have_model = true;
            }
        }
        if (loose || is_havok(m.bytes)) members.push_back(std::move(m));
    }
    auto set = game::compendiums_for(members, std::filesystem::path(path).parent_path());
    if (!set) return fail("compendium: " + set.error().to_string());
    bool ok = true;
    size_t checked = 0;
    for (const auto& m : members) {
        if (havok::is_compendium(m.bytes)) continue;
        if (!is_havok(m.bytes)) {
            if (out.as_json) files.push_back({{"file", m.name}, {"ok", false}, {"error", "not a Havok file"}});
            else std::cout << m.name << ": error: not a Havok file\n";
            ok = false;
            continue;
        }
        ok &= check_one(m.name, m.bytes, *set, have_model ? &meshes : nullptr, out);
        ++checked;
    }
    if (checked == 0) return fail("no Havok file inside");
    if (out.as_json) {
        input["ok"] = ok;
        input["files"] = files;
        inputs->push_back(input);
    }
    return ok;
}

}  // namespace

void register_check(CLI::App& app, GlobalOptions& global, int& exit_code) {
    auto* cmd = app.add_subcommand("check",
                                   "Validate Havok cloth files (.hkx, loose or inside DCX/BND4 binders) against every rule the games'\n"
                                   "cloth files keep: particle, operator, state, buffer and transform set indices in range, constraint execution,\n"
                                   "move-particle pairs, reference vertices, copy ranges, whole triangles, one bone and offset per\n"
                                   "mapped collidable, transform set equal to the file's skeleton; and measure the rest-pose figure of\n"
                                   "every sim cloth and the binding of every display buffer to the binder's FLVER. A .drcloth is\n"
                                   "verified (FlatBuffers verifier) and checked by the same rules. Exits 1 when a rule fails or a file\n"
                                   "cannot be read. --json prints one JSON document for all inputs.");
    auto files = std::make_shared<std::vector<std::string>>();
    auto as_json = std::make_shared<bool>(false);
    cmd->add_option("files", *files, "Havok files or binders to check")->required();
    cmd->add_flag("--json", *as_json, "Print one JSON document: per input, per cloth file, per cloth data its census, violations, "
                                      "rest-pose figure per sim cloth and binding per display buffer");
    cmd->callback([files, as_json, &global, &exit_code] {
        bool ok = true;
        CheckOutput out;
        out.as_json = *as_json;
        out.quiet = global.quiet;
        json inputs = json::array();
        for (const auto& p : *files) ok &= check_path(p, global, out, &inputs);
        if (out.as_json) {
            json doc = {{"drape_check", 1}, {"ok", ok}, {"inputs", inputs}};
            std::cout << doc.dump(1) << "\n";
        }
        exit_code = ok ? k_exit_ok : k_exit_input;
    });
}

}  // namespace drape::cli
