// drape: texture decoders: BC1-BC7 block compression and the uncompressed DDS formats.
//
// Output layouts (chosen so that Pillow's DDS decoder gives the same bytes; see
// tests/tpf_pillow.py):
// - BC1, BC2, BC3, BC7: RGBA8. A BC1 block with c0 <= c1 decodes index 3 to transparent black
//   (0,0,0,0). BC2/BC3 colour always uses the four-colour mode. Interpolated BC1-BC5 values use
//   truncating integer division on the 8-bit expanded endpoints (e.g. (2*c0 + c1) / 3), which
//   is within the D3D tolerance and is what Pillow does.
// - BC4: one channel (L8). BC5: RGB8 with red = first block, green = second, blue = 0.
// - BC4_SNORM / BC5_SNORM: the signed endpoints are offset by +128 and then decoded as the
//   unsigned formats (so -1.0 -> 0, 0.0 -> 128, +1.0 -> 255; blue of BC5_SNORM is 128, i.e.
//   0.0). This is Pillow's BC5S convention; -128 is not clamped to -127.
// - BC6H (UF16 and SF16): float RGB, the exact half-float values of the format specification
//   (interpolation with the +32 rounding term, then the 31/64 or 31/32 scale).
// - B8G8R8A8 / R8G8B8A8: RGBA8; B8G8R8X8 and 24-bit B8G8R8: RGB8; B5G6R5: RGB8; B5G5R5A1 and
//   B4G4R4A4: RGBA8 (n-bit channels widened by bit replication, 1-bit alpha to 0/255);
//   L8/R8: L8; L8A8: LA8; A8: RGBA8 (0,0,0,a), as D3D samples it;
//   R16G16B16A16_FLOAT and R32G32B32A32_FLOAT: float RGBA.
// - sRGB formats keep their stored (sRGB-encoded) values; `Dds::srgb` says which they are.
#pragma once

#include <cstdint>
#include <vector>

#include "drape/tpf/tpf.h"

namespace drape::tpf {

struct Image {
    uint32_t width = 0, height = 0;
    uint32_t channels = 0;     // 1 L, 2 LA, 3 RGB, 4 RGBA
    bool is_float = false;
    std::vector<uint8_t> u8;   // width * height * channels, rows top to bottom, when !is_float
    std::vector<float> f32;    // same layout, when is_float
};

// Channels and sample type of a format's decoded image (0 channels for unknown).
uint32_t decoded_channels(PixelFormat f);
bool decodes_to_float(PixelFormat f);

// One 4x4 block -> 16 pixels, row-major. `block` must hold 8 (BC1, BC4) or 16 bytes.
void decode_bc1_block(const uint8_t* block, uint8_t out_rgba[64]);
void decode_bc2_block(const uint8_t* block, uint8_t out_rgba[64]);
void decode_bc3_block(const uint8_t* block, uint8_t out_rgba[64]);
void decode_bc4_block(const uint8_t* block, uint8_t out_l[16], bool is_signed);
void decode_bc5_block(const uint8_t* block, uint8_t out_rgb[48], bool is_signed);
// Reserved BC6H modes decode to 0 in every channel (format specification).
void decode_bc6h_block(const uint8_t* block, float out_rgb[48], bool is_signed);
// The bit patterns of decode_bc6h_block's results as half floats (same order).
void decode_bc6h_block_half(const uint8_t* block, uint16_t out_rgb[48], bool is_signed);
// A block whose first byte is 0 (no mode) decodes to (0,0,0,0) (format specification).
void decode_bc7_block(const uint8_t* block, uint8_t out_rgba[64]);
// The same decode written field by field from the format specification (slower: a bit reader
// and per-pixel branches). Kept as the reference decode_bc7_block is tested against.
void decode_bc7_block_reference(const uint8_t* block, uint8_t out_rgba[64]);

float half_to_float(uint16_t h);

// The decode size cap: images above this many pixels are refused (64 Mpx = 8192 x 8192).
inline constexpr uint64_t k_max_decode_pixels = uint64_t(1) << 26;

// Decodes a width x height image stored in `format` at the start of `data` (extra bytes are
// ignored). Fails when `data` is too short, the format is unknown or the image is larger than
// max_pixels.
Result<Image> decode_pixels(PixelFormat format, Bytes data, uint32_t width, uint32_t height,
                            uint64_t max_pixels = k_max_decode_pixels);

// Decodes one surface of a parsed DDS: mip level `mip` of array layer / cube face `layer`,
// and for volume textures depth slice `slice` of that mip.
Result<Image> decode_surface(const Dds& dds, uint32_t mip = 0, uint32_t layer = 0, uint32_t slice = 0,
                             uint64_t max_pixels = k_max_decode_pixels);

// A float image to 8 bits per channel: clamp to [0, 1], multiply by 255 and truncate (the
// conversion Pillow applies to BC6H). Non-float images are returned unchanged.
Image to_unorm8_clamped(const Image& image);

}  // namespace drape::tpf
