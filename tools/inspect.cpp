// drape inspect: identify files by content, recurse into containers, print a tree or JSON.
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "drape/game/identify.h"
#include "drape/io/file.h"

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

// foo.bhd / foo.chrbhd / foo.hkxbhd -> the .bdt beside it (same stem, "bhd" -> "bdt").
std::filesystem::path bdt_beside(const std::filesystem::path& bhd) {
    std::string ext = bhd.extension().string();
    auto pos = ext.rfind("bhd");
    if (pos == std::string::npos) return {};
    ext.replace(pos, 3, "bdt");
    auto p = bhd;
    p.replace_extension(ext);
    return p;
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
    cmd->add_flag("--json", *json, "Print JSON instead of a tree");
    cmd->callback([files, json, &global, &exit_code] {
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
            game::Node node;
            if (game::identify(*bytes) == game::Kind::bhf4 && std::filesystem::exists(bdt_beside(path))) {
                auto bdt = read_file(bdt_beside(path));
                if (!bdt) {
                    std::cerr << "error: " << bdt.error().to_string() << "\n";
                    exit_code = k_exit_input;
                    continue;
                }
                node = game::walk_bxf4(*bytes, *bdt, path.filename().string(), options);
            } else {
                node = game::walk(*bytes, path.filename().string(), options);
            }
            if (*json) all.push_back(to_json(node));
            else print_tree(std::cout, node, "", true, true);
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
