// drape: rest-pose figure and skin bind positions (docs/havok-cloth.md#the-skin-operator,
// #display-buffers).
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
    return skin_bind_positions(op, vertex_count, rule, nullptr);
}

std::vector<std::array<float, 3>> skin_bind_positions(const Operator& op, uint32_t vertex_count, ControlByteRule rule, std::vector<float>* steps) {
    std::vector<std::array<float, 3>> out(vertex_count, {NAN, NAN, NAN});
    if (steps) steps->assign(vertex_count, NAN);
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
            float step = 0;
            if (li < op.local.packed_positions.size()) {
                p = unpack_vector3(op.local.packed_positions[li]);
                step = unpack_vector3({1, 0, 0, op.local.packed_positions[li][3]})[0];
            } else if (li < op.local.positions.size()) {
                p = op.local.positions[li];
            } else {
                continue;
            }
            const uint16_t v = block.vertex_indices[j];
            if (v >= out.size()) continue;
            out[v] = {p[0], p[1], p[2]};
            if (steps) (*steps)[v] = step;
        }
    }
    return out;
}

std::vector<Mat4> bind_pose_model_space(const havok::Skeleton& sk) {
    using D = std::array<double, 16>;
    auto mul = [](const D& a, const D& b) {
        D r{};
        for (int c = 0; c < 4; ++c)
            for (int row = 0; row < 4; ++row) {
                double v = 0;
                for (int k = 0; k < 4; ++k) v += a[size_t(k * 4 + row)] * b[size_t(c * 4 + k)];
                r[size_t(c * 4 + row)] = v;
            }
        return r;
    };
    std::vector<D> world(sk.reference_pose.size());
    std::vector<Mat4> out(world.size());
    for (size_t i = 0; i < world.size(); ++i) {
        const auto& t = sk.reference_pose[i];
        const double x = t.rotation[0], y = t.rotation[1], z = t.rotation[2], w = t.rotation[3];
        D m{};
        m[0] = 1 - 2 * (y * y + z * z), m[1] = 2 * (x * y + z * w), m[2] = 2 * (x * z - y * w);
        m[4] = 2 * (x * y - z * w), m[5] = 1 - 2 * (x * x + z * z), m[6] = 2 * (y * z + x * w);
        m[8] = 2 * (x * z + y * w), m[9] = 2 * (y * z - x * w), m[10] = 1 - 2 * (x * x + y * y);
        for (size_t r = 0; r < 3; ++r) m[r] *= t.scale[0], m[4 + r] *= t.scale[1], m[8 + r] *= t.scale[2];
        m[12] = t.translation[0], m[13] = t.translation[1], m[14] = t.translation[2], m[15] = 1;
        const int p = i < sk.parents.size() ? sk.parents[i] : -1;
        world[i] = p >= 0 && size_t(p) < i ? mul(world[size_t(p)], m) : m;
        for (size_t k = 0; k < 16; ++k) out[i][k] = float(world[i][k]);
    }
    return out;
}

