#include "run.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>

namespace drape::test {

namespace {

// Runs `command` through the shell; `out` is what it wrote to stdout.
RunResult run_stdout(const std::string& command) {
    RunResult r;
    FILE* p = popen(command.c_str(), "r");
    if (!p) return r;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
    int status = pclose(p);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

// One shell word holding `s` exactly: single-quoted, each ' written as '\''.
std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

}  // namespace

RunResult run(const std::string& command) { return run_stdout(command + " 2>&1"); }

std::string drape_exe() { return std::string(DRAPE_BINARY_DIR) + "/tools/drape"; }

RunResult run_drape(const std::vector<std::string>& args, bool stdout_only) {
    std::string cmd = shell_quote(drape_exe());
    for (const auto& a : args) cmd += " " + shell_quote(a);
    return stdout_only ? run_stdout(cmd + " 2>/dev/null") : run(cmd);
}

}  // namespace drape::test
