// libFuzzer: DCX/DCP headers and payload decoding (with the size guard lowered for speed): the
// vector form, the reused-Buffer form and a range decode.
#include <cstddef>
#include <cstdint>

#include "drape/dcx/dcx.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    drape::dcx::DecodeOptions o;
    o.max_uncompressed = 1 << 22;
    auto r = drape::dcx::decompress({data, size}, o);
    (void)r;
    // The Buffer form and a range decode (first and second quarter of the declared size).
    drape::dcx::Buffer buf;
    auto b = drape::dcx::decompress({data, size}, buf, o);
    (void)b;
    if (auto h = drape::dcx::read_header({data, size}); h && h->uncompressed_size <= o.max_uncompressed) {
        auto q = drape::dcx::decompress_range({data, size}, h->uncompressed_size / 4, h->uncompressed_size / 4, buf, o);
        (void)q;
    }
    return 0;
}
