// Track parts a file's data cannot give: every value they would decode to is NaN or infinite.
// Elden Ring c2030's a001_009000 stores R_Egg's 16-bit scale spline with the range NaN..NaN on
// x, y and z (every key 0): decoding lists that part and leaves it at the identity, the
// exporters put the bone's reference pose there and say so, and no NaN reaches a .glb. Checked on
// the real clip, on the sample game with that case written into a spline clip (tests/support),
// and on hand-built data for every other kind of value that is not finite.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"  // GCC 12 false positive on string concatenation
#endif
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "corpus.h"
#include "drape/anim/anibnd.h"
#include "drape/anim/animation.h"
#include "drape/convert/convert.h"
#include "drape/exporters/animation_glb.h"
#include "drape/exporters/gltf_document.h"
#include "drape/io/file.h"
#include "run.h"
#include "sample_game.h"

using namespace drape;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr float k_nan = std::numeric_limits<float>::quiet_NaN();
constexpr float k_inf = std::numeric_limits<float>::infinity();

// A .glb's animation keys, read from its JSON and buffer (not through the exporter).
struct GlbKeys {
    json j;
    std::vector<uint8_t> bin;

    explicit GlbKeys(const std::vector<uint8_t>& glb) {
        auto g = exporters::read_glb(glb);
        REQUIRE_MESSAGE(g, g.error().to_string());
        j = json::parse(g->json);
        bin = g->bin;
    }
    std::vector<float> floats(size_t accessor) const {
        const json& a = j["accessors"][accessor];
        const json& v = j["bufferViews"][a["bufferView"].get<size_t>()];
        const size_t comps = a["type"] == "SCALAR" ? 1 : a["type"] == "VEC3" ? 3 : a["type"] == "VEC4" ? 4 : 16;
        const size_t off = v.value("byteOffset", size_t(0)) + a.value("byteOffset", size_t(0));
        std::vector<float> out(a["count"].get<size_t>() * comps);
        REQUIRE(off + out.size() * 4 <= bin.size());
        std::memcpy(out.data(), bin.data() + off, out.size() * 4);
        return out;
    }
    // Every key of every animation: {keys, of which not finite}.
    std::pair<size_t, size_t> census() const {
        size_t keys = 0, bad = 0;
        for (const auto& a : j.value("animations", json::array()))
            for (const auto& s : a["samplers"])
                for (float v : floats(s["output"].get<size_t>())) {
                    ++keys;
                    bad += !std::isfinite(v);
                }
        return {keys, bad};
    }
    // The keys of animation `anim`'s channel on the node named `node`, path `path`; empty when none.
    std::vector<float> channel(const std::string& anim, const std::string& node, const std::string& path) const {
        for (const auto& a : j["animations"]) {
            if (a["name"] != anim) continue;
            for (const auto& c : a["channels"]) {
                if (c["target"]["path"] != path || j["nodes"][c["target"]["node"].get<size_t>()].value("name", std::string()) != node) continue;
                return floats(a["samplers"][c["sampler"].get<size_t>()]["output"].get<size_t>());
            }
        }
        return {};
    }
};

size_t lines_starting(const std::vector<std::string>& lines, const std::string& prefix) {
    size_t n = 0;
    for (const auto& l : lines) n += l.rfind(prefix, 0) == 0;
    return n;
}

const anim::Clip* find_clip(const anim::ClipSet& set, const std::string& name) {
    for (const auto& c : set.clips)
        if (c.name == name) return &c;
    return nullptr;
}

}  // namespace

