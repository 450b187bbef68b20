// The committed sample game (samples/game): reproduced byte for byte by its generator, clean
// under every rule drape check applies, and a cloth whose rest pose and display binding hold.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <set>

#include "drape/anim/anibnd.h"
#include "drape/bnd/bnd4.h"
#include "drape/dcx/dcx.h"
#include "drape/exporters/cloth_export.h"
#include "drape/exporters/gltf.h"
#include "drape/flver/flver.h"
#include "drape/havok/animation.h"
#include "drape/havok/cloth.h"
#include "drape/havok/hkx.h"
#include "drape/io/file.h"
#include "drape/tpf/tpf.h"
#include "sample_game.h"

using namespace drape;
using test::SampleFacts;

namespace {

std::filesystem::path sample_dir() { return std::filesystem::path(DRAPE_SOURCE_DIR) / "samples" / "game"; }

// The members of a committed DCX > BND4 file, by name (the binder's path stripped).
std::map<std::string, std::vector<uint8_t>> members(const std::string& rel) {
    std::map<std::string, std::vector<uint8_t>> out;
    auto data = read_file(sample_dir() / rel);
    REQUIRE_MESSAGE(data, data.error().to_string());
    auto raw = dcx::decompress(*data);
    REQUIRE_MESSAGE(raw, raw.error().to_string());
    auto b = bnd::read_bnd4(*raw);
    REQUIRE_MESSAGE(b, b.error().to_string());
    for (const auto& e : b->entries) {
        auto bytes = bnd::entry_bytes(*b, e);
        REQUIRE_MESSAGE(bytes, bytes.error().to_string());
        out[e.name.substr(e.name.find_last_of('\\') + 1)] = std::move(*bytes);
    }
    return out;
}

struct Loaded {
    havok::File file;
    hcl::ClothContainer cloth;
    std::vector<havok::Skeleton> skeletons;
    flver::Model model;
};

Loaded load_character() {
    auto m = members("chr/c9999.chrbnd.dcx");
    REQUIRE(m.count("c9999_c.hkx"));
    REQUIRE(m.count("c9999.flver"));
    Loaded l;
    auto f = havok::read_tagfile(m["c9999_c.hkx"]);
    REQUIRE_MESSAGE(f, f.error().to_string());
    l.file = std::move(*f);
    auto c = hcl::read_cloth(l.file);
    REQUIRE_MESSAGE(c, c.error().to_string());
    l.cloth = std::move(*c);
    auto a = havok::read_animation_container(l.file);
    REQUIRE_MESSAGE(a, a.error().to_string());
    l.skeletons = a->skeletons;
    auto model = flver::read_flver(m["c9999.flver"]);
    REQUIRE_MESSAGE(model, model.error().to_string());
    l.model = std::move(*model);
    return l;
}

using Mat = std::array<double, 16>;  // column-major
Mat mul(const Mat& a, const Mat& b) {
    Mat r{};
    for (int c = 0; c < 4; ++c)
        for (int row = 0; row < 4; ++row) {
            double s = 0;
            for (int k = 0; k < 4; ++k) s += a[size_t(k * 4 + row)] * b[size_t(c * 4 + k)];
            r[size_t(c * 4 + row)] = s;
        }
    return r;
}

// Model-space bind matrices of a Havok skeleton from its reference pose (rotation and translation).
std::vector<Mat> bind_matrices(const havok::Skeleton& sk) {
    std::vector<Mat> out;
    for (size_t i = 0; i < sk.bone_names.size(); ++i) {
        const auto& t = sk.reference_pose[i];
        const double x = t.rotation[0], y = t.rotation[1], z = t.rotation[2], w = t.rotation[3];
        Mat local = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),     0,
                     2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),     0,
                     2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y), 0,
                     t.translation[0],        t.translation[1],        t.translation[2],        1};
        out.push_back(sk.parents[i] < 0 ? local : mul(out[size_t(sk.parents[i])], local));
    }
    return out;
}

