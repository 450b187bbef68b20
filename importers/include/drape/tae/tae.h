// drape: TAE ("TimeAct") event lists of Dark Souls III, Sekiro and Elden Ring, and how their
// entries name the clips of an animation binder.
//
// A TAE says, for each animation of a character, what happens when: timed events (a flag on for
// a span, an attack's active window, a sound, an effect), grouped, each with a type number and
// parameter bytes whose meaning depends on the type. Binders (`c5000.anibnd.dcx`) hold one TAE per
// motion category (the player's `a02.tae`, `a316.tae`) or one for the whole character
// (`c5000.tae`).
//
// Layout (little endian, 64-bit offsets, every offset absolute from the start of the file):
//   0x00 "TAE ", bytes 00 00 00 FF (big-endian flag 0, 64-bit marker), u32 version
//        (0x1000C DS3, 0x1000D Sekiro and Elden Ring), u32 file size
//   0x10 five i64 constants (0x40, 1, 0x50, 0x80) then an i64 that tells the event bank
//        (0x15 DS3, 0x0E Sekiro, 0x24 or 0x25 Elden Ring in every corpus file), i64 0
//   0x40 8 flag bytes, i64 1
//   0x50 i32 TAE id, i32 entry count, i64 entry table offset, i64 entry-range table offset,
//        i64 0xA0, i64 entry count again, i64 offset of the first entry's body
//   0x80 i64 1, i64 0x90, i32 id twice, i64 0x50, i64 0, i64 0xB0,
//   0xB0 i64 skeleton name offset, i64 sib name offset (UTF-16 strings), 16 zero bytes
//   entry table: per entry {i64 entry id, i64 body offset}, sorted by id
//   entry body (0x30): i64 event headers offset, i64 event groups offset, i64 times offset,
//        i64 animation file offset, i32 event count, i32 group count, i32 time count, i32 0
//   event header (0x18): i64 start time offset, i64 end time offset, i64 event data offset
//        (the times are f32 seconds in the entry's time table, shared by events)
//   event data: u32 type, u32 (0 in DS3 and Elden Ring, sometimes not in Sekiro), i64 parameter
//        offset (the data offset + 0x10), then the parameters. Their length is stored nowhere: a
//        type's template gives it. drape keeps the bytes from the parameter offset to the next
//        structure the file points at (another event's data, a group header, a name...), so up
//        to 8 bytes of alignment padding may trail them; kept as stored, whatever the type.
//   event group header (0x20): i64 member count, i64 member list offset, i64 group data offset,
//        i64 0; group data: u32 group type, u32 0, i64 0; member list: i32 per member, the file
//        offset of a member's event header.
//   animation file (0x30): i64 kind, i64 offset of the next field (this + 0x10), i64 name
//        offset, then kind 0 ("standard"): u8 loops, u8 imports motion, u8 delay load, u8 0,
//        i32 id of the clip whose motion it uses (-1 none); kind 1 ("import other animation",
//        the whole entry is another's): i32 id of that entry, i32 0; then 16 zero bytes. Kind 0
//        names its clip (`a002_004290.hkt`) at the name offset. Ids here are whole clip ids
//        (category * 1,000,000 + entry id: 2004200 is a002_004200).
//
// Entry ids and clip names: a clip `aXXX_YYYYYY` has whole id XXX * 1,000,000 + YYYYYY. A
// character TAE (`c2080.tae`, TAE id 200000 + character number) stores whole ids already
// (Elden Ring's c3000 holds 0 ... 5043000: categories 000 to 005). A per-category TAE (`aNN.tae`,
// `aNNN.tae`; TAE id 2000 + NNN in DS3, 4000 + NNN in Sekiro) stores ids within its category: the
// member name's number is XXX. The corpus agrees on every entry: a02.tae's entries name
// `a002_YYYYYY.hkt`, a316.tae's `a316_...`, Sekiro a10.tae's `a010_...`, a100.tae's `a100_...`.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "drape/io/error.h"
#include "drape/io/reader.h"

