#include "havok_walk.h"

#include <cstring>

#include "drape/havok/animation.h"
#include "drape/havok/cloth.h"
#include "drape/havok/ragdoll.h"

namespace drape::test {

using havok::Kind;
using havok::Value;

static void walk(const Value& v, uint64_t& sum, int depth, uint64_t& budget) {
    if (!v.valid() || depth > 32 || budget == 0) return;
    --budget;
    switch (v.kind()) {
        case Kind::Bool:
        case Kind::Int: sum += uint64_t(v.as_int()); break;
        case Kind::Float: {
            const float f = float(v.as_float());
            uint32_t b;
            std::memcpy(&b, &f, 4);
            sum += b;
            break;
        }
        case Kind::String: sum += v.as_string().size(); break;
        case Kind::Pointer: sum += v.pointee_item(); break;
        case Kind::Array: {
            const uint64_t n = v.size();
            for (uint64_t i = 0; i < n && budget; ++i) walk(v.at(i), sum, depth + 1, budget);
            break;
        }
        case Kind::Record:
            for (const auto& m : v.type_info().all_members) walk(v[m.name], sum, depth + 1, budget);
            break;
        default: break;
    }
}

uint64_t walk_havok(const havok::File& f) {
    uint64_t sum = 0, budget = 1u << 22;
    for (uint32_t item : f.objects()) walk(f.object(item), sum, 0, budget);
    if (auto a = havok::read_animation_container(f)) {
        sum += a->skeletons.size() + a->animations.size();
        if (auto c = hcl::read_cloth(f)) sum += hcl::check(*c, a->skeletons).size() + c->cloth_datas.size();
    } else if (auto c = hcl::read_cloth(f)) {
        sum += hcl::check(*c, {}).size();
    }
    sum += hcl::census(f).size();
    if (auto r = havok::read_ragdolls(f))
        for (const auto& rd : *r) sum += rd.bodies.size() + rd.constraints.size();
    return sum;
}

}  // namespace drape::test
