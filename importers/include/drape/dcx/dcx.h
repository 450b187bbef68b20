// drape: DCX, the compressed single-file envelope of FromSoftware's games (FORMATS.md §1).
//
// Reads DFLT (zlib), ZSTD, KRAK (Oodle Kraken: drape's own decoder, or the game's Oodle
// library when one is given), EDGE (DeS) and the older DCP forms; writes DFLT and ZSTD.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "drape/io/reader.h"

namespace drape::dcx {

enum class Compression : uint8_t {
    dflt,      // DCX + zlib (DS3, BB, Sekiro, ER regulation)
    zstd,      // DCX + zstd frame (ER since Shadow of the Erdtree)
    krak,      // DCX + Oodle Kraken (Sekiro and ER default)
    edge,      // DCX + EDGE chunks of raw deflate (DeS)
    dcp_dflt,  // DCP + zlib
    dcp_edge,  // DCP + EDGE chunks
};
const char* compression_name(Compression c);

// The decompression-bomb guard: a DCX that declares more than this many output bytes is
// refused before anything is allocated. The largest known game file (the ER regulation) is
// 54 MB; 1 GiB leaves room for every real file.
inline constexpr uint64_t k_max_uncompressed = uint64_t(1) << 30;

struct Header {
    Compression compression = Compression::dflt;
    uint32_t unk04 = 0x10000;  // "version": 0x10000 (DS3, BB) or 0x11000 (Sekiro, ER)
    uint32_t unk10 = 0x44;
    uint32_t unk14 = 0x4C;
    uint8_t level = 9;
    uint8_t unk38 = 0;
    uint32_t uncompressed_size = 0;
    uint32_t compressed_size = 0;
    uint32_t payload_offset = 0;  // where the compressed bytes start
};

struct DecodeOptions {
    // Path of the game's Oodle library (oo2core_6_win64.dll / liboo2core*.so). When set, KRAK
    // payloads go through its OodleLZ_Decompress instead of drape's own decoder.
    std::string oodle_path;
    // Threads for block-parallel Kraken decoding; 0 = hardware concurrency, 1 = sequential.
    unsigned jobs = 1;
    // When false and no Oodle library is given, KRAK is refused with an error that says how to
    // provide the library (the behaviour without drape's own decoder).
    bool builtin_kraken = true;
    uint64_t max_uncompressed = k_max_uncompressed;
};

// True when the bytes start like a DCX or DCP container.
bool is_dcx(Bytes data);

Result<Header> read_header(Bytes data);

// Decompresses a DCX/DCP file. Checks the declared size against what decoding produced.
Result<std::vector<uint8_t>> decompress(Bytes data, const DecodeOptions& options = {}, Header* header_out = nullptr);

struct EncodeOptions {
    Compression compression = Compression::dflt;  // dflt or zstd
    uint32_t unk04 = 0x10000;
    uint8_t level = 9;   // zlib level for dflt (stored in the header); zstd uses its own level
    uint8_t unk38 = 0;
    int zstd_level = 19;
};
Result<std::vector<uint8_t>> compress(Bytes payload, const EncodeOptions& options = {});

// Raw zlib inflate of a whole stream into exactly `expected` bytes (used by DCX and binders).
Result<std::vector<uint8_t>> inflate_zlib(Bytes in, uint64_t expected, bool raw_deflate = false);

}  // namespace drape::dcx
