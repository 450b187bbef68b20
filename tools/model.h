// drape model: shared with the future `drape convert`.
#pragma once

#include <filesystem>

#include "drape/dcx/dcx.h"
#include "drape/flver/flver.h"

namespace drape::cli {

// Reads a .flver, or the first FLVER inside DCX/BND4 layers (a .partsbnd.dcx, a .mapbnd).
// Errors carry the container chain (`c.partsbnd.dcx > N:\...\c.flver @0x.. field: reason`).
Result<flver::Model> load_flver_file(const std::filesystem::path& path, const dcx::DecodeOptions& options);

}  // namespace drape::cli
