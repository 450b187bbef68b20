// Test support: synthesized Sekiro and Elden Ring cloth tagfiles.
//
// No public Sekiro or Elden Ring cloth file exists, so these are written with TagfileWriter from
// the HKLib 2018 registry (ER: its type records as they are; Sekiro: a 16-byte
// hkReferencedObject and hclSimClothData version 13, docs/formats.md#sdk-differences). Every member of
// every object gets a value from one deterministic sequence, so a reader's result can be
// compared member by member (verify_synthesized) without storing the expected values.
#pragma once

#include <string>
#include <vector>

#include "drape/havok/hkx.h"
#include "tagfile_writer.h"

namespace drape::test {

enum class ClothGame {
    sekiro,            // docs/formats.md#sdk-differences: 16-byte hkReferencedObject, TNAM/TBOD, hclSimClothData v13
    elden_ring,        // the 2018 registry as it is
    sekiro_as_corpus,  // as the corpus's Sekiro files are: 2018 sections and layouts, SDK 20160200, v13
};

// The cloth classes of the games' census (docs/havok-cloth.md#the-census) (constraint sets, operators, shapes, buffers) plus the
// containers and the skeleton.
const std::vector<std::string>& fixture_classes();

// The type table used to write the fixture (from the registry in reference_dir()).
Result<havok::TypeTable> fixture_types(ClothGame game);

// Writes the fixture: hkRootLevelContainer > {hkaAnimationContainer, hclClothContainer > hclClothData ...}.
std::vector<uint8_t> synthesize_cloth(ClothGame game, const havok::TypeTable& types);

// Walks the read-back file in the writer's order and compares every member with the sequence.
// Returns "" when all equal, else the first difference.
std::string verify_synthesized(const havok::File& file);

}  // namespace drape::test
