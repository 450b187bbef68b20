// Test support: the DCX and DCP forms drape reads but does not write (dcx::compress writes DFLT
// and ZSTD), built from docs/formats.md for the fuzz seeds.
#pragma once

#include <cstdint>
#include <vector>

namespace drape::test {

// A DCX_KRAK holding `stream` (a Kraken stream that decodes to `uncompressed_size` bytes).
std::vector<uint8_t> make_dcx_krak(const std::vector<uint8_t>& stream, uint32_t uncompressed_size);
// A DCX_EDGE of `payload`: 64 KiB chunks of raw deflate described by an EgdT table.
std::vector<uint8_t> make_dcx_edge(const std::vector<uint8_t>& payload);
// DCP_DFLT (one zlib stream) and DCP_EDGE (raw-deflate chunks) of `payload`.
std::vector<uint8_t> make_dcp_dflt(const std::vector<uint8_t>& payload);
std::vector<uint8_t> make_dcp_edge(const std::vector<uint8_t>& payload);

}  // namespace drape::test
