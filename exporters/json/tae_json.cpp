// drape: TAE events as JSON (drape/exporters/tae_json.h).
#include "drape/exporters/tae_json.h"

#include <charconv>
#include <cmath>
#include <sstream>

namespace drape::exporters {

namespace {

// The f32 as the double its shortest decimal reads as (0.3f -> 0.3, not 0.30000001192092896).
double shortest(float v) {
    if (!std::isfinite(v)) return double(v);
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    double d = 0;
    std::from_chars(buf, r.ptr, d);
    return d;
}

std::string to_hex(std::span<const uint8_t> bytes) {
    static constexpr char k_hex[] = "0123456789abcdef";
    std::string s;
    s.reserve(bytes.size() * 2);
    for (uint8_t b : bytes) {
        s.push_back(k_hex[b >> 4]);
        s.push_back(k_hex[b & 15]);
    }
    return s;
}

}  // namespace

void write_event_json(JsonWriter& w, const tae::ClipEvent& e) {
    w.begin_object();
    w.field("type", uint64_t(e.type));
    w.field("name", e.name);
    w.field("start", shortest(e.start));
    w.field("end", shortest(e.end));
    w.field("group", int64_t(e.group));
    w.field("params", to_hex(e.params));
    w.end_object();
}

void write_events_json(JsonWriter& w, std::span<const tae::ClipEvent> events) {
    w.begin_array();
    for (const auto& e : events) write_event_json(w, e);
    w.end_array();
}

std::string clip_extras_json(std::span<const tae::ClipEvent> events, const std::string& motion_from) {
    std::ostringstream os;
    JsonWriter w(os, 0);
    w.begin_object();
    w.key("events");
    write_events_json(w, events);
    if (!motion_from.empty()) w.field("motion_from", motion_from);
    w.end_object();
    return os.str();
}

void write_tae_json(JsonWriter& w, const tae::Tae& t, int32_t category) {
    w.begin_object();
    w.field("id", int64_t(t.id));
    w.field("category", int64_t(category));
    w.field("game", tae::game_name(t.game()));
    w.field("version", uint64_t(t.version));
    w.field("event_bank", int64_t(t.event_bank));
    w.field("event_count", uint64_t(t.event_count()));
    w.key("entries").begin_array();
    for (const auto& c : tae::clip_events(t, category < 0 ? 0 : category)) {
        w.begin_object();
        w.field("clip", c.clip);
        if (!c.motion_from.empty()) w.field("motion_from", c.motion_from);
        w.key("events");
        write_events_json(w, c.events);
        w.end_object();
    }
    w.end_array();
    w.end_object();
}

}  // namespace drape::exporters
