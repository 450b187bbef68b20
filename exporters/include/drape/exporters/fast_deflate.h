// drape: a fast single-pass zlib (RFC 1950/1951) encoder for image scanlines.
//
// Why: PNG encoding was the slowest step of a conversion, and libdeflate's fastest level
// (about 45 Mpx/s per core on a 1024^2 RGB texture) was the limit. Decoded BC textures repeat
// exactly along a row (a 4x4 block holds at most four colours) and from one row to the next,
// so nearly all the gain of a general LZ77 search comes from two fixed distances: the previous
// pixel and the same pixel of the previous row. This encoder looks only there.
//
// How: one pass over the bytes records matches at the given distances (length 3..258; for
// PNG rows of RGB and RGBA pixels the longer of the two candidates, found on per-row bit masks
// of equal pixels (one bit per pixel and candidate, built 8 or 16 pixels per vector compare),
// each decision a run of literal pixels and the match after it, the two halves of the image
// walked at once; for L and LA rows the same on bit masks of equal bytes, one decision per
// byte; otherwise the first candidate that matches three bytes, extended as far as it goes)
// and literal runs, counting symbol frequencies; one dynamic Huffman block is built from that histogram
// (lengths limited to 15 bits), whose exact bit size is known before any byte is written; the
// second pass writes the bits. When stored blocks would be smaller (noise), they are written
// instead, so the output is never more than the stored size plus the headers.
//
// The output is a complete zlib stream (header 78 01, one deflate stream, Adler-32) that any
// conforming inflater reads; tests decode it with zlib and libdeflate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace drape::image {

struct FastDeflateDistances {
    // Up to two match distances in bytes, 1..32768 (0 = unused), tried in this order at every
    // position. PNG: bytes per pixel, and bytes per filtered row (row bytes + the filter byte).
    uint32_t first = 0;
    uint32_t second = 0;
};

// Appends the zlib stream of data[0, size) to out (matches byte by byte). Never fails
// (allocation aside).
void fast_zlib_compress(const uint8_t* data, size_t size, FastDeflateDistances distances, std::vector<uint8_t>& out);

// Which code path RGB and RGBA rows take: the pixel-mask builders (AVX2, SSSE3 or portable
// C++) and the two passes (compiled for AVX2 CPUs with BMI1/2, or for baseline x86-64). Every
// path writes the same bytes (tests/png_fast_test.cpp compares them); `automatic` takes the
// fastest one this CPU has. The other values are for tests and benchmarks.
enum class FastDeflateCpu : uint8_t { automatic, portable, ssse3, avx2 };

// Whether this build and CPU can run `cpu` (automatic and portable always can).
bool fast_deflate_cpu_supported(FastDeflateCpu cpu);

// PNG scanlines: `rows` rows of a filter byte and row_bytes bytes. Matches at the previous
// pixel and the previous row, whole pixels only (pixels of 3 bytes or more; L and LA byte by
// byte) and never across a row's end; the filter bytes are literals. `cpu` must be supported
// (fast_deflate_cpu_supported); an unsupported value runs the portable path.
void fast_zlib_compress_png(const uint8_t* filtered, size_t rows, size_t row_bytes, uint32_t bytes_per_pixel,
                            std::vector<uint8_t>& out, FastDeflateCpu cpu = FastDeflateCpu::automatic);

}  // namespace drape::image
