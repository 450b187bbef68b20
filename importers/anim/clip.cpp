// drape: one clip whatever its storage (spline or interleaved), its binding and root motion.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "drape/anim/animation.h"
#include "number_text.h"

namespace drape::anim {

const char* track_part_name(TrackPart p) {
    switch (p) {
        case TrackPart::translation: return "translation";
        case TrackPart::rotation: return "rotation";
        case TrackPart::scale: return "scale";
    }
    return "?";
}

namespace {

using detail::number_text;

std::string vec4_text(const havok::Vec4& q) { return detail::four_text(q); }

// Stored interleaved transforms (`raw`, frame-major) that are not finite: per track and part,
// the components concerned are set to the identity in every frame of c.frames and listed once,
// with the first frame that holds such a value (the spline decoder does the same per block).
// The raw rotation is checked, not c.frames' (normalize() already made a NaN quaternion the identity).
void check_interleaved(const std::vector<havok::QsTransform>& raw, Clip& c) {
    const size_t nt = size_t(c.num_tracks);
    for (size_t t = 0; t < nt; ++t) {
        for (int part = 0; part < 3; ++part) {
            uint8_t comps = 0;
            size_t frames = 0;
            std::string first;
            for (size_t f = 0; f * nt + t < raw.size(); ++f) {
                const havok::QsTransform& x = raw[f * nt + t];
                uint8_t here = 0;
                if (part == 1) {
                    for (int k = 0; k < 4; ++k)
                        if (!std::isfinite(x.rotation[size_t(k)])) here = 0xF;
                } else {
                    const havok::Vec4& v = part == 0 ? x.translation : x.scale;
                    for (int k = 0; k < 3; ++k)
                        if (!std::isfinite(v[size_t(k)])) here = uint8_t(here | (1 << k));
                }
                if (!here) continue;
                if (!frames) {
                    first = "frame " + std::to_string(f) + ": ";
                    if (part == 1) {
                        first += "quaternion " + vec4_text(x.rotation);
                    } else {
                        const havok::Vec4& v = part == 0 ? x.translation : x.scale;
                        for (int k = 0, n = 0; k < 3; ++k)
                            if (here & (1 << k)) first += std::string(n++ ? ", " : "") + char('x' + k) + " " + number_text(v[size_t(k)]);
                    }
                }
                comps = uint8_t(comps | here);
                ++frames;
            }
            if (!comps) continue;
            for (size_t f = 0; f * nt + t < c.frames.size(); ++f) {
                Transform& x = c.frames[f * nt + t];
                if (part == 1) x.rotation = {0, 0, 0, 1};
                else
                    for (int k = 0; k < 3; ++k)
                        if (comps & (1 << k)) (part == 0 ? x.translation : x.scale)[size_t(k)] = part == 0 ? 0.0f : 1.0f;
            }
            c.undecoded.push_back({int32_t(t), -1, TrackPart(part), comps,
                                   first + " (" + std::to_string(frames) + (frames == 1 ? " frame" : " frames") + " not finite)"});
        }
    }
}

}  // namespace

Quat normalize(Quat q) {
    const float len2 = (q[0] * q[0] + q[1] * q[1]) + (q[2] * q[2] + q[3] * q[3]);
    if (!(len2 > 0.0f) || !std::isfinite(len2)) return {0, 0, 0, 1};
    const float inv = 1.0f / std::sqrt(len2);
    return {q[0] * inv, q[1] * inv, q[2] * inv, q[3] * inv};
}

Quat multiply(const Quat& a, const Quat& b) {
    return {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1], a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
            a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3], a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
}

