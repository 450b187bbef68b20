// Test support: small .drcloth files built with the schema's generated builders (no exporter, no
// game data), for the fuzz seeds and the hostile-file regressions.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace drape::test {

// A four-particle cloth the runtime loads and steps, with one operator of most kinds: an
// object-space skin of a display buffer redirected to its shadow, move particles, simulate
// (standard links, a local range, a capsule collidable driven by a bone), a gather of the sim
// mesh into the display buffer, vertex frames, input and output conversion.
std::vector<uint8_t> small_drcloth();

// The same cloth with its shadow buffer holding `extra` more vertices than the display buffer it
// shadows, so the operators that run over the shadow size their work by more vertices than the
// arrays checked against the display buffer hold. Without `conversions`, the state's redirection
// is the only link between the two buffers (the input and output conversions are left out).
std::vector<uint8_t> small_drcloth_with_larger_shadow(uint32_t extra, bool conversions = true);

// Files the FlatBuffers verifier accepts whose unions name a kind but hold no table, each as
// (file name, bytes): operators (object-space skin, move particles, simulate after an earlier
// operator the loader refuses), a constraint set and a collidable shape.
std::vector<std::pair<std::string, std::vector<uint8_t>>> drcloth_unions_without_table();

}  // namespace drape::test
