// Hand-built Kraken streams for the error tests: byte layouts follow the tables of KRAKEN.md
// (3.2 block header, 3.5 quantum header, 4 chunk header, 5.1 array headers, 10 LZ layout).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

namespace kraft {

using Buf = std::vector<uint8_t>;

inline Buf cat(std::initializer_list<Buf> parts) {
    Buf out;
    for (const Buf& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
}
inline Buf be3(uint32_t v) { return {uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)}; }

// MSB-first bit writer (MF order).
struct MsbBits {
    Buf bytes;
    unsigned used = 0;  // bits used in the last byte
    void put(uint32_t v, unsigned n) {
        for (unsigned i = n; i-- > 0;) bit((v >> i) & 1);
    }
    void bit(unsigned b) {
        if (used == 0) bytes.push_back(0);
        if (b) bytes.back() |= uint8_t(0x80 >> used);
        used = (used + 1) & 7;
    }
    void zeros(unsigned n) {
        for (unsigned i = 0; i < n; ++i) bit(0);
    }
};

// 5.1 array headers.
inline Buf stored(const Buf& data) {  // long form
    return cat({be3(uint32_t(data.size())), data});
}
inline Buf long_header(unsigned type, uint32_t c, uint32_t d) {
    uint32_t dm = d - 1;
    uint32_t y = ((dm & 0x3FFF) << 18) | c;
    return {uint8_t((type << 4) | (dm >> 14)), uint8_t(y >> 24), uint8_t(y >> 16), uint8_t(y >> 8), uint8_t(y)};
}
inline Buf array(unsigned type, uint32_t d, const Buf& payload) {
    return cat({long_header(type, uint32_t(payload.size()), d), payload});
}
inline Buf short_header(unsigned type, uint32_t c, uint32_t d) {
    uint32_t x = 0x800000u | (type << 20) | ((d - c - 1) << 10) | c;
    return be3(x);
}

// A one-block stream: block header 8C 06, quantum header, payload (3.2, 3.5).
inline Buf block(const Buf& quantum_payload, uint8_t h0 = 0x8C, uint8_t h1 = 0x06) {
    return cat({{h0, h1}, be3(uint32_t(quantum_payload.size()) - 1), quantum_payload});
}
inline Buf chunk_header(uint32_t s, unsigned mode) { return be3(0x800000u | (mode << 19) | s); }

// 10.1: an LZ chunk; the arrays are given encoded (stored() by default).
struct Lz {
    unsigned mode = 1;
    Buf prefix = {'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'};
    Buf lits = stored({}), cmds = stored({}), dcodes = stored({}), drem, lcodes = stored({});
    int sigma_byte = -1;  // -1: plain distances
    Buf bits = {0x80};    // K = 0, nothing else
    Buf payload() const {
        Buf p = cat({prefix, lits, cmds});
        if (sigma_byte >= 0) p.push_back(uint8_t(sigma_byte));
        return cat({p, dcodes, drem, lcodes, bits});
    }
    Buf stream() const {
        Buf p = payload();
        return block(cat({chunk_header(uint32_t(p.size()), mode), p}));
    }
};

// 6.2 list form with two 1-bit codes: symbols a ("0") and b ("1").
inline MsbBits list2(uint8_t a, uint8_t b) {
    MsbBits w;
    w.put(0, 1);  // selector 0
    w.put(0, 1);  // list form
    w.put(2, 8);  // m
    w.put(0, 3);  // w = 0: every length is 1
    w.put(a, 8);
    w.put(b, 8);
    return w;
}

}  // namespace kraft