TEST_CASE("anim: c2030 a001_009000 stores R_Egg's scale range as NaN, that part alone is undecoded and exports as the reference pose" * doctest::test_suite("corpus")) {
    auto set = anim::read_clip_set(test::load(test::corpus("er/game/chr/c2030.anibnd.dcx")), "c2030.anibnd.dcx");
    REQUIRE_MESSAGE(set, set.error().to_string());
    CHECK(set->failures.empty());
    REQUIRE(set->clips.size() == 30);
    REQUIRE(set->skeletons.size() == 1);
    const havok::Skeleton& skel = set->skeletons[0];
    // The only part of the 30 clips the file cannot give.
    size_t undecoded = 0;
    for (const auto& c : set->clips) undecoded += c.undecoded.size();
    CHECK(undecoded == 1);
    const anim::Clip* clip = find_clip(*set, "a001_009000");
    REQUIRE(clip);
    REQUIRE(clip->undecoded.size() == 1);
    const anim::UndecodedPart& u = clip->undecoded[0];
    CHECK(u.track == 119);
    CHECK(u.block == 0);
    CHECK(u.part == anim::TrackPart::scale);
    CHECK(u.components == 7);
    CHECK(u.reason == "16-bit spline range x NaN..NaN, y NaN..NaN, z NaN..NaN");
    const auto bones = anim::tracks_to_bones(*clip, skel);
    REQUIRE(bones[119] >= 0);
    const size_t egg = size_t(bones[119]);
    CHECK(skel.bone_names[egg] == "R_Egg");
    CHECK(clip->blend_hint == anim::BlendHint::additive_deprecated);
    // Decoded, the part is the identity (an additive clip's "no change") at every frame, and
    // every other value of the clip is finite.
    std::vector<anim::Transform> pose(size_t(clip->num_tracks));
    size_t not_finite = 0;
    for (int32_t f = 0; f < clip->num_frames; ++f) {
        anim::sample_frame(*clip, f, pose);
        for (const auto& x : pose)
            for (size_t k = 0; k < 3; ++k) not_finite += !std::isfinite(x.translation[k]) + !std::isfinite(x.scale[k]);
        CHECK(pose[119].scale == anim::Vec3{1, 1, 1});
    }
    CHECK(not_finite == 0);

    // Exported: no NaN anywhere, the part said once, and R_Egg's scale the reference pose's.
    exporters::AnimationGlbReport report;
    auto glb = exporters::animation_glb(skel, set->clips, {}, &report);
    REQUIRE_MESSAGE(glb, glb.error().to_string());
    CHECK(report.animations == 30);
    CHECK(lines_starting(report.warnings, "a001_009000: track 119 (bone R_Egg) scale x, y, z in block 0 not decoded: 16-bit spline range x NaN..NaN, "
                                          "y NaN..NaN, z NaN..NaN; the identity delta is used instead") == 1);
    CHECK(report.warnings.size() == 5);  // that line and the four additive clips' notes
    const GlbKeys g(*glb);
    const auto [keys, bad] = g.census();
    CHECK(keys > 100000);
    CHECK(bad == 0);
    const auto scale = g.channel("a001_009000", "R_Egg", "scale");
    REQUIRE(scale.size() >= 3);
    const auto& ref = skel.reference_pose[egg].scale;
    for (size_t k = 0; k < scale.size(); ++k) CHECK(scale[k] == ref[k % 3]);
    // Plausible beside its neighbours: R_Egg's scale in the clip's other additive siblings is the
    // same, and its parent (R_Hand) keeps a scale within 1e-3 of it over a001_009000.
    for (const char* sibling : {"a000_009000", "a000_009500", "a000_041600"}) {
        CAPTURE(sibling);
        const auto s = g.channel(sibling, "R_Egg", "scale");
        REQUIRE(s.size() >= 3);
        for (size_t k = 0; k < s.size(); ++k) CHECK(s[k] == doctest::Approx(scale[k % 3]).epsilon(1e-6));
    }
    const int16_t hand = skel.parents[egg];
    REQUIRE(hand >= 0);
    CHECK(skel.bone_names[size_t(hand)] == "R_Hand");
    const auto hand_scale = g.channel("a001_009000", "R_Hand", "scale");
    REQUIRE(hand_scale.size() >= 3);
    for (size_t k = 0; k < hand_scale.size(); ++k) CHECK(std::abs(hand_scale[k] - scale[k % 3]) < 1e-3);
}

