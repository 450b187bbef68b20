#include "tpf_fixture.h"

#include <cstring>

namespace drape::test {

namespace {
void put32(std::vector<uint8_t>& out, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) out[at + i] = uint8_t(v >> (8 * i));
}
void push32(std::vector<uint8_t>& out, uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
}  // namespace

std::vector<uint8_t> make_dds(const DdsSpec& s, const std::vector<uint8_t>& data) {
    std::vector<uint8_t> out(128, 0);
    std::memcpy(out.data(), "DDS ", 4);
    put32(out, 0x04, 124);
    put32(out, 0x08, 0x1007 | (s.mips > 1 ? 0x20000u : 0u) | (s.depth ? 0x800000u : 0u));
    put32(out, 0x0C, s.height);
    put32(out, 0x10, s.width);
    put32(out, 0x18, s.depth);
    put32(out, 0x1C, s.mips);
    put32(out, 0x4C, 32);
    put32(out, 0x50, s.dxgi ? 0x4u : s.pf_flags);
    put32(out, 0x54, s.dxgi ? fourcc_code("DX10") : s.fourcc);
    put32(out, 0x58, s.bit_count);
    for (int i = 0; i < 4; ++i) put32(out, 0x5C + 4 * i, s.masks[i]);
    put32(out, 0x6C, 0x1000 | (s.mips > 1 ? 0x400008u : 0u));
    put32(out, 0x70, s.caps2);
    if (s.dxgi) {
        push32(out, s.dxgi);
        push32(out, s.resource_dimension);
        push32(out, s.misc_flag);
        push32(out, s.array_size);
        push32(out, 0);
    }
    out.insert(out.end(), data.begin(), data.end());
    return out;
}

std::vector<uint8_t> make_tpf(const std::vector<TpfTextureSpec>& textures, uint8_t encoding, uint8_t flag2) {
    std::vector<uint8_t> out(16, 0);
    std::memcpy(out.data(), "TPF\0", 4);
    put32(out, 0x08, uint32_t(textures.size()));
    out[0x0C] = 0;  // PC
    out[0x0D] = flag2;
    out[0x0E] = encoding;
    std::vector<size_t> entry_at;
    for (const auto& t : textures) {
        entry_at.push_back(out.size());
        push32(out, 0);  // data offset, patched below
        push32(out, uint32_t(t.dds.size()));
        out.push_back(t.format);
        out.push_back(t.type);
        out.push_back(t.mipmaps);
        out.push_back(t.flags1);
        push32(out, 0);  // name offset, patched below
        push32(out, t.float_struct ? 1u : 0u);
        if (t.float_struct) {
            push32(out, uint32_t(t.float_unk));
            push32(out, uint32_t(t.floats.size() * 4));
            for (float f : t.floats) {
                uint32_t v;
                std::memcpy(&v, &f, 4);
                push32(out, v);
            }
        }
    }
    for (size_t i = 0; i < textures.size(); ++i) {
        put32(out, entry_at[i] + 0x0C, uint32_t(out.size()));
        for (char c : textures[i].name) {
            out.push_back(uint8_t(c));
            if (encoding == 1) out.push_back(0);
        }
        out.push_back(0);
        if (encoding == 1) out.push_back(0);
    }
    uint32_t total = 0;
    for (size_t i = 0; i < textures.size(); ++i) {
        while (out.size() % 16) out.push_back(0);
        put32(out, entry_at[i], uint32_t(out.size()));
        out.insert(out.end(), textures[i].dds.begin(), textures[i].dds.end());
        total += uint32_t(textures[i].dds.size());
    }
    put32(out, 0x04, total);
    return out;
}

}  // namespace drape::test