// The object-space skin at the bind pose, computed from the operator's own data: for each vertex
// the blend of (bone x boneFromSkinMesh) x local position, weights as bytes / 255. The blend
// group of block k is controlBytes[k] = 4 - N, as every Elden Ring file stores it (c5000_c.hkx and
// HD_M_3005_c.hkx: the number of blocks of each control byte equals the number of four-, three-,
// two- and one-blend blocks). Returns NaN for vertices the skin does not write.
std::vector<std::array<double, 3>> skin_at_bind(const hcl::Operator& op, const std::vector<Mat>& bones, size_t vertex_count) {
    std::vector<std::array<double, 3>> out(vertex_count, {NAN, NAN, NAN});
    std::vector<std::vector<const hcl::BlendBlock*>> by_n(5);
    for (const auto& b : op.deformer.blocks)
        if (b.blends >= 1 && b.blends <= 4) by_n[b.blends].push_back(&b);
    std::vector<size_t> next(5, 0);
    for (size_t k = 0; k < op.deformer.control_bytes.size(); ++k) {
        const int n = 4 - int(op.deformer.control_bytes[k]);
        REQUIRE(n >= 1);
        REQUIRE(n <= 4);
        REQUIRE(next[size_t(n)] < by_n[size_t(n)].size());
        const hcl::BlendBlock& block = *by_n[size_t(n)][next[size_t(n)]++];
        for (size_t j = 0; j < block.vertex_indices.size(); ++j) {
            const auto local = hcl::unpack_vector3(op.local.packed_positions.at(k * 16 + j));
            std::array<double, 3> p{0, 0, 0};
            for (int b = 0; b < n; ++b) {
                const size_t slot = j * size_t(n) + size_t(b);
                const double wgt = n == 1 ? 1.0 : block.bone_weights.at(slot) / 255.0;
                const uint16_t bone = op.transform_subset.at(block.bone_indices.at(slot));
                Mat from{};
                for (size_t e = 0; e < 16; ++e) from[e] = op.bone_from_skin_mesh_transforms.at(block.bone_indices.at(slot))[e];
                const Mat m = mul(bones.at(bone), from);
                for (int r = 0; r < 3; ++r)
                    p[size_t(r)] += wgt * (m[size_t(r)] * local[0] + m[size_t(4 + r)] * local[1] + m[size_t(8 + r)] * local[2] + m[size_t(12 + r)]);
            }
            out.at(block.vertex_indices[j]) = p;
        }
    }
    return out;
}

const hcl::ClothData& the_cloth(const Loaded& l) {
    REQUIRE(l.cloth.cloth_datas.size() == 1);
    return l.cloth.cloth_datas[0];
}

}  // namespace

TEST_CASE("sample game: the generator reproduces the committed files byte for byte") {
    auto files = test::sample_game_files();
    REQUIRE_MESSAGE(files, files.error().to_string());
    REQUIRE(files->size() == 3);
    std::set<std::string> generated;
    size_t total = 0;
    for (const auto& file : *files) {
        const auto& rel = file.first;  // no structured bindings: clang 14 cannot capture them in doctest macros
        const auto& bytes = file.second;
        CAPTURE(rel);
        generated.insert(rel);
        auto committed = read_file(sample_dir() / rel);
        REQUIRE_MESSAGE(committed, committed.error().to_string());
        // When the generator changes on purpose: build/release/tests/drape_make_sample samples/game
        CHECK_MESSAGE(*committed == bytes, "samples/game/" << rel << " differs from the generator's output; regenerate with drape_make_sample samples/game");
        total += bytes.size();
    }
    // Nothing else is committed there but the README.
    size_t others = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(sample_dir())) {
        if (!e.is_regular_file() || e.path().extension() == ".md") continue;
        const std::string rel = std::filesystem::relative(e.path(), sample_dir()).generic_string();
        CHECK_MESSAGE(generated.count(rel), "samples/game/" << rel << " is not a file of the generator");
        ++others;
    }
    CHECK(others == 3);
    CHECK(total < 100 * 1024);  // tens of KB
}

