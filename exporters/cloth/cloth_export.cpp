// hcl objects to the drape cloth schema 2.0. Field names follow schema/cloth.fbs, which follows the
// Havok members (docs/cloth-format.md).
#include "drape/exporters/cloth_export.h"

#include <zstd.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "drape/schema/cloth_generated.h"

namespace drape::cloth_export {

namespace fb = drape::cloth_fb;

namespace {

fb::Vec4 v4(const havok::Vec4& v) { return fb::Vec4(v[0], v[1], v[2], v[3]); }
fb::Mat4 m4(const hcl::Mat4& m) {
    return fb::Mat4(fb::Vec4(m[0], m[1], m[2], m[3]), fb::Vec4(m[4], m[5], m[6], m[7]), fb::Vec4(m[8], m[9], m[10], m[11]),
                    fb::Vec4(m[12], m[13], m[14], m[15]));
}
std::vector<fb::Mat4> m4s(const std::vector<hcl::Mat4>& in) {
    std::vector<fb::Mat4> out;
    out.reserve(in.size());
    for (const auto& m : in) out.push_back(m4(m));
    return out;
}
std::vector<fb::Vec4> v4s(const std::vector<havok::Vec4>& in) {
    std::vector<fb::Vec4> out;
    out.reserve(in.size());
    for (const auto& v : in) out.push_back(v4(v));
    return out;
}
std::vector<fb::PackedVector3> packed(const std::vector<std::array<int16_t, 4>>& in) {
    std::vector<fb::PackedVector3> out;
    out.reserve(in.size());
    for (const auto& v : in) out.emplace_back(v[0], v[1], v[2], v[3]);
    return out;
}

fb::BufferAccess buffer_access(const hcl::BufferAccess& a) {
    return fb::BufferAccess(a.buffer_index, flatbuffers::span<const uint8_t, 4>(a.per_component_flags.data(), 4),
                            a.triangles_read, a.shadow_buffer_index);
}
fb::TransformSetAccess transform_access(const hcl::TransformSetAccess& a) {
    return fb::TransformSetAccess(a.transform_set_index,
                                  flatbuffers::span<const uint8_t, 2>(a.per_component_flags.data(), 2));
}

fb::BufferKind buffer_kind(const hcl::BufferDefinition& b) {
    if (b.class_name == "hclShadowBufferDefinition") return fb::BufferKind::Shadow;
    if (b.class_name == "hclScratchBufferDefinition") return fb::BufferKind::Scratch;
    if (b.type == 4) return fb::BufferKind::Display;
    if (b.type == 7) return fb::BufferKind::Shadow;
    return fb::BufferKind::Other;
}

// Every distinct collidable object of the file, each written once; sim cloths refer to it by
// index. Identity is the object of the source file (hcl's `item`); objects without one (built by
// hand, item 0) are each their own.
class Collidables {
public:
    uint32_t index_of(const hcl::Collidable& c) {
        if (c.item != 0) {
            if (auto it = m_by_item.find(c.item); it != m_by_item.end()) return it->second;
        }
        const uint32_t i = uint32_t(m_list.size());
        m_list.push_back(&c);
        if (c.item != 0) m_by_item[c.item] = i;
        return i;
    }
    const std::vector<const hcl::Collidable*>& list() const { return m_list; }

private:
    std::map<uint32_t, uint32_t> m_by_item;
    std::vector<const hcl::Collidable*> m_list;
};

fb::ShapeDataUnion shape_union(const hcl::Shape& s) {
    fb::ShapeDataUnion u;
    switch (s.kind) {
        case hcl::ShapeKind::sphere: {
            fb::SphereShapeT t;
            t.sphere = std::make_unique<fb::Vec4>(v4(s.sphere));
            u.Set(std::move(t));
            break;
        }
        case hcl::ShapeKind::plane: {
            fb::PlaneShapeT t;
            t.plane_equation = std::make_unique<fb::Vec4>(v4(s.plane_equation));
            u.Set(std::move(t));
            break;
        }
        case hcl::ShapeKind::capsule: {
            fb::CapsuleShapeT t;
            t.start = std::make_unique<fb::Vec4>(v4(s.start));
            t.end = std::make_unique<fb::Vec4>(v4(s.end));
            t.dir = std::make_unique<fb::Vec4>(v4(s.dir));
            t.radius = s.radius;
            t.cap_len_sqrd_inv = s.cap_len_sqrd_inv;
            u.Set(std::move(t));
            break;
        }
        case hcl::ShapeKind::tapered_capsule: {
            fb::TaperedCapsuleShapeT t;
            t.small = std::make_unique<fb::Vec4>(v4(s.small));
            t.big = std::make_unique<fb::Vec4>(v4(s.big));
            t.cone_apex = std::make_unique<fb::Vec4>(v4(s.cone_apex));
            t.cone_axis = std::make_unique<fb::Vec4>(v4(s.cone_axis));
            t.l_vec = std::make_unique<fb::Vec4>(v4(s.l_vec));
            t.d_vec = std::make_unique<fb::Vec4>(v4(s.d_vec));
            t.tan_theta_vec_neg = std::make_unique<fb::Vec4>(v4(s.tan_theta_vec_neg));
            t.small_radius = s.small_radius;
            t.big_radius = s.big_radius;
            t.l = s.l;
            t.d = s.d;
            t.cos_theta = s.cos_theta;
            t.sin_theta = s.sin_theta;
            t.tan_theta = s.tan_theta;
            t.tan_theta_sqr = s.tan_theta_sqr;
            u.Set(std::move(t));
            break;
        }
        case hcl::ShapeKind::convex_geometry: {
            fb::ConvexGeometryShapeT t;
            t.tetrahedra_grid = s.tetrahedra_grid;
            t.grid_cells = s.grid_cells;
            t.tetrahedra_equations = m4s(s.tetrahedra_equations);
            t.local_from_world = std::make_unique<fb::Mat4>(m4(s.local_from_world));
            t.world_from_local = std::make_unique<fb::Mat4>(m4(s.world_from_local));
            t.obj_aabb_min = std::make_unique<fb::Vec4>(v4(s.aabb_min));
            t.obj_aabb_max = std::make_unique<fb::Vec4>(v4(s.aabb_max));
            t.geom_centroid = std::make_unique<fb::Vec4>(v4(s.geom_centroid));
            t.inv_cell_size = std::make_unique<fb::Vec4>(v4(s.inv_cell_size));
            t.grid_res = s.grid_res;
            u.Set(std::move(t));
            break;
        }
        case hcl::ShapeKind::other: u.Set(fb::UnknownShapeT()); break;
    }
    return u;
}

std::unique_ptr<fb::CollidableT> collidable_table(const hcl::Collidable& c) {
    auto t = std::make_unique<fb::CollidableT>();
    t->name = c.name;
    t->transform = std::make_unique<fb::Mat4>(m4(c.transform));
    t->linear_velocity = std::make_unique<fb::Vec4>(v4(c.linear_velocity));
    t->angular_velocity = std::make_unique<fb::Vec4>(v4(c.angular_velocity));
    t->user_data = c.user_data;
    if (c.shape) {
        t->shape_class_name = c.shape->class_name;
        t->shape = shape_union(*c.shape);
    }
    t->pinch_detection_radius = c.pinch_detection_radius;
    t->pinch_detection_priority = c.pinch_detection_priority;
    t->pinch_detection_enabled = c.pinch_detection_enabled;
    t->virtual_collision_point_collision_enabled = c.virtual_collision_point_collision_enabled;
    t->enabled = c.enabled;
    return t;
}

std::unique_ptr<fb::ConstraintSetT> constraint_table(const hcl::ConstraintSet& s) {
    auto t = std::make_unique<fb::ConstraintSetT>();
    t->name = s.name;
    t->class_name = s.class_name;
    t->constraint_id = s.constraint_id;
    switch (s.kind) {
        case hcl::ConstraintKind::standard_link: {
            fb::StandardLinkSetT d;
            for (const auto& l : s.links) d.links.emplace_back(l.particle_a, l.particle_b, l.rest_length, l.stiffness);
            t->data.Set(std::move(d));
            break;
        }
        case hcl::ConstraintKind::stretch_link: {
            fb::StretchLinkSetT d;
            for (const auto& l : s.links) d.links.emplace_back(l.particle_a, l.particle_b, l.rest_length, l.stiffness);
            t->data.Set(std::move(d));
            break;
        }
        case hcl::ConstraintKind::bend_link: {
            fb::BendLinkSetT d;
            for (const auto& l : s.bend_links)
                d.links.emplace_back(l.particle_a, l.particle_b, l.bend_min_length, l.stretch_max_length, l.bend_stiffness, l.stretch_stiffness);
            t->data.Set(std::move(d));
            break;
        }
        case hcl::ConstraintKind::bend_stiffness: {
            fb::BendStiffnessSetT d;
            for (const auto& l : s.bend_stiffness_links)
                d.links.emplace_back(l.weight_a, l.weight_b, l.weight_c, l.weight_d, l.bend_stiffness, l.rest_curvature, l.particle_a,
                                     l.particle_b, l.particle_c, l.particle_d);
            d.max_rest_pose_height_sq = s.max_rest_pose_height_sq;
            d.clamp_bend_stiffness = s.clamp_bend_stiffness;
            d.use_rest_pose_config = s.use_rest_pose_config;
            t->data.Set(std::move(d));
            break;
        }
        case hcl::ConstraintKind::compressible_link: {
            fb::CompressibleLinkSetT d;
            for (const auto& l : s.compressible_links)
                d.links.emplace_back(l.particle_a, l.particle_b, l.rest_length, l.compression_length, l.stiffness);
            t->data.Set(std::move(d));
            break;
        }
        case hcl::ConstraintKind::local_range: {
            fb::LocalRangeSetT d;
            for (const auto& l : s.local_constraints)
                d.local_constraints.emplace_back(l.particle_index, l.reference_vertex, l.maximum_distance, l.max_normal_distance, l.min_normal_distance);
            d.reference_mesh_buffer_index = s.reference_mesh_buffer_idx;
            d.stiffness = s.stiffness;
            d.shape_type = s.shape_type;
            d.apply_normal_component = s.apply_normal_component;
            t->data.Set(std::move(d));
            break;
        }
        case hcl::ConstraintKind::transition: {
            fb::TransitionSetT d;
            for (const auto& p : s.transition_particles)
                d.per_particle_data.emplace_back(p.particle_index, p.reference_vertex, p.to_anim_delay, p.to_sim_delay, p.to_sim_max_distance);
            d.reference_mesh_buffer_index = s.reference_mesh_buffer_idx;
            d.to_anim_period = s.to_anim_period;
            d.to_anim_plus_delay_period = s.to_anim_plus_delay_period;
            d.to_sim_period = s.to_sim_period;
            d.to_sim_plus_delay_period = s.to_sim_plus_delay_period;
            t->data.Set(std::move(d));
            break;
        }
        case hcl::ConstraintKind::volume_mx: {
            fb::VolumeMxSetT d;
            auto vol = [](const std::vector<hcl::VolumeEntry>& in) {
                std::vector<fb::VolumeEntry> out;
                for (const auto& e : in) out.emplace_back(v4(e.frame_vector), e.particle_index, e.weight_or_stiffness);
                return out;
            };
            d.frame_batch_datas = vol(s.frame_batches);
            d.frame_single_datas = vol(s.frame_singles);
            d.apply_batch_datas = vol(s.apply_batches);
            d.apply_single_datas = vol(s.apply_singles);
            t->data.Set(std::move(d));
            break;
        }
        case hcl::ConstraintKind::other: t->data.Set(fb::UnknownConstraintSetT()); break;
    }
    return t;
}
std::unique_ptr<fb::SimClothDataT> sim_cloth_table(const hcl::SimClothData& s, Collidables& collidables) {
    auto t = std::make_unique<fb::SimClothDataT>();
    t->name = s.name;
    t->version = s.version;
    auto si = std::make_unique<fb::SimulationInfoT>();
    si->gravity = std::make_unique<fb::Vec4>(v4(s.simulation_info.gravity));
    si->global_damping_per_second = s.simulation_info.global_damping_per_second;
    si->collision_tolerance = s.simulation_info.collision_tolerance;
    si->sub_steps = s.simulation_info.sub_steps;
    si->pinch_detection_enabled = s.simulation_info.pinch_detection_enabled;
    si->landscape_collision_enabled = s.simulation_info.landscape_collision_enabled;
    si->transfer_motion_enabled = s.simulation_info.transfer_motion_enabled;
    t->simulation_info = std::move(si);
    for (const auto& p : s.particles) t->particle_datas.emplace_back(p.mass, p.inv_mass, p.radius, p.friction);
    t->fixed_particles = s.fixed_particles;
    t->do_normals = s.do_normals;
    t->sim_op_ids = s.sim_op_ids;
    for (const auto& p : s.poses) {
        auto pose = std::make_unique<fb::SimClothPoseT>();
        pose->name = p.name;
        pose->positions = v4s(p.positions);
        t->sim_cloth_poses.push_back(std::move(pose));
    }
    for (const auto& c : s.static_constraint_sets) t->static_constraint_sets.push_back(constraint_table(c));
    for (const auto& c : s.anti_pinch_constraint_sets) t->anti_pinch_constraint_sets.push_back(constraint_table(c));
    auto map = std::make_unique<fb::CollidableTransformMapT>();
    map->transform_set_index = s.collidable_transform_map.transform_set_index;
    map->transform_indices = s.collidable_transform_map.transform_indices;
    map->offsets = m4s(s.collidable_transform_map.offsets);
    t->collidable_transform_map = std::move(map);
    for (const auto& c : s.per_instance_collidables) t->collidables.push_back(collidables.index_of(c));
    t->max_particle_radius = s.max_particle_radius;
    t->static_collision_masks = s.static_collision_masks;
    t->total_mass = s.total_mass;
    auto tm = std::make_unique<fb::TransferMotionDataT>();
    const auto& m = s.transfer_motion;
    tm->transform_set_index = m.transform_set_index;
    tm->transform_index = m.transform_index;
    tm->transfer_translation_motion = m.transfer_translation_motion;
    tm->min_translation_speed = m.min_translation_speed;
    tm->max_translation_speed = m.max_translation_speed;
    tm->min_translation_blend = m.min_translation_blend;
    tm->max_translation_blend = m.max_translation_blend;
    tm->transfer_rotation_motion = m.transfer_rotation_motion;
    tm->min_rotation_speed = m.min_rotation_speed;
    tm->max_rotation_speed = m.max_rotation_speed;
    tm->min_rotation_blend = m.min_rotation_blend;
    tm->max_rotation_blend = m.max_rotation_blend;
    t->transfer_motion_data = std::move(tm);
    t->transfer_motion_enabled = s.transfer_motion_enabled;
    t->landscape_collision_enabled = s.landscape_collision_enabled;
    auto lc = std::make_unique<fb::LandscapeCollisionDataT>();
    const auto& l = s.landscape_collision;
    lc->landscape_radius = l.landscape_radius;
    lc->enable_stuck_particle_detection = l.enable_stuck_particle_detection;
    lc->stuck_particles_stretch_factor_sq = l.stuck_particles_stretch_factor_sq;
    lc->pinch_detection_enabled = l.pinch_detection_enabled;
    lc->pinch_detection_priority = l.pinch_detection_priority;
    lc->pinch_detection_radius = l.pinch_detection_radius;
    lc->collision_tolerance = l.collision_tolerance;
    t->landscape_collision_data = std::move(lc);
    t->num_landscape_collidable_particles = s.num_landscape_collidable_particles;
    t->triangle_indices = s.triangle_indices;
    t->triangle_flips = s.triangle_flips;
    t->pinch_detection_enabled = s.pinch_detection_enabled;
    t->per_particle_pinch_detection_enabled_flags = s.per_particle_pinch_detection_enabled;
    for (const auto& p : s.collidable_pinching_datas) {
        auto pd = std::make_unique<fb::CollidablePinchingDataT>();
        pd->pinch_detection_enabled = p.pinch_detection_enabled;
        pd->pinch_detection_priority = p.pinch_detection_priority;
        pd->pinch_detection_radius = p.pinch_detection_radius;
        t->collidable_pinching_datas.push_back(std::move(pd));
    }
    t->min_pinched_particle_index = s.min_pinched_particle_index;
    t->max_pinched_particle_index = s.max_pinched_particle_index;
    t->max_collision_pairs = s.max_collision_pairs;
    const auto& vc = s.virtual_collision_points;
    auto v = std::make_unique<fb::VirtualCollisionPointsDataT>();
    for (const auto& b : vc.blocks) v->blocks.emplace_back(b.safe_displacement_radius, b.starting_vcp_index, b.num_vcps);
    v->num_vc_points = vc.num_vc_points;
    v->landscape_particles_block_index = vc.landscape_particles_block_index;
    v->num_landscape_vc_points = vc.num_landscape_vc_points;
    v->edge_barycentrics_dictionary = vc.edge_barycentrics_dictionary;
    for (const auto& e : vc.edge_dictionary_entries) v->edge_dictionary_entries.emplace_back(e.starting_barycentric_index, e.num_barycentrics);
    for (const auto& p : vc.triangle_barycentrics_dictionary) v->triangle_barycentrics_dictionary.emplace_back(p[0], p[1]);
    for (const auto& e : vc.triangle_dictionary_entries)
        v->triangle_dictionary_entries.emplace_back(e.starting_barycentric_index, e.num_barycentrics);
    auto sections = [](const std::vector<hcl::VirtualCollisionPoints::EdgeFanSection>& in) {
        std::vector<fb::EdgeFanSection> out;
        for (const auto& e : in) out.emplace_back(e.opposite_real_particle_index, e.barycentric_dictionary_index);
        return out;
    };
    auto tri_sections = [](const std::vector<hcl::VirtualCollisionPoints::TriangleFanSection>& in) {
        std::vector<fb::TriangleFanSection> out;
        for (const auto& e : in)
            out.emplace_back(flatbuffers::span<const uint16_t, 2>(e.opposite_real_particle_indices.data(), 2),
                             e.barycentric_dictionary_index);
        return out;
    };
    v->edges = sections(vc.edges);
    v->edges_landscape = sections(vc.edges_landscape);
    v->triangles = tri_sections(vc.triangles);
    v->triangles_landscape = tri_sections(vc.triangles_landscape);
    for (const auto& f : vc.edge_fans) v->edge_fans.emplace_back(f.real_particle_index, f.edge_start_index, f.num_edges);
    for (const auto& f : vc.edge_fans_landscape)
        v->edge_fans_landscape.emplace_back(f.real_particle_index, f.edge_start_index, f.vcp_start_index, f.num_edges);
    for (const auto& f : vc.triangle_fans) v->triangle_fans.emplace_back(f.real_particle_index, f.vcp_start_index, f.num_triangles);
    for (const auto& f : vc.triangle_fans_landscape)
        v->triangle_fans_landscape.emplace_back(f.real_particle_index, f.triangle_start_index, f.vcp_start_index, f.num_triangles);
    v->edge_fan_indices = vc.edge_fan_indices;
    v->triangle_fan_indices = vc.triangle_fan_indices;
    v->edge_fan_indices_landscape = vc.edge_fan_indices_landscape;
    v->triangle_fan_indices_landscape = vc.triangle_fan_indices_landscape;
    t->virtual_collision_points_data = std::move(v);
    return t;
}

fb::VertexChannels channels_of(const std::string& cls) {
    if (cls.ends_with("PNTBOperator")) return fb::VertexChannels::PNTB;
    if (cls.ends_with("PNTOperator")) return fb::VertexChannels::PNT;
    if (cls.ends_with("PNOperator")) return fb::VertexChannels::PN;
    return fb::VertexChannels::P;
}

std::unique_ptr<fb::DeformerT> deformer_table(const hcl::Deformer& in) {
    auto d = std::make_unique<fb::DeformerT>();
    for (const auto& b : in.blocks) {
        auto bt = std::make_unique<fb::BlendBlockT>();
        bt->blends = b.blends;
        bt->vertex_indices = b.vertex_indices;
        bt->bone_indices = b.bone_indices;
        bt->bone_weights = b.bone_weights;
        d->blocks.push_back(std::move(bt));
    }
    d->control_bytes = in.control_bytes;
    d->start_vertex_index = in.start_vertex_index;
    d->end_vertex_index = in.end_vertex_index;
    d->partial_write = in.partial_write;
    return d;
}

std::unique_ptr<fb::LocalBlocksT> local_table(const hcl::LocalBlocks& in) {
    auto lb = std::make_unique<fb::LocalBlocksT>();
    lb->packed_positions = packed(in.packed_positions);
    lb->packed_normals = packed(in.packed_normals);
    lb->packed_tangents = packed(in.packed_tangents);
    lb->packed_bi_tangents = packed(in.packed_bitangents);
    lb->positions = v4s(in.positions);
    lb->normals = v4s(in.normals);
    lb->tangents = v4s(in.tangents);
    lb->bi_tangents = v4s(in.bitangents);
    return lb;
}

std::unique_ptr<fb::SimulateConfigT> config_table(const hcl::SimulateConfig& c) {
    auto ct = std::make_unique<fb::SimulateConfigT>();
    ct->name = c.name;
    ct->constraint_execution = c.constraint_execution;
    ct->instance_collidables_used = c.instance_collidables_used;
    ct->sub_steps = c.sub_steps;
    ct->number_of_solve_iterations = c.number_of_solve_iterations;
    ct->use_all_instance_collidables = c.use_all_instance_collidables;
    ct->adapt_constraint_stiffness = c.adapt_constraint_stiffness;
    return ct;
}

template <class T>
void vertex_frames(T& t, const hcl::Operator& o) {
    t.buffer_index = o.buffer_idx;
    t.num_unique_normal_ids = o.num_unique_normal_ids;
    t.triangle_flips = o.triangle_flips;
    t.reference_vertices = o.reference_vertices;
    t.tangent_edge_cos_angle = o.tangent_edge_cos_angle;
    t.tangent_edge_sin_angle = o.tangent_edge_sin_angle;
    t.bi_tangent_flip = o.bitangent_flip;
    t.update_normals = o.update_normals;
    t.update_tangents = o.update_tangents;
    t.update_bi_tangents = o.update_bitangents;
}

// Members every skin operator kind (object and bone space) holds under the same names.
template <class T>
void skin_members(T& t, const hcl::Operator& o) {
    t.channels = channels_of(o.class_name);
    t.output_buffer_index = o.output_buffer_idx;
    t.transform_set_index = o.transform_set_index;
    t.transform_subset = o.transform_subset;
    t.deformer = deformer_table(o.deformer);
    t.local = local_table(o.local);
}

// Members every mesh-mesh deform kind (2014 and object/bone space) holds under the same names.
template <class T>
void mesh_mesh_members(T& t, const hcl::Operator& o) {
    t.input_buffer_index = o.input_buffer_idx;
    t.output_buffer_index = o.output_buffer_idx;
    t.scale_normal_behaviour = o.scale_normal_behaviour;
    t.input_triangles_subset = o.input_triangles_subset;
}

// One table per operator kind, each the hcl operator's members under the schema's names.
fb::SimulateOperatorT simulate_op(const hcl::Operator& o) {
    fb::SimulateOperatorT t;
    t.sim_cloth_index = o.sim_cloth_index;
    for (const auto& c : o.configs) t.configs.push_back(config_table(c));
    return t;
}

fb::MoveParticlesOperatorT move_particles_op(const hcl::Operator& o) {
    fb::MoveParticlesOperatorT t;
    t.sim_cloth_index = o.sim_cloth_index;
    t.ref_buffer_index = o.ref_buffer_idx;
    for (const auto& p : o.vertex_particle_pairs) t.vertex_particle_pairs.emplace_back(p.vertex_index, p.particle_index);
    return t;
}

fb::CopyVerticesOperatorT copy_vertices_op(const hcl::Operator& o) {
    fb::CopyVerticesOperatorT t;
    t.input_buffer_index = o.input_buffer_idx;
    t.output_buffer_index = o.output_buffer_idx;
    t.number_of_vertices = o.number_of_vertices;
    t.start_vertex_in = o.start_vertex_in;
    t.start_vertex_out = o.start_vertex_out;
    t.copy_normals = o.copy_normals;
    return t;
}

fb::GatherAllVerticesOperatorT gather_all_op(const hcl::Operator& o) {
    fb::GatherAllVerticesOperatorT t;
    t.input_buffer_index = o.input_buffer_idx;
    t.output_buffer_index = o.output_buffer_idx;
    t.vertex_input_from_vertex_output = o.vertex_input_from_vertex_output;
    t.gather_normals = o.gather_normals;
    t.partial_gather = o.partial_gather;
    return t;
}

fb::GatherSomeVerticesOperatorT gather_some_op(const hcl::Operator& o) {
    fb::GatherSomeVerticesOperatorT t;
    t.input_buffer_index = o.input_buffer_idx;
    t.output_buffer_index = o.output_buffer_idx;
    for (const auto& p : o.gather_pairs) t.vertex_pairs.emplace_back(p.first, p.second);
    t.gather_normals = o.gather_normals;
    return t;
}

// Input and output conversions hold the same members.
template <class T>
T convert_op(const hcl::Operator& o) {
    T t;
    t.user_buffer_index = o.user_buffer_index;
    t.shadow_buffer_index = o.shadow_buffer_index;
    t.conversion_info = o.conversion_info;
    return t;
}

fb::UpdateAllVertexFramesOperatorT update_all_frames_op(const hcl::Operator& o) {
    fb::UpdateAllVertexFramesOperatorT t;
    vertex_frames(t, o);
    t.vert_to_normal_id = o.vert_to_normal_id;
    return t;
}

fb::UpdateSomeVertexFramesOperatorT update_some_frames_op(const hcl::Operator& o) {
    fb::UpdateSomeVertexFramesOperatorT t;
    vertex_frames(t, o);
    for (const auto& tri : o.involved_triangles) t.involved_triangles.emplace_back(tri[0], tri[1], tri[2]);
    t.involved_vertices = o.involved_vertices;
    t.selection_vertex_to_involved_vertex = o.selection_vertex_to_involved_vertex;
    t.involved_vertex_to_normal_id = o.involved_vertex_to_normal_id;
    return t;
}

fb::SimpleMeshBoneDeformOperatorT simple_mesh_bone_deform_op(const hcl::Operator& o) {
    fb::SimpleMeshBoneDeformOperatorT t;
    t.input_buffer_index = o.input_buffer_idx;
    t.output_transform_set_index = o.transform_set_index;
    for (const auto& p : o.triangle_bone_pairs) t.triangle_bone_pairs.emplace_back(p.bone_offset, p.triangle_offset);
    t.local_bone_transforms = m4s(o.local_bone_transforms);
    return t;
}

fb::MeshBoneDeformOperatorT mesh_bone_deform_op(const hcl::Operator& o) {
    fb::MeshBoneDeformOperatorT t;
    t.input_buffer_index = o.input_buffer_idx;
    t.output_transform_set_index = o.transform_set_index;
    for (const auto& p : o.mesh_bone_pairs) t.triangle_bone_pairs.emplace_back(m4(p.local_bone_transform), p.weight, p.triangle_index);
    t.triangle_bone_start_for_bone = o.triangle_bone_start_for_bone;
    return t;
}

fb::ObjectSpaceSkinOperatorT object_space_skin_op(const hcl::Operator& o) {
    fb::ObjectSpaceSkinOperatorT t;
    skin_members(t, o);
    t.bone_from_skin_mesh_transforms = m4s(o.bone_from_skin_mesh_transforms);
    return t;
}

fb::BoneSpaceSkinOperatorT bone_space_skin_op(const hcl::Operator& o) {
    fb::BoneSpaceSkinOperatorT t;
    skin_members(t, o);
    return t;
}

fb::ObjectSpaceMeshMeshDeformOperatorT object_space_mesh_mesh_op(const hcl::Operator& o) {
    fb::ObjectSpaceMeshMeshDeformOperatorT t;
    mesh_mesh_members(t, o);
    t.channels = channels_of(o.class_name);
    t.triangle_from_mesh_transforms = m4s(o.triangle_from_mesh_transforms);
    t.custom_skin_deform = o.custom_skin_deform;
    t.deformer = deformer_table(o.deformer);
    t.local = local_table(o.local);
    return t;
}

fb::BoneSpaceMeshMeshDeformOperatorT bone_space_mesh_mesh_op(const hcl::Operator& o) {
    fb::BoneSpaceMeshMeshDeformOperatorT t;
    mesh_mesh_members(t, o);
    t.channels = channels_of(o.class_name);
    t.deformer = deformer_table(o.deformer);
    t.local = local_table(o.local);
    return t;
}

fb::MeshMeshDeformOperatorT mesh_mesh_2014_op(const hcl::Operator& o) {
    fb::MeshMeshDeformOperatorT t;
    mesh_mesh_members(t, o);
    for (const auto& p : o.triangle_vertex_pairs) t.triangle_vertex_pairs.emplace_back(v4(p.local_position), v4(p.local_normal), p.triangle_index, p.weight);
    t.triangle_vertex_start_for_vertex = o.triangle_vertex_start_for_vertex;
    t.start_vertex = o.start_vertex;
    t.end_vertex = o.end_vertex;
    t.deform_normals = o.deform_normals;
    t.partial_deform = o.partial_deform;
    return t;
}

fb::OperatorDataUnion operator_union(const hcl::Operator& o) {
    using K = hcl::OperatorKind;
    fb::OperatorDataUnion u;
    if (o.item == 0 && o.class_name.empty()) return u;  // an empty slot of the operator list
    switch (o.kind) {
        case K::simulate: u.Set(simulate_op(o)); break;
        case K::move_particles: u.Set(move_particles_op(o)); break;
        case K::copy_vertices: u.Set(copy_vertices_op(o)); break;
        case K::gather_all_vertices: u.Set(gather_all_op(o)); break;
        case K::gather_some_vertices: u.Set(gather_some_op(o)); break;
        case K::input_convert: u.Set(convert_op<fb::InputConvertOperatorT>(o)); break;
        case K::output_convert: u.Set(convert_op<fb::OutputConvertOperatorT>(o)); break;
        case K::update_all_vertex_frames: u.Set(update_all_frames_op(o)); break;
        case K::update_some_vertex_frames: u.Set(update_some_frames_op(o)); break;
        case K::simple_mesh_bone_deform: u.Set(simple_mesh_bone_deform_op(o)); break;
        case K::mesh_bone_deform: u.Set(mesh_bone_deform_op(o)); break;
        case K::object_space_skin_p:
        case K::object_space_skin_pn:
        case K::object_space_skin_pnt:
        case K::object_space_skin_pntb: u.Set(object_space_skin_op(o)); break;
        case K::bone_space_skin_p:
        case K::bone_space_skin_pn:
        case K::bone_space_skin_pnt:
        case K::bone_space_skin_pntb: u.Set(bone_space_skin_op(o)); break;
        case K::object_space_mesh_mesh_deform_p:
        case K::object_space_mesh_mesh_deform_pn:
        case K::object_space_mesh_mesh_deform_pnt:
        case K::object_space_mesh_mesh_deform_pntb: u.Set(object_space_mesh_mesh_op(o)); break;
        case K::bone_space_mesh_mesh_deform_p:
        case K::bone_space_mesh_mesh_deform_pn:
        case K::bone_space_mesh_mesh_deform_pnt:
        case K::bone_space_mesh_mesh_deform_pntb: u.Set(bone_space_mesh_mesh_op(o)); break;
        case K::mesh_mesh_deform: u.Set(mesh_mesh_2014_op(o)); break;
        case K::other: u.Set(fb::UnknownOperatorT()); break;
    }
    return u;
}

std::unique_ptr<fb::OperatorT> operator_table(const hcl::Operator& o) {
    auto t = std::make_unique<fb::OperatorT>();
    t->name = o.name;
    t->class_name = o.class_name;
    t->operator_id = o.operator_id;
    for (const auto& a : o.used_buffers) t->used_buffers.push_back(buffer_access(a));
    for (const auto& a : o.used_transform_sets) t->used_transform_sets.push_back(transform_access(a));
    t->data = operator_union(o);
    return t;
}

// The mesh's size for the binding figure: its radius about the model's origin (the largest distance
// of a vertex from it). The packed local vectors' precision is relative to that distance (a block's
// scale is a power of two above its largest coordinate), not to the mesh's extent: c5000's tail,
// 4 m from the origin, has a 2.4e-4 m quantisation step although it is 1 m long.
float mesh_size(const ModelMesh& m) {
    float r = 0;
    for (const auto& p : m.positions) r = std::max(r, std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]));
    return r;
}

