// drape: the JSON dump of a Havok file's object graph (`drape inspect FILE.hkx --json`).
#pragma once

#include <nlohmann/json.hpp>

#include "drape/havok/hkx.h"

namespace drape::exporters {

// {"form", "sdk", "root", "objects": [{"item", "class", "version", "members": {...}}]}.
// Pointers print as {"ref": item}; arrays longer than `max_array` elements are cut with a
// "truncated" count (0 = no limit).
nlohmann::json havok_json(const drape::havok::File& file, size_t max_array = 64);
// One value (a member or an object) as JSON.
nlohmann::json havok_value_json(const drape::havok::Value& v, size_t max_array = 64, int depth = 0);

}  // namespace drape::exporters
