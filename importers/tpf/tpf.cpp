// TPF (docs/formats.md#tpf-and-dds) and DDS header reading.
#include "drape/tpf/tpf.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace drape::tpf {

namespace {

constexpr uint32_t fourcc(char a, char b, char c, char d) {
    return uint32_t(uint8_t(a)) | (uint32_t(uint8_t(b)) << 8) | (uint32_t(uint8_t(c)) << 16) |
           (uint32_t(uint8_t(d)) << 24);
}

const char* platform_name(uint8_t p) {
    switch (p) {
        case 1: return "Xbox 360";
        case 2: return "PS3";
        case 4: return "PS4";
        case 5: return "Xbox One";
        default: return "unknown";
    }
}

}  // namespace

// ---------------------------------------------------------------------------------------
// TPF

bool is_tpf(Bytes data) { return data.size() >= 4 && std::memcmp(data.data(), "TPF\0", 4) == 0; }

Result<Tpf> read_tpf(Bytes data) {
    ByteReader r(data);
    Tpf tpf;
    r.expect_magic(std::string_view("TPF\0", 4), "tpf.header.magic");
    tpf.data_size = r.u32("tpf.header.data_size");
    int32_t count = r.i32("tpf.header.texture_count");
    tpf.platform = r.u8("tpf.header.platform");
    tpf.flag2 = r.u8("tpf.header.flag2");
    tpf.encoding = r.u8("tpf.header.encoding");
    r.u8("tpf.header.pad");
    if (r.failed()) return r.error();
    if (count < 0 || uint32_t(count) > k_max_textures) {
        r.fail_at(0x08, "tpf.header.texture_count",
                  std::to_string(count) + " is out of range 0.." + std::to_string(k_max_textures));
        return r.error();
    }
    if (tpf.platform != uint8_t(Platform::pc)) {
        r.fail_at(0x0C, "tpf.header.platform",
                  "console TPF (platform " + std::to_string(tpf.platform) + ", " + platform_name(tpf.platform) +
                      ") is not supported: only PC TPFs hold complete DDS files");
        return r.error();
    }
    if (tpf.encoding > 2) {
        r.fail_at(0x0E, "tpf.header.encoding",
                  "unknown name encoding " + std::to_string(tpf.encoding) + " (1 = UTF-16, 0 or 2 = Shift-JIS)");
        return r.error();
    }
    // Each PC entry is at least 0x14 bytes.
    if (!r.check_count(uint32_t(count), 0x14, "tpf.textures")) return r.error();
    tpf.textures.reserve(size_t(count));
    for (int32_t i = 0; i < count; ++i) {
        Texture t;
        const size_t entry_pos = r.pos();
        t.data_offset = r.u32("tpf.texture.data_offset");
        int32_t data_size = r.i32("tpf.texture.data_size");
        t.format = r.u8("tpf.texture.format");
        t.type = r.u8("tpf.texture.type");
        t.mipmaps = r.u8("tpf.texture.mipmaps");
        t.flags1 = r.u8("tpf.texture.flags1");
        t.name_offset = r.u32("tpf.texture.name_offset");
        int32_t has_floats = r.i32("tpf.texture.has_float_struct");
        if (r.failed()) return r.error();
        if (data_size < 0) {
            r.fail_at(entry_pos + 4, "tpf.texture.data_size", "negative size " + std::to_string(data_size));
            return r.error();
        }
        if (t.flags1 == 2 || t.flags1 == 3) {
            r.fail_at(entry_pos + 0x0B, "tpf.texture.flags1",
                      "DCP_EDGE-compressed texture data (flags1 " + std::to_string(t.flags1) +
                          ") is not supported on PC");
            return r.error();
        }
        if (has_floats != 0 && has_floats != 1) {
            r.fail_at(entry_pos + 0x10, "tpf.texture.has_float_struct",
                      "expected 0 or 1, found " + std::to_string(has_floats));
            return r.error();
        }
        if (has_floats) {
            t.has_float_struct = true;
            t.floats.unk = r.i32("tpf.texture.floats.unk");
            int32_t byte_length = r.i32("tpf.texture.floats.byte_length");
            if (r.failed()) return r.error();
            if (byte_length < 0 || byte_length % 4 != 0) {
                r.fail_at(r.pos() - 4, "tpf.texture.floats.byte_length",
                          std::to_string(byte_length) + " is not a non-negative multiple of 4");
                return r.error();
            }
            if (!r.check_count(uint32_t(byte_length) / 4, 4, "tpf.texture.floats.values")) return r.error();
            t.floats.values.resize(uint32_t(byte_length) / 4);
            for (float& f : t.floats.values) f = r.f32("tpf.texture.floats.values");
        }
        ByteReader dds = r.slice(t.data_offset, uint32_t(data_size), "tpf.texture.data");
        if (r.failed()) return r.error();
        t.dds = dds.bytes();
        bool ok = tpf.encoding == 1
                      ? r.read_utf16z_at(t.name_offset, t.name, "tpf.texture.name", k_max_name_units)
                      : r.read_sjisz_at(t.name_offset, t.name, "tpf.texture.name", k_max_name_units);
        if (!ok) return r.error();
        tpf.textures.push_back(std::move(t));
    }
    return tpf;
}

