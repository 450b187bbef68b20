// The triangle frame of the mesh-mesh deforms, checked on the corpus. 2014 (DS3, BB): every
// hclMeshMeshDeformOperator of BB c2020_c and DS3 c1400, loaded by the runtime, run on its input sim buffer at the sim cloth's
// rest pose. The expected point of an output vertex is computed here, in double, from each of
// its pairs separately: that all pairs of a vertex give one point is what fixes the frame (the
// file's local coordinates are only consistent in the centroid frame), and the runtime's blend
// must land on it.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>

#include "corpus.h"
#include "drape/exporters/cloth_export.h"
#include "drape/havok/animation.h"
#include "drape/havok/cloth.h"
#include "drape/runtime.h"
#include "drcloth_corpus.h"
#include "havok_corpus.h"
#include "rt_instance.h"

using namespace drape;
using namespace drape::rt;

namespace {

struct D3 {
    double x, y, z;
};
D3 operator-(D3 a, D3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
D3 cross(D3 a, D3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
double dist(D3 a, D3 b) { return std::sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z)); }

}  // namespace

TEST_CASE("runtime 2014 mesh-mesh deform on BB c2020_c and DS3 c1400: at the rest pose every pair of a vertex gives one point and the runtime's blend is it" * doctest::test_suite("corpus")) {
    REQUIRE_MESSAGE(std::filesystem::exists(test::corpus_dir()), "no corpus at " << test::corpus_dir());
    size_t ops = 0, vertices = 0;
    for (const auto& [file, member] : {std::pair{"bb/c2020_c.hkx", ""}, std::pair{"ds3/c1400.chrbnd.dcx", "_c.hkx"}}) {
        const char* const file_name = file;  // clang 14 cannot capture a structured binding in INFO
        const auto bytes = test::exported_drcloth(file, member);
        drape_cloth_file* raw = nullptr;
        drape_error err{};
        REQUIRE_MESSAGE(drape_cloth_file_load(bytes.data(), bytes.size(), &raw, &err) == DRAPE_RESULT_OK, err.message);
        std::unique_ptr<drape_cloth_file, void (*)(drape_cloth_file*)> guard(raw, drape_cloth_file_destroy);
        for (const ClothModel& cm : raw->model.cloths) {
            for (const Operator& o : cm.operators) {
                if (o.kind != OpKind::mesh_mesh_deform_2014) continue;
                const MeshMeshDeform2014Op& op = cm.mesh_mesh_2014[o.payload];
                const BufferDef& in_def = cm.buffers[op.input_buffer];
                INFO(std::string(file_name) << " " << cm.name << " " << o.name);
                REQUIRE(in_def.sim >= 0);  // every one of them reads the sim cloth's particles
                const SimCloth& sc = cm.sims[size_t(in_def.sim)];
                std::vector<float> in_p(size_t(sc.particle_count) * 4), out_p(size_t(cm.buffers[op.output_buffer].num_vertices) * 4, 0.0f),
                    out_n(out_p.size(), 0.0f);
                for (uint32_t i = 0; i < sc.particle_count; ++i) in_p[i * 4] = sc.rest_x[i], in_p[i * 4 + 1] = sc.rest_y[i], in_p[i * 4 + 2] = sc.rest_z[i];
                BufferData in, out;
                in.p = in_p.data(), in.count = sc.particle_count;
                in.triangles = in_def.triangles.data(), in.triangle_count = uint32_t(in_def.triangles.size() / 3);
                REQUIRE(in.triangle_count > 0);
                out.p = out_p.data(), out.n = out_n.data(), out.count = cm.buffers[op.output_buffer].num_vertices;
                std::vector<Mat4> frames(op.frames.size());
                Scratch scratch{frames.data(), uint32_t(frames.size()), {nullptr, nullptr, nullptr}, 0};
                run_mesh_mesh_deform_2014(op, in, out, scratch);
                auto rest = [&](uint32_t i) { return D3{sc.rest_x[i], sc.rest_y[i], sc.rest_z[i]}; };
                double worst_spread = 0, worst_blend = 0, worst_normal = 0;
                for (size_t v = 0; v + 1 < op.first_pair.size(); ++v) {
                    if (op.first_pair[v] == op.first_pair[v + 1]) continue;
                    std::vector<D3> points;
                    for (uint32_t k = op.first_pair[v]; k < op.first_pair[v + 1]; ++k) {
                        const uint16_t* t = &in_def.triangles[size_t(op.triangle[k]) * 3];
                        const D3 a = rest(t[0]), b = rest(t[1]), c = rest(t[2]);
                        const D3 g{(a.x + b.x + c.x) / 3, (a.y + b.y + c.y) / 3, (a.z + b.z + c.z) / 3};
                        const D3 e1 = a - g, e2 = b - g, n = cross(e1, e2);
                        const float* l = &op.local_p[size_t(k) * 4];
                        points.push_back({g.x + l[0] * e1.x + l[1] * e2.x + l[2] * n.x, g.y + l[0] * e1.y + l[1] * e2.y + l[2] * n.y,
                                          g.z + l[0] * e1.z + l[1] * e2.z + l[2] * n.z});
                    }
                    for (const D3& q : points) worst_spread = std::max(worst_spread, dist(q, points[0]));
                    const size_t o4 = (op.start_vertex + v) * 4;
                    worst_blend = std::max(worst_blend, dist(D3{out_p[o4], out_p[o4 + 1], out_p[o4 + 2]}, points[0]));
                    if (op.normals)  // at the rest pose the blended normal is unit to the files' 1%
                        worst_normal = std::max(worst_normal, std::fabs(std::sqrt(double(out_n[o4]) * out_n[o4] + double(out_n[o4 + 1]) * out_n[o4 + 1] +
                                                                                  double(out_n[o4 + 2]) * out_n[o4 + 2]) - 1.0));
                    ++vertices;
                }
                CHECK(worst_spread < 2e-5);  // measured at most 1.2e-5 m
                CHECK(worst_blend < 2e-5);
                CHECK(worst_normal < 0.015);  // measured at most 0.012
                ++ops;
            }
        }
    }
    CHECK(ops >= 13);  // 7 in c2020_c, 6 in c1400
    CHECK(vertices >= 3000);
}

