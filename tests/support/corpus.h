// Test support: where the shared corpus and reference files are, and small helpers.
#pragma once

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <vector>

namespace drape::test {

// ../shared/corpus beside the checkout, or $DRAPE_CORPUS.
std::filesystem::path corpus_dir();
// ../shared/reference beside the checkout (or $DRAPE_REFERENCE).
std::filesystem::path reference_dir();
std::filesystem::path corpus(const std::string& relative);
std::vector<uint8_t> load(const std::filesystem::path& path);  // aborts the test on failure (empty)
// A fresh, empty scratch folder under the build tree, private to this process (test-scratch/p<pid>/NAME;
// removed at exit unless DRAPE_KEEP_SCRATCH is set).
std::filesystem::path scratch_dir(const std::string& name);

// The TPFs of corpus files, in the order given: a loose `.tpf` as it is, every other file (a
// binder, DCX-wrapped or not) searched through game::collect_tpfs. A file that cannot be read is
// named in `unreadable` (a test requires it empty), never skipped silently.
struct CorpusTpfs {
    std::vector<std::vector<uint8_t>> tpfs;
    std::vector<std::string> unreadable;
};
CorpusTpfs corpus_tpfs(std::initializer_list<const char*> files);

struct ManifestRow {
    std::string file, format, game, contents, source;
    uint64_t size = 0;
};
std::vector<ManifestRow> manifest();

}  // namespace drape::test
