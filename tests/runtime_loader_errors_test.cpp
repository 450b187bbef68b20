// The runtime loader's index checks, one test per kind of error it reports: a real cloth (Elden
// Ring HD_M_3005, exported in memory) is unpacked with the schema's object API, one index is
// broken, the file is rebuilt (it still passes the FlatBuffers verifier) and the loader must
// refuse it with the right code and a message naming the field.
#include <doctest/doctest.h>

#include <functional>
#include <sstream>
#include <string>

#include "corpus.h"
#include "drape/convert/cloth_check.h"
#include "drape/exporters/cloth_export.h"
#include "drape/havok/animation.h"
#include "drape/havok/cloth.h"
#include "drape/runtime.h"
#include "drape/schema/verify.h"
#include "drcloth_corpus.h"
#include "drcloth_fixtures.h"
#include "havok_corpus.h"

using namespace drape;
namespace fb = drape::cloth_fb;

namespace {

// The runtime reads schema 2.x: the exporter's output must pass the 2.x verifier (required).
inline bool exporter_writes_2_x(const std::vector<uint8_t>& b) {
    return drape::schema::verify_cloth_file(b.data(), b.size()).ok();
}

// Packs `t`, hands it to the runtime's loader and checks that it is refused with `code` and a
// message naming `field`.
void expect_refused(const fb::ClothFileT& t, drape_result code, const std::string& field) {
    flatbuffers::FlatBufferBuilder b;
    b.Finish(fb::ClothFile::Pack(b, &t), fb::ClothFileIdentifier());
    drape_cloth_file* file = nullptr;
    drape_error e;
    const drape_result r = drape_cloth_file_load(b.GetBufferPointer(), b.GetSize(), &file, &e);
    CHECK(r == code);
    CHECK(file == nullptr);
    CHECK_MESSAGE(std::string(e.message).find(field) != std::string::npos, e.message);
    drape_cloth_file_destroy(file);
}

template <class T>
T* first_op(fb::ClothFileT& f, fb::OperatorData kind) {
    for (auto& cd : f.cloth_datas)
        for (auto& op : cd->operators)
            if (op->data.type == kind) return reinterpret_cast<T*>(op->data.value);
    return nullptr;
}

struct Case {
    const char* name;
    std::function<bool(fb::ClothFileT&)> mutate;  // false: the file has no such object
    drape_result code;
    const char* field;
};

}  // namespace

