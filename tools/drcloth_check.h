// drape CLI: `drape check` and `drape inspect` of .drcloth files.
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>

#include "drape/io/reader.h"

namespace drape::cli {

// A .drcloth: the "DRCL" identifier at offset 4, or a zstd frame (checked when opened).
bool looks_like_drcloth(Bytes bytes);
// Verifies the FlatBuffer and every index (the same rules as the game file: seed 000). Prints
// a report and one line per violation to `out`; returns false when anything failed.
bool check_drcloth(const std::string& label, Bytes bytes, std::ostream& out, bool quiet);
// A summary for `drape inspect`: counts per table, names, bindings, dropped members.
Result<nlohmann::ordered_json> drcloth_summary(Bytes bytes);

}  // namespace drape::cli
