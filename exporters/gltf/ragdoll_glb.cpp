// drape: ragdoll bodies as glTF nodes with the OMI physics extensions (ragdoll_glb.h).
#include "drape/exporters/ragdoll_glb.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>

namespace drape::exporters {

namespace {

using json = nlohmann::json;
using V3 = std::array<double, 3>;
using Q = std::array<double, 4>;

Q qmul(const Q& a, const Q& b) {
    return {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1], a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
            a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3], a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
}
V3 qrot(const Q& q, const V3& v) {
    const Q r = qmul(qmul(q, {v[0], v[1], v[2], 0}), {-q[0], -q[1], -q[2], q[3]});
    return {r[0], r[1], r[2]};
}
Q normalized(Q q) {
    const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 1e-12)) return {0, 0, 0, 1};
    for (double& c : q) c /= n;
    return q;
}
// The shortest rotation taking +Y onto the unit vector d.
Q y_onto(const V3& d) {
    const double dot = d[1];
    if (dot < -1 + 1e-9) return {1, 0, 0, 0};  // half a turn about X
    // cross(Y, d) = (d.z, 0, -d.x)
    return normalized({d[2], 0, -d[0], 1 + dot});
}
// Game (left-handed) to glTF: Z mirrored.
V3 mirror(const std::array<float, 3>& v) { return {v[0], v[1], -double(v[2])}; }
Q mirror(const std::array<float, 4>& q) { return {-double(q[0]), -double(q[1]), double(q[2]), double(q[3])}; }

json arr(const std::array<float, 3>& v) { return json::array({v[0], v[1], v[2]}); }
json arr(const std::array<float, 4>& v) { return json::array({v[0], v[1], v[2], v[3]}); }
json arr(const std::array<float, 16>& v) {
    json j = json::array();
    for (float f : v) j.push_back(f);
    return j;
}
// Havok's maximum floats (3.4e38, 1.8e19) are written as they are: JSON numbers hold them.
json finite(float f) { return std::isfinite(f) ? json(f) : json(nullptr); }

const char* combine_name(int32_t policy) {
    switch (policy) {  // hknpMaterial::CombinePolicy
        case 0: return "average";
        case 1: return "minimum";
        case 2: return "maximum";
        default: return nullptr;
    }
}

json body_extras(const havok::RagdollBody& b) {
    json s = {{"kind", havok::ragdoll_shape_kind_name(b.shape.kind)},
              {"class", b.shape.class_name},
              {"convex_radius", b.shape.convex_radius},
              {"radius", b.shape.radius},
              {"stated_radius", b.shape.stated_radius},
              {"a", arr(b.shape.a)},
              {"b", arr(b.shape.b)},
              {"vertices", b.shape.vertex_count}};
    if (b.shape.has_mass_properties)
        s["mass_properties"] = {{"mass", b.shape.shape_mass},
                                {"volume", b.shape.shape_volume},
                                {"center_of_mass", arr(b.shape.center_of_mass)},
                                {"inertia", arr(b.shape.inertia)},
                                {"major_axis_space", json::array({b.shape.major_axis_space[0], b.shape.major_axis_space[1],
                                                                  b.shape.major_axis_space[2], b.shape.major_axis_space[3]})}};
    return {{"body", b.name},
            {"bone", b.bone},
            {"bone_name", b.bone_name},
            {"ragdoll_bone", b.ragdoll_bone},
            {"ragdoll_bone_name", b.ragdoll_bone_name},
            {"coordinates", "game (left-handed, Y up, metres)"},
            {"shape", std::move(s)},
            {"frame", {{"translation", arr(b.frame.translation)}, {"rotation", arr(b.frame.rotation)}}},
            {"world", {{"translation", arr(b.world.translation)}, {"rotation", arr(b.world.rotation)}}},
            {"mass", b.mass},
            {"inverse_mass", b.inverse_mass},
            {"mass_factor", b.mass_factor},
            {"inertia", arr(b.inertia)},
            {"linear_damping", b.linear_damping},
            {"angular_damping", b.angular_damping},
            {"gravity_factor", b.gravity_factor},
            {"max_linear_speed", finite(b.max_linear_speed)},
            {"max_angular_speed", finite(b.max_angular_speed)},
            {"dynamic_friction", b.dynamic_friction},
            {"static_friction", b.static_friction},
            {"restitution", b.restitution},
            {"friction_combine", b.friction_combine},
            {"restitution_combine", b.restitution_combine},
            {"collision_filter_info", b.collision_filter_info},
            {"material_id", b.material_id},
            {"motion_properties_id", b.motion_properties_id},
            {"motion_id", b.motion_id},
            {"motion_type", b.motion_type}};
}

