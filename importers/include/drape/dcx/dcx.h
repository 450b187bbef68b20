// drape: DCX, the compressed single-file envelope of FromSoftware's games (docs/formats.md#dcx).
//
// Reads DFLT (zlib), ZSTD, KRAK (Oodle Kraken: drape's own decoder, or the game's Oodle
// library when one is given), EDGE (DeS) and the older DCP forms; writes DFLT and ZSTD.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
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
// Convenience form: returns a fresh std::vector, which the standard library zero-fills before
// the decoder overwrites it. Code that decodes many files (or large ones) should use the
// Buffer overload below, which costs nothing beyond the decoder itself.
Result<std::vector<uint8_t>> decompress(Bytes data, const DecodeOptions& options = {}, Header* header_out = nullptr);

// An output buffer that grows without zero-filling (every decoder overwrites all the bytes it
// reports) and keeps its allocation across calls, so one Buffer reused across files pays for
// memory and page faults once. An allocation of 4 MiB or more asks the system for huge pages
// (Linux: madvise MADV_HUGEPAGE), so its first touch faults once per 2 MiB (the whole buffer
// is meant to be written). Not copyable; movable.
class Buffer {
public:
    Buffer() = default;
    Buffer(Buffer&&) noexcept = default;
    Buffer& operator=(Buffer&&) noexcept = default;

    // Sets the size to n. Keeps the allocation when it holds n bytes (the first
    // min(old size, n) bytes are kept then); otherwise allocates anew, contents unspecified.
    // Bytes past the old size are uninitialised: callers overwrite them.
    void resize_uninitialized(size_t n);
    uint8_t* data() { return m_data.get(); }
    const uint8_t* data() const { return m_data.get(); }
    size_t size() const { return m_size; }
    size_t capacity() const { return m_capacity; }
    Bytes bytes() const { return {m_data.get(), m_size}; }
    std::span<uint8_t> span() { return {m_data.get(), m_size}; }
    std::vector<uint8_t> to_vector() const { return {m_data.get(), m_data.get() + m_size}; }
    // Frees the allocation.
    void release();

private:
    std::unique_ptr<uint8_t[]> m_data;
    size_t m_size = 0, m_capacity = 0;
};

// Decompresses a DCX/DCP file into `out` (resized to the declared size, reusing its memory).
// Returns a view of out's bytes (valid until `out` is next resized). Same checks and errors as
// the vector form; on failure out's contents are unspecified.
Result<Bytes> decompress(Bytes data, Buffer& out, const DecodeOptions& options = {}, Header* header_out = nullptr);

// Decompresses only the output bytes [offset, offset + size) (which must lie within the
// declared size) into `out` (resized to `size`). For KRAK it decodes only the 256 KiB blocks
// that hold the range (every block of the games' files restarts the LZ window; a block that
// does not is decoded from the last one that does), so reading a binder's header or one member
// of a 77 MB binder costs a few blocks, not the whole file. The other compressions decode the
// stream up to offset + size and stop there. The checks of the whole-file form that need the
// whole stream (exact input consumption, bytes past the range) are not made.
Result<Bytes> decompress_range(Bytes data, uint64_t offset, uint64_t size, Buffer& out,
                               const DecodeOptions& options = {}, Header* header_out = nullptr);

struct EncodeOptions {
    Compression compression = Compression::dflt;  // dflt or zstd
    uint32_t unk04 = 0x10000;
    uint8_t level = 9;   // zlib level for dflt (stored in the header); zstd uses its own level
    uint8_t unk38 = 0;
    int zstd_level = 19;
};
Result<std::vector<uint8_t>> compress(Bytes payload, const EncodeOptions& options = {});

// Raw zlib inflate of a whole stream into exactly `expected` bytes (used by DCX and binders).
// Decodes through libdeflate (about 2-3x zlib's speed); a stream libdeflate refuses is run
// through zlib again for the precise error message. An `expected` size past the decompression-bomb
// guard (k_max_uncompressed, or 4096 times the stream plus 64 KiB) is refused before allocating.
Result<std::vector<uint8_t>> inflate_zlib(Bytes in, uint64_t expected, bool raw_deflate = false);
// The same into caller memory of exactly `expected` bytes.
Result<void> inflate_zlib_into(Bytes in, std::span<uint8_t> out, bool raw_deflate = false);

}  // namespace drape::dcx
