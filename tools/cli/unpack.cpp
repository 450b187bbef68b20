// drape unpack: DCX, BND4, BXF4 and TPF containers to folders (the library does the work:
// drape/convert/unpack.h); this file parses the flags and prints.
#include <filesystem>
#include <iostream>
#include <memory>

#include "commands.h"
#include "drape/bnd/bnd4.h"
#include "drape/game/containers.h"
#include "drape/convert/unpack.h"
#include "drape/io/file.h"

namespace drape::cli {

namespace {

struct UnpackArgs {
    std::vector<std::string> inputs;
    std::string output;
    bool recursive = false;
};

int run_unpack(const UnpackArgs& a, const GlobalOptions& g) {
    game::UnpackOptions o;
    o.recursive = a.recursive;
    o.dcx.oodle_path = g.oodle_path;
    o.dcx.jobs = g.jobs;
    int code = k_exit_ok;
    for (const auto& input : a.inputs) {
        const std::filesystem::path path(input);
        auto bytes = read_file(path);
        if (!bytes) {
            std::cerr << "drape unpack: " << bytes.error().to_string() << "\n";
            code = k_exit_input;
            continue;
        }
        const std::string name = path.filename().string();
        Result<game::UnpackResult> r = make_error("unset");
        if (bnd::is_bhf4(*bytes)) {
            const auto bdt_path = game::bdt_beside(path);
            auto bdt = bdt_path.empty() ? Result<std::vector<uint8_t>>(make_error("no data file (.bdt) beside the header file", name))
                                        : read_file(bdt_path);
            if (!bdt) {
                std::cerr << "drape unpack: " << bdt.error().to_string() << "\n";
                code = k_exit_input;
                continue;
            }
            r = game::unpack_bxf4(*bytes, *bdt, name, a.output, o);
        } else {
            r = game::unpack(*bytes, name, a.output, o);
        }
        if (!r) {
            std::cerr << "drape unpack: " << r.error().to_string() << "\n";
            code = k_exit_input;
            continue;
        }
        for (const auto& e : r->errors) std::cerr << "drape unpack: not unpacked: " << e.to_string() << "\n";
        if (!r->errors.empty()) code = k_exit_input;
        if (!g.quiet)
            std::cout << input << " -> " << r->folder.string() << ": " << r->files << " files, " << r->containers
                      << (r->containers == 1 ? " container" : " containers") << (r->errors.empty() ? "" : ", " + std::to_string(r->errors.size()) + " not unpacked")
                      << "\n";
    }
    return code;
}

}  // namespace

void register_unpack(CLI::App& app, GlobalOptions& global, int& exit_code) {
    auto args = std::make_shared<UnpackArgs>();
    CLI::App* sub = app.add_subcommand(
        "unpack",
        "Unpack containers (DCX, BND4, BXF4 .bhd with its .bdt, TPF to .dds files) into DIR/<name with '.' as '-'>/, member paths\n"
        "sanitised (nothing is written outside DIR), ids, flags and stored names in drape-unpack.json for a later repack");
    sub->add_option("files", args->inputs, "Containers to unpack")->required()->check(CLI::ExistingFile);
    sub->add_option("-o,--output", args->output, "Output folder")->required();
    sub->add_flag("-r,--recursive", args->recursive, "Also unpack members that are containers, each into a folder beside it");
    sub->callback([args, &global, &exit_code] { exit_code = run_unpack(*args, global); });
}

}  // namespace drape::cli
