// Test support: run a command and capture its output and exit code.
#pragma once

#include <string>
#include <vector>

namespace drape::test {

struct RunResult {
    int exit_code = -1;
    std::string out;  // stdout and stderr, merged
};
RunResult run(const std::string& command);
// Path of the built drape CLI.
std::string drape_exe();
// Runs the built drape CLI with `args` (each passed as one argument, whatever it holds). `out` is
// stdout and stderr merged, or stdout alone when `stdout_only` (a JSON document, say).
RunResult run_drape(const std::vector<std::string>& args, bool stdout_only = false);
// The CLI's exit codes (tools/cli/commands.h).
inline constexpr int k_drape_ok = 0, k_drape_input = 1, k_drape_usage = 2;

}  // namespace drape::test