TEST_CASE("sample game: the cape's cloth is clean under every rule drape check applies") {
    const Loaded l = load_character();
    CHECK(l.file.sdk == "20180100");
    REQUIRE(l.skeletons.size() == 1);
    const auto violations = hcl::check(l.cloth, l.skeletons);
    for (const auto& v : violations) CAPTURE(v.object + " " + v.member + ": " + v.message);
    CHECK(violations.empty());
}

TEST_CASE("sample game: the cloth program is a real one") {
    const Loaded l = load_character();
    const hcl::ClothData& cd = the_cloth(l);
    REQUIRE(cd.sim_cloths.size() == 1);
    const hcl::SimClothData& s = cd.sim_cloths[0];
    CHECK(s.particles.size() == size_t(SampleFacts::cape_vertices));
    // The top row is pinned: fixed, weightless, moved by the move-particles operator.
    REQUIRE(s.fixed_particles.size() == size_t(SampleFacts::cape_columns));
    for (size_t i = 0; i < s.fixed_particles.size(); ++i) {
        CHECK(s.fixed_particles[i] == i);
        CHECK(s.particles[i].inv_mass == 0.0f);
    }
    std::multiset<std::string> states, kinds;
    for (const auto& st : cd.states) states.insert(st.name);
    CHECK(states == std::multiset<std::string>{"#00#Empty", "#01#Default", "_Skin", "_curAtoS_#01#Default", "_preAtoS_#01#Default"});
    for (const auto& op : cd.operators) kinds.insert(hcl::operator_kind_name(op.kind));
    CHECK(kinds.count(hcl::operator_kind_name(hcl::OperatorKind::object_space_skin_pn)) == 2);
    CHECK(kinds.count(hcl::operator_kind_name(hcl::OperatorKind::move_particles)) == 1);
    CHECK(kinds.count(hcl::operator_kind_name(hcl::OperatorKind::simulate)) == 1);
    std::set<hcl::ConstraintKind> sets;
    for (const auto& c : s.static_constraint_sets) sets.insert(c.kind);
    for (auto k : {hcl::ConstraintKind::standard_link, hcl::ConstraintKind::stretch_link, hcl::ConstraintKind::bend_link, hcl::ConstraintKind::local_range,
                   hcl::ConstraintKind::transition})
        CHECK(sets.count(k));
    // The first state runs skin, move particles and simulate in that order.
    const hcl::ClothState& first = cd.states.at(0);
    CHECK(first.name == "#01#Default");
    std::vector<hcl::OperatorKind> order;
    for (uint32_t i : first.operators) order.push_back(cd.operators.at(i).kind);
    const auto at = [&](hcl::OperatorKind k) { return std::find(order.begin(), order.end(), k) - order.begin(); };
    CHECK(at(hcl::OperatorKind::object_space_skin_pn) < at(hcl::OperatorKind::move_particles));
    CHECK(at(hcl::OperatorKind::move_particles) < at(hcl::OperatorKind::simulate));
    CHECK(at(hcl::OperatorKind::simulate) < long(order.size()));
    // A capsule on the body following Spine1 through the collidable transform map.
    REQUIRE(s.per_instance_collidables.size() == 1);
    REQUIRE(s.per_instance_collidables[0].shape);
    CHECK(s.per_instance_collidables[0].shape->kind == hcl::ShapeKind::capsule);
    REQUIRE(s.collidable_transform_map.transform_indices.size() == 1);
    CHECK(s.collidable_transform_map.transform_set_index == 0);
    CHECK(l.skeletons[0].bone_names.at(s.collidable_transform_map.transform_indices[0]) == "Spine1");
    for (size_t p = size_t(SampleFacts::cape_columns); p < s.particles.size(); ++p) CHECK(s.static_collision_masks.at(p) == 1u);
    // At rest no free particle is inside the capsule (its radius included).
    const auto& col = s.per_instance_collidables[0];
    const auto& sh = *col.shape;
    for (size_t p = 0; p < s.particles.size(); ++p) {
        const auto& x = s.poses.at(0).positions.at(p);
        // capsule axis in model space: the collidable's transform (identity rotation) moves it
        const double ax = col.transform[12] + sh.start[0], ay0 = col.transform[13] + sh.start[1], ay1 = col.transform[13] + sh.end[1];
        const double y = std::clamp(double(x[1]), ay0, ay1);
        const double d = std::sqrt((x[0] - ax) * (x[0] - ax) + (x[1] - y) * (x[1] - y) + (x[2] - col.transform[14]) * (x[2] - col.transform[14]));
        CHECK(d >= sh.radius + s.particles[p].radius);
    }
}

