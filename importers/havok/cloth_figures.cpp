// drape: rest-pose figure and skin bind positions (seed 000 "The skin operator", "Display buffers").
#include "drape/havok/cloth_figures.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <map>

namespace drape::hcl {

const char* control_byte_rule_name(ControlByteRule r) {
    return r == ControlByteRule::four_minus_c ? "N = 4 - c" : "N = 8 - c";
}

int control_byte_blends(uint8_t c, ControlByteRule rule) {
    const int n = (rule == ControlByteRule::four_minus_c ? 4 : 8) - int(c);
    return n >= 1 && n <= 8 ? n : 0;
}

ControlByteRule control_byte_rule_for_sdk(std::string_view) {
    // One rule for every SDK: the corpus's rest-pose figures prove N = 4 - c for 2014 (BB, DS3),
    // 2016 (Sekiro) and 2018 (Elden Ring) files alike (docs/cloth-format.md "controlBytes").
    return ControlByteRule::four_minus_c;
}

bool is_object_space_skin(OperatorKind k) {
    return k == OperatorKind::object_space_skin_p || k == OperatorKind::object_space_skin_pn || k == OperatorKind::object_space_skin_pnt ||
           k == OperatorKind::object_space_skin_pntb;
}

bool is_bone_space_skin(OperatorKind k) {
    return k == OperatorKind::bone_space_skin_p || k == OperatorKind::bone_space_skin_pn || k == OperatorKind::bone_space_skin_pnt ||
           k == OperatorKind::bone_space_skin_pntb;
}

std::vector<std::array<float, 3>> skin_bind_positions(const Operator& op, uint32_t vertex_count, ControlByteRule rule) {
    std::vector<std::array<float, 3>> out(vertex_count, {NAN, NAN, NAN});
    // The deformer's blocks grouped by blend count, each group in stored order.
    std::vector<std::vector<const BlendBlock*>> by_n(9);
    for (const auto& b : op.deformer.blocks)
        if (b.blends >= 1 && b.blends <= 8) by_n[b.blends].push_back(&b);
    std::vector<size_t> next(9, 0);
    for (size_t k = 0; k < op.deformer.control_bytes.size(); ++k) {
        const int n = control_byte_blends(op.deformer.control_bytes[k], rule);
        if (n == 0 || next[size_t(n)] >= by_n[size_t(n)].size()) continue;
        const BlendBlock& block = *by_n[size_t(n)][next[size_t(n)]++];
        for (size_t j = 0; j < block.vertex_indices.size(); ++j) {
            const size_t li = k * 16 + j;
            havok::Vec4 p{};
            if (li < op.local.packed_positions.size())
                p = unpack_vector3(op.local.packed_positions[li]);
            else if (li < op.local.positions.size())
                p = op.local.positions[li];
            else
                continue;
            const uint16_t v = block.vertex_indices[j];
            if (v < out.size()) out[v] = {p[0], p[1], p[2]};
        }
    }
    return out;
}

std::vector<uint32_t> writers_of_buffer(const ClothData& cd, uint32_t buffer) {
    std::vector<uint32_t> out;
    for (size_t i = 0; i < cd.operators.size(); ++i) {
        const Operator& op = cd.operators[i];
        bool writes = false;
        switch (op.kind) {
            case OperatorKind::copy_vertices:
            case OperatorKind::gather_all_vertices:
            case OperatorKind::gather_some_vertices:
            case OperatorKind::mesh_mesh_deform: writes = op.output_buffer_idx == buffer; break;
            case OperatorKind::input_convert: writes = op.shadow_buffer_index == buffer; break;
            case OperatorKind::output_convert: writes = op.user_buffer_index == buffer; break;
            case OperatorKind::update_all_vertex_frames:
            case OperatorKind::update_some_vertex_frames: writes = op.buffer_idx == buffer; break;
            case OperatorKind::simulate:
            case OperatorKind::move_particles:
            case OperatorKind::simple_mesh_bone_deform:
            case OperatorKind::mesh_bone_deform:
            case OperatorKind::other: break;
            default: writes = op.output_buffer_idx == buffer; break;  // skins and mesh-mesh deforms
        }
        if (writes) out.push_back(uint32_t(i));
    }
    return out;
}

RestPoseFigure rest_pose_figure(const ClothData& cd, size_t sim_index, ControlByteRule rule) {
    RestPoseFigure f;
    if (sim_index >= cd.sim_cloths.size()) {
        f.reason = "no such sim cloth";
        return f;
    }
    const SimClothData& sim = cd.sim_cloths[sim_index];
    if (sim.poses.empty() || sim.poses[0].positions.size() < sim.particles.size()) {
        f.reason = "the sim cloth has no rest pose of its particle count";
        return f;
    }
    const auto& pose = sim.poses[0].positions;
    std::vector<uint32_t> bone_space;
    for (size_t i = 0; i < cd.operators.size(); ++i) {
        const Operator& mp = cd.operators[i];
        if (mp.kind != OperatorKind::move_particles || mp.sim_cloth_index != sim_index) continue;
        f.move_particles_operators.push_back(uint32_t(i));
        if (mp.ref_buffer_idx >= cd.buffers.size()) continue;
        const uint32_t nv = cd.buffers[mp.ref_buffer_idx].num_vertices;
        std::vector<std::array<float, 3>> bind(nv, {NAN, NAN, NAN});
        for (uint32_t w : writers_of_buffer(cd, mp.ref_buffer_idx)) {
            const Operator& op = cd.operators[w];
            if (is_bone_space_skin(op.kind)) bone_space.push_back(w);
            if (!is_object_space_skin(op.kind)) continue;
            if (std::find(f.skin_operators.begin(), f.skin_operators.end(), w) == f.skin_operators.end()) f.skin_operators.push_back(w);
            const auto b = skin_bind_positions(op, nv, rule);
            for (size_t v = 0; v < nv; ++v)
                if (!std::isnan(b[v][0])) bind[v] = b[v];
        }
        for (const auto& pair : mp.vertex_particle_pairs) {
            if (pair.vertex_index >= nv || pair.particle_index >= sim.particles.size()) continue;
            const auto& p = bind[pair.vertex_index];
            if (std::isnan(p[0])) continue;
            const auto& q = pose[pair.particle_index];
            const float dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
            f.error_m = std::max(f.error_m, std::sqrt(dx * dx + dy * dy + dz * dz));
            ++f.particles_checked;
        }
    }
    if (f.move_particles_operators.empty())
        f.reason = "no move-particles operator pins this sim cloth's particles";
    else if (f.skin_operators.empty())
        f.reason = bone_space.empty() ? "no object-space skin writes the move-particles operator's reference buffer"
                                      : "only a bone-space skin writes the reference buffer (its bind pose needs the skeleton's bind)";
    else if (f.particles_checked == 0)
        f.reason = "the skins write none of the vertices the move-particles operator reads";
    else
        f.checked = true;
    return f;
}

}  // namespace drape::hcl