// The largest relative distance between the bind positions the object-space skins writing the
// buffer give its vertices and the mesh's vertices.
void check_binding(const hcl::ClothData& cd, const ModelMesh& mesh, hcl::ControlByteRule rule, Binding& b) {
    const float size = mesh_size(mesh);
    float worst = 0, worst_m = 0;
    uint32_t checked = 0;
    for (uint32_t w : b.skin_operators) {
        const auto bind = hcl::skin_bind_positions(cd.operators[w],
                                                   uint32_t(std::max<size_t>(mesh.positions.size(), cd.buffers[b.buffer_index].num_vertices)), rule);
        for (size_t v = 0; v < bind.size(); ++v) {
            if (std::isnan(bind[v][0])) continue;
            if (v >= mesh.positions.size()) {
                worst = INFINITY;
                continue;
            }
            const auto& q = mesh.positions[v];
            const float dx = bind[v][0] - q[0], dy = bind[v][1] - q[1], dz = bind[v][2] - q[2];
            const float e = std::sqrt(dx * dx + dy * dy + dz * dz);
            worst = std::max(worst, size > 0 ? e / size : e);
            worst_m = std::max(worst_m, e);
            ++checked;
        }
    }
    b.vertices_checked = checked;
    b.max_error = checked ? worst : -1;
    b.max_distance_m = checked ? worst_m : -1;
    b.mesh_size_m = size;
}

}  // namespace

