// Seed 000 rule 7: the bone deformer normalises with the processor's approximate reciprocal
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
    CHECK(worst_game < 1e-3f);   // seed 000: the game's bones are within 4.9e-4 of unit squared length
    CHECK(worst_exact < 1e-6f);
    // Orthogonal either way: x.z = 0 up to rounding (seed 000: within 4.3e-7).
    const float xz = (game[0].m[0] * game[0].m[8] + game[0].m[1] * game[0].m[9]) + game[0].m[2] * game[0].m[10];
    CHECK(std::fabs(xz) < 1e-6f);
    // The origin is the triangle's first vertex, x along its first edge.
    CHECK(game[0].m[12] == 0.0f);
    CHECK(game[0].m[1] / game[0].m[0] == doctest::Approx(0.01f / 0.3f));
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
