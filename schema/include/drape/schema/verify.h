// drape cloth format: the one check every reader of a .drcloth makes before it touches the
// FlatBuffer (the runtime's loader, `drape check`, `drape inspect`, the .drcloth -> hcl reader).
//
// Header-only, no dependency but FlatBuffers and the generated cloth_generated.h, no allocation,
// no exceptions. Contract:
//   - `bytes` may be any untrusted memory of `size` bytes (nullptr with size 0 is fine); it is
//     only read, never past `size`.
//   - On Status::ok, `file` points into `bytes` and every table, vector, string and union of the
//     tree passed the FlatBuffers verifier, so every accessor of the generated code is safe. Values
//     are NOT checked: indices may still be out of range (`drape check` checks those; a runtime
//     must bound-check what it indexes with them).
//   - A zstd frame (magic 28 B5 2F FD) is reported as Status::zstd_frame and not decoded: drape may
//     write compressed files, the runtime does not decompress; the caller unwraps and calls again.
//   - The format version must be 2.x (any minor: additions are append-only).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "drape/schema/cloth_generated.h"

namespace drape::schema {

enum class Status {
    ok,
    too_small,            // fewer bytes than a FlatBuffer header (8)
    zstd_frame,           // starts with zstd's magic: decompress first
    wrong_identifier,     // bytes 4..7 are not "DRCL"
    invalid_flatbuffer,   // the FlatBuffers verifier refused the tree
    unsupported_version,  // format_version.major is not 2
};

struct ClothFileCheck {
    Status status = Status::too_small;
    const char* message = "";                       // a static English sentence, never null
    const cloth_fb::ClothFile* file = nullptr;      // set only when status == ok
    uint16_t major = 0, minor = 0;                  // the file's version, once it verified
    bool ok() const { return status == Status::ok; }
};

inline constexpr uint16_t k_format_major = 2;
inline constexpr uint8_t k_zstd_magic[4] = {0x28, 0xB5, 0x2F, 0xFD};

inline bool is_zstd_frame(const void* bytes, size_t size) {
    return bytes && size >= 4 && std::memcmp(bytes, k_zstd_magic, 4) == 0;
}

// Limits of the verifier: the deepest real file nests 9 tables; the largest holds well under a
// million tables (one per operator, set, pose, block...). Both limits bound the verifier's work on
// hostile input.
inline ClothFileCheck verify_cloth_file(const void* bytes, size_t size) {
    ClothFileCheck r;
    if (is_zstd_frame(bytes, size)) {
        r.status = Status::zstd_frame;
        r.message = "a zstd frame: decompress it before reading (the runtime reads plain .drcloth only)";
        return r;
    }
    if (!bytes || size < 8) {
        r.status = Status::too_small;
        r.message = "too small for a .drcloth (a FlatBuffer needs at least 8 bytes)";
        return r;
    }
    const auto* p = static_cast<const uint8_t*>(bytes);
    if (!flatbuffers::BufferHasIdentifier(p, cloth_fb::ClothFileIdentifier())) {
        r.status = Status::wrong_identifier;
        r.message = "not a .drcloth (no DRCL file identifier at offset 4)";
        return r;
    }
    if (size >= size_t(FLATBUFFERS_MAX_BUFFER_SIZE)) {
        r.status = Status::invalid_flatbuffer;
        r.message = "larger than a FlatBuffer can be (2 GiB)";
        return r;
    }
    flatbuffers::Verifier verifier(p, size, /*max_depth=*/64, /*max_tables=*/4000000);
    if (!cloth_fb::VerifyClothFileBuffer(verifier)) {
        r.status = Status::invalid_flatbuffer;
        r.message = "the FlatBuffers verifier refused the file (truncated or corrupt)";
        return r;
    }
    const cloth_fb::ClothFile* file = cloth_fb::GetClothFile(p);
    r.major = file->format_version()->major();
    r.minor = file->format_version()->minor();
    if (r.major != k_format_major) {
        r.status = Status::unsupported_version;
        r.message = "a .drcloth of another major format version (this reader reads 2.x)";
        return r;
    }
    r.status = Status::ok;
    r.message = "ok";
    r.file = file;
    return r;
}

}  // namespace drape::schema