TEST_CASE("anim: a sample clip whose spline range is NaN is reported by drape animation and drape convert, and holds the reference pose") {
    const fs::path dir = test::scratch_dir("anim_undecoded_fixture");
    test::SplineClipSpec nan_scale;  // the c2030 case on L_Calf (track 7): scale range NaN..NaN, every key 0
    nan_scale.min = nan_scale.max = k_nan;
    nan_scale.keys.assign(size_t(nan_scale.frames), 0);
    test::SplineClipSpec nan_translation = nan_scale;  // the same on the translation: the reference (0, -0.45, 0) is not the identity
    nan_translation.scale = false;
    test::SplineClipSpec finite = nan_scale;  // the control: a range with values in it decodes as stored
    finite.min = 0.5f, finite.max = 1.5f;
    for (int32_t f = 0; f < finite.frames; ++f) finite.keys[size_t(f)] = uint16_t(f * 6553);

    // Decoded: the part is listed with what the file holds, and left at the identity.
    for (const auto* spec : {&nan_scale, &nan_translation, &finite}) {
        auto bytes = test::sample_anibnd_with_spline_clip(*spec);
        REQUIRE_MESSAGE(bytes, bytes.error().to_string());
        auto set = anim::read_clip_set(*bytes, "c9999.anibnd.dcx");
        REQUIRE_MESSAGE(set, set.error().to_string());
        CHECK(set->failures.empty());
        const anim::Clip* clip = find_clip(*set, "a000_003000");
        REQUIRE(clip);
        CHECK(clip->class_name == "hkaSplineCompressedAnimation");
        std::vector<anim::Transform> pose(size_t(clip->num_tracks));
        anim::sample_frame(*clip, 10, pose);
        if (spec == &finite) {
            CHECK(clip->undecoded.empty());
            CHECK(pose[7].scale[0] == doctest::Approx(0.5 + 65530.0 / 65535.0).epsilon(1e-6));  // key 10 of 0..10
            continue;
        }
        REQUIRE(clip->undecoded.size() == 1);
        const anim::UndecodedPart& u = clip->undecoded[0];
        CHECK(u.track == 7);
        CHECK(u.block == 0);
        CHECK(u.part == (spec->scale ? anim::TrackPart::scale : anim::TrackPart::translation));
        CHECK(u.components == 7);
        CHECK(u.reason == "16-bit spline range x NaN..NaN, y NaN..NaN, z NaN..NaN");
        CHECK(pose[7].scale == anim::Vec3{1, 1, 1});
        CHECK(pose[7].translation == (spec->scale ? anim::Vec3{0, -0.45f, 0} : anim::Vec3{0, 0, 0}));
    }

    // drape animation: the part is said with its clip, track, bone and reason, the file holds the
    // reference pose there and no NaN, the exit code is 0 (every clip is written).
    struct Case {
        const test::SplineClipSpec* spec;
        const char* path;
        std::vector<float> want;  // L_Calf's key, in glTF (Z mirrored)
    } cases[] = {{&nan_scale, "scale", {1, 1, 1}}, {&nan_translation, "translation", {0, -0.45f, -0.0f}}};
    for (const auto& c : cases) {
        CAPTURE(c.path);
        const fs::path in = dir / c.path / "c9999.anibnd.dcx";
        REQUIRE(write_file(in, *test::sample_anibnd_with_spline_clip(*c.spec)));
        const fs::path out = dir / c.path / "c9999.glb";
        const auto r = test::run("'" + test::drape_exe() + "' animation '" + in.string() + "' -o '" + out.string() + "'");
        CHECK_MESSAGE(r.exit_code == 0, r.out);
        const std::string said = std::string("drape animation: warning: a000_003000: track 7 (bone L_Calf) ") + c.path +
                                 " x, y, z in block 0 not decoded: 16-bit spline range x NaN..NaN, y NaN..NaN, z NaN..NaN; the bone's reference pose is used instead";
        CHECK_MESSAGE(r.out.find(said) != std::string::npos, r.out);
        CHECK_MESSAGE(r.out.find("2 animations") != std::string::npos, r.out);
        CHECK_MESSAGE(r.out.find("; 1 track part in the reference pose (listed above)") != std::string::npos, r.out);
        const GlbKeys g(test::load(out));
        CHECK(g.census().second == 0);
        const auto keys = g.channel("a000_003000", "L_Calf", c.path);
        REQUIRE(keys.size() == 3);  // one key: the same at every frame
        for (size_t k = 0; k < 3; ++k) CHECK(keys[k] == doctest::Approx(c.want[k]));
    }
    // An additive clip falls back to the identity delta: baked (the default), the reference pose;
    // written as stored deltas (--keep-additive), no change.
    test::SplineClipSpec additive = nan_translation;
    additive.blend_hint = 2;
    const fs::path add_in = dir / "additive/c9999.anibnd.dcx";
    REQUIRE(write_file(add_in, *test::sample_anibnd_with_spline_clip(additive)));
    for (const bool keep : {false, true}) {
        CAPTURE(keep);
        const fs::path out = dir / (keep ? "additive/kept.glb" : "additive/baked.glb");
        const auto r = test::run("'" + test::drape_exe() + "' animation '" + add_in.string() + "' -o '" + out.string() + "'" + (keep ? " --keep-additive" : ""));
        CHECK_MESSAGE(r.exit_code == 0, r.out);
        CHECK_MESSAGE(r.out.find("a000_003000: track 7 (bone L_Calf) translation x, y, z in block 0 not decoded: 16-bit spline range x NaN..NaN, y NaN..NaN, "
                                 "z NaN..NaN; the identity delta is used instead (the bone keeps its reference pose)") != std::string::npos,
                      r.out);
        const auto keys = GlbKeys(test::load(out)).channel("a000_003000", "L_Calf", "translation");
        REQUIRE(keys.size() == 3);
        CHECK(keys[1] == doctest::Approx(keep ? 0.0 : -0.45));
    }

    // drape convert on the sample game with that binder: the item converts, its report says the
    // part, and the character's .glb holds the reference pose there and no NaN.
    REQUIRE(test::write_sample_game(dir / "game"));
    REQUIRE(write_file(dir / "game/chr/c9999.anibnd.dcx", *test::sample_anibnd_with_spline_clip(nan_scale)));
    convert::Options o;
    o.jobs = 2;
    const auto report = convert::convert_folder(dir / "game", dir / "out", o);
    REQUIRE(report.items.size() == 1);
    const auto& item = report.items[0];
    REQUIRE_MESSAGE(item.ok, item.error);
    CHECK(report.exit_code() == 0);
    CHECK(item.clips == 2);
    CHECK(lines_starting(item.warnings, "a000_003000: track 7 (bone L_Calf) scale x, y, z in block 0 not decoded: 16-bit spline range x NaN..NaN") == 1);
    const json rep = json::parse(std::ifstream(dir / "out/chr/c9999.report.json"));
    size_t in_report = 0;
    for (const auto& w : rep["warnings"]) in_report += w.get<std::string>().rfind("a000_003000: track 7 (bone L_Calf) scale", 0) == 0;
    CHECK(in_report == 1);
    const GlbKeys g(test::load(dir / "out/chr/c9999.glb"));
    CHECK(g.census().second == 0);
    const auto keys = g.channel("a000_003000", "L_Calf", "scale");
    REQUIRE(keys.size() == 3);
    for (float v : keys) CHECK(v == 1.0f);

    // drape simulate under that clip says it too (the cloth follows the reference pose there).
    const auto sim = test::run("'" + test::drape_exe() + "' simulate '" + (dir / "game/chr/c9999.chrbnd.dcx").string() + "' --animation '" +
                               (dir / "game/chr/c9999.anibnd.dcx").string() + "' --clip a000_003000 --steps 10");
    CHECK_MESSAGE(sim.exit_code == 0, sim.out);
    CHECK_MESSAGE(sim.out.find("warning: a000_003000: track 7 (bone L_Calf) scale x, y, z in block 0 not decoded: 16-bit spline range x NaN..NaN") !=
                      std::string::npos,
                  sim.out);
}

