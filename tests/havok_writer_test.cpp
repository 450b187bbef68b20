// The tagfile writer and the synthesized Sekiro / Elden Ring cloth tagfiles: round trip of every
// member through the generic view, type records equal to the registry, typed hcl views.
#include <doctest/doctest.h>

#include <set>

#include "corpus.h"
#include "drape/havok/cloth.h"
#include "havok_fixtures.h"
#include "tagfile_writer.h"

using namespace drape;
using namespace drape::havok;
using namespace drape::test;

namespace {

// The type's record in comparable form: names instead of indices.
std::string record(const TypeTable& t, uint32_t i) {
    const Type& ty = t.at(i);
    std::string s = t.full_name(i) + " parent=" + t.full_name(ty.parent) + " format=" + std::to_string(ty.r_format) +
                    " subtype=" + t.full_name(ty.r_subtype) + " version=" + std::to_string(ty.r_version) + " size=" + std::to_string(ty.r_size) +
                    " align=" + std::to_string(ty.r_align) + " flags=" + std::to_string(ty.r_flags);
    for (const auto& m : ty.members)
        if (!(m.flags & 16)) s += "\n  " + m.name + " @" + std::to_string(m.offset) + " " + t.full_name(m.type) + " flags=" + std::to_string(m.flags);
    return s;
}

struct Synth {
    File file;
    hcl::ClothContainer cloth;
};

Synth synth(ClothGame g) {
    auto types = fixture_types(g);
    REQUIRE_MESSAGE(types, (types ? "" : types.error().to_string()));
    const auto bytes = synthesize_cloth(g, *types);
    auto f = read_tagfile(bytes);
    REQUIRE_MESSAGE(f, (f ? "" : f.error().to_string()));
    auto c = hcl::read_cloth(*f);
    REQUIRE_MESSAGE(c, (c ? "" : c.error().to_string()));
    return {std::move(*f), std::move(*c)};
}

void check_every_census_class(const Synth& s) {
    std::set<std::string> classes;
    for (uint32_t i : s.file.objects()) classes.insert(s.file.class_name(i));
    for (const auto& c : fixture_classes())
        if (c != "char" && c != "hkRootLevelContainer") CHECK_MESSAGE(classes.count(c), c);
    std::set<hcl::ConstraintKind> kinds;
    std::set<hcl::OperatorKind> ops;
    std::set<hcl::ShapeKind> shapes;
    for (const auto& cd : s.cloth.cloth_datas) {
        for (const auto& sc : cd.sim_cloths) {
            for (const auto& cs : sc.static_constraint_sets) kinds.insert(cs.kind);
            for (const auto& col : sc.per_instance_collidables)
                if (col.shape) shapes.insert(col.shape->kind);
        }
        for (const auto& op : cd.operators) ops.insert(op.kind);
    }
    CHECK(kinds.size() == 8);
    CHECK(!kinds.count(hcl::ConstraintKind::other));
    CHECK(ops.size() == 23);
    CHECK(!ops.count(hcl::OperatorKind::other));
    CHECK(shapes.size() == 5);
}

}  // namespace

TEST_CASE("tagfile writer: the ER cloth's type records equal the 2018 registry for every hcl class") {
    auto reg = load_registry_xml(reference_dir() / "havok" / "HavokTypeRegistry20180100.xml");
    REQUIRE(reg);
    const Synth s = synth(ClothGame::elden_ring);
    CHECK(s.file.sdk == "20180100");
    size_t compared = 0;
    for (uint32_t i = 1; i < s.file.types.types.size(); ++i) {
        const std::string& n = s.file.types.types[i].name;
        if (n.rfind("hcl", 0) != 0) continue;
        // the registry's type of that full name
        const std::string full = s.file.types.full_name(i);
        uint32_t r = 0;
        for (uint32_t k = 1; k < reg->types.size() && !r; ++k)
            if (reg->types[k].name == n && reg->full_name(k) == full) r = k;
        REQUIRE_MESSAGE(r, full);
        CHECK(record(s.file.types, i) == record(*reg, r));
        ++compared;
    }
    CHECK(compared > 100);
}

