// Test support: visits every value of a Havok file through the generic view and every typed view
// (fuzzing and benchmarks). Returns a checksum so the work is not optimised away.
#pragma once

#include <cstdint>

#include "drape/havok/hkx.h"

namespace drape::test {

uint64_t walk_havok(const drape::havok::File& file);

}  // namespace drape::test
