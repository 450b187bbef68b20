// Test support: a writer of small TAE files (layout in drape/tae/tae.h), for the reader tests,
// the clip-matching tests and the fuzz seeds. The layout follows the games' own order: header,
// names, entry table, entry ranges, entry bodies, then per entry its file block, times, event
// headers, event data, group headers and group data.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace drape::test {

struct TaeEventSpec {
    uint32_t type = 0;
    float start = 0, end = 0;
    std::vector<uint8_t> params;  // written as given, then padded to 16 bytes
};
struct TaeGroupSpec {
    uint32_t type = 0;
    std::vector<uint32_t> events;  // indices into the entry's events
};
struct TaeEntrySpec {
    int64_t id = 0;
    std::vector<TaeEventSpec> events;
    std::vector<TaeGroupSpec> groups;
    uint64_t file_kind = 0;       // 0 standard, 1 import other animation
    std::string file_name;        // kind 0
    bool imports_motion = false;  // kind 0: flag byte 1
    int32_t source_id = -1;       // kind 0: the imported motion; kind 1: the imported entry
};
struct TaeSpec {
    uint32_t version = 0x1000D;
    int64_t event_bank = 0x24;
    int32_t id = 205000;
    std::string skeleton_name = "c9999.hkt", sib_name = "c9999.sib";
    std::vector<TaeEntrySpec> entries;
};
std::vector<uint8_t> make_tae(const TaeSpec& spec);

// A small TAE that uses every part of the layout: two entries, one with three events in two
// groups (one event in no group), one borrowing the first's motion (kind 1).
TaeSpec small_tae_spec();

}  // namespace drape::test
