// drape convert: the whole-folder converter (drape::convert) on the Elden Ring game folder of the
// corpus and on a hostile folder, and clips on the model's own skeleton (re-parenting).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"  // GCC 12 false positive on string concatenation
#endif
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "corpus.h"
#include "external.h"
#include "gltf_read.h"
#include "drape/anim/anibnd.h"
#include "drape/convert/convert.h"
#include "drape/exporters/animation_glb.h"
#include "drape/exporters/gltf.h"
#include "drape/game/containers.h"
#include "drape/game/loaders.h"
#include "drape/io/file.h"
#include "drape/param/param.h"
#include "flver_fixture.h"
#include "game_fixtures.h"
#include "havok_fixtures.h"
#include "run.h"
#include "sample_game.h"

using namespace drape;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

// ---- a small glTF evaluator, independent of the exporter: node TRS, LINEAR/STEP keys at a key
// index, world matrices through the node tree --------------------------------------------------
using M = std::array<double, 16>;  // column-major

M mul(const M& a, const M& b) {
    M r{};
    for (int c = 0; c < 4; ++c)
        for (int row = 0; row < 4; ++row) {
            double s = 0;
            for (int k = 0; k < 4; ++k) s += a[size_t(k * 4 + row)] * b[size_t(c * 4 + k)];
            r[size_t(c * 4 + row)] = s;
        }
    return r;
}

M trs(const std::array<double, 3>& t, const std::array<double, 4>& q, const std::array<double, 3>& s) {
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    const double n = std::sqrt(x * x + y * y + z * z + w * w);
    const double X = x / n, Y = y / n, Z = z / n, W = w / n;
    M m{};
    m[0] = (1 - 2 * (Y * Y + Z * Z)) * s[0];
    m[1] = (2 * (X * Y + Z * W)) * s[0];
    m[2] = (2 * (X * Z - Y * W)) * s[0];
    m[4] = (2 * (X * Y - Z * W)) * s[1];
    m[5] = (1 - 2 * (X * X + Z * Z)) * s[1];
    m[6] = (2 * (Y * Z + X * W)) * s[1];
    m[8] = (2 * (X * Z + Y * W)) * s[2];
    m[9] = (2 * (Y * Z - X * W)) * s[2];
    m[10] = (1 - 2 * (X * X + Y * Y)) * s[2];
    m[12] = t[0];
    m[13] = t[1];
    m[14] = t[2];
    m[15] = 1;
    return m;
}

// A .glb as tinygltf reads it (nodes, accessors, animations through it), with its JSON.
struct Gltf : test::GltfRead {
    // World matrix of every node with animation `anim` at key index `key` (-1: rest pose).
    std::vector<M> world(int anim, size_t key) const {
        const auto& nodes = m().nodes;
        const size_t n = nodes.size();
        std::vector<std::array<double, 3>> T(n, {0, 0, 0}), S(n, {1, 1, 1});
        std::vector<std::array<double, 4>> R(n, {0, 0, 0, 1});
        for (size_t i = 0; i < n; ++i) {
            for (size_t c = 0; c < nodes[i].translation.size() && c < 3; ++c) T[i][c] = nodes[i].translation[c];
            for (size_t c = 0; c < nodes[i].rotation.size() && c < 4; ++c) R[i][c] = nodes[i].rotation[c];
            for (size_t c = 0; c < nodes[i].scale.size() && c < 3; ++c) S[i][c] = nodes[i].scale[c];
        }
        if (anim >= 0) {
            for (const auto& ch : m().animations[size_t(anim)].channels) {
                const size_t node = size_t(ch.target_node);
                const std::string& path = ch.target_path;
                const auto out = floats(m().animations[size_t(anim)].samplers[size_t(ch.sampler)].output);
                const size_t comps = path == "rotation" ? 4 : 3;
                const size_t keys = out.size() / comps;
                const size_t k = std::min(key, keys - 1);
                for (size_t c = 0; c < comps; ++c) {
                    const double v = out[k * comps + c];
                    if (path == "translation") T[node][c] = v;
                    else if (path == "rotation") R[node][c] = v;
                    else S[node][c] = v;
                }
            }
        }
        std::vector<int> parent(n, -1);
        for (size_t i = 0; i < n; ++i)
            for (int c : nodes[i].children) parent[size_t(c)] = int(i);
        std::vector<M> w(n);
        std::vector<uint8_t> done(n);
        for (size_t i = 0; i < n; ++i) {
            std::vector<size_t> chain;
            for (int k = int(i); k >= 0 && !done[size_t(k)]; k = parent[size_t(k)]) chain.push_back(size_t(k));
            for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
                const M local = trs(T[*it], R[*it], S[*it]);
                w[*it] = parent[*it] >= 0 ? mul(w[size_t(parent[*it])], local) : local;
                done[*it] = 1;
            }
        }
        return w;
    }

    std::map<std::string, size_t> nodes_by_name() const {
        std::map<std::string, size_t> out;
        for (size_t i = 0; i < m().nodes.size(); ++i)
            if (!m().nodes[i].name.empty()) out.emplace(m().nodes[i].name, i);
        return out;
    }
};

