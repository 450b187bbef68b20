// drape: the JSON dump of a Havok file's object graph, streamed (`drape inspect --json`,
// `--full`, `--max-array N`). Writes the same document as havok_json() (drape/exporters/
// havok_json.h) element by element through a JsonWriter, so dumping every element of a large
// file needs memory for the nesting depth only, never for the whole document.
#pragma once

#include <cstddef>

#include "drape/havok/hkx.h"
#include "drape/io/json_writer.h"

namespace drape::exporters {

// {"form", "sdk", "compendium"?, "root", "objects": [{"item", "class", "version", "members"}]}.
// Pointers are {"ref": item}; an array longer than `max_array` elements is cut after
// `max_array` of them with a last element {"truncated": count left out} (0 = every element).
void write_havok_json(JsonWriter& out, const havok::File& file, size_t max_array = 64);
// One value (a member or an object).
void write_havok_value_json(JsonWriter& out, const havok::Value& v, size_t max_array = 64, int depth = 0);

}  // namespace drape::exporters
