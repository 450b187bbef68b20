#include "corpus.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace drape::test {

std::filesystem::path corpus_dir() {
    if (const char* env = std::getenv("DRAPE_CORPUS"); env && *env) return env;
    return std::filesystem::path(DRAPE_SHARED_DEFAULT) / "corpus";
}

std::filesystem::path reference_dir() {
    if (const char* env = std::getenv("DRAPE_REFERENCE"); env && *env) return env;
    return std::filesystem::path(DRAPE_SHARED_DEFAULT) / "reference";
}

std::filesystem::path corpus(const std::string& relative) { return corpus_dir() / relative; }

std::vector<uint8_t> load(const std::filesystem::path& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return {};
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

std::filesystem::path scratch_dir(const std::string& name) {
    auto dir = std::filesystem::path(DRAPE_BINARY_DIR) / "test-scratch" / name;
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    std::filesystem::create_directories(dir);
    return dir;
}

std::vector<ManifestRow> manifest() {
    std::vector<ManifestRow> rows;
    std::ifstream f(corpus_dir() / "MANIFEST.tsv");
    std::string line;
    bool header = true;
    while (std::getline(f, line)) {
        if (header) { header = false; continue; }
        std::vector<std::string> cols;
        std::stringstream ss(line);
        std::string col;
        while (std::getline(ss, col, '\t')) cols.push_back(col);
        if (cols.size() < 6) continue;
        ManifestRow r;
        r.file = cols[0];
        r.size = std::stoull(cols[1]);
        r.format = cols[2];
        r.game = cols[3];
        r.contents = cols[4];
        r.source = cols[5];
        rows.push_back(r);
    }
    return rows;
}

}  // namespace drape::test
