// The runtime's per-vertex kernels against their scalar forms, bit for bit: the vertex frames
// (normals scattered per triangle or read through the per-id index, tangents and bitangents four
// vertices at a time) and the skin
// blends (each matrix column as one four-lane vector). The scalar forms are written here, one
// expression per component in the order docs/runtime.md gives, on pseudo-random meshes, weights
// and matrices (a fixed seed), so a kernel that reorders a sum or fuses a product fails.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "rt_ops.h"
#include "solver/solver.h"

using namespace drape::rt;

namespace {

bool same_bits(float a, float b) { return std::memcmp(&a, &b, 4) == 0; }

struct Mesh {
    uint32_t count;
    std::vector<float> p, n, t, b;
    std::vector<uint16_t> tris;
    BufferData data;
    Mesh(uint32_t vertices, uint32_t triangles, std::mt19937& rng) : count(vertices), p(vertices * 4), n(vertices * 4), t(vertices * 4), b(vertices * 4) {
        std::uniform_real_distribution<float> coord(-1.0f, 1.0f);
        for (auto& x : p) x = coord(rng);
        for (auto& x : n) x = coord(rng);  // read as the buffer's normals where the operator keeps them
        std::uniform_int_distribution<uint32_t> vertex(0, vertices - 1);
        for (uint32_t i = 0; i < triangles * 3; ++i) tris.push_back(uint16_t(vertex(rng)));
        data.p = p.data(), data.n = n.data(), data.t = t.data(), data.b = b.data(), data.count = vertices;
        data.triangles = tris.data(), data.triangle_count = triangles;
        data.world_from_mesh = data.mesh_from_world = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    }
};

// The scalar form of update-all vertex frames (normal id per vertex: the operator's map, or the
// vertex itself).
void frames_scalar(const VertexFramesOp& op, Mesh& m) {
    const bool mapped = !op.vert_to_normal_id.empty();
    const uint32_t ids = mapped ? op.num_normal_ids : m.count;
    auto id_of = [&](uint32_t v) { return mapped ? uint32_t(op.vert_to_normal_id[v]) : v; };
    std::vector<float> ax(ids, 0.0f), ay(ids, 0.0f), az(ids, 0.0f);
    for (uint32_t tri = 0; tri < m.data.triangle_count; ++tri) {
        uint32_t l[3] = {m.tris[tri * 3], m.tris[tri * 3 + 1], m.tris[tri * 3 + 2]};
        if (tri / 8 < op.triangle_flips.size() && ((op.triangle_flips[tri / 8] >> (tri % 8)) & 1u)) std::swap(l[1], l[2]);
        const float* a = &m.p[l[0] * 4];
        const float* bb = &m.p[l[1] * 4];
        const float* c = &m.p[l[2] * 4];
        const float e1x = bb[0] - a[0], e1y = bb[1] - a[1], e1z = bb[2] - a[2];
        const float e2x = c[0] - a[0], e2y = c[1] - a[1], e2z = c[2] - a[2];
        const float nx = e1y * e2z - e1z * e2y, ny = e1z * e2x - e1x * e2z, nz = e1x * e2y - e1y * e2x;
        for (uint32_t k : l) ax[id_of(k)] = ax[id_of(k)] + nx, ay[id_of(k)] = ay[id_of(k)] + ny, az[id_of(k)] = az[id_of(k)] + nz;
    }
    for (uint32_t i = 0; i < ids; ++i) {
        const float l2 = (ax[i] * ax[i] + ay[i] * ay[i]) + az[i] * az[i];
        const float inv = l2 > 0 ? 1.0f / std::sqrt(l2) : 0.0f;
        ax[i] = ax[i] * inv, ay[i] = ay[i] * inv, az[i] = az[i] * inv;
    }
    for (uint32_t v = 0; v < m.count; ++v) {
        float* nv = &m.n[v * 4];
        if (op.normals) nv[0] = ax[id_of(v)], nv[1] = ay[id_of(v)], nv[2] = az[id_of(v)];
        if (!op.tangents || v >= op.reference_vertices.size()) continue;
        const float nx = nv[0], ny = nv[1], nz = nv[2];
        const float* pr = &m.p[op.reference_vertices[v] * 4];
        const float* pv = &m.p[v * 4];
        float ex = pr[0] - pv[0], ey = pr[1] - pv[1], ez = pr[2] - pv[2];
        const float d = (ex * nx + ey * ny) + ez * nz;
        ex = ex - nx * d, ey = ey - ny * d, ez = ez - nz * d;
        const float l2 = (ex * ex + ey * ey) + ez * ez;
        const float inv = l2 > 0 ? 1.0f / std::sqrt(l2) : 0.0f;
        ex = ex * inv, ey = ey * inv, ez = ez * inv;
        const float nex = ny * ez - nz * ey, ney = nz * ex - nx * ez, nez = nx * ey - ny * ex;
        const float c = op.tangent_cos[v], s = op.tangent_sin[v];
        const float tx = ex * c + nex * s, ty = ey * c + ney * s, tz = ez * c + nez * s;
        m.t[v * 4] = tx, m.t[v * 4 + 1] = ty, m.t[v * 4 + 2] = tz;
        if (op.bitangents && v < op.bitangent_flip.size()) {
            const float f = op.bitangent_flip[v];
            m.b[v * 4] = (ny * tz - nz * ty) * f, m.b[v * 4 + 1] = (nz * tx - nx * tz) * f, m.b[v * 4 + 2] = (nx * ty - ny * tx) * f;
        }
    }
}

void check_same(const std::vector<float>& a, const std::vector<float>& b, const char* stream) {
    size_t differ = 0;
    for (size_t i = 0; i < a.size(); ++i) differ += !same_bits(a[i], b[i]);
    INFO(stream);
    CHECK(differ == 0);
}

}  // namespace

