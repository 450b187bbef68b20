#include "havok_fixtures.h"

#include <map>

#include "corpus.h"

namespace drape::test {

using havok::Kind;
using havok::Member;
using havok::Type;
using havok::TypeTable;

namespace {

const std::map<std::string, std::vector<std::string>>& concrete() {
    static const std::map<std::string, std::vector<std::string>> m = {
        {"hkReferencedObject", {"hkaAnimationContainer", "hclClothContainer"}},
        {"hclConstraintSet",
         {"hclStandardLinkConstraintSet", "hclStretchLinkConstraintSet", "hclBendLinkConstraintSet", "hclBendStiffnessConstraintSet",
          "hclCompressibleLinkConstraintSet", "hclLocalRangeConstraintSet", "hclTransitionConstraintSet", "hclVolumeConstraintMx"}},
        {"hclOperator",
         {"hclObjectSpaceSkinPOperator", "hclObjectSpaceSkinPNOperator", "hclObjectSpaceSkinPNTOperator", "hclBoneSpaceSkinPOperator",
          "hclBoneSpaceSkinPNOperator", "hclBoneSpaceSkinPNTOperator", "hclMoveParticlesOperator", "hclSimulateOperator",
          "hclCopyVerticesOperator", "hclGatherAllVerticesOperator", "hclGatherSomeVerticesOperator", "hclInputConvertOperator",
          "hclOutputConvertOperator", "hclUpdateAllVertexFramesOperator", "hclUpdateSomeVertexFramesOperator",
          "hclSimpleMeshBoneDeformOperator", "hclMeshBoneDeformOperator", "hclObjectSpaceMeshMeshDeformPOperator",
          "hclObjectSpaceMeshMeshDeformPNOperator", "hclObjectSpaceMeshMeshDeformPNTOperator", "hclBoneSpaceMeshMeshDeformPOperator",
          "hclBoneSpaceMeshMeshDeformPNOperator", "hclBoneSpaceMeshMeshDeformPNTOperator"}},
        {"hclShape", {"hclSphereShape", "hclPlaneShape", "hclCapsuleShape", "hclTaperedCapsuleShape", "hclConvexGeometryShape"}},
        {"hclBufferDefinition", {"hclBufferDefinition", "hclScratchBufferDefinition", "hclShadowBufferDefinition"}},
        {"hkaSkeleton", {"hkaSkeleton"}},
        {"hclClothData", {"hclClothData"}},
        {"hclSimClothData", {"hclSimClothData"}},
        {"hclSimClothPose", {"hclSimClothPose"}},
        {"hclCollidable", {"hclCollidable", "hclCollidable", "hclCollidable", "hclCollidable", "hclCollidable"}},  // 5 per array: every shape
        {"hclTransformSetDefinition", {"hclTransformSetDefinition"}},
        {"hclClothState", {"hclClothState"}},
    };
    return m;
}

constexpr int k_max_depth = 5;  // pointer hops

// The value sequence both walks draw from.
struct Sequence {
    uint64_t n = 0;
    std::map<std::string, size_t> cycle;  // next concrete class per declared pointee
    int64_t next_int() { return int64_t(n++ % 100); }
    double next_float() { return double(n++ % 64) * 0.25; }
    std::string next_string() {
        std::string s(1, 's');
        s.append(std::to_string(n++));
        return s;
    }
    // The class a pointer to `declared` gets, or "" for null.
    std::string next_class(const std::string& declared, int depth) {
        if (depth >= k_max_depth) return {};
        auto it = concrete().find(declared);
        if (it == concrete().end()) return {};
        size_t& k = cycle[declared];
        return it->second[k++ % it->second.size()];
    }
    uint64_t array_length(const TypeTable& t, uint32_t elem, int depth) {
        if (depth >= k_max_depth) return 0;
        if (t.kind(elem) == Kind::Pointer) {
            auto it = concrete().find(t.at(t.at(elem).r_subtype).name);
            if (it != concrete().end()) return it->second.size() > 1 ? it->second.size() : 1;
            return 0;
        }
        return 2;
    }
};

bool skip_member(const Member& m, const TypeTable& t) {
    if (m.flags & 1) return true;  // not serialised
    if (m.name == "propertyBag") return true;
    const Kind k = t.kind(m.type);
    return k == Kind::Opaque || k == Kind::Void;
}

void fill(TagfileWriter& w, const TagfileWriter::Slot& s, Sequence& q, int depth) {
    const TypeTable& t = w.types();
    switch (s.kind()) {
        case Kind::Bool: s.set_int(q.next_int() & 1); break;
        case Kind::Int: s.set_int(q.next_int()); break;
        case Kind::Float: s.set_float(q.next_float()); break;
        case Kind::String: s.set_string(q.next_string()); break;
        case Kind::Pointer: {
            const std::string declared = t.at(t.at(s.type).r_subtype).name;
            const std::string cls = q.next_class(declared, depth);
            if (cls.empty()) break;
            const uint32_t item = w.add_object(t.find(cls));
            s.set_pointer(item);
            fill(w, w.object(item), q, depth + 1);
            break;
        }
        case Kind::Array: {
            const Type& at = t.at(s.type);
            const uint64_t n = (at.r_format & 0x20) ? s.resize(0) : s.resize(q.array_length(t, at.r_subtype, depth));
            for (uint64_t i = 0; i < n; ++i) fill(w, s.at(i), q, depth);
            break;
        }
        case Kind::Record:
            for (const Member& m : t.at(s.type).all_members)
                if (!skip_member(m, t)) fill(w, s[m.name], q, depth);
            break;
        default: break;
    }
}

bool verify(const havok::Value& v, Sequence& q, int depth, std::string& err, const std::string& path) {
    if (!err.empty()) return false;
    const TypeTable& t = v.file()->types;
    auto fail = [&](const std::string& what) {
        err = path + ": " + what;
        return false;
    };
    switch (v.kind()) {
        case Kind::Bool: {
            const int64_t e = q.next_int() & 1;
            if (v.as_int() != e) return fail("bool " + std::to_string(v.as_int()) + " != " + std::to_string(e));
            return true;
        }
        case Kind::Int: {
            const int64_t e = q.next_int();
            if (v.as_int() != e) return fail("int " + std::to_string(v.as_int()) + " != " + std::to_string(e));
            return true;
        }
        case Kind::Float: {
            const double e = q.next_float();
            if (v.as_float() != e) return fail("float " + std::to_string(v.as_float()) + " != " + std::to_string(e));
            return true;
        }
        case Kind::String: {
            std::string e = q.next_string();
            if (v.type_info().r_format & 0x20) e = e.substr(0, v.type_info().r_size ? v.type_info().r_size - 1 : 0);
            if (v.as_string() != e) return fail("string '" + v.as_string() + "' != '" + e + "'");
            return true;
        }
        case Kind::Pointer: {
            const std::string declared = t.at(v.type_info().r_subtype).name;
            const std::string cls = q.next_class(declared, depth);
            const uint32_t item = v.pointee_item();
            if (cls.empty()) return item == 0 ? true : fail("pointer should be null");
            if (v.file()->class_name(item) != cls) return fail("points to " + v.file()->class_name(item) + ", not " + cls);
            return verify(v.file()->object(item), q, depth + 1, err, path + "->" + cls);
        }
        case Kind::Array: {
            const Type& at = v.type_info();
            const uint64_t e = (at.r_format & 0x20) ? (at.r_format >> 8) : q.array_length(t, at.r_subtype, depth);
            if (v.size() != e) return fail("array of " + std::to_string(v.size()) + ", not " + std::to_string(e));
            for (uint64_t i = 0; i < e; ++i)
                if (!verify(v.at(i), q, depth, err, path + "[" + std::to_string(i) + "]")) return false;
            return true;
        }
        case Kind::Record:
            for (const Member& m : v.type_info().all_members)
                if (!skip_member(m, t) && !verify(v[m.name], q, depth, err, path + "." + m.name)) return false;
            return true;
        default: return true;
    }
}

}  // namespace

const std::vector<std::string>& fixture_classes() {
    static const std::vector<std::string> v = [] {
        std::vector<std::string> r = {"hkRootLevelContainer", "char"};
        for (const auto& [k, list] : concrete())
            for (const auto& c : list) r.push_back(c);
        return r;
    }();
    return v;
}

Result<TypeTable> fixture_types(ClothGame game) {
    auto full = load_registry_xml(reference_dir() / "havok" / "HavokTypeRegistry20180100.xml");
    if (!full) return full.error();
    TypeTable t = closure(*full, fixture_classes());
    if (game != ClothGame::elden_ring) {
        if (game == ClothGame::sekiro) relayout_16_byte_referenced_object(t);
        if (uint32_t s = t.find("hclSimClothData")) t.types[s].version = 13;
        auto r = t.resolve();
        if (!r) return r.error();
    }
    return t;
}

std::vector<uint8_t> synthesize_cloth(ClothGame game, const TypeTable& types) {
    const TagfileFlavour flavour = game == ClothGame::sekiro       ? TagfileFlavour::v2016
                                   : game == ClothGame::elden_ring ? TagfileFlavour::v2018
                                                                   : TagfileFlavour::v2016_as_sekiro;
    TagfileWriter w(flavour, types);
    Sequence q;
    const uint32_t root = w.add_object(types.find("hkRootLevelContainer"));
    fill(w, w.object(root), q, 0);
    return w.finish();
}

std::string verify_synthesized(const havok::File& file) {
    Sequence q;
    std::string err;
    verify(file.object(file.root), q, 0, err, "root");
    return err;
}

}  // namespace drape::test
