// hcl typed views on BB c2020_c.hkx and the validity rules (docs/havok-cloth.md) of `drape check`.
#include <doctest/doctest.h>

#include <functional>

#include "run.h"
#include "corpus.h"
#include "drape/havok/cloth.h"
#include "havok_corpus.h"
#include "havok_fixtures.h"

#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

using namespace drape;
using namespace drape::hcl;

namespace {

struct Loaded {
    havok::File file;
    ClothContainer cloth;
    std::vector<havok::Skeleton> skeletons;
};

Loaded load_c2020() {
    auto f = test::load_hkx("bb/c2020_c.hkx");
    REQUIRE_MESSAGE(f, (f ? "" : f.error().to_string()));
    auto c = read_cloth(*f);
    REQUIRE_MESSAGE(c, (c ? "" : c.error().to_string()));
    auto a = havok::read_animation_container(*f);
    REQUIRE(a);
    return {std::move(*f), std::move(*c), a->skeletons};
}

bool has_violation(const std::vector<Violation>& v, const std::string& member_prefix) {
    for (const auto& x : v)
        if (x.member.rfind(member_prefix, 0) == 0) return true;
    return false;
}

}  // namespace

TEST_CASE("hcl: BB c2020_c.hkx is fully typed" * doctest::test_suite("corpus")) {
    Loaded l = load_c2020();
    // Counts from the packfile's virtual fixups (classnames per object), read with a separate
    // Python script over the bytes: 6 cloth datas, 6 sim cloths, 18 constraint sets, ...
    CHECK(l.cloth.cloth_datas.size() == 6);
    size_t sims = 0, particles = 0, sets = 0, ops = 0, states = 0, buffers = 0;
    std::map<ConstraintKind, size_t> set_kinds;
    std::map<OperatorKind, size_t> op_kinds;
    for (const auto& cd : l.cloth.cloth_datas) {
        sims += cd.sim_cloths.size();
        ops += cd.operators.size();
        states += cd.states.size();
        buffers += cd.buffers.size();
        for (const auto& s : cd.sim_cloths) {
            particles += s.particles.size();
            sets += s.static_constraint_sets.size();
            for (const auto& c : s.static_constraint_sets) ++set_kinds[c.kind];
        }
        for (const auto& o : cd.operators) ++op_kinds[o.kind];
        CHECK(cd.target_platform == 16384);  // HCL_PLATFORM_PS4 (HKX2 Platform enum): Bloodborne
    }
    CHECK(sims == 6);
    CHECK(particles == 1325);  // 119+368+240+304+266+28, the particleDatas sizes at +64 of each object
    CHECK(sets == 18);
    CHECK(set_kinds[ConstraintKind::standard_link] == 5);
    CHECK(set_kinds[ConstraintKind::stretch_link] == 5);
    CHECK(set_kinds[ConstraintKind::local_range] == 6);
    CHECK(set_kinds[ConstraintKind::compressible_link] == 1);
    CHECK(set_kinds[ConstraintKind::bend_link] == 1);
    CHECK(ops == 6 + 6 + 1 + 6 + 5 + 7 + 4 + 5);
    CHECK(op_kinds[OperatorKind::object_space_skin_pn] == 6);
    CHECK(op_kinds[OperatorKind::object_space_skin_pnt] == 4);
    CHECK(op_kinds[OperatorKind::simulate] == 6);
    CHECK(op_kinds[OperatorKind::gather_all_vertices] == 1);
    CHECK(op_kinds[OperatorKind::output_convert] == 6);
    CHECK(op_kinds[OperatorKind::input_convert] == 5);
    CHECK(op_kinds[OperatorKind::move_particles] == 5);
    CHECK(op_kinds[OperatorKind::mesh_mesh_deform] == 7);
    CHECK(states == 6);
    CHECK(buffers == 12 + 6 + 5);
    CHECK(l.cloth.collidables.empty());

    // First cloth data, read by hand from the bytes (hex dump of the objects at 0x22E0...):
    const ClothData& cd = l.cloth.cloth_datas[0];
    CHECK(cd.name == "c2020_Robe_point");
    const SimClothData& s = cd.sim_cloths[0];
    CHECK(s.name == "MeshSim");
    CHECK(s.simulation_info.gravity[1] == doctest::Approx(-9.81f));
    CHECK(s.simulation_info.global_damping_per_second == doctest::Approx(0.9f));
    CHECK(s.simulation_info.collision_tolerance == doctest::Approx(0.2f));
    CHECK(s.particles.size() == 119);
    CHECK(s.particles[0].mass == doctest::Approx(0.02521008f));
    CHECK(s.particles[0].inv_mass == doctest::Approx(39.666668f));
    CHECK(s.particles[0].radius == doctest::Approx(0.01f));
    CHECK(s.particles[0].friction == doctest::Approx(0.5f));
    CHECK(s.triangle_indices.size() == 450);
    CHECK(s.triangle_flips.size() == 20);
    CHECK(s.total_mass == doctest::Approx(3.0f));
    CHECK(s.collidable_transform_map.transform_indices == std::vector<uint32_t>{25, 72});
    CHECK(s.per_instance_collidables.size() == 2);
    CHECK(s.per_instance_collidables[0].name == "Collidable_L Forearm");
    REQUIRE(s.per_instance_collidables[0].shape);
    CHECK(s.per_instance_collidables[0].shape->kind == ShapeKind::tapered_capsule);
    CHECK(s.per_instance_collidables[0].shape->small[0] == doctest::Approx(0.43439525f));
    CHECK(s.max_collision_pairs == 238);
    CHECK(s.max_particle_radius == doctest::Approx(0.01f));
    CHECK(s.landscape_collision.landscape_radius == doctest::Approx(0.05f));
    CHECK(s.landscape_collision.stuck_particles_stretch_factor_sq == doctest::Approx(9.0f));
    CHECK(s.do_normals);
    CHECK(s.transfer_motion.max_translation_blend == doctest::Approx(1.0f));
    CHECK(s.poses.size() == 1);
    CHECK(s.poses[0].name == "DefaultClothPose");
    REQUIRE(cd.transform_sets.size() == 1);
    CHECK(cd.transform_sets[0].name == "Master");
    CHECK(cd.transform_sets[0].num_transforms == 96);
    const Operator* sim = nullptr;
    for (const auto& o : cd.operators)
        if (o.kind == OperatorKind::simulate) sim = &o;
    REQUIRE(sim);
    REQUIRE(sim->configs.size() == 1);
    CHECK(sim->configs[0].constraint_execution == std::vector<int32_t>{1, 0, -1});
    CHECK(sim->configs[0].sub_steps == 1);
    const Operator& skin = cd.operators[0];
    CHECK(skin.kind == OperatorKind::object_space_skin_pn);
    CHECK(skin.bone_from_skin_mesh_transforms.size() == 2);
    CHECK(skin.local.packed_normals.size() % 16 == 0);
    CHECK(skin.local.packed_normals.size() == skin.local.packed_positions.size());
    CHECK(skin.local.packed_normals[0] == std::array<int16_t, 4>{-20899, 19609, -15997, 12288});
}