TEST_CASE("runtime kernels: vertex frames four and eight vertices at a time equal their scalar form bit for bit") {
    std::mt19937 rng(7);
    for (uint32_t vertices : {3u, 4u, 5u, 31u, 64u, 257u}) {
        // Variants 4..7: 0..3 with eight-lane frames where the CPU has AVX2; 8..15: 0..7 with
        // vertices sharing normal ids (a map, so the lanes' ids are not consecutive).
        for (int variant = 0; variant < 16; ++variant) {
            const uint8_t lanes = variant % 8 < 4 ? 4 : 8;
            Mesh a(vertices, vertices * 2 + vertices % 2, rng);  // an odd triangle count for odd vertex counts
            // Odd variants: the second half of the triangles repeats the first (as update some
            // lists its triangles), flipped or not as the random flips fall; a repeat with the
            // same corners in the same order shares its first use's normal.
            const bool repeats = variant % 2 == 1;
            const uint32_t half = a.data.triangle_count / 2;
            if (repeats)
                for (uint32_t i = 3 * (a.data.triangle_count - half); i < 3 * a.data.triangle_count; ++i)
                    a.tris[i] = a.tris[i - 3 * (a.data.triangle_count - half)];
            Mesh b = a;
            b.data.p = b.p.data(), b.data.n = b.n.data(), b.data.t = b.t.data(), b.data.b = b.b.data(), b.data.triangles = b.tris.data();
            VertexFramesOp op;
            op.normals = variant % 4 != 1;     // 1: the buffer's own normals are read
            op.tangents = variant % 4 != 2;    // 2: normals only
            op.bitangents = variant % 4 != 3;  // 3: no bitangents
            op.num_normal_ids = vertices;
            if (variant >= 8) {
                op.num_normal_ids = vertices / 2 + 1;
                for (uint32_t v = 0; v < vertices; ++v) op.vert_to_normal_id.push_back(uint16_t((v * 7 + v / 3) % op.num_normal_ids));
            }
            std::uniform_int_distribution<uint32_t> vertex(0, vertices - 1);
            std::uniform_real_distribution<float> angle(-3.0f, 3.0f);
            // Fewer frame entries than vertices in one variant: the rest take normals only.
            const uint32_t framed = variant % 4 == 0 ? vertices - vertices / 3 : vertices;
            for (uint32_t v = 0; v < framed; ++v) {
                // Some reference vertices are the vertex itself: a zero edge, the l2 > 0 branch.
                op.reference_vertices.push_back(uint16_t(v % 7 == 0 ? v : vertex(rng)));
                const float x = angle(rng);
                op.tangent_cos.push_back(std::cos(x)), op.tangent_sin.push_back(std::sin(x));
                op.bitangent_flip.push_back(v % 2 ? 1.0f : -1.0f);
            }
            for (uint32_t i = 0; i < (a.data.triangle_count + 7) / 8; ++i) op.triangle_flips.push_back(uint8_t(rng()));
            Mesh c = a;  // the indexed sums (VertexFramesOp::id_first) on the same mesh
            c.data.p = c.p.data(), c.data.n = c.n.data(), c.data.t = c.t.data(), c.data.b = c.b.data(), c.data.triangles = c.tris.data();
            std::vector<float> acc(size_t(vertices) * 3);
            std::vector<drape::solver::Float4> tri(a.data.triangle_count + 1);  // x, y, z, w per triangle and the pad, 16-byte aligned
            Scratch s{nullptr, 0, {acc.data(), acc.data() + vertices, acc.data() + 2 * vertices}, vertices};
            s.max_lanes = lanes;
            run_vertex_frames(op, a.data, s);
            frames_scalar(op, b);
            VertexFramesOp indexed = op;
            index_normal_sums(indexed, c.tris.data(), c.data.triangle_count);
            if (repeats && half >= 8) CHECK(indexed.corners.size() / 3 < c.data.triangle_count);  // shared normals
            Scratch si = s;
            const uint32_t nt = c.data.triangle_count;
            si.triangle_normals = &tri[0].x;
            si.triangle_capacity = nt;
            run_vertex_frames(indexed, c.data, si, c.tris.data());
            CAPTURE(vertices);
            CAPTURE(variant);
            check_same(a.n, b.n, "normals");
            check_same(a.t, b.t, "tangents");
            check_same(a.b, b.b, "bitangents");
            check_same(c.n, b.n, "normals, indexed sums");
            check_same(c.t, b.t, "tangents, indexed sums");
            check_same(c.b, b.b, "bitangents, indexed sums");
        }
    }
}

