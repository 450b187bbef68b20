// drape: BND4 binders and BXF4 split binders (docs/formats.md#bnd4-and-bxf4).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "drape/io/reader.h"

namespace drape::bnd {

struct Entry {
    uint8_t flags = 0x40;          // raw flags byte as stored (normalised bit 0 = compressed)
    int32_t id = -1;               // -1 when the binder has no ids
    std::string name;              // as stored, converted to UTF-8 (a Windows path)
    std::string path;              // sanitize_member_path(name): safe relative path
    uint64_t data_offset = 0;      // absolute in the BND4 (or in the .bdt for BXF4)
    uint64_t stored_size = 0;      // bytes stored
    uint64_t uncompressed_size = 0;  // when the binder records it (Compression format bit)
    int32_t id2 = 0;               // only when format == Names1 exactly (PC save files)
    Bytes data;                    // view of the stored bytes (valid while the input lives)

    bool compressed(bool bit_big_endian) const;
};

struct Binder {
    bool is_bxf = false;
    bool unk04 = false, unk05 = false;
    bool big_endian = false;
    bool bit_big_endian = false;   // stored at 0x0A as its negation
    std::string version;           // 8 ASCII bytes
    bool unicode = true;
    uint8_t raw_format = 0x74;     // byte 0x31 as stored
    uint8_t format = 0x2E;         // normalised
    uint8_t extended = 0;          // 4 = hash table present
    uint64_t file_header_size = 0;
    uint64_t headers_end = 0;
    uint64_t hash_table_offset = 0;
    // BXF4 data file header
    bool bdt_unk04 = false, bdt_unk05 = false;
    uint64_t bdt_header_size = 0x30;
    std::string bdt_version;
    std::vector<Entry> entries;

    // Format bits (normalised).
    bool has_ids() const { return format & 0x02; }
    bool has_names() const { return format & 0x0C; }
    bool long_offsets() const { return format & 0x10; }
    bool has_compression() const { return format & 0x20; }
};

uint8_t reverse_bits(uint8_t b);
uint32_t path_hash(std::string_view path);  // docs/formats.md#the-hash-table

bool is_bnd4(Bytes data);
bool is_bhf4(Bytes data);
bool is_bdf4(Bytes data);

// What read_bnd4 fills besides the header fields, names, ids, offsets and sizes.
struct ReadOptions {
    // Entry::path (sanitize_member_path of each name). A caller that only looks members up by
    // name turns it off and gets empty paths: sanitising is most of the cost of reading the
    // headers of a binder of ~17k members (Elden Ring's allmaterial.matbinbnd).
    bool member_paths = true;
};

// Reads a BND4. Entry data views point into `data`.
Result<Binder> read_bnd4(Bytes data, const ReadOptions& options = {});
// Reads a BXF4: the BHF4 header file and its BDF4 data file.
Result<Binder> read_bxf4(Bytes bhd, Bytes bdt);

// The stored bytes of an entry, decompressed when the entry is compressed (DCX inside).
Result<std::vector<uint8_t>> entry_bytes(const Binder& binder, const Entry& entry);

// Writes a BND4 with the binder's header fields and flags. `payloads[i]` replaces
// entries[i].data (stored as is: compress first if the flag says so). The hash table is
// rebuilt when extended == 4. Layout as the game's tools write it: header, file headers,
// names, hash table (8-aligned), data (16-aligned).
Result<std::vector<uint8_t>> write_bnd4(const Binder& binder, const std::vector<Bytes>& payloads);

// Finds the first entry whose name ends with `suffix` (case-insensitive, '\\' or '/').
const Entry* find_entry(const Binder& binder, std::string_view suffix);

}  // namespace drape::bnd