Gltf parse(const std::vector<uint8_t>& glb) { return {test::read_gltf(glb)}; }

}  // namespace

TEST_CASE("clips on the model's own skeleton: c5000 shared bones move as in the clip-only glb" * doctest::test_suite("corpus")) {
    const auto chrbnd = test::load(test::corpus("er/game/chr/c5000.chrbnd.dcx"));
    const auto anibnd = test::load(test::corpus("er/game/chr/c5000.anibnd.dcx"));
    auto model = game::load_flver(chrbnd, "c5000.chrbnd.dcx", {});
    REQUIRE(model);
    auto set = anim::read_clip_set(anibnd, "c5000.anibnd.dcx", {});
    REQUIRE(set);
    REQUIRE_FALSE(set->skeletons.empty());
    REQUIRE(set->clips.size() >= 3);
    const havok::Skeleton& skel = set->skeletons[0];
    // Three clips spread over the binder, to keep the test fast.
    std::vector<anim::Clip> clips = {set->clips[0], set->clips[set->clips.size() / 2], set->clips.back()};

    exporters::GltfDocument merged;
    exporters::GltfOptions gopt;
    gopt.name = "c5000";
    auto placed = exporters::add_model(merged, *model, gopt);
    REQUIRE(placed);
    auto rp = exporters::reparent_to_skeleton(merged, *placed, *model, skel);
    // 47 of the 187 shared bones have another parent in the FLVER.
    CHECK(rp.reparented.size() == 47);
    bool spine = false;
    for (const auto& m : rp.reparented)
        if (m.bone == "Spine") spine = m.flver_parent == "Horse_Spine2" && m.skeleton_parent == "Root";
    CHECK(spine);
    exporters::AnimationGlbOptions ao;
    ao.mirror = exporters::Mirror::z;
    ao.pose_untracked_bones = true;
    REQUIRE(exporters::add_clips(merged, skel, clips, ao));
    const Gltf a = parse(merged.glb());

    exporters::AnimationGlbOptions so;
    so.mirror = exporters::Mirror::z;
    auto alone = exporters::animation_glb(skel, clips, so);
    REQUIRE(alone);
    const Gltf b = parse(*alone);

    std::set<std::string> flver_names;
    for (const auto& n : model->nodes) flver_names.insert(n.name);
    std::vector<std::string> shared;
    for (const auto& name : skel.bone_names)
        if (flver_names.count(name)) shared.push_back(name);
    CHECK(shared.size() == 187);
    const auto an = a.nodes_by_name(), bn = b.nodes_by_name();
    size_t compared = 0;
    double worst = 0;
    std::string worst_bone;
    for (const auto& clip : clips) {
        const int ia = a.animation(clip.name), ib = b.animation(clip.name);
        REQUIRE(ia >= 0);
        REQUIRE(ib >= 0);
        for (size_t key : {size_t(0), size_t(std::max(clip.num_frames, 1) / 2), size_t(std::max(clip.num_frames - 1, 0))}) {
            const auto wa = a.world(ia, key), wb = b.world(ib, key);
            for (const auto& name : shared) {
                const M& x = wa[an.at(name)];
                const M& y = wb[bn.at(name)];
                const double d = std::sqrt((x[12] - y[12]) * (x[12] - y[12]) + (x[13] - y[13]) * (x[13] - y[13]) + (x[14] - y[14]) * (x[14] - y[14]));
                if (d > worst) {
                    worst = d;
                    worst_bone = clip.name + " " + name;
                }
                ++compared;
            }
        }
    }
    CHECK(compared == clips.size() * 3 * shared.size());
    CHECK_MESSAGE(worst < 1e-4, "worst " << worst << " m at " << worst_bone);
    // The skin is unchanged: the rest pose of the merged file puts every joint where its
    // inverse bind matrix says (world * inverse bind = identity).
    const auto rest = a.world(-1, 0);
    const auto& skin = a.j["skins"][0];
    const auto ibm = a.floats(skin["inverseBindMatrices"]);
    double off = 0;
    for (size_t k = 0; k < skin["joints"].size(); ++k) {
        M inv;
        for (int c = 0; c < 16; ++c) inv[size_t(c)] = ibm[k * 16 + size_t(c)];
        const M id = mul(rest[skin["joints"][k].get<size_t>()], inv);
        for (int c = 0; c < 16; ++c) off = std::max(off, std::fabs(id[size_t(c)] - ((c % 5 == 0) ? 1.0 : 0.0)));
    }
    CHECK(off < 1e-4);
}

