// The runtime's operators other than the skin and the bone deformers, on hand-made buffers:
// move particles (through the reference buffer's world-from-mesh), copy, gather, convert,
// vertex frames (with the bit-packed triangle flips), mesh-mesh deform (2016+ and 2014).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "rt_ops.h"

using namespace drape::rt;

namespace {

struct Buf {
    std::vector<float> p, n, t, b;
    std::vector<uint16_t> tris;
    BufferData data;
    explicit Buf(uint32_t count) : p(count * 4), n(count * 4), t(count * 4), b(count * 4) {
        data.p = p.data(), data.n = n.data(), data.t = t.data(), data.b = b.data(), data.count = count;
        data.world_from_mesh = data.mesh_from_world = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    }
    void set(uint32_t v, float x, float y, float z) { p[v * 4] = x, p[v * 4 + 1] = y, p[v * 4 + 2] = z; }
    void triangles(std::vector<uint16_t> t3) {
        tris = std::move(t3);
        data.triangles = tris.data();
        data.triangle_count = uint32_t(tris.size() / 3);
    }
};

}  // namespace

TEST_CASE("runtime move particles: the reference vertex through world-from-mesh ((c0*x + c3) + c1*y) + c2*z") {
    Buf ref(3);
    ref.set(2, 1, 2, 3);
    ref.data.world_from_mesh = {{0, 0, 1, 0, 0, 1, 0, 0, -1, 0, 0, 0, 10, 20, 30, 1}};  // 90 degrees about y, then a shift
    ref.data.world_from_mesh_identity = false;
    MoveParticlesOp op;
    op.vertices = {2};
    op.particles = {1};
    std::vector<float> xyzw(8, -7);
    Particles p{xyzw.data(), 2};
    run_move_particles(op, ref.data, p);
    CHECK(xyzw[4] == 10 - 3);
    CHECK(xyzw[5] == 22);
    CHECK(xyzw[6] == 31);
    CHECK(xyzw[7] == -7);  // w untouched
    CHECK(xyzw[0] == -7);  // other particles untouched
}

TEST_CASE("runtime copy vertices and gather copy the stated ranges and pairs") {
    Buf in(4), out(4);
    for (uint32_t v = 0; v < 4; ++v) in.set(v, float(v), float(v * 10), float(v * 100)), in.n[v * 4 + 1] = 1;
    CopyOp c{0, 0, 2, 1, 2, true};
    run_copy_vertices(c, in.data, out.data);
    CHECK(out.p[2 * 4] == 1.0f);
    CHECK(out.p[3 * 4 + 1] == 20.0f);
    CHECK(out.n[3 * 4 + 1] == 1.0f);
    CHECK(out.p[0] == 0.0f);
    GatherOp g;
    g.inputs = {3, 0};
    g.outputs = {0, 1};
    run_gather(g, in.data, out.data);
    CHECK(out.p[0 * 4 + 2] == 300.0f);
    CHECK(out.p[1 * 4 + 2] == 0.0f);
    CHECK(out.n[0 * 4 + 1] == 0.0f);  // gather without normals
}

TEST_CASE("runtime convert copies every stream of the common vertex count") {
    Buf a(3), b(2);
    a.set(1, 5, 6, 7);
    a.t[4] = 9;
    run_convert(a.data, b.data);
    CHECK(b.p[4 + 2] == 7.0f);
    CHECK(b.t[4] == 9.0f);
}

TEST_CASE("runtime update all vertex frames: area-weighted normals, the flip bit of each triangle swaps its winding") {
    Buf quad(4);
    quad.set(0, 0, 0, 0), quad.set(1, 1, 0, 0), quad.set(2, 0, 1, 0), quad.set(3, 1, 1, 0);
    quad.triangles({0, 1, 2, 1, 3, 2});
    VertexFramesOp op;
    op.num_normal_ids = 4;
    op.vert_to_normal_id = {0, 1, 2, 3};
    std::vector<float> acc(12);
    Scratch s{nullptr, 0, {acc.data(), acc.data() + 4, acc.data() + 8}, 4};
    run_vertex_frames(op, quad.data, s);
    for (uint32_t v = 0; v < 4; ++v) CHECK(quad.n[v * 4 + 2] == 1.0f);  // counter-clockwise in xy: +z
    op.triangle_flips = {0x01};  // bit 0: triangle 0 flipped
    run_vertex_frames(op, quad.data, s);
    CHECK(quad.n[0 * 4 + 2] == -1.0f);  // only in the flipped triangle
    CHECK(quad.n[3 * 4 + 2] == 1.0f);   // only in the other
    CHECK(quad.n[1 * 4 + 2] == 0.0f);   // both: the sums cancel (normalised zero stays zero)
    op.triangle_flips = {0x03};
    run_vertex_frames(op, quad.data, s);
    for (uint32_t v = 0; v < 4; ++v) CHECK(quad.n[v * 4 + 2] == -1.0f);
}