namespace {

// Little-endian bytes of a spline block, aligned from its start (docs/formats.md).
struct Stream {
    std::vector<uint8_t> b;
    void u8(uint8_t v) { b.push_back(v); }
    void u16(uint16_t v) { u8(uint8_t(v)), u8(uint8_t(v >> 8)); }
    void f32(float f) {
        uint32_t v;
        std::memcpy(&v, &f, 4);
        u16(uint16_t(v)), u16(uint16_t(v >> 16));
    }
    void align(size_t a) {
        while (b.size() % a) b.push_back(0);
    }
    // A degree-1 header over 2 frames: n = 1, knots 0 0 1 1.
    void header() {
        u16(1), u8(1);
        for (uint8_t k : {0, 0, 1, 1}) u8(k);
    }
};

havok::SplineData one_block(const Stream& s, int32_t tracks) {
    havok::SplineData d;
    d.num_frames = 2;
    d.num_blocks = 1;
    d.max_frames_per_block = 256;
    d.mask_and_quantization_size = tracks * 4;
    d.frame_duration = 1.0f / 30.0f;
    d.block_duration = 255.0f / 30.0f;
    d.block_inverse_duration = 30.0f / 255.0f;
    d.block_offsets = {0};
    d.data = s.b;
    return d;
}

}  // namespace

