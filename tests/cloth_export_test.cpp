// The drape cloth exporter: BB c2020_c.hkx (and the synthesized Sekiro/ER cloth) to .drcloth and
// back, compared member by member with the typed view; the FlatBuffers verifier; bindings.
#include <doctest/doctest.h>

#include <cmath>

#include "corpus.h"
#include "drape/exporters/cloth_export.h"
#include "drape/exporters/cloth_read.h"
#include "havok_corpus.h"

using namespace drape;

namespace {

struct Loaded {
    havok::File file;
    hcl::ClothContainer cloth;
    std::vector<havok::Skeleton> skeletons;
};

Loaded load_c2020() {
    Loaded l;
    auto f = test::load_hkx("bb/c2020_c.hkx");
    REQUIRE_MESSAGE(f, f.error().to_string());
    l.file = std::move(*f);
    auto c = hcl::read_cloth(l.file);
    REQUIRE_MESSAGE(c, c.error().to_string());
    l.cloth = std::move(*c);
    auto anim = havok::read_animation_container(l.file);
    REQUIRE(anim);
    l.skeletons = anim->skeletons;
    return l;
}

}  // namespace

TEST_CASE("cloth export: BB c2020_c.hkx round-trips every member of the typed view" * doctest::test_suite("corpus")) {
    Loaded l = load_c2020();
    cloth_export::Options o;
    o.game = "Bloodborne";
    o.sdk = l.file.sdk;
    o.source_file = "c2020_c.hkx";
    o.skeletons = l.skeletons;
    cloth_export::Report rep;
    auto bytes = cloth_export::export_cloth(l.cloth, o, &rep);
    REQUIRE_MESSAGE(bytes, bytes.error().to_string());
    CHECK(rep.cloth_datas == 6);
    CHECK(rep.sim_cloths == 6);
    CHECK(rep.particles == 1325);
    CHECK(rep.operators == l.cloth.cloth_datas[0].operators.size() + l.cloth.cloth_datas[1].operators.size() +
                               l.cloth.cloth_datas[2].operators.size() + l.cloth.cloth_datas[3].operators.size() +
                               l.cloth.cloth_datas[4].operators.size() + l.cloth.cloth_datas[5].operators.size());

    std::vector<std::vector<std::string>> bones;
    auto back = cloth_read::drcloth_to_hcl(*bytes, &bones);
    REQUIRE_MESSAGE(back, back.error().to_string());
    hcl::ClothContainer expected = l.cloth;
    cloth_read::clear_items(expected);
    cloth_read::clear_items(*back);
    REQUIRE(back->cloth_datas.size() == expected.cloth_datas.size());
    CHECK(back->collidables == expected.collidables);
    for (size_t i = 0; i < expected.cloth_datas.size(); ++i) {
        CAPTURE(i);
        const auto& a = back->cloth_datas[i];
        const auto& b = expected.cloth_datas[i];
        CHECK(a.name == b.name);
        CHECK(a.buffers == b.buffers);
        CHECK(a.transform_sets == b.transform_sets);
        CHECK(a.states == b.states);
        REQUIRE(a.sim_cloths.size() == b.sim_cloths.size());
        for (size_t s = 0; s < a.sim_cloths.size(); ++s) CHECK(a.sim_cloths[s] == b.sim_cloths[s]);
        REQUIRE(a.operators.size() == b.operators.size());
        for (size_t k = 0; k < a.operators.size(); ++k) {
            CAPTURE(b.operators[k].class_name);
            CHECK(a.operators[k] == b.operators[k]);
        }
        CHECK(a == b);
    }
    // The transform sets name their bones: those of the file's skeleton of the same name.
    REQUIRE(bones.size() == 6);
    for (size_t i = 0; i < bones.size(); ++i) {
        const auto& ts = expected.cloth_datas[i].transform_sets.at(0);
        CAPTURE(ts.name);
        CHECK(bones[i].size() == ts.num_transforms);
        bool found = false;
        for (const auto& sk : l.skeletons) {
            if (sk.name != ts.name) continue;
            found = true;
            CHECK(bones[i] == sk.bone_names);
        }
        CHECK(found);
    }
}

TEST_CASE("cloth export: a zstd-wrapped file carries the same data" * doctest::test_suite("corpus")) {
    Loaded l = load_c2020();
    cloth_export::Options o;
    o.zstd = true;
    auto z = cloth_export::export_cloth(l.cloth, o);
    REQUIRE(z);
    CHECK((*z)[0] == 0x28);
    CHECK((*z)[1] == 0xB5);
    o.zstd = false;
    auto plain = cloth_export::export_cloth(l.cloth, o);
    REQUIRE(plain);
    CHECK(z->size() < plain->size());
    auto a = cloth_read::drcloth_to_hcl(*z);
    auto b = cloth_read::drcloth_to_hcl(*plain);
    REQUIRE(a);
    REQUIRE(b);
    CHECK(a->cloth_datas == b->cloth_datas);
}

