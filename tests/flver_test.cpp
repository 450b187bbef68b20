// FLVER2 reader: every corpus FLVER against soulstruct's reading, truncation at every length,
// one test per error message.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "corpus.h"
#include "drape/flver/flver.h"
#include "flver_corpus.h"

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
        // Type 0x13 UV members (UByte4Norm, really layer blend weights, seed 003 §2) hold two sets
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
