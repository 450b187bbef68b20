// docs/havok-cloth.md rule 7: the bone deformer normalises with the processor's approximate reciprocal
// square root and no refinement (so the game's driven bones are not unit to 1e-4); the exact
// portable mode uses 1/sqrtf.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <xmmintrin.h>

#include "rt_ops.h"

using namespace drape::rt;

namespace {
uint32_t bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
float axis_length_sq(const Mat4& m, int c) { return (m.m[c * 4] * m.m[c * 4] + m.m[c * 4 + 1] * m.m[c * 4 + 1]) + m.m[c * 4 + 2] * m.m[c * 4 + 2]; }

struct Triangle {
    float pos[12] = {0, 0, 0, 0, 0.3f, 0.01f, 0, 0, 0.1f, 0.2f, 0.05f, 0};
    uint16_t tri[3] = {0, 1, 2};
    BufferData buf() {
        BufferData b;
        b.p = pos, b.count = 3, b.triangles = tri, b.triangle_count = 1;
        return b;
    }
};
}  // namespace

TEST_CASE("runtime rule 7: the game mode is rsqrtss without a Newton step, the exact mode 1/sqrtf") {
    bool differs = false;
    for (float x : {0.09f, 0.5f, 2.0f, 3.0f, 123.456f}) {
        CHECK(bits(rsqrt_game(x)) == bits(_mm_cvtss_f32(_mm_rsqrt_ss(_mm_set_ss(x)))));
        CHECK(bits(rsqrt_exact(x)) == bits(1.0f / std::sqrt(x)));
        differs = differs || bits(rsqrt_game(x)) != bits(rsqrt_exact(x));
        CHECK(std::fabs(rsqrt_game(x) * std::sqrt(x) - 1.0f) < 4e-4f);  // rsqrtps: |relative error| <= 1.5 * 2^-12
    }
    CHECK(differs);
}

TEST_CASE("runtime rule 7: simple mesh bone deform bones are not unit to 1e-4 with the game's rsqrt and unit in the exact mode") {
    Triangle t;
    const BufferData in = t.buf();
    SimpleBoneDeformOp op;
    op.bones = {0};
    op.triangles = {0};
    op.local = {{{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}}};
    Mat4 game[1], exact[1];
    Transforms tg{game, 1}, te{exact, 1};
    run_simple_mesh_bone_deform(op, in, tg, false);
    run_simple_mesh_bone_deform(op, in, te, true);
    float worst_game = 0, worst_exact = 0;
    for (int c = 0; c < 3; ++c) {
        worst_game = std::max(worst_game, std::fabs(axis_length_sq(game[0], c) - 1));
        worst_exact = std::max(worst_exact, std::fabs(axis_length_sq(exact[0], c) - 1));
    }
    CHECK(worst_game > 1e-6f);   // the approximation shows
    CHECK(worst_game < 1e-3f);   // docs/havok-cloth.md: the game's bones are within 4.9e-4 of unit squared length
    CHECK(worst_exact < 1e-6f);
    // Orthogonal either way: x.z = 0 up to rounding (docs/havok-cloth.md: within 4.3e-7).
    const float xz = (game[0].m[0] * game[0].m[8] + game[0].m[1] * game[0].m[9]) + game[0].m[2] * game[0].m[10];
    CHECK(std::fabs(xz) < 1e-6f);
    // The frame is the triangle's centroid with the columns a - g, b - g, (a - g) x (b - g); with the
    // identity as the local transform the origin is the centroid and x points at the first vertex.
    CHECK(game[0].m[12] == doctest::Approx((0.0f + 0.3f + 0.1f) / 3));
    CHECK(game[0].m[13] == doctest::Approx((0.0f + 0.01f + 0.2f) / 3));
    const float gx = (0.0f + 0.3f + 0.1f) / 3, gy = (0.0f + 0.01f + 0.2f) / 3;
    CHECK(game[0].m[1] / game[0].m[0] == doctest::Approx((0.0f - gy) / (0.0f - gx)));
}

