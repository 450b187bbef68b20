// drape: textures of FLVER materials whose texture entries name no file (Elden Ring, Sekiro),
// from the MATBIN / MTD each material names.
#pragma once

#include <string>
#include <vector>

#include "drape/flver/flver.h"
#include "drape/matbin/matbin.h"

namespace drape::game {

// For every material of `model`: finds its definition in `library` by the material's `mtd`
// path, fills each texture entry whose path is empty from the definition's sampler of the same
// type (type names compared case-insensitively), appends the definition's samplers that name a
// texture but have no entry in the FLVER, and records the definition (member name, shader,
// parameters) in the material. Paths the FLVER already holds are kept.
// Returns one warning per material whose definition is missing or cannot be read (the material
// keeps its textures as they were); never fails as a whole.
std::vector<std::string> resolve_material_textures(flver::Model& model, const matbin::MaterialLibrary& library);

// How many materials of `model` have a definition recorded (resolve_material_textures ran and
// found one).
size_t resolved_material_count(const flver::Model& model);

}  // namespace drape::game