std::vector<std::array<float, 3>> skin_bind_positions(const hcl::Operator& skin, uint32_t vertex_count, const std::string& sdk) {
    return hcl::skin_bind_positions(skin, vertex_count, hcl::control_byte_rule_for_sdk(sdk));
}

Report measure(const hcl::ClothContainer& cloth, const Options& options) {
    Report rep;
    const hcl::ControlByteRule rule = hcl::control_byte_rule_for_sdk(options.sdk);
    std::vector<bool> mesh_taken(options.meshes.size(), false);
    std::vector<int> mesh_cloth(options.meshes.size(), -1);  // the cloth data whose display buffer took the mesh
    const bool bind = options.model_given || !options.meshes.empty();
    for (size_t ci = 0; ci < cloth.cloth_datas.size(); ++ci) {
        const auto& cd = cloth.cloth_datas[ci];
        ++rep.cloth_datas;
        rep.operators += cd.operators.size();
        for (size_t si = 0; si < cd.sim_cloths.size(); ++si) {
            const auto& s = cd.sim_cloths[si];
            ++rep.sim_cloths;
            rep.particles += s.particles.size();
            rep.constraint_sets += s.static_constraint_sets.size() + s.anti_pinch_constraint_sets.size();
            SimClothFigure f;
            f.cloth_data = cd.name;
            f.name = s.name;
            f.cloth_data_index = uint32_t(ci);
            f.sim_index = uint32_t(si);
            f.particles = s.particles.size();
            f.fixed_particles = s.fixed_particles.size();
            f.rest = hcl::rest_pose_figure(cd, si, rule, options.skeletons);
            rep.sim_cloths_figures.push_back(std::move(f));
        }
        if (!bind) continue;
        // Display buffers to meshes: same default-node name and counts; among same-named
        // candidates, the order of the buffers' subType.
        std::vector<size_t> display;
        for (size_t i = 0; i < cd.buffers.size(); ++i)
            if (buffer_kind(cd.buffers[i]) == fb::BufferKind::Display) display.push_back(i);
        std::stable_sort(display.begin(), display.end(), [&](size_t a, size_t b) { return cd.buffers[a].sub_type < cd.buffers[b].sub_type; });
        std::vector<Binding> bindings;
        for (size_t bi : display) {
            const auto& buf = cd.buffers[bi];
            Binding b;
            b.cloth_data = cd.name;
            b.buffer = buf.name;
            b.cloth_data_index = uint32_t(ci);
            b.buffer_index = uint32_t(bi);
            for (uint32_t w : hcl::writers_of_buffer(cd, uint32_t(bi))) {
                if (hcl::is_object_space_skin(cd.operators[w].kind)) b.skin_operators.push_back(w);
                else b.other_writers.push_back(w);
            }
            auto fits = [&](const ModelMesh& m) {
                return m.default_node_name == buf.name && m.vertex_count == buf.num_vertices && m.first_face_set_triangles == buf.num_triangles;
            };
            for (size_t mi = 0; mi < options.meshes.size(); ++mi) {
                if (mesh_taken[mi] || !fits(options.meshes[mi])) continue;
                mesh_taken[mi] = true;
                mesh_cloth[mi] = int(ci);
                b.mesh_index = int(mi);
                b.mesh_name = options.meshes[mi].gltf_name;
                break;
            }
            // A cloth data may hold one display buffer of a mesh per state (Elden Ring c2030's
            // skirt: the Default state writes one, the Fall state another, of the same node and
            // counts): when no free mesh fits, the mesh an earlier buffer of this cloth data took.
            for (size_t mi = 0; b.mesh_index < 0 && mi < options.meshes.size(); ++mi) {
                if (mesh_cloth[mi] != int(ci) || !fits(options.meshes[mi])) continue;
                b.mesh_index = int(mi);
                b.mesh_name = options.meshes[mi].gltf_name;
            }
            if (b.mesh_index < 0) {
                b.reason = options.meshes.empty() ? "no model with meshes was found"
                                                  : "no mesh of the model has the default node '" + buf.name + "', " + std::to_string(buf.num_vertices) +
                                                        " vertices and " + std::to_string(buf.num_triangles) + " triangles in its first face set";
            } else {
                check_binding(cd, options.meshes[size_t(b.mesh_index)], rule, b);
                if (b.skin_operators.empty()) b.reason = "no object-space skin writes this buffer";
                else if (b.max_error < 0) b.reason = "the object-space skins writing this buffer write none of its vertices";
                b.within_tolerance = b.max_error <= options.bind_tolerance;
            }
            bindings.push_back(std::move(b));
        }
        // Report in buffer order.
        std::sort(bindings.begin(), bindings.end(), [](const Binding& a, const Binding& b) { return a.buffer_index < b.buffer_index; });
        for (auto& b : bindings) rep.bindings.push_back(std::move(b));
    }
    return rep;
}

