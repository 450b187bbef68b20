// libFuzzer target for the animation decoder and its glTF export.
// Byte 0 selects the path:
//   0: an .anibnd / .hkx (read_clip_set: binder, Havok readers, decoder), then export to .glb;
//   1: a spline clip from a small header + raw block data (decode_spline, then every frame and
//      a few times sampled);
//   2: a .glb to add a one-bone clip to (read_glb, add_animations_to_glb).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "drape/anim/anibnd.h"
#include "drape/anim/animation.h"
#include "drape/exporters/animation_glb.h"

using namespace drape;

namespace {

void sample_all(const anim::Clip& c) {
    std::vector<anim::Transform> out(size_t(c.num_tracks));
    const int32_t frames = std::min(c.num_frames, 512);
    for (int32_t f = 0; f < frames; ++f) anim::sample_frame(c, f, out);
    for (float t : {0.0f, 0.013f, c.duration * 0.5f, c.duration, -1.0f, NAN}) anim::sample_time(c, t, out);
    (void)anim::sample_root_motion(c, c.duration * 0.3f);
}

havok::Skeleton one_bone() {
    havok::Skeleton s;
    s.name = "fuzz";
    s.bone_names = {"root"};
    s.parents = {-1};
    s.reference_pose.resize(1);
    return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    const uint8_t mode = data[0] % 3;
    ++data, --size;
    if (mode == 0) {
        auto set = anim::read_clip_set(Bytes(data, size), "fuzz");
        if (!set) return 0;
        size_t work = 0;
        for (const auto& c : set->clips) work += size_t(c.num_tracks) * size_t(c.num_frames);
        if (work > (1u << 20)) return 0;
        for (const auto& c : set->clips) sample_all(c);
        const havok::Skeleton skel = set->skeletons.empty() ? one_bone() : set->skeletons[0];
        (void)exporters::animation_glb(skel, set->clips);
    } else if (mode == 1) {
        if (size < 12) return 0;
        havok::SplineData d;
        const int32_t tracks = data[0] % 16, floats = data[1] % 4;
        uint16_t frames, per;
        std::memcpy(&frames, data + 2, 2);
        std::memcpy(&per, data + 4, 2);
        d.num_frames = frames % 1024;
        d.max_frames_per_block = per % 300;
        d.num_blocks = data[6] % 8;
        std::memcpy(&d.frame_duration, data + 8, 4);
        d.block_duration = float(d.max_frames_per_block - 1) * d.frame_duration;
        d.block_inverse_duration = d.block_duration != 0 ? 1.0f / d.block_duration : 0.0f;
        d.mask_and_quantization_size = tracks * 4 + floats;
        size_t pos = 12;
        // data[7] bit 0: store one offset fewer than blocks (the Elden Ring long-clip shape).
        const int32_t offsets = d.num_blocks - ((data[7] & 1) && d.num_blocks > 1 ? 1 : 0);
        for (int32_t b = 0; b < offsets && pos + 2 <= size; ++b, pos += 2) {
            uint16_t o;
            std::memcpy(&o, data + pos, 2);
            d.block_offsets.push_back(o);
        }
        d.data.assign(data + pos, data + size);
        auto s = anim::decode_spline(d, tracks, floats);
        if (!s) return 0;
        anim::Clip c;
        c.num_tracks = tracks;
        c.num_frames = d.num_frames;
        c.frame_duration = d.frame_duration;
        c.duration = std::isfinite(d.frame_duration) ? float(d.num_frames - 1) * d.frame_duration : 0.0f;
        c.spline = std::move(*s);
        sample_all(c);
    } else {
        anim::Clip c;
        c.name = "fuzz";
        c.class_name = "hkaInterleavedUncompressedAnimation";
        c.num_tracks = 1;
        c.num_frames = 2;
        c.duration = 1.0f / 30.0f;
        c.frame_duration = c.duration;
        c.frames.resize(2);
        c.frames[1].translation = {1, 2, 3};
        c.track_to_bone = {0};
        c.root_motion = anim::RootMotion{};
        c.root_motion->duration = c.duration;
        c.root_motion->samples = {{0, 0, 0, 0}, {1, 0, 0, 0.5f}};
        exporters::AnimationGlbOptions o;
        o.mirror = exporters::Mirror::detect;
        std::vector<anim::Clip> clips{c};
        (void)exporters::add_animations_to_glb(Bytes(data, size), one_bone(), clips, o);
    }
    return 0;
}