TEST_CASE("cloth export: the verifier refuses a corrupted file" * doctest::test_suite("corpus")) {
    Loaded l = load_c2020();
    auto bytes = cloth_export::export_cloth(l.cloth, {});
    REQUIRE(bytes);
    auto bad = *bytes;
    bad[4] ^= 0xFF;  // the file identifier
    CHECK_FALSE(cloth_read::drcloth_to_hcl(bad));
    bad = *bytes;
    bad[0] = 0xFF, bad[1] = 0xFF, bad[2] = 0xFF, bad[3] = 0x7F;  // root offset past the end
    CHECK_FALSE(cloth_read::drcloth_to_hcl(bad));
    CHECK_FALSE(cloth_read::drcloth_to_hcl(std::span(bytes->data(), bytes->size() / 2)));
}

TEST_CASE("cloth export: display buffers bind to the mesh named as the buffer, by counts and subType order") {
    // A hand-made cloth data: two display buffers of the same name and counts (subType 1 and 0),
    // skinned by an object-space skin operator whose local positions are the mesh's vertices.
    hcl::ClothContainer c;
    hcl::ClothData cd;
    cd.name = "test";
    for (int sub : {1, 0}) {
        hcl::BufferDefinition b;
        b.class_name = "hclBufferDefinition";
        b.name = "BD_Cape";
        b.type = 4;
        b.sub_type = sub;
        b.num_vertices = 16;
        b.num_triangles = 2;
        cd.buffers.push_back(b);
    }
    hcl::Operator op;
    op.class_name = "hclObjectSpaceSkinPOperator";
    op.kind = hcl::OperatorKind::object_space_skin_p;
    op.output_buffer_idx = 1;  // the subType-0 buffer: binds to the first matching mesh
    hcl::BlendBlock block;
    block.blends = 1;
    for (uint16_t v = 0; v < 16; ++v) block.vertex_indices.push_back(v);
    op.deformer.blocks.push_back(block);
    op.deformer.control_bytes = {3};  // one block, of blend group "one" (N = 4 - c)
    // hkPackedVector3: component = f32(i32(u16 << 16)) * f32bits(u16(scale) << 16). scale word
    // 0x3780 is 2^-16 (f32bits 0x37800000), so component = value in units of... (value << 16) * 2^-16 = value.
    for (int16_t v = 0; v < 16; ++v) op.local.packed_positions.push_back({v, int16_t(2 * v), 0, int16_t(0x3780)});
    cd.operators.push_back(op);
    c.cloth_datas.push_back(cd);

    cloth_export::Options o;
    cloth_export::ModelMesh other{"other", "BD_Other", 16, 2, {}};
    cloth_export::ModelMesh m0{"cape_a", "BD_Cape", 16, 2, {}};
    cloth_export::ModelMesh m1{"cape_b", "BD_Cape", 16, 2, {}};
    for (int v = 0; v < 16; ++v) {
        m0.positions.push_back({float(v), float(2 * v), 0});
        m1.positions.push_back({float(v) + 0.5f, float(2 * v), 0});
    }
    o.meshes = {other, m0, m1};
    cloth_export::Report rep;
    auto bytes = cloth_export::export_cloth(c, o, &rep);
    REQUIRE(bytes);
    REQUIRE(rep.bindings.size() == 2);
    // Buffer 0 (subType 1) takes the second same-named mesh; buffer 1 (subType 0) the first.
    CHECK(rep.bindings[0].mesh_name == "cape_b");
    CHECK(rep.bindings[1].mesh_name == "cape_a");
    CHECK(rep.bindings[1].vertices_checked == 16);
    CHECK(rep.bindings[1].max_error == 0.0f);
    CHECK(rep.bindings[1].within_tolerance);
    CHECK(rep.bindings[0].max_error == -1.0f);  // no object-space skin writes buffer 0
    // Moving the mesh's vertices by 1% of its size is reported, not hidden.
    o.meshes[1].positions[5][0] += 0.01f * 33.54f;
    auto bytes2 = cloth_export::export_cloth(c, o, &rep);
    REQUIRE(bytes2);
    CHECK(rep.bindings[1].max_error > 0.009f);
    CHECK_FALSE(rep.bindings[1].within_tolerance);
    // A mesh with other counts is not bound.
    o.meshes = {cloth_export::ModelMesh{"cape_c", "BD_Cape", 15, 2, {}}};
    auto bytes3 = cloth_export::export_cloth(c, o, &rep);
    REQUIRE(bytes3);
    CHECK(rep.bindings[0].mesh_index == -1);
    CHECK(rep.bindings[1].mesh_index == -1);
}

