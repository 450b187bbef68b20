// Test support: Havok files of the corpus, loose or inside DCX/BND4 binders.
#pragma once

#include <string>
#include <vector>

#include "drape/havok/hkx.h"

namespace drape::test {

struct HkxMember {
    std::string name;            // binder member name, or the file name when loose
    std::vector<uint8_t> bytes;  // decompressed
};

// Every Havok member (packfile, TAG0, TCM0) of a corpus file (relative path), loose or in a binder.
std::vector<HkxMember> hkx_members(const std::string& relative);
// Reads member `name_suffix` (case-insensitive suffix) of `relative`, resolving its compendium among
// the siblings. Fails the test (and returns an error) when the member is missing.
drape::Result<drape::havok::File> load_hkx(const std::string& relative, const std::string& name_suffix = "");
// Every corpus file whose manifest format mentions Havok or whose binder holds Havok members.
std::vector<std::string> corpus_hkx_files();

}  // namespace drape::test
