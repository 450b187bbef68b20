#include "drape/exporters/havok_json_stream.h"

#include <algorithm>
#include <cmath>

namespace drape::exporters {

using havok::Kind;
using havok::Value;

void write_havok_value_json(JsonWriter& out, const Value& v, size_t max_array, int depth) {
    if (!v.valid()) {
        out.null();
        return;
    }
    if (depth > 24) {
        out.value("<too deep>");
        return;
    }
    switch (v.kind()) {
        case Kind::Bool: out.value(v.as_bool()); return;
        case Kind::Int:
            if (v.type_info().r_format & 0x200) out.value(int64_t(v.as_int()));
            else out.value(uint64_t(v.as_uint()));
            return;
        case Kind::Float: out.value(double(v.as_float())); return;  // non-finite: "nan", "inf", "-inf"
        case Kind::String: out.value(v.as_string()); return;
        case Kind::Pointer: {
            const uint32_t item = v.pointee_item();
            if (!item) out.null();
            else out.begin_object().field("ref", uint64_t(item)).end_object();
            return;
        }
        case Kind::Array: {
            out.begin_array();
            const uint64_t n = v.size();
            const uint64_t shown = max_array ? std::min<uint64_t>(n, max_array) : n;
            for (uint64_t i = 0; i < shown; ++i) write_havok_value_json(out, v.at(i), max_array, depth + 1);
            if (shown < n) out.begin_object().field("truncated", uint64_t(n - shown)).end_object();
            out.end_array();
            return;
        }
        case Kind::Record: {
            out.begin_object();
            for (const auto& m : v.type_info().all_members) {
                if (m.flags & 1) continue;  // not serialised
                out.key(m.name);
                write_havok_value_json(out, v[m.name], max_array, depth + 1);
            }
            out.end_object();
            return;
        }
        default: out.null(); return;
    }
}

void write_havok_json(JsonWriter& out, const havok::File& file, size_t max_array) {
    out.begin_object();
    out.field("form", file.form == havok::Form::packfile ? "packfile" : "tagfile");
    out.field("sdk", file.sdk);
    if (file.compendium_id) out.field("compendium", uint64_t(*file.compendium_id));
    out.field("root", uint64_t(file.root));
    out.key("objects").begin_array();
    for (uint32_t item : file.objects()) {
        const Value v = file.object(item);
        out.begin_object();
        out.field("item", uint64_t(item));
        out.field("class", file.class_name(item));
        out.field("version", uint64_t(v.type_info().r_version));
        out.key("members");
        write_havok_value_json(out, v, max_array);
        out.end_object();
    }
    out.end_array();
    out.end_object();
}

}  // namespace drape::exporters
