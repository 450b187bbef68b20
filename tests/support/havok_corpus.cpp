#include "havok_corpus.h"

#include <algorithm>
#include <cctype>

#include "corpus.h"
#include "drape/bnd/bnd4.h"
#include "drape/dcx/dcx.h"

namespace drape::test {

static bool is_havok(Bytes b) { return havok::is_packfile(b) || havok::is_tagfile(b) || havok::is_compendium(b); }

static bool ends_with_ci(const std::string& s, const std::string& suffix) {
    if (suffix.size() > s.size()) return false;
    for (size_t i = 0; i < suffix.size(); ++i)
        if (std::tolower(uint8_t(s[s.size() - suffix.size() + i])) != std::tolower(uint8_t(suffix[i]))) return false;
    return true;
}

std::vector<HkxMember> hkx_members(const std::string& relative) {
    std::vector<HkxMember> out;
    std::vector<uint8_t> bytes = load(corpus(relative));
    if (dcx::is_dcx(bytes)) {
        auto d = dcx::decompress(bytes);
        if (!d) return out;
        bytes = std::move(*d);
    }
    if (bnd::is_bnd4(bytes)) {
        auto b = bnd::read_bnd4(bytes);
        if (!b) return out;
        for (const auto& e : b->entries) {
            auto data = bnd::entry_bytes(*b, e);
            if (!data) continue;
            if (is_havok(*data)) out.push_back({e.name, std::move(*data)});
        }
    } else if (is_havok(bytes)) {
        out.push_back({relative, std::move(bytes)});
    }
    return out;
}

Result<havok::File> load_hkx(const std::string& relative, const std::string& name_suffix) {
    const auto members = hkx_members(relative);
    std::vector<Bytes> siblings;
    for (const auto& m : members) siblings.emplace_back(m.bytes);
    havok::CompendiumSet set;
    if (auto r = set.add_siblings(siblings); !r) return r.error();
    for (const auto& m : members)
        if (!havok::is_compendium(m.bytes) && (name_suffix.empty() || ends_with_ci(m.name, name_suffix)))
            return havok::read_hkx(m.bytes, set.lookup());
    return make_error("no Havok member ending with '" + name_suffix + "' in " + relative);
}

std::vector<std::string> corpus_hkx_files() {
    std::vector<std::string> out;
    // Rows say it in words of their own: "Havok packfile", "2x Havok tagfile", "cloth c2030_c.hkx";
    // and every animation binder holds Havok files (c2030.anibnd.dcx: "skeleton, clips, TAE").
    for (const auto& row : manifest())
        if (row.format.find("Havok") != std::string::npos || row.format.find("packfile") != std::string::npos ||
            row.contents.find("Havok") != std::string::npos || row.contents.find(".hkx") != std::string::npos ||
            ends_with_ci(row.file, ".anibnd") || ends_with_ci(row.file, ".anibnd.dcx"))
            out.push_back(row.file);
    return out;
}

}  // namespace drape::test
