// Test support: a small SHA-256 (FIPS 180-4) for checking decoded outputs against digests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace drape::test {

// Lower-case hex SHA-256 digest of `data`.
std::string sha256_hex(std::span<const uint8_t> data);

}  // namespace drape::test