// ---------------------------------------------------------------------------------------
// DDS

const char* pixel_format_name(PixelFormat f) {
    switch (f) {
        case PixelFormat::unknown: return "unknown";
        case PixelFormat::bc1: return "BC1";
        case PixelFormat::bc2: return "BC2";
        case PixelFormat::bc3: return "BC3";
        case PixelFormat::bc4: return "BC4";
        case PixelFormat::bc4s: return "BC4_SNORM";
        case PixelFormat::bc5: return "BC5";
        case PixelFormat::bc5s: return "BC5_SNORM";
        case PixelFormat::bc6h_uf16: return "BC6H_UF16";
        case PixelFormat::bc6h_sf16: return "BC6H_SF16";
        case PixelFormat::bc7: return "BC7";
        case PixelFormat::rgba8: return "R8G8B8A8";
        case PixelFormat::bgra8: return "B8G8R8A8";
        case PixelFormat::bgrx8: return "B8G8R8X8";
        case PixelFormat::bgr8: return "B8G8R8";
        case PixelFormat::b5g5r5a1: return "B5G5R5A1";
        case PixelFormat::b5g6r5: return "B5G6R5";
        case PixelFormat::b4g4r4a4: return "B4G4R4A4";
        case PixelFormat::r8: return "R8";
        case PixelFormat::a8: return "A8";
        case PixelFormat::l8a8: return "L8A8";
        case PixelFormat::rgba16f: return "R16G16B16A16_FLOAT";
        case PixelFormat::rgba32f: return "R32G32B32A32_FLOAT";
    }
    return "unknown";
}

bool is_block_compressed(PixelFormat f) {
    switch (f) {
        case PixelFormat::bc1:
        case PixelFormat::bc2:
        case PixelFormat::bc3:
        case PixelFormat::bc4:
        case PixelFormat::bc4s:
        case PixelFormat::bc5:
        case PixelFormat::bc5s:
        case PixelFormat::bc6h_uf16:
        case PixelFormat::bc6h_sf16:
        case PixelFormat::bc7: return true;
        default: return false;
    }
}

uint32_t format_unit_size(PixelFormat f) {
    switch (f) {
        case PixelFormat::bc1:
        case PixelFormat::bc4:
        case PixelFormat::bc4s: return 8;
        case PixelFormat::bc2:
        case PixelFormat::bc3:
        case PixelFormat::bc5:
        case PixelFormat::bc5s:
        case PixelFormat::bc6h_uf16:
        case PixelFormat::bc6h_sf16:
        case PixelFormat::bc7: return 16;
        case PixelFormat::rgba8:
        case PixelFormat::bgra8:
        case PixelFormat::bgrx8: return 4;
        case PixelFormat::bgr8: return 3;
        case PixelFormat::b5g5r5a1:
        case PixelFormat::b5g6r5:
        case PixelFormat::b4g4r4a4:
        case PixelFormat::l8a8: return 2;
        case PixelFormat::r8:
        case PixelFormat::a8: return 1;
        case PixelFormat::rgba16f: return 8;
        case PixelFormat::rgba32f: return 16;
        case PixelFormat::unknown: return 0;
    }
    return 0;
}

const Surface* Dds::surface(uint32_t mip, uint32_t layer) const {
    if (mip >= mip_count || layer >= layers) return nullptr;
    size_t i = size_t(layer) * mip_count + mip;
    return i < surfaces.size() ? &surfaces[i] : nullptr;
}

