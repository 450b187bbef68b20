// libFuzzer: .drcloth bytes (raw or in a zstd frame) through the verifier, the conversion to hcl
// structs and every index rule of `drape check`.
#include <cstddef>
#include <cstdint>
#include <sstream>

#include "drape/convert/cloth_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::ostringstream sink;
    (void)drape::cloth_check::check_drcloth("fuzz", {data, size}, sink, false);
    (void)drape::cloth_check::drcloth_summary({data, size});
    return 0;
}
