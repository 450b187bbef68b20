// drape: the one container walker. Opens a game file through every DCX and (nested) BND4 layer
// and hands out what the layers hold; every reader of a game folder (convert, model, cloth,
// check, inspect) goes through it, so nesting limits, error chains and member naming agree.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "drape/dcx/dcx.h"
#include "drape/havok/hkx.h"
#include "drape/io/reader.h"

namespace drape::game {

// Deepest nesting of DCX and BND4 layers the walker follows (the games nest at most 3).
inline constexpr unsigned k_max_container_depth = 6;

struct Member {
    std::string name;            // `label`, or `label > member name > ...` inside binders
    std::vector<uint8_t> bytes;  // decompressed
    std::string binder_version;  // version string of the BND4 that holds it (a regulation's version), else empty
};

// What the visitor says after seeing a member: go on, or stop the whole walk.
enum class Visit : uint8_t { next, stop };

// Walks `bytes` (named `label`): an encrypted regulation (param::regulation_key finds its key) is
// decrypted first; every leaf (a file that is neither DCX nor BND4) is passed to
// `on_member` in binder order. A layer that cannot be opened is passed to `on_error` (its error
// carries the container chain); with `on_error` returning Visit::next the walk goes on with the
// layer's siblings, so one bad member never hides the others.
void walk_members(Bytes bytes, const std::string& label, const dcx::DecodeOptions& options,
                  const std::function<Visit(Member&&)>& on_member, const std::function<Visit(Error&&)>& on_error);

// The file itself when it is neither DCX nor BND4; otherwise every leaf of its layers. Fails at
// the first layer that cannot be opened.
Result<std::vector<Member>> open_members(Bytes bytes, const std::string& label, const dcx::DecodeOptions& options);
Result<std::vector<Member>> open_members(const std::filesystem::path& path, const std::string& label,
                                         const dcx::DecodeOptions& options);
// The same, but a layer that cannot be opened is recorded in `errors` and skipped.
std::vector<Member> open_members_lenient(Bytes bytes, const std::string& label, const dcx::DecodeOptions& options,
                                         std::vector<Error>& errors);

// The type compendiums among `members`, plus, for a single loose tagfile that names one, the
// `.compendium` files in `folder`.
Result<havok::CompendiumSet> compendiums_for(const std::vector<Member>& members, const std::filesystem::path& folder);

// BXF4 pairing: foo.bhd / foo.chrbhd / foo.hkxbhd -> the data file beside it (same stem, "bhd"
// -> "bdt"). Empty when the extension names no header.
std::filesystem::path bdt_beside(const std::filesystem::path& bhd);

}  // namespace drape::game
