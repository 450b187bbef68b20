// drape: PNG encoding (drape's fast deflate, or libdeflate) and TPF texture export.
//
// PNG: 8-bit L, LA, RGB, RGBA and 16-bit of the same. Every row gets one PNG filter (by
// default none, or per row the one with the smallest sum of absolute values), then the image is
// deflated (PngOptions::deflate). The defaults are chosen for speed (bench/texture_bench.cpp): the
// textures are intermediate files that engines re-encode, and PNG encoding was the slowest
// step of a conversion.
//
// Float images (BC6H, R16G16B16A16_FLOAT) are written as a 16-bit PNG of the values clamped
// to [0, 1] (linear, v -> round(v * 65535)), so values above 1 are lost in the PNG; the full
// range also goes to a Radiance .hdr file beside it (RGBE, flat scanlines).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "drape/exporters/fast_deflate.h"
#include "drape/io/error.h"
#include "drape/tpf/bc.h"
#include "drape/tpf/tpf.h"

namespace drape::image {

// Row filter: one for every row, or `adaptive` (per row, the smallest sum of absolute values:
// about 5 x the filtering work, a few per cent smaller files).
enum class PngFilter : uint8_t { adaptive, none, sub, up, average, paeth };

// Which deflate writes the IDAT stream.
// - fast: drape's own encoder (fast_deflate.h: matches at the previous pixel and the previous
//   row only, one Huffman table per image): 3.0-4.1x the speed of libdeflate level 1 on
//   the corpus maps benchmarked, files 10-35 % larger (bench/texture_bench.cpp, tests/png_fast_test.cpp);
// - libdeflate: libdeflate at `level`.
enum class PngDeflate : uint8_t { fast, libdeflate };

struct PngOptions {
    PngDeflate deflate = PngDeflate::fast;
    int level = 1;                  // libdeflate level 0..12 (1 fastest, 12 smallest); PngDeflate::libdeflate only
    PngFilter filter = PngFilter::none;  // BC-decoded textures: as small as Up, 15 % faster
    bool srgb = false;              // write an sRGB chunk (perceptual intent)
    // encode_png(tpf::Image): an RGBA image whose alpha is 255 everywhere (BC1 colour maps)
    // is written as RGB: a quarter less to filter and deflate, the same pixels.
    bool drop_opaque_alpha = true;
    // Which vector code runs (the opacity test, RGBA -> RGB, the fast deflate's masks and
    // passes): every choice writes the same bytes; other than automatic for tests and benchmarks.
    FastDeflateCpu cpu = FastDeflateCpu::automatic;
};

// 8-bit samples: `pixels` holds width * height * channels bytes, rows top to bottom.
// channels: 1 (L), 2 (LA), 3 (RGB), 4 (RGBA).
Result<std::vector<uint8_t>> encode_png(const uint8_t* pixels, uint32_t width, uint32_t height, uint32_t channels,
                                        const PngOptions& options = {});
// 16-bit samples (native integers; written big-endian as PNG requires).
Result<std::vector<uint8_t>> encode_png16(const uint16_t* pixels, uint32_t width, uint32_t height, uint32_t channels,
                                          const PngOptions& options = {});
// A decoded texture: 8-bit images as they are (opaque RGBA as RGB, see drop_opaque_alpha);
// float images as 16-bit, clamped to [0, 1].
Result<std::vector<uint8_t>> encode_png(const tpf::Image& image, const PngOptions& options = {});

// A float image (3 or 4 channels; alpha dropped) as a Radiance RGBE .hdr file.
Result<std::vector<uint8_t>> encode_hdr(const tpf::Image& image);

struct ExportedTexture {
    std::string name;           // the TPF texture name (UTF-8)
    std::filesystem::path png;  // written PNG; empty if the texture failed
    std::filesystem::path hdr;  // written .hdr for float textures, else empty
    std::string file_name;      // png's file name inside the folder
    std::string format;         // pixel_format_name of the DDS
    uint32_t width = 0, height = 0;
    std::string error;          // why the texture was skipped (one line), else empty
};

// Decodes every texture's top mip (first face / layer / slice) and writes it into `folder`
// (created if missing) as `<safe name>.png`: names are flattened to one file name, made safe
// with sanitize_member_path/safe_join, and de-duplicated case-insensitively (`_2`, `_3`...).
// A texture that fails to parse or decode is reported in its entry and the others still go
// out; the result is an error only when the folder or a file cannot be written.
Result<std::vector<ExportedTexture>> export_tpf_textures(const tpf::Tpf& tpf, const std::filesystem::path& folder,
                                                        const PngOptions& options = {});

}  // namespace drape::image
