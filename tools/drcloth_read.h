// drape CLI: read a .drcloth back into drape's hcl structs (the exporter's inverse).
#pragma once

#include <string>
#include <vector>

#include "drape/havok/cloth.h"

namespace drape::cli {

// Verifies the buffer (after an optional zstd frame) and converts it. `bone_names` receives the
// bone names of every transform set, in order.
// `plain_out`, when given, receives the verified FlatBuffer bytes (unwrapped from zstd).
Result<hcl::ClothContainer> drcloth_to_hcl(Bytes bytes, std::vector<std::vector<std::string>>* bone_names = nullptr,
                                           std::vector<uint8_t>* plain_out = nullptr);
// Clears what a .drcloth does not keep (item numbers of the source file, counts of dropped members).
void clear_items(hcl::ClothContainer& c);

}  // namespace drape::cli
