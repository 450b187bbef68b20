// drape: typed view of hknpRagdollData and what it references, by member name
// (docs/ragdoll.md).
#include "drape/havok/ragdoll.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "view_util.h"

namespace drape::havok {

using namespace detail;

const char* ragdoll_shape_kind_name(RagdollShapeKind k) {
    switch (k) {
        case RagdollShapeKind::none: return "none";
        case RagdollShapeKind::capsule: return "capsule";
        case RagdollShapeKind::sphere: return "sphere";
        case RagdollShapeKind::convex_polytope: return "convex_polytope";
        case RagdollShapeKind::compressed_mesh: return "compressed_mesh";
        case RagdollShapeKind::other: return "other";
    }
    return "other";
}

const char* ragdoll_constraint_kind_name(RagdollConstraintKind k) {
    switch (k) {
        case RagdollConstraintKind::ragdoll: return "ragdoll";
        case RagdollConstraintKind::limited_hinge: return "limited_hinge";
        case RagdollConstraintKind::fixed: return "fixed";
        case RagdollConstraintKind::other: return "other";
    }
    return "other";
}

std::array<float, 3> unpack_packed_vector3(const std::array<int16_t, 4>& v) {
    // The fourth value is the top half of an f32 scale; x, y, z are the top halves of int32s.
    uint32_t bits = uint32_t(uint16_t(v[3])) << 16;
    float scale;
    std::memcpy(&scale, &bits, 4);
    std::array<float, 3> out{};
    for (int i = 0; i < 3; ++i) out[size_t(i)] = float(double(v[size_t(i)]) * 65536.0 * double(scale));
    return out;
}

namespace {

using Q = std::array<float, 4>;
using V3 = std::array<float, 3>;

Q qmul(const Q& a, const Q& b) {
    return {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1], a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
            a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3], a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
}
Q qconj(const Q& q) { return {-q[0], -q[1], -q[2], q[3]}; }
Q qnorm(Q q) {
    const float n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 1e-12f) || !std::isfinite(n)) return {0, 0, 0, 1};
    for (float& c : q) c /= n;
    return q;
}
V3 qrot(const Q& q, const V3& v) {
    const Q p{v[0], v[1], v[2], 0};
    const Q r = qmul(qmul(q, p), qconj(q));
    return {r[0], r[1], r[2]};
}
RagdollTransform compose(const RagdollTransform& parent, const RagdollTransform& local) {
    RagdollTransform t;
    const V3 r = qrot(parent.rotation, local.translation);
    for (int i = 0; i < 3; ++i) t.translation[size_t(i)] = parent.translation[size_t(i)] + r[size_t(i)];
    t.rotation = qnorm(qmul(parent.rotation, local.rotation));
    return t;
}
RagdollTransform inverse(const RagdollTransform& t) {
    RagdollTransform i;
    i.rotation = qconj(t.rotation);
    const V3 r = qrot(i.rotation, t.translation);
    i.translation = {-r[0], -r[1], -r[2]};
    return i;
}

V3 v3(const Value& v) {
    const Vec4 f = vec4(v);
    return {f[0], f[1], f[2]};
}

std::array<int16_t, 4> i16x4(const Value& v) {
    // hkPackedVector3 is {values: int16[4]} in every table; hkPackedUnitVector<4> is int16[4]
    // itself in drape's 2014 layouts and a record of one int16[4] member in the 2018 registry.
    Value arr = v["values"].valid() ? v["values"] : v;
    if (!arr.is_array() && arr.kind() == Kind::Record && !arr.type_info().all_members.empty())
        arr = arr[arr.type_info().all_members.front().name];
    std::array<int16_t, 4> out{0, 0, 0, 0};
    for (uint64_t i = 0; i < 4 && i < arr.size(); ++i) out[i] = int16_t(arr.at(i).as_int());
    return out;
}

Error not_class(const File& f, uint32_t item, const char* cls) {
    return make_error("item " + std::to_string(item) + " is " + (f.class_name(item).empty() ? "no object" : f.class_name(item)) + ", not " + cls, cls);
}

bool is(const File& f, uint32_t item, std::string_view cls) { return item && item < f.items.size() && f.types.derives_from(f.items[item].type, cls); }

