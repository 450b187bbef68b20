// drape CLI: the members of a game file through its DCX and BND4 layers, and the Havok type
// compendiums they (or the folder of a loose tagfile) hold. Shared by every subcommand.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "drape/dcx/dcx.h"
#include "drape/havok/hkx.h"

namespace drape::cli {

struct Member {
    std::string name;            // `label`, or `label > member name > ...` inside binders
    std::vector<uint8_t> bytes;  // decompressed
};

// The file itself when it is neither DCX nor BND4; otherwise what its layers hold, opened through
// every DCX and (nested) BND4 layer. Errors carry the container chain.
Result<std::vector<Member>> open_members(Bytes bytes, const std::string& label, const dcx::DecodeOptions& options);
Result<std::vector<Member>> open_members(const std::filesystem::path& path, const std::string& label,
                                         const dcx::DecodeOptions& options);

// The type compendiums among `members`, plus, for a single loose tagfile that names one, the
// `.compendium` files in `folder`.
Result<havok::CompendiumSet> compendiums_for(const std::vector<Member>& members, const std::filesystem::path& folder);

}  // namespace drape::cli
