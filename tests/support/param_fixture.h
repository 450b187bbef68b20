// Test support: writers of small PARAM files (layout in drape/param/param.h) and of encrypted
// regulations, for the reader tests, fuzz seeds and the inspect tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace drape::test {

struct ParamRowSpec {
    int32_t id = 0;
    std::string name;           // ASCII; empty = no name (offset 0)
    std::vector<uint8_t> data;  // every row of a spec must have the same size
};
struct ParamSpec {
    std::string type = "TEST_PARAM_ST";
    int16_t data_version = 1;
    // true: the form Elden Ring and Sekiro use (format 0x85 / 0x07: 64-bit offsets, the type string
    // by offset, UTF-16 names); false: the older form (0x01 / 0x00: 32-bit offsets, the type inline,
    // Shift-JIS names).
    bool long_form = true;
    std::vector<ParamRowSpec> rows;
};
std::vector<uint8_t> make_param(const ParamSpec& spec);

// The published Elden Ring regulation key (the same 32 bytes SoulsFormats lists), written here
// independently of the reader's copy.
std::vector<uint8_t> elden_ring_regulation_key();
// AES-256-CBC with PKCS#7 padding of `plain`, the IV first, as the games' regulation.bin is.
std::vector<uint8_t> encrypt_regulation(const std::vector<uint8_t>& plain, const std::vector<uint8_t>& key,
                                        const std::vector<uint8_t>& iv);

}  // namespace drape::test