TEST_CASE("runtime kernels: indexed normal sums of an operator with more than 65,535 distinct triangles sum id by id, with the scalar form's bits") {
    // The grouped sums name triangles in sixteen bits; past that the operator keeps no groups.
    std::mt19937 rng(11);
    const uint32_t vertices = 40000, triangles = 70000;
    Mesh a(vertices, triangles, rng);
    Mesh b = a;
    b.data.p = b.p.data(), b.data.n = b.n.data(), b.data.t = b.t.data(), b.data.b = b.b.data(), b.data.triangles = b.tris.data();
    VertexFramesOp op;
    op.normals = true;
    op.num_normal_ids = vertices;
    VertexFramesOp indexed = op;
    index_normal_sums(indexed, a.tris.data(), a.data.triangle_count);
    REQUIRE(indexed.corners.size() / 3 > 65535);
    CHECK(indexed.group_first.empty());
    CHECK(indexed.group_triangles.empty());
    std::vector<float> acc(size_t(vertices) * 3);
    std::vector<drape::solver::Float4> tri(a.data.triangle_count + 1);
    Scratch s{nullptr, 0, {acc.data(), acc.data() + vertices, acc.data() + 2 * vertices}, vertices};
    s.triangle_normals = &tri[0].x;
    s.triangle_capacity = a.data.triangle_count;
    run_vertex_frames(indexed, a.data, s, a.tris.data());
    frames_scalar(op, b);
    check_same(a.n, b.n, "normals, indexed sums without groups");
}