namespace {

void write_bytes(const fs::path& p, const std::vector<uint8_t>& b) {
    fs::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary);
    out.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

const convert::ItemResult* find_item(const convert::Report& r, const std::string& name) {
    for (const auto& i : r.items)
        if (i.name == name) return &i;
    return nullptr;
}

}  // namespace

TEST_CASE("drape convert: a hostile folder converts everything else and reports each bad file") {
    const fs::path dir = test::scratch_dir("convert_hostile");
    const fs::path in = dir / "game", out = dir / "sub" / "OUT";
    test::FlverFixture fx;
    const auto flver = fx.build();
    // A truncated DCX.
    const auto whole = test::make_dcx(test::make_bnd4({{"N:\\c1000\\c1000.flver", flver}}));
    write_bytes(in / "chr/c1000.chrbnd.dcx", std::vector<uint8_t>(whole.begin(), whole.begin() + long(whole.size() / 2)));
    // A BND4 whose member names climb out of any folder.
    write_bytes(in / "chr/c1100.chrbnd.dcx", test::make_dcx(test::make_bnd4({{"..\\..\\x.flver", flver}, {"..\\..\\..\\evil.tpf", {'T', 'P', 'F', 0}}})));
    // A FLVER whose vertices name bones out of range.
    test::FlverFixture bad_bones;
    bad_bones.bone_index = 200;
    write_bytes(in / "chr/c1200.chrbnd.dcx", test::make_dcx(test::make_bnd4({{"N:\\c1200\\c1200.flver", bad_bones.build()}})));
    // A good one beside them.
    write_bytes(in / "chr/c1300.chrbnd.dcx", test::make_dcx(test::make_bnd4({{"N:\\c1300\\c1300.flver", flver}})));
    // A cloth file whose particle indices are out of range (the synthesized fixture's indices are
    // arbitrary: drape check finds violations in it).
    auto types = test::fixture_types(test::ClothGame::elden_ring);
    REQUIRE(types);
    write_bytes(in / "chr/c1400.chrbnd.dcx",
                test::make_dcx(test::make_bnd4({{"N:\\c1400\\c1400.flver", flver},
                                                {"N:\\c1400\\c1400_c.hkx", test::synthesize_cloth(test::ClothGame::elden_ring, *types)}})));
    // Not a game file at all.
    write_bytes(in / "chr/readme.txt", {'h', 'i'});

    convert::Options o;
    o.jobs = 2;
    size_t progress_calls = 0;
    const auto report = convert::convert_folder(in, out, o, [&](const convert::ProgressEvent& e) {
        ++progress_calls;
        CHECK(e.done <= e.total);
    });
    REQUIRE(report.items.size() == 5);
    CHECK(progress_calls == 5);
    CHECK(report.exit_code() == 1);
    const auto* truncated = find_item(report, "c1000");
    REQUIRE(truncated);
    CHECK_FALSE(truncated->ok);
    CHECK(truncated->error.find("c1000.chrbnd.dcx") != std::string::npos);
    const auto* climbing = find_item(report, "c1100");
    REQUIRE(climbing);
    CHECK(climbing->ok);
    const auto* bones = find_item(report, "c1200");
    REQUIRE(bones);
    // Either refused with a message or converted with a warning; never a crash, never silent.
    if (bones->ok) CHECK_FALSE(bones->warnings.empty());
    else CHECK_FALSE(bones->error.empty());
    const auto* good = find_item(report, "c1300");
    REQUIRE(good);
    CHECK(good->ok);
    CHECK(fs::exists(out / "chr/c1300.glb"));
    const auto* cloth = find_item(report, "c1400");
    REQUIRE(cloth);
    bool told = false;
    for (const auto& w : cloth->warnings) told = told || w.find("breaks") != std::string::npos;
    CHECK_MESSAGE(told, "the bad cloth is reported");
    CHECK(fs::exists(out / "chr/c1300.report.json"));
    CHECK(fs::exists(out / "summary.json"));
    CHECK(report.skipped.size() == 1);
    // Nothing outside OUT, and no temporary file left inside.
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
        const std::string p = e.path().generic_string();
        const bool inside = p.find("/OUT") != std::string::npos || p.find("/game") != std::string::npos || e.is_directory();
        CHECK_MESSAGE(inside, p);
        CHECK(p.find(".tmp") == std::string::npos);
    }
    auto summary = json::parse(std::ifstream(out / "summary.json"));
    CHECK(summary["failed"].get<int>() >= 1);
    CHECK(summary["results"].size() == 5);
}