TEST_CASE("runtime loader: every index error names its field (one broken index per case)" * doctest::test_suite("corpus")) {
    REQUIRE_MESSAGE(std::filesystem::exists(test::corpus_dir()), "no corpus at " << test::corpus_dir());
    const auto bytes = test::exported_drcloth("er/game/chr/c4361.chrbnd.dcx", "_c.hkx");
    REQUIRE_MESSAGE(exporter_writes_2_x(bytes), "the exporter's output is not a schema 2.x file the runtime reads");
    const auto* root = fb::GetClothFile(bytes.data());
    const std::vector<Case> cases = {
        {"state operator", [](fb::ClothFileT& f) { f.cloth_datas[0]->cloth_state_datas[0]->operators.push_back(60000); return true; },
         DRAPE_RESULT_BAD_INDEX, "cloth_state_datas operators"},
        {"state shadow buffer",
         [](fb::ClothFileT& f) {
             auto& u = f.cloth_datas[0]->cloth_state_datas[0]->used_buffers;
             if (u.empty()) return false;
             u[0] = fb::BufferAccess(u[0].buffer_index(), u[0].triangles_read(), 999);
             return true;
         },
         DRAPE_RESULT_BAD_INDEX, "used_buffers.shadow_buffer_index"},
        {"move particles vertex",
         [](fb::ClothFileT& f) {
             auto* m = first_op<fb::MoveParticlesOperatorT>(f, fb::OperatorData::MoveParticlesOperator);
             if (!m || m->vertex_particle_pairs.empty()) return false;
             m->vertex_particle_pairs[0] = fb::VertexParticlePair(65000, m->vertex_particle_pairs[0].particle_index());
             return true;
         },
         DRAPE_RESULT_BAD_INDEX, "vertex_particle_pairs.vertex_index"},
        {"move particles particle",
         [](fb::ClothFileT& f) {
             auto* m = first_op<fb::MoveParticlesOperatorT>(f, fb::OperatorData::MoveParticlesOperator);
             if (!m || m->vertex_particle_pairs.empty()) return false;
             m->vertex_particle_pairs[0] = fb::VertexParticlePair(m->vertex_particle_pairs[0].vertex_index(), 65000);
             return true;
         },
         DRAPE_RESULT_BAD_INDEX, "vertex_particle_pairs.particle_index"},
        {"move particles buffer",
         [](fb::ClothFileT& f) {
             auto* m = first_op<fb::MoveParticlesOperatorT>(f, fb::OperatorData::MoveParticlesOperator);
             if (!m) return false;
             m->ref_buffer_index = 400;
             return true;
         },
         DRAPE_RESULT_BAD_INDEX, "ref_buffer_index"},
        {"simulate sim cloth",
         [](fb::ClothFileT& f) {
             auto* m = first_op<fb::SimulateOperatorT>(f, fb::OperatorData::SimulateOperator);
             if (!m) return false;
             m->sim_cloth_index = 77;
             return true;
         },
         DRAPE_RESULT_BAD_INDEX, "sim_cloth_index"},
        {"skin transform subset",
         [](fb::ClothFileT& f) {
             auto* m = first_op<fb::ObjectSpaceSkinOperatorT>(f, fb::OperatorData::ObjectSpaceSkinOperator);
             if (!m || m->transform_subset.empty()) return false;
             m->transform_subset[0] = 60000;
             return true;
         },
         DRAPE_RESULT_BAD_INDEX, "transform_subset"},
        {"skin bone index",
         [](fb::ClothFileT& f) {
             auto* m = first_op<fb::ObjectSpaceSkinOperatorT>(f, fb::OperatorData::ObjectSpaceSkinOperator);
             if (!m) return false;
             for (auto& b : m->deformer->blocks) b->bone_indices[0] = 60000;
             return true;
         },
         DRAPE_RESULT_BAD_INDEX, "deformer bone_indices"},
        {"skin vertex index",
         [](fb::ClothFileT& f) {
             auto* m = first_op<fb::ObjectSpaceSkinOperatorT>(f, fb::OperatorData::ObjectSpaceSkinOperator);
             if (!m) return false;
             for (auto& b : m->deformer->blocks) b->vertex_indices[3] = 60000;
             return true;
         },
         DRAPE_RESULT_BAD_INDEX, "deformer vertex_indices"},
        {"skin inverse binds",
         [](fb::ClothFileT& f) {
             auto* m = first_op<fb::ObjectSpaceSkinOperatorT>(f, fb::OperatorData::ObjectSpaceSkinOperator);
             if (!m || m->bone_from_skin_mesh_transforms.empty()) return false;
             m->bone_from_skin_mesh_transforms.pop_back();
             return true;
         },
         DRAPE_RESULT_BAD_DATA, "inverse binds"},
        {"skin local blocks",
         [](fb::ClothFileT& f) {
             auto* m = first_op<fb::ObjectSpaceSkinOperatorT>(f, fb::OperatorData::ObjectSpaceSkinOperator);
             if (!m) return false;
             m->local->packed_positions.clear();
             m->local->positions.clear();
             return true;
         },
         DRAPE_RESULT_BAD_DATA, "local positions"},
        {"copy range",
         [](fb::ClothFileT& f) {
             auto* m = first_op<fb::CopyVerticesOperatorT>(f, fb::OperatorData::CopyVerticesOperator);
             if (!m) return false;
             m->start_vertex_out = 65000;
             return true;
         },
         DRAPE_RESULT_BAD_INDEX, "copy of"},
        {"gather input",
         [](fb::ClothFileT& f) {
             auto* m = first_op<fb::GatherAllVerticesOperatorT>(f, fb::OperatorData::GatherAllVerticesOperator);
             if (!m || m->vertex_input_from_vertex_output.empty()) return false;
             m->vertex_input_from_vertex_output[0] = 32000;
             return true;
         },
         DRAPE_RESULT_BAD_INDEX, "vertex_input_from_vertex_output"},
        {"bone deform offset",
         [](fb::ClothFileT& f) {
             auto* m = first_op<fb::SimpleMeshBoneDeformOperatorT>(f, fb::OperatorData::SimpleMeshBoneDeformOperator);
             if (!m || m->triangle_bone_pairs.empty()) return false;
             m->triangle_bone_pairs[0] = fb::SimpleTriangleBonePair(64 * 1000, m->triangle_bone_pairs[0].triangle_offset());
             return true;
         },
         DRAPE_RESULT_BAD_INDEX, "bone_offset"},
        {"vertex frames reference vertex",
         [](fb::ClothFileT& f) {
             auto* m = first_op<fb::UpdateSomeVertexFramesOperatorT>(f, fb::OperatorData::UpdateSomeVertexFramesOperator);
             if (!m || m->reference_vertices.empty()) return false;
             m->reference_vertices[0] = 65000;
             return true;
         },
         DRAPE_RESULT_BAD_INDEX, "reference_vertices"},
        {"fixed particle",
         [](fb::ClothFileT& f) {
             f.cloth_datas[0]->sim_cloth_datas[0]->fixed_particles.push_back(65000);
             return true;
         },
         DRAPE_RESULT_BAD_INDEX, "fixed_particles"},
        {"format version",
         [](fb::ClothFileT& f) {
             f.format_version->major = 3;
             return true;
         },
         DRAPE_RESULT_UNSUPPORTED_VERSION, "version"},
    };
    size_t ran = 0;
    for (const auto& c : cases) {
        INFO(c.name);
        fb::ClothFileT t;
        root->UnPackTo(&t);
        if (!c.mutate(t)) {
            MESSAGE("no such object in c4361: " << c.name);
            continue;
        }
        expect_refused(t, c.code, c.field);
        ++ran;
    }
    CHECK(ran >= 15);
    // The untouched file loads.
    drape_cloth_file* file = nullptr;
    drape_error e;
    CHECK(drape_cloth_file_load(bytes.data(), bytes.size(), &file, &e) == DRAPE_RESULT_OK);
    drape_cloth_file_destroy(file);
}