const std::vector<Dropped>& dropped_members() {
    static const std::vector<Dropped> list = {
        {"hclClothData", "stateTransitions", "empty in every Sekiro and Elden Ring file (docs/havok-cloth.md); a non-empty one is counted here", 0},
        {"hclClothData", "actions", "empty in every file (docs/havok-cloth.md); the games add their action (wind) at run time", 0},
        {"hclSimClothData", "actions", "empty in every file (docs/havok-cloth.md)", 0},
        {"hclClothState", "dependencyGraph", "a run-time scheduling aid derived from the operators' used buffers; recomputable", 0},
        {"hclTransformSetUsage", "perComponentTransformTrackers", "per-transform read/write bit fields derived from the operators; recomputable", 0},
        {"hclConstraintSet", "type", "0 in every stored object (docs/havok-cloth.md): the class decides, carried as kind", 0},
        {"hclOperator", "type", "0 in every stored object (docs/havok-cloth.md): the class decides, carried as kind", 0},
        {"hclShape", "type", "0 in every stored object (docs/havok-cloth.md): the class decides, carried as kind", 0},
        {"hkReferencedObject", "propertyBag", "run-time property storage of every Havok object; empty in game files", 0},
        {"hkReferencedObject", "memSizeAndFlags", "run-time allocation size and flags, not data", 0},
        {"hkReferencedObject", "refCount", "run-time reference count, not data", 0},
    };
    return list;
}

