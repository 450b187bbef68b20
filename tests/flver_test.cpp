// FLVER2 reader: every corpus FLVER against soulstruct's reading, truncation at every length,
// one test per error message.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <tuple>
#include <nlohmann/json.hpp>

#include "corpus.h"
#include "drape/flver/flver.h"
#include "flver_corpus.h"
#include "flver_fixture.h"

using namespace drape;
using json = nlohmann::json;

namespace {

json peer_json(const std::string& rel) {
    std::ifstream f(test::reference_dir() / "peer" / "soulstruct" / (rel + ".json"));
    REQUIRE(f);
    return json::parse(f);
}

bool near(double a, double b, double tol) { return std::fabs(a - b) <= tol * std::max(1.0, std::fabs(b)); }

void check_vec3(const flver::Vec3& v, const json& j, double tol = 1e-5) {
    CHECK(near(v.x, j[0].get<double>(), tol));
    CHECK(near(v.y, j[1].get<double>(), tol));
    CHECK(near(v.z, j[2].get<double>(), tol));
}

// Compares one FLVER with one soulstruct "flver" object.
void check_against_peer(const flver::Model& m, const json& p) {
    char ver[16];
    std::snprintf(ver, sizeof ver, "0x%x", unsigned(m.header.version));
    CHECK(p["version"].get<std::string>() == ver);
    CHECK(p["unicode"].get<bool>() == m.header.unicode);
    check_vec3(m.header.bbox_min, p["bounding_box_min"]);
    check_vec3(m.header.bbox_max, p["bounding_box_max"]);
    CHECK(p["dummy_count"].get<size_t>() == m.dummies.size());
    REQUIRE(p["bone_count"].get<size_t>() == m.nodes.size());
    for (size_t i = 0; i < m.nodes.size(); ++i) {
        const auto& b = p["bones"][i];
        const auto& n = m.nodes[i];
        CAPTURE(i);
        CHECK(b["name"].get<std::string>() == n.name);
        CHECK(b["parent"].get<int>() == n.parent);
        check_vec3(n.translation, b["translate"]);
        check_vec3(n.rotation, b["rotate_euler"]);
        check_vec3(n.scale, b["scale"]);
    }
    REQUIRE(p["mesh_count"].get<size_t>() == m.meshes.size());
    for (size_t i = 0; i < m.meshes.size(); ++i) {
        const auto& pm = p["meshes"][i];
        const auto& mesh = m.meshes[i];
        const auto& v = mesh.vertices;
        CAPTURE(i);
        CHECK(pm["vertex_count"].get<uint32_t>() == v.count);
        CHECK(pm["default_bone_index"].get<int>() == mesh.default_node);
        CHECK(pm["is_bind_pose"].get<bool>() == mesh.dynamic);
        CHECK(pm["bone_indices"].size() == mesh.bone_indices.size());
        REQUIRE(v.positions.size() == v.count);
        double sum = 0;
        flver::Vec3 lo{1e30f, 1e30f, 1e30f}, hi{-1e30f, -1e30f, -1e30f};
        for (const auto& q : v.positions) {
            sum += double(q.x) + double(q.y) + double(q.z);
            lo = {std::min(lo.x, q.x), std::min(lo.y, q.y), std::min(lo.z, q.z)};
            hi = {std::max(hi.x, q.x), std::max(hi.y, q.y), std::max(hi.z, q.z)};
        }
        CHECK(near(sum, pm["position_sum"].get<double>(), 1e-6));
        check_vec3(lo, pm["position_min"]);
        check_vec3(hi, pm["position_max"]);
        for (size_t k = 0; k < pm["first_vertices"].size(); ++k) {
            const auto& fv = pm["first_vertices"][k];
            check_vec3(v.positions[k], fv["position"]);
            check_vec3(v.normals[k], fv["normal"]);
            REQUIRE(fv["uv_field"].get<std::string>() == "uv_0");
            CHECK(near(v.uvs.at(0)[k].x, fv["uv"][0].get<double>(), 1e-6));
            CHECK(near(v.uvs.at(0)[k].y, fv["uv"][1].get<double>(), 1e-6));
        }
        // Face sets: soulstruct stores the flags' top byte (LOD1 = 1, LOD2 = 2, motion blur = 128).
        REQUIRE(pm["face_sets"].size() == mesh.face_sets.size());
        for (size_t k = 0; k < mesh.face_sets.size(); ++k) {
            const auto& pf = pm["face_sets"][k];
            const auto& fs = mesh.face_sets[k];
            CHECK(pf["flags"].get<uint32_t>() == fs.flags >> 24);
            CHECK(pf["is_triangle_strip"].get<bool>() == fs.triangle_strip);
            CHECK(pf["index_count"].get<size_t>() == fs.indices.size());
            // soulstruct counts list triangles without dropping degenerates (motion-blur fins).
            if (!fs.triangle_strip) CHECK(pf["true_face_count"].get<size_t>() == fs.indices.size() / 3);
        }
        const flver::FaceSet* lod0 = mesh.lod0();
        REQUIRE(lod0);
        CHECK(pm["lod0_triangle_count"].get<size_t>() == lod0->triangles(v.count).size());
        const auto& mat = m.materials.at(size_t(mesh.material));
        CHECK(pm["material_name"].get<std::string>() == mat.name);
        CHECK(pm["material_def_path"].get<std::string>() == mat.mtd);
        REQUIRE(pm["textures"].size() == mat.textures.size());
        for (size_t k = 0; k < mat.textures.size(); ++k) {
            CHECK(pm["textures"][k]["type"].get<std::string>() == mat.textures[k].type);
            CHECK(pm["textures"][k]["path"].get<std::string>() == mat.textures[k].path);
        }
        // The vertex fields soulstruct lists are the ones we decoded.
        size_t uv_fields = 0, tangent_fields = 0, color_fields = 0;
        bool has_w = false, has_bi = false, has_bw = false;
        for (const auto& f : pm["vertex_fields"]) {
            auto s = f.get<std::string>();
            uv_fields += s.rfind("uv_", 0) == 0;
            tangent_fields += s.rfind("tangent_", 0) == 0;
            color_fields += s.rfind("color_", 0) == 0;
            has_w |= s == "normal_w";
            has_bi |= s == "bone_indices";
            has_bw |= s == "bone_weights";
        }
        // Type 0x13 UV members (UByte4Norm, really layer blend weights, docs/formats.md#vertex-layouts) hold two sets
        // of u8/255 in SoulsFormatsNEXT, which drape follows; soulstruct reads them as one set.
        size_t ub4n_uvs = 0;
        for (const auto& vb : mesh.vertex_buffers)
            for (const auto& mem : m.layouts.at(size_t(vb.layout_index)).members)
                ub4n_uvs += mem.semantic == uint32_t(flver::Semantic::uv) && mem.type == 0x13;
        CHECK(v.uvs.size() == uv_fields + ub4n_uvs);
        CHECK(v.tangents.size() == tangent_fields);
        CHECK(v.colors.size() == color_fields);
        CHECK(has_w == !v.normal_w.empty());
        CHECK(has_bi == !v.bone_indices.empty());
        CHECK(has_bw == !v.bone_weights.empty());
    }
}

}  // namespace

