// Test support: writers of small DDS and TPF files for tests, fuzz seeds and benchmarks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace drape::test {

constexpr uint32_t fourcc_code(const char (&s)[5]) {
    return uint32_t(uint8_t(s[0])) | (uint32_t(uint8_t(s[1])) << 8) | (uint32_t(uint8_t(s[2])) << 16) |
           (uint32_t(uint8_t(s[3])) << 24);
}

struct DdsSpec {
    uint32_t width = 4, height = 4;
    uint32_t mips = 1;
    uint32_t depth = 0;        // header depth (volume textures also need caps2 0x200000)
    uint32_t pf_flags = 0x4;   // DDPF_FOURCC
    uint32_t fourcc = 0;       // 'DXT1'...; "DX10" is written when dxgi != 0
    uint32_t dxgi = 0;         // non-zero: DX10 header with this DXGI format
    uint32_t bit_count = 0;
    uint32_t masks[4] = {0, 0, 0, 0};  // r, g, b, a
    uint32_t caps2 = 0;
    uint32_t resource_dimension = 3;
    uint32_t misc_flag = 0;
    uint32_t array_size = 1;
};

// A DDS file: the 128-byte header (plus the DX10 header when spec.dxgi != 0), then `data`.
std::vector<uint8_t> make_dds(const DdsSpec& spec, const std::vector<uint8_t>& data);

struct TpfTextureSpec {
    std::string name;  // ASCII (written as UTF-16 or as single bytes per the encoding)
    uint8_t format = 0, type = 0, mipmaps = 1, flags1 = 0;
    std::vector<uint8_t> dds;
    bool float_struct = false;
    int32_t float_unk = 0;
    std::vector<float> floats;
};

// A PC TPF: header, entries, names, then the DDS files 16-byte aligned; the last file ends
// the TPF.
std::vector<uint8_t> make_tpf(const std::vector<TpfTextureSpec>& textures, uint8_t encoding = 1, uint8_t flag2 = 3);

// A little-endian bit writer for hand-built BC6H/BC7 blocks (LSB first).
struct BlockBits {
    uint8_t bytes[16] = {};
    uint32_t pos = 0;
    BlockBits& put(uint32_t value, uint32_t count) {
        for (uint32_t i = 0; i < count; ++i, ++pos) {
            if ((value >> i) & 1) bytes[pos / 8] |= uint8_t(1u << (pos % 8));
        }
        return *this;
    }
};

}  // namespace drape::test
