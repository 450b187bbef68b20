// drape: the meshes of a FLVER as the cloth exporter's display-buffer binding needs them.
#pragma once

#include <vector>

#include "drape/exporters/cloth_export.h"
#include "drape/flver/flver.h"

namespace drape::exporters {

// One entry per FLVER mesh: the glTF mesh name the model exporter gives it (gltf_mesh_name),
// the default node's name, the vertex count, the stored first face set's triangle count and the
// positions (game space).
std::vector<cloth_export::ModelMesh> cloth_model_meshes(const flver::Model& model);

}  // namespace drape::exporters