namespace {

std::unique_ptr<fb::TransformSetDefinitionT> transform_set_table(const hcl::TransformSetDefinition& ts, const Options& options) {
    auto tt = std::make_unique<fb::TransformSetDefinitionT>();
    tt->name = ts.name;
    tt->type = ts.type;
    tt->num_transforms = ts.num_transforms;
    // Transform i is bone i of the file's skeleton of the same name and size (docs/havok-cloth.md).
    for (const auto& sk : options.skeletons) {
        if (sk.name == ts.name && sk.bone_names.size() == ts.num_transforms) {
            tt->bone_names = sk.bone_names;
            // Its rest pose, so that a .drcloth alone poses the set where the cloth was made.
            if (sk.reference_pose.size() == ts.num_transforms)
                for (const auto& m : hcl::bind_pose_model_space(sk)) tt->reference_pose.push_back(m4(m));
            break;
        }
    }
    return tt;
}

// The measured binding of display buffer `buffer` of cloth data `cloth_data` (the last one the
// report holds for it), or "no model was given".
std::unique_ptr<fb::DisplayBindingT> display_binding_table(const Report& rep, size_t cloth_data, size_t buffer) {
    auto db = std::make_unique<fb::DisplayBindingT>();
    db->reason = "no model was given";
    for (const auto& bind : rep.bindings) {
        if (bind.cloth_data_index != cloth_data || bind.buffer_index != buffer) continue;
        db->status = bind.mesh_index >= 0 ? fb::CheckStatus::Checked : fb::CheckStatus::NotChecked;
        db->mesh_name = bind.mesh_name;
        db->mesh_index = bind.mesh_index;
        db->position_status = bind.max_error >= 0 ? fb::CheckStatus::Checked : fb::CheckStatus::NotChecked;
        db->bind_position_error = bind.max_error;
        db->vertices_checked = bind.vertices_checked;
        db->skin_operators = bind.skin_operators;
        db->other_writers = bind.other_writers;
        db->reason = bind.reason;
        db->bind_position_error_m = bind.max_distance_m;
        db->mesh_size_m = bind.mesh_size_m;
    }
    return db;
}

std::unique_ptr<fb::BufferDefinitionT> buffer_table(const hcl::BufferDefinition& b, const Report& rep, size_t cloth_data, size_t buffer) {
    auto bt = std::make_unique<fb::BufferDefinitionT>();
    bt->name = b.name;
    bt->class_name = b.class_name;
    bt->kind = buffer_kind(b);
    bt->type = b.type;
    bt->sub_type = b.sub_type;
    bt->num_vertices = b.num_vertices;
    bt->num_triangles = b.num_triangles;
    std::array<fb::BufferElement, 4> elements;
    std::array<fb::BufferSlot, 4> slots;
    for (size_t e = 0; e < 4; ++e) {
        const auto& el = b.layout.elements[e];
        elements[e] = fb::BufferElement(el.vector_conversion, el.vector_size, el.slot_id, el.slot_start);
        slots[e] = fb::BufferSlot(b.layout.slots[e].flags, b.layout.slots[e].stride);
    }
    bt->buffer_layout = std::make_unique<fb::BufferLayout>(flatbuffers::span<const fb::BufferElement, 4>(elements.data(), 4),
                                                           flatbuffers::span<const fb::BufferSlot, 4>(slots.data(), 4), b.layout.num_slots,
                                                           b.layout.triangle_format);
    bt->triangle_indices = b.triangle_indices;
    bt->store_normals = b.store_normals;
    bt->store_tangents_and_bi_tangents = b.store_tangents_and_bitangents;
    bt->shadow_positions = b.shadow_positions;
    bt->shadow_normals = b.shadow_normals;
    bt->shadow_tangents = b.shadow_tangents;
    bt->shadow_bi_tangents = b.shadow_bitangents;
    if (bt->kind == fb::BufferKind::Display) bt->display_binding = display_binding_table(rep, cloth_data, buffer);
    return bt;
}

std::unique_ptr<fb::RestPoseCheckT> rest_pose_check_table(const hcl::RestPoseFigure& f) {
    auto rc = std::make_unique<fb::RestPoseCheckT>();
    rc->status = f.checked ? fb::CheckStatus::Checked : fb::CheckStatus::NotChecked;
    rc->error_m = f.error_m;
    rc->particles_checked = f.particles_checked;
    rc->pose_index = 0;
    rc->move_particles_operators = f.move_particles_operators;
    rc->skin_operators = f.skin_operators;
    rc->reason = f.reason;
    rc->error_steps = f.error_steps;
    return rc;
}

std::unique_ptr<fb::ClothStateT> state_table(const hcl::ClothState& st) {
    auto stt = std::make_unique<fb::ClothStateT>();
    stt->name = st.name;
    stt->operators = st.operators;
    for (const auto& a : st.used_buffers) stt->used_buffers.push_back(buffer_access(a));
    for (const auto& a : st.used_transform_sets) stt->used_transform_sets.push_back(transform_access(a));
    stt->used_sim_cloths = st.used_sim_cloths;
    return stt;
}

// Cloth data `ci`; `figure` walks the report's sim cloth figures (one per sim cloth, in order).
std::unique_ptr<fb::ClothDataT> cloth_data_table(const hcl::ClothData& cd, size_t ci, const Options& options, const Report& rep,
                                                 Collidables& collidables, size_t& figure) {
    auto t = std::make_unique<fb::ClothDataT>();
    t->name = cd.name;
    t->target_platform = cd.target_platform;
    for (const auto& ts : cd.transform_sets) t->transform_set_definitions.push_back(transform_set_table(ts, options));
    for (size_t i = 0; i < cd.buffers.size(); ++i) t->buffer_definitions.push_back(buffer_table(cd.buffers[i], rep, ci, i));
    for (const auto& s : cd.sim_cloths) {
        auto st = sim_cloth_table(s, collidables);
        st->rest_pose_check = rest_pose_check_table(rep.sim_cloths_figures.at(figure++).rest);
        t->sim_cloth_datas.push_back(std::move(st));
    }
    for (const auto& o : cd.operators) t->operators.push_back(operator_table(o));
    for (const auto& st : cd.states) t->cloth_state_datas.push_back(state_table(st));
    return t;
}

// The dropped list, with this file's counts, into the report and the file.
void list_dropped(const hcl::ClothContainer& cloth, Report& rep, fb::ClothFileT& file) {
    rep.dropped = dropped_members();
    for (auto& d : rep.dropped) {
        for (const auto& cd : cloth.cloth_datas) {
            if (d.class_name == "hclClothData" && d.member == "stateTransitions") d.count += cd.state_transition_count ? 1 : 0;
            if (d.class_name == "hclClothData" && d.member == "actions") d.count += cd.action_count ? 1 : 0;
            for (const auto& s : cd.sim_cloths)
                if (d.class_name == "hclSimClothData" && d.member == "actions") d.count += s.action_count ? 1 : 0;
        }
    }
    for (const auto& d : rep.dropped) {
        auto dt = std::make_unique<fb::DroppedMemberT>();
        dt->class_name = d.class_name;
        dt->member = d.member;
        dt->count = d.count;
        dt->reason = d.reason;
        file.dropped.push_back(std::move(dt));
    }
}

// The packed file, zstd-compressed (level 19) when asked.
Result<std::vector<uint8_t>> encode(const fb::ClothFileT& file, bool zstd) {
    flatbuffers::FlatBufferBuilder fbb(1 << 16);
    fbb.Finish(fb::ClothFile::Pack(fbb, &file), fb::ClothFileIdentifier());
    std::vector<uint8_t> out(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
    if (zstd) {
        std::vector<uint8_t> z(ZSTD_compressBound(out.size()));
        const size_t r = ZSTD_compress(z.data(), z.size(), out.data(), out.size(), 19);
        if (ZSTD_isError(r)) return make_error(std::string("zstd: ") + ZSTD_getErrorName(r));
        z.resize(r);
        return z;
    }
    return out;
}

}  // namespace

Result<std::vector<uint8_t>> export_cloth(const hcl::ClothContainer& cloth, const Options& options, Report* report) {
    Report local_report;
    Report& rep = report ? *report : local_report;
    rep = measure(cloth, options);

    fb::ClothFileT file;
    file.format_version = std::make_unique<fb::FormatVersionT>();
    file.source = std::make_unique<fb::SourceT>();
    file.source->game = options.game;
    file.source->sdk = options.sdk;
    file.source->file = options.source_file;
    file.source->model = options.model_file;
    file.source->tool = "drape 0.1.0";

    Collidables collidables;
    for (const auto& c : cloth.collidables) file.container_collidables.push_back(collidables.index_of(c));
    size_t figure = 0;
    for (size_t ci = 0; ci < cloth.cloth_datas.size(); ++ci)
        file.cloth_datas.push_back(cloth_data_table(cloth.cloth_datas[ci], ci, options, rep, collidables, figure));
    for (const hcl::Collidable* c : collidables.list()) file.collidables.push_back(collidable_table(*c));
    rep.collidables = collidables.list().size();
    rep.collidable_references = 0;
    for (const auto& cd : cloth.cloth_datas)
        for (const auto& s : cd.sim_cloths) rep.collidable_references += s.per_instance_collidables.size();
    list_dropped(cloth, rep, file);
    return encode(file, options.zstd);
}

}  // namespace drape::cloth_export
