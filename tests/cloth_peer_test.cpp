// drape's typed hcl view against an independent reading: what soulstruct-havok reads from the
// corpus's Elden Ring cloth files (reference/peer/soulstruct/cloth/, see reference/peer/README.md).
// Every value the peer's JSON holds is compared: census, cloth datas, buffers, operators, states,
// sim cloths (particles, poses, constraint sets and their first links, collidables and their
// shapes, the transform map, masks), simulate configs and object-space skins (inverse binds,
// control bytes, blend blocks, first packed local block). Floats compare exactly (the peer
// printed float32 values as doubles).
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "drape/game/containers.h"
#include "corpus.h"
#include "drape/havok/animation.h"
#include "drape/havok/cloth.h"

using namespace drape;
using json = nlohmann::json;

namespace {

struct PeerFile {
    const char* json_name;
    const char* corpus_path;
};
constexpr PeerFile k_peer_files[] = {
    {"HD_M_3005_c.json", "er/HD_M_3005_c.hkx"},
    {"c3061_c.json", "er/game/chr/c3061.chrbnd.dcx"},
    {"c4361_c.json", "er/game/chr/c4361.chrbnd.dcx"},
    {"c5000_c.json", "er/game/chr/c5000.chrbnd.dcx"},
};

float f(const json& j) { return float(j.get<double>()); }

void check_vec4(const json& j, const havok::Vec4& v) {
    REQUIRE(j.size() == 4);
    for (size_t i = 0; i < 4; ++i) CHECK(f(j[i]) == v[i]);
}

// The peer's shape members, by name, against drape's typed shape.
size_t check_shape(const json& j, const hcl::Shape& s) {
    size_t n = 0;
    auto v = [&](const char* name, const havok::Vec4& x) {
        if (!j.contains(name)) return;
        CAPTURE(name);
        check_vec4(j[name], x);
        ++n;
    };
    auto sc = [&](const char* name, float x) {
        if (!j.contains(name)) return;
        CAPTURE(name);
        CHECK(f(j[name]) == x);
        ++n;
    };
    CHECK(j["class"].get<std::string>() == s.class_name);
    v("small", s.small), v("big", s.big), v("coneApex", s.cone_apex), v("coneAxis", s.cone_axis), v("lVec", s.l_vec), v("dVec", s.d_vec);
    v("tanThetaVecNeg", s.tan_theta_vec_neg), v("start", s.start), v("end", s.end), v("dir", s.dir), v("planeEquation", s.plane_equation);
    sc("smallRadius", s.small_radius), sc("bigRadius", s.big_radius), sc("l", s.l), sc("d", s.d), sc("cosTheta", s.cos_theta);
    sc("sinTheta", s.sin_theta), sc("tanTheta", s.tan_theta), sc("tanThetaSqr", s.tan_theta_sqr), sc("radius", s.radius);
    sc("capLenSqrdInv", s.cap_len_sqrd_inv);
    return n;
}

// First links of a constraint set, by the peer's member names.
size_t check_first_links(const json& links, const hcl::ConstraintSet& c) {
    size_t n = 0;
    for (size_t i = 0; i < links.size(); ++i) {
        const json& l = links[i];
        CAPTURE(i);
        auto u = [&](const char* name, uint16_t x) {
            if (!l.contains(name)) return;
            CHECK(l[name].get<int>() == x);
            ++n;
        };
        auto sc = [&](const char* name, float x) {
            if (!l.contains(name)) return;
            CHECK(f(l[name]) == x);
            ++n;
        };
        switch (c.kind) {
            case hcl::ConstraintKind::standard_link:
            case hcl::ConstraintKind::stretch_link: {
                const auto& x = c.links.at(i);
                u("particleA", x.particle_a), u("particleB", x.particle_b), sc("restLength", x.rest_length), sc("stiffness", x.stiffness);
                break;
            }
            case hcl::ConstraintKind::bend_link: {
                const auto& x = c.bend_links.at(i);
                u("particleA", x.particle_a), u("particleB", x.particle_b), sc("bendMinLength", x.bend_min_length);
                sc("stretchMaxLength", x.stretch_max_length), sc("bendStiffness", x.bend_stiffness), sc("stretchStiffness", x.stretch_stiffness);
                break;
            }
            case hcl::ConstraintKind::bend_stiffness: {
                const auto& x = c.bend_stiffness_links.at(i);
                sc("weightA", x.weight_a), sc("weightB", x.weight_b), sc("weightC", x.weight_c), sc("weightD", x.weight_d);
                sc("bendStiffness", x.bend_stiffness), sc("restCurvature", x.rest_curvature);
                u("particleA", x.particle_a), u("particleB", x.particle_b), u("particleC", x.particle_c), u("particleD", x.particle_d);
                break;
            }
            case hcl::ConstraintKind::compressible_link: {
                const auto& x = c.compressible_links.at(i);
                u("particleA", x.particle_a), u("particleB", x.particle_b), sc("restLength", x.rest_length);
                sc("compressionLength", x.compression_length), sc("stiffness", x.stiffness);
                break;
            }
            case hcl::ConstraintKind::local_range: {
                const auto& x = c.local_constraints.at(i);
                u("particleIndex", x.particle_index), u("referenceVertex", x.reference_vertex), sc("maximumDistance", x.maximum_distance);
                sc("maxNormalDistance", x.max_normal_distance), sc("minNormalDistance", x.min_normal_distance);
                break;
            }
            case hcl::ConstraintKind::transition: {
                const auto& x = c.transition_particles.at(i);
                u("particleIndex", x.particle_index), u("referenceVertex", x.reference_vertex), sc("toAnimDelay", x.to_anim_delay);
                sc("toSimDelay", x.to_sim_delay), sc("toSimMaxDistance", x.to_sim_max_distance);
                break;
            }
            case hcl::ConstraintKind::volume_mx: {
                // A frame batch: 16 lanes of frame vectors, particles and weights.
                for (size_t k = 0; k < 16; ++k) {
                    const auto& e = c.frame_batches.at(i * 16 + k);
                    check_vec4(l["frameVector"][k], e.frame_vector);
                    CHECK(l["particleIndex"][k].get<int>() == e.particle_index);
                    CHECK(f(l["weight"][k]) == e.weight_or_stiffness);
                    n += 3;
                }
                break;
            }
            case hcl::ConstraintKind::other: FAIL("unknown constraint set"); break;
        }
    }
    return n;
}

size_t link_count(const hcl::ConstraintSet& c) {
    switch (c.kind) {
        case hcl::ConstraintKind::standard_link:
        case hcl::ConstraintKind::stretch_link: return c.links.size();
        case hcl::ConstraintKind::bend_link: return c.bend_links.size();
        case hcl::ConstraintKind::bend_stiffness: return c.bend_stiffness_links.size();
        case hcl::ConstraintKind::compressible_link: return c.compressible_links.size();
        case hcl::ConstraintKind::local_range: return c.local_constraints.size();
        case hcl::ConstraintKind::transition: return c.transition_particles.size();
        case hcl::ConstraintKind::volume_mx: return c.frame_batches.size() / 16;
        case hcl::ConstraintKind::other: return 0;
    }
    return 0;
}

}  // namespace

