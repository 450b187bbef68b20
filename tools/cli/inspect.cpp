// drape inspect: identify files by content, recurse into containers, print a tree or JSON.
#include <cctype>
#include <filesystem>
#include <iostream>
#include <optional>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "drape/exporters/havok_json.h"
#include "drape/exporters/tae_json.h"
#include "drape/game/containers.h"
#include "drape/game/identify.h"
#include "drape/io/file.h"
#include "drape/convert/cloth_check.h"
#include "drape/bnd/bnd4.h"
#include "drape/dcx/dcx.h"
#include "drape/havok/hkx.h"
#include "drape/exporters/havok_json_stream.h"
#include "drape/io/json_writer.h"
#include "drape/param/param.h"

namespace drape::cli {
using cloth_check::drcloth_summary;
using cloth_check::looks_like_drcloth;

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

// A small nlohmann document (a .drcloth summary) through the streaming writer.
void write_json_value(JsonWriter& w, const nlohmann::ordered_json& j) {
    switch (j.type()) {
        case nlohmann::json::value_t::object:
            w.begin_object();
            for (auto it = j.begin(); it != j.end(); ++it) {
                w.key(it.key());
                write_json_value(w, it.value());
            }
            w.end_object();
            return;
        case nlohmann::json::value_t::array:
            w.begin_array();
            for (const auto& v : j) write_json_value(w, v);
            w.end_array();
            return;
        case nlohmann::json::value_t::string: w.value(j.get<std::string>()); return;
        case nlohmann::json::value_t::boolean: w.value(j.get<bool>()); return;
        case nlohmann::json::value_t::number_integer: w.value(j.get<int64_t>()); return;
        case nlohmann::json::value_t::number_unsigned: w.value(j.get<uint64_t>()); return;
        case nlohmann::json::value_t::number_float: w.value(j.get<double>()); return;
        default: w.null(); return;
    }
}

// `inspect --json`, streamed: the node tree with, for every Havok file (`objects`, or the file
// given directly), its object graph. Walks the same DCX/BND4 layers as game::walk (same member
// order), resolving compendiums among siblings; only one container level's bytes are held at
// a time and the JSON is never built in memory.
struct JsonInspect {
    JsonWriter& w;
    const dcx::DecodeOptions& dopt;
    bool objects;
    size_t max_array;

    void node(const game::Node& n, Bytes bytes, const havok::CompendiumSet* set, bool havok_here, unsigned depth) {
        w.begin_object();
        w.field("name", n.name);
        if (n.path != n.name) w.field("path", n.path);
        if (n.id >= 0) w.field("id", int64_t(n.id));
        w.field("kind", game::kind_name(n.kind));
        w.field("size", uint64_t(n.size));
        if (n.stored_size != n.size) w.field("stored_size", uint64_t(n.stored_size));
        for (auto& [k, v] : n.fields) w.field(k, v);
        if (n.error) w.field("error", n.error->to_string());
        if (tae::is_tae(bytes)) {
            // The same event lists a converted clip carries in extras.events.
            auto t = tae::read_tae(bytes);
            if (t) {
                w.key("tae");
                exporters::write_tae_json(w, *t, tae::category_of(n.name, t->id));
            } else {
                w.field("tae_error", t.error().to_string());
            }
        }
        if (havok_here && depth <= 6 && (havok::is_packfile(bytes) || havok::is_tagfile(bytes))) {
            havok::CompendiumSet empty;
            auto f = havok::read_hkx(bytes, (set ? *set : empty).lookup());
            if (f) {
                w.key("objects");
                exporters::write_havok_json(w, *f, max_array);
            } else {
                w.field("objects_error", f.error().to_string());
            }
        }
        if (!n.children.empty()) {
            w.key("children").begin_array();
            children(n, bytes, depth);
            w.end_array();
        }
        w.end_object();
    }

