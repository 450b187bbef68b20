// drape: Oodle Kraken decoding (DCX "KRAK" payloads), written from a clean-room
// specification alone (docs/containers.md#kraken).
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
// (the first in stream order). Thread-safe: calls share only pools of scratch memory and of
// helper threads, which a parallel call takes and gives back; the helpers are kept for later
// calls (each polls for about 200 us after its task before it sleeps) and joined at exit; a
// child of fork() starts its own.
//
// Errors: Error::offset is the byte offset in `in`; Error::field names where decoding failed:
//   kraken.block[B].header / .raw / .quantum        block framing
//   kraken.block[B].chunk[C]                         a 128 KiB chunk of the block's quantum
//   kraken.block[B].chunk[C].literals|commands|distances|distance_remainders|lengths
//                                                    the arrays of an LZ chunk
//   kraken.block[B].chunk[C].bits / .execute         its bit region / commands
//   kraken.block[B].chunk[C].array                   the array of an entropy-only chunk
//   ...rle_prefix, .part[i], .single, .source[i], .selectors, .widths, .bits
//                                                    arrays nested in RLE and recursive arrays
//   kraken.end                                       input left over after the last block
//
// Decoder types (block header byte 1) other than 6 belong to other Oodle codecs
// (5 LZNA, 10 Mermaid/Selkie, 11 BitKnit, 12 Leviathan) that drape does not implement: the error
// names the codec and says to pass the game's Oodle library (--oodle). Other values are invalid.
Result<void> decompress(Bytes in, std::span<uint8_t> out, unsigned jobs = 1);

// Decodes only the output bytes [offset, offset + out.size()) of a stream whose whole output is
// `total` bytes: only the blocks holding the range, starting from the last block at or before
// it that restarts the LZ window. Framing is checked for the whole stream (cheap: block
// headers only); the blocks outside the range are not decoded, so their errors go unseen.
Result<void> decompress_range(Bytes in, size_t total, size_t offset, std::span<uint8_t> out, unsigned jobs = 1);

// Whether the decoder may use instruction-set extensions beyond the build's baseline when the CPU
// has them (today, on x86-64: a second copy of the whole decoding core compiled for x86-64-v3,
// that is AVX2, BMI1/2, LZCNT, FMA and MOVBE, for CPUs that have them all; else SSE4.1 for the
// recent-distance step of one LZ command loop). Enabled by default; the output is the same
// either way. For tests and A/B timing: sets the choice for every later call in the process
// (calls running meanwhile may see either) and returns the previous setting.
bool set_cpu_extensions(bool enabled);

// The Oodle codec of a decoder type (docs/containers.md#other-oodle-codecs): "Kraken" (6),
// "LZNA" (5), "Mermaid/Selkie" (10), "BitKnit" (11), "Leviathan" (12); nullptr for any other value.
const char* codec_name(unsigned decoder_type);

}  // namespace drape::kraken