TEST_CASE("sample game: the pinned particles at the bind pose sit on the rest pose (the rest-pose figure)") {
    const Loaded l = load_character();
    const hcl::ClothData& cd = the_cloth(l);
    const auto bones = bind_matrices(l.skeletons[0]);
    size_t pairs = 0;
    for (const auto& mp : cd.operators) {
        if (mp.kind != hcl::OperatorKind::move_particles) continue;
        for (const auto& op : cd.operators) {
            if (op.kind != hcl::OperatorKind::object_space_skin_pn || op.output_buffer_idx != mp.ref_buffer_idx) continue;
            const auto bind = skin_at_bind(op, bones, cd.buffers.at(op.output_buffer_idx).num_vertices);
            const auto& rest = cd.sim_cloths.at(mp.sim_cloth_index).poses.at(0).positions;
            for (const auto& pr : mp.vertex_particle_pairs) {
                const auto& b = bind.at(pr.vertex_index);
                const auto& p = rest.at(pr.particle_index);
                REQUIRE_FALSE(std::isnan(b[0]));
                const double e = std::sqrt((b[0] - p[0]) * (b[0] - p[0]) + (b[1] - p[1]) * (b[1] - p[1]) + (b[2] - p[2]) * (b[2] - p[2]));
                CHECK(e <= 1e-4);
                ++pairs;
            }
        }
    }
    CHECK(pairs == size_t(SampleFacts::cape_columns));
}

TEST_CASE("sample game: the display buffer binds the cape mesh by the games' display-buffer rule") {
    const Loaded l = load_character();
    const hcl::ClothData& cd = the_cloth(l);
    const auto bones = bind_matrices(l.skeletons[0]);
    size_t display = 0;
    for (size_t bi = 0; bi < cd.buffers.size(); ++bi) {
        const auto& buf = cd.buffers[bi];
        if (buf.type != 4) continue;
        ++display;
        CHECK(buf.name == SampleFacts::cape_mesh);
        // Exactly one mesh whose default node is named as the buffer, with its vertex count and
        // first-face-set triangle count.
        const flver::Mesh* mesh = nullptr;
        size_t matches = 0;
        for (const auto& m : l.model.meshes) {
            const uint32_t nv = uint32_t(m.vertices.positions.size());
            if (m.default_node < 0 || l.model.nodes.at(size_t(m.default_node)).name != buf.name) continue;
            if (nv != buf.num_vertices || m.face_sets.empty() || m.face_sets[0].triangles(nv).size() != buf.num_triangles) continue;
            mesh = &m;
            ++matches;
        }
        REQUIRE(matches == 1);
        // Vertices in the mesh's order: the skin writing the buffer puts display vertex i on mesh
        // vertex i at the bind pose, within 4.9e-5 of the mesh's size.
        flver::Vec3 lo{1e9f, 1e9f, 1e9f}, hi{-1e9f, -1e9f, -1e9f};
        for (const auto& p : mesh->vertices.positions) {
            lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
            hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
        }
        const double size = std::sqrt(double(hi.x - lo.x) * (hi.x - lo.x) + double(hi.y - lo.y) * (hi.y - lo.y) + double(hi.z - lo.z) * (hi.z - lo.z));
        size_t skins = 0;
        for (const auto& op : cd.operators) {
            if (op.kind != hcl::OperatorKind::object_space_skin_pn || op.output_buffer_idx != bi) continue;
            ++skins;
            const auto bind = skin_at_bind(op, bones, buf.num_vertices);
            double worst = 0;
            for (size_t v = 0; v < bind.size(); ++v) {
                REQUIRE_FALSE(std::isnan(bind[v][0]));
                const auto& q = mesh->vertices.positions[v];
                worst = std::max(worst, std::sqrt((bind[v][0] - q.x) * (bind[v][0] - q.x) + (bind[v][1] - q.y) * (bind[v][1] - q.y) +
                                                  (bind[v][2] - q.z) * (bind[v][2] - q.z)) / size);
            }
            CHECK(worst <= 4.9e-5);
        }
        CHECK(skins == 1);
    }
    CHECK(display == 1);
}