namespace drape::hcl {

std::vector<Finding> findings(const ClothContainer& cloth) {
    std::vector<Finding> out;
    // Who maps each collidable object (by its item in the source file) to a bone.
    std::map<uint32_t, std::vector<std::string>> mapped_by;
    for (const auto& cd : cloth.cloth_datas)
        for (const auto& s : cd.sim_cloths) {
            const auto& m = s.collidable_transform_map;
            if (m.transform_set_index < 0) continue;
            for (size_t k = 0; k < s.per_instance_collidables.size() && k < m.transform_indices.size(); ++k)
                mapped_by[s.per_instance_collidables[k].item].push_back("'" + cd.name + "/" + s.name + "' (bone " +
                                                                       std::to_string(m.transform_indices[k]) + ")");
        }
    for (const auto& cd : cloth.cloth_datas)
        for (const auto& s : cd.sim_cloths) {
            const auto& m = s.collidable_transform_map;
            if (s.per_instance_collidables.empty() || m.transform_set_index >= 0 || !m.transform_indices.empty() || !m.offsets.empty()) continue;
            size_t shared = 0;
            std::string by;
            for (const auto& c : s.per_instance_collidables) {
                const auto it = mapped_by.find(c.item);
                if (it == mapped_by.end() || c.item == 0) continue;
                ++shared;
                if (by.empty()) by = it->second.front();
            }
            Finding f;
            f.kind = "unmapped_collidables";
            f.object = "hclSimClothData '" + s.name + "' (item " + std::to_string(s.item) + ") of '" + cd.name + "'";
            f.member = "collidableTransformMap";
            f.message = std::to_string(s.per_instance_collidables.size()) + " collidables and no map (transformSetIndex -1): " +
                        std::to_string(shared) + " of them are mapped to bones by another sim cloth" + (by.empty() ? "" : ", e.g. " + by) +
                        "; they follow those bones (docs/cloth-format.md, collidables shared between sim cloths)";
            out.push_back(std::move(f));
        }
    return out;
}

}  // namespace drape::hcl

namespace drape::hcl {

std::map<std::string, size_t> typed_census(const ClothContainer& cloth, int only) {
    std::map<std::string, std::set<uint32_t>> seen;
    std::map<std::string, size_t> unnumbered;  // objects without an item (hand-built): each counts
    auto add = [&](const std::string& cls, uint32_t item) {
        if (cls.empty()) return;
        if (item) seen[cls].insert(item);
        else ++unnumbered[cls];
    };
    auto collidable = [&](const Collidable& c) {
        add("hclCollidable", c.item);
        if (c.shape) add(c.shape->class_name, c.shape->item);
    };
    if (only < 0)
        for (const auto& c : cloth.collidables) collidable(c);
    for (size_t i = 0; i < cloth.cloth_datas.size(); ++i) {
        if (only >= 0 && size_t(only) != i) continue;
        const ClothData& cd = cloth.cloth_datas[i];
        add("hclClothData", cd.item);
        for (const auto& b : cd.buffers) add(b.class_name, b.item);
        for (const auto& t : cd.transform_sets) add("hclTransformSetDefinition", t.item);
        for (const auto& st : cd.states) add("hclClothState", st.item);
        for (const auto& op : cd.operators) add(op.class_name, op.item);
        for (const auto& s : cd.sim_cloths) {
            add("hclSimClothData", s.item);
            for (const auto& p : s.poses) add("hclSimClothPose", p.item);
            for (const auto& c : s.static_constraint_sets) add(c.class_name, c.item);
            for (const auto& c : s.anti_pinch_constraint_sets) add(c.class_name, c.item);
            for (const auto& c : s.per_instance_collidables) collidable(c);
        }
    }
    std::map<std::string, size_t> out;
    for (const auto& [cls, items] : seen) out[cls] += items.size();
    for (const auto& [cls, n] : unnumbered) out[cls] += n;
    return out;
}

bool typed_census_skips(std::string_view cls) {
    // The container is the file's root, not cloth data; the dependency graph is a run-time
    // scheduling aid the exporter drops as recomputable (cloth_export::dropped_members).
    return cls == "hclClothContainer" || cls == "hclStateDependencyGraph";
}

}  // namespace drape::hcl