std::vector<std::array<float, 3>> bone_space_bind_positions(const Operator& op, uint32_t vertex_count, ControlByteRule rule,
                                                            const std::vector<Mat4>& bind) {
    std::vector<std::array<float, 3>> out(vertex_count, {NAN, NAN, NAN});
    std::vector<std::vector<const BlendBlock*>> by_n(9);
    for (const auto& b : op.deformer.blocks)
        if (b.blends >= 1 && b.blends <= 8) by_n[b.blends].push_back(&b);
    std::vector<size_t> next(9, 0);
    for (size_t k = 0; k < op.deformer.control_bytes.size(); ++k) {
        const int n = control_byte_blends(op.deformer.control_bytes[k], rule);
        if (n == 0 || next[size_t(n)] >= by_n[size_t(n)].size()) continue;
        const BlendBlock& block = *by_n[size_t(n)][next[size_t(n)]++];
        for (size_t j = 0; j < block.vertex_indices.size(); ++j) {
            std::array<double, 3> acc{0, 0, 0};
            bool ok = true;
            for (int b = 0; b < n; ++b) {
                const size_t e = j * size_t(n) + size_t(b), li = k * 16 + e;
                havok::Vec4 l{};
                if (li < op.local.positions.size()) l = op.local.positions[li];
                else if (li < op.local.packed_positions.size()) l = unpack_vector3(op.local.packed_positions[li]);
                else ok = false;
                const uint16_t bi = e < block.bone_indices.size() ? block.bone_indices[e] : uint16_t(0xFFFF);
                const size_t t = bi < op.transform_subset.size() ? op.transform_subset[bi] : size_t(-1);
                if (!ok || t >= bind.size()) {
                    ok = false;
                    break;
                }
                const Mat4& m = bind[t];
                for (size_t r = 0; r < 3; ++r) acc[r] += double(m[r]) * l[0] + double(m[4 + r]) * l[1] + double(m[8 + r]) * l[2] + double(m[12 + r]) * l[3];
            }
            const uint16_t v = block.vertex_indices[j];
            if (ok && v < out.size()) out[v] = {float(acc[0]), float(acc[1]), float(acc[2])};
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

namespace {
void bind_pos_unpacked(std::vector<std::array<float, 3>>& pos, std::vector<float>& step, size_t v, const std::array<float, 3>& p) {
    pos[v] = p;
    step[v] = 0;  // computed through float bind matrices: no single quantisation step applies
}
}  // namespace

RestPoseFigure rest_pose_figure(const ClothData& cd, size_t sim_index, ControlByteRule rule, const std::vector<havok::Skeleton>& skeletons) {
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
        std::vector<std::array<float, 3>> bind_pos(nv, {NAN, NAN, NAN});
        std::vector<float> step(nv, 0);
        for (uint32_t w : writers_of_buffer(cd, mp.ref_buffer_idx)) {
            const Operator& op = cd.operators[w];
            if (is_bone_space_skin(op.kind)) {
                // The bind pose of the skin's transform set: the file's skeleton of its name and size.
                std::vector<Mat4> bind;
                if (op.transform_set_index < cd.transform_sets.size()) {
                    const auto& ts = cd.transform_sets[op.transform_set_index];
                    for (const auto& sk : skeletons)
                        if (sk.name == ts.name && sk.reference_pose.size() == ts.num_transforms) bind = bind_pose_model_space(sk);
                }
                if (bind.empty()) {
                    bone_space.push_back(w);
                    continue;
                }
                if (std::find(f.skin_operators.begin(), f.skin_operators.end(), w) == f.skin_operators.end()) f.skin_operators.push_back(w);
                const auto b = bone_space_bind_positions(op, nv, rule, bind);
                for (size_t v = 0; v < nv; ++v)
                    if (!std::isnan(b[v][0])) bind_pos_unpacked(bind_pos, step, v, b[v]);
                continue;
            }
            if (!is_object_space_skin(op.kind)) continue;
            if (std::find(f.skin_operators.begin(), f.skin_operators.end(), w) == f.skin_operators.end()) f.skin_operators.push_back(w);
            std::vector<float> st;
            const auto b = skin_bind_positions(op, nv, rule, &st);
            for (size_t v = 0; v < nv; ++v)
                if (!std::isnan(b[v][0])) bind_pos[v] = b[v], step[v] = st[v];
        }
        for (const auto& pair : mp.vertex_particle_pairs) {
            if (pair.vertex_index >= nv || pair.particle_index >= sim.particles.size()) continue;
            const auto& p = bind_pos[pair.vertex_index];
            if (std::isnan(p[0])) continue;
            const auto& q = pose[pair.particle_index];
            const float dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
            f.error_m = std::max(f.error_m, std::sqrt(dx * dx + dy * dy + dz * dz));
            if (step[pair.vertex_index] > 0)
                f.error_steps = std::max(f.error_steps, std::max({std::abs(dx), std::abs(dy), std::abs(dz)}) / step[pair.vertex_index]);
            ++f.particles_checked;
        }
    }
    if (f.move_particles_operators.empty())
        f.reason = "no move-particles operator pins this sim cloth's particles";
    else if (f.skin_operators.empty())
        f.reason = bone_space.empty() ? "no object-space skin writes the move-particles operator's reference buffer"
                                      : "only a bone-space skin writes the reference buffer, and the file holds no skeleton of its transform set for the bind pose";
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
