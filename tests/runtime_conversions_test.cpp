// What of an input conversion a state reads (plan_conversions): the stand-in skins' vertices the
// state overwrites in every stream before reading them are left out, nothing else, and the
// vertices kept are blended to the same bits, each copy only in the streams some vertex of it
// reads; a stream of the copy overwritten everywhere before any read is not copied.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "rt_ops.h"

using namespace drape::rt;

namespace {

// A display buffer 0 (8 vertices) shadowed by buffer 1, a source buffer 2; operator 0 converts
// 0 into 1 with the stand-in skin operator 3 (object space, all 8 vertices, the streams given);
// operator 1 a mesh-mesh deform from 2 writing positions (and normals with `deform_normals`) of
// vertices 0..3; operator 2 converts back; operator 4 updates all vertex frames of buffer 0.
ClothModel model(bool skin_normals, bool deform_normals, bool frames_first) {
    ClothModel m;
    for (uint32_t b = 0; b < 3; ++b) {
        BufferDef d;
        d.num_vertices = 8;
        d.kind = b == 0 ? BufferKind::display : (b == 1 ? BufferKind::shadow : BufferKind::scratch);
        m.buffers.push_back(d);
    }
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> x(-1.0f, 1.0f);
    auto deform = [&](uint32_t out, uint32_t first, uint32_t count, bool normals) {
        DeformOp d;
        d.output_buffer = out, d.input_buffer = 2;
        d.streams = k_stream_p | (normals ? k_stream_n : 0);
        for (uint32_t i = 0; i < 2; ++i) {
            d.subset.push_back(uint16_t(i));
            Mat4 bind{};
            for (float& v : bind.m) v = x(rng);
            bind.m[3] = bind.m[7] = bind.m[11] = 0, bind.m[15] = 1;
            d.binds.push_back(bind);
        }
        DeformBlock blk{};
        blk.blends = 2;
        blk.vertex_count = uint8_t(count);
        for (uint32_t j = 0; j < count; ++j) {
            blk.vertices[j] = uint16_t(first + j);
            blk.bones[2 * j] = 0, blk.bones[2 * j + 1] = 1;
            blk.weights[2 * j] = uint16_t(100 + j), blk.weights[2 * j + 1] = uint16_t(155 - j);
        }
        d.blocks.push_back(blk);
        for (LocalStream* ls : {&d.local_p, &d.local_n})
            for (uint32_t i = 0; i < 16; ++i) ls->x.push_back(x(rng)), ls->y.push_back(x(rng)), ls->z.push_back(x(rng)), ls->w.push_back(1.0f);
        if (!normals) d.local_n = LocalStream();
        return d;
    };
    m.deforms.push_back(deform(0, 0, 8, skin_normals));    // the stand-in skin
    m.deforms.push_back(deform(0, 0, 4, deform_normals));  // the mesh-mesh deform
    ConvertOp in, out;
    in.from_buffer = 0, in.to_buffer = 1, in.display_skins = {3};
    out.from_buffer = 1, out.to_buffer = 0;
    m.converts = {in, out};
    VertexFramesOp f;
    f.buffer = 0, f.normals = true, f.num_normal_ids = 8;
    m.frames.push_back(f);
    m.operators = {{"in", OpKind::input_convert, 0}, {"deform", OpKind::object_space_mesh_mesh_deform, 1}, {"out", OpKind::output_convert, 1},
                   {"skin", OpKind::object_space_skin, 0}, {"frames", OpKind::update_all_vertex_frames, 0}};
    State st;
    st.operators = frames_first ? std::vector<uint32_t>{0, 4, 1, 2} : std::vector<uint32_t>{0, 1, 4, 2};
    st.buffer_map = {1, 1, 2};
    m.states.push_back(st);
    return m;
}

// Two bone matrices of random rotation-scale-shear and translation (w row 0, 0, 0, 1).
std::vector<Mat4> random_bones(unsigned seed) {
    std::vector<Mat4> bones(2);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> x(-2.0f, 2.0f);
    for (Mat4& b : bones) {
        for (float& v : b.m) v = x(rng);
        b.m[3] = b.m[7] = b.m[11] = 0, b.m[15] = 1;
    }
    return bones;
}

std::vector<uint16_t> vertices_of(const DeformOp& d) {
    std::vector<uint16_t> v;
    for (const DeformBlock& b : d.blocks)
        for (uint32_t j = 0; j < b.vertex_count; ++j) v.push_back(b.vertices[j]);
    return v;
}

}  // namespace