TEST_CASE("anim: every kind of stored value that is not finite is listed and left at the identity, a finite range wider than a float is not") {
    Stream s;
    // Masks of five tracks: quantisation byte (pos 16-bit | rotation << 2 | scale 16-bit << 6), position, rotation, scale.
    s.u8(1 | (5 << 2)), s.u8(0x07), s.u8(0), s.u8(0);             // 0: translation static x NaN, y 1, z inf
    s.u8(1 | (5 << 2)), s.u8(0), s.u8(0x01), s.u8(0);             // 1: rotation static UNCOMPRESSED (NaN, 0, 0, 1)
    s.u8(1 | (5 << 2)), s.u8(0), s.u8(0xF0), s.u8(0);             // 2: rotation spline UNCOMPRESSED, control point 1 infinite
    s.u8(1 | (1 << 6)), s.u8(0), s.u8(0), s.u8(0x70);             // 3: scale spline, x range -3e38..3e38, y range 0..inf, z 1..2
    s.u8(1 | (1 << 6)), s.u8(0x10 | 0x04), s.u8(0), s.u8(0x01);   // 4: translation x spline (fine), z static -inf, scale x static 2
    s.align(4);
    s.f32(k_nan), s.f32(1), s.f32(k_inf);  // track 0
    s.align(4);
    s.f32(k_nan), s.f32(0), s.f32(0), s.f32(1);  // track 1
    s.header(), s.align(4);  // track 2
    for (float v : {0.f, 0.f, 0.f, 1.f, 0.f, k_inf, 0.f, 1.f}) s.f32(v);
    s.header(), s.align(4);  // track 3
    s.f32(-3e38f), s.f32(3e38f), s.f32(0), s.f32(k_inf), s.f32(1), s.f32(2);
    for (uint16_t q : {0, 0, 0, 65535, 65535, 65535}) s.u16(q);
    s.align(4);
    s.header(), s.align(4);  // track 4 translation: x 0..1, z static
    s.f32(0), s.f32(1), s.f32(-k_inf);
    s.u16(0), s.u16(65535);
    s.align(4);
    s.f32(2);  // track 4 scale x
    s.align(4);
    auto clip = anim::decode_spline(one_block(s, 5), 5, 0);
    REQUIRE_MESSAGE(clip, clip.error().to_string());
    const auto& tracks = clip->blocks[0].tracks;
    REQUIRE(clip->undecoded.size() == 5);
    const auto& u = clip->undecoded;
    CHECK(u[0].track == 0);
    CHECK(u[0].part == anim::TrackPart::translation);
    CHECK(u[0].components == 5);
    CHECK(u[0].reason == "static value x NaN, z inf");
    CHECK(tracks[0].translation.constant == anim::Vec3{0, 1, 0});
    CHECK(u[1].track == 1);
    CHECK(u[1].part == anim::TrackPart::rotation);
    CHECK(u[1].reason == "static UNCOMPRESSED quaternion (NaN, 0, 0, 1)");
    CHECK(u[2].track == 2);
    CHECK(u[2].reason == "UNCOMPRESSED control point 1 of 2 (0, inf, 0, 1)");
    CHECK_FALSE(tracks[2].rotation.is_spline);
    CHECK(u[3].track == 3);
    CHECK(u[3].part == anim::TrackPart::scale);
    CHECK(u[3].components == 2);
    CHECK(u[3].reason == "16-bit spline range y 0..inf");
    CHECK(u[4].track == 4);
    CHECK(u[4].components == 4);
    CHECK(u[4].reason == "static value z -inf");
    for (const auto& x : u) CHECK(x.block == 0);
    // The rest of each part decodes: track 3's x (a range wider than a float: its keys are still
    // its ends) and z, track 4's translation x and scale x.
    std::vector<anim::Transform> pose(5);
    for (int32_t f = 0; f < 2; ++f) {
        anim::Clip c;
        c.num_tracks = 5;
        c.num_frames = 2;
        c.spline = *clip;
        anim::sample_frame(c, f, pose);
        CAPTURE(f);
        CHECK(pose[0].translation == anim::Vec3{0, 1, 0});
        CHECK(pose[1].rotation == anim::Quat{0, 0, 0, 1});
        CHECK(pose[2].rotation == anim::Quat{0, 0, 0, 1});
        CHECK(pose[3].scale[0] == (f ? 3e38f : -3e38f));
        CHECK(pose[3].scale[1] == 1.0f);
        CHECK(pose[3].scale[2] == doctest::Approx(f ? 2.0 : 1.0));
        CHECK(pose[4].translation[0] == doctest::Approx(f));
        CHECK(pose[4].translation[1] == 0.0f);
        CHECK(pose[4].translation[2] == 0.0f);
        CHECK(pose[4].scale == anim::Vec3{2, 1, 1});
    }

    // use_reference_pose: the listed components take the bone's reference value (normal clip),
    // the others stay as decoded.
    anim::Clip c;
    c.name = "hand_made";
    c.num_tracks = 5;
    c.num_frames = 2;
    c.spline = *clip;
    c.undecoded = clip->undecoded;
    c.track_to_bone = {0, 1, 2, 3, 4};
    havok::Skeleton skel;
    for (int b = 0; b < 5; ++b) {
        skel.bone_names.push_back("b" + std::to_string(b));
        skel.parents.push_back(int16_t(b - 1));
        havok::QsTransform q;
        q.translation = {float(b), 10, 20, 0};
        q.rotation = {0, 0, std::sqrt(0.5f), std::sqrt(0.5f)};
        q.scale = {3, 4, 5, 0};
        skel.reference_pose.push_back(q);
    }
    anim::use_reference_pose(c, skel);
    anim::sample_frame(c, 1, pose);
    CHECK(pose[0].translation == anim::Vec3{0, 1, 20});
    CHECK(pose[1].rotation == anim::normalize({0, 0, std::sqrt(0.5f), std::sqrt(0.5f)}));
    CHECK(pose[2].rotation == anim::normalize({0, 0, std::sqrt(0.5f), std::sqrt(0.5f)}));
    CHECK(pose[3].scale[0] == 3e38f);
    CHECK(pose[3].scale[1] == 4.0f);
    CHECK(pose[3].scale[2] == doctest::Approx(2.0));
    CHECK(pose[4].translation[0] == doctest::Approx(1.0));
    CHECK(pose[4].translation[1] == 0.0f);
    CHECK(pose[4].translation[2] == 20.0f);
    CHECK(anim::undecoded_message(c, c.undecoded[3], skel) ==
          "hand_made: track 3 (bone b3) scale y in block 0 not decoded: 16-bit spline range y 0..inf; the bone's reference pose is used instead");
    CHECK(anim::undecoded_message(c, c.undecoded[1], skel) ==
          "hand_made: track 1 (bone b1) rotation in block 0 not decoded: static UNCOMPRESSED quaternion (NaN, 0, 0, 1); the bone's reference pose is used instead");
}