// A local bone transform made as the files make it (the frame's inverse at rest times the bone's
// rest matrix) gives the bone back at rest, and follows the triangle rigidly when it moves rigidly.
TEST_CASE("bone deform: a file's local transform reproduces the bind pose and follows a rigid motion") {
    Triangle t;
    // The bone at rest: turned 30 degrees about z, 4 cm beside the triangle.
    const float c = std::cos(0.5235988f), s = std::sin(0.5235988f);
    const double bone[16] = {c, s, 0, 0, -s, c, 0, 0, 0, 0, 1, 0, 0.14, 0.03, 0.04, 1};
    // The frame at rest, in double: g, a - g, b - g, (a - g) x (b - g).
    double p[3][3];
    for (int k = 0; k < 3; ++k)
        for (int r = 0; r < 3; ++r) p[k][r] = t.pos[k * 4 + r];
    double g[3], u[3], v[3];
    for (int r = 0; r < 3; ++r) g[r] = (p[0][r] + p[1][r] + p[2][r]) / 3, u[r] = p[0][r] - g[r], v[r] = p[1][r] - g[r];
    const double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    // local = F^-1 B with F = [u v n | g]: solve column by column (Cramer's rule).
    const double det = u[0] * (v[1] * n[2] - v[2] * n[1]) - v[0] * (u[1] * n[2] - u[2] * n[1]) + n[0] * (u[1] * v[2] - u[2] * v[1]);
    auto solve = [&](const double* rhs, double* out) {
        const double cols[3][3] = {{u[0], u[1], u[2]}, {v[0], v[1], v[2]}, {n[0], n[1], n[2]}};
        for (int k = 0; k < 3; ++k) {
            double m[3][3];
            for (int j = 0; j < 3; ++j)
                for (int r = 0; r < 3; ++r) m[j][r] = j == k ? rhs[r] : cols[j][r];
            out[k] = (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[1][0] * (m[0][1] * m[2][2] - m[0][2] * m[2][1]) +
                      m[2][0] * (m[0][1] * m[1][2] - m[0][2] * m[1][1])) / det;
        }
    };
    SimpleBoneDeformOp op;
    op.bones = {0};
    op.triangles = {0};
    Mat4 local{};
    for (int col = 0; col < 4; ++col) {
        double rhs[3] = {bone[col * 4], bone[col * 4 + 1], bone[col * 4 + 2]};
        if (col == 3)
            for (int r = 0; r < 3; ++r) rhs[r] -= g[r];
        double x[3];
        solve(rhs, x);
        for (int r = 0; r < 3; ++r) local.m[col * 4 + r] = float(x[r]);
    }
    local.m[15] = 1;
    op.local = {local};
    Mat4 out[1];
    Transforms ts{out, 1};
    const BufferData in = t.buf();
    run_simple_mesh_bone_deform(op, in, ts, true);
    for (int e = 0; e < 16; ++e) CHECK(out[0].m[e] == doctest::Approx(float(bone[e])).epsilon(1e-4));
    // Move the triangle rigidly: 90 degrees about y, then 1 m up. The bone moves the same way.
    Triangle moved;
    for (int k = 0; k < 3; ++k) {
        const float x = t.pos[k * 4], y = t.pos[k * 4 + 1], z = t.pos[k * 4 + 2];
        moved.pos[k * 4] = z, moved.pos[k * 4 + 1] = y + 1, moved.pos[k * 4 + 2] = -x;
    }
    const BufferData in2 = moved.buf();
    run_simple_mesh_bone_deform(op, in2, ts, true);
    CHECK(out[0].m[12] == doctest::Approx(float(bone[14])).epsilon(1e-4));
    CHECK(out[0].m[13] == doctest::Approx(float(bone[13] + 1)).epsilon(1e-4));
    CHECK(out[0].m[14] == doctest::Approx(float(-bone[12])).epsilon(1e-4));
    CHECK(out[0].m[0] == doctest::Approx(0).epsilon(1e-4));  // x axis (c, s, 0) turned to (0, s, -c)
    CHECK(out[0].m[2] == doctest::Approx(-c).epsilon(1e-4));
}

TEST_CASE("runtime rule 7: mesh bone deform blends weighted triangle bones then renormalises with the chosen rsqrt") {
    Triangle t;
    const BufferData in = t.buf();
    MeshBoneDeformOp op;
    op.bones = {0};
    op.first_pair = {0, 2};
    op.pair_triangle = {0, 0};
    op.pair_weight = {0.25f, 0.75f};
    const Mat4 id = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    op.pair_local = {id, id};
    Mat4 out[1], out_exact[1];
    Transforms ts{out, 1}, te{out_exact, 1};
    run_mesh_bone_deform(op, in, ts, false);
    run_mesh_bone_deform(op, in, te, true);
    CHECK(std::fabs(axis_length_sq(out_exact[0], 0) - 1) < 1e-6f);
    CHECK(std::fabs(axis_length_sq(out[0], 0) - 1) < 1e-3f);
    CHECK(out[0].m[15] == 1.0f);
}