TEST_CASE("drape convert: the Elden Ring game folder of the corpus, every character and every c5000 clip" * doctest::test_suite("corpus")) {
    const fs::path root = test::corpus("er/game");
    REQUIRE(fs::is_directory(root));
    const fs::path out = test::scratch_dir("convert_er");
    convert::Options o;
    const auto report = convert::convert_folder(root, out, o);
    REQUIRE(report.items.size() == 4);  // c2030, c3061, c4361, c5000
    for (const auto& r : report.items) {
        CHECK_MESSAGE(r.ok, r.name << ": " << r.error);
        CHECK(r.kind == "character");
        CHECK(r.meshes > 0);
        // Textured: the MATBINs of material/ name the textures, the texbnds hold them.
        CHECK_MESSAGE(r.images > 0, r.name << " holds images");
        CHECK(fs::exists(out / "chr" / (r.name + ".glb")));
        CHECK_MESSAGE(fs::exists(out / "chr" / (r.name + ".drcloth")), r.name << " has its .drcloth");
    }
    CHECK(report.exit_code() == 0);
    // Every clip of c5000's anibnd is in its .glb.
    auto set = anim::read_clip_set(test::load(root / "chr/c5000.anibnd.dcx"), "c5000.anibnd.dcx", {});
    REQUIRE(set);
    const auto* c5000 = find_item(report, "c5000");
    REQUIRE(c5000);
    CHECK(c5000->clips == set->clips.size());
    CHECK(c5000->reparented_bones == 47);
    const Gltf g = parse(test::load(out / "chr/c5000.glb"));
    REQUIRE(g.j.contains("animations"));
    CHECK(g.j["animations"].size() == set->clips.size());
    // Base colour bound on the body materials.
    size_t with_base_colour = 0;
    for (const auto& m : g.j["materials"]) with_base_colour += m["pbrMetallicRoughness"].contains("baseColorTexture");
    CHECK(with_base_colour > 0);
    auto rep = json::parse(std::ifstream(out / "chr/c5000.report.json"));
    CHECK(rep["bone_match"]["reparented"].size() == 47);

    // c2030: every clip of its anibnd in its .glb too, a001_009000 among them, whose R_Egg scale
    // the file stores as a NaN range: the report says so, and the .glb holds no NaN.
    auto set2030 = anim::read_clip_set(test::load(root / "chr/c2030.anibnd.dcx"), "c2030.anibnd.dcx", {});
    REQUIRE(set2030);
    REQUIRE(set2030->clips.size() == 30);
    const auto* c2030 = find_item(report, "c2030");
    REQUIRE(c2030);
    CHECK(c2030->clips == set2030->clips.size());
    const Gltf g2030 = parse(test::load(out / "chr/c2030.glb"));
    REQUIRE(g2030.j.contains("animations"));
    CHECK(g2030.j["animations"].size() == set2030->clips.size());
    const json rep2030 = json::parse(std::ifstream(out / "chr/c2030.report.json"));
    size_t said = 0;
    for (const auto& w : rep2030["warnings"])
        said += w.get<std::string>().rfind("a001_009000: track 119 (bone R_Egg) scale x, y, z in block 0 not decoded: 16-bit spline range x NaN..NaN", 0) == 0;
    CHECK_MESSAGE(said == 1, rep2030["warnings"].dump(1));
    size_t keys = 0, not_finite = 0;
    for (const auto& a : g2030.j["animations"])
        for (const auto& smp : a["samplers"])
            for (float v : g2030.floats(smp["output"])) {
                not_finite += !std::isfinite(v);
                ++keys;
            }
    CHECK(keys > 100000);
    CHECK(not_finite == 0);
}

