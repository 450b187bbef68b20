// drape CLI: every subcommand registers itself on the CLI11 app from its own file.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace drape::cli {

// Exit codes: 0 success, 1 an input failed, 2 usage error (CLI11 parse errors).
inline constexpr int k_exit_ok = 0;
inline constexpr int k_exit_input = 1;
inline constexpr int k_exit_usage = 2;

// Options common to every subcommand that reads game files.
struct GlobalOptions {
    std::string oodle_path;  // --oodle / DRAPE_OODLE
    unsigned jobs = 0;       // --jobs, 0 = all cores
    bool quiet = false;
};

// Each register_* adds one subcommand; its callback stores its exit code in `exit_code`.
void register_inspect(CLI::App& app, GlobalOptions& global, int& exit_code);
void register_check(CLI::App& app, GlobalOptions& global, int& exit_code);
void register_model(CLI::App&, GlobalOptions&, int&);
void register_cloth(CLI::App&, GlobalOptions&, int&);
void register_animation(CLI::App& app, GlobalOptions& global, int& exit_code);
void register_simulate(CLI::App& app, GlobalOptions& global, int& exit_code);
void register_bench(CLI::App& app, GlobalOptions& global, int& exit_code);
void register_unpack(CLI::App& app, GlobalOptions& global, int& exit_code);
void register_convert(CLI::App& app, GlobalOptions& global, int& exit_code);
void register_bake(CLI::App& app, GlobalOptions& global, int& exit_code);

}  // namespace drape::cli
