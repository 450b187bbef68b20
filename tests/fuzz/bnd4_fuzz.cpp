// libFuzzer: BND4 headers, names and members (compressed members are unwrapped too), and BXF4.
#include <cstddef>
#include <cstdint>

#include "drape/bnd/bnd4.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    drape::Bytes in{data, size};
    auto b = drape::bnd::read_bnd4(in);
    if (b) {
        for (const auto& e : b->entries) {
            if (e.stored_size < (1 << 16)) (void)drape::bnd::entry_bytes(*b, e);
            (void)drape::bnd::path_hash(e.name);
        }
        std::vector<drape::Bytes> payloads;
        for (const auto& e : b->entries) payloads.push_back(e.data);
        (void)drape::bnd::write_bnd4(*b, payloads);
    }
    if (size > 64) (void)drape::bnd::read_bxf4(in.subspan(0, size / 2), in.subspan(size / 2));
    return 0;
}
