// Test support: TAE writer (tae_fixture.h).
#include "tae_fixture.h"

#include <cstring>

namespace drape::test {

namespace {

struct Writer {
    std::vector<uint8_t> b;
    size_t pos() const { return b.size(); }
    template <class T>
    void put(T v) {
        uint8_t raw[sizeof(T)];
        std::memcpy(raw, &v, sizeof(T));
        b.insert(b.end(), raw, raw + sizeof(T));
    }
    template <class T>
    void patch(size_t at, T v) {
        std::memcpy(b.data() + at, &v, sizeof(T));
    }
    void pad(size_t a) {
        while (b.size() % a) b.push_back(0);
    }
    void utf16(const std::string& s) {
        for (char c : s) put<uint16_t>(uint16_t(uint8_t(c)));
        put<uint16_t>(0);
    }
};

}  // namespace

std::vector<uint8_t> make_tae(const TaeSpec& spec) {
    Writer w;
    const auto n = spec.entries.size();
    w.b.insert(w.b.end(), {'T', 'A', 'E', ' ', 0, 0, 0, 0xFF});
    w.put<uint32_t>(spec.version);
    w.put<uint32_t>(0);  // file size, patched
    for (int64_t v : {int64_t(0x40), int64_t(1), int64_t(0x50), int64_t(0x80)}) w.put<int64_t>(v);
    w.put<int64_t>(spec.event_bank);
    w.put<int64_t>(0);
    for (uint8_t f : {1, 0, 1, 2, 2, 1, 1, 1}) w.put<uint8_t>(f);
    w.put<int64_t>(1);
    w.put<int32_t>(spec.id);
    w.put<int32_t>(int32_t(n));
    const size_t entries_at = w.pos();
    w.put<int64_t>(0);  // entries offset
    w.put<int64_t>(0);  // ranges offset
    w.put<int64_t>(0xA0);
    w.put<int64_t>(int64_t(n));
    const size_t first_body_at = w.pos();
    w.put<int64_t>(0);
    w.put<int64_t>(1);
    w.put<int64_t>(0x90);
    w.put<int32_t>(spec.id);
    w.put<int32_t>(spec.id);
    w.put<int64_t>(0x50);
    w.put<int64_t>(0);
    w.put<int64_t>(0xB0);
    const size_t names_at = w.pos();
    w.put<int64_t>(0);
    w.put<int64_t>(0);
    w.put<int64_t>(0);
    w.put<int64_t>(0);
    w.patch<int64_t>(names_at, int64_t(w.pos()));
    w.utf16(spec.skeleton_name);
    w.pad(16);
    w.patch<int64_t>(names_at + 8, int64_t(w.pos()));
    w.utf16(spec.sib_name);
    w.pad(16);

    w.patch<int64_t>(entries_at, int64_t(w.pos()));
    std::vector<size_t> body_refs;
    for (const auto& e : spec.entries) {
        w.put<int64_t>(e.id);
        body_refs.push_back(w.pos());
        w.put<int64_t>(0);
    }
    w.patch<int64_t>(entries_at + 8, int64_t(w.pos()));
    // One range per entry (the games join consecutive ids; the reader does not use them).
    w.put<int64_t>(int64_t(n));
    w.put<int64_t>(int64_t(w.pos() + 8));
    for (size_t i = 0; i < n; ++i) {
        w.put<int32_t>(int32_t(spec.entries[i].id));
        w.put<int32_t>(int32_t(spec.entries[i].id));
        w.put<int64_t>(0);
    }
    std::vector<size_t> bodies;
    w.patch<int64_t>(first_body_at, int64_t(w.pos()));
    for (size_t i = 0; i < n; ++i) {
        w.patch<int64_t>(body_refs[i], int64_t(w.pos()));
        bodies.push_back(w.pos());
        for (int k = 0; k < 4; ++k) w.put<int64_t>(0);
        w.put<int32_t>(int32_t(spec.entries[i].events.size()));
        w.put<int32_t>(int32_t(spec.entries[i].groups.size()));
        w.put<int32_t>(int32_t(spec.entries[i].events.size() * 2));
        w.put<int32_t>(0);
    }
    for (size_t i = 0; i < n; ++i) {
        const auto& e = spec.entries[i];
        const size_t body = bodies[i];
        // file block
        w.patch<int64_t>(body + 24, int64_t(w.pos()));
        const size_t file_at = w.pos();
        w.put<int64_t>(int64_t(e.file_kind));
        w.put<int64_t>(int64_t(file_at + 16));
        w.put<int64_t>(0);  // name offset, patched
        if (e.file_kind == 1) {
            w.put<int32_t>(e.source_id);
            w.put<int32_t>(0);
        } else {
            w.put<uint8_t>(0);
            w.put<uint8_t>(e.imports_motion ? 1 : 0);
            w.put<uint8_t>(0);
            w.put<uint8_t>(0);
            w.put<int32_t>(e.source_id);
        }
        w.put<int64_t>(0);
        w.put<int64_t>(0);
        w.patch<int64_t>(file_at + 16, int64_t(w.pos()));
        if (e.file_kind == 0) {
            w.utf16(e.file_name);
            w.pad(16);
        }
        if (e.events.empty()) continue;
        // times: start and end of every event
        w.patch<int64_t>(body + 16, int64_t(w.pos()));
        std::vector<size_t> time_at;
        for (const auto& ev : e.events) {
            time_at.push_back(w.pos());
            w.put<float>(ev.start);
            w.put<float>(ev.end);
        }
        w.pad(16);
        w.patch<int64_t>(body, int64_t(w.pos()));
        const size_t headers = w.pos();
        for (size_t k = 0; k < e.events.size(); ++k) {
            w.put<int64_t>(int64_t(time_at[k]));
            w.put<int64_t>(int64_t(time_at[k] + 4));
            w.put<int64_t>(0);  // data, patched
        }
        w.pad(16);
        for (size_t k = 0; k < e.events.size(); ++k) {
            w.patch<int64_t>(headers + k * 24 + 16, int64_t(w.pos()));
            w.put<uint32_t>(e.events[k].type);
            w.put<uint32_t>(0);
            w.put<int64_t>(int64_t(w.pos() + 8));
            w.b.insert(w.b.end(), e.events[k].params.begin(), e.events[k].params.end());
            w.pad(16);
        }
        if (e.groups.empty()) continue;
        w.patch<int64_t>(body + 8, int64_t(w.pos()));
        const size_t group_headers = w.pos();
        for (const auto& g : e.groups) {
            w.put<int64_t>(int64_t(g.events.size()));
            w.put<int64_t>(0);
            w.put<int64_t>(0);
            w.put<int64_t>(0);
        }
        for (size_t g = 0; g < e.groups.size(); ++g) {
            w.patch<int64_t>(group_headers + g * 32 + 16, int64_t(w.pos()));
            w.put<uint32_t>(e.groups[g].type);
            w.put<uint32_t>(0);
            w.put<int64_t>(0);
            w.patch<int64_t>(group_headers + g * 32 + 8, int64_t(w.pos()));
            for (uint32_t k : e.groups[g].events) w.put<int32_t>(int32_t(headers + k * 24));
            w.pad(16);
        }
    }
    w.patch<uint32_t>(12, uint32_t(w.pos()));
    return w.b;
}

TaeSpec small_tae_spec() {
    TaeSpec s;
    TaeEntrySpec a;
    a.id = 3000;
    a.file_name = "a000_003000.hkt";
    a.events.push_back({0, 0.0f, 0.5f, {8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}});
    a.events.push_back({16, 0.0f, 1.0f / 3.0f, {}});
    a.events.push_back({9999, 0.25f, 0.75f, {0xDE, 0xAD, 0xBE, 0xEF, 1, 2, 3, 4}});
    a.groups.push_back({0, {0}});
    a.groups.push_back({16, {1}});
    TaeEntrySpec b;
    b.id = 3001;
    b.file_kind = 1;
    b.source_id = 3000;
    s.entries = {a, b};
    return s;
}

}  // namespace drape::test
