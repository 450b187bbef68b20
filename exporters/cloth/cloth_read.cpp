// A .drcloth 2.0 read back into drape's hcl structs (the exporter's inverse), so a round trip can
// be compared member by member with operator==. Reads only through verify_cloth_file's verified tree.
#include "drape/exporters/cloth_read.h"

#include <zstd.h>

#include <cstring>

#include "drape/schema/cloth_generated.h"
#include "drape/schema/verify.h"

namespace drape::cloth_read {

namespace fb = drape::cloth_fb;

namespace {

havok::Vec4 v4(const fb::Vec4* v) { return v ? havok::Vec4{v->x(), v->y(), v->z(), v->w()} : havok::Vec4{}; }
havok::Vec4 v4(const fb::Vec4& v) { return havok::Vec4{v.x(), v.y(), v.z(), v.w()}; }
hcl::Mat4 m4(const fb::Mat4& m) {
    return {m.c0().x(), m.c0().y(), m.c0().z(), m.c0().w(), m.c1().x(), m.c1().y(), m.c1().z(), m.c1().w(),
            m.c2().x(), m.c2().y(), m.c2().z(), m.c2().w(), m.c3().x(), m.c3().y(), m.c3().z(), m.c3().w()};
}
hcl::Mat4 m4(const fb::Mat4* m) { return m ? m4(*m) : hcl::Mat4{}; }
std::vector<hcl::Mat4> m4s(const std::vector<fb::Mat4>& in) {
    std::vector<hcl::Mat4> out;
    for (const auto& m : in) out.push_back(m4(m));
    return out;
}
std::vector<havok::Vec4> v4s(const std::vector<fb::Vec4>& in) {
    std::vector<havok::Vec4> out;
    for (const auto& v : in) out.push_back(v4(v));
    return out;
}
std::vector<std::array<int16_t, 4>> packed(const std::vector<fb::PackedVector3>& in) {
    std::vector<std::array<int16_t, 4>> out;
    for (const auto& v : in) out.push_back({v.x(), v.y(), v.z(), v.scale()});
    return out;
}
hcl::BufferAccess access(const fb::BufferAccess& a) {
    hcl::BufferAccess b;
    b.buffer_index = a.buffer_index();
    for (size_t i = 0; i < 4; ++i) b.per_component_flags[i] = a.per_component_flags()->Get(flatbuffers::uoffset_t(i));
    b.triangles_read = a.triangles_read();
    b.shadow_buffer_index = a.shadow_buffer_index();
    return b;
}
hcl::TransformSetAccess taccess(const fb::TransformSetAccess& a) {
    hcl::TransformSetAccess t;
    t.transform_set_index = a.transform_set_index();
    for (size_t i = 0; i < 2; ++i) t.per_component_flags[i] = a.per_component_flags()->Get(flatbuffers::uoffset_t(i));
    return t;
}

hcl::Shape shape(const fb::CollidableT& c) {
    hcl::Shape s;
    s.class_name = c.shape_class_name;
    switch (c.shape.type) {
        case fb::ShapeData::SphereShape: {
            const auto& t = *c.shape.AsSphereShape();
            s.kind = hcl::ShapeKind::sphere;
            s.sphere = v4(t.sphere.get());
            break;
        }
        case fb::ShapeData::PlaneShape: {
            const auto& t = *c.shape.AsPlaneShape();
            s.kind = hcl::ShapeKind::plane;
            s.plane_equation = v4(t.plane_equation.get());
            break;
        }
        case fb::ShapeData::CapsuleShape: {
            const auto& t = *c.shape.AsCapsuleShape();
            s.kind = hcl::ShapeKind::capsule;
            s.start = v4(t.start.get());
            s.end = v4(t.end.get());
            s.dir = v4(t.dir.get());
            s.radius = t.radius;
            s.cap_len_sqrd_inv = t.cap_len_sqrd_inv;
            break;
        }
        case fb::ShapeData::TaperedCapsuleShape: {
            const auto& t = *c.shape.AsTaperedCapsuleShape();
            s.kind = hcl::ShapeKind::tapered_capsule;
            s.small = v4(t.small.get());
            s.big = v4(t.big.get());
            s.cone_apex = v4(t.cone_apex.get());
            s.cone_axis = v4(t.cone_axis.get());
            s.l_vec = v4(t.l_vec.get());
            s.d_vec = v4(t.d_vec.get());
            s.tan_theta_vec_neg = v4(t.tan_theta_vec_neg.get());
            s.small_radius = t.small_radius;
            s.big_radius = t.big_radius;
            s.l = t.l;
            s.d = t.d;
            s.cos_theta = t.cos_theta;
            s.sin_theta = t.sin_theta;
            s.tan_theta = t.tan_theta;
            s.tan_theta_sqr = t.tan_theta_sqr;
            break;
        }
        case fb::ShapeData::ConvexGeometryShape: {
            const auto& t = *c.shape.AsConvexGeometryShape();
            s.kind = hcl::ShapeKind::convex_geometry;
            s.tetrahedra_grid = t.tetrahedra_grid;
            s.grid_cells = t.grid_cells;
            s.tetrahedra_equations = m4s(t.tetrahedra_equations);
            s.local_from_world = m4(t.local_from_world.get());
            s.world_from_local = m4(t.world_from_local.get());
            s.aabb_min = v4(t.obj_aabb_min.get());
            s.aabb_max = v4(t.obj_aabb_max.get());
            s.geom_centroid = v4(t.geom_centroid.get());
            s.inv_cell_size = v4(t.inv_cell_size.get());
            s.grid_res = t.grid_res;
            break;
        }
        default: s.kind = hcl::ShapeKind::other; break;
    }
    return s;
}

hcl::Collidable collidable(const fb::CollidableT& t) {
    hcl::Collidable c;
    c.name = t.name;
    c.transform = m4(t.transform.get());
    c.linear_velocity = v4(t.linear_velocity.get());
    c.angular_velocity = v4(t.angular_velocity.get());
    c.user_data = t.user_data;
    if (t.shape.type != fb::ShapeData::NONE) c.shape = shape(t);
    c.pinch_detection_radius = t.pinch_detection_radius;
    c.pinch_detection_priority = t.pinch_detection_priority;
    c.pinch_detection_enabled = t.pinch_detection_enabled;
    c.virtual_collision_point_collision_enabled = t.virtual_collision_point_collision_enabled;
    c.enabled = t.enabled;
    return c;
}

std::vector<hcl::VolumeEntry> volume(const std::vector<fb::VolumeEntry>& in) {
    std::vector<hcl::VolumeEntry> out;
    for (const auto& e : in) out.push_back({v4(e.frame_vector()), e.particle_index(), e.weight_or_stiffness()});
    return out;
}

hcl::ConstraintSet constraint(const fb::ConstraintSetT& t) {
    hcl::ConstraintSet s;
    s.name = t.name;
    s.class_name = t.class_name;
    s.constraint_id = t.constraint_id;
    switch (t.data.type) {
        case fb::ConstraintSetData::StandardLinkSet:
            s.kind = hcl::ConstraintKind::standard_link;
            for (const auto& l : t.data.AsStandardLinkSet()->links) s.links.push_back({l.particle_a(), l.particle_b(), l.rest_length(), l.stiffness()});
            break;
        case fb::ConstraintSetData::StretchLinkSet:
            s.kind = hcl::ConstraintKind::stretch_link;
            for (const auto& l : t.data.AsStretchLinkSet()->links) s.links.push_back({l.particle_a(), l.particle_b(), l.rest_length(), l.stiffness()});
            break;
        case fb::ConstraintSetData::BendLinkSet:
            s.kind = hcl::ConstraintKind::bend_link;
            for (const auto& l : t.data.AsBendLinkSet()->links)
                s.bend_links.push_back({l.particle_a(), l.particle_b(), l.bend_min_length(), l.stretch_max_length(), l.bend_stiffness(), l.stretch_stiffness()});
            break;
        case fb::ConstraintSetData::BendStiffnessSet: {
            const auto& d = *t.data.AsBendStiffnessSet();
            s.kind = hcl::ConstraintKind::bend_stiffness;
            for (const auto& l : d.links)
                s.bend_stiffness_links.push_back({l.weight_a(), l.weight_b(), l.weight_c(), l.weight_d(), l.bend_stiffness(), l.rest_curvature(),
                                                  l.particle_a(), l.particle_b(), l.particle_c(), l.particle_d()});
            s.max_rest_pose_height_sq = d.max_rest_pose_height_sq;
            s.clamp_bend_stiffness = d.clamp_bend_stiffness;
            s.use_rest_pose_config = d.use_rest_pose_config;
            break;
        }
        case fb::ConstraintSetData::CompressibleLinkSet:
            s.kind = hcl::ConstraintKind::compressible_link;
            for (const auto& l : t.data.AsCompressibleLinkSet()->links)
                s.compressible_links.push_back({l.particle_a(), l.particle_b(), l.rest_length(), l.compression_length(), l.stiffness()});
            break;
        case fb::ConstraintSetData::LocalRangeSet: {
            const auto& d = *t.data.AsLocalRangeSet();
            s.kind = hcl::ConstraintKind::local_range;
            for (const auto& l : d.local_constraints)
                s.local_constraints.push_back({l.particle_index(), l.reference_vertex(), l.maximum_distance(), l.max_normal_distance(), l.min_normal_distance()});
            s.reference_mesh_buffer_idx = d.reference_mesh_buffer_index;
            s.stiffness = d.stiffness;
            s.shape_type = d.shape_type;
            s.apply_normal_component = d.apply_normal_component;
            break;
        }
        case fb::ConstraintSetData::TransitionSet: {
            const auto& d = *t.data.AsTransitionSet();
            s.kind = hcl::ConstraintKind::transition;
            for (const auto& p : d.per_particle_data)
                s.transition_particles.push_back({p.particle_index(), p.reference_vertex(), p.to_anim_delay(), p.to_sim_delay(), p.to_sim_max_distance()});
            s.reference_mesh_buffer_idx = d.reference_mesh_buffer_index;
            s.to_anim_period = d.to_anim_period;
            s.to_anim_plus_delay_period = d.to_anim_plus_delay_period;
            s.to_sim_period = d.to_sim_period;
            s.to_sim_plus_delay_period = d.to_sim_plus_delay_period;
            break;
        }
        case fb::ConstraintSetData::VolumeMxSet: {
            const auto& d = *t.data.AsVolumeMxSet();
            s.kind = hcl::ConstraintKind::volume_mx;
            s.frame_batches = volume(d.frame_batch_datas);
            s.frame_singles = volume(d.frame_single_datas);
            s.apply_batches = volume(d.apply_batch_datas);
            s.apply_singles = volume(d.apply_single_datas);
            break;
        }
        default: s.kind = hcl::ConstraintKind::other; break;
    }
    return s;
}

hcl::Deformer deformer(const fb::DeformerT* d) {
    hcl::Deformer out;
    if (!d) return out;
    for (const auto& b : d->blocks) out.blocks.push_back({b->blends, b->vertex_indices, b->bone_indices, b->bone_weights});
    out.control_bytes = d->control_bytes;
    out.start_vertex_index = d->start_vertex_index;
    out.end_vertex_index = d->end_vertex_index;
    out.partial_write = d->partial_write;
    return out;
}

hcl::LocalBlocks local(const fb::LocalBlocksT* l) {
    hcl::LocalBlocks out;
    if (!l) return out;
    out.packed_positions = packed(l->packed_positions);
    out.packed_normals = packed(l->packed_normals);
    out.packed_tangents = packed(l->packed_tangents);
    out.packed_bitangents = packed(l->packed_bi_tangents);
    out.positions = v4s(l->positions);
    out.normals = v4s(l->normals);
    out.tangents = v4s(l->tangents);
    out.bitangents = v4s(l->bi_tangents);
    return out;
}

template <class T>
void vertex_frames(hcl::Operator& o, const T& t) {
    o.buffer_idx = t.buffer_index;
    o.num_unique_normal_ids = t.num_unique_normal_ids;
    o.triangle_flips = t.triangle_flips;
    o.reference_vertices = t.reference_vertices;
    o.tangent_edge_cos_angle = t.tangent_edge_cos_angle;
    o.tangent_edge_sin_angle = t.tangent_edge_sin_angle;
    o.bitangent_flip = t.bi_tangent_flip;
    o.update_normals = t.update_normals;
    o.update_tangents = t.update_tangents;
    o.update_bitangents = t.update_bi_tangents;
}

// Members every skin operator kind (object and bone space) holds under the same names.
template <class D>
void skin_members(hcl::Operator& o, const D& d) {
    o.output_buffer_idx = d.output_buffer_index;
    o.transform_set_index = d.transform_set_index;
    o.transform_subset = d.transform_subset;
    o.deformer = deformer(d.deformer.get());
    o.local = local(d.local.get());
}

// Members every mesh-mesh deform kind (2014 and object/bone space) holds under the same names.
template <class D>
void mesh_mesh_members(hcl::Operator& o, const D& d) {
    o.input_buffer_idx = d.input_buffer_index;
    o.output_buffer_idx = d.output_buffer_index;
    o.scale_normal_behaviour = d.scale_normal_behaviour;
    o.input_triangles_subset = d.input_triangles_subset;
}

hcl::Operator operator_of(const fb::OperatorT& t) {
    hcl::Operator o;
    o.name = t.name;
    o.class_name = t.class_name;
    o.kind = t.class_name.empty() ? hcl::OperatorKind::other : hcl::operator_kind_of(t.class_name);
    o.operator_id = t.operator_id;
    for (const auto& a : t.used_buffers) o.used_buffers.push_back(access(a));
    for (const auto& a : t.used_transform_sets) o.used_transform_sets.push_back(taccess(a));
    switch (t.data.type) {
        case fb::OperatorData::SimulateOperator: {
            const auto& d = *t.data.AsSimulateOperator();
            o.sim_cloth_index = d.sim_cloth_index;
            for (const auto& c : d.configs)
                o.configs.push_back({c->name, c->constraint_execution, c->instance_collidables_used, c->sub_steps, c->number_of_solve_iterations,
                                     c->use_all_instance_collidables, c->adapt_constraint_stiffness});
            break;
        }
        case fb::OperatorData::MoveParticlesOperator: {
            const auto& d = *t.data.AsMoveParticlesOperator();
            o.sim_cloth_index = d.sim_cloth_index;
            o.ref_buffer_idx = d.ref_buffer_index;
            for (const auto& p : d.vertex_particle_pairs) o.vertex_particle_pairs.push_back({p.vertex_index(), p.particle_index()});
            break;
        }
        case fb::OperatorData::CopyVerticesOperator: {
            const auto& d = *t.data.AsCopyVerticesOperator();
            o.input_buffer_idx = d.input_buffer_index;
            o.output_buffer_idx = d.output_buffer_index;
            o.number_of_vertices = d.number_of_vertices;
            o.start_vertex_in = d.start_vertex_in;
            o.start_vertex_out = d.start_vertex_out;
            o.copy_normals = d.copy_normals;
            break;
        }
        case fb::OperatorData::GatherAllVerticesOperator: {
            const auto& d = *t.data.AsGatherAllVerticesOperator();
            o.input_buffer_idx = d.input_buffer_index;
            o.output_buffer_idx = d.output_buffer_index;
            o.vertex_input_from_vertex_output = d.vertex_input_from_vertex_output;
            o.gather_normals = d.gather_normals;
            o.partial_gather = d.partial_gather;
            break;
        }
        case fb::OperatorData::GatherSomeVerticesOperator: {
            const auto& d = *t.data.AsGatherSomeVerticesOperator();
            o.input_buffer_idx = d.input_buffer_index;
            o.output_buffer_idx = d.output_buffer_index;
            for (const auto& p : d.vertex_pairs) o.gather_pairs.emplace_back(p.index_input(), p.index_output());
            o.gather_normals = d.gather_normals;
            break;
        }
        case fb::OperatorData::InputConvertOperator: {
            const auto& d = *t.data.AsInputConvertOperator();
            o.user_buffer_index = d.user_buffer_index;
            o.shadow_buffer_index = d.shadow_buffer_index;
            o.conversion_info = d.conversion_info;
            break;
        }
        case fb::OperatorData::OutputConvertOperator: {
            const auto& d = *t.data.AsOutputConvertOperator();
            o.user_buffer_index = d.user_buffer_index;
            o.shadow_buffer_index = d.shadow_buffer_index;
            o.conversion_info = d.conversion_info;
            break;
        }
        case fb::OperatorData::UpdateAllVertexFramesOperator: {
            const auto& d = *t.data.AsUpdateAllVertexFramesOperator();
            vertex_frames(o, d);
            o.vert_to_normal_id = d.vert_to_normal_id;
            break;
        }
        case fb::OperatorData::UpdateSomeVertexFramesOperator: {
            const auto& d = *t.data.AsUpdateSomeVertexFramesOperator();
            vertex_frames(o, d);
            for (const auto& tri : d.involved_triangles) o.involved_triangles.push_back({tri.a(), tri.b(), tri.c()});
            o.involved_vertices = d.involved_vertices;
            o.selection_vertex_to_involved_vertex = d.selection_vertex_to_involved_vertex;
            o.involved_vertex_to_normal_id = d.involved_vertex_to_normal_id;
            break;
        }
        case fb::OperatorData::SimpleMeshBoneDeformOperator: {
            const auto& d = *t.data.AsSimpleMeshBoneDeformOperator();
            o.input_buffer_idx = d.input_buffer_index;
            o.transform_set_index = d.output_transform_set_index;
            for (const auto& p : d.triangle_bone_pairs) o.triangle_bone_pairs.push_back({p.bone_offset(), p.triangle_offset()});
            o.local_bone_transforms = m4s(d.local_bone_transforms);
            break;
        }
        case fb::OperatorData::MeshBoneDeformOperator: {
            const auto& d = *t.data.AsMeshBoneDeformOperator();
            o.input_buffer_idx = d.input_buffer_index;
            o.transform_set_index = d.output_transform_set_index;
            for (const auto& p : d.triangle_bone_pairs) o.mesh_bone_pairs.push_back({m4(p.local_bone_transform()), p.weight(), p.triangle_index()});
            o.triangle_bone_start_for_bone = d.triangle_bone_start_for_bone;
            break;
        }
        case fb::OperatorData::ObjectSpaceSkinOperator: {
            const auto& d = *t.data.AsObjectSpaceSkinOperator();
            skin_members(o, d);
            o.bone_from_skin_mesh_transforms = m4s(d.bone_from_skin_mesh_transforms);
            break;
        }
        case fb::OperatorData::BoneSpaceSkinOperator: {
            skin_members(o, *t.data.AsBoneSpaceSkinOperator());
            break;
        }
        case fb::OperatorData::ObjectSpaceMeshMeshDeformOperator: {
            const auto& d = *t.data.AsObjectSpaceMeshMeshDeformOperator();
            mesh_mesh_members(o, d);
            o.triangle_from_mesh_transforms = m4s(d.triangle_from_mesh_transforms);
            o.custom_skin_deform = d.custom_skin_deform;
            o.deformer = deformer(d.deformer.get());
            o.local = local(d.local.get());
            break;
        }
        case fb::OperatorData::BoneSpaceMeshMeshDeformOperator: {
            const auto& d = *t.data.AsBoneSpaceMeshMeshDeformOperator();
            mesh_mesh_members(o, d);
            o.deformer = deformer(d.deformer.get());
            o.local = local(d.local.get());
            break;
        }
        case fb::OperatorData::MeshMeshDeformOperator: {
            const auto& d = *t.data.AsMeshMeshDeformOperator();
            mesh_mesh_members(o, d);
            for (const auto& p : d.triangle_vertex_pairs)
                o.triangle_vertex_pairs.push_back({v4(p.local_position()), v4(p.local_normal()), p.triangle_index(), p.weight()});
            o.triangle_vertex_start_for_vertex = d.triangle_vertex_start_for_vertex;
            o.start_vertex = d.start_vertex;
            o.end_vertex = d.end_vertex;
            o.deform_normals = d.deform_normals;
            o.partial_deform = d.partial_deform;
            break;
        }
        default: break;
    }
    return o;
}

hcl::BufferDefinition buffer_definition(const fb::BufferDefinitionT& bt) {
    hcl::BufferDefinition b;
    b.class_name = bt.class_name;
    b.name = bt.name;
    b.type = bt.type;
    b.sub_type = bt.sub_type;
    b.num_vertices = bt.num_vertices;
    b.num_triangles = bt.num_triangles;
    if (bt.buffer_layout) {
        for (size_t e = 0; e < 4; ++e) {
            auto el = bt.buffer_layout->elements()->Get(flatbuffers::uoffset_t(e));
            b.layout.elements[e] = {el->vector_conversion(), el->vector_size(), el->slot_id(), el->slot_start()};
            auto sl = bt.buffer_layout->slots()->Get(flatbuffers::uoffset_t(e));
            b.layout.slots[e] = {sl->flags(), sl->stride()};
        }
        b.layout.num_slots = bt.buffer_layout->num_slots();
        b.layout.triangle_format = bt.buffer_layout->triangle_format();
    }
    b.triangle_indices = bt.triangle_indices;
    b.store_normals = bt.store_normals;
    b.store_tangents_and_bitangents = bt.store_tangents_and_bi_tangents;
    b.shadow_positions = bt.shadow_positions;
    b.shadow_normals = bt.shadow_normals;
    b.shadow_tangents = bt.shadow_tangents;
    b.shadow_bitangents = bt.shadow_bi_tangents;
    return b;
}

void transfer_motion(const fb::TransferMotionDataT& m, hcl::SimClothData& s) {
    auto& t = s.transfer_motion;
    t.transform_set_index = m.transform_set_index;
    t.transform_index = m.transform_index;
    t.transfer_translation_motion = m.transfer_translation_motion;
    t.transfer_rotation_motion = m.transfer_rotation_motion;
    t.min_translation_speed = m.min_translation_speed;
    t.max_translation_speed = m.max_translation_speed;
    t.min_translation_blend = m.min_translation_blend;
    t.max_translation_blend = m.max_translation_blend;
    t.min_rotation_speed = m.min_rotation_speed;
    t.max_rotation_speed = m.max_rotation_speed;
    t.min_rotation_blend = m.min_rotation_blend;
    t.max_rotation_blend = m.max_rotation_blend;
}

void landscape_collision(const fb::LandscapeCollisionDataT& l, hcl::SimClothData& s) {
    auto& d = s.landscape_collision;
    d.landscape_radius = l.landscape_radius;
    d.enable_stuck_particle_detection = l.enable_stuck_particle_detection;
    d.stuck_particles_stretch_factor_sq = l.stuck_particles_stretch_factor_sq;
    d.pinch_detection_enabled = l.pinch_detection_enabled;
    d.pinch_detection_priority = l.pinch_detection_priority;
    d.pinch_detection_radius = l.pinch_detection_radius;
    d.collision_tolerance = l.collision_tolerance;
}

void virtual_collision_points(const fb::VirtualCollisionPointsDataT& v, hcl::VirtualCollisionPoints& vc) {
    for (const auto& b : v.blocks) vc.blocks.push_back({b.safe_displacement_radius(), b.starting_vcp_index(), b.num_vcps()});
    vc.num_vc_points = v.num_vc_points;
    vc.landscape_particles_block_index = v.landscape_particles_block_index;
    vc.num_landscape_vc_points = v.num_landscape_vc_points;
    vc.edge_barycentrics_dictionary = v.edge_barycentrics_dictionary;
    for (const auto& e : v.edge_dictionary_entries) vc.edge_dictionary_entries.push_back({e.starting_barycentric_index(), e.num_barycentrics()});
    for (const auto& p : v.triangle_barycentrics_dictionary) vc.triangle_barycentrics_dictionary.push_back({p.u(), p.v()});
    for (const auto& e : v.triangle_dictionary_entries) vc.triangle_dictionary_entries.push_back({e.starting_barycentric_index(), e.num_barycentrics()});
    for (const auto& e : v.edges) vc.edges.push_back({e.opposite_real_particle_index(), e.barycentric_dictionary_index()});
    for (const auto& e : v.edges_landscape) vc.edges_landscape.push_back({e.opposite_real_particle_index(), e.barycentric_dictionary_index()});
    auto tri = [](const fb::TriangleFanSection& e) {
        hcl::VirtualCollisionPoints::TriangleFanSection t;
        t.opposite_real_particle_indices = {e.opposite_real_particle_indices()->Get(0), e.opposite_real_particle_indices()->Get(1)};
        t.barycentric_dictionary_index = e.barycentric_dictionary_index();
        return t;
    };
    for (const auto& e : v.triangles) vc.triangles.push_back(tri(e));
    for (const auto& e : v.triangles_landscape) vc.triangles_landscape.push_back(tri(e));
    for (const auto& f : v.edge_fans) vc.edge_fans.push_back({f.real_particle_index(), f.edge_start_index(), 0, f.num_edges()});
    for (const auto& f : v.edge_fans_landscape)
        vc.edge_fans_landscape.push_back({f.real_particle_index(), f.edge_start_index(), f.vcp_start_index(), f.num_edges()});
    for (const auto& f : v.triangle_fans) vc.triangle_fans.push_back({f.real_particle_index(), 0, f.vcp_start_index(), f.num_triangles()});
    for (const auto& f : v.triangle_fans_landscape)
        vc.triangle_fans_landscape.push_back({f.real_particle_index(), f.triangle_start_index(), f.vcp_start_index(), f.num_triangles()});
    vc.edge_fan_indices = v.edge_fan_indices;
    vc.triangle_fan_indices = v.triangle_fan_indices;
    vc.edge_fan_indices_landscape = v.edge_fan_indices_landscape;
    vc.triangle_fan_indices_landscape = v.triangle_fan_indices_landscape;
}

// `collidables`: the file's shared objects; a sim cloth's per-instance ones are copies of them.
Result<hcl::SimClothData> sim_cloth(const fb::SimClothDataT& st, const std::vector<hcl::Collidable>& collidables) {
    hcl::SimClothData s;
    s.version = st.version;
    s.name = st.name;
    if (const auto& si = st.simulation_info) {
        s.simulation_info.gravity = v4(si->gravity.get());
        s.simulation_info.global_damping_per_second = si->global_damping_per_second;
        s.simulation_info.collision_tolerance = si->collision_tolerance;
        s.simulation_info.sub_steps = si->sub_steps;
        s.simulation_info.pinch_detection_enabled = si->pinch_detection_enabled;
        s.simulation_info.landscape_collision_enabled = si->landscape_collision_enabled;
        s.simulation_info.transfer_motion_enabled = si->transfer_motion_enabled;
    }
    for (const auto& p : st.particle_datas) s.particles.push_back({p.mass(), p.inv_mass(), p.radius(), p.friction()});
    s.fixed_particles = st.fixed_particles;
    s.do_normals = st.do_normals;
    s.sim_op_ids = st.sim_op_ids;
    for (const auto& p : st.sim_cloth_poses) s.poses.push_back({0, p->name, v4s(p->positions)});
    for (const auto& c : st.static_constraint_sets) s.static_constraint_sets.push_back(constraint(*c));
    for (const auto& c : st.anti_pinch_constraint_sets) s.anti_pinch_constraint_sets.push_back(constraint(*c));
    if (const auto& m = st.collidable_transform_map) {
        s.collidable_transform_map.transform_set_index = m->transform_set_index;
        s.collidable_transform_map.transform_indices = m->transform_indices;
        s.collidable_transform_map.offsets = m4s(m->offsets);
    }
    for (uint32_t ci : st.collidables) {
        if (ci >= collidables.size())
            return make_error("drcloth.collidables", "sim cloth '" + st.name + "' names collidable " + std::to_string(ci) + " of " + std::to_string(collidables.size()));
        s.per_instance_collidables.push_back(collidables[ci]);
    }
    s.max_particle_radius = st.max_particle_radius;
    s.static_collision_masks = st.static_collision_masks;
    s.total_mass = st.total_mass;
    if (st.transfer_motion_data) transfer_motion(*st.transfer_motion_data, s);
    s.transfer_motion_enabled = st.transfer_motion_enabled;
    s.landscape_collision_enabled = st.landscape_collision_enabled;
    if (st.landscape_collision_data) landscape_collision(*st.landscape_collision_data, s);
    s.num_landscape_collidable_particles = st.num_landscape_collidable_particles;
    s.triangle_indices = st.triangle_indices;
    s.triangle_flips = st.triangle_flips;
    s.pinch_detection_enabled = st.pinch_detection_enabled;
    s.per_particle_pinch_detection_enabled = st.per_particle_pinch_detection_enabled_flags;
    for (const auto& p : st.collidable_pinching_datas)
        s.collidable_pinching_datas.push_back({p->pinch_detection_enabled, p->pinch_detection_priority, p->pinch_detection_radius});
    s.min_pinched_particle_index = st.min_pinched_particle_index;
    s.max_pinched_particle_index = st.max_pinched_particle_index;
    s.max_collision_pairs = st.max_collision_pairs;
    if (st.virtual_collision_points_data) virtual_collision_points(*st.virtual_collision_points_data, s.virtual_collision_points);
    return s;
}

Result<hcl::ClothData> cloth_data(const fb::ClothDataT& cdt, const std::vector<hcl::Collidable>& collidables,
                                  std::vector<std::vector<std::string>>* bone_names) {
    hcl::ClothData cd;
    cd.name = cdt.name;
    cd.target_platform = cdt.target_platform;
    for (const auto& ts : cdt.transform_set_definitions) {
        cd.transform_sets.push_back({0, ts->name, ts->type, ts->num_transforms});
        if (bone_names) bone_names->push_back(ts->bone_names);
    }
    for (const auto& bt : cdt.buffer_definitions) cd.buffers.push_back(buffer_definition(*bt));
    for (const auto& st : cdt.sim_cloth_datas) {
        auto s = sim_cloth(*st, collidables);
        if (!s) return std::move(s).error();
        cd.sim_cloths.push_back(std::move(*s));
    }
    // A .drcloth keeps no source items: number operators from 1 (0 marks an empty slot, as in hcl).
    for (const auto& ot : cdt.operators) {
        cd.operators.push_back(operator_of(*ot));
        if (ot->data.type != fb::OperatorData::NONE) cd.operators.back().item = uint32_t(cd.operators.size());
    }
    for (const auto& st : cdt.cloth_state_datas) {
        hcl::ClothState s;
        s.name = st->name;
        s.operators = st->operators;
        for (const auto& a : st->used_buffers) s.used_buffers.push_back(access(a));
        for (const auto& a : st->used_transform_sets) s.used_transform_sets.push_back(taccess(a));
        s.used_sim_cloths = st->used_sim_cloths;
        cd.states.push_back(std::move(s));
    }
    return cd;
}

}  // namespace

Result<Bytes> unwrap_zstd(Bytes bytes, std::vector<uint8_t>& storage) {
    if (!schema::is_zstd_frame(bytes.data(), bytes.size())) return bytes;
    const unsigned long long n = ZSTD_getFrameContentSize(bytes.data(), bytes.size());
    if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN)
        return make_error_at(0, "drcloth.zstd", "zstd frame without a readable content size");
    if (n > (1ull << 30) || n > 64ull * bytes.size() + 65536)
        return make_error_at(0, "drcloth.zstd", "zstd frame declares " + std::to_string(n) + " B: refused as too large");
    storage.resize(size_t(n));
    const size_t r = ZSTD_decompress(storage.data(), storage.size(), bytes.data(), bytes.size());
    if (ZSTD_isError(r) || r != n) return make_error_at(0, "drcloth.zstd", "corrupt zstd frame");
    return Bytes(storage.data(), storage.size());
}

