// A .drcloth read back into drape's hcl structs (the exporter's inverse), so a
// round trip can be compared member by member with operator==.
#include "drcloth_read.h"

#include <zstd.h>

#include <cstring>

#include "drape/schema/cloth_v1_generated.h"

namespace drape::cli {

namespace fb = drape::cloth_v1;

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

hcl::Shape shape(const fb::ShapeT& t) {
    hcl::Shape s;
    s.class_name = t.class_name;
    s.kind = hcl::ShapeKind(int(t.kind) == 0 ? int(hcl::ShapeKind::other) : int(t.kind) - 1);
    s.sphere = v4(t.sphere.get());
    s.plane_equation = v4(t.plane_equation.get());
    s.start = v4(t.start.get());
    s.end = v4(t.end.get());
    s.dir = v4(t.dir.get());
    s.radius = t.radius;
    s.cap_len_sqrd_inv = t.cap_len_sqrd_inv;
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
    return s;
}

hcl::Collidable collidable(const fb::CollidableT& t) {
    hcl::Collidable c;
    c.name = t.name;
    c.transform = m4(t.transform.get());
    c.linear_velocity = v4(t.linear_velocity.get());
    c.angular_velocity = v4(t.angular_velocity.get());
    c.user_data = t.user_data;
    if (t.shape) c.shape = shape(*t.shape);
    c.pinch_detection_radius = t.pinch_detection_radius;
    c.pinch_detection_priority = t.pinch_detection_priority;
    c.pinch_detection_enabled = t.pinch_detection_enabled;
    c.virtual_collision_point_collision_enabled = t.virtual_collision_point_collision_enabled;
    c.enabled = t.enabled;
    return c;
}

hcl::ConstraintKind ckind(fb::ConstraintKind k) {
    switch (k) {
        case fb::ConstraintKind::StandardLink: return hcl::ConstraintKind::standard_link;
        case fb::ConstraintKind::StretchLink: return hcl::ConstraintKind::stretch_link;
        case fb::ConstraintKind::BendLink: return hcl::ConstraintKind::bend_link;
        case fb::ConstraintKind::BendStiffness: return hcl::ConstraintKind::bend_stiffness;
        case fb::ConstraintKind::CompressibleLink: return hcl::ConstraintKind::compressible_link;
        case fb::ConstraintKind::LocalRange: return hcl::ConstraintKind::local_range;
        case fb::ConstraintKind::Transition: return hcl::ConstraintKind::transition;
        case fb::ConstraintKind::VolumeMx: return hcl::ConstraintKind::volume_mx;
        default: return hcl::ConstraintKind::other;
    }
}

hcl::ConstraintSet constraint(const fb::ConstraintSetT& t) {
    hcl::ConstraintSet s;
    s.class_name = t.class_name;
    s.name = t.name;
    s.kind = ckind(t.kind);
    s.constraint_id = t.constraint_id;
    for (const auto& l : t.standard_links) s.links.push_back({l.particle_a(), l.particle_b(), l.rest_length(), l.stiffness()});
    for (const auto& l : t.stretch_links) s.links.push_back({l.particle_a(), l.particle_b(), l.rest_length(), l.stiffness()});
    for (const auto& l : t.bend_links)
        s.bend_links.push_back({l.particle_a(), l.particle_b(), l.bend_min_length(), l.stretch_max_length(), l.bend_stiffness(),
                                l.stretch_stiffness()});
    for (const auto& l : t.bend_stiffness_links)
        s.bend_stiffness_links.push_back({l.weight_a(), l.weight_b(), l.weight_c(), l.weight_d(), l.bend_stiffness(),
                                          l.rest_curvature(), l.particle_a(), l.particle_b(), l.particle_c(), l.particle_d()});
    s.max_rest_pose_height_sq = t.max_rest_pose_height_sq;
    s.clamp_bend_stiffness = t.clamp_bend_stiffness;
    s.use_rest_pose_config = t.use_rest_pose_config;
    for (const auto& l : t.compressible_links)
        s.compressible_links.push_back({l.particle_a(), l.particle_b(), l.rest_length(), l.compression_length(), l.stiffness()});
    for (const auto& l : t.local_constraints)
        s.local_constraints.push_back({l.particle_index(), l.reference_vertex(), l.maximum_distance(), l.max_normal_distance(),
                                       l.min_normal_distance()});
    s.reference_mesh_buffer_idx = t.reference_mesh_buffer_idx;
    s.stiffness = t.stiffness;
    s.shape_type = t.shape_type;
    s.apply_normal_component = t.apply_normal_component;
    for (const auto& p : t.per_particle_data)
        s.transition_particles.push_back({p.particle_index(), p.reference_vertex(), p.to_anim_delay(), p.to_sim_delay(),
                                          p.to_sim_max_distance()});
    s.to_anim_period = t.to_anim_period;
    s.to_anim_plus_delay_period = t.to_anim_plus_delay_period;
    s.to_sim_period = t.to_sim_period;
    s.to_sim_plus_delay_period = t.to_sim_plus_delay_period;
    auto vol = [](const std::vector<fb::VolumeEntry>& in) {
        std::vector<hcl::VolumeEntry> out;
        for (const auto& e : in) out.push_back({v4(e.frame_vector()), e.particle_index(), e.weight_or_stiffness()});
        return out;
    };
    s.frame_batches = vol(t.frame_batch_datas);
    s.frame_singles = vol(t.frame_single_datas);
    s.apply_batches = vol(t.apply_batch_datas);
    s.apply_singles = vol(t.apply_single_datas);
    return s;
}

hcl::OperatorKind okind(fb::OperatorKind k) {
    // The schema's enum lists the same kinds in the same order, after Other = 0.
    if (k == fb::OperatorKind::Other) return hcl::OperatorKind::other;
    return hcl::OperatorKind(int(k) - 1);
}

}  // namespace

