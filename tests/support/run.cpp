#include "run.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>

namespace drape::test {

RunResult run(const std::string& command) {
    RunResult r;
    std::string cmd = command + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return r;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
    int status = pclose(p);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

std::string drape_exe() { return std::string(DRAPE_BINARY_DIR) + "/tools/drape"; }

}  // namespace drape::test
