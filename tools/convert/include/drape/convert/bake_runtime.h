// drape: the bake's Cloth over drape's runtime (runtime/include/drape/runtime.h): every cloth
// data of a .drcloth runs as one runtime instance in the game's space; the transform-set bones of
// all of them are matched to the model's nodes by name.
#pragma once

#include <memory>

#include "drape/convert/bake.h"

namespace drape::bake {

// Loads the .drcloth (zstd-wrapped or not) into the runtime and creates one instance per cloth
// data, in state 0 (#01#Default in the games' files); `depenetrate` sets the instances'
// DRAPE_INSTANCE_DEPENETRATE (not the game's arithmetic). Fails with the runtime's message.
Result<std::unique_ptr<Cloth>> runtime_cloth(Bytes drcloth, bool depenetrate = false);

// runtime_cloth(drcloth, options.depenetrate), then bake(glb, ...): what `drape bake` and
// `drape convert --bake` run.
Result<std::vector<uint8_t>> bake_with_runtime(Bytes glb, Bytes drcloth, const BakeOptions& options = {},
                                               BakeReport* report = nullptr);

}  // namespace drape::bake