    void children(const game::Node& n, Bytes bytes, unsigned depth) {
        if (depth < 6 && dcx::is_dcx(bytes)) {
            auto d = dcx::decompress(bytes, dopt);
            for (size_t i = 0; i < n.children.size(); ++i)
                node(n.children[i], i == 0 && d ? Bytes(*d) : Bytes{}, nullptr, objects, depth + 1);
            return;
        }
        if (depth < 6 && bnd::is_bnd4(bytes)) {
            auto b = bnd::read_bnd4(bytes);
            std::vector<std::vector<uint8_t>> members;
            if (b)
                for (const auto& e : b->entries) {
                    auto eb = bnd::entry_bytes(*b, e);
                    members.push_back(eb ? std::move(*eb) : std::vector<uint8_t>{});
                }
            havok::CompendiumSet comps;
            std::vector<Bytes> siblings(members.begin(), members.end());
            (void)comps.add_siblings(siblings);
            for (size_t i = 0; i < n.children.size(); ++i)
                node(n.children[i], i < members.size() ? Bytes(members[i]) : Bytes{}, &comps, objects, depth + 1);
            return;
        }
        for (const auto& c : n.children) node(c, {}, nullptr, false, depth + 1);
    }
};


// ---- inspect FILE --param NAME: the rows of one PARAM table of a parambnd or regulation ----

std::string lower_ascii(std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string csv_cell(std::string_view s) {
    if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

std::string hex_bytes(Bytes b) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    out.reserve(b.size() * 2);
    for (uint8_t v : b) {
        out += digits[v >> 4];
        out += digits[v & 15];
    }
    return out;
}

// Prints the rows of the table `name` found in `path` (any container the walker opens, an encrypted
// regulation included): every field by name when drape has the table's layout and it fits, else
// id, name and the row's bytes in hex (with a note on stderr). Returns an exit code.
// In a JSON array (`in_array`), a file that fails still prints null so the array stays whole.
int print_param_rows(const std::filesystem::path& path, const std::string& name, bool csv, const dcx::DecodeOptions& dopt,
                     bool in_array) {
    auto failed = [&] {
        if (in_array) std::cout << "null\n";
        return k_exit_input;
    };
    auto members = game::open_members(path, path.filename().string(), dopt);
    if (!members) {
        std::cerr << "error: " << members.error().to_string() << "\n";
        return failed();
    }
    const game::Member* found = nullptr;
    std::vector<std::string> tables;
    for (const auto& m : *members) {
        const std::string table = param::param_name(m.name);
        if (lower_ascii(table) == lower_ascii(name)) found = &m;
        tables.push_back(table);
    }
    if (!found) {
        std::cerr << "error: " << path.filename().string() << ": no PARAM named " << name << " among its " << tables.size() << " members";
        if (!tables.empty()) std::cerr << " (e.g. " << tables.front() << ")";
        std::cerr << "\n";
        return failed();
    }
    auto table = param::read_param(found->bytes);
    if (!table) {
        std::cerr << "error: " << Error(table.error()).within(found->name).to_string() << "\n";
        return failed();
    }
    const param::Game game = param::game_of_member_path(found->name);
    const uint32_t version = param::regulation_version(found->binder_version);
    auto layout = param::find_layout(game, table->type, version);
    if (!layout) {
        std::cerr << "note: no layout of " << table->type << " for " << param::game_name(game) << ": rows as hex\n";
    } else if (auto ok = param::check_layout(*table, *layout); !ok) {
        std::cerr << "note: " << found->name << ": " << ok.error().to_string() << ": rows as hex\n";
        layout.reset();
    }
    std::vector<const param::Field*> fields;
    if (layout)
        for (const auto& f : layout->fields)
            if (!f.padding()) fields.push_back(&f);
    if (csv) {
        std::cout << "id,name";
        if (layout)
            for (const auto* f : fields) std::cout << "," << f->name;
        else
            std::cout << ",hex";
        std::cout << "\n";
        for (const auto& row : table->rows) {
            std::cout << row.id << "," << csv_cell(printable_utf8(row.name));
            if (layout)
                for (const auto* f : fields) std::cout << "," << param::value_text(param::field_value(*f, row.data, table->big_endian));
            else
                std::cout << "," << hex_bytes(row.data);
            std::cout << "\n";
        }
        return k_exit_ok;
    }
    JsonWriter w(std::cout);
    w.begin_object();
    w.field("file", path.filename().string());
    w.field("member", found->name);
    w.field("param", param::param_name(found->name));
    w.field("type", table->type);
    w.field("game", param::game_name(game));
    if (!found->binder_version.empty()) w.field("binder_version", found->binder_version);
    w.field("data_version", int64_t(table->data_version));
    w.field("row_size", uint64_t(table->row_size));
    w.field("decoded", bool(layout));
    w.key("rows").begin_array();
    for (const auto& row : table->rows) {
        w.begin_object();
        w.field("id", int64_t(row.id));
        w.field("name", printable_utf8(row.name));
        if (layout) {
            w.key("fields").begin_object();
            for (const auto* f : fields) {
                const param::Value v = param::field_value(*f, row.data, table->big_endian);
                w.key(f->name);
                if (v.is_float)
                    w.value(v.f);
                else
                    w.value(v.i);
            }
            w.end_object();
        } else {
            w.field("hex", hex_bytes(row.data));
        }
        w.end_object();
    }
    w.end_array();
    w.end_object();
    std::cout << "\n";
    return k_exit_ok;
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
    auto full = std::make_shared<bool>(false);
    auto max_array = std::make_shared<size_t>(64);
    cmd->add_flag("--full", *full, "With --json: every element of every array of the object graphs (same as --max-array 0)");
    cmd->add_option("--max-array", *max_array, "With --json: cut object-graph arrays after N elements, noting how many were left out (0 = all)")
        ->default_val(64);
    auto param_name = std::make_shared<std::string>();
    auto csv = std::make_shared<bool>(false);
    cmd->add_option("--param", *param_name,
                    "Print the rows of the PARAM table NAME (e.g. NpcParam) of a parambnd or a regulation.bin (Elden Ring's\n"
                    "encrypted one is decrypted): JSON (the default) or --csv; every field by name when drape carries the\n"
                    "table's layout (Elden Ring: NpcParam, EquipParamWeapon, EquipParamProtector, ChrModelParam; Sekiro:\n"
                    "NpcParam, EquipParamWeapon, EquipParamProtector) and it fits the rows, else id, name and the row's hex");
    cmd->add_flag("--csv", *csv, "With --param: print CSV (a header line, then one line per row) instead of JSON");
    cmd->callback([files, json, objects, full, max_array, param_name, csv, &global, &exit_code] {
        game::WalkOptions options;
        options.dcx.oodle_path = global.oodle_path;
        options.dcx.jobs = global.jobs;
        if (!param_name->empty()) {
            // several files: one JSON array of their tables (CSV: one table after the other)
            const bool array = !*csv && files->size() > 1;
            if (array) std::cout << "[\n";
            for (size_t i = 0; i < files->size(); ++i) {
                if (array && i > 0) std::cout << ",\n";
                const int code = print_param_rows((*files)[i], *param_name, *csv, options.dcx, array);
                if (code != k_exit_ok) exit_code = code;
            }
            if (array) std::cout << "]\n";
            return;
        }
        // JSON goes out as it is written (a large object graph is never held in memory); errors
        // are collected and printed once the document is complete.
        JsonWriter w(std::cout);
        JsonInspect inspect{w, options.dcx, *objects, *full ? 0 : *max_array};
        std::vector<std::string> json_errors;
        if (*json && files->size() > 1) w.begin_array();
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
                    write_json_value(w, j);
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
                // A Havok file given directly always gets its object graph; containers with --objects.
                const bool havok_file = havok::is_packfile(*bytes) || havok::is_tagfile(*bytes);
                std::optional<havok::CompendiumSet> folder;
                if (havok_file) {
                    // a loose tagfile's compendium sits beside it
                    if (auto c = game::compendiums_for({game::Member{path.string(), *bytes}}, path.parent_path())) folder = std::move(*c);
                }
                inspect.node(node, *bytes, folder ? &*folder : nullptr, *objects || havok_file, 0);
            } else {
                print_tree(std::cout, node, "", true, true);
            }
            if (auto e = game::first_error(node)) {
                exit_code = k_exit_input;
                if (*json) {
                    json_errors.push_back(e->to_string());
                } else {
                    std::cout.flush();
                    std::cerr << "error: " << e->to_string() << "\n";
                }
            }
        }
        if (*json) {
            if (files->size() > 1) w.end_array();
            if (w.complete()) std::cout << "\n";
            std::cout.flush();
            for (const auto& e : json_errors) std::cerr << "error: " << e << "\n";
        }
    });
}

}  // namespace drape::cli
