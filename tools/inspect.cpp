// drape inspect: identify files by content, recurse into containers, print a tree or JSON.
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "drape/exporters/havok_json.h"
#include "drape/game/containers.h"
#include "drape/game/identify.h"
#include "drape/io/file.h"
#include "drcloth_check.h"
#include "drape/bnd/bnd4.h"
#include "drape/dcx/dcx.h"
#include "drape/havok/hkx.h"

namespace drape::cli {

namespace {

std::string with_commas(uint64_t v) {
    std::string digits = std::to_string(v), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

void print_tree(std::ostream& os, const game::Node& n, const std::string& prefix, bool last, bool root) {
    std::string line = prefix;
    if (!root) line += last ? "└── " : "├── ";
    if (n.id >= 0) line += "[" + std::to_string(n.id) + "] ";
    line += n.name + "  " + game::kind_name(n.kind) + "  " + with_commas(n.size) + " B";
    if (n.stored_size != n.size && n.stored_size) line += " (stored " + with_commas(n.stored_size) + " B)";
    for (auto& [k, v] : n.fields) line += "  " + k + "=" + v;
    os << line << "\n";
    std::string child_prefix = root ? prefix : prefix + (last ? "    " : "│   ");
    if (n.error) os << child_prefix << (n.children.empty() ? "    " : "│   ") << "error: " << n.error->to_string() << "\n";
    for (size_t i = 0; i < n.children.size(); ++i)
        print_tree(os, n.children[i], child_prefix, i + 1 == n.children.size(), false);
}

nlohmann::ordered_json to_json(const game::Node& n) {
    nlohmann::ordered_json j;
    j["name"] = n.name;
    if (n.path != n.name) j["path"] = n.path;
    if (n.id >= 0) j["id"] = n.id;
    j["kind"] = game::kind_name(n.kind);
    j["size"] = n.size;
    if (n.stored_size != n.size) j["stored_size"] = n.stored_size;
    for (auto& [k, v] : n.fields) j[k] = v;
    if (n.error) j["error"] = n.error->to_string();
    if (!n.children.empty()) {
        auto& c = j["children"] = nlohmann::ordered_json::array();
        for (const auto& child : n.children) c.push_back(to_json(child));
    }
    return j;
}

// `inspect --json`: the object graph of every Havok file, attached to its node. Walks the same
// DCX/BND4 layers as game::walk (same member order), resolving compendiums among siblings.
void attach_havok(nlohmann::ordered_json& j, Bytes bytes, const dcx::DecodeOptions& dopt, const havok::CompendiumSet* set,
                  unsigned depth = 0) {
    if (depth > 6) return;
    if (havok::is_packfile(bytes) || havok::is_tagfile(bytes)) {
        havok::CompendiumSet empty;
        auto f = havok::read_hkx(bytes, (set ? *set : empty).lookup());
        if (f) j["objects"] = exporters::havok_json(*f);
        else j["objects_error"] = f.error().to_string();
        return;
    }
    if (dcx::is_dcx(bytes)) {
        auto d = dcx::decompress(bytes, dopt);
        if (d && j.contains("children") && !j["children"].empty()) attach_havok(j["children"][0], *d, dopt, nullptr, depth + 1);
        return;
    }
    if (bnd::is_bnd4(bytes)) {
        auto b = bnd::read_bnd4(bytes);
        if (!b || !j.contains("children")) return;
        std::vector<std::vector<uint8_t>> members;
        for (const auto& e : b->entries) {
            auto eb = bnd::entry_bytes(*b, e);
            members.push_back(eb ? std::move(*eb) : std::vector<uint8_t>{});
        }
        havok::CompendiumSet comps;
        std::vector<Bytes> siblings(members.begin(), members.end());
        (void)comps.add_siblings(siblings);
        for (size_t i = 0; i < members.size() && i < j["children"].size(); ++i)
            attach_havok(j["children"][i], members[i], dopt, &comps, depth + 1);
    }
}

}  // namespace

void register_inspect(CLI::App& app, GlobalOptions& global, int& exit_code) {
    auto* cmd = app.add_subcommand(
        "inspect",
        "Identify game files by content (DCX, BND4/BXF4, TPF, FLVER, Havok tagfile/packfile/compendium, TAE, EMEVD,\n"
        "PARAM, drape cloth) and print the tree of containers and members: kinds, sizes, compression, names and ids.");
    auto files = std::make_shared<std::vector<std::string>>();
    auto json = std::make_shared<bool>(false);
    cmd->add_option("files", *files, "Files to inspect (a .bhd is read with the .bdt beside it)")->required()->check(CLI::ExistingPath);
    auto objects = std::make_shared<bool>(false);
    cmd->add_flag("--json", *json, "Print JSON instead of a tree");
    cmd->add_flag("--objects", *objects,
                  "With --json: add the object graph of every Havok file inside containers (a Havok file given\n"
                  "directly always gets it): class, version and members of every object");
    cmd->callback([files, json, objects, &global, &exit_code] {
        game::WalkOptions options;
        options.dcx.oodle_path = global.oodle_path;
        options.dcx.jobs = global.jobs;
        nlohmann::ordered_json all = nlohmann::ordered_json::array();
        for (const std::string& f : *files) {
            std::filesystem::path path(f);
            auto bytes = read_file(path);
            if (!bytes) {
                std::cerr << "error: " << bytes.error().to_string() << "\n";
                exit_code = k_exit_input;
                continue;
            }
            if (looks_like_drcloth(*bytes)) {
                auto summary = drcloth_summary(*bytes);
                if (!summary) {
                    std::cerr << "error: " << path.filename().string() << ": " << summary.error().to_string() << "\n";
                    exit_code = k_exit_input;
                    continue;
                }
                nlohmann::ordered_json j;
                j["name"] = path.filename().string();
                j["kind"] = "drape cloth";
                j["size"] = bytes->size();
                for (auto& [k, v] : summary->items()) j[k] = v;
                if (*json) {
                    all.push_back(j);
                } else {
                    std::cout << j["name"].get<std::string>() << "  drape cloth  " << with_commas(bytes->size()) << " B  format="
                              << j.value("format_version", "?") << "  collidables=" << j["collidables"] << "\n";
                    const auto& cds = j["cloth_datas"];
                    for (size_t i = 0; i < cds.size(); ++i) {
                        const auto& cd = cds[i];
                        bool last = i + 1 == cds.size();
                        std::cout << (last ? "└── " : "├── ") << "cloth data " << cd["name"].get<std::string>() << "  buffers="
                                  << cd["buffers"].size() << "  sim_cloths=" << cd["sim_cloths"].size()
                                  << "  operators=" << cd["operators"].size() << "  states=" << cd["states"].size() << "\n";
                        for (const auto& sc : cd["sim_cloths"])
                            std::cout << (last ? "    " : "│   ") << "sim cloth " << sc["name"].get<std::string>()
                                      << "  particles=" << sc["particles"] << "  constraint_sets=" << sc["constraint_sets"].size()
                                      << "\n";
                    }
                }
                continue;
            }
            game::Node node;
            if (game::identify(*bytes) == game::Kind::bhf4 && std::filesystem::exists(game::bdt_beside(path))) {
                auto bdt = read_file(game::bdt_beside(path));
                if (!bdt) {
                    std::cerr << "error: " << bdt.error().to_string() << "\n";
                    exit_code = k_exit_input;
                    continue;
                }
                node = game::walk_bxf4(*bytes, *bdt, path.filename().string(), options);
            } else {
                node = game::walk(*bytes, path.filename().string(), options);
            }
            if (*json) {
                auto j = to_json(node);
                // A Havok file given directly always gets its object graph; containers with --objects.
                bool havok_file = havok::is_packfile(*bytes) || havok::is_tagfile(*bytes);
                if (*objects || havok_file) {
                    // a loose tagfile's compendium sits beside it
                    auto folder = game::compendiums_for({game::Member{path.string(), *bytes}}, path.parent_path());
                    havok::CompendiumSet none;
                    attach_havok(j, *bytes, options.dcx, folder ? &*folder : &none);
                }
                all.push_back(std::move(j));
            } else {
                print_tree(std::cout, node, "", true, true);
            }
            if (auto e = game::first_error(node)) {
                std::cout.flush();
                std::cerr << "error: " << e->to_string() << "\n";
                exit_code = k_exit_input;
            }
        }
        if (*json) std::cout << (files->size() == 1 && !all.empty() ? all[0] : all).dump(1) << "\n";
    });
}

}  // namespace drape::cli