namespace {

Mat4 random_matrix(std::mt19937& rng) {
    std::uniform_real_distribution<float> x(-2.0f, 2.0f);
    Mat4 m;
    for (float& v : m.m) v = x(rng);
    m.m[3] = m.m[7] = m.m[11] = 0, m.m[15] = 1;
    return m;
}

// A deform of `blocks` blocks of 16 vertices (the last short), `blends` influences each, over
// `bones` matrices, with random local vectors and weights.
DeformOp random_deform(std::mt19937& rng, uint32_t blocks, uint8_t blends, uint32_t bones) {
    DeformOp op;
    op.streams = k_stream_p | k_stream_n | k_stream_t | k_stream_b;
    std::uniform_real_distribution<float> x(-1.0f, 1.0f);
    std::uniform_int_distribution<uint32_t> bone(0, bones - 1), byte(0, 255), word(0, 65535);
    for (uint32_t k = 0; k < blocks; ++k) {
        DeformBlock blk{};
        blk.local = k;
        blk.blends = blends;
        blk.vertex_count = uint8_t(k + 1 == blocks ? 11 : 16);
        for (uint32_t j = 0; j < 16; ++j) blk.vertices[j] = uint16_t(k * 16 + j);
        for (uint32_t i = 0; i < 128; ++i) blk.bones[i] = uint16_t(bone(rng)), blk.weights[i] = uint16_t(blends <= 4 ? byte(rng) : word(rng));
        op.blocks.push_back(blk);
        for (LocalStream* ls : {&op.local_p, &op.local_n, &op.local_t, &op.local_b})
            for (uint32_t i = 0; i < 16 * 8; ++i) ls->x.push_back(x(rng)), ls->y.push_back(x(rng)), ls->z.push_back(x(rng)), ls->w.push_back(x(rng));
    }
    for (uint32_t i = 0; i < bones; ++i) op.subset.push_back(uint16_t(i)), op.binds.push_back(random_matrix(rng));
    return op;
}

float weight_of(const DeformBlock& b, uint32_t k) {
    return b.blends <= 4 ? float(b.weights[k]) * (1.0f / 255.0f) : float(b.weights[k]) * (1.0f / 65535.0f);
}

// The object-space blend's scalar form over composites `comp` (one per subset entry): the blend
// adds M*w in bone order (a one-blend vertex takes its matrix); a point is ((c0*x + c3) + c1*y) +
// c2*z, a direction (c0*x + c1*y) + c2*z. The entries of `out` that differ from it (and w changed).
size_t object_blend_differences(const DeformOp& op, const std::vector<Mat4>& comp, const Mesh& out, const std::vector<float>& before_w) {
    size_t differ = 0;
    for (const DeformBlock& blk : op.blocks) {
        const uint32_t blends = blk.blends;
        for (uint32_t j = 0; j < blk.vertex_count; ++j) {
            const uint32_t v = blk.vertices[j], li = blk.local * 16 + j;
            for (int r = 0; r < 3; ++r) {
                float col[4];
                for (int c = 0; c < 4; ++c) {
                    if (blends == 1) {
                        col[c] = comp[blk.bones[j]].m[c * 4 + r];
                        continue;
                    }
                    float acc = comp[blk.bones[j * blends]].m[c * 4 + r] * weight_of(blk, j * blends);
                    for (uint32_t i = 1; i < blends; ++i) acc = acc + comp[blk.bones[j * blends + i]].m[c * 4 + r] * weight_of(blk, j * blends + i);
                    col[c] = acc;
                }
                const float point = ((col[0] * op.local_p.x[li] + col[3]) + col[1] * op.local_p.y[li]) + col[2] * op.local_p.z[li];
                differ += !same_bits(out.p[v * 4 + r], point);
                const LocalStream* dirs[3] = {&op.local_n, &op.local_t, &op.local_b};
                const std::vector<float>* outs[3] = {&out.n, &out.t, &out.b};
                for (int q = 0; q < 3; ++q) {
                    const float dir = (col[0] * dirs[q]->x[li] + col[1] * dirs[q]->y[li]) + col[2] * dirs[q]->z[li];
                    differ += !same_bits((*outs[q])[v * 4 + r], dir);
                }
            }
            differ += !same_bits(out.p[v * 4 + 3], before_w[v * 4 + 3]);  // w left alone
        }
    }
    return differ;
}

}  // namespace