json joint_extras(const havok::RagdollConstraint& c, const havok::Ragdoll& r) {
    auto name_of = [&](int32_t i) { return i >= 0 && size_t(i) < r.bodies.size() ? r.bodies[size_t(i)].name : std::string(); };
    json j = {{"name", c.name},
              {"kind", havok::ragdoll_constraint_kind_name(c.kind)},
              {"class", c.class_name},
              {"breakable", c.breakable},
              {"break_threshold", finite(c.break_threshold)},
              {"body_a", c.body_a},
              {"body_a_name", name_of(c.body_a)},
              {"body_b", c.body_b},
              {"body_b_name", name_of(c.body_b)},
              {"frame_a", arr(c.frame_a)},
              {"frame_b", arr(c.frame_b)},
              {"max_friction_torque", finite(c.max_friction_torque)},
              {"motors_enabled", c.motors_enabled}};
    if (c.kind == havok::RagdollConstraintKind::ragdoll) {
        j["twist_min"] = c.twist_min;
        j["twist_max"] = c.twist_max;
        j["twist_axis"] = c.twist_axis;
        j["ref_axis"] = c.ref_axis;
        j["cone_min"] = c.cone_min;
        j["cone_max"] = c.cone_max;
        j["plane_min"] = c.plane_min;
        j["plane_max"] = c.plane_max;
        j["limit_tau"] = c.limit_tau;
    } else if (c.kind == havok::RagdollConstraintKind::limited_hinge) {
        j["hinge_min"] = c.hinge_min;
        j["hinge_max"] = c.hinge_max;
        j["limit_tau"] = c.limit_tau;
    }
    return j;
}

void use_extension(json& doc, const char* name) {
    json& used = doc["extensionsUsed"];
    if (!used.is_array()) used = json::array();
    if (std::find(used.begin(), used.end(), name) == used.end()) used.push_back(name);
}

}  // namespace