TEST_CASE("anim: interleaved transforms and root-motion samples that are not finite are listed, and never sampled") {
    havok::Animation a;
    a.class_name = "hkaInterleavedUncompressedAnimation";
    a.duration = 2.0f / 30.0f;
    a.number_of_transform_tracks = 2;
    a.interleaved = havok::InterleavedData{};
    a.interleaved->transforms.resize(6);  // 3 frames of 2 tracks
    a.interleaved->transforms[2 * 1 + 0].translation = {k_nan, 5, 0, 0};   // frame 1, track 0
    a.interleaved->transforms[2 * 2 + 0].translation = {1, 5, -k_inf, 0};  // frame 2, track 0
    a.interleaved->transforms[2 * 2 + 1].rotation = {0, k_nan, 0, 1};      // frame 2, track 1
    a.reference_frame = havok::ReferenceFrame{};
    a.reference_frame->duration = a.duration;
    a.reference_frame->samples = {{0, 0, 0, 0}, {0, 0, k_nan, 0}, {0, 0, 1, 0}};
    auto clip = anim::decode_clip(a, nullptr);
    REQUIRE_MESSAGE(clip, clip.error().to_string());
    REQUIRE(clip->undecoded.size() == 2);
    CHECK(clip->undecoded[0].track == 0);
    CHECK(clip->undecoded[0].block == -1);
    CHECK(clip->undecoded[0].part == anim::TrackPart::translation);
    CHECK(clip->undecoded[0].components == 5);
    CHECK(clip->undecoded[0].reason == "frame 1: x NaN (2 frames not finite)");
    CHECK(clip->undecoded[1].track == 1);
    CHECK(clip->undecoded[1].part == anim::TrackPart::rotation);
    CHECK(clip->undecoded[1].reason == "frame 2: quaternion (0, NaN, 0, 1) (1 frame not finite)");
    CHECK_FALSE(clip->root_motion);
    REQUIRE(clip->notes.size() == 1);
    CHECK(clip->notes[0] == "root motion left out: sample 1 of 3 is (0, 0, NaN, 0), not finite");
    std::vector<anim::Transform> pose(2);
    for (float t : {0.0f, 0.02f, 0.05f, 1.0f}) {
        anim::sample_time(*clip, t, pose);
        CAPTURE(t);
        for (const auto& x : pose) {
            for (size_t k = 0; k < 3; ++k) CHECK((std::isfinite(x.translation[k]) && std::isfinite(x.scale[k])));
            for (size_t k = 0; k < 4; ++k) CHECK(std::isfinite(x.rotation[k]));
        }
    }
    // The reference pose in its place: x and z of track 0 at every frame, y as stored.
    havok::Skeleton skel;
    skel.bone_names = {"a", "b"};
    skel.parents = {-1, 0};
    skel.reference_pose.resize(2);
    skel.reference_pose[0].translation = {7, 8, 9, 0};
    anim::use_reference_pose(*clip, skel);
    anim::sample_frame(*clip, 2, pose);
    CHECK(pose[0].translation == anim::Vec3{7, 5, 9});
    CHECK(pose[1].rotation == anim::Quat{0, 0, 0, 1});
}