TEST_CASE("drape convert: parts take the player skeleton of chr/c0000.anibnd.dcx, and their cloth") {
    // A synthesized game folder: the sample character, and an armour part made of its FLVER and
    // cloth (parts/bd_m_9999.partsbnd.dcx) with the sample's anibnd as the player's
    // (chr/c0000.anibnd.dcx). A second folder holds the part without the player's anibnd.
    const fs::path dir = test::scratch_dir("convert_parts");
    REQUIRE(test::write_sample_game(dir / "game"));
    auto members = game::open_members(test::load(dir / "game/chr/c9999.chrbnd.dcx"), "c9999.chrbnd.dcx", {});
    REQUIRE(members);
    std::vector<uint8_t> flver, cloth;
    for (const auto& m : *members) {
        if (m.name.size() >= 6 && m.name.compare(m.name.size() - 6, 6, ".flver") == 0) flver = m.bytes;
        if (m.name.size() >= 6 && m.name.compare(m.name.size() - 6, 6, "_c.hkx") == 0) cloth = m.bytes;
    }
    REQUIRE_FALSE(flver.empty());
    REQUIRE_FALSE(cloth.empty());
    const auto partsbnd = test::make_dcx(test::make_bnd4({{"N:\\parts\\bd_m_9999.flver", flver}, {"N:\\parts\\bd_m_9999_c.hkx", cloth}}));
    write_bytes(dir / "game/parts/bd_m_9999.partsbnd.dcx", partsbnd);
    fs::copy_file(dir / "game/chr/c9999.anibnd.dcx", dir / "game/chr/c0000.anibnd.dcx");
    write_bytes(dir / "alone/parts/bd_m_9999.partsbnd.dcx", partsbnd);

    convert::Options o;
    o.jobs = 2;
    const auto report = convert::convert_folder(dir / "game", dir / "out", o);
    CHECK(report.exit_code() == 0);
    const auto* part = find_item(report, "bd_m_9999");
    REQUIRE(part);
    REQUIRE_MESSAGE(part->ok, part->error);
    CHECK(part->kind == "part");
    CHECK(part->folder == "parts");
    bool player = false;
    for (const auto& w : part->warnings) player = player || w == "skeleton: the player's (chr/c0000.anibnd.dcx)";
    CHECK_MESSAGE(player, "the part names the player's skeleton");
    CHECK(part->particles == size_t(test::SampleFacts::cape_vertices));
    CHECK(fs::exists(dir / "out/parts/bd_m_9999.drcloth"));
    auto rep = json::parse(std::ifstream(dir / "out/parts/bd_m_9999.report.json"));
    CHECK(rep["bone_match"]["matched"].get<int>() == test::SampleFacts::bones);
    // The glb's skin holds every bone of the player's skeleton by name.
    const Gltf g = parse(test::load(dir / "out/parts/bd_m_9999.glb"));
    REQUIRE(g.j.contains("skins"));
    std::set<std::string> joints;
    for (const auto& n : g.j["skins"][0]["joints"]) joints.insert(g.j["nodes"][n.get<size_t>()]["name"].get<std::string>());
    auto set = anim::read_clip_set(test::load(dir / "game/chr/c0000.anibnd.dcx"), "c0000.anibnd.dcx", {});
    REQUIRE(set);
    REQUIRE(set->skeletons.size() == 1);
    for (const auto& b : set->skeletons[0].bone_names) CHECK_MESSAGE(joints.count(b) == 1, b);

    // Without chr/c0000.anibnd.dcx the part converts on its FLVER's own bones.
    const auto alone = convert::convert_folder(dir / "alone", dir / "out_alone", o);
    REQUIRE(alone.items.size() == 1);
    REQUIRE_MESSAGE(alone.items[0].ok, alone.items[0].error);
    for (const auto& w : alone.items[0].warnings) CHECK(w.find("the player's") == std::string::npos);
    auto rep_alone = json::parse(std::ifstream(dir / "out_alone/parts/bd_m_9999.report.json"));
    CHECK_FALSE(rep_alone.contains("bone_match"));
}

TEST_CASE("drape convert --quiet: the subcommand's flag prints only errors, as drape -q convert does") {
    const fs::path dir = test::scratch_dir("convert_quiet");
    REQUIRE(test::write_sample_game(dir / "game"));
    const std::string in = "'" + (dir / "game").string() + "'";
    const auto loud = test::run("'" + test::drape_exe() + "' convert " + in + " -o '" + (dir / "loud").string() + "'");
    CHECK(loud.exit_code == 0);
    CHECK(loud.out.find("drape convert: ") != std::string::npos);  // the summary
    for (const char* flag : {"--quiet", "-q"}) {
        CAPTURE(flag);
        const auto quiet = test::run("'" + test::drape_exe() + "' convert " + in + " -o '" + (dir / "quiet").string() + "' " + flag);
        CHECK(quiet.exit_code == 0);
        CHECK(quiet.out == "");
        CHECK(fs::exists(dir / "quiet/chr/c9999.glb"));
    }
    const auto global = test::run("'" + test::drape_exe() + "' -q convert " + in + " -o '" + (dir / "global").string() + "'");
    CHECK(global.exit_code == 0);
    CHECK(global.out == "");
    // Errors still print under --quiet.
    write_bytes(dir / "bad/chr/c1234.chrbnd.dcx", std::vector<uint8_t>{'D', 'C', 'X', 0, 1, 2});
    const auto bad = test::run("'" + test::drape_exe() + "' convert '" + (dir / "bad").string() + "' -o '" + (dir / "bad_out").string() + "' --quiet");
    CHECK(bad.exit_code == 1);
    CHECK(bad.out.find("error: ") != std::string::npos);
    CHECK(bad.out.find("drape convert: ") == std::string::npos);
}

