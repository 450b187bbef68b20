// drape: a model's TPF textures to PNG, as the glTF exporter binds them.
//
// Every texture's top mip (first face / layer / slice) is decoded and encoded once. `_n` maps
// keep gloss in blue (docs/formats.md#texture-roles) while glTF reads blue as the normal's Z,
// so their blue is rebuilt from red and green before encoding: z = sqrt(1 - x^2 - y^2), x, y = 2 * v / 255 - 1.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "drape/exporters/png.h"
#include "drape/io/error.h"
#include "drape/tpf/tpf.h"

namespace drape::image {

struct EncodedTexture {
    std::string name;           // the TPF texture name (UTF-8)
    std::string key;            // lowercase file stem (exporters::texture_key of the name)
    std::string format;         // pixel_format_name of the DDS
    uint32_t width = 0, height = 0;
    std::vector<uint8_t> png;   // empty when the texture failed
    std::vector<uint8_t> hdr;   // float textures: the full range as Radiance .hdr
    bool normal_rebuilt = false;
    std::string error;          // why the texture was skipped (one line), else empty
    double decode_seconds = 0;  // DDS parse and block decode (the rest of the call is encoding)
};

// Decodes and encodes every texture of `tpf`. Never fails as a whole: a texture that cannot be
// decoded carries its error.
std::vector<EncodedTexture> encode_tpf_textures(const tpf::Tpf& tpf, const PngOptions& options = {});

// Writes the PNGs (and .hdr files) into `folder` (created if missing) under safe, case-
// insensitively unique file names, and adds key -> `uri_prefix` + file name to `uris` (the first
// texture of a key wins). Fails only when a file cannot be written.
Result<void> write_textures(std::span<const EncodedTexture> textures, const std::filesystem::path& folder,
                            const std::string& uri_prefix, std::map<std::string, std::string>& uris);

}  // namespace drape::image
