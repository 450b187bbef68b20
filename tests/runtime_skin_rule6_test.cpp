// docs/havok-cloth.md rule 6, the skin operator's arithmetic, each part stated in a test name. Expected
// values are written out here in the games' order of operations (docs/havok-cloth.md) (not taken from the runtime),
// and each test also shows that the other obvious order gives different bits, so the test would
// fail if the runtime summed differently.
#include <doctest/doctest.h>

#include <cstring>

#include "rt_ops.h"

using namespace drape::rt;

namespace {

uint32_t bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
float from_bits(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

// Values chosen so that sums in a different order round differently.
Mat4 bone() {
    return {{1.0f, 1e-8f, 3.0f, 0, 1e8f, 0.7f, -1e8f, 0, -1e8f, 0.3f, 1e8f, 0, 0.1f, 2.5f, 1.0f, 1}};
}
Mat4 inverse_bind() {
    return {{1.0f, 1.0f, 1.0f, 0, 0.3f, 0.1f, 0.7f, 0, 0.2f, 0.5f, 0.9f, 0, 0.1f, 0.2f, 0.3f, 1}};
}

}  // namespace

TEST_CASE("runtime rule 6: composite columns are (B.c0*x + B.c1*y) + B.c2*z and the translation ((B.c0*x + B.c3) + B.c1*y) + B.c2*z") {
    const Mat4 b = bone(), i = inverse_bind();
    const Mat4 c = compose(b, i);
    for (int col = 0; col < 3; ++col)
        for (int k = 0; k < 4; ++k) {
            const float x = i.m[col * 4], y = i.m[col * 4 + 1], z = i.m[col * 4 + 2];
            const float want = (b.m[k] * x + b.m[4 + k] * y) + b.m[8 + k] * z;
            CHECK(bits(c.m[col * 4 + k]) == bits(want));
        }
    bool order_matters = false;
    for (int k = 0; k < 4; ++k) {
        const float x = i.m[12], y = i.m[13], z = i.m[14];
        const float want = ((b.m[k] * x + b.m[12 + k]) + b.m[4 + k] * y) + b.m[8 + k] * z;
        const float other = ((b.m[k] * x + b.m[4 + k] * y) + b.m[8 + k] * z) + b.m[12 + k];
        CHECK(bits(c.m[12 + k]) == bits(want));
        order_matters = order_matters || bits(want) != bits(other);
    }
    CHECK(order_matters);  // the inputs tell the two orders apart
}

TEST_CASE("runtime rule 6: a weight byte times f32bits 0x3B808081 is the weight") {
    CHECK(bits(from_bits(0x3B808081u)) == 0x3B808081u);
    for (uint32_t w = 0; w < 256; ++w) CHECK(bits(weight_from_byte(w)) == bits(float(w) * from_bits(0x3B808081u)));
    // 0x3B808081 is 1/255 rounded to f32, and the product is not the division w / 255.0f for every byte.
    CHECK(from_bits(0x3B808081u) == 1.0f / 255.0f);
    bool differs = false;
    for (uint32_t w = 0; w < 256; ++w) differs = differs || bits(weight_from_byte(w)) != bits(float(w) / 255.0f);
    CHECK(differs);
}

TEST_CASE("runtime rule 6: a packed position is f32(word << 16) times f32bits(word3 << 16)") {
    // x = 0x4000 (16384 << 16 = 2^30), scale 0x3000 (f32bits 0x30000000 = 2^-31): 0.5.
    const int16_t v[4] = {0x4000, int16_t(0xC000), 0x0001, 0x3000};
    float o[3];
    unpack_vector3(v, o);
    CHECK(o[0] == 0.5f);
    CHECK(o[1] == -0.5f);                                   // u16 0xC000 << 16 is negative as i32
    CHECK(bits(o[2]) == bits(65536.0f * from_bits(0x30000000u)));
}

TEST_CASE("runtime rule 6: the blend adds M*w in bone order and a point is ((c0*x + c3) + c1*y) + c2*z") {
    // One 3-blend block of one vertex through the object-space skin, against the arithmetic
    // written out here.
    DeformOp op;
    op.streams = k_stream_p | k_stream_n;
    op.subset = {0, 1, 2};
    const Mat4 id = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    op.binds = {id, id, id};
    DeformBlock blk{};
    blk.blends = 3;
    blk.vertex_count = 16;
    for (int j = 0; j < 16; ++j) {
        blk.vertices[j] = uint16_t(j);
        blk.bones[j * 3] = 0, blk.bones[j * 3 + 1] = 1, blk.bones[j * 3 + 2] = 2;
        blk.weights[j * 3] = 200, blk.weights[j * 3 + 1] = 50, blk.weights[j * 3 + 2] = 5;
    }
    op.blocks.push_back(blk);
    for (int j = 0; j < 16; ++j) {
        op.local_p.x.push_back(0.3f + j), op.local_p.y.push_back(1e7f), op.local_p.z.push_back(-1e7f), op.local_p.w.push_back(1);
        op.local_n.x.push_back(0.1f), op.local_n.y.push_back(3.0f), op.local_n.z.push_back(-2.0f), op.local_n.w.push_back(0);
    }
    Mat4 bones[3] = {bone(), inverse_bind(), {{0.5f, 0.25f, 0.125f, 0, 3, 1e-3f, 7, 0, 1, 1, 1, 0, 9, 8, 7, 1}}};
    Transforms ts{bones, 3};
    float pos[64] = {}, nrm[64] = {};
    BufferData out;
    out.p = pos, out.n = nrm, out.count = 16;
    Mat4 scratch_m[3];
    Scratch s{scratch_m, 3, {nullptr, nullptr, nullptr}, 0};
    run_object_space_skin(op, ts, out, s);

    const float w[3] = {200 * from_bits(0x3B808081u), 50 * from_bits(0x3B808081u), 5 * from_bits(0x3B808081u)};
    for (int j = 0; j < 16; ++j) {
        float m[16];
        for (int e = 0; e < 16; ++e) {
            const Mat4 c0 = compose(bones[0], id), c1 = compose(bones[1], id), c2 = compose(bones[2], id);
            m[e] = (c0.m[e] * w[0] + c1.m[e] * w[1]) + c2.m[e] * w[2];  // M*w summed in bone order
        }
        const float x = op.local_p.x[j], y = op.local_p.y[j], z = op.local_p.z[j];
        for (int k = 0; k < 3; ++k) {
            const float want = ((m[k] * x + m[12 + k]) + m[4 + k] * y) + m[8 + k] * z;
            CHECK(bits(pos[j * 4 + k]) == bits(want));
            const float nx = op.local_n.x[j], ny = op.local_n.y[j], nz = op.local_n.z[j];
            const float want_n = (m[k] * nx + m[4 + k] * ny) + m[8 + k] * nz;  // blended rows, not normalised
            CHECK(bits(nrm[j * 4 + k]) == bits(want_n));
        }
    }
    // A point through c0 = c1 = c2 = (1, 0, 0), c3 = (1e8, 0, 0): the games' order and the naive
    // ((c0*x + c1*y) + c2*z) + c3 give other bits for (1, -1e8, 0.5), so the order is observable.
    const Mat4 big = {{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1e8f, 0, 0, 1}};
    float seed[3];
    transform_point(big, 1.0f, -1e8f, 0.5f, seed);
    const float naive = ((1.0f * 1.0f + 1.0f * -1e8f) + 1.0f * 0.5f) + 1e8f;
    CHECK(seed[0] == 0.5f);  // ((1 + 1e8) + -1e8) + 0.5
    CHECK(bits(seed[0]) != bits(naive));
}

TEST_CASE("runtime rule 6: normals go through the blended rows without normalisation") {
    const Mat4 twice = {{2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1}};
    float o[3];
    transform_direction(twice, 0, 1, 0, o);
    CHECK(o[1] == 2.0f);  // length 2: not renormalised
}
