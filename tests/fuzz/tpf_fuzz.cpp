// libFuzzer target: TPF reader, DDS parser and the decoders (top mip of every texture, size
// capped). Inputs that do not start with "TPF" are also tried as a bare DDS file.
#include <cstddef>
#include <cstdint>

#include "drape/tpf/bc.h"
#include "drape/tpf/tpf.h"

namespace {
// Keeps each decode small so the fuzzer stays fast; the cap path itself is exercised too.
constexpr uint64_t k_fuzz_max_pixels = uint64_t(1) << 16;

void decode_all(drape::Bytes dds_bytes) {
    auto dds = drape::tpf::parse_dds(dds_bytes);
    if (!dds) return;
    auto img = drape::tpf::decode_surface(*dds, 0, 0, 0, k_fuzz_max_pixels);
    if (img) (void)drape::tpf::to_unorm8_clamped(*img);
    // The last surface (smallest mip of the last layer) too.
    if (!dds->surfaces.empty()) {
        const auto& s = dds->surfaces.back();
        (void)drape::tpf::decode_surface(*dds, s.mip, s.layer, s.depth - 1, k_fuzz_max_pixels);
    }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    drape::Bytes bytes(data, size);
    auto tpf = drape::tpf::read_tpf(bytes);
    if (tpf) {
        for (const auto& t : tpf->textures) decode_all(t.dds);
    } else {
        decode_all(bytes);
    }
    return 0;
}
