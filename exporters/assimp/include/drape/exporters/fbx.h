// drape: FBX output, through Assimp (optional: built when Assimp is found; consumers see
// DRAPE_HAVE_FBX=1). The glb drape writes is the source: Assimp's glTF 2.0 importer reads it and
// its FBX exporter writes binary FBX 7.4 (the version Blender's importer reads), with the skin
// (bones named as the glTF joints, with their weights and bind poses), the meshes, the
// materials with their texture file paths (relative, as the glb names them, so the FBX works
// beside the glb's texture folder) and every glTF animation as an FBX animation stack.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "drape/io/error.h"
#include "drape/io/reader.h"

namespace drape::exporters {

struct FbxOptions {
    bool ascii = false;  // ASCII FBX (Blender cannot import it; for reading by eye)
};

// FBX bytes of a glb (a .glb file's bytes as drape writes them). Errors carry Assimp's reason.
Result<std::vector<uint8_t>> fbx_from_glb(Bytes glb, const FbxOptions& options = {});

}  // namespace drape::exporters
