// drape: Oodle Kraken decoding (DCX "KRAK" payloads), written from docs KRAKEN.md alone.
#pragma once

#include <cstdint>
#include <span>

#include "drape/io/reader.h"

namespace drape::kraken {

// Decodes a whole Kraken stream (a sequence of 256 KiB blocks) into `out`, which must be
// exactly the declared uncompressed size. `in` must be exactly the stream (DCX: the C bytes at
// 0x4C, without the zero padding): left-over input is an error. Never writes outside `out`
// (on failure its contents are unspecified). Blocks whose header sets the restart bit start
// independent runs of blocks, decoded in parallel on up to `jobs` threads (0 = every core,
// 1 = sequential); the result is the same for every `jobs`, including which error is reported
// (the first in stream order). Thread-safe: no shared state between calls.
//
// Errors: Error::offset is the byte offset in `in`; Error::field names where decoding failed:
//   kraken.block[B].header / .raw / .quantum        block framing (KRAKEN.md 3)
//   kraken.block[B].chunk[C]                         a 128 KiB chunk of the block's quantum (4)
//   kraken.block[B].chunk[C].literals|commands|distances|distance_remainders|lengths
//                                                    the arrays of an LZ chunk (10.1)
//   kraken.block[B].chunk[C].bits / .execute         its bit region (10.2) / commands (10.3)
//   kraken.block[B].chunk[C].array                   the array of an entropy-only chunk (4)
//   ...rle_prefix, .part[i], .single, .source[i], .selectors, .widths, .bits
//                                                    arrays nested in RLE and recursive arrays
//   kraken.end                                       input left over after the last block
Result<void> decompress(Bytes in, std::span<uint8_t> out, unsigned jobs = 1);

}  // namespace drape::kraken