TEST_CASE("runtime kernels: the skin blends in four lanes, two vertices per eight lanes and four per sixteen equal the row-by-row scalar form bit for bit") {
    std::mt19937 rng(11);
    const uint32_t bones = 9;
    std::vector<Mat4> set;
    for (uint32_t i = 0; i < bones; ++i) set.push_back(random_matrix(rng));
    Transforms ts{set.data(), bones};
    // Variant 5: one influence and one bone for every vertex of a block (eight vertices a
    // register where the CPU has AVX2, in bone space). Variant 6: four influences, the output
    // vertices scattered over the mesh (no four of a block neighbours: one store a vertex).
    for (int variant = 0; variant < 7; ++variant) {
        const uint8_t blends = variant < 5 ? std::array<uint8_t, 5>{1, 2, 3, 4, 8}[size_t(variant)] : (variant == 5 ? 1 : 4);
        CAPTURE(variant);
        DeformOp op = random_deform(rng, 3, blends, bones);
        if (variant == 5)
            for (DeformBlock& blk : op.blocks)
                for (uint16_t& b : blk.bones) b = blk.bones[0];
        if (variant == 6)
            for (DeformBlock& blk : op.blocks)
                for (uint32_t j = 0; j < 16; ++j) blk.vertices[j] = uint16_t((blk.vertices[j] * 7 + 5) % 48);  // 7 is prime to 48
        const uint32_t nv = 3 * 16;
        std::vector<Mat4> scratch(bones);
        Scratch s{scratch.data(), bones, {nullptr, nullptr, nullptr}, 0};
        // 8: two vertices per AVX2 register, 16: four per AVX-512 register, where the CPU has them.
        for (uint8_t lanes : {uint8_t(4), uint8_t(8), uint8_t(16)}) {
            CAPTURE(int(lanes));
            s.max_lanes = lanes;

            // Object space: composite = B x bind ((B.c0*x + B.c1*y) + B.c2*z per column, the
            // translation ((B.c0*x + B.c3) + B.c1*y) + B.c2*z); the blend adds M*w in bone order (a
            // one-blend vertex takes its matrix); a point is ((c0*x + c3) + c1*y) + c2*z, a direction
            // (c0*x + c1*y) + c2*z.
            {
                Mesh out(nv, 0, rng);
                const std::vector<float> before_w = out.p;
                run_object_space_skin(op, ts, out.data, s);
                std::vector<Mat4> comp(bones);
                for (uint32_t j = 0; j < bones; ++j) {
                    const Mat4& b = set[j];
                    const Mat4& i = op.binds[j];
                    for (int c = 0; c < 3; ++c)
                        for (int k = 0; k < 4; ++k) comp[j].m[c * 4 + k] = (b.m[k] * i.m[c * 4] + b.m[4 + k] * i.m[c * 4 + 1]) + b.m[8 + k] * i.m[c * 4 + 2];
                    for (int k = 0; k < 4; ++k) comp[j].m[12 + k] = ((b.m[k] * i.m[12] + b.m[12 + k]) + b.m[4 + k] * i.m[13]) + b.m[8 + k] * i.m[14];
                }
                CHECK(object_blend_differences(op, comp, out, before_w) == 0);
            }

            // Bone space: point = sum over influences, from +0, of ((c0*x + c1*y) + c2*z) + c3*w;
            // normal and tangent the same without c3.
            {
                Mesh out(nv, 0, rng);
                const std::vector<float> before_w = out.p;
                run_bone_space_skin(op, ts, out.data, s);
                size_t differ = 0;
                for (const DeformBlock& blk : op.blocks)
                    for (uint32_t j = 0; j < blk.vertex_count; ++j) {
                        const uint32_t v = blk.vertices[j];
                        for (int r = 0; r < 3; ++r) {
                            float p = 0, n = 0, t = 0;
                            for (uint32_t i = 0; i < blends; ++i) {
                                const uint32_t li = blk.local * 16 + j * blends + i;
                                const Mat4& b = set[blk.bones[j * blends + i]];
                                p = p + (((b.m[r] * op.local_p.x[li] + b.m[4 + r] * op.local_p.y[li]) + b.m[8 + r] * op.local_p.z[li]) + b.m[12 + r] * op.local_p.w[li]);
                                n = n + ((b.m[r] * op.local_n.x[li] + b.m[4 + r] * op.local_n.y[li]) + b.m[8 + r] * op.local_n.z[li]);
                                t = t + ((b.m[r] * op.local_t.x[li] + b.m[4 + r] * op.local_t.y[li]) + b.m[8 + r] * op.local_t.z[li]);
                            }
                            differ += !same_bits(out.p[v * 4 + r], p) + !same_bits(out.n[v * 4 + r], n) + !same_bits(out.t[v * 4 + r], t);
                        }
                        differ += !same_bits(out.p[v * 4 + 3], before_w[v * 4 + 3]);  // w left alone
                    }
                CHECK(differ == 0);
            }
        }
    }
}

