// drape: TAE events as JSON, the one form every output uses: a glTF animation's
// `extras.events` / `extras.motion_from` and `drape inspect --json` (docs/animation.md#events).
//
// An event is {"type": N, "name": "...", "start": s, "end": s, "group": N, "params": "hex"}:
// `name` is "" for a type the name table does not know for the game, `group` the type of the
// event group that lists it (-1 none), `params` the stored parameter bytes in lower-case hex.
// Times are seconds, written as the shortest decimal that reads back to the stored f32.
#pragma once

#include <span>
#include <string>

#include "drape/io/json_writer.h"
#include "drape/tae/tae.h"

namespace drape::exporters {

// One event object.
void write_event_json(JsonWriter& w, const tae::ClipEvent& e);
// The array of events.
void write_events_json(JsonWriter& w, std::span<const tae::ClipEvent> events);
// {"events": [...], "motion_from": "aXXX_YYYYYY"} (motion_from only when set) as compact text:
// the `extras` object of a glTF animation.
std::string clip_extras_json(std::span<const tae::ClipEvent> events, const std::string& motion_from);
// A whole TAE for `inspect --json`: {"id", "category", "game", "version", "entries": [{"id",
// "clip", "motion_from"?, "events": [...]}]}.
void write_tae_json(JsonWriter& w, const tae::Tae& t, int32_t category);

}  // namespace drape::exporters