TEST_CASE("anim glb: keys that overflow when an additive clip is baked hold the reference pose, and the clip says so") {
    // Finite decoded values whose sum with the reference pose is not: 3e38 + 3e38.
    havok::Animation a;
    a.class_name = "hkaInterleavedUncompressedAnimation";
    a.duration = 1.0f / 30.0f;
    a.number_of_transform_tracks = 1;
    a.interleaved = havok::InterleavedData{};
    a.interleaved->transforms.resize(2);
    a.interleaved->transforms[1].translation = {3e38f, 0, 0, 0};
    havok::Binding binding;
    binding.blend_hint = 2;
    auto clip = anim::decode_clip(a, &binding);
    REQUIRE(clip);
    clip->name = "overflow";
    CHECK(clip->undecoded.empty());
    havok::Skeleton skel;
    skel.name = "s";
    skel.bone_names = {"root"};
    skel.parents = {-1};
    skel.reference_pose.resize(1);
    skel.reference_pose[0].translation = {3e38f, 1, 2, 0};
    exporters::AnimationGlbReport report;
    auto glb = exporters::animation_glb(skel, std::span<const anim::Clip>(&*clip, 1), {}, &report);
    REQUIRE(glb);
    CHECK(lines_starting(report.warnings, "overflow: track 0 (bone root) translation: 1 of 2 keys are not finite after baking the additive clip onto the "
                                          "reference pose; the bone's reference pose is used instead") == 1);
    const GlbKeys g(*glb);
    CHECK(g.census().second == 0);
    const auto keys = g.channel("overflow", "root", "translation");
    REQUIRE(keys.size() == 3);
    CHECK(keys[0] == 3e38f);
    CHECK(keys[1] == 1.0f);
    CHECK(keys[2] == -2.0f);  // Z mirrored
}