namespace {

// DDS_PIXELFORMAT flags
constexpr uint32_t k_ddpf_alphapixels = 0x1;
constexpr uint32_t k_ddpf_alpha = 0x2;
constexpr uint32_t k_ddpf_fourcc = 0x4;
constexpr uint32_t k_ddpf_rgb = 0x40;
constexpr uint32_t k_ddpf_luminance = 0x20000;
// caps2
constexpr uint32_t k_caps2_cubemap = 0x200;
constexpr uint32_t k_caps2_cubemap_faces = 0xFC00;
constexpr uint32_t k_caps2_volume = 0x200000;
// DX10
constexpr uint32_t k_dx10_misc_texturecube = 0x4;
constexpr uint32_t k_dx10_dimension_3d = 4;

struct DxgiInfo {
    PixelFormat format;
    bool srgb;
};

DxgiInfo from_dxgi(uint32_t dxgi) {
    switch (dxgi) {
        case 2: return {PixelFormat::rgba32f, false};
        case 10: return {PixelFormat::rgba16f, false};
        case 27: case 28: return {PixelFormat::rgba8, false};
        case 29: return {PixelFormat::rgba8, true};
        case 61: return {PixelFormat::r8, false};
        case 65: return {PixelFormat::a8, false};
        case 70: case 71: return {PixelFormat::bc1, false};
        case 72: return {PixelFormat::bc1, true};
        case 73: case 74: return {PixelFormat::bc2, false};
        case 75: return {PixelFormat::bc2, true};
        case 76: case 77: return {PixelFormat::bc3, false};
        case 78: return {PixelFormat::bc3, true};
        case 79: case 80: return {PixelFormat::bc4, false};
        case 81: return {PixelFormat::bc4s, false};
        case 82: case 83: return {PixelFormat::bc5, false};
        case 84: return {PixelFormat::bc5s, false};
        case 85: return {PixelFormat::b5g6r5, false};
        case 86: return {PixelFormat::b5g5r5a1, false};
        case 87: case 90: return {PixelFormat::bgra8, false};
        case 91: return {PixelFormat::bgra8, true};
        case 88: case 92: return {PixelFormat::bgrx8, false};
        case 93: return {PixelFormat::bgrx8, true};
        case 94: case 95: return {PixelFormat::bc6h_uf16, false};
        case 96: return {PixelFormat::bc6h_sf16, false};
        case 97: case 98: return {PixelFormat::bc7, false};
        case 99: return {PixelFormat::bc7, true};
        case 115: return {PixelFormat::b4g4r4a4, false};
        default: return {PixelFormat::unknown, false};
    }
}

PixelFormat from_fourcc(uint32_t cc) {
    switch (cc) {
        case fourcc('D', 'X', 'T', '1'): return PixelFormat::bc1;
        case fourcc('D', 'X', 'T', '2'):
        case fourcc('D', 'X', 'T', '3'): return PixelFormat::bc2;
        case fourcc('D', 'X', 'T', '4'):
        case fourcc('D', 'X', 'T', '5'): return PixelFormat::bc3;
        case fourcc('A', 'T', 'I', '1'):
        case fourcc('B', 'C', '4', 'U'): return PixelFormat::bc4;
        case fourcc('B', 'C', '4', 'S'): return PixelFormat::bc4s;
        case fourcc('A', 'T', 'I', '2'):
        case fourcc('B', 'C', '5', 'U'): return PixelFormat::bc5;
        case fourcc('B', 'C', '5', 'S'): return PixelFormat::bc5s;
        case 113: return PixelFormat::rgba16f;  // D3DFMT_A16B16G16R16F
        case 116: return PixelFormat::rgba32f;  // D3DFMT_A32B32G32R32F
        default: return PixelFormat::unknown;
    }
}

PixelFormat from_masks(const DdsPixelFormat& pf) {
    const bool alpha = (pf.flags & k_ddpf_alphapixels) != 0;
    const uint32_t a = alpha ? pf.a_mask : 0;
    if (pf.flags & k_ddpf_rgb) {
        switch (pf.rgb_bit_count) {
            case 32:
                if (pf.r_mask == 0xFF && pf.g_mask == 0xFF00 && pf.b_mask == 0xFF0000 && a == 0xFF000000)
                    return PixelFormat::rgba8;
                if (pf.r_mask == 0xFF0000 && pf.g_mask == 0xFF00 && pf.b_mask == 0xFF)
                    return a == 0xFF000000 ? PixelFormat::bgra8 : a == 0 ? PixelFormat::bgrx8 : PixelFormat::unknown;
                return PixelFormat::unknown;
            case 24:
                if (pf.r_mask == 0xFF0000 && pf.g_mask == 0xFF00 && pf.b_mask == 0xFF) return PixelFormat::bgr8;
                return PixelFormat::unknown;
            case 16:
                if (pf.r_mask == 0x7C00 && pf.g_mask == 0x3E0 && pf.b_mask == 0x1F && a == 0x8000)
                    return PixelFormat::b5g5r5a1;
                if (pf.r_mask == 0xF800 && pf.g_mask == 0x7E0 && pf.b_mask == 0x1F && a == 0) return PixelFormat::b5g6r5;
                if (pf.r_mask == 0xF00 && pf.g_mask == 0xF0 && pf.b_mask == 0xF && a == 0xF000)
                    return PixelFormat::b4g4r4a4;
                return PixelFormat::unknown;
            default: return PixelFormat::unknown;
        }
    }
    if (pf.flags & k_ddpf_luminance) {
        if (pf.rgb_bit_count == 8 && pf.r_mask == 0xFF && !alpha) return PixelFormat::r8;
        if (pf.rgb_bit_count == 16 && pf.r_mask == 0xFF && a == 0xFF00) return PixelFormat::l8a8;
        return PixelFormat::unknown;
    }
    if ((pf.flags & k_ddpf_alpha) && pf.rgb_bit_count == 8 && pf.a_mask == 0xFF) return PixelFormat::a8;
    return PixelFormat::unknown;
}

std::string fourcc_text(uint32_t cc) {
    std::string s;
    for (int i = 0; i < 4; ++i) {
        char c = char((cc >> (8 * i)) & 0xFF);
        if (c < 0x20 || c > 0x7E) return hex(cc);
        s += c;
    }
    return "\"" + s + "\"";
}

}  // namespace

