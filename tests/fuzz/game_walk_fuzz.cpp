// libFuzzer: the one container walker (DCX and nested BND4 layers) and the FLVER loader on
// arbitrary bytes, strict and lenient; must never crash or hang.
#include <cstddef>
#include <cstdint>

#include "drape/game/containers.h"
#include "drape/game/loaders.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace drape;
    dcx::DecodeOptions o;
    o.jobs = 1;
    o.max_uncompressed = 1u << 24;
    (void)game::open_members(Bytes(data, size), "fuzz", o);
    std::vector<Error> errors;
    (void)game::open_members_lenient(Bytes(data, size), "fuzz", o, errors);
    (void)game::load_flver(Bytes(data, size), "fuzz", o);
    (void)game::collect_tpfs(Bytes(data, size), o);
    return 0;
}
