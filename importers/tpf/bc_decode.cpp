// Block-compression (BC1-BC7) and uncompressed texture decoders.
//
// References: the D3D11 functional specification's BC chapters and the OpenGL extensions
// EXT_texture_compression_s3tc, ARB_texture_compression_rgtc and ARB_texture_compression_bptc.
// The BPTC partition/anchor tables and the BC6H endpoint bit layout (BPTC "Table F") are
// specification data; their compact numeric encoding here follows Pillow's CC0-licensed
// BcnDecode.c. The decoding code is drape's own.
#include "drape/tpf/bc.h"

#include <algorithm>
#include <cstring>

namespace drape::tpf {

namespace {

inline uint16_t load16(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }
inline uint32_t load32(const uint8_t* p) {
    return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
}
inline uint64_t load64(const uint8_t* p) { return uint64_t(load32(p)) | (uint64_t(load32(p + 4)) << 32); }

// ---------------------------------------------------------------------------------------
// BC1-BC5

// R5G6B5 to 8-bit channels by bit replication.
inline void expand_565(uint16_t c, uint8_t out[3]) {
    uint32_t r = (c >> 11) & 31, g = (c >> 5) & 63, b = c & 31;
    out[0] = uint8_t((r << 3) | (r >> 2));
    out[1] = uint8_t((g << 2) | (g >> 4));
    out[2] = uint8_t((b << 3) | (b >> 2));
}

// The colour half of BC1/BC2/BC3. `four_colour_only` is set for BC2/BC3.
void decode_colour(const uint8_t* block, uint8_t out[64], bool four_colour_only) {
    const uint16_t c0 = load16(block), c1 = load16(block + 2);
    const uint32_t indices = load32(block + 4);
    uint8_t palette[4][4];
    expand_565(c0, palette[0]);
    expand_565(c1, palette[1]);
    palette[0][3] = palette[1][3] = 255;
    if (c0 > c1 || four_colour_only) {
        for (int ch = 0; ch < 3; ++ch) {
            palette[2][ch] = uint8_t((2 * palette[0][ch] + palette[1][ch]) / 3);
            palette[3][ch] = uint8_t((palette[0][ch] + 2 * palette[1][ch]) / 3);
        }
        palette[2][3] = palette[3][3] = 255;
    } else {
        for (int ch = 0; ch < 3; ++ch) palette[2][ch] = uint8_t((palette[0][ch] + palette[1][ch]) / 2);
        palette[2][3] = 255;
        palette[3][0] = palette[3][1] = palette[3][2] = palette[3][3] = 0;  // transparent black
    }
    for (int i = 0; i < 16; ++i) std::memcpy(out + 4 * i, palette[(indices >> (2 * i)) & 3], 4);
}

// The BC3 alpha / BC4 block: 2 endpoints, 16 3-bit indices. Writes out[i * stride].
void decode_alpha_block(const uint8_t* block, uint8_t* out, int stride, bool is_signed) {
    uint32_t a0 = block[0], a1 = block[1];
    if (is_signed) {  // int8 endpoints offset by +128 (see bc.h)
        a0 ^= 0x80;
        a1 ^= 0x80;
    }
    uint8_t palette[8];
    palette[0] = uint8_t(a0);
    palette[1] = uint8_t(a1);
    if (a0 > a1) {
        for (uint32_t i = 1; i <= 6; ++i) palette[i + 1] = uint8_t(((7 - i) * a0 + i * a1) / 7);
    } else {
        for (uint32_t i = 1; i <= 4; ++i) palette[i + 1] = uint8_t(((5 - i) * a0 + i * a1) / 5);
        palette[6] = 0;
        palette[7] = 255;
    }
    const uint64_t indices = load64(block) >> 16;
    for (int i = 0; i < 16; ++i) out[i * stride] = palette[(indices >> (3 * i)) & 7];
}

// ---------------------------------------------------------------------------------------
// BPTC (BC6H, BC7) tables

// Two-subset partitions: bit i of an entry is the subset of pixel i.
constexpr uint16_t k_partition2[64] = {
    0xcccc, 0x8888, 0xeeee, 0xecc8, 0xc880, 0xfeec, 0xfec8, 0xec80, 0xc800, 0xffec, 0xfe80, 0xe800, 0xffe8,
    0xff00, 0xfff0, 0xf000, 0xf710, 0x008e, 0x7100, 0x08ce, 0x008c, 0x7310, 0x3100, 0x8cce, 0x088c, 0x3110,
    0x6666, 0x366c, 0x17e8, 0x0ff0, 0x718e, 0x399c, 0xaaaa, 0xf0f0, 0x5a5a, 0x33cc, 0x3c3c, 0x55aa, 0x9696,
    0xa55a, 0x73ce, 0x13c8, 0x324c, 0x3bdc, 0x6996, 0xc33c, 0x9966, 0x0660, 0x0272, 0x04e4, 0x4e40, 0x2720,
    0xc936, 0x936c, 0x39c6, 0x639c, 0x9336, 0x9cc6, 0x817e, 0xe718, 0xccf0, 0x0fcc, 0x7744, 0xee22};

// Three-subset partitions: bits 2i..2i+1 of an entry are the subset of pixel i.
constexpr uint32_t k_partition3[64] = {
    0xaa685050, 0x6a5a5040, 0x5a5a4200, 0x5450a0a8, 0xa5a50000, 0xa0a05050, 0x5555a0a0, 0x5a5a5050,
    0xaa550000, 0xaa555500, 0xaaaa5500, 0x90909090, 0x94949494, 0xa4a4a4a4, 0xa9a59450, 0x2a0a4250,
    0xa5945040, 0x0a425054, 0xa5a5a500, 0x55a0a0a0, 0xa8a85454, 0x6a6a4040, 0xa4a45000, 0x1a1a0500,
    0x0050a4a4, 0xaaa59090, 0x14696914, 0x69691400, 0xa08585a0, 0xaa821414, 0x50a4a450, 0x6a5a0200,
    0xa9a58000, 0x5090a0a8, 0xa8a09050, 0x24242424, 0x00aa5500, 0x24924924, 0x24499224, 0x50a50a50,
    0x500aa550, 0xaaaa4444, 0x66660000, 0xa5a0a5a0, 0x50a050a0, 0x69286928, 0x44aaaa44, 0x66666600,
    0xaa444444, 0x54a854a8, 0x95809580, 0x96969600, 0xa85454a8, 0x80959580, 0xaa141414, 0x96960000,
    0xaaaa1414, 0xa05050a0, 0xa0a5a5a0, 0x96000000, 0x40804080, 0xa9a8a9a8, 0xaaaaaa44, 0x2a4a5254};

// Anchor pixel of subset 1 (two subsets), and of subsets 1 and 2 (three subsets).
constexpr uint8_t k_anchor2[64] = {15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
                                   15, 2,  8,  2,  2,  8,  8,  15, 2,  8,  2,  2,  8,  8,  2,  2,
                                   15, 15, 6,  8,  2,  8,  15, 15, 2,  8,  2,  2,  2,  15, 15, 6,
                                   6,  2,  6,  8,  15, 15, 2,  2,  15, 15, 15, 15, 15, 2,  2,  15};
constexpr uint8_t k_anchor3a[64] = {3,  3,  15, 15, 8,  3,  15, 15, 8,  8,  6,  6,  6,  5,  3,  3,
                                    3,  3,  8,  15, 3,  3,  6,  10, 5,  8,  8,  6,  8,  5,  15, 15,
                                    8,  15, 3,  5,  6,  10, 8,  15, 15, 3,  15, 5,  15, 15, 15, 15,
                                    3,  15, 5,  5,  5,  8,  5,  10, 5,  10, 8,  13, 15, 12, 3,  3};
constexpr uint8_t k_anchor3b[64] = {15, 8,  8,  3,  15, 15, 3,  8,  15, 15, 15, 15, 15, 15, 15, 8,
                                    15, 8,  15, 3,  15, 8,  15, 8,  3,  15, 6,  10, 15, 15, 10, 8,
                                    15, 3,  15, 10, 10, 8,  9,  10, 6,  15, 8,  15, 3,  6,  6,  8,
                                    15, 3,  15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 3,  15, 15, 8};

constexpr uint8_t k_weights2[4] = {0, 21, 43, 64};
constexpr uint8_t k_weights3[8] = {0, 9, 18, 27, 37, 46, 55, 64};
constexpr uint8_t k_weights4[16] = {0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64};

inline const uint8_t* weights_for(uint32_t bits) {
    return bits == 2 ? k_weights2 : bits == 3 ? k_weights3 : k_weights4;
}

inline uint32_t subset_of(uint32_t subsets, uint32_t partition, uint32_t pixel) {
    if (subsets == 2) return (k_partition2[partition] >> pixel) & 1;
    if (subsets == 3) return (k_partition3[partition] >> (2 * pixel)) & 3;
    return 0;
}

inline bool is_anchor(uint32_t subsets, uint32_t partition, uint32_t pixel) {
    if (pixel == 0) return true;
    if (subsets == 2) return pixel == k_anchor2[partition];
    if (subsets == 3) return pixel == k_anchor3a[partition] || pixel == k_anchor3b[partition];
    return false;
}

// A 128-bit little-endian block read as a bit stream.
class Bits {
public:
    explicit Bits(const uint8_t* block) : m_lo(load64(block)), m_hi(load64(block + 8)) {}
    uint32_t at(uint32_t pos, uint32_t count) const {  // count <= 32, pos + count <= 128
        if (count == 0) return 0;
        uint64_t v;
        if (pos >= 64) {
            v = m_hi >> (pos - 64);
        } else if (pos == 0) {
            v = m_lo;
        } else {
            v = (m_lo >> pos) | (m_hi << (64 - pos));
        }
        return uint32_t(v & ((uint64_t(1) << count) - 1));
    }
    uint32_t take(uint32_t count) {
        uint32_t v = at(m_pos, count);
        m_pos += count;
        return v;
    }
    uint32_t pos() const { return m_pos; }
    void set_pos(uint32_t p) { m_pos = p; }

private:
    uint64_t m_lo, m_hi;
    uint32_t m_pos = 0;
};

// ---------------------------------------------------------------------------------------
// BC7

struct Bc7Mode {
    uint8_t subsets, partition_bits, rotation_bits, index_selection_bits, colour_bits, alpha_bits;
    uint8_t endpoint_pbits, shared_pbits, index_bits, index2_bits;
};
constexpr Bc7Mode k_bc7_modes[8] = {
    {3, 4, 0, 0, 4, 0, 1, 0, 3, 0}, {2, 6, 0, 0, 6, 0, 0, 1, 3, 0}, {3, 6, 0, 0, 5, 0, 0, 0, 2, 0},
    {2, 6, 0, 0, 7, 0, 1, 0, 2, 0}, {1, 0, 2, 1, 5, 6, 0, 0, 2, 3}, {1, 0, 2, 0, 7, 8, 0, 0, 2, 2},
    {1, 0, 0, 0, 7, 7, 1, 0, 4, 0}, {2, 6, 0, 0, 5, 5, 1, 0, 2, 0}};

inline uint8_t unquantize7(uint32_t v, uint32_t bits) {  // bits in 4..8
    v <<= (8 - bits);
    return uint8_t(v | (v >> bits));
}

inline uint8_t bptc_lerp(uint32_t e0, uint32_t e1, uint32_t w) { return uint8_t(((64 - w) * e0 + w * e1 + 32) >> 6); }
// One BC7 texel: colour by weight wc, alpha by weight wa, between the endpoints e0 and e1 (RGBA).
inline void bptc_texel(uint8_t* px, const uint32_t* e0, const uint32_t* e1, uint32_t wc, uint32_t wa) {
    px[0] = bptc_lerp(e0[0], e1[0], wc);
    px[1] = bptc_lerp(e0[1], e1[1], wc);
    px[2] = bptc_lerp(e0[2], e1[2], wc);
    px[3] = bptc_lerp(e0[3], e1[3], wa);
}

}  // namespace

void decode_bc1_block(const uint8_t* block, uint8_t out_rgba[64]) { decode_colour(block, out_rgba, false); }

void decode_bc2_block(const uint8_t* block, uint8_t out_rgba[64]) {
    decode_colour(block + 8, out_rgba, true);
    const uint64_t alpha = load64(block);
    for (int i = 0; i < 16; ++i) out_rgba[4 * i + 3] = uint8_t(((alpha >> (4 * i)) & 15) * 17);
}

void decode_bc3_block(const uint8_t* block, uint8_t out_rgba[64]) {
    decode_colour(block + 8, out_rgba, true);
    decode_alpha_block(block, out_rgba + 3, 4, false);
}

void decode_bc4_block(const uint8_t* block, uint8_t out_l[16], bool is_signed) {
    decode_alpha_block(block, out_l, 1, is_signed);
}

void decode_bc5_block(const uint8_t* block, uint8_t out_rgb[48], bool is_signed) {
    decode_alpha_block(block, out_rgb, 3, is_signed);
    decode_alpha_block(block + 8, out_rgb + 1, 3, is_signed);
    for (int i = 0; i < 16; ++i) out_rgb[3 * i + 2] = is_signed ? 128 : 0;
}

namespace {

// Bits [pos, pos + count) of the 128-bit little-endian block (lo, hi); 0 < pos, count <= 64.
inline uint64_t bits_at(uint64_t lo, uint64_t hi, uint32_t pos, uint32_t count) {
    uint64_t v = pos >= 64 ? hi >> (pos - 64) : (lo >> pos) | (hi << (64 - pos));
    return count >= 64 ? v : v & ((uint64_t(1) << count) - 1);
}

// Inserts a 0 bit at `at` (the implicit top index bit of an anchor pixel).
inline uint64_t insert_zero(uint64_t v, uint32_t at) {
    const uint64_t low = (uint64_t(1) << at) - 1;
    return (v & low) | ((v & ~low) << 1);
}

// One mode, its field widths known at compile time: endpoint bit positions fold to
// constants, and the index bits are read as one word into which the anchors' implicit
// zero bits are inserted, so pixel i's index is (word >> i * index_bits).
template <uint32_t Mode>
void decode_bc7_mode(const uint8_t* block, uint8_t out_rgba[64]) {
    constexpr Bc7Mode m = k_bc7_modes[Mode];
    constexpr uint32_t n = m.subsets * 2u;
    constexpr bool pbits = m.endpoint_pbits || m.shared_pbits;
    constexpr uint32_t colour_bits = m.colour_bits + (pbits ? 1 : 0);
    constexpr uint32_t alpha_bits = m.alpha_bits ? m.alpha_bits + (pbits ? 1 : 0) : 0;
    const uint64_t lo = load64(block), hi = load64(block + 8);
    uint32_t pos = Mode + 1;
    auto take = [&](uint32_t count) {
        const uint32_t v = count ? uint32_t(bits_at(lo, hi, pos, count)) : 0;
        pos += count;
        return v;
    };
    const uint32_t partition = take(m.partition_bits);
    const uint32_t rotation = take(m.rotation_bits);
    const uint32_t index_selection = take(m.index_selection_bits);

    uint32_t ep[n][4];
    for (uint32_t ch = 0; ch < 3; ++ch)
        for (uint32_t e = 0; e < n; ++e) ep[e][ch] = take(m.colour_bits);
    for (uint32_t e = 0; e < n; ++e) ep[e][3] = m.alpha_bits ? take(m.alpha_bits) : 255;
    if constexpr (pbits) {
        for (uint32_t e = 0; e < n; ++e) {
            if (m.shared_pbits && (e & 1)) continue;  // one bit per subset, read at its first endpoint
            const uint32_t p = take(1);
            constexpr uint32_t count = m.shared_pbits ? 2 : 1;
            for (uint32_t k = 0; k < count; ++k)
                for (uint32_t ch = 0; ch < (m.alpha_bits ? 4u : 3u); ++ch) ep[e + k][ch] = (ep[e + k][ch] << 1) | p;
        }
    }
    for (uint32_t e = 0; e < n; ++e) {
        for (uint32_t ch = 0; ch < 3; ++ch) ep[e][ch] = unquantize7(ep[e][ch], colour_bits);
        if (alpha_bits) ep[e][3] = unquantize7(ep[e][3], alpha_bits);
    }

    // Primary indices: 16 * index_bits - subsets stored bits (at most 63).
    constexpr uint32_t ib = m.index_bits;
    uint64_t primary = bits_at(lo, hi, pos, 16 * ib - m.subsets);
    primary = insert_zero(primary, ib - 1);  // pixel 0
    if constexpr (m.subsets == 2) {
        primary = insert_zero(primary, k_anchor2[partition] * ib + ib - 1);
    } else if constexpr (m.subsets == 3) {
        const uint32_t a = k_anchor3a[partition], b = k_anchor3b[partition];
        primary = insert_zero(primary, std::min(a, b) * ib + ib - 1);
        primary = insert_zero(primary, std::max(a, b) * ib + ib - 1);
    }
    [[maybe_unused]] uint64_t secondary = 0;
    constexpr uint32_t ib2 = m.index2_bits;
    if constexpr (ib2 != 0) {
        secondary = insert_zero(bits_at(lo, hi, pos + 16 * ib - 1, 16 * ib2 - 1), ib2 - 1);
    }
    const uint8_t* w_primary = weights_for(ib);
    [[maybe_unused]] const uint8_t* w_secondary = weights_for(ib2);
    constexpr uint32_t mask = (1u << ib) - 1, mask2 = (1u << ib2) - 1;
    [[maybe_unused]] const uint32_t subsets_word = m.subsets == 2 ? uint32_t(k_partition2[partition])
                                                   : m.subsets == 3 ? k_partition3[partition] : 0u;
    for (uint32_t i = 0; i < 16; ++i) {
        uint32_t subset = 0;
        if constexpr (m.subsets == 2) subset = (subsets_word >> i) & 1;
        if constexpr (m.subsets == 3) subset = (subsets_word >> (2 * i)) & 3;
        uint32_t wc = w_primary[uint32_t(primary >> (i * ib)) & mask], wa = wc;
        if constexpr (ib2 != 0) {
            const uint32_t w2 = w_secondary[uint32_t(secondary >> (i * ib2)) & mask2];
            if (index_selection) {
                wc = w2;
            } else {
                wa = w2;
            }
        }
        bptc_texel(out_rgba + 4 * i, ep[2 * subset], ep[2 * subset + 1], wc, wa);
    }
    if constexpr (m.rotation_bits != 0) {
        if (rotation)
            for (uint32_t i = 0; i < 16; ++i) std::swap(out_rgba[4 * i + rotation - 1], out_rgba[4 * i + 3]);
    }
}

}  // namespace

void decode_bc7_block(const uint8_t* block, uint8_t out_rgba[64]) {
    switch (block[0] == 0 ? 8 : __builtin_ctz(block[0])) {
        case 0: decode_bc7_mode<0>(block, out_rgba); return;
        case 1: decode_bc7_mode<1>(block, out_rgba); return;
        case 2: decode_bc7_mode<2>(block, out_rgba); return;
        case 3: decode_bc7_mode<3>(block, out_rgba); return;
        case 4: decode_bc7_mode<4>(block, out_rgba); return;
        case 5: decode_bc7_mode<5>(block, out_rgba); return;
        case 6: decode_bc7_mode<6>(block, out_rgba); return;
        case 7: decode_bc7_mode<7>(block, out_rgba); return;
        default: std::memset(out_rgba, 0, 64); return;  // no mode bit: reserved
    }
}

void decode_bc7_block_reference(const uint8_t* block, uint8_t out_rgba[64]) {
    if (block[0] == 0) {  // no mode bit: reserved
        std::memset(out_rgba, 0, 64);
        return;
    }
    const uint32_t mode_index = uint32_t(__builtin_ctz(block[0]));
    const Bc7Mode& m = k_bc7_modes[mode_index];
    Bits bits(block);
    bits.set_pos(mode_index + 1);
    const uint32_t partition = bits.take(m.partition_bits);
    const uint32_t rotation = bits.take(m.rotation_bits);
    const uint32_t index_selection = bits.take(m.index_selection_bits);
    const uint32_t n = m.subsets * 2u;  // endpoints

    uint32_t ep[6][4];
    for (uint32_t ch = 0; ch < 3; ++ch)
        for (uint32_t e = 0; e < n; ++e) ep[e][ch] = bits.take(m.colour_bits);
    for (uint32_t e = 0; e < n; ++e) ep[e][3] = m.alpha_bits ? bits.take(m.alpha_bits) : 255;

    uint32_t colour_bits = m.colour_bits, alpha_bits = m.alpha_bits;
    if (m.endpoint_pbits || m.shared_pbits) {
        ++colour_bits;
        if (alpha_bits) ++alpha_bits;
        for (uint32_t e = 0; e < n; ++e) {
            if (m.shared_pbits && (e & 1)) continue;  // one bit per subset, read at its first endpoint
            const uint32_t p = bits.take(1);
            const uint32_t count = m.shared_pbits ? 2 : 1;
            for (uint32_t k = 0; k < count; ++k)
                for (uint32_t ch = 0; ch < (m.alpha_bits ? 4u : 3u); ++ch) ep[e + k][ch] = (ep[e + k][ch] << 1) | p;
        }
    }
    for (uint32_t e = 0; e < n; ++e) {
        for (uint32_t ch = 0; ch < 3; ++ch) ep[e][ch] = unquantize7(ep[e][ch], colour_bits);
        if (alpha_bits) ep[e][3] = unquantize7(ep[e][3], alpha_bits);
    }

    // Index data: the primary set, then (modes 4 and 5) the secondary set.
    const uint32_t primary_start = bits.pos();
    const uint32_t secondary_start = primary_start + 16u * m.index_bits - m.subsets;
    const uint8_t* w_primary = weights_for(m.index_bits);
    const uint8_t* w_secondary = weights_for(m.index2_bits);
    uint32_t p_pos = primary_start, s_pos = secondary_start;
    for (uint32_t i = 0; i < 16; ++i) {
        const uint32_t subset = subset_of(m.subsets, partition, i);
        const bool anchor = is_anchor(m.subsets, partition, i);
        const uint32_t pb = m.index_bits - (anchor ? 1 : 0);
        const uint32_t primary = bits.at(p_pos, pb);
        p_pos += pb;
        uint32_t wc = w_primary[primary], wa = wc;
        if (m.index2_bits) {
            const uint32_t sb = m.index2_bits - (i == 0 ? 1 : 0);
            const uint32_t secondary = bits.at(s_pos, sb);
            s_pos += sb;
            const uint32_t w2 = w_secondary[secondary];
            if (index_selection) {
                wa = wc;
                wc = w2;
            } else {
                wa = w2;
            }
        }
        uint8_t* px = out_rgba + 4 * i;
        bptc_texel(px, ep[2 * subset], ep[2 * subset + 1], wc, wa);
        if (rotation) std::swap(px[rotation - 1], px[3]);
    }
}

// ---------------------------------------------------------------------------------------
// BC6H

namespace {

struct Bc6Mode {
    uint8_t subsets, transformed, endpoint_bits, delta_r, delta_g, delta_b;
};
// Modes in the order of the specification (1..14 there, 0..13 here).
constexpr Bc6Mode k_bc6_modes[14] = {
    {2, 1, 10, 5, 5, 5}, {2, 1, 7, 6, 6, 6},   {2, 1, 11, 5, 4, 4}, {2, 1, 11, 4, 5, 4}, {2, 1, 11, 4, 4, 5},
    {2, 1, 9, 5, 5, 5},  {2, 1, 8, 6, 5, 5},   {2, 1, 8, 5, 6, 5},  {2, 1, 8, 5, 5, 6},  {2, 0, 6, 6, 6, 6},
    {1, 0, 10, 10, 10, 10}, {1, 1, 11, 9, 9, 9}, {1, 1, 12, 8, 8, 8}, {1, 1, 16, 4, 4, 4}};

// The endpoint bit layout of each mode (BPTC Table F): entry k gives the destination of the
// k-th header bit after the mode bits, as (endpoint value << 4) | bit. Endpoint values 0..11
// are r,g,b of w (subset 0, end 0), x (subset 0, end 1), y (subset 1, end 0), z (subset 1, end 1).
constexpr uint8_t k_bc6_layout[14][75] = {
    {116, 132, 180, 0,   1,   2,   3,   4,   5,   6,   7,   8,   9,   16,  17,  18,  19,  20,  21,
     22,  23,  24,  25,  32,  33,  34,  35,  36,  37,  38,  39,  40,  41,  48,  49,  50,  51,  52,
     164, 112, 113, 114, 115, 64,  65,  66,  67,  68,  176, 160, 161, 162, 163, 80,  81,  82,  83,
     84,  177, 128, 129, 130, 131, 96,  97,  98,  99,  100, 178, 144, 145, 146, 147, 148, 179},
    {117, 164, 165, 0,   1,   2,   3,   4,   5,   6,   176, 177, 132, 16,  17,  18,  19,  20,  21,
     22,  133, 178, 116, 32,  33,  34,  35,  36,  37,  38,  179, 181, 180, 48,  49,  50,  51,  52,
     53,  112, 113, 114, 115, 64,  65,  66,  67,  68,  69,  160, 161, 162, 163, 80,  81,  82,  83,
     84,  85,  128, 129, 130, 131, 96,  97,  98,  99,  100, 101, 144, 145, 146, 147, 148, 149},
    {0,   1,   2,   3,   4,   5,   6,   7,   8,   9,   16,  17,  18,  19,  20,  21,  22,  23,  24,
     25,  32,  33,  34,  35,  36,  37,  38,  39,  40,  41,  48,  49,  50,  51,  52,  10,  112, 113,
     114, 115, 64,  65,  66,  67,  26,  176, 160, 161, 162, 163, 80,  81,  82,  83,  42,  177, 128,
     129, 130, 131, 96,  97,  98,  99,  100, 178, 144, 145, 146, 147, 148, 179},
    {0,   1,   2,   3,   4,   5,   6,   7,   8,   9,   16,  17,  18,  19,  20,  21,  22,  23,  24,
     25,  32,  33,  34,  35,  36,  37,  38,  39,  40,  41,  48,  49,  50,  51,  10,  164, 112, 113,
     114, 115, 64,  65,  66,  67,  68,  26,  160, 161, 162, 163, 80,  81,  82,  83,  42,  177, 128,
     129, 130, 131, 96,  97,  98,  99,  176, 178, 144, 145, 146, 147, 116, 179},
    {0,   1,   2,   3,   4,   5,   6,   7,   8,   9,   16,  17,  18,  19,  20,  21,  22,  23,  24,
     25,  32,  33,  34,  35,  36,  37,  38,  39,  40,  41,  48,  49,  50,  51,  10,  132, 112, 113,
     114, 115, 64,  65,  66,  67,  26,  176, 160, 161, 162, 163, 80,  81,  82,  83,  84,  42,  128,
     129, 130, 131, 96,  97,  98,  99,  177, 178, 144, 145, 146, 147, 180, 179},
    {0,   1,   2,   3,   4,   5,   6,   7,   8,   132, 16,  17,  18,  19,  20,  21,  22,  23,  24,
     116, 32,  33,  34,  35,  36,  37,  38,  39,  40,  180, 48,  49,  50,  51,  52,  164, 112, 113,
     114, 115, 64,  65,  66,  67,  68,  176, 160, 161, 162, 163, 80,  81,  82,  83,  84,  177, 128,
     129, 130, 131, 96,  97,  98,  99,  100, 178, 144, 145, 146, 147, 148, 179},
    {0,   1,   2,   3,   4,   5,   6,   7,   164, 132, 16,  17,  18,  19,  20,  21,  22,  23,  178,
     116, 32,  33,  34,  35,  36,  37,  38,  39,  179, 180, 48,  49,  50,  51,  52,  53,  112, 113,
     114, 115, 64,  65,  66,  67,  68,  176, 160, 161, 162, 163, 80,  81,  82,  83,  84,  177, 128,
     129, 130, 131, 96,  97,  98,  99,  100, 101, 144, 145, 146, 147, 148, 149},
    {0,   1,   2,   3,   4,   5,   6,   7,   176, 132, 16,  17,  18,  19,  20,  21,  22,  23,  117,
     116, 32,  33,  34,  35,  36,  37,  38,  39,  165, 180, 48,  49,  50,  51,  52,  164, 112, 113,
     114, 115, 64,  65,  66,  67,  68,  69,  160, 161, 162, 163, 80,  81,  82,  83,  84,  177, 128,
     129, 130, 131, 96,  97,  98,  99,  100, 178, 144, 145, 146, 147, 148, 179},
    {0,   1,   2,   3,   4,   5,   6,   7,   177, 132, 16,  17,  18,  19,  20,  21,  22,  23,  133,
     116, 32,  33,  34,  35,  36,  37,  38,  39,  181, 180, 48,  49,  50,  51,  52,  164, 112, 113,
     114, 115, 64,  65,  66,  67,  68,  176, 160, 161, 162, 163, 80,  81,  82,  83,  84,  85,  128,
     129, 130, 131, 96,  97,  98,  99,  100, 178, 144, 145, 146, 147, 148, 179},
    {0,   1,   2,   3,   4,   5,   164, 176, 177, 132, 16,  17,  18,  19,  20,  21,  117, 133, 178,
     116, 32,  33,  34,  35,  36,  37,  165, 179, 181, 180, 48,  49,  50,  51,  52,  53,  112, 113,
     114, 115, 64,  65,  66,  67,  68,  69,  160, 161, 162, 163, 80,  81,  82,  83,  84,  85,  128,
     129, 130, 131, 96,  97,  98,  99,  100, 101, 144, 145, 146, 147, 148, 149},
    {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
     32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57,
     64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89},
    {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
     32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 48, 49, 50, 51, 52, 53, 54, 55, 56, 10,
     64, 65, 66, 67, 68, 69, 70, 71, 72, 26, 80, 81, 82, 83, 84, 85, 86, 87, 88, 42},
    {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
     32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 48, 49, 50, 51, 52, 53, 54, 55, 11, 10,
     64, 65, 66, 67, 68, 69, 70, 71, 27, 26, 80, 81, 82, 83, 84, 85, 86, 87, 43, 42},
    {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
     32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 48, 49, 50, 51, 15, 14, 13, 12, 11, 10,
     64, 65, 66, 67, 31, 30, 29, 28, 27, 26, 80, 81, 82, 83, 47, 46, 45, 44, 43, 42}};

inline int32_t sign_extend(uint32_t v, uint32_t bits) {
    const uint32_t m = 1u << (bits - 1);
    v &= (bits >= 32) ? ~0u : ((1u << bits) - 1);
    return int32_t(v ^ m) - int32_t(m);
}

// Endpoint to the 16-bit (unsigned) or 15-bit+sign (signed) interpolation domain.
inline int32_t bc6_unquantize(int32_t v, uint32_t bits, bool is_signed) {
    if (!is_signed) {
        if (bits >= 15) return v;
        if (v == 0) return 0;
        if (v == int32_t((1u << bits) - 1)) return 0xFFFF;
        return int32_t(((uint32_t(v) << 16) + 0x8000) >> bits);
    }
    if (bits >= 16) return v;
    const bool negative = v < 0;
    int32_t mag = negative ? -v : v;
    if (mag != 0) {
        if (mag >= int32_t((1u << (bits - 1)) - 1)) {
            mag = 0x7FFF;
        } else {
            mag = int32_t(((uint32_t(mag) << 15) + 0x4000) >> (bits - 1));
        }
    }
    return negative ? -mag : mag;
}

// Interpolated value to half-float bits.
inline uint16_t bc6_finish(int32_t v, bool is_signed) {
    if (!is_signed) return uint16_t((v * 31) >> 6);
    if (v < 0) return uint16_t(0x8000 | (((-v) * 31) >> 5));
    return uint16_t((v * 31) >> 5);
}

}  // namespace

void decode_bc6h_block_half(const uint8_t* block, uint16_t out_rgb[48], bool is_signed) {
    // Mode: 2 bits when they are 00 or 01, else 5 bits.
    uint32_t mode, header_bits, layout_bits;
    const uint32_t low2 = block[0] & 3;
    const uint32_t low5 = block[0] & 31;
    if (low2 < 2) {
        mode = low2;
        header_bits = 2;
        layout_bits = 75;
    } else if (low2 == 2) {
        mode = 2 + (low5 >> 2);
        header_bits = 5;
        layout_bits = 72;
    } else {
        mode = 10 + (low5 >> 2);
        header_bits = 5;
        layout_bits = 60;
    }
    if (mode >= 14) {  // 10011, 10111, 11011, 11111: reserved
        std::memset(out_rgb, 0, 48 * sizeof(uint16_t));
        return;
    }
    const Bc6Mode& m = k_bc6_modes[mode];
    Bits bits(block);
    uint32_t raw[12] = {};
    for (uint32_t k = 0; k < layout_bits; ++k) {
        const uint8_t dst = k_bc6_layout[mode][k];
        raw[dst >> 4] |= bits.at(header_bits + k, 1) << (dst & 15);
    }
    bits.set_pos(header_bits + layout_bits);
    const uint32_t partition = m.subsets == 2 ? bits.take(5) : 0;
    const uint32_t n = m.subsets == 2 ? 12u : 6u;
    const uint32_t eb = m.endpoint_bits;
    const uint32_t delta_bits[3] = {m.delta_r, m.delta_g, m.delta_b};

    int32_t ep[12];
    for (uint32_t c = 0; c < 3; ++c) ep[c] = is_signed ? sign_extend(raw[c], eb) : int32_t(raw[c]);
    for (uint32_t i = 3; i < n; ++i) {
        const uint32_t c = i % 3;
        if (m.transformed) {
            // Deltas are signed; the sum wraps to the endpoint precision.
            const int32_t delta = sign_extend(raw[i], delta_bits[c]);
            const uint32_t sum = uint32_t(ep[c] + delta) & ((1u << eb) - 1);
            ep[i] = is_signed ? sign_extend(sum, eb) : int32_t(sum);
        } else {
            ep[i] = is_signed ? sign_extend(raw[i], eb) : int32_t(raw[i]);
        }
    }
    for (uint32_t i = 0; i < n; ++i) ep[i] = bc6_unquantize(ep[i], eb, is_signed);

    const uint32_t index_bits = m.subsets == 2 ? 3 : 4;
    const uint8_t* weights = weights_for(index_bits);
    for (uint32_t i = 0; i < 16; ++i) {
        const uint32_t subset = subset_of(m.subsets, partition, i);
        const uint32_t ib = index_bits - (is_anchor(m.subsets, partition, i) ? 1 : 0);
        const int32_t w = weights[bits.take(ib)];
        const int32_t* e0 = ep + 6 * subset;
        const int32_t* e1 = e0 + 3;
        for (uint32_t c = 0; c < 3; ++c) {
            const int32_t v = (e0[c] * (64 - w) + e1[c] * w + 32) >> 6;
            out_rgb[3 * i + c] = bc6_finish(v, is_signed);
        }
    }
}

float half_to_float(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000) << 16;
    const uint32_t exponent = (h >> 10) & 31;
    uint32_t mantissa = h & 0x3FF;
    uint32_t bits;
    if (exponent == 31) {
        bits = sign | 0x7F800000u | (mantissa << 13);  // inf / NaN
    } else if (exponent != 0) {
        bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        bits = sign;
    } else {  // subnormal: normalise
        uint32_t e = 113;
        while (!(mantissa & 0x400)) {
            mantissa <<= 1;
            --e;
        }
        bits = sign | (e << 23) | ((mantissa & 0x3FF) << 13);
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

void decode_bc6h_block(const uint8_t* block, float out_rgb[48], bool is_signed) {
    uint16_t half[48];
    decode_bc6h_block_half(block, half, is_signed);
    for (int i = 0; i < 48; ++i) out_rgb[i] = half_to_float(half[i]);
}

// ---------------------------------------------------------------------------------------
// Whole images

uint32_t decoded_channels(PixelFormat f) {
    switch (f) {
        case PixelFormat::bc1:
        case PixelFormat::bc2:
        case PixelFormat::bc3:
        case PixelFormat::bc7:
        case PixelFormat::rgba8:
        case PixelFormat::bgra8:
        case PixelFormat::b5g5r5a1:
        case PixelFormat::b4g4r4a4:
        case PixelFormat::a8:
        case PixelFormat::rgba16f:
        case PixelFormat::rgba32f: return 4;
        case PixelFormat::bc5:
        case PixelFormat::bc5s:
        case PixelFormat::bc6h_uf16:
        case PixelFormat::bc6h_sf16:
        case PixelFormat::bgrx8:
        case PixelFormat::bgr8:
        case PixelFormat::b5g6r5: return 3;
        case PixelFormat::l8a8: return 2;
        case PixelFormat::bc4:
        case PixelFormat::bc4s:
        case PixelFormat::r8: return 1;
        case PixelFormat::unknown: return 0;
    }
    return 0;
}

bool decodes_to_float(PixelFormat f) {
    return f == PixelFormat::bc6h_uf16 || f == PixelFormat::bc6h_sf16 || f == PixelFormat::rgba16f ||
           f == PixelFormat::rgba32f;
}

namespace {

inline uint8_t widen(uint32_t v, uint32_t bits) {  // bit replication to 8 bits, bits in 1..8
    if (bits == 1) return v ? 255 : 0;
    uint32_t out = v << (8 - bits);
    for (uint32_t shift = bits; shift < 8; shift += bits) out |= (v << (8 - bits)) >> shift;
    return uint8_t(out);
}

template <class Block>
void decode_blocks_u8(const uint8_t* src, uint32_t block_size, uint32_t channels, Image& img, Block&& decode_block) {
    const uint32_t bw = (img.width + 3) / 4, bh = (img.height + 3) / 4;
    uint8_t tmp[64];
    for (uint32_t by = 0; by < bh; ++by) {
        for (uint32_t bx = 0; bx < bw; ++bx) {
            decode_block(src, tmp);
            src += block_size;
            const uint32_t x0 = bx * 4, y0 = by * 4;
            const uint32_t cw = std::min(4u, img.width - x0), ch = std::min(4u, img.height - y0);
            for (uint32_t y = 0; y < ch; ++y) {
                std::memcpy(&img.u8[(size_t(y0 + y) * img.width + x0) * channels], tmp + y * 4 * channels,
                            size_t(cw) * channels);
            }
        }
    }
}

}  // namespace

Result<Image> decode_pixels(PixelFormat format, Bytes data, uint32_t width, uint32_t height, uint64_t max_pixels) {
    if (format == PixelFormat::unknown) return make_error("cannot decode an unknown pixel format", "texture.format");
    if (width == 0 || height == 0) {
        return make_error("empty image (" + std::to_string(width) + " x " + std::to_string(height) + ")", "texture.size");
    }
    const uint64_t pixels = uint64_t(width) * height;
    if (pixels > max_pixels) {
        return make_error(std::to_string(width) + " x " + std::to_string(height) + " exceeds the decode cap of " +
                              std::to_string(max_pixels) + " pixels",
                          "texture.size");
    }
    const bool block = is_block_compressed(format);
    const uint64_t unit = format_unit_size(format);
    const uint64_t need = block ? ((uint64_t(width) + 3) / 4) * ((uint64_t(height) + 3) / 4) * unit : pixels * unit;
    if (data.size() < need) {
        return make_error_at(data.size(), "texture.data",
                             std::string(pixel_format_name(format)) + " " + std::to_string(width) + " x " +
                                 std::to_string(height) + " needs " + std::to_string(need) + " B, " +
                                 std::to_string(data.size()) + " B given");
    }
    Image img;
    img.width = width;
    img.height = height;
    img.channels = decoded_channels(format);
    img.is_float = decodes_to_float(format);
    if (img.is_float) {
        img.f32.resize(size_t(pixels) * img.channels);
    } else {
        img.u8.resize(size_t(pixels) * img.channels);
    }
    const uint8_t* src = data.data();
    uint8_t* out = img.u8.data();
    switch (format) {
        case PixelFormat::bc1: decode_blocks_u8(src, 8, 4, img, [](const uint8_t* b, uint8_t* o) { decode_bc1_block(b, o); }); break;
        case PixelFormat::bc2: decode_blocks_u8(src, 16, 4, img, [](const uint8_t* b, uint8_t* o) { decode_bc2_block(b, o); }); break;
        case PixelFormat::bc3: decode_blocks_u8(src, 16, 4, img, [](const uint8_t* b, uint8_t* o) { decode_bc3_block(b, o); }); break;
        case PixelFormat::bc4: decode_blocks_u8(src, 8, 1, img, [](const uint8_t* b, uint8_t* o) { decode_bc4_block(b, o, false); }); break;
        case PixelFormat::bc4s: decode_blocks_u8(src, 8, 1, img, [](const uint8_t* b, uint8_t* o) { decode_bc4_block(b, o, true); }); break;
        case PixelFormat::bc5: decode_blocks_u8(src, 16, 3, img, [](const uint8_t* b, uint8_t* o) { decode_bc5_block(b, o, false); }); break;
        case PixelFormat::bc5s: decode_blocks_u8(src, 16, 3, img, [](const uint8_t* b, uint8_t* o) { decode_bc5_block(b, o, true); }); break;
        case PixelFormat::bc7: decode_blocks_u8(src, 16, 4, img, [](const uint8_t* b, uint8_t* o) { decode_bc7_block(b, o); }); break;
        case PixelFormat::bc6h_uf16:
        case PixelFormat::bc6h_sf16: {
            const bool is_signed = format == PixelFormat::bc6h_sf16;
            const uint32_t bw = (width + 3) / 4, bh = (height + 3) / 4;
            float tmp[48];
            for (uint32_t by = 0; by < bh; ++by) {
                for (uint32_t bx = 0; bx < bw; ++bx) {
                    decode_bc6h_block(src, tmp, is_signed);
                    src += 16;
                    const uint32_t x0 = bx * 4, y0 = by * 4;
                    const uint32_t cw = std::min(4u, width - x0), ch = std::min(4u, height - y0);
                    for (uint32_t y = 0; y < ch; ++y)
                        std::memcpy(&img.f32[(size_t(y0 + y) * width + x0) * 3], tmp + y * 12, size_t(cw) * 3 * sizeof(float));
                }
            }
            break;
        }
        case PixelFormat::rgba8: std::memcpy(out, src, size_t(pixels) * 4); break;
        case PixelFormat::bgra8:
            for (uint64_t i = 0; i < pixels; ++i, src += 4, out += 4) {
                out[0] = src[2];
                out[1] = src[1];
                out[2] = src[0];
                out[3] = src[3];
            }
            break;
        case PixelFormat::bgrx8:
        case PixelFormat::bgr8: {
            const uint32_t step = format == PixelFormat::bgrx8 ? 4 : 3;
            for (uint64_t i = 0; i < pixels; ++i, src += step, out += 3) {
                out[0] = src[2];
                out[1] = src[1];
                out[2] = src[0];
            }
            break;
        }
        case PixelFormat::b5g5r5a1:
            for (uint64_t i = 0; i < pixels; ++i, src += 2, out += 4) {
                const uint32_t v = load16(src);
                out[0] = widen((v >> 10) & 31, 5);
                out[1] = widen((v >> 5) & 31, 5);
                out[2] = widen(v & 31, 5);
                out[3] = widen(v >> 15, 1);
            }
            break;
        case PixelFormat::b5g6r5:
            for (uint64_t i = 0; i < pixels; ++i, src += 2, out += 3) expand_565(load16(src), out);
            break;
        case PixelFormat::b4g4r4a4:
            for (uint64_t i = 0; i < pixels; ++i, src += 2, out += 4) {
                const uint32_t v = load16(src);
                out[0] = widen((v >> 8) & 15, 4);
                out[1] = widen((v >> 4) & 15, 4);
                out[2] = widen(v & 15, 4);
                out[3] = widen(v >> 12, 4);
            }
            break;
        case PixelFormat::r8:
        case PixelFormat::l8a8: std::memcpy(out, src, size_t(pixels) * img.channels); break;
        case PixelFormat::a8:
            for (uint64_t i = 0; i < pixels; ++i, out += 4) {
                out[0] = out[1] = out[2] = 0;
                out[3] = src[i];
            }
            break;
        case PixelFormat::rgba16f:
            for (uint64_t i = 0; i < pixels * 4; ++i) img.f32[i] = half_to_float(load16(src + 2 * i));
            break;
        case PixelFormat::rgba32f:
            for (uint64_t i = 0; i < pixels * 4; ++i) {
                const uint32_t v = load32(src + 4 * i);
                std::memcpy(&img.f32[i], &v, 4);
            }
            break;
        case PixelFormat::unknown: break;
    }
    return img;
}

Result<Image> decode_surface(const Dds& dds, uint32_t mip, uint32_t layer, uint32_t slice, uint64_t max_pixels) {
    const Surface* s = dds.surface(mip, layer);
    if (!s) {
        return make_error("no surface mip " + std::to_string(mip) + " layer " + std::to_string(layer) + " (the DDS has " +
                              std::to_string(dds.mip_count) + " mips x " + std::to_string(dds.layers) + " layers)",
                          "dds.surface");
    }
    if (slice >= s->depth) {
        return make_error("no slice " + std::to_string(slice) + " (the mip has " + std::to_string(s->depth) + ")",
                          "dds.surface");
    }
    const uint64_t slice_size = s->size / s->depth;
    const uint64_t begin = s->offset + slice_size * slice;
    if (begin > dds.bytes.size() || dds.bytes.size() - begin < slice_size) {
        return make_error_at(begin, "dds.surface", "surface is outside the DDS data");
    }
    auto img = decode_pixels(dds.format, dds.bytes.subspan(size_t(begin), size_t(slice_size)), s->width, s->height,
                             max_pixels);
    if (!img) {
        Error e = std::move(img).error();
        if (e.has_offset) e.offset += begin;
        return e;
    }
    return img;
}

Image to_unorm8_clamped(const Image& image) {
    if (!image.is_float) return image;
    Image out;
    out.width = image.width;
    out.height = image.height;
    out.channels = image.channels;
    out.u8.resize(image.f32.size());
    for (size_t i = 0; i < image.f32.size(); ++i) {
        const float v = image.f32[i];
        out.u8[i] = v > 0.0f ? (v < 1.0f ? uint8_t(v * 255.0f) : 255) : 0;  // NaN -> 0
    }
    return out;
}

}  // namespace drape::tpf
