// Test helper: every FLVER of the corpus as bytes, loose or inside binders.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "corpus.h"
#include "drape/bnd/bnd4.h"
#include "drape/dcx/dcx.h"
#include "drape/flver/flver.h"

namespace drape::test {

struct CorpusFlver {
    std::string corpus_file;  // relative to the corpus, e.g. ds3/DS3_am.dcx
    std::string member;       // binder member name as stored ("" when loose)
    std::string label;        // short name for outputs
    std::vector<uint8_t> bytes;
};

// Unwraps DCX and BND4 layers and returns every FLVER member.
inline std::vector<CorpusFlver> flvers_in(const std::string& rel) {
    std::vector<CorpusFlver> out;
    std::vector<uint8_t> bytes = load(corpus(rel));
    std::string stem = rel.substr(rel.find('/') + 1);
    stem = stem.substr(0, stem.find('.'));
    if (dcx::is_dcx(bytes)) {
        auto d = dcx::decompress(bytes);
        if (!d) return out;
        bytes = std::move(*d);
    }
    if (flver::is_flver(bytes)) {
        out.push_back({rel, "", stem, std::move(bytes)});
        return out;
    }
    if (bnd::is_bnd4(bytes)) {
        auto b = bnd::read_bnd4(bytes);
        if (!b) return out;
        for (const auto& e : b->entries) {
            auto eb = bnd::entry_bytes(*b, e);
            if (!eb || !flver::is_flver(*eb)) continue;
            std::string name = e.path.substr(e.path.find_last_of('/') + 1);
            out.push_back({rel, e.name, stem + "_" + name.substr(0, name.find('.')), std::move(*eb)});
        }
    }
    return out;
}

// Every FLVER the corpus manifest lists (FLVER2 files and binders holding FLVER2).
inline std::vector<CorpusFlver> corpus_flvers() {
    std::vector<CorpusFlver> all;
    for (const auto& row : manifest()) {
        if (row.contents.find("FLVER2") == std::string::npos) continue;
        for (auto& f : flvers_in(row.file)) all.push_back(std::move(f));
    }
    return all;
}

}  // namespace drape::test