TEST_CASE("flver: every corpus FLVER matches soulstruct") {
    for (const auto& item : test::corpus_flvers()) {
        CAPTURE(item.label);
        auto r = flver::read_flver(item.bytes);
        REQUIRE_MESSAGE(r, r.error().to_string());
        json p = peer_json(item.corpus_file);
        const json& f = item.member.empty() ? p["flver"] : p["members"][item.member]["flver"];
        check_against_peer(*r, f);
    }
}

TEST_CASE("flver: FaceSet::triangles unrolls strips, restarts and drops degenerates (hand computed)") {
    flver::FaceSet fs;
    fs.triangle_strip = true;
    fs.index_size = 16;
    fs.indices = {0, 1, 2, 3, 3, 4, 0xFFFF, 5, 6, 7};
    auto t = fs.triangles(8);
    // strip 0,1,2,3,3,4: (0,1,2) (2,1,3) [2,3,3 degenerate] [3,3,4 degenerate]; restart; (5,6,7)
    REQUIRE(t.size() == 3);
    CHECK(t[0] == std::array<uint32_t, 3>{0, 1, 2});
    CHECK(t[1] == std::array<uint32_t, 3>{2, 1, 3});
    CHECK(t[2] == std::array<uint32_t, 3>{5, 6, 7});
    // With 65535 or more vertices 0xFFFF is an ordinary index.
    fs.indices = {0xFFFE, 0xFFFF, 0x10000};
    fs.index_size = 32;
    CHECK(fs.triangles(0x20000).size() == 1);
    fs.triangle_strip = false;
    fs.indices = {0, 1, 2, 2, 2, 3, 4, 5, 6};
    CHECK(fs.triangles(8).size() == 2);
}