TEST_CASE("drape convert: the outputs are byte-identical whatever the job count (items fan textures, clips and branches out)" * doctest::test_suite("corpus")) {
    const fs::path root = test::corpus("er/game");
    REQUIRE(fs::is_directory(root));
    const fs::path dir = test::scratch_dir("convert_jobs");
    std::map<std::string, std::vector<uint8_t>> first;
    std::map<std::string, json> first_reports;
    // 0: two jobs, and no model kept by the material-name pre-pass (each item opens its own).
    for (unsigned jobs : {1u, 2u, 3u, 0u}) {
        CAPTURE(jobs);
        convert::Options o;
        o.jobs = jobs ? jobs : 2;
        if (jobs == 0) o.opened_model_budget = 0;
        const fs::path out = dir / ("j" + std::to_string(jobs));
        const auto report = convert::convert_folder(root, out, o);
        CHECK(report.exit_code() == 0);
        CHECK(report.jobs == o.jobs);
        REQUIRE(report.items.size() == 4);
        std::map<std::string, std::vector<uint8_t>> files;
        std::map<std::string, json> reports;  // each report without its timings
        for (const auto& e : fs::recursive_directory_iterator(out)) {
            const std::string ext = e.path().extension().string();
            const std::string name = fs::relative(e.path(), out).generic_string();
            if (ext == ".glb" || ext == ".drcloth") files[name] = test::load(e.path());
            if (name.size() > 12 && name.compare(name.size() - 12, 12, ".report.json") == 0) {
                json r = json::parse(std::ifstream(e.path()));
                r.erase("seconds");
                r.erase("stage_seconds");
                reports[name] = std::move(r);
            }
        }
        CHECK(files.size() == 8);  // c2030, c3061, c4361, c5000: .glb and .drcloth
        CHECK(reports.size() == 4);
        if (jobs == 1) {
            first = files;
            first_reports = reports;
            continue;
        }
        // The items' branches merge their warnings, inputs and outputs in one order.
        CHECK(reports == first_reports);
        REQUIRE(files.size() == first.size());
        for (const auto& file : files) {
            const std::string& name = file.first;
            CAPTURE(name);
            REQUIRE(first.count(name) == 1);
            CHECK(file.second.size() == first[name].size());
            CHECK(file.second == first[name]);
        }
    }
}

TEST_CASE("drape convert: a material binder that does not decompress is reported and the models still convert") {
    const fs::path dir = test::scratch_dir("convert_bad_matbin");
    const fs::path in = dir / "game", out = dir / "OUT";
    test::FlverFixture fx;
    write_bytes(in / "chr/c1300.chrbnd.dcx", test::make_dcx(test::make_bnd4({{"N:\\c1300\\c1300.flver", fx.build()}})));
    const auto binder = test::make_dcx(test::make_bnd4({{"N:\\x\\m.matbin", {'M', 'A', 'B', 0}}}));
    write_bytes(in / "material/allmaterial.matbinbnd.dcx", std::vector<uint8_t>(binder.begin(), binder.begin() + long(binder.size() / 2)));
    convert::Options o;
    o.jobs = 2;
    const auto report = convert::convert_folder(in, out, o);
    REQUIRE(report.items.size() == 1);
    CHECK(report.items[0].ok);
    REQUIRE(report.skipped.size() == 1);
    CHECK(report.skipped[0].rfind("material/allmaterial.matbinbnd.dcx: ", 0) == 0);
    CHECK(report.skipped[0].find("allmaterial.matbinbnd.dcx", 20) != std::string::npos);  // the error names the binder
    CHECK(fs::exists(out / "chr/c1300.glb"));
}

