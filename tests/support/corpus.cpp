#include "corpus.h"

#include <cstdlib>
#include <unistd.h>
#include <fstream>
#include <sstream>
#include <string>

#include "drape/game/loaders.h"

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

CorpusTpfs corpus_tpfs(std::initializer_list<const char*> files) {
    CorpusTpfs out;
    for (const char* name : files) {
        auto bytes = load(corpus(name));
        if (bytes.empty()) {
            out.unreadable.push_back(name);
            continue;
        }
        const std::string n = name;
        if (n.size() >= 4 && n.compare(n.size() - 4, 4, ".tpf") == 0) {
            out.tpfs.push_back(std::move(bytes));
            continue;
        }
        for (auto& t : game::collect_tpfs(bytes, dcx::DecodeOptions{})) out.tpfs.push_back(std::move(t));
    }
    return out;
}

namespace {
// ctest runs each test case in its own process, two at a time: processes that build the same
// named folder (a converted er/game, a baked c5000) must not delete each other's files, so every
// process has its own root, removed when it exits (DRAPE_KEEP_SCRATCH=1 keeps it for a look).
const std::filesystem::path& process_scratch_root() {
    // Never destroyed: the exit handler below runs after the static destructors of objects
    // constructed after its registration, and this path is one of them (its initialiser
    // registers the handler), so a static path would be freed before the handler reads it.
    static const std::filesystem::path* const root = [] {
        auto* r = new std::filesystem::path(std::filesystem::path(DRAPE_BINARY_DIR) / "test-scratch" / ("p" + std::to_string(::getpid())));
        std::error_code ec;
        std::filesystem::remove_all(*r, ec);  // a stale root of an earlier process with this pid
        std::atexit([] {
            const char* keep = std::getenv("DRAPE_KEEP_SCRATCH");
            if (keep && *keep && std::string(keep) != "0") return;
            std::error_code e;
            std::filesystem::remove_all(process_scratch_root(), e);
        });
        return r;
    }();
    return *root;
}
}  // namespace

std::filesystem::path scratch_dir(const std::string& name) {
    auto dir = process_scratch_root() / name;
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