namespace drape::tae {

// Sanity caps (not format limits): a TAE of the corpus has at most 857 entries and 12,755 events;
// the longest parameter run is 48 bytes.
inline constexpr size_t k_max_param_bytes = 1024;

enum class Game : uint8_t { unknown, ds3, sekiro, elden_ring };
const char* game_name(Game g);

struct Event {
    uint32_t type = 0;
    uint32_t unk04 = 0;      // the u32 after the type
    float start = 0, end = 0;  // seconds
    int32_t group = -1;      // index into Entry::groups of the group that lists it; -1 none
    std::vector<uint8_t> params;  // as stored (see the layout above)
};

struct EventGroup {
    uint32_t type = 0;
    std::vector<uint32_t> events;  // indices into Entry::events
};

struct Entry {
    int64_t id = 0;             // as stored (within the TAE's category, see above)
    std::vector<Event> events;  // in stored order
    std::vector<EventGroup> groups;
    uint64_t file_kind = 0;     // 0 standard, 1 import other animation, others kept as stored
    std::string file_name;      // kind 0: the clip file it names (`a000_003000.hkt`), else empty
    uint8_t flags[4] = {0, 0, 0, 0};  // kind 0: loops, imports motion, delay load, 0
    int32_t source_id = -1;     // as stored: kind 0 the i32 at +0x1C, kind 1 the i32 at +0x18; -1 none
    // True when the entry plays another clip's motion: kind 1, or kind 0 with the imports-motion
    // flag and a source id (docs/animation.md#events: LandLow a000_004290 <- a000_004200).
    bool borrows_motion() const;
};

struct Tae {
    uint32_t version = 0;
    int64_t event_bank = 0;  // the i64 at 0x30
    int32_t id = 0;
    uint8_t flags[8] = {};
    std::string skeleton_name, sib_name;
    std::vector<Entry> entries;
    Game game() const;  // from version and event bank; unknown when they say nothing known
    size_t event_count() const;
};

bool is_tae(Bytes data);  // starts with "TAE "
// Reads a whole TAE. Errors name the offset and field; nothing is allocated that the bytes do not hold.
Result<Tae> read_tae(Bytes data);

// The name of an event type as DSAnimStudio calls it (docs/animation.md#events), for `game`; "" when the table
// does not know the type for that game (Game::unknown: any game the table knows it for).
const char* event_name(uint32_t type, Game game = Game::unknown);
struct EventName {
    uint32_t type;
    const char* name;
    uint8_t games;  // bit 1 << Game: the games the name is claimed for
};
std::span<const EventName> event_names();

// The motion category a TAE stands for: the number of a member named `aNN.tae` / `aNNN.tae`
// (folders and case ignored); 0 for a character TAE (`cNNNN.tae`, or TAE id >= 200000, whose
// entry ids are whole ids); else from the TAE id (DS3 2000 + N, Sekiro 4000 + N); -1 when
// nothing says.
int32_t category_of(std::string_view member_name, int32_t tae_id);
// category * 1,000,000 + entry id; -1 when that does not fit in 64 bits (no clip has it).
int64_t whole_id(int32_t category, int64_t entry_id);
// "aXXX_YYYYYY" of a whole id; "" when negative or past a999_999999.
std::string clip_name(int64_t whole_id);

// An event as it travels with a clip to the exporters.
struct ClipEvent {
    uint32_t type = 0;
    std::string name;        // event_name(type, game)
    float start = 0, end = 0;
    int64_t group = -1;      // the type of its event group; -1 none
    std::vector<uint8_t> params;
};

// What a TAE says about one clip.
struct ClipEvents {
    std::string clip;         // aXXX_YYYYYY
    std::string motion_from;  // aXXX_YYYYYY of the clip whose motion it borrows; "" none
    std::vector<ClipEvent> events;
};

// The events of every entry of `tae` under the whole-id rule above, keyed by clip name.
std::vector<ClipEvents> clip_events(const Tae& tae, int32_t category);

}  // namespace drape::tae