TEST_CASE("tagfile writer: the synthesized ER cloth reads back member for member") {
    const Synth s = synth(ClothGame::elden_ring);
    CHECK(verify_synthesized(s.file) == "");
    check_every_census_class(s);
    REQUIRE(!s.cloth.cloth_datas.empty());
    REQUIRE(!s.cloth.cloth_datas[0].sim_cloths.empty());
    const auto& sc = s.cloth.cloth_datas[0].sim_cloths[0];
    CHECK(sc.version == 14);
    // typed view == generic view, by member name
    const Value v = s.file.object(sc.item);
    CHECK(sc.name == v["name"].as_string());
    CHECK(sc.particles.size() == v["particleDatas"].size());
    CHECK(sc.particles[1].friction == float(v["particleDatas"].at(1)["friction"].as_float()));
    CHECK(sc.fixed_particles[1] == v["fixedParticles"].at(1).as_int());
    const Value vcp = v["virtualCollisionPointsData"];
    CHECK(sc.virtual_collision_points.num_vc_points == vcp["numVCPoints"].as_int());
    REQUIRE(sc.virtual_collision_points.triangles.size() == vcp["triangles"].size());
    CHECK(sc.virtual_collision_points.triangles[1].opposite_real_particle_indices[1] ==
          vcp["triangles"].at(1)["oppositeRealParticleIndices"].at(1).as_int());
    CHECK(sc.virtual_collision_points.edge_fans_landscape[0].vcp_start_index == vcp["edgeFansLandscape"].at(0)["vcpStartIndex"].as_int());
    CHECK(v["name"].offset() - v.offset() == 24);  // Appendix A
}

TEST_CASE("tagfile writer: the synthesized Sekiro cloth (16-byte hkReferencedObject, hclSimClothData v13) reads back") {
    const Synth s = synth(ClothGame::sekiro);
    CHECK(s.file.sdk == "20160200");
    CHECK(s.file.year == 2016);
    CHECK(verify_synthesized(s.file) == "");
    check_every_census_class(s);
    const uint32_t ro = s.file.types.find("hkReferencedObject");
    CHECK(s.file.types.at(ro).r_size == 16);
    const auto& sc = s.cloth.cloth_datas[0].sim_cloths[0];
    CHECK(sc.version == 13);
    const Value v = s.file.object(sc.item);
    CHECK(v["name"].offset() - v.offset() == 16);  // docs/formats.md#sdk-differences: first member at 16
    CHECK(sc.name == v["name"].as_string());
    const auto& op = s.cloth.cloth_datas[0].operators;
    REQUIRE(!op.empty());
    CHECK(op[0].name == s.file.object(op[0].item)["name"].as_string());
}

TEST_CASE("tagfile writer: a Sekiro cloth laid out as the corpus's Sekiro files are (2018 sections, SDK 20160200) reads back") {
    const Synth s = synth(ClothGame::sekiro_as_corpus);
    CHECK(s.file.sdk == "20160200");
    CHECK(verify_synthesized(s.file) == "");
    check_every_census_class(s);
    CHECK(s.file.types.at(s.file.types.find("hkReferencedObject")).r_size == 24);
    const auto& sc = s.cloth.cloth_datas[0].sim_cloths[0];
    CHECK(sc.version == 13);
    const Value v = s.file.object(sc.item);
    CHECK(v["name"].offset() - v.offset() == 24);
}

TEST_CASE("tagfile writer: varint-heavy TYPE sections survive truncation of the synthesized Sekiro file") {
    auto types = fixture_types(ClothGame::sekiro);
    REQUIRE(types);
    const auto bytes = synthesize_cloth(ClothGame::sekiro, *types);
    // every 97th length, to keep the test fast; the real small tagfile is cut at every length elsewhere
    for (size_t n = 0; n < bytes.size(); n += 97) {
        auto r = read_tagfile(Bytes(bytes.data(), n));
        REQUIRE_FALSE(r);
        CHECK(r.error().offset <= n);
    }
}

TEST_CASE("typed views: objects shared many times over hit the element budget, not the memory") {
    auto types = fixture_types(ClothGame::elden_ring);
    REQUIRE(types);
    TagfileWriter w(TagfileFlavour::v2018, *types);
    const uint32_t root = w.add_object(w.type("hkRootLevelContainer"));
    const uint32_t container = w.add_object(w.type("hclClothContainer"));
    const uint32_t data = w.add_object(w.type("hclClothData"));
    const uint32_t sim = w.add_object(w.type("hclSimClothData"));
    auto nv = w.object(root)["namedVariants"];
    REQUIRE(nv.resize(1) == 1);
    nv.at(0)["variant"].set_pointer(container);
    auto datas = w.object(container)["clothDatas"];
    const uint64_t n = 4000;
    REQUIRE(datas.resize(n) == n);
    for (uint64_t i = 0; i < n; ++i) datas.at(i).set_pointer(data);  // the same cloth data 4000 times
    auto sims = w.object(data)["simClothDatas"];
    REQUIRE(sims.resize(1) == 1);
    sims.at(0).set_pointer(sim);
    REQUIRE(w.object(sim)["particleDatas"].resize(2000) == 2000);
    const auto bytes = w.finish();
    auto f = read_tagfile(bytes);
    REQUIRE(f);
    auto c = hcl::read_cloth(*f);
    REQUIRE_FALSE(c);
    CHECK(c.error().reason == "the typed view would read more than 16 elements per byte of data (objects shared too many times)");
}