Result<Clip> decode_clip(const havok::Animation& a, const havok::Binding* binding) {
    Clip c;
    c.class_name = a.class_name;
    c.duration = a.duration;
    c.num_tracks = a.number_of_transform_tracks;
    c.num_float_tracks = a.number_of_float_tracks;
    if (!std::isfinite(a.duration) || a.duration < 0)
        return make_error("duration " + std::to_string(a.duration) + " is not a finite, non-negative number", "hkaAnimation.duration");
    if (c.num_tracks < 0 || uint32_t(c.num_tracks) > k_max_tracks)
        return make_error(std::to_string(c.num_tracks) + " transform tracks, outside 0.." + std::to_string(k_max_tracks), "hkaAnimation.numberOfTransformTracks");
    if (a.spline) {
        auto s = decode_spline(*a.spline, a.number_of_transform_tracks, a.number_of_float_tracks);
        if (!s) return s.error();
        c.num_frames = s->num_frames;
        c.frame_duration = s->frame_duration;
        c.undecoded = s->undecoded;
        c.spline = std::move(*s);
        if (c.num_float_tracks > 0)
            c.notes.push_back(std::to_string(c.num_float_tracks) +
                              " float tracks not decoded: no public source describes their spline layout");
    } else if (a.interleaved) {
        const auto& tr = a.interleaved->transforms;
        if (c.num_tracks == 0 || tr.size() % size_t(c.num_tracks) != 0)
            return make_error(std::to_string(tr.size()) + " transforms do not divide into " + std::to_string(c.num_tracks) + " tracks",
                              "hkaInterleavedUncompressedAnimation.transforms");
        c.num_frames = int32_t(tr.size() / size_t(c.num_tracks));
        if (uint32_t(c.num_frames) > k_max_frames)
            return make_error(std::to_string(c.num_frames) + " frames, more than " + std::to_string(k_max_frames), "hkaInterleavedUncompressedAnimation.transforms");
        c.frame_duration = c.num_frames > 1 ? a.duration / float(c.num_frames - 1) : 0.0f;
        c.frames.resize(tr.size());
        for (size_t i = 0; i < tr.size(); ++i) {
            c.frames[i].translation = {tr[i].translation[0], tr[i].translation[1], tr[i].translation[2]};
            c.frames[i].rotation = normalize(tr[i].rotation);
            c.frames[i].scale = {tr[i].scale[0], tr[i].scale[1], tr[i].scale[2]};
        }
        check_interleaved(tr, c);
        if (c.num_float_tracks > 0) c.notes.push_back(std::to_string(c.num_float_tracks) + " float tracks not exported");
    } else {
        return make_error("class " + a.class_name + " (type " + std::to_string(a.type) +
                              ") is not decoded: only hkaSplineCompressedAnimation and hkaInterleavedUncompressedAnimation are",
                          "hkaAnimation.type");
    }
    if (a.reference_frame) {
        RootMotion m;
        m.up = a.reference_frame->up;
        m.forward = a.reference_frame->forward;
        m.duration = a.reference_frame->duration;
        m.samples = a.reference_frame->samples;
        if (!std::isfinite(m.duration) || m.duration < 0)
            return make_error("duration " + std::to_string(m.duration) + " is not a finite, non-negative number", "hkaDefaultAnimatedReferenceFrame.duration");
        // A sample that is not finite has no value to put in its place (the motion is the clip's
        // own): the root motion is left out and the clip says so.
        size_t bad = 0;
        for (size_t i = 0; i < m.samples.size(); ++i)
            if (!std::isfinite(m.samples[i][0]) || !std::isfinite(m.samples[i][1]) || !std::isfinite(m.samples[i][2]) || !std::isfinite(m.samples[i][3])) {
                if (!bad) c.notes.push_back("root motion left out: sample " + std::to_string(i) + " of " + std::to_string(m.samples.size()) + " is " +
                                            vec4_text(m.samples[i]) + ", not finite");
                ++bad;
            }
        if (!bad) c.root_motion = std::move(m);
    }
    if (binding) {
        c.skeleton_name = binding->original_skeleton_name;
        c.blend_hint = BlendHint(binding->blend_hint);
        if (binding->blend_hint < 0 || binding->blend_hint > 2)
            return make_error("blend hint " + std::to_string(binding->blend_hint) + " is not 0, 1 or 2", "hkaAnimationBinding.blendHint");
        c.track_to_bone = binding->transform_track_to_bone_indices;
        if (!c.track_to_bone.empty() && c.track_to_bone.size() != size_t(c.num_tracks))
            return make_error(std::to_string(c.track_to_bone.size()) + " entries for " + std::to_string(c.num_tracks) + " tracks",
                              "hkaAnimationBinding.transformTrackToBoneIndices");
    }
    if (c.track_to_bone.empty()) {
        c.track_to_bone.resize(size_t(c.num_tracks));
        for (int32_t i = 0; i < c.num_tracks; ++i) c.track_to_bone[size_t(i)] = int16_t(i);
    }
    return c;
}

std::vector<Result<Clip>> decode_each_clip(const havok::AnimationContainer& container) {
    std::vector<Result<Clip>> out;
    out.reserve(container.animations.size());
    for (size_t i = 0; i < container.animations.size(); ++i) {
        const auto& a = container.animations[i];
        const havok::Binding* binding = nullptr;
        for (const auto& b : container.bindings)
            if (b.animation_item == a.item) binding = &b;
        if (!binding && i < container.bindings.size() && container.bindings[i].animation_item == 0) binding = &container.bindings[i];
        out.push_back(decode_clip(a, binding));
    }
    return out;
}

Result<std::vector<Clip>> decode_clips(const havok::AnimationContainer& container) {
    std::vector<Clip> out;
    for (auto& c : decode_each_clip(container)) {
        if (!c) return std::move(c.error());
        out.push_back(std::move(*c));
    }
    return out;
}