TEST_CASE("runtime object-space mesh-mesh deform on the corpus: the triangle frame at the sim rest pose times the file's triangle-from-mesh transform is the identity" * doctest::test_suite("corpus")) {
    // The file's transforms are the inverses of Havok's frames at the bind: with the runtime's
    // frame their product must be the identity (the expected value), whatever the frame formula.
    REQUIRE_MESSAGE(std::filesystem::exists(test::corpus_dir()), "no corpus at " << test::corpus_dir());
    size_t ops = 0, triangles = 0;
    for (const auto& [file, member] : {std::pair{"er/game/chr/c5000.chrbnd.dcx", "_c.hkx"}, std::pair{"er/game/chr/c4361.chrbnd.dcx", "_c.hkx"},
                                       std::pair{"ds3/bd_m_11010.partsbnd.dcx", "_c.hkx"}, std::pair{"er/HD_M_3005_c.hkx", ""}}) {
        const char* const file_name = file;  // clang 14 cannot capture a structured binding in INFO
        const auto bytes = test::exported_drcloth(file, member);
        drape_cloth_file* raw = nullptr;
        drape_error err{};
        REQUIRE_MESSAGE(drape_cloth_file_load(bytes.data(), bytes.size(), &raw, &err) == DRAPE_RESULT_OK, err.message);
        std::unique_ptr<drape_cloth_file, void (*)(drape_cloth_file*)> guard(raw, drape_cloth_file_destroy);
        for (const ClothModel& cm : raw->model.cloths)
            for (const Operator& o : cm.operators) {
                if (o.kind != OpKind::object_space_mesh_mesh_deform) continue;
                const DeformOp& op = cm.deforms[o.payload];
                const BufferDef& in_def = cm.buffers[op.input_buffer];
                INFO(std::string(file_name) << " " << cm.name << " " << o.name);
                REQUIRE(in_def.sim >= 0);
                const SimCloth& sc = cm.sims[size_t(in_def.sim)];
                std::vector<float> p(size_t(sc.particle_count) * 4);
                for (uint32_t i = 0; i < sc.particle_count; ++i) p[i * 4] = sc.rest_x[i], p[i * 4 + 1] = sc.rest_y[i], p[i * 4 + 2] = sc.rest_z[i];
                BufferData in;
                in.p = p.data(), in.count = sc.particle_count;
                in.triangles = in_def.triangles.data(), in.triangle_count = uint32_t(in_def.triangles.size() / 3);
                double worst = 0;
                for (size_t j = 0; j < op.subset.size(); ++j) {
                    const Mat4 f = triangle_frame(in, op.subset[j]);
                    const Mat4& b = op.binds[j];
                    for (int c = 0; c < 4; ++c)
                        for (int r = 0; r < 4; ++r) {
                            double v = 0;  // (f * b)[r][c], in double
                            for (int k = 0; k < 4; ++k) v += double(f.m[k * 4 + r]) * b.m[c * 4 + k];
                            worst = std::max(worst, std::fabs(v - (r == c ? 1.0 : 0.0)));
                        }
                    ++triangles;
                }
                CHECK(worst < 1e-4);  // measured at most 1.2e-6 (HD_M_3005 3.5e-5); the frame a, b - a, c - a is off by 6 to 15
                ++ops;
            }
    }
    CHECK(ops >= 13);
    CHECK(triangles >= 100);
}
