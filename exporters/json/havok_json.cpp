#include "drape/exporters/havok_json.h"

#include <cmath>

namespace drape::exporters {

using drape::havok::Kind;
using drape::havok::Value;

nlohmann::json havok_value_json(const Value& v, size_t max_array, int depth) {
    if (!v.valid()) return nullptr;
    if (depth > 24) return "<too deep>";
    switch (v.kind()) {
        case Kind::Bool: return v.as_bool();
        case Kind::Int: {
            const auto& t = v.type_info();
            if (t.r_format & 0x200) return v.as_int();
            return v.as_uint();
        }
        case Kind::Float: {
            const double d = v.as_float();
            if (std::isfinite(d)) return d;
            return std::isnan(d) ? "nan" : (d > 0 ? "inf" : "-inf");
        }
        case Kind::String: return v.as_string();
        case Kind::Pointer: {
            const uint32_t item = v.pointee_item();
            if (!item) return nullptr;
            return nlohmann::json{{"ref", item}};
        }
        case Kind::Array: {
            nlohmann::json a = nlohmann::json::array();
            const uint64_t n = v.size();
            const uint64_t shown = max_array ? std::min<uint64_t>(n, max_array) : n;
            for (uint64_t i = 0; i < shown; ++i) a.push_back(havok_value_json(v.at(i), max_array, depth + 1));
            if (shown < n) a.push_back(nlohmann::json{{"truncated", n - shown}});
            return a;
        }
        case Kind::Record: {
            nlohmann::json o = nlohmann::json::object();
            for (const auto& m : v.type_info().all_members) {
                if (m.flags & 1) continue;  // not serialised
                o[m.name] = havok_value_json(v[m.name], max_array, depth + 1);
            }
            return o;
        }
        default: return nullptr;
    }
}

nlohmann::json havok_json(const drape::havok::File& file, size_t max_array) {
    nlohmann::json j;
    j["form"] = file.form == drape::havok::Form::packfile ? "packfile" : "tagfile";
    j["sdk"] = file.sdk;
    if (file.compendium_id) j["compendium"] = *file.compendium_id;
    j["root"] = file.root;
    nlohmann::json objs = nlohmann::json::array();
    for (uint32_t item : file.objects()) {
        const Value v = file.object(item);
        nlohmann::json o;
        o["item"] = item;
        o["class"] = file.class_name(item);
        o["version"] = v.type_info().r_version;
        o["members"] = havok_value_json(v, max_array);
        objs.push_back(std::move(o));
    }
    j["objects"] = std::move(objs);
    return j;
}

}  // namespace drape::exporters
