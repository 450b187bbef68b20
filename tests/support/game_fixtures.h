// Test support: game containers built in memory (BND4 binders of named members, DCX layers), for
// the container walker, the loaders and the hostile-folder test of `drape convert`.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace drape::test {

using NamedBytes = std::pair<std::string, std::vector<uint8_t>>;

// A BND4 as the games write it (IDs, names, UTF-16, hash table) holding `members` in order.
std::vector<uint8_t> make_bnd4(const std::vector<NamedBytes>& members);
// A BND4 of one member flagged compressed, stored as an 8-byte zlib stream (of nothing), whose
// header declares `uncompressed_size` bytes: what a reader must not allocate on the header's word.
std::vector<uint8_t> make_bnd4_member_claiming(uint64_t uncompressed_size);
// `payload` in a DCX DFLT container.
std::vector<uint8_t> make_dcx(const std::vector<uint8_t>& payload);

}  // namespace drape::test