TEST_CASE("drape convert: a game folder whose chr/ is a symbolic link converts through it, loops and dangling links said") {
    // An install assembled from folders on several drives: game/chr links to a folder elsewhere,
    // which holds a link back to itself (a loop) and a link to nothing; game/again links to a
    // folder inside the input.
    const fs::path dir = test::scratch_dir("convert_symlinked_chr");
    REQUIRE(test::write_sample_game(dir / "store"));
    fs::create_directories(dir / "game/parts");
    fs::create_directory_symlink(dir / "store/chr", dir / "game/chr");
    fs::create_directory_symlink("../chr", dir / "store/chr/loop");
    fs::create_symlink(dir / "nowhere.chrbnd.dcx", dir / "store/chr/gone.chrbnd.dcx");
    fs::create_directory_symlink("parts", dir / "game/again");
    std::set<std::string> before;
    for (const auto& e : fs::recursive_directory_iterator(dir / "store")) before.insert(e.path().generic_string());

    convert::Options o;
    o.jobs = 2;
    o.textures = false;
    const auto report = convert::convert_folder(dir / "game", dir / "out", o);
    CHECK(report.exit_code() == 0);
    const auto* item = find_item(report, "c9999");
    REQUIRE_MESSAGE(item, "the character under the linked chr/ is found");
    CHECK(item->ok);
    CHECK(item->folder == "chr");
    CHECK(fs::exists(dir / "out/chr/c9999.glb"));
    CHECK(fs::exists(dir / "out/chr/c9999.drcloth"));
    auto said = [&](const std::string& start) {
        for (const auto& s : report.skipped)
            if (s.rfind(start, 0) == 0) return true;
        return false;
    };
    CHECK_MESSAGE(said("chr/loop: a link to a folder read already"), json(report.skipped).dump());
    CHECK_MESSAGE(said("chr/gone.chrbnd.dcx: a link to nothing"), json(report.skipped).dump());
    CHECK_MESSAGE(said("again: a link to parts, read there"), json(report.skipped).dump());
    // Nothing written through the links: the linked folder holds what it held.
    std::set<std::string> after;
    for (const auto& e : fs::recursive_directory_iterator(dir / "store")) after.insert(e.path().generic_string());
    CHECK(after == before);
    for (const auto& e : fs::recursive_directory_iterator(dir / "out"))
        CHECK_MESSAGE(e.path().lexically_relative(dir / "out").begin()->string() != "..", e.path().string());
}

namespace {

// The display masks NpcParam row `row` turns on, read field by field (modelDispMask0..31) from
// the regulation: the expectation of the display-mask test, taken apart from the convert path.
uint32_t masks_of_row(const fs::path& regulation, int32_t row) {
    auto members = game::open_members(regulation, regulation.filename().string(), {});
    REQUIRE(members);
    for (const auto& m : *members) {
        if (param::param_name(m.name) != "NpcParam") continue;
        auto table = param::read_param(m.bytes);
        REQUIRE(table);
        auto layout = param::find_layout(param::game_of_member_path(m.name), table->type, param::regulation_version(m.binder_version));
        REQUIRE(layout);
        for (const auto& r : table->rows) {
            if (r.id != row) continue;
            uint32_t masks = 0;
            for (int k = 0; k < 32; ++k) {
                auto v = param::field_value(*layout, "modelDispMask" + std::to_string(k), Bytes(m.bytes.data() + r.data_offset, table->row_size));
                REQUIRE(v);
                if (v->i) masks |= 1u << k;
            }
            return masks;
        }
    }
    FAIL("no NpcParam row " << row);
    return 0;
}

struct SceneCount {
    size_t default_scene = 0, every = 0, hidden_expected = 0;
};

// Mesh nodes in the .glb's default scene and in all, read by tinygltf; the masked ones `masks`
// leaves out, from each mesh node's display mask.
SceneCount count_meshes(const fs::path& glb, uint32_t masks) {
    const test::GltfRead g = test::read_gltf(glb);
    SceneCount c;
    std::set<int> in_default;
    REQUIRE(g.m().defaultScene >= 0);
    for (int n : g.m().scenes[size_t(g.m().defaultScene)].nodes) in_default.insert(n);
    for (size_t i = 0; i < g.m().nodes.size(); ++i) {
        if (g.m().nodes[i].mesh < 0) continue;
        ++c.every;
        c.default_scene += in_default.count(int(i));
        const int mask = g.j["nodes"][i]["extras"].value("display_mask", -1);
        if (mask >= 0 && !(masks >> mask & 1u)) ++c.hidden_expected;
    }
    return c;
}

}  // namespace