TEST_CASE("runtime update all vertex frames: tangent is the edge to the reference vertex in the normal's plane, turned by the stored angle") {
    Buf tri(3);
    tri.set(0, 0, 0, 0), tri.set(1, 2, 0, 0.5f), tri.set(2, 0, 1, 0);
    tri.triangles({0, 1, 2});
    VertexFramesOp op;
    op.num_normal_ids = 1;
    op.vert_to_normal_id = {0, 0, 0};  // one shared normal
    op.tangents = op.bitangents = true;
    op.reference_vertices = {1, 0, 0};
    op.tangent_cos = {0, 1, 1};
    op.tangent_sin = {1, 0, 0};
    op.bitangent_flip = {1, 1, -1};
    std::vector<float> acc(3);
    Scratch s{nullptr, 0, {acc.data(), acc.data() + 1, acc.data() + 2}, 1};
    run_vertex_frames(op, tri.data, s);
    const float* n = &tri.n[0];
    const float* t = &tri.t[0];
    CHECK(std::fabs((n[0] * t[0] + n[1] * t[1]) + n[2] * t[2]) < 1e-6f);  // in the plane
    CHECK(std::fabs(((t[0] * t[0] + t[1] * t[1]) + t[2] * t[2]) - 1) < 1e-6f);
    // turned 90 degrees from the edge (0 -> 1): perpendicular to it
    CHECK(std::fabs((t[0] * 2 + t[1] * 0) + t[2] * 0.5f) < 1e-5f);
    // vertex 2: bitangent = -1 * (n x t)
    const float* t2 = &tri.t[8];
    const float nxt[3] = {n[1] * t2[2] - n[2] * t2[1], n[2] * t2[0] - n[0] * t2[2], n[0] * t2[1] - n[1] * t2[0]};
    CHECK((nxt[0] * tri.b[8] + nxt[1] * tri.b[9]) + nxt[2] * tri.b[10] == doctest::Approx(-1.0f).epsilon(1e-5));
}

TEST_CASE("runtime object-space mesh-mesh deform: at the bind pose (triangle frame times its inverse) a vertex is its local position") {
    Buf in(3), out(16);
    in.set(0, 0.1f, 0.2f, 0.3f), in.set(1, 0.5f, 0.2f, 0.3f), in.set(2, 0.1f, 0.6f, 0.35f);
    in.triangles({0, 1, 2});
    const Mat4 f = triangle_frame(in.data, 0);
    // The bind: the inverse of the triangle's frame, by cofactors (test-side arithmetic in double).
    double m[9] = {f.m[0], f.m[4], f.m[8], f.m[1], f.m[5], f.m[9], f.m[2], f.m[6], f.m[10]};  // row-major
    const double det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6]);
    REQUIRE(det != 0);
    double inv[9] = {(m[4] * m[8] - m[5] * m[7]) / det, (m[2] * m[7] - m[1] * m[8]) / det, (m[1] * m[5] - m[2] * m[4]) / det,
                     (m[5] * m[6] - m[3] * m[8]) / det, (m[0] * m[8] - m[2] * m[6]) / det, (m[2] * m[3] - m[0] * m[5]) / det,
                     (m[3] * m[7] - m[4] * m[6]) / det, (m[1] * m[6] - m[0] * m[7]) / det, (m[0] * m[4] - m[1] * m[3]) / det};
    Mat4 bind{};
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r) bind.m[c * 4 + r] = float(inv[r * 3 + c]);
    for (int r = 0; r < 3; ++r) bind.m[12 + r] = float(-(inv[r * 3] * f.m[12] + inv[r * 3 + 1] * f.m[13] + inv[r * 3 + 2] * f.m[14]));
    bind.m[15] = 1;
    DeformOp op;
    op.streams = k_stream_p;
    op.subset = {0};
    op.binds = {bind};
    DeformBlock blk{};
    blk.blends = 1;
    blk.vertex_count = 16;
    for (int j = 0; j < 16; ++j) {
        blk.vertices[j] = uint16_t(j), blk.bones[j] = 0;
        op.local_p.x.push_back(0.01f * j), op.local_p.y.push_back(0.5f), op.local_p.z.push_back(-0.2f), op.local_p.w.push_back(1);
    }
    op.blocks.push_back(blk);
    Mat4 sm[1];
    Scratch s{sm, 1, {nullptr, nullptr, nullptr}, 0};
    run_object_space_mesh_mesh_deform(op, in.data, out.data, s);
    for (int j = 0; j < 16; ++j) {
        CHECK(out.p[j * 4] == doctest::Approx(0.01f * j).epsilon(1e-4));
        CHECK(out.p[j * 4 + 1] == doctest::Approx(0.5f).epsilon(1e-4));
        CHECK(out.p[j * 4 + 2] == doctest::Approx(-0.2f).epsilon(1e-4));
    }
}

