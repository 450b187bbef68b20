// drape: TPF texture packs and the DDS files inside them (docs/formats.md#tpf-and-dds).
//
// A PC TPF is a small table of textures whose data are complete `.dds` files. `read_tpf`
// reads the table; `parse_dds` reads one DDS header (with its DX10 extension) and locates
// every surface (array layer or cube face × mip level); `decode_surface` (bc.h) turns one
// surface into pixels.
//
// Views: `Texture::dds` and `Dds::bytes` point into the buffer given to the reader, which
// must outlive them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "drape/io/reader.h"

namespace drape::tpf {

// Header byte 0x0C (SoulsFormats TPF.TPFPlatform).
enum class Platform : uint8_t { pc = 0, xbox360 = 1, ps3 = 2, ps4 = 4, xbox_one = 5 };

// Entry byte 0x09 (SoulsFormats TexType).
enum class TextureType : uint8_t { texture = 0, cubemap = 1, volume = 2 };

// The optional per-texture float struct (SoulsFormats FloatStruct): {i32 unk, i32 byteLength,
// f32[byteLength / 4]}.
struct FloatStruct {
    int32_t unk = 0;
    std::vector<float> values;
};

struct Texture {
    std::string name;         // UTF-8 (decoded from UTF-16 or Shift-JIS per the encoding byte)
    uint32_t name_offset = 0;
    uint32_t data_offset = 0;  // absolute offset of the DDS in the TPF
    uint8_t format = 0;        // the TPF format byte as stored; informational on PC
    uint8_t type = 0;          // TextureType as stored (0 texture, 1 cubemap, 2 volume)
    uint8_t mipmaps = 0;
    uint8_t flags1 = 0;        // 0-3; 2 and 3 mean DCP_EDGE-compressed data (consoles only)
    bool has_float_struct = false;
    FloatStruct floats;
    Bytes dds;                 // the complete .dds file (view into the TPF bytes)
};

struct Tpf {
    uint32_t data_size = 0;  // header 0x04: the total size of the texture data
    uint8_t platform = 0;    // Platform as stored
    uint8_t flag2 = 0;
    uint8_t encoding = 0;    // 1 = UTF-16 names, 0 or 2 = Shift-JIS
    std::vector<Texture> textures;
};

// Sanity caps (not format limits).
inline constexpr uint32_t k_max_textures = 1u << 16;
inline constexpr uint32_t k_max_name_units = 1024;

// Reads a PC TPF (little-endian). Console TPFs (headerless swizzled data) are refused with an
// error naming the platform. Every texture's data range and name are checked.
Result<Tpf> read_tpf(Bytes data);
// True when the bytes start like a TPF ("TPF\0").
bool is_tpf(Bytes data);

// ---------------------------------------------------------------------------------------
// DDS

// The pixel encodings drape decodes (bc.h). `unknown` formats still parse (header and
// surfaces are located when the block size is known) but do not decode.
enum class PixelFormat : uint8_t {
    unknown,
    bc1,        // DXT1 / BC1_UNORM(_SRGB): 8 B per 4x4 block
    bc2,        // DXT2/DXT3 / BC2
    bc3,        // DXT4/DXT5 / BC3
    bc4,        // ATI1 / BC4U / BC4_UNORM
    bc4s,       // BC4S / BC4_SNORM
    bc5,        // ATI2 / BC5U / BC5_UNORM
    bc5s,       // BC5S / BC5_SNORM
    bc6h_uf16,  // BC6H_UF16
    bc6h_sf16,  // BC6H_SF16
    bc7,        // BC7_UNORM(_SRGB)
    rgba8,      // R8G8B8A8 (DXGI 28/29, or legacy masks in that order)
    bgra8,      // B8G8R8A8 (DXGI 87/91, legacy 32-bit ARGB masks)
    bgrx8,      // B8G8R8X8 (DXGI 88/93, legacy 32-bit XRGB masks)
    bgr8,       // legacy 24-bit RGB (bytes B, G, R)
    b5g5r5a1,   // DXGI 86, legacy A1R5G5B5
    b5g6r5,     // DXGI 85, legacy R5G6B5
    b4g4r4a4,   // DXGI 115, legacy A4R4G4B4
    r8,         // DXGI 61 / legacy luminance L8
    a8,         // DXGI 65 / legacy alpha-only A8
    l8a8,       // legacy luminance+alpha L8A8 (two bytes: L, A)
    rgba16f,    // R16G16B16A16_FLOAT (DXGI 10, D3DFMT 113)
    rgba32f,    // R32G32B32A32_FLOAT (DXGI 2, D3DFMT 116)
};
const char* pixel_format_name(PixelFormat f);
// True for the 4x4 block-compressed formats.
bool is_block_compressed(PixelFormat f);
// Bytes per 4x4 block (block formats) or per pixel (others); 0 for unknown.
uint32_t format_unit_size(PixelFormat f);

struct DdsPixelFormat {  // DDS_PIXELFORMAT
    uint32_t flags = 0;
    uint32_t fourcc = 0;  // little-endian chars, e.g. 'DXT1' = 0x31545844
    uint32_t rgb_bit_count = 0;
    uint32_t r_mask = 0, g_mask = 0, b_mask = 0, a_mask = 0;
};

struct Dx10Header {  // DDS_HEADER_DXT10
    uint32_t dxgi_format = 0;
    uint32_t resource_dimension = 0;  // 2 = 1D, 3 = 2D, 4 = 3D
    uint32_t misc_flag = 0;           // 0x4 = TEXTURECUBE
    uint32_t array_size = 0;
    uint32_t misc_flags2 = 0;
};

// One stored image: an array layer (or cube face) at one mip level. Volume mips hold `depth`
// slices back to back.
struct Surface {
    uint32_t layer = 0;  // array element × 6 + face for cube arrays; face for cubes
    uint32_t mip = 0;
    uint32_t width = 0, height = 0, depth = 1;
    uint64_t offset = 0;  // from the start of the DDS file
    uint64_t size = 0;
};

struct Dds {
    uint32_t flags = 0;
    uint32_t height = 0, width = 0;
    uint32_t pitch_or_linear_size = 0;
    uint32_t depth = 1;       // 1 unless a volume texture
    uint32_t mip_count = 1;   // as used (a stored 0 means 1)
    DdsPixelFormat pixel_format;
    uint32_t caps = 0, caps2 = 0;
    bool has_dx10 = false;
    Dx10Header dx10;
    PixelFormat format = PixelFormat::unknown;
    bool srgb = false;         // an _SRGB DXGI format
    bool cubemap = false;
    uint32_t layers = 1;       // faces × array size
    uint64_t data_offset = 0;  // 128, or 148 with a DX10 header
    std::vector<Surface> surfaces;  // layer-major: layer 0 mips 0..n-1, then layer 1, ...
    Bytes bytes;               // the whole DDS file (view)

    // The surface for (mip, layer), or nullptr.
    const Surface* surface(uint32_t mip, uint32_t layer = 0) const;
};

inline constexpr uint32_t k_dds_magic = 0x20534444;  // "DDS "
inline constexpr uint32_t k_max_dds_dimension = 1u << 16;
inline constexpr uint32_t k_max_dds_layers = 6u * 2048u;

// Parses a DDS file: header, DX10 header, format, and every surface's offset and size. Fails
// when a surface would extend past the end of the data or a field is out of range.
Result<Dds> parse_dds(Bytes data);

}  // namespace drape::tpf