TEST_CASE("hcl: hkPackedVector3 decode (docs/formats.md#packed-vectors)") {
    // values {0x4000, 0xC000, 0, 0x3800}: scale bits 0x38000000 = 2^-15; 0x40000000 = 2^30 -> 2^15
    const auto v = unpack_vector3({0x4000, int16_t(0xC000), 0, 0x3800});
    CHECK(v[0] == 32768.0f);
    CHECK(v[1] == -32768.0f);
    CHECK(v[2] == 0.0f);
}

TEST_CASE("hcl: c2020_c.hkx is clean under the validity rules (docs/havok-cloth.md)" * doctest::test_suite("corpus")) {
    Loaded l = load_c2020();
    const auto v = check(l.cloth, l.skeletons);
    for (const auto& x : v) MESSAGE(x.object << " " << x.member << ": " << x.message);
    CHECK(v.empty());
}

TEST_CASE("hcl: a bad index in each rule is reported, naming object and member" * doctest::test_suite("corpus")) {
    const Loaded base = load_c2020();
    struct Case {
        const char* name;
        std::function<void(ClothContainer&, std::vector<havok::Skeleton>&)> mutate;
        const char* member;
    };
    auto first_of = [](ClothData& cd, ConstraintKind k) -> ConstraintSet* {
        for (auto& s : cd.sim_cloths)
            for (auto& c : s.static_constraint_sets)
                if (c.kind == k) return &c;
        return nullptr;
    };
    auto op_of = [](ClothData& cd, OperatorKind k) -> Operator* {
        for (auto& o : cd.operators)
            if (o.kind == k) return &o;
        return nullptr;
    };
    const std::vector<Case> cases = {
        {"fixed particle", [](auto& c, auto&) { c.cloth_datas[0].sim_cloths[0].fixed_particles.push_back(60000); }, "fixedParticles[0]"},
        {"triangle index", [](auto& c, auto&) { c.cloth_datas[0].sim_cloths[0].triangle_indices[4] = 119; }, "triangleIndices[4]"},
        {"whole triangles", [](auto& c, auto&) { c.cloth_datas[0].sim_cloths[0].triangle_indices.push_back(0); }, "triangleIndices"},
        {"standard link", [&](auto& c, auto&) { first_of(c.cloth_datas[0], ConstraintKind::standard_link)->links[2].particle_b = 999; }, "links[2].particleB"},
        {"stretch link", [&](auto& c, auto&) { first_of(c.cloth_datas[1], ConstraintKind::stretch_link)->links[0].particle_a = 9999; }, "links[0].particleA"},
        {"bend link", [&](auto& c, auto&) {
             for (auto& cd : c.cloth_datas)
                 if (auto* s = first_of(cd, ConstraintKind::bend_link)) s->bend_links[1].particle_a = 65535;
         }, "links[1].particleA"},
        {"compressible link", [&](auto& c, auto&) {
             for (auto& cd : c.cloth_datas)
                 if (auto* s = first_of(cd, ConstraintKind::compressible_link)) s->compressible_links[0].particle_b = 65535;
         }, "links[0].particleB"},
        {"bend stiffness link", [&](auto& c, auto&) {
             ConstraintSet bs;
             bs.kind = ConstraintKind::bend_stiffness;
             bs.class_name = "hclBendStiffnessConstraintSet";
             BendStiffnessLink l;
             l.particle_d = 5000;
             bs.bend_stiffness_links.push_back(l);
             c.cloth_datas[0].sim_cloths[0].static_constraint_sets.push_back(bs);
         }, "links[0].particleD"},
        {"local range particle", [&](auto& c, auto&) { first_of(c.cloth_datas[0], ConstraintKind::local_range)->local_constraints[3].particle_index = 4000; }, "localConstraints[3].particleIndex"},
        {"local range reference vertex", [&](auto& c, auto&) { first_of(c.cloth_datas[0], ConstraintKind::local_range)->local_constraints[3].reference_vertex = 4000; }, "localConstraints[3].referenceVertex"},
        {"local range buffer", [&](auto& c, auto&) { first_of(c.cloth_datas[0], ConstraintKind::local_range)->reference_mesh_buffer_idx = 77; }, "referenceMeshBufferIdx"},
        {"transition", [&](auto& c, auto&) {
             ConstraintSet t;
             t.kind = ConstraintKind::transition;
             t.class_name = "hclTransitionConstraintSet";
             t.transition_particles.push_back({1, 60000, 0, 0, 0});
             c.cloth_datas[0].sim_cloths[0].static_constraint_sets.push_back(t);
         }, "perParticleData[0].referenceVertex"},
        {"state operator", [](auto& c, auto&) { c.cloth_datas[0].states[0].operators[1] = 40; }, "operators[1]"},
        {"state buffer", [](auto& c, auto&) { c.cloth_datas[0].states[0].used_buffers[0].shadow_buffer_index = 9; }, "usedBuffers[0].shadowBufferIndex"},
        {"state transform set", [](auto& c, auto&) { c.cloth_datas[0].states[0].used_transform_sets[0].transform_set_index = 1; }, "usedTransformSets[0].transformSetIndex"},
        {"state sim cloth", [](auto& c, auto&) { c.cloth_datas[0].states[0].used_sim_cloths[0] = 3; }, "usedSimCloths[0]"},
        {"sim op id", [](auto& c, auto&) { c.cloth_datas[0].sim_cloths[0].sim_op_ids = {17}; }, "simOpIds[0]"},
        {"simulate sim cloth", [&](auto& c, auto&) { op_of(c.cloth_datas[0], OperatorKind::simulate)->sim_cloth_index = 2; }, "simClothIndex"},
        {"constraint execution", [&](auto& c, auto&) { op_of(c.cloth_datas[0], OperatorKind::simulate)->configs[0].constraint_execution[0] = 2; }, "simulateOpConfigs[0].constraintExecution[0]"},
        {"move particles particle", [&](auto& c, auto&) {
             for (auto& cd : c.cloth_datas)
                 if (auto* o = op_of(cd, OperatorKind::move_particles)) o->vertex_particle_pairs[0].particle_index = 65000;
         }, "vertexParticlePairs[0].particleIndex"},
        {"move particles vertex", [&](auto& c, auto&) {
             for (auto& cd : c.cloth_datas)
                 if (auto* o = op_of(cd, OperatorKind::move_particles)) o->vertex_particle_pairs[0].vertex_index = 65000;
         }, "vertexParticlePairs[0].vertexIndex"},
        {"operator buffer", [&](auto& c, auto&) {
             for (auto& cd : c.cloth_datas)
                 if (auto* o = op_of(cd, OperatorKind::output_convert)) o->user_buffer_index = 100;
         }, "userBufferIndex"},
        {"skin transform set", [&](auto& c, auto&) { op_of(c.cloth_datas[0], OperatorKind::object_space_skin_pn)->transform_set_index = 5; }, "transformSetIndex"},
        {"copy vertices range", [&](auto& c, auto&) {
             Operator o;
             o.item = 1;
             o.kind = OperatorKind::copy_vertices;
             o.class_name = "hclCopyVerticesOperator";
             o.input_buffer_idx = 0;
             o.output_buffer_idx = 0;
             o.start_vertex_in = 100;
             o.number_of_vertices = 26;  // buffer 0 has 125 vertices
             c.cloth_datas[0].operators.push_back(o);
         }, "startVertexIn"},
        {"collidable transform map", [](auto& c, auto&) { c.cloth_datas[0].sim_cloths[0].collidable_transform_map.offsets.pop_back(); }, "collidableTransformMap.offsets"},
        {"collidable bones", [](auto& c, auto&) { c.cloth_datas[0].sim_cloths[0].collidable_transform_map.transform_indices.push_back(1); }, "collidableTransformMap.transformIndices"},
        {"transform set name", [](auto&, auto& sk) { sk[0].name = "Other"; }, "name"},
        {"transform set size", [](auto&, auto& sk) { sk[0].bone_names.pop_back(); }, "numTransforms"},
    };
    for (const auto& cs : cases) {
        CAPTURE(cs.name);
        ClothContainer c = base.cloth;
        std::vector<havok::Skeleton> sk = base.skeletons;
        cs.mutate(c, sk);
        const auto v = check(c, sk);
        CHECK(has_violation(v, cs.member));
        for (const auto& x : v) CHECK(!x.object.empty());
    }
}