TEST_CASE("runtime kernels: the object-space mesh-mesh deform (composites of triangle frames and binds, then the blend) in four, eight and sixteen lanes equals the row-by-row scalar form bit for bit") {
    std::mt19937 rng(29);
    // Subset entries: triangles of the input mesh, each with its bind (sixteen lanes: a whole
    // group of sixteen entries and a part of one).
    const uint32_t entries = 21;
    for (uint8_t blends : {1, 3}) {
        CAPTURE(int(blends));
        Mesh in(40, 30, rng);
        DeformOp op = random_deform(rng, 3, blends, entries);
        std::uniform_int_distribution<uint32_t> tri(0, in.data.triangle_count - 1);
        for (uint16_t& t : op.subset) t = uint16_t(tri(rng));
        lay_out_bind_lanes(op);  // as the loader does
        // The composites' scalar form: the centroid frame (c0 = a - g, c1 = b - g, c2 = c0 x c1,
        // g = ((a + b) + c) * (1/3); w 0, 0, 0, 1) composed with the bind by the composite rule.
        std::vector<Mat4> comp(entries);
        for (uint32_t e = 0; e < entries; ++e) {
            const uint16_t* t = &in.tris[size_t(op.subset[e]) * 3];
            const float *a = &in.p[t[0] * 4], *b = &in.p[t[1] * 4], *c = &in.p[t[2] * 4];
            float f[4][4];
            for (int k = 0; k < 3; ++k) {
                const float g = ((a[k] + b[k]) + c[k]) * (1.0f / 3.0f);
                f[0][k] = a[k] - g, f[1][k] = b[k] - g, f[3][k] = g;
            }
            f[2][0] = f[0][1] * f[1][2] - f[0][2] * f[1][1];
            f[2][1] = f[0][2] * f[1][0] - f[0][0] * f[1][2];
            f[2][2] = f[0][0] * f[1][1] - f[0][1] * f[1][0];
            f[0][3] = f[1][3] = f[2][3] = 0, f[3][3] = 1;
            const float* i = op.binds[e].m;
            for (int col = 0; col < 3; ++col)
                for (int k = 0; k < 4; ++k) comp[e].m[col * 4 + k] = (f[0][k] * i[col * 4] + f[1][k] * i[col * 4 + 1]) + f[2][k] * i[col * 4 + 2];
            for (int k = 0; k < 4; ++k) comp[e].m[12 + k] = ((f[0][k] * i[12] + f[3][k]) + f[1][k] * i[13]) + f[2][k] * i[14];
        }
        std::vector<Mat4> scratch(entries);
        for (uint8_t lanes : {uint8_t(4), uint8_t(8), uint8_t(16)}) {  // 8, 16: where the CPU has AVX2, AVX-512
            CAPTURE(int(lanes));
            Scratch s{scratch.data(), entries, {nullptr, nullptr, nullptr}, 0};
            s.max_lanes = lanes;
            Mesh out(3 * 16, 0, rng);
            const std::vector<float> before_w = out.p;
            run_object_space_mesh_mesh_deform(op, in.data, out.data, s);
            CHECK(object_blend_differences(op, comp, out, before_w) == 0);
        }
    }
}