TEST_CASE("flver: display masks from material names") {
    CHECK(flver::display_mask("#00#") == 0);
    CHECK(flver::display_mask("#04#Cape") == 4);
    CHECK(flver::display_mask("#12#") == 12);
    CHECK(flver::display_mask("Material #0") == -1);
    CHECK(flver::display_mask("#0") == -1);
    CHECK(flver::display_mask("##") == -1);
}

namespace {

void put32(std::vector<uint8_t>& b, size_t off, int32_t v) { std::memcpy(b.data() + off, &v, 4); }
void put16(std::vector<uint8_t>& b, size_t off, int16_t v) { std::memcpy(b.data() + off, &v, 2); }

}  // namespace

TEST_CASE("flver: the synthetic fixture, laid out by hand, reads back as written") {
    test::FlverFixture fx;
    auto bytes = fx.build();
    auto r = flver::read_flver(bytes);
    REQUIRE_MESSAGE(r, r.error().to_string());
    const auto& m = *r;
    REQUIRE(m.nodes.size() == 2);
    CHECK(m.nodes[1].name == "bone1");
    CHECK(m.nodes[1].parent == 0);
    CHECK(m.nodes[1].translation.y == 1.0f);
    REQUIRE(m.dummies.size() == 1);
    CHECK(m.dummies[0].reference_id == 100);
    CHECK(m.dummies[0].attach_node == 1);
    CHECK(m.dummies[0].use_upward);
    REQUIRE(m.materials.size() == 1);
    CHECK(m.materials[0].name == "#03#Cape");
    CHECK(m.materials[0].mtd == "N:\\X\\C[ARSN].mtd");
    REQUIRE(m.materials[0].textures.size() == 1);
    CHECK(m.materials[0].textures[0].type == "g_DiffuseTexture");
    REQUIRE(m.meshes.size() == 1);
    const auto& v = m.meshes[0].vertices;
    REQUIRE(v.count == 4);
    CHECK(v.positions[3].z == 1.0f);
    CHECK(v.normals[0].z == 1.0f);  // (254 - 127) / 127
    CHECK(v.tangents.at(0)[0].x == 1.0f);
    CHECK(v.tangents.at(0)[0].w == doctest::Approx(128.0 / 127.0));
    CHECK(v.bone_indices[0][0] == 1);
    CHECK(v.bone_weights[0].x == 1.0f);  // 32767 / 32767
    REQUIRE(v.uvs.size() == 2);          // type 0x16: two sets
    CHECK(v.uvs[0][2].x == 0.5f);        // 1024 / 2048
    CHECK(v.uvs[0][2].y == 0.5f);
    REQUIRE(v.colors.size() == 1);
    CHECK(v.colors[0][0].y == doctest::Approx(128.0 / 255.0));
    CHECK(m.meshes[0].lod0()->triangles(4).size() == 2);
    fx.strip = true;
    auto strip = flver::read_flver(fx.build());
    REQUIRE(strip);
    CHECK(strip->meshes[0].lod0()->triangles(4).size() == 2);
}