Result<hcl::ClothContainer> drcloth_to_hcl(Bytes bytes, std::vector<std::vector<std::string>>* bone_names,
                                           std::vector<uint8_t>* plain_out) {
    std::vector<uint8_t> plain;
    if (bytes.size() >= 4 && bytes[0] == 0x28 && bytes[1] == 0xB5 && bytes[2] == 0x2F && bytes[3] == 0xFD) {
        unsigned long long n = ZSTD_getFrameContentSize(bytes.data(), bytes.size());
        if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN)
            return make_error_at(0, "drcloth.zstd", "zstd frame without a readable content size");
        if (n > (1ull << 30) || n > 64 * bytes.size() + 65536)
            return make_error_at(0, "drcloth.zstd", "zstd frame declares " + std::to_string(n) + " B: refused as too large");
        plain.resize(size_t(n));
        size_t r = ZSTD_decompress(plain.data(), plain.size(), bytes.data(), bytes.size());
        if (ZSTD_isError(r) || r != n) return make_error_at(0, "drcloth.zstd", "corrupt zstd frame");
        bytes = plain;
    }
    if (bytes.size() < 8 || std::memcmp(bytes.data() + 4, "DRCL", 4) != 0)
        return make_error_at(4, "drcloth.identifier", "not a drape cloth file (no \"DRCL\" identifier)");
    flatbuffers::Verifier v(bytes.data(), bytes.size());
    if (!fb::VerifyClothFileBuffer(v))
        return make_error_at(0, "drcloth", "the FlatBuffers verifier refuses the file (corrupt or truncated)");
    if (plain_out) plain_out->assign(bytes.begin(), bytes.end());
    std::unique_ptr<fb::ClothFileT> file(fb::GetClothFile(bytes.data())->UnPack());
    hcl::ClothContainer out;
    for (const auto& c : file->collidables) out.collidables.push_back(collidable(*c));
    for (const auto& cdt : file->cloth_datas) {
        hcl::ClothData cd;
        cd.name = cdt->name;
        cd.target_platform = cdt->target_platform;
        for (const auto& ts : cdt->transform_set_definitions) {
            cd.transform_sets.push_back({0, ts->name, ts->type, ts->num_transforms});
            if (bone_names) bone_names->push_back(ts->bone_names);
        }
        for (const auto& bt : cdt->buffer_definitions) {
            hcl::BufferDefinition b;
            b.class_name = bt->class_name;
            b.name = bt->name;
            b.type = bt->type;
            b.sub_type = bt->sub_type;
            b.num_vertices = bt->num_vertices;
            b.num_triangles = bt->num_triangles;
            if (bt->buffer_layout) {
                for (size_t e = 0; e < 4; ++e) {
                    auto el = bt->buffer_layout->elements()->Get(flatbuffers::uoffset_t(e));
                    b.layout.elements[e] = {el->vector_conversion(), el->vector_size(), el->slot_id(), el->slot_start()};
                    auto sl = bt->buffer_layout->slots()->Get(flatbuffers::uoffset_t(e));
                    b.layout.slots[e] = {sl->flags(), sl->stride()};
                }
                b.layout.num_slots = bt->buffer_layout->num_slots();
                b.layout.triangle_format = bt->buffer_layout->triangle_format();
            }
            b.triangle_indices = bt->triangle_indices;
            b.store_normals = bt->store_normals;
            b.store_tangents_and_bitangents = bt->store_tangents_and_bi_tangents;
            b.shadow_positions = bt->shadow_positions;
            b.shadow_normals = bt->shadow_normals;
            b.shadow_tangents = bt->shadow_tangents;
            b.shadow_bitangents = bt->shadow_bi_tangents;
            cd.buffers.push_back(std::move(b));
        }
        for (const auto& st : cdt->sim_cloth_datas) {
            hcl::SimClothData s;
            s.version = st->version;
            s.name = st->name;
            if (const auto& si = st->simulation_info) {
                s.simulation_info.gravity = v4(si->gravity.get());
                s.simulation_info.global_damping_per_second = si->global_damping_per_second;
                s.simulation_info.collision_tolerance = si->collision_tolerance;
                s.simulation_info.sub_steps = si->sub_steps;
                s.simulation_info.pinch_detection_enabled = si->pinch_detection_enabled;
                s.simulation_info.landscape_collision_enabled = si->landscape_collision_enabled;
                s.simulation_info.transfer_motion_enabled = si->transfer_motion_enabled;
            }
            for (const auto& p : st->particle_datas) s.particles.push_back({p.mass(), p.inv_mass(), p.radius(), p.friction()});
            s.fixed_particles = st->fixed_particles;
            s.do_normals = st->do_normals;
            s.sim_op_ids = st->sim_op_ids;
            for (const auto& p : st->sim_cloth_poses) s.poses.push_back({0, p->name, v4s(p->positions)});
            for (const auto& c : st->static_constraint_sets) s.static_constraint_sets.push_back(constraint(*c));
            for (const auto& c : st->anti_pinch_constraint_sets) s.anti_pinch_constraint_sets.push_back(constraint(*c));
            if (const auto& m = st->collidable_transform_map) {
                s.collidable_transform_map.transform_set_index = m->transform_set_index;
                s.collidable_transform_map.transform_indices = m->transform_indices;
                s.collidable_transform_map.offsets = m4s(m->offsets);
            }
            for (const auto& c : st->per_instance_collidables) s.per_instance_collidables.push_back(collidable(*c));
            s.max_particle_radius = st->max_particle_radius;
            s.static_collision_masks = st->static_collision_masks;
            s.total_mass = st->total_mass;
            if (const auto& m = st->transfer_motion_data) {
                auto& t = s.transfer_motion;
                t.transform_set_index = m->transform_set_index;
                t.transform_index = m->transform_index;
                t.transfer_translation_motion = m->transfer_translation_motion;
                t.transfer_rotation_motion = m->transfer_rotation_motion;
                t.min_translation_speed = m->min_translation_speed;
                t.max_translation_speed = m->max_translation_speed;
                t.min_translation_blend = m->min_translation_blend;
                t.max_translation_blend = m->max_translation_blend;
                t.min_rotation_speed = m->min_rotation_speed;
                t.max_rotation_speed = m->max_rotation_speed;
                t.min_rotation_blend = m->min_rotation_blend;
                t.max_rotation_blend = m->max_rotation_blend;
            }
            s.transfer_motion_enabled = st->transfer_motion_enabled;
            s.landscape_collision_enabled = st->landscape_collision_enabled;
            if (const auto& l = st->landscape_collision_data) {
                auto& d = s.landscape_collision;
                d.landscape_radius = l->landscape_radius;
                d.enable_stuck_particle_detection = l->enable_stuck_particle_detection;
                d.stuck_particles_stretch_factor_sq = l->stuck_particles_stretch_factor_sq;
                d.pinch_detection_enabled = l->pinch_detection_enabled;
                d.pinch_detection_priority = l->pinch_detection_priority;
                d.pinch_detection_radius = l->pinch_detection_radius;
                d.collision_tolerance = l->collision_tolerance;
            }
            s.num_landscape_collidable_particles = st->num_landscape_collidable_particles;
            s.triangle_indices = st->triangle_indices;
            s.triangle_flips = st->triangle_flips;
            s.pinch_detection_enabled = st->pinch_detection_enabled;
            s.per_particle_pinch_detection_enabled = st->per_particle_pinch_detection_enabled_flags;
            for (const auto& p : st->collidable_pinching_datas)
                s.collidable_pinching_datas.push_back({p->pinch_detection_enabled, p->pinch_detection_priority, p->pinch_detection_radius});
            s.min_pinched_particle_index = st->min_pinched_particle_index;
            s.max_pinched_particle_index = st->max_pinched_particle_index;
            s.max_collision_pairs = st->max_collision_pairs;
            if (const auto& v = st->virtual_collision_points_data) {
                auto& vc = s.virtual_collision_points;
                for (const auto& b : v->blocks) vc.blocks.push_back({b.safe_displacement_radius(), b.starting_vcp_index(), b.num_vcps()});
                vc.num_vc_points = v->num_vc_points;
                vc.landscape_particles_block_index = v->landscape_particles_block_index;
                vc.num_landscape_vc_points = v->num_landscape_vc_points;
                vc.edge_barycentrics_dictionary = v->edge_barycentrics_dictionary;
                for (const auto& e : v->edge_dictionary_entries)
                    vc.edge_dictionary_entries.push_back({e.starting_barycentric_index(), e.num_barycentrics()});
                for (const auto& p : v->triangle_barycentrics_dictionary) vc.triangle_barycentrics_dictionary.push_back({p.u(), p.v()});
                for (const auto& e : v->triangle_dictionary_entries)
                    vc.triangle_dictionary_entries.push_back({e.starting_barycentric_index(), e.num_barycentrics()});
                for (const auto& e : v->edges) vc.edges.push_back({e.opposite_real_particle_index(), e.barycentric_dictionary_index()});
                for (const auto& e : v->edges_landscape)
                    vc.edges_landscape.push_back({e.opposite_real_particle_index(), e.barycentric_dictionary_index()});
                auto tri = [](const fb::TriangleFanSection& e) {
                    hcl::VirtualCollisionPoints::TriangleFanSection t;
                    t.opposite_real_particle_indices = {e.opposite_real_particle_indices()->Get(0), e.opposite_real_particle_indices()->Get(1)};
                    t.barycentric_dictionary_index = e.barycentric_dictionary_index();
                    return t;
                };
                for (const auto& e : v->triangles) vc.triangles.push_back(tri(e));
                for (const auto& e : v->triangles_landscape) vc.triangles_landscape.push_back(tri(e));
                for (const auto& f : v->edge_fans) vc.edge_fans.push_back({f.real_particle_index(), f.edge_start_index(), 0, f.num_edges()});
                for (const auto& f : v->edge_fans_landscape)
                    vc.edge_fans_landscape.push_back({f.real_particle_index(), f.edge_start_index(), f.vcp_start_index(), f.num_edges()});
                for (const auto& f : v->triangle_fans)
                    vc.triangle_fans.push_back({f.real_particle_index(), 0, f.vcp_start_index(), f.num_triangles()});
                for (const auto& f : v->triangle_fans_landscape)
                    vc.triangle_fans_landscape.push_back(
                        {f.real_particle_index(), f.triangle_start_index(), f.vcp_start_index(), f.num_triangles()});
                vc.edge_fan_indices = v->edge_fan_indices;
                vc.triangle_fan_indices = v->triangle_fan_indices;
                vc.edge_fan_indices_landscape = v->edge_fan_indices_landscape;
                vc.triangle_fan_indices_landscape = v->triangle_fan_indices_landscape;
            }
            cd.sim_cloths.push_back(std::move(s));
        }
        for (const auto& ot : cdt->operators) {
            hcl::Operator o;
            o.item = uint32_t(cd.operators.size() + 1);  // a .drcloth has no source items: number operators from 1
            o.class_name = ot->class_name;
            o.kind = okind(ot->kind);
            o.name = ot->name;
            o.operator_id = ot->operator_id;
            for (const auto& a : ot->used_buffers) o.used_buffers.push_back(access(a));
            for (const auto& a : ot->used_transform_sets) o.used_transform_sets.push_back(taccess(a));
            o.sim_cloth_index = ot->sim_cloth_index;
            for (const auto& c : ot->simulate_op_configs)
                o.configs.push_back({c->name, c->constraint_execution, c->instance_collidables_used, c->sub_steps,
                                     c->number_of_solve_iterations, c->use_all_instance_collidables,
                                     c->adapt_constraint_stiffness});
            for (const auto& p : ot->vertex_particle_pairs) o.vertex_particle_pairs.push_back({p.vertex_index(), p.particle_index()});
            o.ref_buffer_idx = ot->ref_buffer_idx;
            o.input_buffer_idx = ot->input_buffer_idx;
            o.output_buffer_idx = ot->output_buffer_idx;
            o.transform_set_index = ot->transform_set_index;
            o.number_of_vertices = ot->number_of_vertices;
            o.start_vertex_in = ot->start_vertex_in;
            o.start_vertex_out = ot->start_vertex_out;
            o.copy_normals = ot->copy_normals;
            o.vertex_input_from_vertex_output = ot->vertex_input_from_vertex_output;
            for (const auto& p : ot->vertex_pairs) o.gather_pairs.push_back({p.index_input(), p.index_output()});
            o.gather_normals = ot->gather_normals;
            o.partial_gather = ot->partial_gather;
            o.user_buffer_index = ot->user_buffer_index;
            o.shadow_buffer_index = ot->shadow_buffer_index;
            o.conversion_info = ot->conversion_info;
            o.buffer_idx = ot->buffer_idx;
            o.num_unique_normal_ids = ot->num_unique_normal_ids;
            o.vert_to_normal_id = ot->vert_to_normal_id;
            o.reference_vertices = ot->reference_vertices;
            o.involved_vertices = ot->involved_vertices;
            o.selection_vertex_to_involved_vertex = ot->selection_vertex_to_involved_vertex;
            o.involved_vertex_to_normal_id = ot->involved_vertex_to_normal_id;
            o.triangle_flips = ot->triangle_flips;
            for (const auto& t : ot->involved_triangles) o.involved_triangles.push_back({t.a(), t.b(), t.c()});
            o.tangent_edge_cos_angle = ot->tangent_edge_cos_angle;
            o.tangent_edge_sin_angle = ot->tangent_edge_sin_angle;
            o.bitangent_flip = ot->bi_tangent_flip;
            o.update_normals = ot->update_normals;
            o.update_tangents = ot->update_tangents;
            o.update_bitangents = ot->update_bi_tangents;
            for (const auto& p : ot->simple_triangle_bone_pairs) o.triangle_bone_pairs.push_back({p.bone_offset(), p.triangle_offset()});
            o.local_bone_transforms = m4s(ot->local_bone_transforms);
            for (const auto& p : ot->mesh_triangle_bone_pairs)
                o.mesh_bone_pairs.push_back({m4(p.local_bone_transform()), p.weight(), p.triangle_index()});
            o.triangle_bone_start_for_bone = ot->triangle_bone_start_for_bone;
            o.bone_from_skin_mesh_transforms = m4s(ot->bone_from_skin_mesh_transforms);
            o.triangle_from_mesh_transforms = m4s(ot->triangle_from_mesh_transforms);
            o.transform_subset = ot->transform_subset;
            o.input_triangles_subset = ot->input_triangles_subset;
            o.scale_normal_behaviour = ot->scale_normal_behaviour;
            o.custom_skin_deform = ot->custom_skin_deform;
            if (const auto& d = ot->deformer) {
                for (const auto& b : d->blocks) o.deformer.blocks.push_back({b->blends, b->vertex_indices, b->bone_indices, b->bone_weights});
                o.deformer.control_bytes = d->control_bytes;
                o.deformer.start_vertex_index = d->start_vertex_index;
                o.deformer.end_vertex_index = d->end_vertex_index;
                o.deformer.partial_write = d->partial_write;
            }
            if (const auto& l = ot->local) {
                o.local.packed_positions = packed(l->packed_positions);
                o.local.packed_normals = packed(l->packed_normals);
                o.local.packed_tangents = packed(l->packed_tangents);
                o.local.packed_bitangents = packed(l->packed_bi_tangents);
                o.local.positions = v4s(l->positions);
                o.local.normals = v4s(l->normals);
                o.local.tangents = v4s(l->tangents);
                o.local.bitangents = v4s(l->bi_tangents);
            }
            for (const auto& p : ot->triangle_vertex_pairs)
                o.triangle_vertex_pairs.push_back({v4(p.local_position()), v4(p.local_normal()), p.triangle_index(), p.weight()});
            o.triangle_vertex_start_for_vertex = ot->triangle_vertex_start_for_vertex;
            o.start_vertex = ot->start_vertex;
            o.end_vertex = ot->end_vertex;
            o.deform_normals = ot->deform_normals;
            o.partial_deform = ot->partial_deform;
            cd.operators.push_back(std::move(o));
        }
        for (const auto& st : cdt->cloth_state_datas) {
            hcl::ClothState s;
            s.name = st->name;
            s.operators = st->operators;
            for (const auto& a : st->used_buffers) s.used_buffers.push_back(access(a));
            for (const auto& a : st->used_transform_sets) s.used_transform_sets.push_back(taccess(a));
            s.used_sim_cloths = st->used_sim_cloths;
            cd.states.push_back(std::move(s));
        }
        out.cloth_datas.push_back(std::move(cd));
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

}  // namespace drape::cli