// The polytope's vertices of a convex shape: a real array in tagfiles, a {count, offset} pair
// relative to the member itself in drape's 2014 layouts.
std::vector<Vec4> shape_vertices(const File& f, const Value& shape) {
    const Value v = shape["vertices"];
    if (!v.valid()) return {};
    if (v.is_array()) return vec4s(v);
    const uint64_t n = take(uint64_t(v["count"].as_uint()));
    const uint64_t at = v.offset() + v["offset"].as_uint();
    const uint32_t vt = f.types.find("hkVector4");
    std::vector<Vec4> out;
    if (!vt || n > f.data.size() / 16) return out;
    for (uint64_t i = 0; i < n; ++i) {
        const Value e(&f, vt, at + 16 * i);
        if (e.bytes().size() < 16) break;  // past the data: the bounded view reads nothing more
        out.push_back(vec4(e));
    }
    return out;
}

void read_mass_properties(const File& f, const Value& shape, RagdollShape& s) {
    const uint32_t props = shape["properties"].pointee_item();
    if (!props) return;
    const Value entries = f.object(props)["entries"];
    const uint64_t n = take(entries.size());
    for (uint64_t i = 0; i < n; ++i) {
        const uint32_t o = entries.at(i)["object"].pointee_item();
        if (!is(f, o, "hknpShapeMassProperties")) continue;
        const Value c = f.object(o)["compressedMassProperties"];
        if (!c.valid()) continue;
        s.has_mass_properties = true;
        s.center_of_mass = unpack_packed_vector3(i16x4(c["centerOfMass"]));
        s.inertia = unpack_packed_vector3(i16x4(c["inertia"]));
        s.major_axis_space = i16x4(c["majorAxisSpace"]);
        s.shape_mass = float(c["mass"].as_float());
        s.shape_volume = float(c["volume"].as_float());
        return;
    }
}

RagdollShape read_shape(const File& f, uint32_t item) {
    RagdollShape s;
    if (!item || item >= f.items.size()) return s;
    s.class_name = f.class_name(item);
    const Value v = f.object(item);
    s.convex_radius = float(v["convexRadius"].as_float());
    if (is(f, item, "hknpCapsuleShape")) {
        s.kind = RagdollShapeKind::capsule;
        const Vec4 a = vec4(v["a"]), b = vec4(v["b"]);
        s.a = {a[0], a[1], a[2]};
        s.b = {b[0], b[1], b[2]};
        s.stated_radius = a[3];
        const std::vector<Vec4> verts = shape_vertices(f, v);
        s.vertex_count = uint32_t(verts.size());
        // The polytope passes each end point along the axis by a small margin; the surface is that
        // polytope grown by convexRadius.
        V3 axis{a[0] - b[0], a[1] - b[1], a[2] - b[2]};
        const float len = std::sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
        float margin = 0;
        if (len > 1e-9f && !verts.empty()) {
            for (float& c : axis) c /= len;
            const float top = a[0] * axis[0] + a[1] * axis[1] + a[2] * axis[2];
            for (const Vec4& p : verts) margin = std::max(margin, p[0] * axis[0] + p[1] * axis[1] + p[2] * axis[2] - top);
        }
        s.radius = s.convex_radius + margin;
    } else if (is(f, item, "hknpSphereShape")) {
        s.kind = RagdollShapeKind::sphere;
        const std::vector<Vec4> verts = shape_vertices(f, v);
        s.vertex_count = uint32_t(verts.size());
        // The sphere's polytope is a small box around its centre: the centre is the vertices' mean.
        V3 c{0, 0, 0};
        float half = 0;
        for (const Vec4& p : verts)
            for (int k = 0; k < 3; ++k) c[size_t(k)] += p[size_t(k)] / float(verts.size());
        for (const Vec4& p : verts) half = std::max(half, std::fabs(p[0] - c[0]));
        s.a = s.b = c;
        s.radius = s.convex_radius + half;
    } else if (is(f, item, "hknpConvexPolytopeShape")) {
        s.kind = RagdollShapeKind::convex_polytope;
        s.vertex_count = uint32_t(shape_vertices(f, v).size());
    } else if (is(f, item, "hknpCompressedMeshShape")) {
        s.kind = RagdollShapeKind::compressed_mesh;
    } else {
        s.kind = RagdollShapeKind::other;
    }
    read_mass_properties(f, v, s);
    return s;
}

std::array<float, 16> transform16(const Value& v) { return mat4(v); }

