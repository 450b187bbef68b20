// libFuzzer target for the Kraken decoder. The first 4 bytes (little endian) give the output
// size, capped to 1 MiB; the rest is the Kraken stream. Output goes into an exactly sized heap
// buffer so AddressSanitizer catches any write past it; then a range decode of the middle third.
#include <cstdint>
#include <cstring>
#include <memory>

#include "drape/dcx/kraken.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 4) return 0;
    uint32_t n = uint32_t(data[0]) | uint32_t(data[1]) << 8 | uint32_t(data[2]) << 16 | uint32_t(data[3]) << 24;
    n &= (1u << 20) - 1;  // at most 1 MiB of output
    std::unique_ptr<uint8_t[]> out(new uint8_t[n ? n : 1]);
    auto r = drape::kraken::decompress({data + 4, size - 4}, {out.get(), n}, 1);
    (void)r;
    // A range decode of the middle third (exactly sized buffer again).
    const uint32_t off = n / 3, len = n / 3;
    std::unique_ptr<uint8_t[]> part(new uint8_t[len ? len : 1]);
    auto p = drape::kraken::decompress_range({data + 4, size - 4}, n, off, {part.get(), len}, 1);
    (void)p;
    return 0;
}
