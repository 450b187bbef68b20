// drape model: shared with the future `drape convert`.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "drape/dcx/dcx.h"
#include "drape/exporters/gltf.h"
#include "drape/flver/flver.h"
#include "drape/havok/animation.h"

#include <optional>

namespace drape::cli {

// Reads a .flver, or the first FLVER inside DCX/BND4 layers (a .partsbnd.dcx, a .mapbnd).
// Errors carry the container chain (`c.partsbnd.dcx > N:\...\c.flver @0x.. field: reason`).
Result<flver::Model> load_flver_file(const std::filesystem::path& path, const dcx::DecodeOptions& options);

// The first Havok skeleton found in a file (a Skeleton.hkx, an .anibnd(.dcx), a cloth *_c.hkx),
// members named "skeleton" first; nullopt when the file holds none.
Result<std::optional<havok::Skeleton>> load_havok_skeleton(const std::filesystem::path& path, const dcx::DecodeOptions& options);
// A Havok skeleton as the glTF exporter's plain skeleton (names, parents, reference pose).
exporters::Skeleton to_export_skeleton(const havok::Skeleton& skeleton);

// Decodes every texture of the given TPF files to `<out stem>_tex/<name>.png` beside `out` and
// adds texture key (lowercase name) -> relative PNG path to `textures`. Textures that fail to
// decode are skipped with a line in `warnings`.
Result<void> add_textures(const std::vector<std::vector<uint8_t>>& tpfs, const std::filesystem::path& out,
                          std::map<std::string, std::string>& textures, std::vector<std::string>& warnings);

}  // namespace drape::cli