RagdollConstraint read_constraint(const File& f, uint32_t item) {
    RagdollConstraint c;
    uint32_t data = item;
    if (is(f, data, "hknpBreakableConstraintData")) {
        c.breakable = true;
        c.break_threshold = float(f.object(data)["threshold"].as_float());
        data = f.object(data)["constraintData"].pointee_item();
    }
    if (!data || data >= f.items.size()) return c;
    c.class_name = f.class_name(data);
    const Value atoms = f.object(data)["atoms"];
    c.frame_a = transform16(atoms["transforms"]["transformA"]);
    c.frame_b = transform16(atoms["transforms"]["transformB"]);
    c.max_friction_torque = float(atoms["angFriction"]["maxFrictionTorque"].as_float());
    if (is(f, data, "hkpRagdollConstraintData")) {
        c.kind = RagdollConstraintKind::ragdoll;
        const Value tw = atoms["twistLimit"], cone = atoms["coneLimit"], pl = atoms["planesLimit"];
        c.twist_min = float(tw["minAngle"].as_float());
        c.twist_max = float(tw["maxAngle"].as_float());
        c.twist_axis = int32_t(tw["twistAxis"].as_int());
        c.ref_axis = int32_t(tw["refAxis"].as_int());
        c.limit_tau = float(tw["angularLimitsTauFactor"].as_float());
        c.cone_min = float(cone["minAngle"].as_float());
        c.cone_max = float(cone["maxAngle"].as_float());
        c.plane_min = float(pl["minAngle"].as_float());
        c.plane_max = float(pl["maxAngle"].as_float());
        c.motors_enabled = atoms["ragdollMotors"]["isEnabled"].as_bool();
    } else if (is(f, data, "hkpLimitedHingeConstraintData")) {
        c.kind = RagdollConstraintKind::limited_hinge;
        const Value lim = atoms["angLimit"];
        c.hinge_min = float(lim["minAngle"].as_float());
        c.hinge_max = float(lim["maxAngle"].as_float());
        c.limit_tau = float(lim["angularLimitsTauFactor"].as_float());
        c.motors_enabled = atoms["angMotor"]["isEnabled"].as_bool();
    } else if (is(f, data, "hkpFixedConstraintData")) {
        c.kind = RagdollConstraintKind::fixed;
    }
    return c;
}

// The mapper whose skeletonB is the ragdoll skeleton: ragdoll bone -> (character skeleton item, bone).
struct BoneMap {
    uint32_t skeleton_item = 0;
    std::vector<int32_t> bone_of;  // by ragdoll bone
};
BoneMap find_bone_map(const File& f, uint32_t ragdoll_skeleton, size_t ragdoll_bones) {
    BoneMap m;
    for (uint32_t item : f.objects_of("hkaSkeletonMapper")) {
        const Value d = f.object(item)["mapping"];
        if (d["skeletonB"].pointee_item() != ragdoll_skeleton) continue;
        const uint32_t a = d["skeletonA"].pointee_item();
        if (!a || a == ragdoll_skeleton) continue;
        m.skeleton_item = a;
        m.bone_of.assign(ragdoll_bones, -1);
        const Value sm = d["simpleMappings"];
        const uint64_t n = take(sm.size());
        for (uint64_t i = 0; i < n; ++i) {
            const int64_t bb = sm.at(i)["boneB"].as_int(), ba = sm.at(i)["boneA"].as_int();
            if (bb >= 0 && uint64_t(bb) < ragdoll_bones) m.bone_of[size_t(bb)] = int32_t(ba);
        }
        return m;
    }
    return m;
}

std::vector<RagdollTransform> world_pose(const Skeleton& s) {
    std::vector<RagdollTransform> w(s.bone_names.size());
    for (size_t i = 0; i < w.size(); ++i) {
        RagdollTransform local;
        if (i < s.reference_pose.size()) {
            const QsTransform& q = s.reference_pose[i];
            local.translation = {q.translation[0], q.translation[1], q.translation[2]};
            local.rotation = qnorm(q.rotation);
        }
        const int p = i < s.parents.size() ? s.parents[i] : -1;
        // read_skeleton refuses out-of-range parents; a parent after its child is composed from
        // its local pose only (no such skeleton in the games).
        w[i] = p >= 0 && size_t(p) < i ? compose(w[size_t(p)], local) : local;
    }
    return w;
}

}  // namespace