TEST_CASE("sample game: the anibnd holds the skeleton and a short clip of the model's bones") {
    auto data = read_file(sample_dir() / "chr/c9999.anibnd.dcx");
    REQUIRE(data);
    auto set = anim::read_clip_set(*data, "c9999.anibnd.dcx");
    REQUIRE_MESSAGE(set, set.error().to_string());
    CHECK(set->failures.empty());
    REQUIRE(set->clips.size() == 1);
    const auto& clip = set->clips[0];
    CHECK(clip.name == SampleFacts::clip);
    CHECK(clip.num_frames == SampleFacts::clip_frames);
    CHECK(clip.num_tracks == SampleFacts::bones);
    CHECK(clip.duration == doctest::Approx(1.5));
    REQUIRE(set->skeletons.size() == 1);
    CHECK(set->skeletons[0].bone_names.size() == size_t(SampleFacts::bones));
    // The clip moves the root and the pelvis (the cape needs motion to swing).
    double root_travel = 0;
    for (int f = 1; f < clip.num_frames; ++f) {
        const auto& a = clip.frames.at(size_t((f - 1) * clip.num_tracks)).translation;
        const auto& b = clip.frames.at(size_t(f * clip.num_tracks)).translation;
        root_travel += std::abs(double(b[2]) - a[2]);
    }
    CHECK(root_travel > 0.5);
    // Its skeleton is the model's: every bone matches a FLVER node by name, at the same bind pose.
    const Loaded l = load_character();
    exporters::Skeleton sk;
    const auto& hs = set->skeletons[0];
    for (size_t i = 0; i < hs.bone_names.size(); ++i) {
        exporters::SkeletonBone b;
        b.name = hs.bone_names[i];
        b.parent = hs.parents[i];
        for (int k = 0; k < 3; ++k) b.translation[size_t(k)] = hs.reference_pose[i].translation[size_t(k)];
        for (int k = 0; k < 4; ++k) b.rotation[size_t(k)] = hs.reference_pose[i].rotation[size_t(k)];
        sk.bones.push_back(b);
    }
    const auto rep = exporters::match_skeleton(l.model, sk);
    CHECK(rep.matched.size() == size_t(SampleFacts::bones));
    CHECK(rep.havok_only.empty());
    CHECK(rep.pose_mismatches.empty());
    CHECK(rep.parent_mismatches.empty());
    // And the cloth's transform set is that skeleton.
    REQUIRE(l.skeletons.size() == 1);
    CHECK(l.skeletons[0].bone_names == hs.bone_names);
}

TEST_CASE("sample game: the texbnd holds every texture the materials name") {
    auto m = members("chr/c9999_h.texbnd.dcx");
    REQUIRE(m.count("c9999_h.tpf"));
    auto tpf = tpf::read_tpf(m["c9999_h.tpf"]);
    REQUIRE_MESSAGE(tpf, tpf.error().to_string());
    std::set<std::string> names;
    for (const auto& t : tpf->textures) names.insert(t.name);
    const Loaded l = load_character();
    size_t named = 0;
    for (const auto& mat : l.model.materials)
        for (const auto& t : mat.textures) {
            const std::string stem = t.path.substr(t.path.find_last_of('\\') + 1, t.path.find_last_of('.') - t.path.find_last_of('\\') - 1);
            CHECK_MESSAGE(names.count(stem), stem);
            ++named;
        }
    CHECK(named == 2);
    // The body is a skinned mesh of boxes, one bone each.
    REQUIRE(l.model.meshes.size() == 2);
    CHECK(l.model.meshes[0].vertices.positions.size() == size_t(SampleFacts::body_vertices));
    CHECK(l.model.meshes[1].vertices.positions.size() == size_t(SampleFacts::cape_vertices));
}