#include "havok_fixtures.h"

TEST_CASE("cloth export: skin bind positions follow controlBytes, checked on BB c2020_c.hkx against the rest pose" * doctest::test_suite("corpus")) {
    // A move-particles operator pins particle p to vertex v of the buffer an object-space skin
    // writes; at rest the particle sits where the skin puts the vertex at the bind pose. So the
    // rule that maps local blocks to vertices (controlBytes) is checked on real data.
    Loaded l = load_c2020();
    size_t pairs = 0;
    for (const auto& cd : l.cloth.cloth_datas)
        for (const auto& mp : cd.operators) {
            if (mp.kind != hcl::OperatorKind::move_particles) continue;
            for (const auto& op : cd.operators) {
                const bool skin = op.kind == hcl::OperatorKind::object_space_skin_pn || op.kind == hcl::OperatorKind::object_space_skin_pnt;
                if (!skin || op.output_buffer_idx != mp.ref_buffer_idx) continue;
                CAPTURE(cd.name);
                const auto bind = hcl::skin_bind_positions(op, cd.buffers.at(op.output_buffer_idx).num_vertices, hcl::ControlByteRule::four_minus_c);
                const auto& rest = cd.sim_cloths.at(mp.sim_cloth_index).poses.at(0).positions;
                for (const auto& pr : mp.vertex_particle_pairs) {
                    const auto& b = bind.at(pr.vertex_index);
                    const auto& p = rest.at(pr.particle_index);
                    REQUIRE_FALSE(std::isnan(b[0]));
                    // hkPackedVector3 keeps 15 bits of mantissa: about 1e-4 m at a 2 m height.
                    CHECK(std::abs(b[0] - p[0]) < 1e-4f);
                    CHECK(std::abs(b[1] - p[1]) < 1e-4f);
                    CHECK(std::abs(b[2] - p[2]) < 1e-4f);
                    ++pairs;
                }
            }
        }
    CHECK(pairs == 175);  // 44 + 56 + 39 + 32 + 4 pinned particles in the five skinned cloth datas
}

TEST_CASE("cloth export: the synthesized Sekiro and Elden Ring cloth tagfiles round-trip every member") {
    for (auto game : {test::ClothGame::sekiro, test::ClothGame::elden_ring, test::ClothGame::sekiro_as_corpus}) {
        CAPTURE(int(game));
        auto types = test::fixture_types(game);
        REQUIRE_MESSAGE(types, types.error().to_string());
        const auto bytes = test::synthesize_cloth(game, *types);
        auto file = havok::read_tagfile(bytes);
        REQUIRE_MESSAGE(file, file.error().to_string());
        auto cloth = hcl::read_cloth(*file);
        REQUIRE_MESSAGE(cloth, cloth.error().to_string());
        REQUIRE(!cloth->cloth_datas.empty());
        // The fixture fills every member, virtual collision points included.
        bool has_vcp = false;
        for (const auto& cd : cloth->cloth_datas)
            for (const auto& s : cd.sim_cloths) has_vcp |= !s.virtual_collision_points.blocks.empty();
        CHECK(has_vcp);
        auto anim = havok::read_animation_container(*file);
        cloth_export::Options o;
        o.sdk = file->sdk;
        if (anim) o.skeletons = anim->skeletons;
        auto out = cloth_export::export_cloth(*cloth, o);
        REQUIRE_MESSAGE(out, out.error().to_string());
        auto back = cloth_read::drcloth_to_hcl(*out);
        REQUIRE_MESSAGE(back, back.error().to_string());
        hcl::ClothContainer expected = *cloth;
        cloth_read::clear_items(expected);
        cloth_read::clear_items(*back);
        CHECK(back->collidables == expected.collidables);
        REQUIRE(back->cloth_datas.size() == expected.cloth_datas.size());
        for (size_t i = 0; i < expected.cloth_datas.size(); ++i) {
            const auto& a = back->cloth_datas[i];
            const auto& b = expected.cloth_datas[i];
            CHECK(a.buffers == b.buffers);
            CHECK(a.transform_sets == b.transform_sets);
            CHECK(a.states == b.states);
            CHECK(a.sim_cloths == b.sim_cloths);
            REQUIRE(a.operators.size() == b.operators.size());
            for (size_t k = 0; k < a.operators.size(); ++k) {
                CAPTURE(b.operators[k].class_name);
                CHECK(a.operators[k] == b.operators[k]);
            }
        }
    }
}
