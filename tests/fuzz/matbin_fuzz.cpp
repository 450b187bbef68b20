// libFuzzer target: MATBIN and MTD readers (by content), and the material library over a
// binder or a loose file with a lookup of every member.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "drape/matbin/matbin.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    drape::Bytes bytes(data, size);
    (void)drape::matbin::read_matbin(bytes);
    (void)drape::matbin::read_mtd(bytes);
    drape::matbin::MaterialLibrary lib;
    if (lib.add_bytes(std::vector<uint8_t>(data, data + size), "fuzz.matbinbnd")) {
        for (const auto& name : lib.member_names()) (void)lib.find(name);
    }
    return 0;
}
