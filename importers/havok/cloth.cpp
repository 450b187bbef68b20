// drape: typed hcl views, by member name (docs/formats.md#havok-cloth-classes; docs/havok-cloth.md).
#include "drape/havok/cloth.h"

#include <cstring>
#include <map>

#include "view_util.h"

namespace drape::hcl {

using havok::File;
using havok::Value;
using namespace havok::detail;

const char* constraint_kind_name(ConstraintKind k) {
    switch (k) {
        case ConstraintKind::standard_link: return "standard link";
        case ConstraintKind::stretch_link: return "stretch link";
        case ConstraintKind::bend_link: return "bend link";
        case ConstraintKind::bend_stiffness: return "bend stiffness";
        case ConstraintKind::compressible_link: return "compressible link";
        case ConstraintKind::local_range: return "local range";
        case ConstraintKind::transition: return "transition";
        case ConstraintKind::volume_mx: return "volume Mx";
        case ConstraintKind::other: return "other";
    }
    return "other";
}

const char* shape_kind_name(ShapeKind k) {
    switch (k) {
        case ShapeKind::sphere: return "sphere";
        case ShapeKind::plane: return "plane";
        case ShapeKind::capsule: return "capsule";
        case ShapeKind::tapered_capsule: return "tapered capsule";
        case ShapeKind::convex_geometry: return "convex geometry";
        case ShapeKind::other: return "other";
    }
    return "other";
}

namespace {
struct OpName {
    const char* cls;
    OperatorKind kind;
    const char* name;
};
constexpr OpName k_ops[] = {
    {"hclSimulateOperator", OperatorKind::simulate, "simulate"},
    {"hclMoveParticlesOperator", OperatorKind::move_particles, "move particles"},
    {"hclCopyVerticesOperator", OperatorKind::copy_vertices, "copy vertices"},
    {"hclGatherAllVerticesOperator", OperatorKind::gather_all_vertices, "gather all vertices"},
    {"hclGatherSomeVerticesOperator", OperatorKind::gather_some_vertices, "gather some vertices"},
    {"hclInputConvertOperator", OperatorKind::input_convert, "input convert"},
    {"hclOutputConvertOperator", OperatorKind::output_convert, "output convert"},
    {"hclUpdateAllVertexFramesOperator", OperatorKind::update_all_vertex_frames, "update all vertex frames"},
    {"hclUpdateSomeVertexFramesOperator", OperatorKind::update_some_vertex_frames, "update some vertex frames"},
    {"hclSimpleMeshBoneDeformOperator", OperatorKind::simple_mesh_bone_deform, "simple mesh bone deform"},
    {"hclMeshBoneDeformOperator", OperatorKind::mesh_bone_deform, "mesh bone deform"},
    {"hclObjectSpaceSkinPOperator", OperatorKind::object_space_skin_p, "object space skin P"},
    {"hclObjectSpaceSkinPNOperator", OperatorKind::object_space_skin_pn, "object space skin PN"},
    {"hclObjectSpaceSkinPNTOperator", OperatorKind::object_space_skin_pnt, "object space skin PNT"},
    {"hclObjectSpaceSkinPNTBOperator", OperatorKind::object_space_skin_pntb, "object space skin PNTB"},
    {"hclBoneSpaceSkinPOperator", OperatorKind::bone_space_skin_p, "bone space skin P"},
    {"hclBoneSpaceSkinPNOperator", OperatorKind::bone_space_skin_pn, "bone space skin PN"},
    {"hclBoneSpaceSkinPNTOperator", OperatorKind::bone_space_skin_pnt, "bone space skin PNT"},
    {"hclBoneSpaceSkinPNTBOperator", OperatorKind::bone_space_skin_pntb, "bone space skin PNTB"},
    {"hclObjectSpaceMeshMeshDeformPOperator", OperatorKind::object_space_mesh_mesh_deform_p, "object space mesh-mesh deform P"},
    {"hclObjectSpaceMeshMeshDeformPNOperator", OperatorKind::object_space_mesh_mesh_deform_pn, "object space mesh-mesh deform PN"},
    {"hclObjectSpaceMeshMeshDeformPNTOperator", OperatorKind::object_space_mesh_mesh_deform_pnt, "object space mesh-mesh deform PNT"},
    {"hclObjectSpaceMeshMeshDeformPNTBOperator", OperatorKind::object_space_mesh_mesh_deform_pntb, "object space mesh-mesh deform PNTB"},
    {"hclBoneSpaceMeshMeshDeformPOperator", OperatorKind::bone_space_mesh_mesh_deform_p, "bone space mesh-mesh deform P"},
    {"hclBoneSpaceMeshMeshDeformPNOperator", OperatorKind::bone_space_mesh_mesh_deform_pn, "bone space mesh-mesh deform PN"},
    {"hclBoneSpaceMeshMeshDeformPNTOperator", OperatorKind::bone_space_mesh_mesh_deform_pnt, "bone space mesh-mesh deform PNT"},
    {"hclBoneSpaceMeshMeshDeformPNTBOperator", OperatorKind::bone_space_mesh_mesh_deform_pntb, "bone space mesh-mesh deform PNTB"},
    {"hclMeshMeshDeformOperator", OperatorKind::mesh_mesh_deform, "mesh-mesh deform"},
};
}  // namespace

const char* operator_kind_name(OperatorKind k) {
    for (const auto& o : k_ops)
        if (o.kind == k) return o.name;
    return "other";
}

OperatorKind operator_kind_of(std::string_view cls) {
    for (const auto& o : k_ops)
        if (cls == o.cls) return o.kind;
    return OperatorKind::other;
}

Vec4 unpack_vector3(const std::array<int16_t, 4>& v) {
    const uint32_t sbits = uint32_t(uint16_t(v[3])) << 16;
    float scale;
    std::memcpy(&scale, &sbits, 4);
    Vec4 r{0, 0, 0, 0};
    for (int i = 0; i < 3; ++i) r[i] = float(int32_t(uint32_t(uint16_t(v[i])) << 16)) * scale;
    return r;
}

namespace {

uint32_t u32(const Value& v, std::string_view m) { return uint32_t(v[m].as_int()); }
int32_t i32(const Value& v, std::string_view m) { return int32_t(v[m].as_int()); }
float f32(const Value& v, std::string_view m) { return float(v[m].as_float()); }
bool b(const Value& v, std::string_view m) { return v[m].as_bool(); }
std::string str(const Value& v, std::string_view m) { return v[m].as_string(); }

template <class T, class F>
std::vector<T> map_array(const Value& arr, F&& f) {
    std::vector<T> out;
    const uint64_t n = take(arr.size());
    out.reserve(n);
    for (uint64_t i = 0; i < n; ++i) out.push_back(f(arr.at(i)));
    return out;
}

std::vector<Mat4> mat4s(const Value& arr) {
    return map_array<Mat4>(arr, [](const Value& e) { return mat4(e); });
}

BufferAccess buffer_access(const Value& e) {
    BufferAccess a;
    a.buffer_index = u32(e, "bufferIndex");
    const Value u = e["bufferUsage"];
    const Value pcf = u["perComponentFlags"];
    for (uint64_t k = 0; k < 4 && k < pcf.size(); ++k) a.per_component_flags[k] = uint8_t(pcf.at(k).as_int());
    a.triangles_read = b(u, "trianglesRead");
    a.shadow_buffer_index = u32(e, "shadowBufferIndex");
    return a;
}

TransformSetAccess transform_set_access(const Value& e) {
    TransformSetAccess a;
    a.transform_set_index = u32(e, "transformSetIndex");
    const Value pcf = e["transformSetUsage"]["perComponentFlags"];
    for (uint64_t k = 0; k < 2 && k < pcf.size(); ++k) a.per_component_flags[k] = uint8_t(pcf.at(k).as_int());
    return a;
}

Error object_error(const File& f, uint32_t item, const std::string& what) {
    return make_error(what, f.class_name(item) + " (item " + std::to_string(item) + ")");
}

bool is(const File& f, uint32_t item, std::string_view cls) {
    return item && item < f.items.size() && f.types.derives_from(f.items[item].type, cls);
}

Result<Shape> read_shape(const File& f, uint32_t item) {
    const Value v = f.object(item);
    Shape s;
    s.item = item;
    s.class_name = f.class_name(item);
    if (is(f, item, "hclSphereShape")) {
        s.kind = ShapeKind::sphere;
        const Value sp = v["sphere"];
        s.sphere = sp.kind() == havok::Kind::Record ? vec4(sp["pos"]) : vec4(sp);
    } else if (is(f, item, "hclPlaneShape")) {
        s.kind = ShapeKind::plane;
        s.plane_equation = vec4(v["planeEquation"]);
    } else if (is(f, item, "hclCapsuleShape")) {
        s.kind = ShapeKind::capsule;
        s.start = vec4(v["start"]);
        s.end = vec4(v["end"]);
        s.dir = vec4(v["dir"]);
        s.radius = f32(v, "radius");
        s.cap_len_sqrd_inv = f32(v, "capLenSqrdInv");
    } else if (is(f, item, "hclTaperedCapsuleShape")) {
        s.kind = ShapeKind::tapered_capsule;
        s.small = vec4(v["small"]);
        s.big = vec4(v["big"]);
        s.cone_apex = vec4(v["coneApex"]);
        s.cone_axis = vec4(v["coneAxis"]);
        s.l_vec = vec4(v["lVec"]);
        s.d_vec = vec4(v["dVec"]);
        s.tan_theta_vec_neg = vec4(v["tanThetaVecNeg"]);
        s.small_radius = f32(v, "smallRadius");
        s.big_radius = f32(v, "bigRadius");
        s.l = f32(v, "l");
        s.d = f32(v, "d");
        s.cos_theta = f32(v, "cosTheta");
        s.sin_theta = f32(v, "sinTheta");
        s.tan_theta = f32(v, "tanTheta");
        s.tan_theta_sqr = f32(v, "tanThetaSqr");
    } else if (is(f, item, "hclConvexGeometryShape")) {
        s.kind = ShapeKind::convex_geometry;
        s.tetrahedra_grid = ints<uint16_t>(v["tetrahedraGrid"]);
        s.grid_cells = ints<uint8_t>(v["gridCells"]);
        s.tetrahedra_equations = mat4s(v["tetrahedraEquations"]);
        s.local_from_world = mat4(v["localFromWorld"]);
        s.world_from_local = mat4(v["worldFromLocal"]);
        s.aabb_min = vec4(v["objAabb"]["min"]);
        s.aabb_max = vec4(v["objAabb"]["max"]);
        s.geom_centroid = vec4(v["geomCentroid"]);
        s.inv_cell_size = vec4(v["invCellSize"]);
        s.grid_res = uint16_t(v["gridRes"].as_int());
    }
    return s;
}

}  // namespace

Result<Collidable> read_collidable(const File& f, uint32_t item) {
    if (!is(f, item, "hclCollidable")) return object_error(f, item, "not an hclCollidable");
    ObjectReader o(f, item);
    const Value& v = o.value();
    Collidable c;
    c.item = item;
    c.name = o.req("name").as_string();
    c.transform = mat4(o.req("transform"));
    c.linear_velocity = vec4(v["linearVelocity"]);
    c.angular_velocity = vec4(v["angularVelocity"]);
    c.user_data = v["userData"].as_uint();
    c.pinch_detection_radius = f32(v, "pinchDetectionRadius");
    c.pinch_detection_priority = int8_t(v["pinchDetectionPriority"].as_int());
    c.pinch_detection_enabled = b(v, "pinchDetectionEnabled");
    c.virtual_collision_point_collision_enabled = b(v, "virtualCollisionPointCollisionEnabled");
    c.enabled = v.has("enabled") ? b(v, "enabled") : true;
    if (const uint32_t s = o.req("shape").pointee_item()) {
        auto sh = read_shape(f, s);
        if (!sh) return sh.error();
        c.shape = std::move(*sh);
    }
    if (!o.ok()) return o.error();
    return c;
}

Result<ConstraintSet> read_constraint_set(const File& f, uint32_t item) {
    if (!is(f, item, "hclConstraintSet")) return object_error(f, item, "not an hclConstraintSet");
    ObjectReader o(f, item);
    const Value& v = o.value();
    ConstraintSet c;
    c.item = item;
    c.class_name = f.class_name(item);
    c.name = o.req("name").as_string();
    // Elden Ring stores constraintId as an hkHandle record {value}; older files as a plain u32
    // (found by the soulstruct comparison: drape read the handle as 0).
    {
        const Value cid = v["constraintId"];
        c.constraint_id = cid.kind() == havok::Kind::Record ? uint32_t(cid["value"].as_int()) : uint32_t(cid.as_int());
    }
    if (is(f, item, "hclStandardLinkConstraintSet") || is(f, item, "hclStretchLinkConstraintSet")) {
        c.kind = is(f, item, "hclStandardLinkConstraintSet") ? ConstraintKind::standard_link : ConstraintKind::stretch_link;
        c.links = map_array<Link>(o.req("links"), [](const Value& e) {
            return Link{uint16_t(e["particleA"].as_int()), uint16_t(e["particleB"].as_int()), f32(e, "restLength"), f32(e, "stiffness")};
        });
    } else if (is(f, item, "hclBendLinkConstraintSet")) {
        c.kind = ConstraintKind::bend_link;
        c.bend_links = map_array<BendLink>(o.req("links"), [](const Value& e) {
            return BendLink{uint16_t(e["particleA"].as_int()), uint16_t(e["particleB"].as_int()), f32(e, "bendMinLength"),
                            f32(e, "stretchMaxLength"), f32(e, "bendStiffness"), f32(e, "stretchStiffness")};
        });
    } else if (is(f, item, "hclBendStiffnessConstraintSet")) {
        c.kind = ConstraintKind::bend_stiffness;
        c.bend_stiffness_links = map_array<BendStiffnessLink>(o.req("links"), [](const Value& e) {
            BendStiffnessLink l;
            l.weight_a = f32(e, "weightA");
            l.weight_b = f32(e, "weightB");
            l.weight_c = f32(e, "weightC");
            l.weight_d = f32(e, "weightD");
            l.bend_stiffness = f32(e, "bendStiffness");
            l.rest_curvature = f32(e, "restCurvature");
            l.particle_a = uint16_t(e["particleA"].as_int());
            l.particle_b = uint16_t(e["particleB"].as_int());
            l.particle_c = uint16_t(e["particleC"].as_int());
            l.particle_d = uint16_t(e["particleD"].as_int());
            return l;
        });
        c.max_rest_pose_height_sq = f32(v, "maxRestPoseHeightSq");
        c.clamp_bend_stiffness = b(v, "clampBendStiffness");
        c.use_rest_pose_config = b(v, "useRestPoseConfig");
    } else if (is(f, item, "hclCompressibleLinkConstraintSet")) {
        c.kind = ConstraintKind::compressible_link;
        c.compressible_links = map_array<CompressibleLink>(o.req("links"), [](const Value& e) {
            return CompressibleLink{uint16_t(e["particleA"].as_int()), uint16_t(e["particleB"].as_int()), f32(e, "restLength"),
                                    f32(e, "compressionLength"), f32(e, "stiffness")};
        });
    } else if (is(f, item, "hclLocalRangeConstraintSet")) {
        c.kind = ConstraintKind::local_range;
        c.local_constraints = map_array<LocalConstraint>(o.req("localConstraints"), [](const Value& e) {
            return LocalConstraint{uint16_t(e["particleIndex"].as_int()), uint16_t(e["referenceVertex"].as_int()), f32(e, "maximumDistance"),
                                   f32(e, "maxNormalDistance"), f32(e, "minNormalDistance")};
        });
        c.reference_mesh_buffer_idx = uint32_t(o.req("referenceMeshBufferIdx").as_int());
        c.stiffness = f32(v, "stiffness");
        c.shape_type = u32(v, "shapeType");
        c.apply_normal_component = b(v, "applyNormalComponent");
    } else if (is(f, item, "hclTransitionConstraintSet")) {
        c.kind = ConstraintKind::transition;
        c.transition_particles = map_array<TransitionParticle>(o.req("perParticleData"), [](const Value& e) {
            return TransitionParticle{uint16_t(e["particleIndex"].as_int()), uint16_t(e["referenceVertex"].as_int()), f32(e, "toAnimDelay"),
                                      f32(e, "toSimDelay"), f32(e, "toSimMaxDistance")};
        });
        c.to_anim_period = f32(v, "toAnimPeriod");
        c.to_anim_plus_delay_period = f32(v, "toAnimPlusDelayPeriod");
        c.to_sim_period = f32(v, "toSimPeriod");
        c.to_sim_plus_delay_period = f32(v, "toSimPlusDelayPeriod");
        c.reference_mesh_buffer_idx = uint32_t(o.req("referenceMeshBufferIdx").as_int());
    } else if (is(f, item, "hclVolumeConstraintMx")) {
        c.kind = ConstraintKind::volume_mx;
        auto batches = [](const Value& arr, const char* wname) {
            std::vector<VolumeEntry> out;
            const uint64_t n = take(arr.size());
            for (uint64_t i = 0; i < n; ++i) {
                const Value e = arr.at(i);
                const Value fv = e["frameVector"], pi = e["particleIndex"], w = e[wname];
                for (uint64_t k = 0; k < 16; ++k)
                    out.push_back({vec4(fv.at(k)), uint16_t(pi.at(k).as_int()), float(w.at(k).as_float())});
            }
            return out;
        };
        auto singles = [](const Value& arr, const char* wname) {
            return map_array<VolumeEntry>(arr, [wname](const Value& e) {
                return VolumeEntry{vec4(e["frameVector"]), uint16_t(e["particleIndex"].as_int()), f32(e, wname)};
            });
        };
        c.frame_batches = batches(o.req("frameBatchDatas"), "weight");
        c.frame_singles = singles(o.req("frameSingleDatas"), "weight");
        c.apply_batches = batches(o.req("applyBatchDatas"), "stiffness");
        c.apply_singles = singles(o.req("applySingleDatas"), "stiffness");
    }
    if (!o.ok()) return o.error();
    return c;
}

Result<SimClothData> read_sim_cloth(const File& f, uint32_t item) {
    if (!is(f, item, "hclSimClothData")) return object_error(f, item, "not an hclSimClothData");
    ObjectReader o(f, item);
    const Value& v = o.value();
    SimClothData s;
    s.item = item;
    s.version = v.type_info().r_version;
    s.name = o.req("name").as_string();
    {
        const Value si = o.req("simulationInfo");
        s.simulation_info.gravity = vec4(si["gravity"]);
        s.simulation_info.global_damping_per_second = f32(si, "globalDampingPerSecond");
        s.simulation_info.collision_tolerance = f32(si, "collisionTolerance");
        s.simulation_info.sub_steps = u32(si, "subSteps");
        s.simulation_info.pinch_detection_enabled = b(si, "pinchDetectionEnabled");
        s.simulation_info.landscape_collision_enabled = b(si, "landscapeCollisionEnabled");
        s.simulation_info.transfer_motion_enabled = b(si, "transferMotionEnabled");
    }
    s.particles = map_array<ParticleData>(o.req("particleDatas"), [](const Value& e) {
        return ParticleData{f32(e, "mass"), f32(e, "invMass"), f32(e, "radius"), f32(e, "friction")};
    });
    s.fixed_particles = ints<uint16_t>(o.req("fixedParticles"));
    s.do_normals = b(v, "doNormals");
    s.sim_op_ids = ints<uint32_t>(v["simOpIds"]);
    for (uint32_t p : pointees(o.req("simClothPoses"))) {
        if (!p) continue;
        const Value pv = f.object(p);
        s.poses.push_back({p, str(pv, "name"), vec4s(pv["positions"])});
    }
    for (uint32_t c : pointees(o.req("staticConstraintSets"))) {
        if (!c) continue;
        auto r = read_constraint_set(f, c);
        if (!r) return r.error();
        s.static_constraint_sets.push_back(std::move(*r));
    }
    for (uint32_t c : pointees(v["antiPinchConstraintSets"])) {
        if (!c) continue;
        auto r = read_constraint_set(f, c);
        if (!r) return r.error();
        s.anti_pinch_constraint_sets.push_back(std::move(*r));
    }
    {
        const Value m = o.req("collidableTransformMap");
        s.collidable_transform_map.transform_set_index = i32(m, "transformSetIndex");
        s.collidable_transform_map.transform_indices = ints<uint32_t>(m["transformIndices"]);
        s.collidable_transform_map.offsets = mat4s(m["offsets"]);
    }
    for (uint32_t c : pointees(o.req("perInstanceCollidables"))) {
        if (!c) continue;
        auto r = read_collidable(f, c);
        if (!r) return r.error();
        s.per_instance_collidables.push_back(std::move(*r));
    }
    s.max_particle_radius = f32(v, "maxParticleRadius");
    s.static_collision_masks = ints<uint32_t>(v["staticCollisionMasks"]);
    s.action_count = v["actions"].size();
    s.total_mass = f32(v, "totalMass");
    {
        const Value t = v["transferMotionData"];
        auto& m = s.transfer_motion;
        m.transform_set_index = u32(t, "transformSetIndex");
        m.transform_index = u32(t, "transformIndex");
        m.transfer_translation_motion = b(t, "transferTranslationMotion");
        m.min_translation_speed = f32(t, "minTranslationSpeed");
        m.max_translation_speed = f32(t, "maxTranslationSpeed");
        m.min_translation_blend = f32(t, "minTranslationBlend");
        m.max_translation_blend = f32(t, "maxTranslationBlend");
        m.transfer_rotation_motion = b(t, "transferRotationMotion");
        m.min_rotation_speed = f32(t, "minRotationSpeed");
        m.max_rotation_speed = f32(t, "maxRotationSpeed");
        m.min_rotation_blend = f32(t, "minRotationBlend");
        m.max_rotation_blend = f32(t, "maxRotationBlend");
    }
    s.transfer_motion_enabled = v.has("transferMotionEnabled") ? b(v, "transferMotionEnabled") : s.simulation_info.transfer_motion_enabled;
    s.landscape_collision_enabled =
        v.has("landscapeCollisionEnabled") ? b(v, "landscapeCollisionEnabled") : s.simulation_info.landscape_collision_enabled;
    {
        const Value l = v["landscapeCollisionData"];
        auto& d = s.landscape_collision;
        d.landscape_radius = f32(l, "landscapeRadius");
        d.enable_stuck_particle_detection = b(l, "enableStuckParticleDetection");
        d.stuck_particles_stretch_factor_sq = f32(l, "stuckParticlesStretchFactorSq");
        d.pinch_detection_enabled = b(l, "pinchDetectionEnabled");
        d.pinch_detection_priority = int8_t(l["pinchDetectionPriority"].as_int());
        d.pinch_detection_radius = f32(l, "pinchDetectionRadius");
        d.collision_tolerance = f32(l, "collisionTolerance");
    }
    s.num_landscape_collidable_particles = u32(v, "numLandscapeCollidableParticles");
    s.triangle_indices = ints<uint16_t>(o.req("triangleIndices"));
    s.triangle_flips = ints<uint8_t>(v["triangleFlips"]);
    s.pinch_detection_enabled = v.has("pinchDetectionEnabled") ? b(v, "pinchDetectionEnabled") : s.simulation_info.pinch_detection_enabled;
    s.per_particle_pinch_detection_enabled = ints<uint8_t>(v["perParticlePinchDetectionEnabledFlags"]);
    s.collidable_pinching_datas = map_array<PinchingData>(v["collidablePinchingDatas"], [](const Value& e) {
        return PinchingData{b(e, "pinchDetectionEnabled"), int8_t(e["pinchDetectionPriority"].as_int()), f32(e, "pinchDetectionRadius")};
    });
    s.min_pinched_particle_index = uint16_t(v["minPinchedParticleIndex"].as_int());
    s.max_pinched_particle_index = uint16_t(v["maxPinchedParticleIndex"].as_int());
    s.max_collision_pairs = u32(v, "maxCollisionPairs");
    {
        const Value d = v["virtualCollisionPointsData"];
        auto& p = s.virtual_collision_points;
        using VCP = VirtualCollisionPoints;
        p.blocks = map_array<VCP::Block>(d["blocks"], [](const Value& e) {
            return VCP::Block{f32(e, "safeDisplacementRadius"), uint16_t(e["startingVCPIndex"].as_int()), uint8_t(e["numVCPs"].as_int())};
        });
        p.num_vc_points = uint16_t(d["numVCPoints"].as_int());
        p.num_landscape_vc_points = uint16_t(d["numLandscapeVCPoints"].as_int());
        p.landscape_particles_block_index = ints<uint16_t>(d["landscapeParticlesBlockIndex"]);
        p.edge_barycentrics_dictionary = floats(d["edgeBarycentricsDictionary"]);
        const auto entry = [](const Value& e) {
            return VCP::DictionaryEntry{uint16_t(e["startingBarycentricIndex"].as_int()), uint8_t(e["numBarycentrics"].as_int())};
        };
        p.edge_dictionary_entries = map_array<VCP::DictionaryEntry>(d["edgeDictionaryEntries"], entry);
        p.triangle_dictionary_entries = map_array<VCP::DictionaryEntry>(d["triangleDictionaryEntries"], entry);
        p.triangle_barycentrics_dictionary = map_array<std::array<float, 2>>(d["triangleBarycentricsDictionary"], [](const Value& e) {
            return std::array<float, 2>{f32(e, "u"), f32(e, "v")};
        });
        const auto edge_section = [](const Value& e) {
            return VCP::EdgeFanSection{uint16_t(e["oppositeRealParticleIndex"].as_int()), uint16_t(e["barycentricDictionaryIndex"].as_int())};
        };
        const auto edge_fan = [](const Value& e) {
            return VCP::EdgeFan{uint16_t(e["realParticleIndex"].as_int()), uint16_t(e["edgeStartIndex"].as_int()), uint16_t(e["vcpStartIndex"].as_int()),
                                uint8_t(e["numEdges"].as_int())};
        };
        const auto tri_section = [](const Value& e) {
            const Value o = e["oppositeRealParticleIndices"];
            return VCP::TriangleFanSection{{uint16_t(o.at(0).as_int()), uint16_t(o.at(1).as_int())}, uint16_t(e["barycentricDictionaryIndex"].as_int())};
        };
        const auto tri_fan = [](const Value& e) {
            return VCP::TriangleFan{uint16_t(e["realParticleIndex"].as_int()), uint16_t(e["triangleStartIndex"].as_int()),
                                    uint16_t(e["vcpStartIndex"].as_int()), uint8_t(e["numTriangles"].as_int())};
        };
        p.edges = map_array<VCP::EdgeFanSection>(d["edges"], edge_section);
        p.edges_landscape = map_array<VCP::EdgeFanSection>(d["edgesLandscape"], edge_section);
        p.edge_fans = map_array<VCP::EdgeFan>(d["edgeFans"], edge_fan);
        p.edge_fans_landscape = map_array<VCP::EdgeFan>(d["edgeFansLandscape"], edge_fan);
        p.triangles = map_array<VCP::TriangleFanSection>(d["triangles"], tri_section);
        p.triangles_landscape = map_array<VCP::TriangleFanSection>(d["trianglesLandscape"], tri_section);
        p.triangle_fans = map_array<VCP::TriangleFan>(d["triangleFans"], tri_fan);
        p.triangle_fans_landscape = map_array<VCP::TriangleFan>(d["triangleFansLandscape"], tri_fan);
        p.edge_fan_indices = ints<uint16_t>(d["edgeFanIndices"]);
        p.triangle_fan_indices = ints<uint16_t>(d["triangleFanIndices"]);
        p.edge_fan_indices_landscape = ints<uint16_t>(d["edgeFanIndicesLandscape"]);
        p.triangle_fan_indices_landscape = ints<uint16_t>(d["triangleFanIndicesLandscape"]);
    }
    if (!o.ok()) return o.error();
    return s;
}

namespace {

void read_deformer(const Value& d, Deformer& out, bool object_space) {
    static const char* const k_names[] = {"eightBlendEntries", "sevenBlendEntries", "sixBlendEntries", "fiveBlendEntries",
                                          "fourBlendEntries",  "threeBlendEntries", "twoBlendEntries", "oneBlendEntries"};
    for (int k = 0; k < 8; ++k) {
        const Value arr = d[k_names[k]];
        const uint8_t n = uint8_t(8 - k);
        const uint64_t count = take(arr.size());
        for (uint64_t i = 0; i < count; ++i) {
            const Value e = arr.at(i);
            BlendBlock bb;
            bb.blends = n;
            bb.vertex_indices = ints<uint16_t>(e["vertexIndices"]);
            bb.bone_indices = ints<uint16_t>(e["boneIndices"]);
            if (object_space) bb.bone_weights = ints<uint16_t>(e["boneWeights"]);
            out.blocks.push_back(std::move(bb));
        }
    }
    out.control_bytes = ints<uint8_t>(d["controlBytes"]);
    out.start_vertex_index = uint16_t(d["startVertexIndex"].as_int());
    out.end_vertex_index = uint16_t(d["endVertexIndex"].as_int());
    out.partial_write = d["partialWrite"].as_bool();
}

std::array<int16_t, 4> packed(const Value& e) {
    std::array<int16_t, 4> r{};
    const Value vals = e.kind() == havok::Kind::Record ? e["values"] : e;
    for (uint64_t k = 0; k < 4 && k < vals.size(); ++k) r[k] = int16_t(vals.at(k).as_int());
    return r;
}

// Local blocks: every array member named local*s; packed (hkPackedVector3) or unpacked (hkVector4).
void read_local_blocks(const Value& op, LocalBlocks& out) {
    for (const auto& m : op.type_info().all_members) {
        if (m.name.rfind("local", 0) != 0 || m.name == "localBoneTransforms") continue;
        const Value arr = op[m.name];
        if (!arr.is_array()) continue;
        const uint64_t n = take(arr.size());
        for (uint64_t i = 0; i < n; ++i) {
            const Value blk = arr.at(i);
            struct Field {
                const char* name;
                std::vector<std::array<int16_t, 4>>* packed;
                std::vector<Vec4>* unpacked;
            } fields[] = {{"localPosition", &out.packed_positions, &out.positions},
                          {"localNormal", &out.packed_normals, &out.normals},
                          {"localTangent", &out.packed_tangents, &out.tangents},
                          {"localBiTangent", &out.packed_bitangents, &out.bitangents}};
            for (const Field& fd : fields) {
                const Value a = blk[fd.name];
                if (!a.valid()) continue;
                const uint64_t cnt = a.size();
                for (uint64_t k = 0; k < cnt; ++k) {
                    const Value e = a.at(k);
                    const std::string tn = e.type_info().name;
                    if (tn == "hkPackedVector3")
                        fd.packed->push_back(packed(e));
                    else
                        fd.unpacked->push_back(vec4(e));
                }
            }
        }
    }
}

void read_simulate(ObjectReader& o, Operator& op) {
    const Value& v = o.value();
    op.sim_cloth_index = uint32_t(o.req("simClothIndex").as_int());
    if (v.has("simulateOpConfigs")) {
        op.configs = map_array<SimulateConfig>(v["simulateOpConfigs"], [](const Value& e) {
            SimulateConfig c;
            c.name = str(e, "name");
            c.constraint_execution = ints<int32_t>(e["constraintExecution"]);
            c.instance_collidables_used = ints<uint8_t>(e["instanceCollidablesUsed"]);
            c.sub_steps = uint8_t(e["subSteps"].as_int());
            c.number_of_solve_iterations = uint8_t(e["numberOfSolveIterations"].as_int());
            c.use_all_instance_collidables = b(e, "useAllInstanceCollidables");
            c.adapt_constraint_stiffness = b(e, "adaptConstraintStiffness");
            return c;
        });
    } else {  // 2014: one configuration stored on the operator
        SimulateConfig c;
        c.constraint_execution = ints<int32_t>(o.req("constraintExecution"));
        c.sub_steps = uint8_t(u32(v, "subSteps"));
        c.number_of_solve_iterations = uint8_t(i32(v, "numberOfSolveIterations"));
        c.adapt_constraint_stiffness = b(v, "adaptConstraintStiffness");
        op.configs.push_back(std::move(c));
    }
}

void read_vertex_frames(ObjectReader& o, Operator& op) {
    const Value& v = o.value();
    op.vert_to_normal_id = ints<uint16_t>(v["vertToNormalID"]);
    op.involved_triangles = map_array<std::array<uint16_t, 3>>(v["involvedTriangles"], [](const Value& e) {
        // The 2018 registry names the member `indices`; older class lists `vertexIndices`.
        const Value vi = e.has("indices") ? e["indices"] : e["vertexIndices"];
        return std::array<uint16_t, 3>{uint16_t(vi.at(0).as_int()), uint16_t(vi.at(1).as_int()), uint16_t(vi.at(2).as_int())};
    });
    op.involved_vertices = ints<uint16_t>(v["involvedVertices"]);
    op.selection_vertex_to_involved_vertex = ints<uint16_t>(v["selectionVertexToInvolvedVertex"]);
    op.involved_vertex_to_normal_id = ints<uint16_t>(v["involvedVertexToNormalID"]);
    op.triangle_flips = ints<uint8_t>(v["triangleFlips"]);
    op.reference_vertices = ints<uint16_t>(v["referenceVertices"]);
    op.tangent_edge_cos_angle = floats(v["tangentEdgeCosAngle"]);
    op.tangent_edge_sin_angle = floats(v["tangentEdgeSinAngle"]);
    op.bitangent_flip = floats(v["biTangentFlip"]);
    op.buffer_idx = uint32_t(o.req("bufferIdx").as_int());
    op.num_unique_normal_ids = u32(v, "numUniqueNormalIDs");
    op.update_normals = b(v, "updateNormals");
    op.update_tangents = b(v, "updateTangents");
    op.update_bitangents = b(v, "updateBiTangents");
}

void read_skin_or_mesh_deform(ObjectReader& o, Operator& op) {
    const Value& v = o.value();
    // skin and mesh-mesh deform, object or bone space
    const bool object_space = op.class_name.find("ObjectSpace") != std::string::npos;
    const bool skin = op.class_name.find("Skin") != std::string::npos;
    if (skin) {
        op.output_buffer_idx = uint32_t(o.req("outputBufferIndex").as_int());
        op.transform_set_index = uint32_t(o.req("transformSetIndex").as_int());
        op.transform_subset = ints<uint16_t>(o.req("transformSubset"));
        if (object_space) op.bone_from_skin_mesh_transforms = mat4s(o.req("boneFromSkinMeshTransforms"));
    } else {
        op.input_buffer_idx = uint32_t(o.req("inputBufferIdx").as_int());
        op.output_buffer_idx = uint32_t(o.req("outputBufferIdx").as_int());
        op.scale_normal_behaviour = u32(v, "scaleNormalBehaviour");
        op.input_triangles_subset = ints<uint16_t>(v["inputTrianglesSubset"]);
        op.triangle_from_mesh_transforms = mat4s(v["triangleFromMeshTransforms"]);
        op.custom_skin_deform = b(v, "customSkinDeform");
    }
    const Value d = object_space ? o.req("objectSpaceDeformer") : o.req("boneSpaceDeformer");
    read_deformer(d, op.deformer, object_space);
    read_local_blocks(v, op.local);
}

}  // namespace

Result<Operator> read_operator(const File& f, uint32_t item) {
    if (!is(f, item, "hclOperator")) return object_error(f, item, "not an hclOperator");
    ObjectReader o(f, item);
    const Value& v = o.value();
    Operator op;
    op.item = item;
    op.class_name = f.class_name(item);
    op.kind = operator_kind_of(op.class_name);
    op.name = o.req("name").as_string();
    op.operator_id = u32(v, "operatorID");
    op.used_buffers = map_array<BufferAccess>(v["usedBuffers"], buffer_access);
    op.used_transform_sets = map_array<TransformSetAccess>(v["usedTransformSets"], transform_set_access);
    switch (op.kind) {
        case OperatorKind::simulate: {
            read_simulate(o, op);
            break;
        }
        case OperatorKind::move_particles:
            op.vertex_particle_pairs = map_array<VertexParticlePair>(o.req("vertexParticlePairs"), [](const Value& e) {
                return VertexParticlePair{uint16_t(e["vertexIndex"].as_int()), uint16_t(e["particleIndex"].as_int())};
            });
            op.sim_cloth_index = uint32_t(o.req("simClothIndex").as_int());
            op.ref_buffer_idx = uint32_t(o.req("refBufferIdx").as_int());
            break;
        case OperatorKind::copy_vertices:
            op.input_buffer_idx = uint32_t(o.req("inputBufferIdx").as_int());
            op.output_buffer_idx = uint32_t(o.req("outputBufferIdx").as_int());
            op.number_of_vertices = uint32_t(o.req("numberOfVertices").as_int());
            op.start_vertex_in = uint32_t(o.req("startVertexIn").as_int());
            op.start_vertex_out = uint32_t(o.req("startVertexOut").as_int());
            op.copy_normals = b(v, "copyNormals");
            break;
        case OperatorKind::gather_all_vertices:
            op.vertex_input_from_vertex_output = ints<int16_t>(o.req("vertexInputFromVertexOutput"));
            op.input_buffer_idx = uint32_t(o.req("inputBufferIdx").as_int());
            op.output_buffer_idx = uint32_t(o.req("outputBufferIdx").as_int());
            op.gather_normals = b(v, "gatherNormals");
            op.partial_gather = b(v, "partialGather");
            break;
        case OperatorKind::gather_some_vertices:
            op.gather_pairs = map_array<std::pair<uint16_t, uint16_t>>(o.req("vertexPairs"), [](const Value& e) {
                return std::pair<uint16_t, uint16_t>(uint16_t(e["indexInput"].as_int()), uint16_t(e["indexOutput"].as_int()));
            });
            op.input_buffer_idx = uint32_t(o.req("inputBufferIdx").as_int());
            op.output_buffer_idx = uint32_t(o.req("outputBufferIdx").as_int());
            op.gather_normals = b(v, "gatherNormals");
            break;
        case OperatorKind::input_convert:
        case OperatorKind::output_convert: {
            op.user_buffer_index = uint32_t(o.req("userBufferIndex").as_int());
            op.shadow_buffer_index = uint32_t(o.req("shadowBufferIndex").as_int());
            const Bytes ci = o.req("conversionInfo").bytes();
            op.conversion_info.assign(ci.begin(), ci.end());
            break;
        }
        case OperatorKind::update_all_vertex_frames:
        case OperatorKind::update_some_vertex_frames:
            read_vertex_frames(o, op);
            break;
        case OperatorKind::simple_mesh_bone_deform:
            op.input_buffer_idx = uint32_t(o.req("inputBufferIdx").as_int());
            op.transform_set_index = uint32_t(o.req("outputTransformSetIdx").as_int());
            op.triangle_bone_pairs = map_array<TriangleBonePair>(o.req("triangleBonePairs"), [](const Value& e) {
                return TriangleBonePair{uint16_t(e["boneOffset"].as_int()), uint16_t(e["triangleOffset"].as_int())};
            });
            op.local_bone_transforms = mat4s(o.req("localBoneTransforms"));
            break;
        case OperatorKind::mesh_bone_deform:
            op.input_buffer_idx = uint32_t(o.req("inputBufferIdx").as_int());
            op.transform_set_index = uint32_t(o.req("outputTransformSetIdx").as_int());
            op.mesh_bone_pairs = map_array<MeshBoneTriangleBonePair>(o.req("triangleBonePairs"), [](const Value& e) {
                return MeshBoneTriangleBonePair{mat4(e["localBoneTransform"]), f32(e, "weight"), uint16_t(e["triangleIndex"].as_int())};
            });
            op.triangle_bone_start_for_bone = ints<uint16_t>(v["triangleBoneStartForBone"]);
            break;
        case OperatorKind::mesh_mesh_deform:
            op.input_triangles_subset = ints<uint16_t>(o.req("inputTrianglesSubset"));
            op.triangle_vertex_pairs = map_array<TriangleVertexPair>(o.req("triangleVertexPairs"), [](const Value& e) {
                return TriangleVertexPair{vec4(e["localPosition"]), vec4(e["localNormal"]), uint16_t(e["triangleIndex"].as_int()), f32(e, "weight")};
            });
            op.triangle_vertex_start_for_vertex = ints<uint16_t>(v["triangleVertexStartForVertex"]);
            op.input_buffer_idx = uint32_t(o.req("inputBufferIdx").as_int());
            op.output_buffer_idx = uint32_t(o.req("outputBufferIdx").as_int());
            op.start_vertex = uint16_t(v["startVertex"].as_int());
            op.end_vertex = uint16_t(v["endVertex"].as_int());
            op.scale_normal_behaviour = u32(v, "scaleNormalBehaviour");
            op.deform_normals = b(v, "deformNormals");
            op.partial_deform = b(v, "partialDeform");
            break;
        case OperatorKind::other: break;
        default: {
            read_skin_or_mesh_deform(o, op);
            break;
        }
    }
    if (!o.ok()) return o.error();
    return op;
}

Result<ClothData> read_cloth_data(const File& f, uint32_t item) {
    if (!is(f, item, "hclClothData")) return object_error(f, item, "not an hclClothData");
    ObjectReader o(f, item);
    const Value& v = o.value();
    ClothData c;
    c.item = item;
    c.name = o.req("name").as_string();
    for (uint32_t s : pointees(o.req("simClothDatas"))) {
        if (!s) continue;
        auto r = read_sim_cloth(f, s);
        if (!r) return r.error();
        c.sim_cloths.push_back(std::move(*r));
    }
    for (uint32_t bi : pointees(o.req("bufferDefinitions"))) {
        const Value bv = f.object(bi);
        BufferDefinition bd;
        bd.item = bi;
        bd.class_name = f.class_name(bi);
        bd.name = str(bv, "name");
        bd.type = i32(bv, "type");
        bd.sub_type = i32(bv, "subType");
        bd.num_vertices = u32(bv, "numVertices");
        bd.num_triangles = u32(bv, "numTriangles");
        const Value l = bv["bufferLayout"];
        const Value el = l["elementsLayout"], sl = l["slots"];
        for (uint64_t k = 0; k < 4; ++k) {
            const Value e = el.at(k), s = sl.at(k);
            bd.layout.elements[k] = {uint8_t(e["vectorConversion"].as_int()), uint8_t(e["vectorSize"].as_int()), uint8_t(e["slotId"].as_int()),
                                     uint8_t(e["slotStart"].as_int())};
            bd.layout.slots[k] = {uint8_t(s["flags"].as_int()), uint8_t(s["stride"].as_int())};
        }
        bd.layout.num_slots = uint8_t(l["numSlots"].as_int());
        bd.layout.triangle_format = uint8_t(l["triangleFormat"].as_int());
        bd.triangle_indices = ints<uint16_t>(bv["triangleIndices"]);
        bd.store_normals = b(bv, "storeNormals");
        bd.store_tangents_and_bitangents = b(bv, "storeTangentsAndBiTangents");
        bd.shadow_positions = b(bv, "shadowPositions");
        bd.shadow_normals = b(bv, "shadowNormals");
        bd.shadow_tangents = b(bv, "shadowTangents");
        bd.shadow_bitangents = b(bv, "shadowBiTangents");
        c.buffers.push_back(std::move(bd));
    }
    for (uint32_t ti : pointees(o.req("transformSetDefinitions"))) {
        const Value tv = f.object(ti);
        c.transform_sets.push_back({ti, str(tv, "name"), i32(tv, "type"), u32(tv, "numTransforms")});
    }
    for (uint32_t oi : pointees(o.req("operators"))) {
        if (!oi) {
            Operator none;
            c.operators.push_back(std::move(none));
            continue;
        }
        auto r = read_operator(f, oi);
        if (!r) return r.error();
        c.operators.push_back(std::move(*r));
    }
    for (uint32_t si : pointees(o.req("clothStateDatas"))) {
        const Value sv = f.object(si);
        ClothState st;
        st.item = si;
        st.name = str(sv, "name");
        st.operators = ints<uint32_t>(sv["operators"]);
        st.used_buffers = map_array<BufferAccess>(sv["usedBuffers"], buffer_access);
        st.used_transform_sets = map_array<TransformSetAccess>(sv["usedTransformSets"], transform_set_access);
        st.used_sim_cloths = ints<uint32_t>(sv["usedSimCloths"]);
        c.states.push_back(std::move(st));
    }
    c.state_transition_count = v["stateTransitions"].size();
    c.action_count = v["actions"].size();
    c.target_platform = u32(v, "targetPlatform");
    if (!o.ok()) return o.error();
    return c;
}

Result<ClothContainer> read_cloth(const File& f) {
    BudgetScope budget(f);
    ClothContainer c;
    const auto containers = f.objects_of("hclClothContainer");
    std::vector<uint32_t> datas;
    if (containers.empty()) {
        datas = f.objects_of("hclClothData");
    } else {
        for (uint32_t ci : containers) {
            ObjectReader o(f, ci);
            for (uint32_t col : pointees(o.req("collidables"))) {
                if (!col) continue;
                auto r = read_collidable(f, col);
                if (!r) return r.error();
                c.collidables.push_back(std::move(*r));
            }
            for (uint32_t d : pointees(o.req("clothDatas")))
                if (d) datas.push_back(d);
            if (!o.ok()) return o.error();
        }
    }
    for (uint32_t d : datas) {
        auto r = read_cloth_data(f, d);
        if (!r) return r.error();
        c.cloth_datas.push_back(std::move(*r));
    }
    if (budget.exhausted()) return budget.error();
    return c;
}

std::vector<std::pair<std::string, size_t>> census(const File& f) {
    std::map<std::string, size_t> counts;
    for (uint32_t item : f.objects()) {
        const std::string& n = f.class_name(item);
        if (n.rfind("hcl", 0) == 0) ++counts[n];
    }
    return {counts.begin(), counts.end()};
}

}  // namespace drape::hcl