TEST_CASE("drape convert --regulation: each character shows the masks of its first NpcParam row, the masked meshes kept in a second scene" * doctest::test_suite("corpus+external")) {
    REQUIRE(fs::exists(test::corpus("er/game")));
    const fs::path regulation = test::corpus("er/regulation.112.decrypted.bin");
    const fs::path out = test::scratch_dir("convert_display_masks");
    convert::Options o;
    o.jobs = 2;
    o.textures = false;
    o.cloth = false;
    o.only = {"c3061", "c4361"};
    o.regulation = regulation;
    const auto report = convert::convert_folder(test::corpus("er/game"), out / "masked", o);
    REQUIRE(report.exit_code() == 0);
    CHECK(report.regulation.find("Elden Ring NpcParam") != std::string::npos);
    size_t characters = 0;
    for (const char* name : {"c3061", "c4361"}) {
        CAPTURE(name);
        const auto* item = find_item(report, name);
        REQUIRE(item);
        REQUIRE(!item->npc_rows.empty());
        CHECK(item->npc_row == item->npc_rows.front().id);  // the first row in the table's order
        const uint32_t masks = masks_of_row(regulation, item->npc_rows.front().id);
        CHECK(item->npc_rows.front().masks == masks);
        const SceneCount c = count_meshes(out / "masked/chr" / (std::string(name) + ".glb"), masks);
        CHECK(c.hidden_expected > 0);  // both characters have a mesh their first row leaves off
        CHECK(item->meshes_hidden == c.hidden_expected);
        CHECK(c.default_scene == c.every - c.hidden_expected);  // fewer shown than held
        const test::GltfRead g = test::read_gltf(out / "masked/chr" / (std::string(name) + ".glb"));
        REQUIRE(g.m().scenes.size() == 2);  // the second scene holds every mesh
        size_t every_scene = 0;
        for (int n : g.m().scenes[1].nodes) every_scene += g.m().nodes[size_t(n)].mesh >= 0;
        CHECK(every_scene == c.every);
        auto rep = json::parse(std::ifstream(out / "masked/chr" / (std::string(name) + ".report.json")));
        CHECK(rep["display_masks"]["npc_rows"].size() == item->npc_rows.size());
        CHECK(rep["display_masks"]["meshes_hidden"] == c.hidden_expected);
        if (!test::skip_external()) {
            const json v = test::validate_gltf(out / "masked/chr" / (std::string(name) + ".glb"));
            CHECK_MESSAGE(v["errors"].get<int>() == 0, v.dump());
        }
        ++characters;
    }
    CHECK(characters == 2);

    // --npc picks another of the character's rows; a row of another character is refused with a warning.
    o.only = {"c3061"};
    o.npc_row = 30611000;
    const auto other = convert::convert_folder(test::corpus("er/game"), out / "other_row", o);
    const auto* item = find_item(other, "c3061");
    REQUIRE(item);
    CHECK(item->npc_row == 30611000);
    const SceneCount c = count_meshes(out / "other_row/chr/c3061.glb", masks_of_row(regulation, 30611000));
    CHECK(item->meshes_hidden == c.hidden_expected);
    CHECK(c.default_scene == c.every - c.hidden_expected);
    o.npc_row = 50000000;
    const auto wrong = convert::convert_folder(test::corpus("er/game"), out / "wrong_row", o);
    REQUIRE(find_item(wrong, "c3061"));
    bool warned = false;
    for (const auto& w : find_item(wrong, "c3061")->warnings) warned = warned || w.find("--npc 50000000 is not a row of c3061") != std::string::npos;
    CHECK(warned);

    // The game folder's own regulation.bin (a Nightreign one: no NpcParam layout is known for it)
    // and no regulation at all: every mesh shown, and the report says why.
    o.regulation.clear();
    o.npc_row = -1;
    const auto own = convert::convert_folder(test::corpus("er/game"), out / "own", o);
    CHECK(own.regulation.find("no known layout") != std::string::npos);
    {
        // Its rows are still listed by their ids (a row of c3061 is NNNN * 10000 + k), masks unknown.
        const auto* own_item = find_item(own, "c3061");
        REQUIRE(own_item);
        CHECK(!own_item->npc_rows.empty());
        for (const auto& row : own_item->npc_rows) {
            CHECK(row.id / 10000 == 3061);
            CHECK_FALSE(row.masks_known);
        }
        CHECK(own_item->npc_row == -1);
        CHECK(own_item->meshes_hidden == 0);
    }
    const SceneCount all = count_meshes(out / "own/chr/c3061.glb", ~0u);
    CHECK(all.default_scene == all.every);
    const fs::path lone = test::scratch_dir("convert_display_masks_lone");
    fs::create_directories(lone / "chr");
    fs::copy_file(test::corpus("er/game/chr/c4361.chrbnd.dcx"), lone / "chr/c4361.chrbnd.dcx");
    o.only = {"c4361"};
    const auto none = convert::convert_folder(lone, out / "none", o);
    CHECK(none.regulation.find("no regulation.bin") != std::string::npos);
    const SceneCount n = count_meshes(out / "none/chr/c4361.glb", ~0u);
    CHECK(n.default_scene == n.every);
}
