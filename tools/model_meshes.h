// drape CLI: the meshes of a FLVER as the cloth exporter's display-buffer binding needs them.
#pragma once

#include <vector>

#include "drape/exporters/cloth_export.h"
#include "drape/io/reader.h"

namespace drape::cli {

// Reads a FLVER and lists its meshes: the glTF mesh name the model exporter gives each (the same
// rule: "meshNN[_maskMM]_<material>"), the default node's name, the vertex count, the first LOD0
// face set's triangle count and the positions (game space).
Result<std::vector<cloth_export::ModelMesh>> model_meshes(Bytes flver_bytes);

}  // namespace drape::cli
