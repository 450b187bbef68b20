// libFuzzer: hk_2014 packfiles through the reader, the generic view and every typed view.
#include <cstddef>
#include <cstdint>

#include "drape/havok/hkx.h"
#include "havok_walk.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto f = drape::havok::read_packfile(drape::Bytes(data, size));
    if (f) (void)drape::test::walk_havok(*f);
    return 0;
}