TEST_CASE("runtime loader: every check of the 2014 mesh-mesh deform names its field (BB c2020_c, one broken value per case)" * doctest::test_suite("corpus")) {
    REQUIRE_MESSAGE(std::filesystem::exists(test::corpus_dir()), "no corpus at " << test::corpus_dir());
    const auto bytes = test::exported_drcloth("bb/c2020_c.hkx", "");
    REQUIRE_MESSAGE(exporter_writes_2_x(bytes), "the exporter's output is not a schema 2.x file the runtime reads");
    const auto* root = fb::GetClothFile(bytes.data());
    using Op = fb::MeshMeshDeformOperatorT;
    auto mm = [](fb::ClothFileT& f) { return first_op<Op>(f, fb::OperatorData::MeshMeshDeformOperator); };
    // The first such operator with a subset (the necklace's), for the subset cases.
    auto mm_subset = [](fb::ClothFileT& f) -> Op* {
        for (auto& cd : f.cloth_datas)
            for (auto& op : cd->operators)
                if (op->data.type == fb::OperatorData::MeshMeshDeformOperator && !op->data.AsMeshMeshDeformOperator()->input_triangles_subset.empty())
                    return op->data.AsMeshMeshDeformOperator();
        return nullptr;
    };
    auto set_triangle = [](Op* op, uint16_t t) {
        auto& p = op->triangle_vertex_pairs[0];
        p = fb::TriangleVertexPair(p.local_position(), p.local_normal(), t, p.weight());
        return true;
    };
    const std::vector<Case> cases = {
        {"input buffer", [&](fb::ClothFileT& f) { return mm(f) && (mm(f)->input_buffer_index = 99, true); }, DRAPE_RESULT_BAD_INDEX, "input_buffer_index"},
        {"output buffer", [&](fb::ClothFileT& f) { return mm(f) && (mm(f)->output_buffer_index = 99, true); }, DRAPE_RESULT_BAD_INDEX, "output_buffer_index"},
        {"end vertex", [&](fb::ClothFileT& f) { return mm(f) && (mm(f)->end_vertex = 60000, true); }, DRAPE_RESULT_BAD_INDEX, "end_vertex"},
        {"start after end", [&](fb::ClothFileT& f) { return mm(f) && (mm(f)->start_vertex = uint16_t(mm(f)->end_vertex + 1), true); }, DRAPE_RESULT_BAD_DATA,
         "after end_vertex"},
        {"start count", [&](fb::ClothFileT& f) { return mm(f) && (mm(f)->triangle_vertex_start_for_vertex.push_back(0), true); }, DRAPE_RESULT_BAD_DATA,
         "triangle_vertex_start_for_vertex has"},
        {"start above the pairs", [&](fb::ClothFileT& f) { return mm(f) && (mm(f)->triangle_vertex_start_for_vertex.back() = 60000, true); },
         DRAPE_RESULT_BAD_INDEX, "above the"},
        {"starts decreasing", [&](fb::ClothFileT& f) { return mm(f) && (mm(f)->triangle_vertex_start_for_vertex[2] = 0, mm(f)->triangle_vertex_start_for_vertex[1] = 3, true); },
         DRAPE_RESULT_BAD_DATA, "below the entry before it"},
        {"triangle", [&](fb::ClothFileT& f) { return mm(f) && set_triangle(mm(f), 60000); }, DRAPE_RESULT_BAD_INDEX,
         "triangle_vertex_pairs.triangle_index[0]"},
        {"subset triangle", [&](fb::ClothFileT& f) { return mm_subset(f) && set_triangle(mm_subset(f), 200); },
         DRAPE_RESULT_BAD_INDEX, "(into input_triangles_subset)"},
        {"subset entry", [&](fb::ClothFileT& f) { return mm_subset(f) && (mm_subset(f)->input_triangles_subset[0] = 60000, true); }, DRAPE_RESULT_BAD_INDEX,
         "input_triangles_subset[0]"},
    };
    size_t ran = 0;
    for (const auto& c : cases) {
        INFO(c.name);
        fb::ClothFileT t;
        root->UnPackTo(&t);
        REQUIRE_MESSAGE(c.mutate(t), "no such object in c2020_c");
        expect_refused(t, c.code, c.field);
        ++ran;
    }
    CHECK(ran == cases.size());
}