TEST_CASE("drape check: exit codes and report" * doctest::test_suite("corpus")) {
    auto run = [](std::vector<std::string> args) {
        args.insert(args.begin(), {"--quiet", "check"});
        return test::run_drape(args).exit_code;
    };
    CHECK(run({test::corpus("bb/c2020_c.hkx").string()}) == 0);
    CHECK(run({test::corpus("er/WP_A_0550_1.anibnd").string()}) == 0);
    CHECK(run({test::corpus("ds3/EliteKnight.flver").string()}) == 1);
    CHECK(run({(test::scratch_dir("check") / "missing.hkx").string()}) == 1);
}

TEST_CASE("drape check: synthesized Sekiro and ER cloth tagfiles are read and reported, not crashed on") {
    // The fixtures fill every member from one value sequence, so their indices are arbitrary:
    // check must read both flavours through their TYPE sections and name each violation.
    for (auto game : {test::ClothGame::sekiro, test::ClothGame::elden_ring}) {
        auto types = test::fixture_types(game);
        REQUIRE(types);
        const auto bytes = test::synthesize_cloth(game, *types);
        auto f = havok::read_tagfile(bytes);
        REQUIRE(f);
        auto c = read_cloth(*f);
        REQUIRE(c);
        const auto v = check(*c, {});
        CHECK(!v.empty());
        for (const auto& x : v) {
            CHECK(x.object.rfind("hcl", 0) == 0);
            CHECK(!x.member.empty());
        }
        const auto path = test::scratch_dir("check_synth") / (game == test::ClothGame::sekiro ? "sekiro_c.hkx" : "er_c.hkx");
        {
            std::ofstream out(path, std::ios::binary);
            out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
        }
        const auto r = test::run_drape({"--quiet", "check", path.string()}, true);
        CHECK(r.exit_code == 1);
        CHECK(r.out.find(": hcl") != std::string::npos);
    }
}
