// Writes samples/game: a small synthetic game folder (no game data) that `make demo` converts.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "drape/io/error.h"

namespace drape::test {

// Writes the synthetic game into `root`; returns the files written (relative paths).
Result<std::vector<std::string>> write_sample_game(const std::filesystem::path& root);

}  // namespace drape::test