TEST_CASE("flver: bone indices stay 16 bits wide (300 nodes, index 299)") {
    test::FlverFixture fx;
    fx.node_count = 300;
    fx.bone_index = 299;
    auto r = flver::read_flver(fx.build());
    REQUIRE_MESSAGE(r, r.error().to_string());
    CHECK(r->meshes[0].vertices.bone_indices[0][0] == 299);
}

TEST_CASE("flver: versions before 0x2000E remap bone indices through the mesh's bone list") {
    test::FlverFixture fx;
    fx.version = 0x2000D;
    fx.node_count = 3;
    fx.bone_index = 1;
    fx.mesh_bones = {2, 0};
    auto r = flver::read_flver(fx.build());
    REQUIRE_MESSAGE(r, r.error().to_string());
    CHECK(r->meshes[0].vertices.bone_indices[0][0] == 0);  // list[1] = 0
    CHECK(r->meshes[0].vertices.bone_indices[0][1] == 2);  // list[0] = 2
    // UVs use 1024 before 0x2000E.
    CHECK(r->meshes[0].vertices.uvs[0][2].y == 1.0f);
}

TEST_CASE("flver: truncation at every length fails cleanly" * doctest::test_suite("corpus")) {
    test::FlverFixture fx;
    const auto full = fx.build();
    for (size_t n = 0; n < full.size(); ++n) {
        std::vector<uint8_t> cut(full.begin(), full.begin() + long(n));
        auto r = flver::read_flver(cut);
        REQUIRE_FALSE(r);
        CHECK(r.error().offset <= n);
        // The same length with dataLength patched to fit, so the reader gets past the header.
        if (n >= 0x14 && n >= fx.at.data) {
            put32(cut, 0x10, int32_t(n - fx.at.data));
            auto r2 = flver::read_flver(cut);
            CHECK_FALSE(r2);
            if (!r2) CHECK(r2.error().offset <= n);
        }
    }
    // Real files too: every 7th length of the ER map piece.
    auto items = test::flvers_in("er/m60_23_28_01_60465600.mapbnd");
    REQUIRE(items.size() == 1);
    const auto& er = items[0].bytes;
    for (size_t n = 0; n < er.size(); n += 7) {
        auto r = flver::read_flver(Bytes(er.data(), n));
        REQUIRE_FALSE(r);
        CHECK(r.error().offset <= n);
    }
}