Result<Ragdoll> read_ragdoll(const File& f, uint32_t item) {
    if (!is(f, item, "hknpRagdollData")) return not_class(f, item, "hknpRagdollData");
    BudgetScope budget(f);
    ObjectReader o(f, item);
    Ragdoll r;
    r.item = item;
    const Value materials = o.req("materials");
    const Value motion_props = o.req("motionProperties");
    const Value bodies = o.req("bodyCinfos");
    const Value constraints = o.req("constraintCinfos");
    const Value motion_cinfos = o.opt("motionCinfos");  // 2014 only
    r.name = o.opt("name").as_string();
    const uint32_t skel_item = o.req("skeleton").pointee_item();
    r.bone_to_body = ints<int32_t>(o.req("boneToBodyMap"));
    if (!o.ok()) return o.error();

    const uint64_t nb = take(bodies.size());
    r.declared_bodies = bodies.size();
    const uint64_t n_materials = materials.size(), n_props = motion_props.size(), n_motions = motion_cinfos.size();

    // The ragdoll skeleton and the character's skeleton the mapper names.
    Skeleton ragdoll_skeleton, character;
    std::vector<RagdollTransform> character_world;
    BoneMap map;
    if (skel_item) {
        auto s = read_skeleton(f, skel_item);
        if (!s) return std::move(s.error().within(o.where() + " skeleton"));
        ragdoll_skeleton = std::move(*s);
        r.ragdoll_skeleton = ragdoll_skeleton.name;
        map = find_bone_map(f, skel_item, ragdoll_skeleton.bone_names.size());
        if (map.skeleton_item) {
            auto c = read_skeleton(f, map.skeleton_item);
            if (!c) return std::move(c.error().within("hkaSkeletonMapper skeletonA"));
            character = std::move(*c);
            r.skeleton = character.name;
            character_world = world_pose(character);
        }
    }
    if (r.bone_to_body.size() > ragdoll_skeleton.bone_names.size())
        return make_error("boneToBodyMap has " + std::to_string(r.bone_to_body.size()) + " entries for a ragdoll skeleton of " +
                              std::to_string(ragdoll_skeleton.bone_names.size()) + " bones",
                          o.where() + " boneToBodyMap");

    const Elements be = elements(bodies, nb);
    for (uint64_t i = 0; i < nb; ++i) {
        const Value b = be[i];
        RagdollBody body;
        body.name = b["name"].as_string();
        body.collision_filter_info = uint32_t(b["collisionFilterInfo"].as_uint());
        body.material_id = int32_t(b["materialId"].as_int());
        body.world.translation = v3(b["position"]);
        body.world.rotation = qnorm(vec4(b["orientation"]));
        body.shape = read_shape(f, b["shape"].pointee_item());
        if (b.has("motionType")) body.motion_type = int32_t(b["motionType"].as_int());
        if (body.material_id < 0 || uint64_t(body.material_id) >= n_materials)
            return make_error("body " + std::to_string(i) + " names material " + std::to_string(body.material_id) + " of " +
                                  std::to_string(n_materials),
                              o.where() + " bodyCinfos");
        const Value mat = materials.at(uint64_t(body.material_id));
        body.dynamic_friction = float(mat["dynamicFriction"].as_float());
        body.static_friction = float(mat["staticFriction"].as_float());
        body.restitution = float(mat["restitution"].as_float());
        body.friction_combine = int32_t(mat["frictionCombinePolicy"].as_int());
        body.restitution_combine = int32_t(mat["restitutionCombinePolicy"].as_int());

        // Mass and motion properties: the motion cinfo a 2014 body names, else the body itself.
        int64_t props_id = -1;
        if (motion_cinfos.valid() && b.has("motionId")) {
            body.motion_id = int32_t(b["motionId"].as_int());
            if (body.motion_id < 0 || uint64_t(body.motion_id) >= n_motions)
                return make_error("body " + std::to_string(i) + " names motion " + std::to_string(body.motion_id) + " of " +
                                      std::to_string(n_motions),
                                  o.where() + " bodyCinfos");
            const Value m = motion_cinfos.at(uint64_t(body.motion_id));
            props_id = m["motionPropertiesId"].as_int();
            body.inverse_mass = float(m["inverseMass"].as_float());
            body.mass_factor = float(m["massFactor"].as_float());
            body.mass = body.inverse_mass > 0 ? 1.0f / body.inverse_mass : 0.0f;
            const Vec4 ii = vec4(m["inverseInertiaLocal"]);
            for (int k = 0; k < 3; ++k) body.inertia[size_t(k)] = ii[size_t(k)] > 0 ? 1.0f / ii[size_t(k)] : 0.0f;
        } else {
            props_id = b["motionPropertiesId"].as_int();
            body.mass = float(b["mass"].as_float());
            // The shape's moments are for its own mass; a body of another mass scales them.
            if (body.shape.has_mass_properties && body.shape.shape_mass > 0)
                for (int k = 0; k < 3; ++k) body.inertia[size_t(k)] = body.shape.inertia[size_t(k)] * (body.mass / body.shape.shape_mass);
        }
        body.motion_properties_id = int32_t(props_id);
        if (props_id < 0 || uint64_t(props_id) >= n_props)
            return make_error("body " + std::to_string(i) + " names motion properties " + std::to_string(props_id) + " of " +
                                  std::to_string(n_props),
                              o.where() + " bodyCinfos");
        const Value mp = motion_props.at(uint64_t(props_id));
        body.linear_damping = float(mp["linearDamping"].as_float());
        body.angular_damping = float(mp["angularDamping"].as_float());
        body.gravity_factor = float(mp["gravityFactor"].as_float());
        body.max_linear_speed = float(mp["maxLinearSpeed"].as_float());
        body.max_angular_speed = float(mp["maxAngularSpeed"].as_float());
        body.frame = body.world;
        r.bodies.push_back(std::move(body));
    }

    // Bones: ragdoll bone -> body (boneToBodyMap), ragdoll bone -> character bone (mapper).
    for (size_t bone = 0; bone < r.bone_to_body.size(); ++bone) {
        const int32_t bi = r.bone_to_body[bone];
        if (bi < 0) continue;
        if (size_t(bi) >= r.bodies.size())
            return make_error("ragdoll bone " + std::to_string(bone) + " maps to body " + std::to_string(bi) + " of " + std::to_string(r.bodies.size()),
                              o.where() + " boneToBodyMap");
        RagdollBody& body = r.bodies[size_t(bi)];
        body.ragdoll_bone = int32_t(bone);
        body.ragdoll_bone_name = ragdoll_skeleton.bone_names[bone];
        if (bone < map.bone_of.size()) {
            const int32_t cb = map.bone_of[bone];
            if (cb >= 0 && size_t(cb) < character.bone_names.size()) {
                body.bone = cb;
                body.bone_name = character.bone_names[size_t(cb)];
                body.frame = compose(inverse(character_world[size_t(cb)]), body.world);
            }
        }
    }

    const uint64_t nc = take(constraints.size());
    const Elements ce = elements(constraints, nc);
    for (uint64_t i = 0; i < nc; ++i) {
        const Value c = ce[i];
        RagdollConstraint k = read_constraint(f, c["constraintData"].pointee_item());
        k.name = c["name"].as_string();
        // 2016+: hknpBodyId {serialAndIndex}; 2014: a plain u32.
        auto body_index = [](const Value& v) { return v["serialAndIndex"].valid() ? v["serialAndIndex"].as_int() : v.as_int(); };
        const int64_t a = body_index(c["bodyA"]), b = body_index(c["bodyB"]);
        if (a < 0 || b < 0 || uint64_t(a) >= nb || uint64_t(b) >= nb)
            return make_error("constraint " + std::to_string(i) + " joins bodies " + std::to_string(a) + " and " + std::to_string(b) + " of " +
                                  std::to_string(nb),
                              o.where() + " constraintCinfos");
        k.body_a = int32_t(a);
        k.body_b = int32_t(b);
        r.constraints.push_back(std::move(k));
    }
    if (budget.exhausted()) return budget.error();
    return r;
}

Result<std::vector<Ragdoll>> read_ragdolls(const File& f) {
    BudgetScope budget(f);
    std::vector<Ragdoll> out;
    for (uint32_t item : f.objects_of("hknpRagdollData")) {
        auto r = read_ragdoll(f, item);
        if (!r) return r.error();
        out.push_back(std::move(*r));
    }
    if (budget.exhausted()) return budget.error();
    return out;
}

}  // namespace drape::havok