TEST_CASE("runtime kernels: the 2014 mesh-mesh deform in four lanes and two vertices per eight lanes equals the row-by-row scalar form bit for bit") {
    std::mt19937 rng(23);
    std::uniform_real_distribution<float> x(-1.0f, 1.0f), weight(0.0f, 1.0f);
    // Trials 8..15: eight lanes where the CPU has AVX2 (neighbouring vertices with as many pairs
    // side by side); trials with trial % 4 >= 2 give most vertices five pairs, as the files do.
    for (int trial = 0; trial < 16; ++trial) {
        Mesh in(40, 30, rng);
        Mesh out(64, 0, rng);
        MeshMeshDeform2014Op op;
        op.start_vertex = uint32_t(trial);
        op.normals = trial % 2 == 0;
        std::uniform_int_distribution<uint32_t> tri(0, in.data.triangle_count - 1), pairs(0, 5);
        op.first_pair.push_back(0);
        for (uint32_t v = 0; v + op.start_vertex < out.count; ++v) {
            const uint32_t n = trial % 4 < 2 || v % 7 == 3 ? pairs(rng) : 5;  // some vertices without pairs: left as they are
            for (uint32_t k = 0; k < n; ++k) {
                op.triangle.push_back(uint16_t(tri(rng)));
                for (int r = 0; r < 3; ++r) op.local_p.push_back(x(rng)), op.local_n.push_back(x(rng));
                op.local_p.push_back(weight(rng)), op.local_n.push_back(0.0f);
            }
            op.first_pair.push_back(uint32_t(op.triangle.size()));
        }
        index_frames(op, in.data.triangle_count);
        std::vector<Mat4> frames(op.frames.size());
        Scratch s{frames.data(), uint32_t(frames.size()), {nullptr, nullptr, nullptr}, 0};
        s.max_lanes = trial < 8 ? 4 : 8;
        const std::vector<float> before_p = out.p, before_n = out.n;
        run_mesh_mesh_deform_2014(op, in.data, out.data, s);
        size_t differ = 0;
        for (size_t v = 0; v + 1 < op.first_pair.size(); ++v) {
            const size_t o = (op.start_vertex + v) * 4;
            float p[3] = {before_p[o], before_p[o + 1], before_p[o + 2]}, n[3] = {before_n[o], before_n[o + 1], before_n[o + 2]};
            for (uint32_t k = op.first_pair[v]; k < op.first_pair[v + 1]; ++k) {
                const Mat4 f = triangle_frame(in.data, op.triangle[k]);
                const float* lp = &op.local_p[size_t(k) * 4];
                const float* ln = &op.local_n[size_t(k) * 4];
                const float w = lp[3];
                for (int r = 0; r < 3; ++r) {
                    const float q = ((f.m[r] * lp[0] + f.m[12 + r]) + f.m[4 + r] * lp[1]) + f.m[8 + r] * lp[2];
                    const float qn = (f.m[r] * ln[0] + f.m[4 + r] * ln[1]) + f.m[8 + r] * ln[2];
                    p[r] = k == op.first_pair[v] ? q * w : p[r] + q * w;
                    if (op.normals) n[r] = k == op.first_pair[v] ? qn * w : n[r] + qn * w;
                }
            }
            for (int r = 0; r < 3; ++r) differ += !same_bits(out.p[o + r], p[r]) + !same_bits(out.n[o + r], n[r]);
            differ += !same_bits(out.p[o + 3], before_p[o + 3]) + !same_bits(out.n[o + 3], before_n[o + 3]);  // w left alone
        }
        CAPTURE(trial);
        CHECK(differ == 0);
    }
}

TEST_CASE("runtime kernels: the triangle frame in four lanes equals its scalar form bit for bit") {
    std::mt19937 rng(31);
    Mesh m(24, 40, rng);
    size_t differ = 0;
    for (uint32_t t = 0; t < m.data.triangle_count; ++t) {
        const Mat4 f = triangle_frame(m.data, t);
        const float* a = &m.p[m.tris[t * 3] * 4];
        const float* b = &m.p[m.tris[t * 3 + 1] * 4];
        const float* c = &m.p[m.tris[t * 3 + 2] * 4];
        float g[3], e1[3], e2[3];
        for (int r = 0; r < 3; ++r) g[r] = ((a[r] + b[r]) + c[r]) * (1.0f / 3.0f), e1[r] = a[r] - g[r], e2[r] = b[r] - g[r];
        const float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        for (int r = 0; r < 3; ++r)
            differ += !same_bits(f.m[r], e1[r]) + !same_bits(f.m[4 + r], e2[r]) + !same_bits(f.m[8 + r], n[r]) + !same_bits(f.m[12 + r], g[r]);
        differ += !(f.m[3] == 0 && f.m[7] == 0 && f.m[11] == 0 && f.m[15] == 1);
    }
    CHECK(differ == 0);
}