Result<Dds> parse_dds(Bytes data) {
    ByteReader r(data);
    Dds d;
    d.bytes = data;
    r.expect_magic("DDS ", "dds.magic");
    r.expect<uint32_t>(124, "dds.header.size");
    d.flags = r.u32("dds.header.flags");
    d.height = r.u32("dds.header.height");
    d.width = r.u32("dds.header.width");
    d.pitch_or_linear_size = r.u32("dds.header.pitch");
    uint32_t depth = r.u32("dds.header.depth");
    uint32_t mips = r.u32("dds.header.mip_count");
    r.skip(11 * 4, "dds.header.reserved1");
    r.expect<uint32_t>(32, "dds.pixel_format.size");
    d.pixel_format.flags = r.u32("dds.pixel_format.flags");
    d.pixel_format.fourcc = r.u32("dds.pixel_format.fourcc");
    d.pixel_format.rgb_bit_count = r.u32("dds.pixel_format.rgb_bit_count");
    d.pixel_format.r_mask = r.u32("dds.pixel_format.r_mask");
    d.pixel_format.g_mask = r.u32("dds.pixel_format.g_mask");
    d.pixel_format.b_mask = r.u32("dds.pixel_format.b_mask");
    d.pixel_format.a_mask = r.u32("dds.pixel_format.a_mask");
    d.caps = r.u32("dds.header.caps");
    d.caps2 = r.u32("dds.header.caps2");
    r.skip(3 * 4, "dds.header.caps3_4_reserved2");
    if (r.failed()) return r.error();

    bool volume = (d.caps2 & k_caps2_volume) != 0;
    uint32_t array_size = 1;
    uint32_t faces = 1;
    if ((d.pixel_format.flags & k_ddpf_fourcc) && d.pixel_format.fourcc == fourcc('D', 'X', '1', '0')) {
        d.has_dx10 = true;
        d.dx10.dxgi_format = r.u32("dds.dx10.dxgi_format");
        d.dx10.resource_dimension = r.u32("dds.dx10.resource_dimension");
        d.dx10.misc_flag = r.u32("dds.dx10.misc_flag");
        d.dx10.array_size = r.u32("dds.dx10.array_size");
        d.dx10.misc_flags2 = r.u32("dds.dx10.misc_flags2");
        if (r.failed()) return r.error();
        DxgiInfo info = from_dxgi(d.dx10.dxgi_format);
        d.format = info.format;
        d.srgb = info.srgb;
        if (d.format == PixelFormat::unknown) {
            r.fail_at(0x80, "dds.dx10.dxgi_format",
                      "unsupported DXGI format " + std::to_string(d.dx10.dxgi_format));
            return r.error();
        }
        if (d.dx10.array_size == 0 || d.dx10.array_size > k_max_dds_layers) {
            r.fail_at(0x8C, "dds.dx10.array_size",
                      std::to_string(d.dx10.array_size) + " is out of range 1.." + std::to_string(k_max_dds_layers));
            return r.error();
        }
        array_size = d.dx10.array_size;
        if (d.dx10.misc_flag & k_dx10_misc_texturecube) faces = 6;
        volume = d.dx10.resource_dimension == k_dx10_dimension_3d;
    } else {
        d.format = (d.pixel_format.flags & k_ddpf_fourcc) ? from_fourcc(d.pixel_format.fourcc) : from_masks(d.pixel_format);
        if (d.format == PixelFormat::unknown) {
            if (d.pixel_format.flags & k_ddpf_fourcc) {
                r.fail_at(0x54, "dds.pixel_format.fourcc",
                          "unsupported FourCC " + fourcc_text(d.pixel_format.fourcc));
            } else {
                r.fail_at(0x50, "dds.pixel_format.flags",
                          "unsupported pixel format: flags " + hex(d.pixel_format.flags) + ", " +
                              std::to_string(d.pixel_format.rgb_bit_count) + " bits, masks " +
                              hex(d.pixel_format.r_mask) + "/" + hex(d.pixel_format.g_mask) + "/" +
                              hex(d.pixel_format.b_mask) + "/" + hex(d.pixel_format.a_mask));
            }
            return r.error();
        }
        if (d.caps2 & k_caps2_cubemap) {
            faces = uint32_t(std::popcount(d.caps2 & k_caps2_cubemap_faces));
            if (faces == 0) faces = 6;  // old writers set only the cubemap bit
        }
    }
    d.data_offset = r.pos();
    d.cubemap = faces == 6 || (d.caps2 & k_caps2_cubemap) != 0;

    if (d.width == 0 || d.height == 0 || d.width > k_max_dds_dimension || d.height > k_max_dds_dimension) {
        const bool bad_width = d.width == 0 || d.width > k_max_dds_dimension;
        r.fail_at(bad_width ? 0x10 : 0x0C, bad_width ? "dds.header.width" : "dds.header.height",
                  std::to_string(bad_width ? d.width : d.height) + " px is out of range 1.." +
                      std::to_string(k_max_dds_dimension));
        return r.error();
    }
    if (volume) {
        if (depth == 0 || depth > k_max_dds_dimension) {
            r.fail_at(0x18, "dds.header.depth",
                      std::to_string(depth) + " is out of range 1.." + std::to_string(k_max_dds_dimension));
            return r.error();
        }
        d.depth = depth;
    } else {
        d.depth = 1;
    }
    uint32_t largest = std::max({d.width, d.height, d.depth});
    uint32_t max_mips = uint32_t(std::bit_width(largest));  // floor(log2) + 1
    d.mip_count = mips == 0 ? 1 : mips;
    if (d.mip_count > max_mips) {
        r.fail_at(0x1C, "dds.header.mip_count",
                  std::to_string(mips) + " mips exceed the " + std::to_string(max_mips) + " a " +
                      std::to_string(largest) + " px texture can have");
        return r.error();
    }
    uint64_t layers = uint64_t(array_size) * faces;
    if (layers > k_max_dds_layers) {
        r.fail_at(0x8C, "dds.dx10.array_size", std::to_string(layers) + " layers exceed " + std::to_string(k_max_dds_layers));
        return r.error();
    }
    d.layers = uint32_t(layers);

    // Every surface is at least one byte; bound the table by what remains before allocating.
    if (!r.check_count(layers * d.mip_count, 1, "dds.surfaces")) return r.error();
    const uint32_t unit = format_unit_size(d.format);
    const bool block = is_block_compressed(d.format);
    d.surfaces.reserve(size_t(layers * d.mip_count));
    uint64_t offset = d.data_offset;
    for (uint32_t layer = 0; layer < d.layers; ++layer) {
        for (uint32_t mip = 0; mip < d.mip_count; ++mip) {
            Surface s;
            s.layer = layer;
            s.mip = mip;
            s.width = std::max(1u, d.width >> mip);
            s.height = std::max(1u, d.height >> mip);
            s.depth = std::max(1u, d.depth >> mip);
            uint64_t w = block ? (uint64_t(s.width) + 3) / 4 : s.width;
            uint64_t h = block ? (uint64_t(s.height) + 3) / 4 : s.height;
            s.size = w * h * unit * s.depth;  // <= 2^16 * 2^16 * 16 * 2^16: no overflow
            s.offset = offset;
            if (s.size > data.size() || offset > data.size() - s.size) {
                r.fail_at(offset <= data.size() ? size_t(offset) : data.size(), "dds.surfaces",
                          "layer " + std::to_string(layer) + " mip " + std::to_string(mip) + " (" +
                              std::to_string(s.width) + " x " + std::to_string(s.height) + " " +
                              pixel_format_name(d.format) + ") needs " + std::to_string(s.size) + " B at " +
                              hex(offset) + ", the file has " + std::to_string(data.size()) + " B");
                return r.error();
            }
            offset += s.size;
            d.surfaces.push_back(s);
        }
    }
    return d;
}

}  // namespace drape::tpf