RagdollGlbReport add_ragdoll(GltfDocument& doc, const havok::Ragdoll& r, int fallback_parent) {
    RagdollGlbReport rep;
    if (r.bodies.empty()) return rep;
    json& j = doc.json();
    use_extension(j, "OMI_physics_shape");
    use_extension(j, "OMI_physics_body");
    json& shapes = j["extensions"]["OMI_physics_shape"]["shapes"];
    if (!shapes.is_array()) shapes = json::array();
    json& materials = j["extensions"]["OMI_physics_body"]["physicsMaterials"];
    if (!materials.is_array()) materials = json::array();
    std::map<std::tuple<float, float, float, int32_t, int32_t>, size_t> material_index;
    if (!j["nodes"].is_array()) j["nodes"] = json::array();

    std::vector<int> node_of(r.bodies.size(), -1);
    for (size_t i = 0; i < r.bodies.size(); ++i) {
        const havok::RagdollBody& b = r.bodies[i];
        int parent = b.bone_name.empty() ? -1 : doc.node_by_name(b.bone_name);
        const bool placed_on_bone = parent >= 0;
        if (parent < 0) {
            ++rep.unplaced;
            parent = fallback_parent;
            rep.warnings.push_back("ragdoll body " + b.name + ": no node for bone '" + b.bone_name + "'; placed under the model's root at its model-space pose");
        }
        // The body frame relative to the bone (in model space without a bone node), mirrored; then
        // the shape's own frame inside it.
        const havok::RagdollTransform& frame = placed_on_bone ? b.frame : b.world;
        const V3 ft = mirror(frame.translation);
        const Q fq = normalized(mirror(frame.rotation));
        V3 centre{0, 0, 0};
        Q align{0, 0, 0, 1};
        json shape;
        if (b.shape.kind == havok::RagdollShapeKind::capsule) {
            const V3 a = mirror(b.shape.a), bb = mirror(b.shape.b);
            V3 d{a[0] - bb[0], a[1] - bb[1], a[2] - bb[2]};
            const double len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            centre = {(a[0] + bb[0]) / 2, (a[1] + bb[1]) / 2, (a[2] + bb[2]) / 2};
            if (len > 1e-9) {
                for (double& c : d) c /= len;
                align = y_onto(d);
            }
            shape = {{"type", "capsule"}, {"capsule", {{"radius", b.shape.radius}, {"height", len + 2.0 * double(b.shape.radius)}}}};
        } else if (b.shape.kind == havok::RagdollShapeKind::sphere) {
            centre = mirror(b.shape.a);
            shape = {{"type", "sphere"}, {"sphere", {{"radius", b.shape.radius}}}};
        }
        const V3 rc = qrot(fq, centre);
        const Q nq = normalized(qmul(fq, align));
        json node = {{"name", b.name.empty() ? b.bone_name + "_ragdoll" : b.name},
                     {"translation", json::array({ft[0] + rc[0], ft[1] + rc[1], ft[2] + rc[2]})},
                     {"rotation", json::array({nq[0], nq[1], nq[2], nq[3]})}};
        json motion = {{"type", b.mass > 0 ? "dynamic" : "kinematic"}};
        if (b.mass > 0) motion["mass"] = b.mass;
        if (b.inertia[0] > 0 && b.inertia[1] > 0 && b.inertia[2] > 0) {
            motion["inertiaDiagonal"] = arr(b.inertia);
            // The moments are about the body frame's axes; the node is turned by `align` from it.
            motion["inertiaOrientation"] = json::array({-align[0], -align[1], -align[2], align[3]});
        }
        json body = {{"motion", std::move(motion)}};
        json collider = json::object();
        if (!shape.is_null()) {
            collider["shape"] = shapes.size();
            shapes.push_back(std::move(shape));
            ++rep.shapes;
        }
        const auto key = std::make_tuple(b.static_friction, b.dynamic_friction, b.restitution, b.friction_combine, b.restitution_combine);
        auto it = material_index.find(key);
        if (it == material_index.end()) {
            json m = {{"staticFriction", std::max(0.0f, b.static_friction)},
                      {"dynamicFriction", std::max(0.0f, b.dynamic_friction)},
                      {"restitution", std::max(0.0f, b.restitution)}};
            if (const char* c = combine_name(b.friction_combine)) m["frictionCombine"] = c;
            if (const char* c = combine_name(b.restitution_combine)) m["restitutionCombine"] = c;
            it = material_index.emplace(key, materials.size()).first;
            materials.push_back(std::move(m));
        }
        collider["physicsMaterial"] = it->second;
        body["collider"] = std::move(collider);
        node["extensions"]["OMI_physics_body"] = std::move(body);
        node["extras"]["ragdoll"] = body_extras(b);
        const int index = int(j["nodes"].size());
        j["nodes"].push_back(std::move(node));
        if (parent >= 0) {
            json& p = j["nodes"][size_t(parent)];
            if (!p.contains("children")) p["children"] = json::array();
            p["children"].push_back(index);
        } else {
            j["scenes"][0]["nodes"].push_back(index);
        }
        node_of[i] = index;
        ++rep.bodies;
    }
    for (const auto& c : r.constraints) {
        if (c.body_b < 0 || size_t(c.body_b) >= node_of.size()) continue;
        json& extras = j["nodes"][size_t(node_of[size_t(c.body_b)])]["extras"];
        extras["ragdoll_joints"].push_back(joint_extras(c, r));
        ++rep.joints;
    }
    return rep;
}

}  // namespace drape::exporters
