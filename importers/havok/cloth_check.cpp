// drape: the validity rules every cloth tagfile of Sekiro and Elden Ring
// satisfies (docs/havok-cloth.md#validity-rules).
#include <string>

#include "drape/havok/cloth.h"

namespace drape::hcl {

namespace {

class Checker {
public:
    explicit Checker(std::vector<Violation>& out) : m_out(out) {}

    void add(const std::string& object, const std::string& member, const std::string& message) { m_out.push_back({object, member, message}); }

    // index < count, else a violation
    bool below(uint64_t index, uint64_t count, const std::string& object, const std::string& member, const char* what) {
        if (index < count) return true;
        add(object, member, std::to_string(index) + " is not below the " + what + " (" + std::to_string(count) + ")");
        return false;
    }

private:
    std::vector<Violation>& m_out;
};

std::string obj(const char* cls, const std::string& name, uint32_t item) {
    return std::string(cls) + " '" + name + "' (item " + std::to_string(item) + ")";
}

std::string at(const char* member, size_t i) { return std::string(member) + "[" + std::to_string(i) + "]"; }
std::string at2(const char* member, size_t i, const char* field) { return at(member, i) + "." + field; }

void check_sim_cloth(Checker& c, const ClothData& cd, const SimClothData& s) {
    const std::string o = obj("hclSimClothData", s.name, s.item);
    const uint64_t np = s.particles.size();
    const char* pc = "particle count";
    for (size_t i = 0; i < s.fixed_particles.size(); ++i) c.below(s.fixed_particles[i], np, o, at("fixedParticles", i), pc);
    for (size_t i = 0; i < s.triangle_indices.size(); ++i) c.below(s.triangle_indices[i], np, o, at("triangleIndices", i), pc);
    if (s.triangle_indices.size() % 3 != 0)
        c.add(o, "triangleIndices", std::to_string(s.triangle_indices.size()) + " indices do not make whole triangles");
    for (size_t i = 0; i < s.sim_op_ids.size(); ++i) c.below(s.sim_op_ids[i], cd.operators.size(), o, at("simOpIds", i), "operator count");
    const auto& m = s.collidable_transform_map;
    const size_t nc = s.per_instance_collidables.size();
    // A map of -1 with no entries drives none of the sim cloth's collidables: not an index error
    // but a finding of its own (hcl::findings, "unmapped_collidables").
    const bool unmapped = m.transform_set_index < 0 && m.transform_indices.empty() && m.offsets.empty();
    if (!unmapped && m.transform_indices.size() != nc)
        c.add(o, "collidableTransformMap.transformIndices",
              std::to_string(m.transform_indices.size()) + " bones for " + std::to_string(nc) + " collidables");
    if (!unmapped && m.offsets.size() != nc)
        c.add(o, "collidableTransformMap.offsets", std::to_string(m.offsets.size()) + " offsets for " + std::to_string(nc) + " collidables");
    if (m.transform_set_index >= 0) c.below(uint64_t(m.transform_set_index), cd.transform_sets.size(), o, "collidableTransformMap.transformSetIndex", "transform set count");
    for (const ConstraintSet& cs : s.static_constraint_sets) {
        const std::string co = obj(cs.class_name.c_str(), cs.name, cs.item);
        for (size_t i = 0; i < cs.links.size(); ++i) {
            c.below(cs.links[i].particle_a, np, co, at2("links", i, "particleA"), pc);
            c.below(cs.links[i].particle_b, np, co, at2("links", i, "particleB"), pc);
        }
        for (size_t i = 0; i < cs.bend_links.size(); ++i) {
            c.below(cs.bend_links[i].particle_a, np, co, at2("links", i, "particleA"), pc);
            c.below(cs.bend_links[i].particle_b, np, co, at2("links", i, "particleB"), pc);
        }
        for (size_t i = 0; i < cs.compressible_links.size(); ++i) {
            c.below(cs.compressible_links[i].particle_a, np, co, at2("links", i, "particleA"), pc);
            c.below(cs.compressible_links[i].particle_b, np, co, at2("links", i, "particleB"), pc);
        }
        for (size_t i = 0; i < cs.bend_stiffness_links.size(); ++i) {
            const auto& l = cs.bend_stiffness_links[i];
            c.below(l.particle_a, np, co, at2("links", i, "particleA"), pc);
            c.below(l.particle_b, np, co, at2("links", i, "particleB"), pc);
            c.below(l.particle_c, np, co, at2("links", i, "particleC"), pc);
            c.below(l.particle_d, np, co, at2("links", i, "particleD"), pc);
        }
        auto ref_vertices = [&](auto const& list, const char* member) {
            if (!c.below(cs.reference_mesh_buffer_idx, cd.buffers.size(), co, "referenceMeshBufferIdx", "buffer count")) return;
            const uint32_t nv = cd.buffers[cs.reference_mesh_buffer_idx].num_vertices;
            for (size_t i = 0; i < list.size(); ++i) {
                c.below(list[i].particle_index, np, co, at2(member, i, "particleIndex"), pc);
                c.below(list[i].reference_vertex, nv, co, at2(member, i, "referenceVertex"), "reference buffer's vertex count");
            }
        };
        if (cs.kind == ConstraintKind::local_range) ref_vertices(cs.local_constraints, "localConstraints");
        if (cs.kind == ConstraintKind::transition) ref_vertices(cs.transition_particles, "perParticleData");
        for (const auto* list : {&cs.frame_singles, &cs.apply_singles})
            for (size_t i = 0; i < list->size(); ++i) c.below((*list)[i].particle_index, np, co, at2("singleDatas", i, "particleIndex"), pc);
    }
}

void check_cloth_data(Checker& c, const ClothData& cd, const std::vector<havok::Skeleton>& skeletons) {
    const std::string o = obj("hclClothData", cd.name, cd.item);
    const uint64_t nops = cd.operators.size(), nbuf = cd.buffers.size(), nts = cd.transform_sets.size(), nsim = cd.sim_cloths.size();
    for (const SimClothData& s : cd.sim_cloths) check_sim_cloth(c, cd, s);
    for (const ClothState& st : cd.states) {
        const std::string so = obj("hclClothState", st.name, st.item);
        for (size_t i = 0; i < st.operators.size(); ++i) c.below(st.operators[i], nops, so, at("operators", i), "operator count");
        for (size_t i = 0; i < st.used_buffers.size(); ++i) {
            c.below(st.used_buffers[i].buffer_index, nbuf, so, at2("usedBuffers", i, "bufferIndex"), "buffer count");
            c.below(st.used_buffers[i].shadow_buffer_index, nbuf, so, at2("usedBuffers", i, "shadowBufferIndex"), "buffer count");
        }
        for (size_t i = 0; i < st.used_transform_sets.size(); ++i)
            c.below(st.used_transform_sets[i].transform_set_index, nts, so, at2("usedTransformSets", i, "transformSetIndex"), "transform set count");
        for (size_t i = 0; i < st.used_sim_cloths.size(); ++i) c.below(st.used_sim_cloths[i], nsim, so, at("usedSimCloths", i), "sim cloth count");
    }
    for (size_t oi = 0; oi < cd.operators.size(); ++oi) {
        const Operator& op = cd.operators[oi];
        if (op.item == 0) {
            c.add(o, at("operators", oi), "null operator");
            continue;
        }
        const std::string oo = obj(op.class_name.c_str(), op.name, op.item);
        for (size_t i = 0; i < op.used_buffers.size(); ++i) {
            c.below(op.used_buffers[i].buffer_index, nbuf, oo, at2("usedBuffers", i, "bufferIndex"), "buffer count");
            c.below(op.used_buffers[i].shadow_buffer_index, nbuf, oo, at2("usedBuffers", i, "shadowBufferIndex"), "buffer count");
        }
        for (size_t i = 0; i < op.used_transform_sets.size(); ++i)
            c.below(op.used_transform_sets[i].transform_set_index, nts, oo, at2("usedTransformSets", i, "transformSetIndex"), "transform set count");
        const auto buffer = [&](uint32_t idx, const char* member) { return c.below(idx, nbuf, oo, member, "buffer count"); };
        const auto tset = [&](uint32_t idx, const char* member) { return c.below(idx, nts, oo, member, "transform set count"); };
        switch (op.kind) {
            case OperatorKind::simulate: {
                if (!c.below(op.sim_cloth_index, nsim, oo, "simClothIndex", "sim cloth count")) break;
                const size_t nsets = cd.sim_cloths[op.sim_cloth_index].static_constraint_sets.size();
                for (size_t k = 0; k < op.configs.size(); ++k)
                    for (size_t i = 0; i < op.configs[k].constraint_execution.size(); ++i) {
                        const int32_t e = op.configs[k].constraint_execution[i];
                        if (e != -1 && (e < 0 || size_t(e) >= nsets))
                            c.add(oo, "simulateOpConfigs[" + std::to_string(k) + "].constraintExecution[" + std::to_string(i) + "]",
                                  std::to_string(e) + " is neither -1 nor below the sim cloth's constraint set count (" + std::to_string(nsets) + ")");
                    }
                break;
            }
            case OperatorKind::move_particles: {
                const bool sim_ok = c.below(op.sim_cloth_index, nsim, oo, "simClothIndex", "sim cloth count");
                const bool buf_ok = buffer(op.ref_buffer_idx, "refBufferIdx");
                const uint64_t np = sim_ok ? cd.sim_cloths[op.sim_cloth_index].particles.size() : 0;
                const uint64_t nv = buf_ok ? cd.buffers[op.ref_buffer_idx].num_vertices : 0;
                for (size_t i = 0; i < op.vertex_particle_pairs.size(); ++i) {
                    if (sim_ok) c.below(op.vertex_particle_pairs[i].particle_index, np, oo, at2("vertexParticlePairs", i, "particleIndex"), "particle count");
                    if (buf_ok)
                        c.below(op.vertex_particle_pairs[i].vertex_index, nv, oo, at2("vertexParticlePairs", i, "vertexIndex"), "reference buffer's vertex count");
                }
                break;
            }
            case OperatorKind::copy_vertices: {
                const bool in_ok = buffer(op.input_buffer_idx, "inputBufferIdx");
                const bool out_ok = buffer(op.output_buffer_idx, "outputBufferIdx");
                if (in_ok && uint64_t(op.start_vertex_in) + op.number_of_vertices > cd.buffers[op.input_buffer_idx].num_vertices)
                    c.add(oo, "startVertexIn", "vertices " + std::to_string(op.start_vertex_in) + " + " + std::to_string(op.number_of_vertices) +
                                                   " run past the input buffer (" + std::to_string(cd.buffers[op.input_buffer_idx].num_vertices) + ")");
                if (out_ok && uint64_t(op.start_vertex_out) + op.number_of_vertices > cd.buffers[op.output_buffer_idx].num_vertices)
                    c.add(oo, "startVertexOut", "vertices " + std::to_string(op.start_vertex_out) + " + " + std::to_string(op.number_of_vertices) +
                                                    " run past the output buffer (" + std::to_string(cd.buffers[op.output_buffer_idx].num_vertices) + ")");
                break;
            }
            case OperatorKind::gather_all_vertices:
            case OperatorKind::gather_some_vertices:
            case OperatorKind::mesh_mesh_deform:
                buffer(op.input_buffer_idx, "inputBufferIdx");
                buffer(op.output_buffer_idx, "outputBufferIdx");
                break;
            case OperatorKind::input_convert:
            case OperatorKind::output_convert:
                buffer(op.user_buffer_index, "userBufferIndex");
                buffer(op.shadow_buffer_index, "shadowBufferIndex");
                break;
            case OperatorKind::update_all_vertex_frames:
            case OperatorKind::update_some_vertex_frames: buffer(op.buffer_idx, "bufferIdx"); break;
            case OperatorKind::simple_mesh_bone_deform:
            case OperatorKind::mesh_bone_deform:
                buffer(op.input_buffer_idx, "inputBufferIdx");
                tset(op.transform_set_index, "outputTransformSetIdx");
                break;
            case OperatorKind::other: break;
            default:
                if (op.class_name.find("Skin") != std::string::npos) {
                    buffer(op.output_buffer_idx, "outputBufferIndex");
                    tset(op.transform_set_index, "transformSetIndex");
                } else {
                    buffer(op.input_buffer_idx, "inputBufferIdx");
                    buffer(op.output_buffer_idx, "outputBufferIdx");
                }
                break;
        }
    }
    if (skeletons.size() == 1) {
        const havok::Skeleton& sk = skeletons[0];
        for (const TransformSetDefinition& ts : cd.transform_sets) {
            const std::string to = obj("hclTransformSetDefinition", ts.name, ts.item);
            if (ts.name != sk.name) c.add(to, "name", "differs from the skeleton's name '" + sk.name + "'");
            if (ts.num_transforms != sk.bone_names.size())
                c.add(to, "numTransforms", std::to_string(ts.num_transforms) + " differs from the skeleton's " + std::to_string(sk.bone_names.size()) + " bones");
        }
    } else if (skeletons.size() > 1 && !cd.transform_sets.empty()) {
        c.add(o, "transformSetDefinitions", std::to_string(skeletons.size()) + " skeletons in the file; the transform set's cannot be told");
    }
}

}  // namespace

std::vector<Violation> check(const ClothContainer& cloth, const std::vector<havok::Skeleton>& skeletons) {
    std::vector<Violation> out;
    Checker c(out);
    for (const ClothData& cd : cloth.cloth_datas) check_cloth_data(c, cd, skeletons);
    return out;
}

}  // namespace drape::hcl
