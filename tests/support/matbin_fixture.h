// Test support: writers of small MATBIN and MTD files (layouts in drape/matbin/matbin.h), for
// the reader tests, fuzz seeds and the material-resolution tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace drape::test {

struct MatbinParamSpec {
    std::string name;
    uint32_t type = 8;             // MATBIN type id (0 bool, 4 int, 5 int2, 8 float ... 12 float5)
    std::vector<uint32_t> words;   // raw 4-byte components (a bool writes words[0] as one byte)
};
struct MatbinSamplerSpec {
    std::string type, path;
    float scale[2] = {0, 0};
};
struct MatbinSpec {
    std::string shader = "N:\\GR\\data\\Material\\sat\\OutputData\\SPX\\C[DetailBlend].spx";
    std::string source = "N:\\GR\\data\\Material\\mtd\\Chr\\matxml\\C[c9999]_Body.matxml";
    uint32_t key = 0x11223344;
    std::vector<MatbinParamSpec> params;
    std::vector<MatbinSamplerSpec> samplers;
};
std::vector<uint8_t> make_matbin(const MatbinSpec& spec);

struct MtdParamSpec {
    std::string name, type;         // type: "bool", "int", "int2", "float" .. "float4"
    std::vector<uint32_t> words;    // raw components (bool: one byte each)
};
struct MtdTextureSpec {
    std::string type, path;
    int32_t uv_index = 1;
};
struct MtdSpec {
    std::string shader = "N:\\NTC\\data\\Material\\sat\\OutputData\\SPX\\Fur_NTC.spx";
    std::string description = "[Character]";
    std::vector<MtdParamSpec> params;
    std::vector<MtdTextureSpec> textures;
    int32_t texture_version = 5;  // 5 = Sekiro (with path)
};
std::vector<uint8_t> make_mtd(const MtdSpec& spec);

}  // namespace drape::test
