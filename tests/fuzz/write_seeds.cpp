// drape_fuzz_seeds: writes the fuzz targets' starting inputs.
//
//   drape_fuzz_seeds --regressions DIR   the hand-built hostile .drcloth files of tests/fuzz/regressions
//                                        (committed; regenerate them with this when the fixtures change)
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "drcloth_fixtures.h"

namespace fs = std::filesystem;

namespace {

bool write(const fs::path& path, const std::vector<uint8_t>& bytes) {
    fs::create_directories(path.parent_path());
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    if (!f) {
        std::fprintf(stderr, "error: cannot write %s\n", path.string().c_str());
        return false;
    }
    return true;
}

bool write_regressions(const fs::path& dir) {
    bool ok = true;
    for (const auto& [name, bytes] : drape::test::drcloth_unions_without_table()) ok &= write(dir / name, bytes);
    ok &= write(dir / "shadow_larger_than_its_buffer.drcloth", drape::test::small_drcloth_with_larger_shadow(12));
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 3 && std::strcmp(argv[1], "--regressions") == 0) return write_regressions(argv[2]) ? 0 : 1;
    std::fprintf(stderr, "usage: drape_fuzz_seeds --regressions DIR\n");
    return 2;
}