TEST_CASE("flver: one test per error message") {
    test::FlverFixture fx;
    const auto good = fx.build();
    REQUIRE(flver::read_flver(good));
    const auto& a = fx.at;
    struct Case {
        const char* what;
        std::function<void(std::vector<uint8_t>&)> patch;
        const char* field;
        const char* reason;
    };
    const size_t member0 = a.members;
    const std::vector<Case> cases = {
        {"magic", [](auto& b) { b[0] = 'X'; }, "flver.magic", ""},
        {"endian", [](auto& b) { b[6] = 'Q'; }, "flver.endian", "expected"},
        {"version", [](auto& b) { put32(b, 8, 0x20030); }, "flver.header.version", "unsupported FLVER version 0x20030"},
        {"flver0", [](auto& b) { put32(b, 8, 0x15); }, "flver.header.version", "unsupported FLVER version 0x15"},
        {"index size", [](auto& b) { b[0x48] = 8; }, "flver.header.vertex_index_size", "unsupported index size 8"},
        {"data offset", [](auto& b) { put32(b, 0x0C, 0x7FFFFFF0); }, "flver.header.data_offset", "outside the file"},
        {"data length", [](auto& b) { put32(b, 0x10, 0x100000); }, "flver.header.data_length", "ends past the file"},
        {"negative count", [](auto& b) { put32(b, 0x14, -1); }, "flver.header.dummy_count", "negative count -1"},
        {"count too big", [](auto& b) { put32(b, 0x20, 100000); }, "flver.header.mesh_count", "exceeds"},
        {"string offset", [&](auto& b) { put32(b, a.material, -4); }, "flver2.material.name", "negative string offset"},
        {"string past end", [&](auto& b) { put32(b, a.material, int32_t(b.size() + 10)); }, "flver2.material.name", "past the end"},
        {"parent cycle", [&](auto& b) { put16(b, a.node + 0x1C, 1); }, "flver2.node.parent_index", "is a cycle"},
        {"mesh material", [&](auto& b) { put32(b, a.mesh + 4, 3); }, "flver2.mesh.material_index", "material 3 outside"},
        {"mesh node", [&](auto& b) { put32(b, a.mesh + 0x10, 9); }, "flver2.mesh.node_index", "node 9 outside"},
        {"edge face set", [&](auto& b) { put32(b, a.faceset, int32_t(flver::k_faceset_edge_compressed)); }, "flver2.faceset.index_size",
         "Edge-compressed"},
        {"face set index size", [&](auto& b) { put32(b, a.faceset + 0x18, 12); }, "flver2.faceset.index_size", "unsupported index size 12"},
        {"negative index count", [&](auto& b) { put32(b, a.faceset + 8, -3); }, "flver2.faceset.index_count", "negative"},
        {"indices outside", [&](auto& b) { put32(b, a.faceset + 0xC, 0x100000); }, "flver2.faceset.indices", "is outside"},
        {"member count", [&](auto& b) { put32(b, a.layout, 65); }, "flver2.layout.member_count", "65 members"},
        {"member type", [&](auto& b) { put32(b, member0 + 8, 0x77); }, "flver2.layout_member.type", "unsupported vertex type 0x77"},
        {"edge member", [&](auto& b) { put32(b, member0 + 8, 0xF0); }, "flver2.layout_member.type", "Edge-compressed"},
        {"struct offset", [&](auto& b) { put32(b, member0 + 0x14 + 4, 3); }, "flver2.layout_member.struct_offset",
         "expected the running size 12"},
        {"material textures", [&](auto& b) { put32(b, a.material + 8, 2); }, "flver2.material.texture_count",
         "outside the texture table"},
        {"mesh list count", [&](auto& b) { put32(b, a.mesh + 0x20, -1); }, "flver2.mesh.faceset_indices", "negative count"},
        {"mesh list index", [&](auto& b) { put32(b, a.faceset_list, 5); }, "flver2.mesh.faceset_indices", "index 5 outside"},
        {"vertex count", [&](auto& b) { put32(b, a.vertex_buffer + 0xC, -2); }, "flver2.vertex_buffer.vertex_count", "out of range"},
        {"layout index", [&](auto& b) { put32(b, a.vertex_buffer + 4, 4); }, "flver2.vertex_buffer.layout_index", "layout 4 outside"},
        {"vertex size", [&](auto& b) { put32(b, a.vertex_buffer + 8, 44); }, "flver2.vertex_buffer.vertex_size", "differs from the layout's 48"},
        {"buffer offset", [&](auto& b) { put32(b, a.vertex_buffer + 0x1C, -16); }, "flver2.vertex_buffer.buffer_offset", "negative"},
        {"buffer outside", [&](auto& b) { put32(b, a.vertex_buffer + 0x1C, 0x1000); }, "flver2.vertex_buffer.data", "is outside"},
        {"semantic type", [&](auto& b) { put32(b, member0 + 0x14 * 3 + 8, 0x11); put32(b, member0 + 8, 0x03); put32(b, member0 + 0x14 + 4, 16);
                                          put32(b, member0 + 0x14 * 2 + 4, 20); put32(b, member0 + 0x14 * 3 + 4, 24);
                                          put32(b, member0 + 0x14 * 4 + 4, 28); put32(b, member0 + 0x14 * 5 + 4, 36);
                                          put32(b, member0 + 0x14 * 6 + 4, 44); put32(b, member0 + 0x14 * 3 + 8, 0x10); },
         "flver2.layout_member.type", "for bone indices"},
        {"unterminated string", [&](auto& b) { put32(b, a.material, int32_t(b.size() - 2)); }, "flver2.material.name", "unterminated"},
        {"overlapping data", [&](auto& b) { put32(b, 0x10, int32_t(fx.at.vertices - fx.at.data)); },  // data area ends before the vertices
         "flver2.vertex_buffer.vertex_count", "more than the data area's"},
        {"index outside vertices", [&](auto& b) { put16(b, a.indices, 9); }, "flver2.faceset.indices", "index 9 outside the mesh's 4 vertices"},
        {"bone index outside nodes", [&](auto& b) { put16(b, a.vertices + 20, 2); }, "flver2.vertex.bone_indices", "bone index 2 outside"},
    };
    for (const auto& c : cases) {
        CAPTURE(std::string(c.what));
        auto b = good;
        c.patch(b);
        auto r = flver::read_flver(b);
        REQUIRE_FALSE(r);
        CHECK(r.error().field == c.field);
        CHECK_MESSAGE(r.error().reason.find(c.reason) != std::string::npos, r.error().to_string());
        CHECK(r.error().offset <= b.size());
    }
    // Shared records, too many attribute sets and the bone-list remap have their own messages.
    {
        test::FlverFixture f2;
        f2.mesh_count = 2;
        auto b = f2.build();
        auto r = flver::read_flver(b);
        REQUIRE_FALSE(r);
        CHECK(r.error().reason.find("face set 0 is used by more than one mesh") != std::string::npos);
        put32(b, f2.at.mesh + 0x30 + 0x20, 0);  // the second mesh has no face set, shares the buffer
        r = flver::read_flver(b);
        REQUIRE_FALSE(r);
        CHECK(r.error().reason.find("vertex buffer 0 is used by more than one mesh") != std::string::npos);
    }
    for (auto [type, semantic, sets, reason] : {std::tuple{0x16u, 5u, 5u, "more than 8 UV sets"},
                                                std::tuple{0x10u, 6u, 9u, "more than 8 tangent members"},
                                                std::tuple{0x10u, 10u, 9u, "more than 8 colour members"}}) {
        test::FlverFixture f2;
        for (uint32_t k = 0; k < sets; ++k) f2.custom_members.push_back({type, semantic, k});
        f2.custom_vertex.assign(sets * test::FlverFixture::type_size(type), 0);
        auto r = flver::read_flver(f2.build());
        REQUIRE_FALSE(r);
        CHECK(r.error().field == "flver2.layout_member");
        CHECK(r.error().reason == reason);
    }
    {
        test::FlverFixture f2;
        f2.version = 0x2000D;
        f2.mesh_bones = {0};
        f2.bone_index = 1;
        auto r = flver::read_flver(f2.build());
        REQUIRE_FALSE(r);
        CHECK(r.error().reason.find("outside the mesh's bone list of 1") != std::string::npos);
    }
}