namespace {

void sample_spline_block(const SplineBlock& block, float u, std::span<Transform> out) {
    const size_t n = std::min(out.size(), block.tracks.size());
    for (size_t t = 0; t < n; ++t) {
        out[t].translation = evaluate(block.tracks[t].translation, u);
        out[t].rotation = evaluate(block.tracks[t].rotation, u);
        out[t].scale = evaluate(block.tracks[t].scale, u);
    }
}

Quat nlerp(const Quat& a, Quat b, float f) {
    const float dot = (a[0] * b[0] + a[1] * b[1]) + (a[2] * b[2] + a[3] * b[3]);
    if (dot < 0)
        for (auto& v : b) v = -v;
    return normalize({a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f, a[3] + (b[3] - a[3]) * f});
}

Vec3 lerp(const Vec3& a, const Vec3& b, float f) { return {a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f}; }

}  // namespace

void sample_frame(const Clip& clip, int32_t frame, std::span<Transform> out) {
    for (auto& t : out) t = Transform{};
    if (clip.num_frames <= 0) return;
    frame = std::clamp(frame, 0, clip.num_frames - 1);
    if (clip.spline) {
        const auto& s = *clip.spline;
        if (s.blocks.empty()) return;
        const int32_t per = s.max_frames_per_block - 1;
        const int32_t block = std::min<int32_t>(frame / per, int32_t(s.blocks.size()) - 1);
        sample_spline_block(s.blocks[size_t(block)], float(frame - block * per), out);
    } else {
        const size_t n = std::min(out.size(), size_t(clip.num_tracks));
        for (size_t t = 0; t < n; ++t) out[t] = clip.frames[size_t(frame) * size_t(clip.num_tracks) + t];
    }
}

void sample_time(const Clip& clip, float t, std::span<Transform> out) {
    for (auto& x : out) x = Transform{};
    if (clip.num_frames <= 0) return;
    if (!(t > 0)) t = 0;  // NaN too
    t = std::min(t, clip.duration);
    if (clip.spline) {
        const auto& s = *clip.spline;
        if (s.blocks.empty()) return;
        float fb = std::floor(t * s.block_inverse_duration);
        if (!(fb >= 0)) fb = 0;  // NaN too
        const int32_t block = int32_t(std::min(fb, float(s.blocks.size() - 1)));
        const float local = std::max(0.0f, t - float(block) * s.block_duration);
        sample_spline_block(s.blocks[size_t(block)], local / s.frame_duration, out);
        return;
    }
    if (clip.num_frames == 1 || !(clip.frame_duration > 0)) {
        sample_frame(clip, 0, out);
        return;
    }
    const float pos = std::min(t / clip.frame_duration, float(clip.num_frames - 1));
    const int32_t f0 = std::min(int32_t(pos), clip.num_frames - 2);
    const float f = pos - float(f0);
    const size_t n = std::min(out.size(), size_t(clip.num_tracks));
    const Transform* a = &clip.frames[size_t(f0) * size_t(clip.num_tracks)];
    const Transform* b = a + clip.num_tracks;
    for (size_t i = 0; i < n; ++i) {
        out[i].translation = lerp(a[i].translation, b[i].translation, f);
        out[i].rotation = nlerp(a[i].rotation, b[i].rotation, f);
        out[i].scale = lerp(a[i].scale, b[i].scale, f);
    }
}

std::optional<Vec4> sample_root_motion(const Clip& clip, float t) {
    if (!clip.root_motion || clip.root_motion->samples.empty()) return std::nullopt;
    const auto& m = *clip.root_motion;
    const size_t n = m.samples.size();
    if (n == 1 || !(m.duration > 0)) return m.samples[0];
    if (!(t > 0)) t = 0;
    const float pos = std::min(t / m.duration, 1.0f) * float(n - 1);
    const size_t i0 = std::min(size_t(pos), n - 2);
    const float f = pos - float(i0);
    const Vec4& a = m.samples[i0];
    const Vec4& b = m.samples[i0 + 1];
    constexpr float k_two_pi = 6.28318530717958647692f;
    float bw = b[3];
    while (bw - a[3] > k_two_pi / 2) bw -= k_two_pi;
    while (a[3] - bw > k_two_pi / 2) bw += k_two_pi;
    if (!std::isfinite(bw)) bw = b[3];
    return Vec4{a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f, a[3] + (bw - a[3]) * f};
}

Transform apply_additive(BlendHint hint, const Transform& base, const Transform& delta) {
    if (hint == BlendHint::normal) return delta;
    Transform r;
    for (int k = 0; k < 3; ++k) {
        r.translation[k] = base.translation[k] + delta.translation[k];
        r.scale[k] = base.scale[k] * delta.scale[k];
    }
    r.rotation = normalize(hint == BlendHint::additive_deprecated ? multiply(base.rotation, delta.rotation) : multiply(delta.rotation, base.rotation));
    return r;
}

