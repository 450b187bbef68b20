// libFuzzer target: the FLVER2 reader, then the glTF exporter on whatever it accepts.
#include <cstddef>
#include <cstdint>

#include "drape/exporters/gltf.h"
#include "drape/flver/flver.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto r = drape::flver::read_flver(drape::Bytes(data, size));
    if (r) {
        drape::exporters::GltfOptions options;
        (void)drape::exporters::gltf_bytes(*r, options);
    }
    return 0;
}
