#pragma once
// The tests' reproducible random source.
#include <cstdint>

namespace drape::test {

// Knuth's MMIX linear congruential generator. Each call advances the 64-bit state; callers take
// their bits from the top, because an LCG's low bits repeat with short periods.
struct Lcg {
    uint64_t s;
    uint64_t next_state() {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        return s;
    }
    uint32_t next31() { return uint32_t(next_state() >> 33); }   // the top 31 bits
    uint8_t next_byte() { return uint8_t(next_state() >> 56); }  // the top 8 bits
};

}  // namespace drape::test
