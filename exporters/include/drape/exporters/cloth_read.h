// drape: a .drcloth 2.0 read back into drape's hcl structs: the inverse of cloth_export, so a
// round trip hcl -> .drcloth -> hcl can be compared member by member with operator==.
//
// Every byte is untrusted: the file goes through drape::schema::verify_cloth_file first (an
// optional zstd frame is unwrapped here, bounded), and every collidable index is bounds-checked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "drape/havok/cloth.h"
#include "drape/io/reader.h"

namespace drape::cloth_read {

// Unwraps one zstd frame when the bytes start with one (content size declared, at most 1 GiB and
// 64 times the frame); otherwise copies nothing and returns the bytes as they are in `storage`'s
// absence. `storage` receives the decompressed bytes.
Result<Bytes> unwrap_zstd(Bytes bytes, std::vector<uint8_t>& storage);

// Verifies the buffer (after an optional zstd frame) and converts it. `bone_names` receives the
// bone names of every transform set, in order. `plain_out`, when given, receives the verified
// FlatBuffer bytes (unwrapped from zstd).
Result<hcl::ClothContainer> drcloth_to_hcl(Bytes bytes, std::vector<std::vector<std::string>>* bone_names = nullptr,
                                           std::vector<uint8_t>* plain_out = nullptr);

// Clears what a .drcloth does not keep (item numbers of the source file, counts of dropped members).
void clear_items(hcl::ClothContainer& c);

}  // namespace drape::cloth_read
