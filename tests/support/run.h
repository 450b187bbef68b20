// Test support: run a command and capture its output and exit code.
#pragma once

#include <string>

namespace drape::test {

struct RunResult {
    int exit_code = -1;
    std::string out;  // stdout and stderr, merged
};
RunResult run(const std::string& command);
// Path of the built drape CLI.
std::string drape_exe();

}  // namespace drape::test
