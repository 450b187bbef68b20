// Blender imports an exported clip on its skeleton and plays it: one headless Blender run
// (tests/blender_anim/check_clip.py) samples a bone's world position at three times, and the
// positions must be those that drape's decoded data gives (forward kinematics in glTF space,
// root motion included), converted to Blender's Z-up axes. Blender missing = failure, unless
// DRAPE_SKIP_EXTERNAL=1.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "corpus.h"
#include "drape/anim/anibnd.h"
#include "drape/exporters/animation_glb.h"
#include "drape/io/file.h"

using namespace drape;
using json = nlohmann::json;

namespace {

using M4 = std::array<double, 16>;  // column-major

M4 trs(const anim::Vec3& t, const anim::Quat& q, const anim::Vec3& s) {
    // glTF conversion of the game's space (drape's convention): position (x, y, -z), quaternion (-x, -y, z, w).
    const double x = -double(q[0]), y = -double(q[1]), z = q[2], w = q[3];
    const double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
                         2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                         2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)};
    M4 m{};
    for (int c = 0; c < 3; ++c)
        for (int row = 0; row < 3; ++row) m[size_t(c * 4 + row)] = r[c * 3 + row] * s[size_t(c)];
    m[12] = t[0], m[13] = t[1], m[14] = -double(t[2]), m[15] = 1;
    return m;
}

M4 mul(const M4& a, const M4& b) {
    M4 r{};
    for (int c = 0; c < 4; ++c)
        for (int row = 0; row < 4; ++row)
            for (int k = 0; k < 4; ++k) r[size_t(c * 4 + row)] += a[size_t(k * 4 + row)] * b[size_t(c * 4 + k)];
    return r;
}

// World position (glTF space) of every bone at time t.
std::vector<std::array<double, 3>> world_positions(const havok::Skeleton& s, const anim::Clip& clip, float t) {
    std::vector<anim::Transform> pose(size_t(clip.num_tracks));
    anim::sample_time(clip, t, pose);
    std::vector<anim::Transform> local(s.bone_names.size());
    for (size_t i = 0; i < local.size(); ++i) {
        const auto& r = s.reference_pose[i];
        local[i].translation = {r.translation[0], r.translation[1], r.translation[2]};
        local[i].rotation = anim::normalize(r.rotation);
        local[i].scale = {r.scale[0], r.scale[1], r.scale[2]};
    }
    const auto map = anim::tracks_to_bones(clip, s);
    for (size_t k = 0; k < map.size(); ++k)
        if (map[k] >= 0) local[size_t(map[k])] = pose[k];
    M4 root = trs({0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1});
    if (auto m = anim::sample_root_motion(clip, t)) {
        const float h = (*m)[3] / 2;
        root = trs({(*m)[0], (*m)[1], (*m)[2]}, {0, std::sin(h), 0, std::cos(h)}, {1, 1, 1});
    }
    std::vector<M4> world(local.size());
    std::vector<std::array<double, 3>> out(local.size());
    for (size_t i = 0; i < local.size(); ++i) {
        const M4 l = trs(local[i].translation, local[i].rotation, local[i].scale);
        world[i] = s.parents[i] >= 0 ? mul(world[size_t(s.parents[i])], l) : mul(root, l);
        out[i] = {world[i][12], world[i][13], world[i][14]};
    }
    return out;
}

}  // namespace

TEST_CASE("anim blender: Blender plays an exported clip and a bone moves as the decoded data says" * doctest::test_suite("corpus+external")) {
    const char* skip = std::getenv("DRAPE_SKIP_EXTERNAL");
    const bool have_blender = std::system("blender --version > /dev/null 2>&1") == 0;
    if (!have_blender) {
        if (skip && std::string(skip) == "1") {
            MESSAGE("Blender not installed; skipped (DRAPE_SKIP_EXTERNAL=1)");
            return;
        }
        FAIL("Blender is not installed (apt-get install blender), or set DRAPE_SKIP_EXTERNAL=1");
    }
    auto clips = anim::read_clip_set(test::load(test::corpus("bb/a000_003000.hkx")), "bb/a000_003000.hkx");
    auto skels = anim::read_clip_set(test::load(test::corpus("bb/skeleton.HKX")), "bb/skeleton.HKX");
    REQUIRE(clips);
    REQUIRE(skels);
    REQUIRE(clips->clips.size() == 1);
    const auto& clip = clips->clips[0];
    const auto& skel = skels->skeletons.at(0);
    REQUIRE(clip.root_motion);
    const auto dir = test::scratch_dir("anim_blender");
    auto glb = exporters::animation_glb(skel, clips->clips);
    REQUIRE(glb);
    const auto glb_path = dir / "a000_003000.glb";
    REQUIRE(write_file(glb_path, *glb));

    // The bone that travels furthest between 0 s and 2 s.
    const float times[3] = {0.0f, 1.0f, 2.0f};
    std::vector<std::vector<std::array<double, 3>>> pos;
    for (float t : times) pos.push_back(world_positions(skel, clip, t));
    size_t bone = 0;
    double best = -1;
    for (size_t i = 0; i < skel.bone_names.size(); ++i) {
        double d = 0;
        for (int k = 0; k < 3; ++k) d += (pos[2][i][size_t(k)] - pos[0][i][size_t(k)]) * (pos[2][i][size_t(k)] - pos[0][i][size_t(k)]);
        if (d > best) best = d, bone = i;
    }
    CHECK(std::sqrt(best) > 0.5);  // it moves (root motion alone carries it 2.7 m in 3 s)
    json job = {{"glb", glb_path.string()}, {"bone", skel.bone_names[bone]}, {"animation", clip.name}, {"tolerance", 2e-3}, {"samples", json::array()}};
    for (size_t k = 0; k < 3; ++k) {
        const auto& p = pos[k][bone];
        job["samples"].push_back({{"time", times[k]}, {"blender_position", {p[0], -p[2], p[1]}}});  // glTF Y up -> Blender Z up
    }
    const auto job_path = dir / "job.json", result_path = dir / "result.json";
    std::ofstream(job_path) << job.dump(1);
    std::string cmd = "blender -b --factory-startup --python ";
    cmd.append(DRAPE_SOURCE_DIR).append("/tests/blender_anim/check_clip.py -- ").append(job_path.string()).append(" ").append(result_path.string());
    cmd.append(" > ").append((dir / "blender.log").string()).append(" 2>&1");
    const int rc = std::system(cmd.c_str());
    CHECK(rc == 0);
    std::ifstream in(result_path);
    REQUIRE_MESSAGE(in.good(), "Blender wrote no result; see " << (dir / "blender.log").string());
    const json result = json::parse(in);
    INFO(result.dump(1));
    CHECK(result["errors"].empty());
    CHECK(result["ok"] == true);
    CHECK(result["samples"].size() == 3);
}