TEST_CASE("runtime bone-space skin: each influence's local vector (weight in w) through its bone, summed") {
    DeformOp op;
    op.streams = k_stream_p;
    op.subset = {0, 1};
    DeformBlock blk{};
    blk.blends = 2;
    blk.vertex_count = 8;
    for (int j = 0; j < 8; ++j) {
        blk.vertices[j] = uint16_t(j);
        blk.bones[j * 2] = 0, blk.bones[j * 2 + 1] = 1;
    }
    op.blocks.push_back(blk);
    for (int i = 0; i < 16; ++i) {
        const float w = (i % 2) ? 0.25f : 0.75f;
        op.local_p.x.push_back(1 * w), op.local_p.y.push_back(2 * w), op.local_p.z.push_back(3 * w), op.local_p.w.push_back(w);
    }
    Mat4 bones[2] = {{{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 10, 0, 0, 1}}, {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 20, 0, 1}}};
    Transforms ts{bones, 2};
    Buf out(8);
    Mat4 sm[2];
    Scratch s{sm, 2, {nullptr, nullptr, nullptr}, 0};
    run_bone_space_skin(op, ts, out.data, s);
    CHECK(out.p[0] == 1 + 0.75f * 10);
    CHECK(out.p[1] == 2 + 0.25f * 20);
    CHECK(out.p[2] == 3);
}

TEST_CASE("runtime 2014 mesh-mesh deform: weighted points in centroid triangle frames (c0 = a - g, c1 = b - g, c2 = c0 x c1), normals unnormalised, vertices without pairs left") {
    // Worked by hand. Input: a = (0,0,0), b = (3,0,0), c = (0,3,0), d = (0,0,3).
    //  triangle 0 (a, b, c): g = (1,1,0), c0 = (-1,-1,0), c1 = (2,-1,0), c2 = (0,0,3);
    //    local (0.5, 0.25, 2) -> g + 0.5 c0 + 0.25 c1 + 2 c2 = (1, 0.25, 6); local normal (1,0,0) -> (-1,-1,0)
    //  triangle 1 (a, b, d): g = (1,0,1), c0 = (-1,0,-1), c1 = (2,0,-1), c2 = (0,-3,0);
    //    local (1, 0, 0.5) -> g + c0 + 0.5 c2 = (0, -1.5, 0); local normal (0,0,1) -> (0,-3,0)
    //  weights 0.75 and 0.25: point (0.75, -0.1875, 4.5), normal (-0.75, -1.5, 0) (length 1.68: kept).
    Buf in(4), out(3);
    in.set(0, 0, 0, 0), in.set(1, 3, 0, 0), in.set(2, 0, 3, 0), in.set(3, 0, 0, 3);
    in.triangles({0, 1, 2, 0, 1, 3});
    for (uint32_t v = 0; v < 3; ++v) out.set(v, 7, 7, 7), out.n[v * 4] = out.n[v * 4 + 1] = out.n[v * 4 + 2] = 7;
    MeshMeshDeform2014Op op;
    op.start_vertex = 1;
    op.first_pair = {0, 2, 2};  // vertex 1: pairs 0 and 1; vertex 2: none
    op.triangle = {0, 1};
    op.local_p = {0.5f, 0.25f, 2.0f, 0.75f, 1.0f, 0.0f, 0.5f, 0.25f};  // x, y, z, weight per pair
    op.local_n = {1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f};
    op.normals = true;
    index_frames(op, 2);
    std::vector<Mat4> frames(op.frames.size());
    Scratch scratch{frames.data(), uint32_t(frames.size()), {nullptr, nullptr, nullptr}, 0};
    run_mesh_mesh_deform_2014(op, in.data, out.data, scratch);
    CHECK(out.p[4] == 0.75f);
    CHECK(out.p[5] == -0.1875f);
    CHECK(out.p[6] == 4.5f);
    CHECK(out.n[4] == -0.75f);
    CHECK(out.n[5] == -1.5f);
    CHECK(out.n[6] == 0.0f);
    for (uint32_t v : {0u, 2u}) {  // outside the range / without pairs: untouched
        CHECK(out.p[v * 4] == 7.0f);
        CHECK(out.n[v * 4] == 7.0f);
    }
    op.normals = false;
    out.n[4] = 5;
    run_mesh_mesh_deform_2014(op, in.data, out.data, scratch);
    CHECK(out.n[4] == 5.0f);  // deformNormals off: normals not written
}
