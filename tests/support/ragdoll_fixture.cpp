// Test support: the minimal 2018 ragdoll tagfile (ragdoll_fixture.h).
#include "ragdoll_fixture.h"

#include "corpus.h"
#include "tagfile_writer.h"

namespace drape::test {

namespace {

using Slot = TagfileWriter::Slot;

uint32_t new_object(TagfileWriter& w, const char* cls) { return w.add_object(w.type(cls)); }

// Fills the floats of a record or fixed array in member order (hkVector4, hkQsTransform...).
void fill(const TagfileWriter& w, const Slot& s, const std::vector<float>& f, size_t& k) {
    const havok::TypeTable& t = w.types();
    switch (s.kind()) {
        case havok::Kind::Float: s.set_float(k < f.size() ? f[k] : 0.0f), ++k; return;
        case havok::Kind::Array: {
            const auto& ti = t.at(s.type);
            if (!(ti.r_format & 0x20)) return;
            for (uint64_t i = 0; i < (ti.r_format >> 8); ++i) fill(w, s.at(i), f, k);
            return;
        }
        case havok::Kind::Record:
            for (const auto& m : t.at(s.type).all_members)
                if (!(m.flags & 1)) fill(w, s[m.name], f, k);
            return;
        default: return;
    }
}
void floats(const TagfileWriter& w, const Slot& s, const std::vector<float>& f) {
    size_t k = 0;
    fill(w, s, f, k);
}

void skeleton(TagfileWriter& w, uint32_t item, const char* name, const char* b0, const char* b1, float y1) {
    Slot s = w.object(item);
    s["name"].set_string(name);
    s["parentIndices"].resize(2);
    s["parentIndices"].at(0).set_int(-1);
    s["parentIndices"].at(1).set_int(0);
    s["bones"].resize(2);
    s["bones"].at(0)["name"].set_string(b0);
    s["bones"].at(1)["name"].set_string(b1);
    s["referencePose"].resize(2);
    floats(w, s["referencePose"].at(0), {0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1});
    floats(w, s["referencePose"].at(1), {0, y1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1});
}

}  // namespace

Result<std::vector<uint8_t>> ragdoll_tagfile(const RagdollFixtureOptions& o) {
    using F = RagdollFixtureFacts;
    auto registry = load_registry_xml(reference_dir() / "havok" / "HavokTypeRegistry20180100.xml");
    if (!registry) return registry.error();
    const havok::TypeTable types =
        closure(*registry, {"hkRootLevelContainer", "char", "hkaAnimationContainer", "hkaSkeleton", "hkaSkeletonMapper", "hknpRagdollData",
                            "hknpCapsuleShape", "hkRefCountedProperties", "hknpShapeMassProperties", "hkpRagdollConstraintData"});
    TagfileWriter w(TagfileFlavour::v2018, types);
    for (const char* c : {"hknpRagdollData", "hknpCapsuleShape", "hkpRagdollConstraintData", "hkaSkeletonMapper", "hknpShapeMassProperties"})
        if (!w.type(c)) return make_error(std::string("the registry has no type ") + c);

    const uint32_t root = new_object(w, "hkRootLevelContainer");
    const uint32_t anim = new_object(w, "hkaAnimationContainer");
    const uint32_t master = new_object(w, "hkaSkeleton");
    const uint32_t rskel = new_object(w, "hkaSkeleton");
    const uint32_t ragdoll = new_object(w, "hknpRagdollData");
    const uint32_t mapper = new_object(w, "hkaSkeletonMapper");
    {
        Slot nv = w.object(root)["namedVariants"];
        nv.resize(3);
        nv.at(0)["name"].set_string("Merged Animation Container");
        nv.at(0)["className"].set_string("hkaAnimationContainer");
        nv.at(0)["variant"].set_pointer(anim);
        nv.at(1)["name"].set_string("Physics Ragdoll");
        nv.at(1)["className"].set_string("hknpRagdollData");
        nv.at(1)["variant"].set_pointer(o.ragdoll_is_skeleton ? rskel : ragdoll);
        nv.at(2)["name"].set_string("SkeletonMapper");
        nv.at(2)["className"].set_string("hkaSkeletonMapper");
        nv.at(2)["variant"].set_pointer(mapper);
        Slot sk = w.object(anim)["skeletons"];
        sk.resize(2);
        sk.at(0).set_pointer(master);
        sk.at(1).set_pointer(rskel);
    }
    skeleton(w, master, "Master", "Pelvis", "Spine", F::bone1_y);
    skeleton(w, rskel, "Ragdoll_Pelvis", "Ragdoll_Pelvis", "Ragdoll_Spine", F::body1_y);
    {
        Slot m = w.object(mapper)["mapping"];
        m["skeletonA"].set_pointer(master);
        m["skeletonB"].set_pointer(rskel);
        m["simpleMappings"].resize(2);
        for (int i = 0; i < 2; ++i) {
            m["simpleMappings"].at(uint64_t(i))["boneA"].set_int(i);
            m["simpleMappings"].at(uint64_t(i))["boneB"].set_int(i);
            floats(w, m["simpleMappings"].at(uint64_t(i))["aFromBTransform"], {0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1});
        }
    }
    uint32_t shapes[2];
    for (int i = 0; i < 2; ++i) {
        shapes[i] = new_object(w, "hknpCapsuleShape");
        Slot s = w.object(shapes[i]);
        s["convexRadius"].set_float(F::radius);
        floats(w, s["a"], {0, F::half_length, 0, F::radius});
        floats(w, s["b"], {0, -F::half_length, 0, 0});
        const uint32_t props = new_object(w, "hkRefCountedProperties");
        const uint32_t mass = new_object(w, "hknpShapeMassProperties");
        s["properties"].set_pointer(props);
        Slot e = w.object(props)["entries"];
        e.resize(1);
        e.at(0)["object"].set_pointer(mass);
        e.at(0)["key"].set_int(0xF100);
        Slot c = w.object(mass)["compressedMassProperties"];
        // Packed inertia {2, 1, 2} with the scale word 0x3780 (the f32 2^-16, times 2^16): (2, 1, 2) kg m^2.
        const int16_t in[4] = {2, 1, 2, 0x3780};  // 0x37800000 = 2^-16
        Slot iv = c["inertia"]["values"];
        for (uint64_t k = 0; k < 4; ++k) iv.at(k).set_int(in[k]);
        c["mass"].set_float(i == 0 ? F::mass0 : F::mass1);
        c["volume"].set_float(0.01);
    }
    Slot r = w.object(ragdoll);
    r["name"].set_string("Default Physics System Data");
    r["materials"].resize(1);
    r["materials"].at(0)["dynamicFriction"].set_float(F::friction);
    r["materials"].at(0)["staticFriction"].set_float(F::friction);
    r["motionProperties"].resize(1);
    r["motionProperties"].at(0)["linearDamping"].set_float(0.5);
    r["motionProperties"].at(0)["angularDamping"].set_float(1.0);
    r["motionProperties"].at(0)["maxLinearSpeed"].set_float(200.0);
    r["motionProperties"].at(0)["maxAngularSpeed"].set_float(100.0);
    r["motionProperties"].at(0)["gravityFactor"].set_float(1.0);
    Slot bodies = r["bodyCinfos"];
    bodies.resize(2);
    for (int i = 0; i < 2; ++i) {
        Slot b = bodies.at(uint64_t(i));
        b["shape"].set_pointer(shapes[i]);
        b["name"].set_string(i == 0 ? "Ragdoll_Pelvis" : "Ragdoll_Spine");
        b["collisionFilterInfo"].set_int(i == 0 ? 32800 : 33952);
        b["materialId"].set_int(i == 0 ? 0 : o.material_id);
        b["motionPropertiesId"].set_int(i == 0 ? 0 : o.motion_properties_id);
        b["motionType"].set_int(2);
        b["mass"].set_float(i == 0 ? F::mass0 : F::mass1);
        floats(w, b["position"], {0, i == 0 ? 0.0f : F::body1_y, 0, 1});
        floats(w, b["orientation"], {0, 0, 0, 1});
    }
    Slot cons = r["constraintCinfos"];
    cons.resize(1);
    const uint32_t data = new_object(w, "hkpRagdollConstraintData");
    cons.at(0)["constraintData"].set_pointer(data);
    cons.at(0)["bodyA"]["serialAndIndex"].set_int(1);
    cons.at(0)["bodyB"]["serialAndIndex"].set_int(o.constraint_body_b);
    cons.at(0)["name"].set_string("hkRagdollConstraint001");
    {
        Slot a = w.object(data)["atoms"];
        floats(w, a["transforms"]["transformA"], {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
        floats(w, a["transforms"]["transformB"], {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, F::body1_y, 0, 1});
        a["twistLimit"]["minAngle"].set_float(F::twist_min);
        a["twistLimit"]["maxAngle"].set_float(F::twist_max);
        a["coneLimit"]["minAngle"].set_float(-100.0);
        a["coneLimit"]["maxAngle"].set_float(F::cone_max);
        a["planesLimit"]["minAngle"].set_float(F::plane_min);
        a["planesLimit"]["maxAngle"].set_float(F::plane_max);
    }
    r["skeleton"].set_pointer(rskel);
    Slot map = r["boneToBodyMap"];
    map.resize(o.extra_bone_to_body != -2 ? 3 : 2);
    map.at(0).set_int(0);
    map.at(1).set_int(o.bone_to_body_1);
    if (o.extra_bone_to_body != -2) map.at(2).set_int(o.extra_bone_to_body);
    return w.finish();
}

}  // namespace drape::test