TEST_CASE("runtime stand-in skins: the vertices a later deform overwrites before anything reads them are left out, the rest blend to the same bits") {
    ClothModel m = model(false, false, false);
    plan_conversions(m);
    REQUIRE(m.states[0].stand_in.size() == 4);
    REQUIRE(m.states[0].stand_in[0] == 0);
    REQUIRE(m.stand_in_deforms.size() == 2);  // with positions, without them
    CHECK(vertices_of(m.stand_in_deforms[0]) == std::vector<uint16_t>{4, 5, 6, 7});
    CHECK(vertices_of(m.stand_in_deforms[1]).empty());
    for (uint32_t p = 1; p < 4; ++p) CHECK(m.states[0].stand_in[p] == UINT32_MAX);

    // The kept vertices: the same bits as the whole skin gives them; the left-out ones untouched.
    std::vector<Mat4> bones = random_bones(9);
    Transforms ts{bones.data(), 2};
    std::vector<Mat4> scratch(2);
    for (uint8_t lanes : {uint8_t(4), uint8_t(8)}) {
        CAPTURE(int(lanes));
        Scratch s{scratch.data(), 2, {nullptr, nullptr, nullptr}, 0};
        s.max_lanes = lanes;
        std::vector<float> whole(8 * 4, 7.0f), pruned(8 * 4, 7.0f);
        BufferData a, b;
        a.p = whole.data(), a.count = 8, b.p = pruned.data(), b.count = 8;
        run_object_space_skin(m.deforms[0], ts, a, s);
        run_object_space_skin(m.stand_in_deforms[0], ts, b, s);
        CHECK(std::memcmp(whole.data() + 16, pruned.data() + 16, 16 * sizeof(float)) == 0);
        for (uint32_t i = 0; i < 16; ++i) CHECK(pruned[i] == 7.0f);
    }
}

TEST_CASE("runtime stand-in skins: a stream nothing overwrites before it is read, or a read before the deform, keeps the vertex") {
    SUBCASE("the stand-in writes normals, the deform only positions, the frames the normals") {
        ClothModel m = model(true, false, false);
        plan_conversions(m);
        REQUIRE(m.stand_in_deforms.size() == 2);
        CHECK(vertices_of(m.stand_in_deforms[0]) == std::vector<uint16_t>{4, 5, 6, 7});
        CHECK(vertices_of(m.stand_in_deforms[1]).empty());
        CHECK(m.stand_in_deforms[0].streams == k_stream_p);  // the frames overwrite every normal first
    }
    SUBCASE("every position is read, every normal overwritten first: the stand-in blends positions only") {
        ClothModel m = model(true, false, true);
        plan_conversions(m);
        REQUIRE(m.stand_in_deforms.size() == 2);
        CHECK(vertices_of(m.stand_in_deforms[0]) == std::vector<uint16_t>{0, 1, 2, 3, 4, 5, 6, 7});
        CHECK(vertices_of(m.stand_in_deforms[1]).empty());
        CHECK(m.stand_in_deforms[0].streams == k_stream_p);
    }
    SUBCASE("the stand-in writes normals, the deform only positions, the frames read the normals") {
        ClothModel m = model(true, false, false);
        m.frames[0].normals = false;  // the frames keep (read) the buffer's normals
        plan_conversions(m);
        // 0..3: their positions are overwritten, their normals read: blended without positions.
        REQUIRE(m.stand_in_deforms.size() == 2);
        CHECK(vertices_of(m.stand_in_deforms[0]) == std::vector<uint16_t>{4, 5, 6, 7});
        CHECK(vertices_of(m.stand_in_deforms[1]) == std::vector<uint16_t>{0, 1, 2, 3});
        CHECK(m.stand_in_deforms[1].skip_positions);
        CHECK_FALSE(m.stand_in_deforms[0].skip_positions);
        CHECK(m.stand_in_deforms[0].streams == (k_stream_p | k_stream_n));
        CHECK(m.stand_in_deforms[1].streams == k_stream_n);
        // The copy without positions: the normals of the whole skin's bits, positions untouched.
        std::vector<Mat4> bones = random_bones(5), scratch(2);
        Transforms ts{bones.data(), 2};
        for (uint8_t lanes : {uint8_t(4), uint8_t(8)}) {
            CAPTURE(int(lanes));
            Scratch sc{scratch.data(), 2, {nullptr, nullptr, nullptr}, 0};
            sc.max_lanes = lanes;
            std::vector<float> wp(32, 7.0f), wn(32, 7.0f), pp(32, 7.0f), pn(32, 7.0f);
            BufferData a, b;
            a.p = wp.data(), a.n = wn.data(), a.count = 8, b.p = pp.data(), b.n = pn.data(), b.count = 8;
            run_object_space_skin(m.deforms[0], ts, a, sc);
            run_object_space_skin(m.stand_in_deforms[1], ts, b, sc);
            CHECK(std::memcmp(wn.data(), pn.data(), 16 * sizeof(float)) == 0);
            for (float v : pp) CHECK(v == 7.0f);
        }
    }
    SUBCASE("the deform writes normals too") {
        ClothModel m = model(true, true, false);
        plan_conversions(m);
        REQUIRE(m.stand_in_deforms.size() == 2);
        CHECK(vertices_of(m.stand_in_deforms[0]) == std::vector<uint16_t>{4, 5, 6, 7});
        CHECK(vertices_of(m.stand_in_deforms[1]).empty());
    }
    SUBCASE("vertex frames read the positions before the deform writes them") {
        ClothModel m = model(false, false, true);
        plan_conversions(m);
        CHECK(m.stand_in_deforms.empty());
        CHECK(m.states[0].stand_in.empty());
    }
}