std::vector<int32_t> tracks_to_bones(const Clip& clip, const havok::Skeleton& skeleton) {
    std::vector<int32_t> out(size_t(std::max(clip.num_tracks, 0)), -1);
    for (size_t t = 0; t < out.size() && t < clip.track_to_bone.size(); ++t) {
        const int32_t b = clip.track_to_bone[t];
        if (b >= 0 && size_t(b) < skeleton.bone_names.size()) out[t] = b;
    }
    return out;
}

void use_reference_pose(Clip& clip, const havok::Skeleton& skeleton) {
    if (clip.undecoded.empty()) return;
    const std::vector<int32_t> bones = tracks_to_bones(clip, skeleton);
    for (const UndecodedPart& u : clip.undecoded) {
        if (u.track < 0 || size_t(u.track) >= bones.size()) continue;
        Transform value;  // the identity: an additive clip's "no change", and a track without a bone
        const int32_t bone = bones[size_t(u.track)];
        if (clip.blend_hint == BlendHint::normal && bone >= 0 && size_t(bone) < skeleton.reference_pose.size()) {
            const havok::QsTransform& ref = skeleton.reference_pose[size_t(bone)];
            for (size_t k = 0; k < 3; ++k) {
                if (std::isfinite(ref.translation[k])) value.translation[k] = ref.translation[k];
                if (std::isfinite(ref.scale[k])) value.scale[k] = ref.scale[k];
            }
            value.rotation = normalize(ref.rotation);  // the identity when not finite
        }
        const auto put_vector = [&](VectorCurve& c, const Vec3& v) {
            for (int k = 0; k < 3; ++k) {
                if (!(u.components & (1 << k))) continue;
                c.spline_mask = uint8_t(c.spline_mask & ~(1 << k));
                c.static_mask = uint8_t(c.static_mask | (1 << k));
                c.constant[size_t(k)] = v[size_t(k)];
            }
            if (!c.spline_mask) c.points.clear();
        };
        if (u.block >= 0) {
            if (!clip.spline || size_t(u.block) >= clip.spline->blocks.size()) continue;
            auto& tracks = clip.spline->blocks[size_t(u.block)].tracks;
            if (size_t(u.track) >= tracks.size()) continue;
            TrackCurves& tc = tracks[size_t(u.track)];
            switch (u.part) {
                case TrackPart::translation: put_vector(tc.translation, value.translation); break;
                case TrackPart::scale: put_vector(tc.scale, value.scale); break;
                case TrackPart::rotation:
                    tc.rotation.is_spline = false;
                    tc.rotation.is_static = true;
                    tc.rotation.constant = value.rotation;
                    tc.rotation.points.clear();
                    break;
            }
            continue;
        }
        const size_t nt = size_t(std::max(clip.num_tracks, 0));
        for (size_t f = 0; nt && f * nt + size_t(u.track) < clip.frames.size(); ++f) {
            Transform& x = clip.frames[f * nt + size_t(u.track)];
            if (u.part == TrackPart::rotation) {
                x.rotation = value.rotation;
                continue;
            }
            Vec3& v = u.part == TrackPart::translation ? x.translation : x.scale;
            const Vec3& from = u.part == TrackPart::translation ? value.translation : value.scale;
            for (size_t k = 0; k < 3; ++k)
                if (u.components & (1 << k)) v[k] = from[k];
        }
    }
}

std::string undecoded_message(const Clip& clip, const UndecodedPart& u, const havok::Skeleton& skeleton) {
    std::string m = clip.name + ": track " + std::to_string(u.track);
    const std::vector<int32_t> bones = tracks_to_bones(clip, skeleton);
    const int32_t bone = u.track >= 0 && size_t(u.track) < bones.size() ? bones[size_t(u.track)] : -1;
    m += bone >= 0 ? " (bone " + skeleton.bone_names[size_t(bone)] + ") " : " (no bone) ";
    m += track_part_name(u.part);
    if (u.part != TrackPart::rotation) {
        for (int k = 0, n = 0; k < 3; ++k)
            if (u.components & (1 << k)) m += std::string(n++ ? ", " : " ") + char('x' + k);
    }
    m += u.block >= 0 ? " in block " + std::to_string(u.block) : std::string(" in every frame");
    m += " not decoded: " + u.reason + "; ";
    m += clip.blend_hint == BlendHint::normal ? "the bone's reference pose is used instead" : "the identity delta is used instead (the bone keeps its reference pose)";
    return m;
}

}  // namespace drape::anim
