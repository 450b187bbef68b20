// drape: TAE reader (layout in drape/tae/tae.h).
#include "drape/tae/tae.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>

namespace drape::tae {

namespace {

constexpr size_t k_header_size = 0xD0;
constexpr size_t k_entry_size = 0x10;
constexpr size_t k_body_size = 0x30;
constexpr size_t k_event_header_size = 0x18;
constexpr size_t k_event_data_size = 0x10;
constexpr size_t k_group_header_size = 0x20;
constexpr size_t k_group_data_size = 0x10;
constexpr size_t k_file_block_size = 0x30;
constexpr size_t k_max_name_units = 1024;

constexpr uint32_t k_version_ds3 = 0x1000C;
constexpr uint32_t k_version_sekiro_er = 0x1000D;

// An offset the file stores, checked to leave `size` bytes inside the file.
bool check_span(ByteReader& r, uint64_t offset, uint64_t size, const char* field, size_t at) {
    if (offset > r.size() || r.size() - offset < size)
        return r.fail_at(at, field, "offset " + hex(offset) + " + " + std::to_string(size) + " B runs past the end " + hex(r.size()));
    return true;
}

bool read_name(ByteReader& r, uint64_t offset, std::string& out, const char* field) {
    if (offset == 0) return true;
    if (offset >= r.size()) return r.fail(field, "string offset " + hex(offset) + " is past the end " + hex(r.size()));
    return r.read_utf16z_at(size_t(offset), out, field, k_max_name_units);
}

struct PendingEvent {
    size_t entry, event;  // indices: Tae::entries, Entry::events
    uint64_t params_offset;
    size_t header_at;
};

Result<Entry> read_entry(ByteReader& r, int64_t id, uint64_t body, std::vector<uint64_t>& bounds, std::vector<PendingEvent>& pending,
                         size_t entry_at, size_t entry_index, uint64_t& claimed) {
    Entry e;
    e.id = id;
    if (!check_span(r, body, k_body_size, "tae.entry.body_offset", entry_at + 8)) return r.error();
    ByteReader b = r.slice(body, k_body_size, "tae.entry.body");
    const uint64_t headers = b.u64("tae.entry.event_headers_offset");
    const uint64_t groups = b.u64("tae.entry.event_groups_offset");
    const uint64_t times = b.u64("tae.entry.times_offset");
    const uint64_t file_block = b.u64("tae.entry.file_offset");
    const int32_t event_count = b.i32("tae.entry.event_count");
    const int32_t group_count = b.i32("tae.entry.group_count");
    if (b.failed()) return b.error();
    for (uint64_t o : {body, headers, groups, times, file_block}) bounds.push_back(o);
    if (event_count < 0) return make_error_at(body + 0x20, "tae.entry.event_count", "negative count " + std::to_string(event_count));
    if (group_count < 0) return make_error_at(body + 0x24, "tae.entry.group_count", "negative count " + std::to_string(group_count));

    // Entries may not share what they point at beyond the file's own size (a file whose entries
    // all name one big event list would otherwise cost entries x events).
    claimed += uint64_t(event_count) * k_event_header_size + uint64_t(group_count) * k_group_header_size;
    if (claimed > r.size())
        return make_error_at(body + 0x20, "tae.entry.event_count",
                             "the entries so far claim " + std::to_string(claimed) + " B of event and group headers, more than the file's " +
                                 std::to_string(r.size()) + " B");
    if (event_count > 0) {
        if (!check_span(r, headers, uint64_t(event_count) * k_event_header_size, "tae.entry.event_headers", size_t(body))) return r.error();
        e.events.resize(size_t(event_count));
        for (int32_t i = 0; i < event_count; ++i) {
            const size_t at = size_t(headers) + size_t(i) * k_event_header_size;
            uint64_t start_offset = 0, end_offset = 0, data_offset = 0;
            (void)r.peek_at(at, start_offset, "tae.event.start_offset");
            (void)r.peek_at(at + 8, end_offset, "tae.event.end_offset");
            (void)r.peek_at(at + 16, data_offset, "tae.event.data_offset");
            if (r.failed()) return r.error();
            Event& ev = e.events[size_t(i)];
            if (!check_span(r, start_offset, 4, "tae.event.start_offset", at)) return r.error();
            if (!check_span(r, end_offset, 4, "tae.event.end_offset", at + 8)) return r.error();
            if (!check_span(r, data_offset, k_event_data_size, "tae.event.data_offset", at + 16)) return r.error();
            (void)r.peek_at(size_t(start_offset), ev.start, "tae.event.start");
            (void)r.peek_at(size_t(end_offset), ev.end, "tae.event.end");
            uint64_t params_offset = 0;
            (void)r.peek_at(size_t(data_offset), ev.type, "tae.event.type");
            (void)r.peek_at(size_t(data_offset) + 4, ev.unk04, "tae.event.unk04");
            (void)r.peek_at(size_t(data_offset) + 8, params_offset, "tae.event.params_offset");
            if (r.failed()) return r.error();
            if (params_offset > r.size())
                return make_error_at(data_offset + 8, "tae.event.params_offset",
                                     "offset " + hex(params_offset) + " is past the end " + hex(r.size()));
            bounds.push_back(data_offset);
            pending.push_back({entry_index, size_t(i), params_offset, size_t(data_offset) + 8});
        }
    }

    if (group_count > 0) {
        if (!check_span(r, groups, uint64_t(group_count) * k_group_header_size, "tae.entry.event_groups", size_t(body) + 8))
            return r.error();
        e.groups.resize(size_t(group_count));
        for (int32_t g = 0; g < group_count; ++g) {
            const size_t at = size_t(groups) + size_t(g) * k_group_header_size;
            uint64_t member_count = 0, list_offset = 0, data_offset = 0;
            (void)r.peek_at(at, member_count, "tae.group.member_count");
            (void)r.peek_at(at + 8, list_offset, "tae.group.members_offset");
            (void)r.peek_at(at + 16, data_offset, "tae.group.data_offset");
            if (r.failed()) return r.error();
            if (!check_span(r, data_offset, k_group_data_size, "tae.group.data_offset", at + 16)) return r.error();
            if (member_count > r.size() / 4 || !check_span(r, list_offset, member_count * 4, "tae.group.members", at))
                return r.failed() ? r.error()
                                  : make_error_at(at, "tae.group.member_count",
                                                  std::to_string(member_count) + " x 4 B exceeds the file's " + std::to_string(r.size()) + " B");
            EventGroup& group = e.groups[size_t(g)];
            (void)r.peek_at(size_t(data_offset), group.type, "tae.group.type");
            bounds.push_back(list_offset);
            bounds.push_back(data_offset);
            claimed += member_count * 4;
            if (claimed > r.size())
                return make_error_at(at, "tae.group.member_count",
                                     "the groups so far claim " + std::to_string(claimed) + " B, more than the file's " + std::to_string(r.size()) + " B");
            group.events.reserve(size_t(member_count));
            for (uint64_t m = 0; m < member_count; ++m) {
                int32_t header = 0;
                (void)r.peek_at(size_t(list_offset + m * 4), header, "tae.group.member");
                const int64_t rel = int64_t(header) - int64_t(headers);
                if (event_count == 0 || rel < 0 || rel % int64_t(k_event_header_size) != 0 ||
                    rel / int64_t(k_event_header_size) >= event_count)
                    return make_error_at(list_offset + m * 4, "tae.group.member",
                                         "offset " + hex(uint32_t(header)) + " is no event header of entry " + std::to_string(id));
                const uint32_t index = uint32_t(rel / int64_t(k_event_header_size));
                group.events.push_back(index);
                if (e.events[index].group < 0) e.events[index].group = g;
            }
            if (r.failed()) return r.error();
        }
    }

    if (file_block != 0) {
        if (!check_span(r, file_block, k_file_block_size, "tae.entry.file_offset", size_t(body) + 0x18)) return r.error();
        ByteReader f = r.slice(file_block, k_file_block_size, "tae.file");
        e.file_kind = f.u64("tae.file.kind");
        (void)f.u64("tae.file.next_offset");
        const uint64_t name_offset = f.u64("tae.file.name_offset");
        (void)f.read_bytes(e.flags, 4, "tae.file.flags");
        const int32_t at_1c = f.i32("tae.file.source_id");
        if (f.failed()) return f.error();
        if (e.file_kind == 0) {
            e.source_id = at_1c;
            bounds.push_back(name_offset);
            if (!read_name(r, name_offset, e.file_name, "tae.file.name")) return r.error();
        } else if (e.file_kind == 1) {
            int32_t source = 0;
            std::memcpy(&source, e.flags, 4);
            e.source_id = source;
            std::memset(e.flags, 0, 4);
        }
    }
    return e;
}

}  // namespace

const char* game_name(Game g) {
    switch (g) {
        case Game::ds3: return "DS3";
        case Game::sekiro: return "Sekiro";
        case Game::elden_ring: return "Elden Ring";
        default: return "unknown";
    }
}

bool Entry::borrows_motion() const {
    if (file_kind == 1) return source_id >= 0;
    return file_kind == 0 && flags[1] != 0 && source_id >= 0;
}

Game Tae::game() const {
    if (version == k_version_ds3) return Game::ds3;
    if (version == k_version_sekiro_er && event_bank == 0x0E) return Game::sekiro;
    if (version == k_version_sekiro_er && (event_bank == 0x24 || event_bank == 0x25)) return Game::elden_ring;
    return Game::unknown;
}

size_t Tae::event_count() const {
    size_t n = 0;
    for (const auto& e : entries) n += e.events.size();
    return n;
}

bool is_tae(Bytes data) { return data.size() >= 4 && std::memcmp(data.data(), "TAE ", 4) == 0; }

Result<Tae> read_tae(Bytes data) {
    ByteReader r(data);
    Tae t;
    if (!r.expect_magic("TAE ", "tae.magic")) return r.error();
    const uint8_t big_endian = r.u8("tae.big_endian");
    (void)r.u8("tae.unk05");
    (void)r.u8("tae.unk06");
    const uint8_t wide = r.u8("tae.offset_width");
    if (r.failed()) return r.error();
    if (big_endian != 0) return make_error_at(4, "tae.big_endian", "a big-endian (console) TAE; drape reads the PC files of DS3, Sekiro and Elden Ring");
    if (wide != 0xFF)
        return make_error_at(7, "tae.offset_width", "not a 64-bit TAE (marker " + hex(wide) + "); drape reads DS3, Sekiro and Elden Ring's");
    t.version = r.u32("tae.version");
    const uint32_t file_size = r.u32("tae.file_size");
    if (r.failed()) return r.error();
    if (t.version != k_version_ds3 && t.version != k_version_sekiro_er)
        return make_error_at(8, "tae.version", "version " + hex(t.version) + " is none of 0x1000C (DS3) and 0x1000D (Sekiro, Elden Ring)");
    if (file_size > data.size())
        return make_error_at(12, "tae.file_size", "the header says " + std::to_string(file_size) + " B, " + std::to_string(data.size()) + " B present");
    if (!r.check_count_at(0, 1, k_header_size, "tae.header")) return r.error();
    (void)r.seek(0x30, "tae.event_bank");
    t.event_bank = r.i64("tae.event_bank");
    (void)r.seek(0x40, "tae.flags");
    (void)r.read_bytes(t.flags, 8, "tae.flags");
    (void)r.seek(0x50, "tae.id");
    t.id = r.i32("tae.id");
    const int32_t entry_count = r.i32("tae.entry_count");
    const uint64_t entries_offset = r.u64("tae.entries_offset");
    const uint64_t ranges_offset = r.u64("tae.entry_ranges_offset");
    (void)r.seek(0xB0, "tae.skeleton_name_offset");
    const uint64_t skeleton_offset = r.u64("tae.skeleton_name_offset");
    const uint64_t sib_offset = r.u64("tae.sib_name_offset");
    if (r.failed()) return r.error();
    if (entry_count < 0) return make_error_at(0x54, "tae.entry_count", "negative count " + std::to_string(entry_count));
    if (!read_name(r, skeleton_offset, t.skeleton_name, "tae.skeleton_name")) return r.error();
    if (!read_name(r, sib_offset, t.sib_name, "tae.sib_name")) return r.error();
    if (!check_span(r, entries_offset, uint64_t(entry_count) * k_entry_size, "tae.entries", 0x58)) return r.error();

    std::vector<uint64_t> bounds = {entries_offset, ranges_offset, skeleton_offset, sib_offset, data.size()};
    std::vector<PendingEvent> pending;
    uint64_t claimed = 0;
    t.entries.reserve(size_t(entry_count));
    for (int32_t i = 0; i < entry_count; ++i) {
        const size_t at = size_t(entries_offset) + size_t(i) * k_entry_size;
        int64_t id = 0;
        uint64_t body = 0;
        (void)r.peek_at(at, id, "tae.entry.id");
        (void)r.peek_at(at + 8, body, "tae.entry.body_offset");
        if (r.failed()) return r.error();
        auto e = read_entry(r, id, body, bounds, pending, at, t.entries.size(), claimed);
        if (!e) return std::move(e.error());
        t.entries.push_back(std::move(*e));
    }
    // Every structure's offset is known now: an event's parameters run to the next one.
    std::sort(bounds.begin(), bounds.end());
    for (auto& p : pending) {
        auto it = std::lower_bound(bounds.begin(), bounds.end(), p.params_offset);
        const uint64_t end = it == bounds.end() ? data.size() : std::min<uint64_t>(*it, data.size());
        const uint64_t length = end - p.params_offset;
        if (length > k_max_param_bytes)
            return make_error_at(p.header_at, "tae.event.params",
                                 std::to_string(length) + " B of parameters before the next structure, more than " +
                                     std::to_string(k_max_param_bytes));
        t.entries[p.entry].events[p.event].params.assign(data.begin() + std::ptrdiff_t(p.params_offset), data.begin() + std::ptrdiff_t(end));
    }
    return t;
}

// The common names (DSAnimStudio's, docs/animation.md#events) for DS3. A name is also claimed for Sekiro or Elden Ring
// where the type occurs in that game's corpus TAEs with the same parameter length as in DS3's;
// elsewhere the table says nothing for that game.
namespace {
constexpr uint8_t D = 1u << uint8_t(Game::ds3);
constexpr uint8_t S = 1u << uint8_t(Game::sekiro);
constexpr uint8_t E = 1u << uint8_t(Game::elden_ring);
constexpr EventName k_names[] = {
    {0, "ChrActionFlag", D | S | E},
    {1, "AttackBehavior", D | S | E},
    {2, "Bullet", D},
    {16, "Blend", D | S | E},
    {65, "ConsumeCurrentGoods", D},
    {66, "SetSpEffect", D | E},
    {96, "SpawnOneShotFFX", D},
    {128, "PlaySound_128", D | S},
    {129, "PlaySound_129", D},
    {130, "PlaySound_130", D},
    {131, "PlaySound_131", D | S},
    {132, "PlaySound_132", D},
    {224, "SetTurnSpeed", D | S | E},
    {225, "SetSPRegenRatePercent", D | E},
    {228, "RagdollReviveTime", D | E},
    {231, "EventMessage", D},
    {233, "ChangeChrDrawMask", D},
    {236, "RootMotionReduction", D},
    {237, "SpawnAISound", D | S},
    {300, "ActivateJumpTableEarly", D},
    {710, "HideEquippedWeapon", D},
    {792, "FootSfx", D | S | E},
    {795, "DS3Poise", D},
};
}  // namespace

std::span<const EventName> event_names() { return k_names; }

const char* event_name(uint32_t type, Game game) {
    for (const auto& n : k_names)
        if (n.type == type) {
            if (game == Game::unknown || (n.games & (1u << uint8_t(game))) != 0) return n.name;
            return "";
        }
    return "";
}

int32_t category_of(std::string_view member_name, int32_t tae_id) {
    const size_t slash = member_name.find_last_of("/\\");
    std::string base(slash == std::string_view::npos ? member_name : member_name.substr(slash + 1));
    for (char& c : base) c = char(std::tolower(static_cast<unsigned char>(c)));
    const size_t dot = base.find('.');
    const std::string stem = base.substr(0, dot);
    const bool ext_tae = dot != std::string::npos && base.substr(dot) == ".tae";
    auto digits = [](std::string_view s) {
        return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    if (ext_tae && stem.size() >= 2 && stem.size() <= 4 && stem[0] == 'a' && digits(std::string_view(stem).substr(1)))
        return std::stoi(stem.substr(1));
    if (ext_tae && stem.size() == 5 && stem[0] == 'c' && digits(std::string_view(stem).substr(1))) return 0;
    if (tae_id >= 200000) return 0;
    if (tae_id >= 1000) return tae_id % 1000;
    return -1;
}

int64_t whole_id(int32_t category, int64_t entry_id) {
    // A file's entry id is any 64-bit number: the sum may not fit (the product always does).
    const int64_t base = int64_t(category) * 1000000;
    if (base > 0 ? entry_id > INT64_MAX - base : entry_id < INT64_MIN - base) return -1;
    return base + entry_id;
}

std::string clip_name(int64_t id) {
    if (id < 0 || id > 999999999) return {};
    char buf[16];
    std::snprintf(buf, sizeof buf, "a%03d_%06d", int(id / 1000000), int(id % 1000000));
    return buf;
}

std::vector<ClipEvents> clip_events(const Tae& tae, int32_t category) {
    std::vector<ClipEvents> out;
    if (category < 0) return out;
    const Game game = tae.game();
    for (const auto& e : tae.entries) {
        ClipEvents c;
        c.clip = clip_name(whole_id(category, e.id));
        if (c.clip.empty()) continue;
        if (e.borrows_motion()) c.motion_from = clip_name(e.source_id);
        c.events.reserve(e.events.size());
        for (const auto& ev : e.events) {
            ClipEvent ce;
            ce.type = ev.type;
            ce.name = event_name(ev.type, game);
            ce.start = ev.start;
            ce.end = ev.end;
            ce.group = ev.group >= 0 ? int64_t(e.groups[size_t(ev.group)].type) : -1;
            ce.params = ev.params;
            c.events.push_back(std::move(ce));
        }
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace drape::tae
