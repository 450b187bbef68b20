// drape::cloth_check: `drape check` and `drape inspect` of .drcloth files. One set of rules judges
// game files and .drcloth files: the runtime's loader (runtime/include/drape/runtime.h: the schema
// verifier, then every index the file stores checked once) decides whether the file is usable,
// and the game-file rules (hcl::check, docs/havok-cloth.md) run on its content as for a tagfile.
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>

#include "drape/io/reader.h"

namespace drape::cloth_check {

// A .drcloth: the "DRCL" identifier at offset 4, or a zstd frame (checked when opened).
bool looks_like_drcloth(Bytes bytes);
// Unwraps an optional zstd frame and loads the bytes with the runtime's loader. On failure the
// error names the runtime's result code and message ("runtime loader: ...").
Result<void> runtime_load(Bytes bytes);
// The runtime's loader, then the game-file rules. Prints a report and one line per violation to
// `out` (the runtime's refusal first); returns false when anything failed.
bool check_drcloth(const std::string& label, Bytes bytes, std::ostream& out, bool quiet);
// A summary for `drape inspect`: counts per table, names, bindings, dropped members. Fails with
// the runtime loader's message when the runtime refuses the file.
Result<nlohmann::ordered_json> drcloth_summary(Bytes bytes);

}  // namespace drape::cloth_check