TEST_CASE("cloth peer: drape's typed view equals soulstruct-havok's reading of the Elden Ring cloth files" * doctest::test_suite("corpus")) {
    size_t files = 0, values = 0, sims = 0, skins = 0;
    for (const auto& pf : k_peer_files) {
        CAPTURE(pf.json_name);
        std::ifstream in(test::reference_dir() / "peer" / "soulstruct" / "cloth" / pf.json_name);
        REQUIRE(in);
        const json peer = json::parse(in);
        auto members = game::open_members(test::corpus(pf.corpus_path), pf.corpus_path, dcx::DecodeOptions{});
        REQUIRE_MESSAGE(members, members.error().to_string());
        auto comps = game::compendiums_for(*members, test::corpus(pf.corpus_path).parent_path());
        REQUIRE(comps);
        std::optional<havok::File> file;
        for (const auto& m : *members) {
            if (!havok::is_tagfile(m.bytes) && !havok::is_packfile(m.bytes)) continue;
            auto fr = havok::read_hkx(m.bytes, comps->lookup());
            REQUIRE(fr);
            if (fr->objects_of("hclClothData").empty()) continue;
            file = std::move(*fr);
        }
        REQUIRE(file);
        CHECK(file->sdk == peer["sdk"].get<std::string>());
        auto cloth = hcl::read_cloth(*file);
        REQUIRE_MESSAGE(cloth, cloth.error().to_string());

        // Census: objects per hcl class.
        std::map<std::string, size_t> census;
        for (const auto& [cls, n] : hcl::census(*file)) census[cls] = n;
        for (const auto& item : peer["census_hcl_referenced_objects"].items()) {
            const std::string cls = item.key();
            CAPTURE(cls);
            CHECK(census[cls] == item.value().get<size_t>());
            ++values;
        }

        const json& pc = peer["clothContainers"].at(0);
        CHECK(cloth->collidables.size() == pc["collidables_count"].get<size_t>());
        const json& pcds = pc["clothDatas"];
        REQUIRE(pcds.size() == cloth->cloth_datas.size());
        // Shared collidables: the peer's object index i is one object; drape's item must be one too.
        std::map<int, uint32_t> peer_object_to_item;
        for (size_t ci = 0; ci < pcds.size(); ++ci) {
            const json& pcd = pcds[ci];
            const hcl::ClothData& cd = cloth->cloth_datas[ci];
            CAPTURE(cd.name);
            CHECK(pcd["name"].get<std::string>() == cd.name);
            CHECK(pcd["targetPlatform"].get<uint32_t>() == cd.target_platform);
            REQUIRE(pcd["transformSetDefinitions"].size() == cd.transform_sets.size());
            for (size_t i = 0; i < cd.transform_sets.size(); ++i) {
                const json& t = pcd["transformSetDefinitions"][i];
                CHECK(t["name"].get<std::string>() == cd.transform_sets[i].name);
                CHECK(t["type"].get<int>() == cd.transform_sets[i].type);
                CHECK(t["numTransforms"].get<uint32_t>() == cd.transform_sets[i].num_transforms);
                values += 3;
            }
            REQUIRE(pcd["bufferDefinitions"].size() == cd.buffers.size());
            for (size_t i = 0; i < cd.buffers.size(); ++i) {
                const json& b = pcd["bufferDefinitions"][i];
                const auto& x = cd.buffers[i];
                CHECK(b["class"].get<std::string>() == x.class_name);
                CHECK(b["name"].get<std::string>() == x.name);
                CHECK(b["type"].get<int>() == x.type);
                CHECK(b["subType"].get<int>() == x.sub_type);
                CHECK(b["numVertices"].get<uint32_t>() == x.num_vertices);
                CHECK(b["numTriangles"].get<uint32_t>() == x.num_triangles);
                values += 6;
            }
            REQUIRE(pcd["operators"].size() == cd.operators.size());
            for (size_t i = 0; i < cd.operators.size(); ++i) {
                const json& o = pcd["operators"][i];
                CHECK(o["index"].get<size_t>() == i);
                CHECK(o["class"].get<std::string>() == cd.operators[i].class_name);
                CHECK(o["name"].get<std::string>() == cd.operators[i].name);
                CHECK(o["operatorID"].get<uint32_t>() == cd.operators[i].operator_id);
                values += 3;
            }
            REQUIRE(pcd["states"].size() == cd.states.size());
            for (size_t i = 0; i < cd.states.size(); ++i) {
                const json& s = pcd["states"][i];
                CHECK(s["name"].get<std::string>() == cd.states[i].name);
                CHECK(s["operators"].get<std::vector<uint32_t>>() == cd.states[i].operators);
                CHECK(s["usedSimCloths"].get<std::vector<uint32_t>>() == cd.states[i].used_sim_cloths);
                values += 3;
            }
            CHECK(pcd["stateTransitions_count"].get<size_t>() == cd.state_transition_count);
            CHECK(pcd["actions_count"].get<size_t>() == cd.action_count);

            REQUIRE(pcd["simClothDatas"].size() == cd.sim_cloths.size());
            for (size_t si = 0; si < cd.sim_cloths.size(); ++si) {
                const json& ps = pcd["simClothDatas"][si];
                const hcl::SimClothData& s = cd.sim_cloths[si];
                CAPTURE(s.name);
                CHECK(ps["name"].get<std::string>() == s.name);
                REQUIRE(ps["particle_count"].get<size_t>() == s.particles.size());
                for (size_t i = 0; i < ps["particleDatas_first5"].size(); ++i) {
                    const json& p = ps["particleDatas_first5"][i];
                    CHECK(f(p["mass"]) == s.particles[i].mass);
                    CHECK(f(p["invMass"]) == s.particles[i].inv_mass);
                    CHECK(f(p["radius"]) == s.particles[i].radius);
                    CHECK(f(p["friction"]) == s.particles[i].friction);
                    values += 4;
                }
                CHECK(f(ps["particleDatas_last"]["mass"]) == s.particles.back().mass);
                CHECK(f(ps["particleDatas_last"]["invMass"]) == s.particles.back().inv_mass);
                CHECK(ps["fixedParticles"]["count"].get<size_t>() == s.fixed_particles.size());
                const auto first10 = ps["fixedParticles"]["first10"].get<std::vector<uint16_t>>();
                CHECK(std::equal(first10.begin(), first10.end(), s.fixed_particles.begin()));
                check_vec4(ps["gravity"], s.simulation_info.gravity);
                CHECK(f(ps["globalDampingPerSecond"]) == s.simulation_info.global_damping_per_second);
                CHECK(ps["doNormals"].get<bool>() == s.do_normals);
                CHECK(ps["simOpIds"].get<std::vector<uint32_t>>() == s.sim_op_ids);
                CHECK(f(ps["maxParticleRadius"]) == s.max_particle_radius);
                CHECK(f(ps["totalMass"]) == s.total_mass);
                values += 12;
                REQUIRE(ps["simClothPoses"].size() == s.poses.size());
                for (size_t i = 0; i < s.poses.size(); ++i) {
                    const json& p = ps["simClothPoses"][i];
                    CHECK(p["name"].get<std::string>() == s.poses[i].name);
                    CHECK(p["count"].get<size_t>() == s.poses[i].positions.size());
                    for (size_t k = 0; k < p["first3"].size(); ++k) check_vec4(p["first3"][k], s.poses[i].positions[k]), values += 4;
                }
                REQUIRE(ps["staticConstraintSets"].size() == s.static_constraint_sets.size());
                for (size_t i = 0; i < s.static_constraint_sets.size(); ++i) {
                    const json& c = ps["staticConstraintSets"][i];
                    const auto& x = s.static_constraint_sets[i];
                    CAPTURE(x.class_name);
                    CHECK(c["class"].get<std::string>() == x.class_name);
                    CHECK(c["name"].get<std::string>() == x.name);
                    CHECK(c["link_count"].get<size_t>() == link_count(x));
                    if (c.contains("scalars") && c["scalars"].contains("constraintId"))
                        CHECK(c["scalars"]["constraintId"]["value"].get<uint32_t>() == x.constraint_id);
                    values += 3 + check_first_links(c["first_links"], x);
                }
                CHECK(ps["antiPinchConstraintSets"].size() == s.anti_pinch_constraint_sets.size());
                REQUIRE(ps["collidable_count"].get<size_t>() == s.per_instance_collidables.size());
                for (size_t i = 0; i < s.per_instance_collidables.size(); ++i) {
                    const json& c = ps["collidables"][i];
                    const auto& x = s.per_instance_collidables[i];
                    CHECK(c["name"].get<std::string>() == x.name);
                    REQUIRE(x.shape);
                    CHECK(c["shape_class"].get<std::string>() == x.shape->class_name);
                    values += 2 + check_shape(c["shape"], *x.shape);
                    const int object = ps["collidables_object_index"][i].get<int>();
                    if (auto it = peer_object_to_item.find(object); it != peer_object_to_item.end()) CHECK(it->second == x.item);
                    else peer_object_to_item[object] = x.item;
                }
                const json& m = ps["collidableTransformMap"];
                CHECK(m["transformSetIndex"].get<int>() == s.collidable_transform_map.transform_set_index);
                CHECK(m["transformIndices"].get<std::vector<uint32_t>>() == s.collidable_transform_map.transform_indices);
                CHECK(m["offsets_count"].get<size_t>() == s.collidable_transform_map.offsets.size());
                if (m.contains("first_offset") && !s.collidable_transform_map.offsets.empty())
                    for (size_t k = 0; k < 16; ++k) CHECK(f(m["first_offset"][k]) == s.collidable_transform_map.offsets[0][k]);
                CHECK(ps["staticCollisionMasks"]["count"].get<size_t>() == s.static_collision_masks.size());
                const auto masks = ps["staticCollisionMasks"]["first10"].get<std::vector<uint32_t>>();
                CHECK(std::equal(masks.begin(), masks.end(), s.static_collision_masks.begin()));
                CHECK(ps["triangleIndices_count"].get<size_t>() == s.triangle_indices.size());
                CHECK(ps["triangleFlips_count"].get<size_t>() == s.triangle_flips.size());
                CHECK(ps["transferMotionEnabled"].get<bool>() == s.transfer_motion_enabled);
                CHECK(ps["landscapeCollisionEnabled"].get<bool>() == s.landscape_collision_enabled);
                CHECK(ps["pinchDetectionEnabled"].get<bool>() == s.pinch_detection_enabled);
                CHECK(ps["actions_count"].get<size_t>() == s.action_count);
                values += 12;
                ++sims;
            }
            for (const json& po : pcd["simulateOperators"]) {
                const auto& o = cd.operators.at(po["index"].get<size_t>());
                CHECK(o.kind == hcl::OperatorKind::simulate);
                CHECK(po["simClothIndex"].get<uint32_t>() == o.sim_cloth_index);
                REQUIRE(po["simulateOpConfigs"].size() == o.configs.size());
                for (size_t k = 0; k < o.configs.size(); ++k) {
                    const json& c = po["simulateOpConfigs"][k];
                    CHECK(c["name"].get<std::string>() == o.configs[k].name);
                    CHECK(c["subSteps"].get<int>() == o.configs[k].sub_steps);
                    CHECK(c["numberOfSolveIterations"].get<int>() == o.configs[k].number_of_solve_iterations);
                    CHECK(c["constraintExecution"].get<std::vector<int32_t>>() == o.configs[k].constraint_execution);
                    CHECK(c["adaptConstraintStiffness"].get<bool>() == o.configs[k].adapt_constraint_stiffness);
                    CHECK(c["useAllInstanceCollidables"].get<bool>() == o.configs[k].use_all_instance_collidables);
                    CHECK(c["instanceCollidablesUsed"].get<std::vector<uint8_t>>() == o.configs[k].instance_collidables_used);
                    values += 7;
                }
            }
            for (const json& po : pcd["objectSpaceSkinOperators"]) {
                const auto& o = cd.operators.at(po["index"].get<size_t>());
                CAPTURE(o.name);
                CHECK(po["class"].get<std::string>() == o.class_name);
                CHECK(po["outputBufferIndex"].get<uint32_t>() == o.output_buffer_idx);
                CHECK(po["transformSetIndex"].get<uint32_t>() == o.transform_set_index);
                CHECK(po["boneFromSkinMeshTransforms_count"].get<size_t>() == o.bone_from_skin_mesh_transforms.size());
                for (size_t k = 0; k < 16; ++k) CHECK(f(po["boneFromSkinMeshTransforms_first"][k]) == o.bone_from_skin_mesh_transforms.at(0)[k]);
                CHECK(po["transformSubset"].get<std::vector<uint16_t>>() == o.transform_subset);
                const json& d = po["deformer"];
                CHECK(d["controlBytes"].get<std::vector<uint8_t>>() == o.deformer.control_bytes);
                std::map<int, size_t> by_n;
                for (const auto& b : o.deformer.blocks) ++by_n[b.blends];
                const char* names[] = {"", "one", "two", "three", "four", "five", "six", "seven", "eight"};
                for (int n = 1; n <= 8; ++n) CHECK(d["blend_block_counts"][std::string(names[n]) + "BlendEntries"].get<size_t>() == by_n[n]);
                // The control-byte rule (N = 4 - c): value c counts the blocks of N = 4 - c blends.
                for (const auto& [c, count] : d["controlBytes_histogram"].items()) CHECK(count.get<size_t>() == by_n[4 - std::stoi(c)]);
                CHECK(d["startVertexIndex"].get<uint16_t>() == o.deformer.start_vertex_index);
                CHECK(d["endVertexIndex"].get<uint16_t>() == o.deformer.end_vertex_index);
                CHECK(d["partialWrite"].get<bool>() == o.deformer.partial_write);
                CHECK(po["local_block_count"].get<size_t>() * 16 == o.local.packed_positions.size());
                CHECK(po["local_unpacked_count"].get<size_t>() * 16 == o.local.positions.size());
                const json& first = po["first_local_block_packed_positions"];
                for (size_t k = 0; k < first.size(); ++k)
                    for (size_t c = 0; c < 4; ++c) CHECK(first[k][c].get<int16_t>() == o.local.packed_positions.at(k)[c]);
                values += 30 + first.size() * 4;
                ++skins;
            }
        }
        ++files;
    }
    CHECK(files == 4);
    CHECK(sims == 15);
    CHECK(skins >= 10);
    CHECK(values > 2000);
    MESSAGE("compared " << values << " values over " << files << " files, " << sims << " sim cloths, " << skins << " skins");
}