namespace {

// Bytes of little-endian values.
struct Bytes8 {
    std::vector<uint8_t> b;
    Bytes8& f(float v) { return raw(&v, 4); }
    Bytes8& i16(int16_t v) { return raw(&v, 2); }
    Bytes8& u16(uint16_t v) { return raw(&v, 2); }
    Bytes8& u8(std::initializer_list<int> v) {
        for (int x : v) b.push_back(uint8_t(x));
        return *this;
    }
    Bytes8& raw(const void* p, size_t n) {
        const auto* c = static_cast<const uint8_t*>(p);
        b.insert(b.end(), c, c + n);
        return *this;
    }
};

flver::Vertices decode_one(uint32_t type, uint32_t semantic, const std::vector<uint8_t>& vertex, int32_t version = 0x20014) {
    test::FlverFixture fx;
    fx.version = version;
    fx.custom_members = {{type, semantic, 0}};
    fx.custom_vertex = vertex;
    auto r = flver::read_flver(fx.build());
    REQUIRE_MESSAGE(r, r.error().to_string());
    return r->meshes.at(0).vertices;
}

}  // namespace

// Expected values are worked by hand from docs/formats.md#vertex-layouts.
TEST_CASE("flver: every (semantic, type) pair of the vertex layout table decodes as the table says") {
    using V = flver::Vertices;
    V v;
    v = decode_one(0x03, 0, Bytes8{}.f(1).f(2).f(3).f(0).b);  // Position Float4: Vec3 + 0
    CHECK(v.positions[0].z == 3.0f);
    v = decode_one(0x02, 3, Bytes8{}.f(0).f(1).f(0).b);
    CHECK(v.normals[0].y == 1.0f);
    v = decode_one(0x03, 3, Bytes8{}.f(0).f(0).f(1).f(2).b);  // Normal Float4: w whole number
    CHECK(v.normal_w[0] == 2);
    for (uint32_t t : {0x10u, 0x11u, 0x13u, 0x2Fu}) {  // 4 u8: (b - 127) / 127, w raw
        v = decode_one(t, 3, Bytes8{}.u8({254, 127, 0, 9}).b);
        CHECK(v.normals[0].x == 1.0f);
        CHECK(v.normals[0].y == 0.0f);
        CHECK(v.normals[0].z == -1.0f);
        CHECK(v.normal_w[0] == 9);
    }
    v = decode_one(0x12, 3, Bytes8{}.u8({5, 127, 0x81, 0}).b);  // w first, then i8 z, y, x
    CHECK(v.normal_w[0] == 5);
    CHECK(v.normals[0].z == 1.0f);
    CHECK(v.normals[0].y == -1.0f);
    CHECK(v.normals[0].x == 0.0f);
    v = decode_one(0x1A, 3, Bytes8{}.i16(32767).i16(0).i16(-32767).i16(7).b);  // i16 / 32767
    CHECK(v.normals[0].x == 1.0f);
    CHECK(v.normals[0].z == -1.0f);
    CHECK(v.normal_w[0] == 7);
    v = decode_one(0x2E, 3, Bytes8{}.u16(65534).u16(32767).u16(0).i16(3).b);  // (u - 32767) / 32767
    CHECK(v.normals[0].x == 1.0f);
    CHECK(v.normals[0].y == 0.0f);
    CHECK(v.normals[0].z == -1.0f);
    CHECK(v.normal_w[0] == 3);
    v = decode_one(0x18, 3, Bytes8{}.i16(254).i16(127).i16(0).i16(0).b);  // AC6: i16 / 127 - 1
    CHECK(v.normals[0].x == 1.0f);
    CHECK(v.normals[0].y == 0.0f);
    CHECK(v.normals[0].z == -1.0f);
    // Tangents and bitangents.
    v = decode_one(0x03, 6, Bytes8{}.f(1).f(0).f(0).f(-1).b);
    CHECK(v.tangents.at(0)[0].w == -1.0f);
    v = decode_one(0x13, 7, Bytes8{}.u8({127, 254, 127, 0}).b);
    CHECK(v.bitangents[0].y == 1.0f);
    CHECK(v.bitangents[0].w == -1.0f);
    v = decode_one(0x14, 6, Bytes8{}.u8({127, 0, 0, 0x81}).b);  // i8 w, z, y, x
    CHECK(v.tangents.at(0)[0].w == 1.0f);
    CHECK(v.tangents.at(0)[0].x == -1.0f);
    v = decode_one(0x1A, 6, Bytes8{}.i16(0).i16(32767).i16(0).i16(-32767).b);
    CHECK(v.tangents.at(0)[0].y == 1.0f);
    CHECK(v.tangents.at(0)[0].w == -1.0f);
    // UVs: floats as stored; integers / 2048 (/ 1024 before 0x2000E).
    v = decode_one(0x01, 5, Bytes8{}.f(0.25f).f(0.75f).b);
    CHECK(v.uvs.at(0)[0].y == 0.75f);
    v = decode_one(0x02, 5, Bytes8{}.f(0.25f).f(0.75f).f(9).b);
    CHECK(v.uvs.size() == 1);
    v = decode_one(0x03, 5, Bytes8{}.f(1).f(2).f(3).f(4).b);
    REQUIRE(v.uvs.size() == 2);
    CHECK(v.uvs[1][0].x == 3.0f);
    for (uint32_t t : {0x10u, 0x11u, 0x12u, 0x15u, 0x2Du}) {
        v = decode_one(t, 5, Bytes8{}.i16(2048).i16(-1024).b);
        CHECK(v.uvs.at(0)[0].x == 1.0f);
        CHECK(v.uvs.at(0)[0].y == -0.5f);
    }
    v = decode_one(0x15, 5, Bytes8{}.i16(2048).i16(-1024).b, 0x2000D);
    CHECK(v.uvs.at(0)[0].x == 2.0f);
    v = decode_one(0x13, 5, Bytes8{}.u8({255, 0, 51, 102}).b);  // SFN: four u8 / 255, two sets
    REQUIRE(v.uvs.size() == 2);
    CHECK(v.uvs[1][0].x == doctest::Approx(0.2));
    CHECK(v.uvs[1][0].y == doctest::Approx(0.4));
    for (uint32_t t : {0x16u, 0x1Au, 0x2Eu}) {
        v = decode_one(t, 5, Bytes8{}.i16(512).i16(1024).i16(-2048).i16(4096).b);
        REQUIRE(v.uvs.size() == 2);
        CHECK(v.uvs[0][0].x == 0.25f);
        CHECK(v.uvs[1][0].x == -1.0f);
        CHECK(v.uvs[1][0].y == 2.0f);
    }
    // Bone weights.
    v = decode_one(0x10, 1, Bytes8{}.u8({127, 0x81, 0, 0}).b);
    CHECK(v.bone_weights[0].x == 1.0f);
    CHECK(v.bone_weights[0].y == -1.0f);
    v = decode_one(0x13, 1, Bytes8{}.u8({255, 51, 0, 0}).b);
    CHECK(v.bone_weights[0].y == doctest::Approx(0.2));
    for (uint32_t t : {0x16u, 0x1Au}) {
        v = decode_one(t, 1, Bytes8{}.i16(32767).i16(0).i16(0).i16(0).b);
        CHECK(v.bone_weights[0].x == 1.0f);
    }
    // Bone indices.
    for (uint32_t t : {0x11u, 0x2Fu, 0x12u}) {
        v = decode_one(t, 2, Bytes8{}.u8({1, 0, 1, 0}).b);
        CHECK(v.bone_indices[0] == std::array<uint16_t, 4>{1, 0, 1, 0});
    }
    v = decode_one(0x17, 2, Bytes8{}.u16(1).u16(0).b);
    CHECK(v.bone_indices[0] == std::array<uint16_t, 4>{1, 0, 0, 0});
    // Colours.
    v = decode_one(0x03, 10, Bytes8{}.f(1).f(0.5f).f(0).f(1).b);
    CHECK(v.colors.at(0)[0].y == 0.5f);
    for (uint32_t t : {0x10u, 0x13u}) {
        v = decode_one(t, 10, Bytes8{}.u8({255, 51, 0, 255}).b);
        CHECK(v.colors.at(0)[0].y == doctest::Approx(0.2));
    }
    // Unknown semantics with a known type are skipped.
    v = decode_one(0x11, 4, Bytes8{}.u8({1, 2, 3, 4}).b);
    CHECK(v.positions.empty());
}

TEST_CASE("flver: 32-bit face set indices") {
    test::FlverFixture fx;
    fx.index32 = true;
    auto r = flver::read_flver(fx.build());
    REQUIRE_MESSAGE(r, r.error().to_string());
    CHECK(r->meshes[0].face_sets[0].index_size == 32);
    CHECK(r->meshes[0].lod0()->triangles(4).size() == 2);
    CHECK(r->meshes[0].face_sets[0].indices[5] == 3);
}
