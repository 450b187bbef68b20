// libFuzzer: DCX/DCP headers and payload decoding (with the size guard lowered for speed).
#include <cstddef>
#include <cstdint>

#include "drape/dcx/dcx.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    drape::dcx::DecodeOptions o;
    o.max_uncompressed = 1 << 22;
    auto r = drape::dcx::decompress({data, size}, o);
    (void)r;
    return 0;
}