TEST_CASE("runtime loader: a shadow holding more vertices than the buffer it shadows is refused, through a conversion and through a state") {
    auto load = [](const std::vector<uint8_t>& bytes, std::string& message) {
        drape_cloth_file* file = nullptr;
        drape_error e{};
        const drape_result r = drape_cloth_file_load(bytes.data(), bytes.size(), &file, &e);
        drape_cloth_file_destroy(file);
        message = e.message;
        return r;
    };
    std::string message;
    REQUIRE_MESSAGE(load(test::small_drcloth(), message) == DRAPE_RESULT_OK, message);
    REQUIRE_MESSAGE(load(test::small_drcloth_with_larger_shadow(0, false), message) == DRAPE_RESULT_OK, message);
    // The input and output conversions name the display buffer and its shadow.
    CHECK(load(test::small_drcloth_with_larger_shadow(12), message) == DRAPE_RESULT_BAD_DATA);
    CHECK(message == "cloth_datas[0] 'cloth' operators[5] 'input': shadow buffer 2 holds 16 vertices, the user buffer 1 it shadows 4");
    // Only the state's redirection of the display buffer to its shadow.
    CHECK(load(test::small_drcloth_with_larger_shadow(1, false), message) == DRAPE_RESULT_BAD_DATA);
    CHECK(message == "cloth_datas[0] 'cloth': cloth_state_datas[0] used_buffers[0]: shadow buffer 2 holds 5 vertices, the buffer 1 it shadows 4");
    // drape check reports the refusal instead of calling the file clean.
    std::ostringstream out;
    CHECK_FALSE(cloth_check::check_drcloth("shadow", test::small_drcloth_with_larger_shadow(1, false), out, false));
    CHECK(out.str().find("shadow: error: runtime loader: bad data: cloth_datas[0] 'cloth': cloth_state_datas[0] used_buffers[0]") != std::string::npos);
    CHECK(out.str().find("clean") == std::string::npos);
}