TEST_CASE("runtime conversions: a stream the state overwrites everywhere before reading it is not copied") {
    ClothModel m = model(false, false, false);
    plan_conversions(m);
    // The frames write every vertex's normal before anything reads one; the positions of 4..7,
    // the tangents and the bitangents are read (by the frames, by the output conversion).
    REQUIRE(m.states[0].convert_streams.size() == 4);
    CHECK(m.states[0].convert_streams[0] == uint8_t(k_stream_p | k_stream_t | k_stream_b));
    CHECK(m.states[0].convert_streams[1] == uint8_t(k_stream_p | k_stream_n | k_stream_t | k_stream_b));
    m.frames[0].normals = false;  // the frames read the buffer's normals: every stream is read
    plan_conversions(m);
    CHECK(m.states[0].convert_streams.empty());
}

TEST_CASE("runtime shared storage: a shadow used only between its own conversions shares its user buffer's arrays, nothing else does") {
    SUBCASE("input conversion first, output conversion last: shared") {
        ClothModel m = model(false, false, false);
        plan_shared_storage(m);
        REQUIRE(m.storage_of.size() == 3);
        CHECK(m.storage_of[0] == 0);
        CHECK(m.storage_of[1] == 0);
        CHECK(m.storage_of[2] == 2);
    }
    SUBCASE("another state that writes the user buffer directly and never the shadow: shared") {
        ClothModel m = model(false, false, false);
        State skin;
        skin.operators = {3};
        skin.buffer_map = {0, 1, 2};
        m.states.push_back(skin);
        plan_shared_storage(m);
        CHECK(m.storage_of[1] == 0);
    }
    SUBCASE("a state that works on the shadow without the input conversion: separate") {
        ClothModel m = model(false, false, false);
        State no_input = m.states[0];
        no_input.operators = {1, 2};
        m.states.push_back(no_input);
        plan_shared_storage(m);
        CHECK(m.storage_of[1] == 1);
    }
    SUBCASE("an operator on the shadow after the output conversion: separate") {
        ClothModel m = model(false, false, false);
        m.states[0].operators = {0, 1, 2, 4};
        plan_shared_storage(m);
        CHECK(m.storage_of[1] == 1);
    }
    SUBCASE("the state does not redirect the user buffer to the shadow: separate") {
        ClothModel m = model(false, false, false);
        m.states[0].buffer_map = {0, 1, 2};
        m.deforms[1].output_buffer = 1;  // the deform names the shadow itself
        plan_shared_storage(m);
        CHECK(m.storage_of[1] == 1);
    }
    SUBCASE("a second conversion of the pair inside the state: separate") {
        ClothModel m = model(false, false, false);
        m.states[0].operators = {0, 1, 2, 0, 2};
        plan_shared_storage(m);
        CHECK(m.storage_of[1] == 1);
    }
}