Result<hcl::ClothContainer> drcloth_to_hcl(Bytes bytes, std::vector<std::vector<std::string>>* bone_names, std::vector<uint8_t>* plain_out) {
    std::vector<uint8_t> plain;
    auto unwrapped = unwrap_zstd(bytes, plain);
    if (!unwrapped) return unwrapped.error();
    bytes = *unwrapped;
    const auto verified = schema::verify_cloth_file(bytes.data(), bytes.size());
    if (!verified.ok()) {
        const bool ident = verified.status == schema::Status::wrong_identifier || verified.status == schema::Status::too_small;
        return make_error_at(ident ? 4 : 0, ident ? "drcloth.identifier" : "drcloth", verified.message);
    }
    if (plain_out) plain_out->assign(bytes.begin(), bytes.end());
    std::unique_ptr<fb::ClothFileT> file(verified.file->UnPack());
    hcl::ClothContainer out;
    std::vector<hcl::Collidable> collidables;
    for (const auto& c : file->collidables) {
        collidables.push_back(collidable(*c));
        collidables.back().item = uint32_t(collidables.size());  // identity of a shared object (no source items)
    }
    for (uint32_t ci : file->container_collidables) {
        if (ci >= collidables.size())
            return make_error("drcloth.container_collidables", "names collidable " + std::to_string(ci) + " of " + std::to_string(collidables.size()));
        out.collidables.push_back(collidables[ci]);
    }
    for (const auto& cdt : file->cloth_datas) {
        auto cd = cloth_data(*cdt, collidables, bone_names);
        if (!cd) return std::move(cd).error();
        out.cloth_datas.push_back(std::move(*cd));
    }
    return out;
}

// The `item` members are positions in the source file, which a .drcloth does not keep: clear
// them (and the counts carried by the dropped list) before comparing.
void clear_items(hcl::ClothContainer& c) {
    auto shape_items = [](std::optional<hcl::Shape>& s) {
        if (s) s->item = 0;
    };
    for (auto& col : c.collidables) col.item = 0, shape_items(col.shape);
    for (auto& cd : c.cloth_datas) {
        cd.item = 0;
        cd.state_transition_count = cd.action_count = 0;
        for (auto& b : cd.buffers) b.item = 0;
        for (auto& t : cd.transform_sets) t.item = 0;
        for (auto& s : cd.states) s.item = 0;
        for (auto& o : cd.operators) o.item = 0;
        for (auto& s : cd.sim_cloths) {
            s.item = 0;
            s.action_count = 0;
            for (auto& p : s.poses) p.item = 0;
            for (auto& cs : s.static_constraint_sets) cs.item = 0;
            for (auto& cs : s.anti_pinch_constraint_sets) cs.item = 0;
            for (auto& col : s.per_instance_collidables) col.item = 0, shape_items(col.shape);
        }
    }
}

}  // namespace drape::cloth_read
