// Optional use of the game's Oodle library (loaded at run time) for KRAK payloads.
#pragma once

#include <span>
#include <string>

#include "drape/io/reader.h"

namespace drape::oodle {

// Loads `library_path` (once per path; kept loaded) and calls its OodleLZ_Decompress to fill
// `out` exactly. Errors say whether the library could not be loaded, lacks the symbol, or
// failed to decode.
Result<void> decompress(const std::string& library_path, Bytes in, std::span<uint8_t> out);

}  // namespace drape::oodle
