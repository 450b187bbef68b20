// drape: Oodle Kraken decoding (DCX "KRAK" payloads), written from docs KRAKEN.md alone.
#pragma once

#include <cstdint>
#include <span>

#include "drape/io/reader.h"

namespace drape::kraken {

// Decodes a whole Kraken stream (a sequence of 256 KiB blocks) into `out`, which must be
// exactly the declared uncompressed size. Never writes outside `out`. Blocks whose header
// sets the restart bit are decoded in parallel on up to `jobs` threads (0 = every core,
// 1 = sequential). Errors name the block, quantum and array where decoding failed.
Result<void> decompress(Bytes in, std::span<uint8_t> out, unsigned jobs = 1);

}  // namespace drape::kraken
