// drape: clips to glTF animations, added to a GltfDocument (the one builder): on their own
// skeleton, onto a model built in the same document, or onto a .glb made elsewhere.
#include "drape/exporters/animation_glb.h"

#include "drape/exporters/gltf_document.h"
#include "drape/exporters/tae_json.h"

#include "xform.h"

#include <algorithm>
#include <cassert>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <mutex>
#include <optional>
#include <string_view>
#include <unordered_map>

namespace drape::exporters {

using json = nlohmann::json;
using namespace std::string_view_literals;

const char* mirror_name(Mirror m) {
    switch (m) {
        case Mirror::x: return "x";
        case Mirror::z: return "z";
        case Mirror::detect: return "detect";
    }
    return "?";
}

namespace {

constexpr int k_float = k_gltf_float;

// The model exporter's matrix and quaternion helpers (column-major, like glTF).
using V3 = xf::V3;
using Q = xf::Quat;
using M4 = xf::Mat4;
using xf::mul;
using xf::trs;

V3 conv_t(Mirror m, const anim::Vec3& t) {
    return m == Mirror::z ? V3{t[0], t[1], -double(t[2])} : V3{-double(t[0]), t[1], t[2]};
}
Q conv_q(Mirror m, const anim::Quat& q) {
    return m == Mirror::z ? Q{-double(q[0]), -double(q[1]), q[2], q[3]} : Q{q[0], -double(q[1]), -double(q[2]), q[3]};
}

anim::Transform from_havok(const havok::QsTransform& q) {
    anim::Transform t;
    t.translation = {q.translation[0], q.translation[1], q.translation[2]};
    t.rotation = anim::normalize(q.rotation);
    t.scale = {q.scale[0], q.scale[1], q.scale[2]};
    return t;
}

// Integers into JSON text.
void put_int(std::string& out, int64_t v) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

// Appends accessors to one bufferView, written straight into the document's buffer from the
// first accessor on and closed by finish() (one view for every clip rather than one per
// accessor), their JSON as text (GltfDocument::append_accessor_text: the same bytes as nlohmann
// objects would dump to, without building them). A one-key accessor with the same type and bits
// as an earlier one is that accessor again: three quarters of a game clip's channels are
// constant (scale 1, untracked bones), and one accessor each made the JSON four times larger.
class DataBuilder {
public:
    explicit DataBuilder(GltfDocument& doc) : m_doc(doc) {
        json& j = m_doc.json();
        if (!j.contains("accessors")) j["accessors"] = json::array();
        if (!j.contains("bufferViews")) j["bufferViews"] = json::array();
        m_view = int(j["bufferViews"].size());
    }
    // A builder left without finish() (an early return) still closes its view, so the document
    // stays usable.
    ~DataBuilder() { finish(); }
    DataBuilder(const DataBuilder&) = delete;
    DataBuilder& operator=(const DataBuilder&) = delete;

    int add(const std::vector<float>& values, const char* type, bool min_max = false) {
        const size_t comps = std::strcmp(type, "SCALAR") == 0 ? 1 : std::strcmp(type, "VEC3") == 0 ? 3 : std::strcmp(type, "VEC4") == 0 ? 4 : 16;
        std::string key;
        if (values.size() == comps && comps <= 4) {
            key.assign(type);
            key.push_back(min_max ? 'm' : '-');
            key.append(reinterpret_cast<const char*>(values.data()), values.size() * 4);
            if (auto it = m_constants.find(key); it != m_constants.end()) return it->second;
        }
        // Keys in nlohmann's (sorted) order: bufferView, byteOffset, componentType, count, max, min, type.
        m_text.clear();
        m_text += "{\"bufferView\":"sv;
        put_int(m_text, m_view);
        m_text += ",\"byteOffset\":"sv;
        if (!m_open) {
            m_begin = m_doc.begin_view();
            m_open = true;
        }
        put_int(m_text, int64_t(m_doc.bin().size() - m_begin));
        m_text += ",\"componentType\":"sv;
        put_int(m_text, k_float);
        m_text += ",\"count\":"sv;
        put_int(m_text, int64_t(values.size() / comps));
        if (min_max && !values.empty()) {
            std::vector<float> mn(values.begin(), values.begin() + long(comps)), mx = mn;
            for (size_t i = 0; i < values.size(); ++i) {
                mn[i % comps] = std::min(mn[i % comps], values[i]);
                mx[i % comps] = std::max(mx[i % comps], values[i]);
            }
            // Few of these (one time accessor per clip): nlohmann formats the numbers as before.
            m_text += ",\"max\":"sv;
            m_text += json(mx).dump();
            m_text += ",\"min\":"sv;
            m_text += json(mn).dump();
        }
        m_text += ",\"type\":\""sv;
        m_text += type;
        m_text += "\"}"sv;
        m_doc.append_to_view(values.data(), values.size() * 4);
        const int index = m_doc.append_accessor_text(m_text);
        if (!key.empty()) m_constants.emplace(std::move(key), index);
        return index;
    }

    void finish() {
        if (!m_open) return;
        m_open = false;
        [[maybe_unused]] const int view = m_doc.end_view(0, "drape animations");
        // No other view can be added while this one is open, so the index announced is the one made.
        assert(view == m_view);
    }

private:
    GltfDocument& m_doc;
    bool m_open = false;  // the view is open in m_doc (from the first accessor on)
    size_t m_begin = 0;   // its offset in the document's buffer
    std::string m_text;  // the accessor being written
    int m_view = 0;
    std::unordered_map<std::string, int> m_constants;  // type + min/max + value bits -> accessor
};

// A time accessor written on first use (a clip whose channels are all constant needs only [0]).
struct LazyTimes {
    DataBuilder& data;
    std::vector<float> values;
    int index = -1;
    int get() {
        if (index < 0) index = data.add(values, "SCALAR", true);
        return index;
    }
};

struct Targets {
    std::vector<int> bone_node;  // per skeleton bone, -1 = no node
    int root_node = -1;          // root motion target
};

// True when every key equals the first (within float bits).
bool constant(const std::vector<float>& v, size_t comps) {
    size_t c = 0;  // i % comps, without a division per key
    for (size_t i = comps; i < v.size(); ++i) {
        if (v[i] != v[c]) return false;
        if (++c == comps) c = 0;
    }
    return true;
}

// The clip's TAE events and borrowed motion as `"extras":{...},` (docs/animation.md#events),
// nothing when the clip has neither.
void append_clip_extras(std::string& out, const anim::Clip& clip) {
    if (clip.events.empty() && clip.motion_from.empty()) return;
    out += "\"extras\":";
    out += clip_extras_json(clip.events, clip.motion_from);
    out.push_back(',');
}

// One animation's samplers and channels as JSON text, appended to the document by finish().
struct AnimationText {
    std::string samplers, channels;
    size_t count = 0;  // samplers = channels
    bool empty() const { return count == 0; }
    // {"channels":[...],"name":...,"samplers":[...]}: nlohmann's (sorted) key order.
    int finish(GltfDocument& doc, const anim::Clip& clip) const {
        const std::string& name = clip.name;
        std::string text = "{\"channels\":[";
        text += channels;
        text += "],";
        append_clip_extras(text, clip);
        text += "\"name\":";
        text += json(name).dump(-1, ' ', false, json::error_handler_t::replace);
        text += ",\"samplers\":[";
        text += samplers;
        text += "]}";
        return doc.append_animation_text(text);
    }
};

void add_channel(AnimationText& anim, DataBuilder& data, int node, const char* path, std::vector<float> values, size_t comps, LazyTimes& times,
                 LazyTimes& time0, size_t& channels) {
    int input;
    if (constant(values, comps)) {
        values.resize(comps);
        input = time0.get();
    } else {
        input = times.get();
    }
    const int output = data.add(values, comps == 3 ? "VEC3" : "VEC4");
    if (anim.count) {
        anim.samplers.push_back(',');
        anim.channels.push_back(',');
    }
    anim.samplers += "{\"input\":"sv;
    put_int(anim.samplers, input);
    anim.samplers += ",\"interpolation\":\"LINEAR\",\"output\":"sv;
    put_int(anim.samplers, output);
    anim.samplers.push_back('}');
    anim.channels += "{\"sampler\":"sv;
    put_int(anim.channels, int64_t(anim.count));
    anim.channels += ",\"target\":{\"node\":"sv;
    put_int(anim.channels, node);
    anim.channels += ",\"path\":\""sv;
    anim.channels += path;
    anim.channels += "\"}}"sv;
    ++anim.count;
    ++channels;
}

void push_quat(std::vector<float>& out, Q q) {
    // Keep neighbouring keys in the same hemisphere so LINEAR slerp takes the short way.
    if (out.size() >= 4) {
        const size_t p = out.size() - 4;
        if (out[p] * q[0] + out[p + 1] * q[1] + out[p + 2] * q[2] + out[p + 3] * q[3] < 0)
            for (auto& v : q) v = -v;
    }
    for (double v : q) out.push_back(float(v));
}

// One clip's keys in glTF space, before any of it enters the document: the part of the work
// that can run on several threads (sampled clips are added to the document in clip order).
struct SampledClip {
    std::vector<std::string> warnings;
    std::vector<float> times;
    std::vector<int32_t> bones;  // per track
    std::vector<std::vector<float>> T, R, S;
};

bool all_finite(const std::vector<float>& v) {
    for (float x : v)
        if (!std::isfinite(x)) return false;
    return true;
}

// The key times of a clip: its stored frames, or a resampling at options.sample_rate.
std::vector<float> key_times(const anim::Clip& clip, const AnimationGlbOptions& options, bool resample) {
    std::vector<float> times;
    if (resample) {
        const size_t n = size_t(std::min(std::floor(double(clip.duration) * options.sample_rate + 0.5), double(anim::k_max_frames))) + 1;
        for (size_t i = 0; i < n; ++i) times.push_back(std::min(float(double(i) / options.sample_rate), clip.duration));
        times.back() = clip.duration;
        for (size_t i = 1; i < times.size(); ++i)
            if (times[i] <= times[i - 1]) times[i] = std::nextafter(times[i - 1], 1e30f);
    } else {
        const float fd = clip.frame_duration > 0 ? clip.frame_duration : 1.0f / 30.0f;
        for (int32_t f = 0; f < std::max(clip.num_frames, 1); ++f) times.push_back(float(f) * fd);
    }
    return times;
}

// Channels whose curve is a stored constant (or identity) with the same bits in every block
// of a spline clip: anim::sample_frame returns the very same floats for them at every frame,
// so every key of the channel equals its first (what add_channel then writes as the one key).
// Only frame 0 of such a channel is converted and kept; three quarters of a game clip's
// channels are such. The frames are still sampled whole, so the other channels' keys are
// anim::sample_frame's as before. Per track: bit 0 translation, 1 rotation, 2 scale.
std::vector<uint8_t> fixed_channels(const anim::Clip& clip, const std::vector<int32_t>& bones, size_t nt, bool resample) {
    std::vector<uint8_t> fixed(nt, 0);
    if (resample || !clip.spline || clip.spline->blocks.empty()) return fixed;
    const auto& blocks = clip.spline->blocks;
    for (size_t t = 0; t < nt; ++t) {
        if (bones[t] < 0) continue;
        bool in_every_block = true;
        for (const auto& b : blocks) in_every_block = in_every_block && t < b.tracks.size();
        if (!in_every_block) continue;
        const anim::TrackCurves& first_block = blocks[0].tracks[t];
        auto same_vector = [&](const anim::VectorCurve& c, const anim::VectorCurve& c0) {
            return (!c.spline_mask || c.points.empty()) && std::memcmp(c.constant.data(), c0.constant.data(), sizeof c.constant) == 0;
        };
        bool ft = true, fr = true, fs = true;
        for (const auto& b : blocks) {
            const anim::TrackCurves& c = b.tracks[t];
            ft = ft && same_vector(c.translation, first_block.translation);
            fs = fs && same_vector(c.scale, first_block.scale);
            fr = fr && (!c.rotation.is_spline || c.rotation.points.empty()) &&
                 std::memcmp(c.rotation.constant.data(), first_block.rotation.constant.data(), sizeof c.rotation.constant) == 0;
        }
        fixed[t] = uint8_t((ft ? 1 : 0) | (fr ? 2 : 0) | (fs ? 4 : 0));
    }
    return fixed;
}

// Writes one key of a track, in glTF space, into the sampled clip's channels that take it
// (a fixed channel takes frame 0's key only). The channels are sized up front so every key is
// written in place.
struct KeyWriter {
    SampledClip& out;
    const std::vector<uint8_t>& fixed;
    const anim::Clip& clip;
    const havok::Skeleton& skel;
    Mirror mirror;
    bool additive;  // additive clip baked onto the reference pose

    void size_channels(size_t nk) {
        for (size_t t = 0; t < fixed.size(); ++t) {
            if (out.bones[t] < 0) continue;
            out.T[t].resize(fixed[t] & 1 ? 3 : nk * 3);
            out.R[t].resize(fixed[t] & 2 ? 4 : nk * 4);
            out.S[t].resize(fixed[t] & 4 ? 3 : nk * 3);
        }
    }

    void operator()(size_t t, size_t k, const anim::Transform& pose_t) const {
        const uint8_t keep = k == 0 ? 7 : uint8_t(~fixed[t] & 7);  // the channels that take this key
        if (!keep) return;
        anim::Transform x = pose_t;
        if (additive && size_t(out.bones[t]) < skel.reference_pose.size())
            x = anim::apply_additive(clip.blend_hint, from_havok(skel.reference_pose[size_t(out.bones[t])]), x);
        if (keep & 1) {
            const V3 p = conv_t(mirror, x.translation);
            float* tk = out.T[t].data() + k * 3;
            for (int c = 0; c < 3; ++c) tk[c] = float(p[size_t(c)]);
        }
        if (keep & 2) {
            Q q = conv_q(mirror, x.rotation);
            float* rk = out.R[t].data() + k * 4;
            // Neighbouring keys in one hemisphere, as push_quat keeps them.
            if (k > 0 && rk[-4] * q[0] + rk[-3] * q[1] + rk[-2] * q[2] + rk[-1] * q[3] < 0)
                for (auto& v : q) v = -v;
            for (int c = 0; c < 4; ++c) rk[c] = float(q[size_t(c)]);
        }
        if (keep & 4) {
            float* sk = out.S[t].data() + k * 3;
            for (int c = 0; c < 3; ++c) sk[c] = x.scale[size_t(c)];
        }
    }
};

// Spline clips at their stored frames: anim::sample_frame's block and local frame, and its
// anim::evaluate of each channel, for the channels a frame writes only (the fixed ones take
// frame 0's key; tracks that drive no bone are not written at all). One track at a time,
// each channel over the frames of a block at once (anim::evaluate_frames: the same values,
// the knot span carried from frame to frame); a track's keys depend on its own curves only,
// so the order of tracks does not change them.
void sample_spline_by_channel(const anim::Clip& clip, size_t nk, const KeyWriter& write_key) {
    const anim::SplineClip& sp = *clip.spline;
    const std::vector<int32_t>& bones = write_key.out.bones;
    const std::vector<uint8_t>& fixed = write_key.fixed;
    const int32_t per = sp.max_frames_per_block - 1;
    const int32_t last_block = int32_t(sp.blocks.size()) - 1;
    std::vector<anim::Vec3> tv, sv;
    std::vector<anim::Quat> rv;
    for (size_t t = 0; t < fixed.size(); ++t) {
        if (bones[t] < 0) continue;
        anim::Transform cur;  // the track's pose, as sample_frame leaves it from frame to frame
        for (size_t k0 = 0; k0 < nk;) {
            const int32_t frame = std::clamp(int32_t(k0), 0, clip.num_frames - 1);
            const int32_t block = std::min<int32_t>(frame / per, last_block);
            // The keys of this block: frame == k (nk == num_frames here).
            const size_t k1 = block == last_block ? nk : std::min(nk, size_t(block + 1) * size_t(per));
            const size_t count = k1 - k0;
            const anim::SplineBlock& blk = sp.blocks[size_t(block)];
            if (t >= blk.tracks.size()) {
                for (size_t k = k0; k < k1; ++k) write_key(t, k, cur = anim::Transform{});
                k0 = k1;
                continue;
            }
            const anim::TrackCurves& c = blk.tracks[t];
            const float u0 = float(frame - block * per);
            // A fixed channel is evaluated at frame 0 only; the others at every frame.
            const bool all_t = !(fixed[t] & 1), all_r = !(fixed[t] & 2), all_s = !(fixed[t] & 4);
            if (all_t) tv.resize(count), anim::evaluate_frames(c.translation, u0, count, tv.data());
            if (all_r) rv.resize(count), anim::evaluate_frames(c.rotation, u0, count, rv.data());
            if (all_s) sv.resize(count), anim::evaluate_frames(c.scale, u0, count, sv.data());
            for (size_t k = k0; k < k1; ++k) {
                const size_t i = k - k0;
                if (all_t) cur.translation = tv[i];
                else if (k == 0) cur.translation = anim::evaluate(c.translation, u0);
                if (all_r) cur.rotation = rv[i];
                else if (k == 0) cur.rotation = anim::evaluate(c.rotation, u0);
                if (all_s) cur.scale = sv[i];
                else if (k == 0) cur.scale = anim::evaluate(c.scale, u0);
                write_key(t, k, cur);
            }
            k0 = k1;
        }
    }
}

// Any clip, whole poses at each key time (anim::sample_time when resampling, else
// anim::sample_frame at the stored frames).
void sample_whole_poses(const anim::Clip& clip, const std::vector<float>& times, bool resample, const KeyWriter& write_key) {
    const std::vector<int32_t>& bones = write_key.out.bones;
    const size_t nt = write_key.fixed.size();
    std::vector<anim::Transform> pose(nt);
    for (size_t k = 0; k < times.size(); ++k) {
        if (resample) anim::sample_time(clip, times[k], pose);
        else anim::sample_frame(clip, int32_t(k), pose);
        for (size_t t = 0; t < nt; ++t)
            if (bones[t] >= 0) write_key(t, k, pose[t]);
    }
}

// No NaN or infinity leaves here (glTF forbids them; the validator and importers refuse the
// file): decoding gives finite values only, but a sum can still overflow (an additive delta
// baked onto the reference pose). Such a channel holds the bone's reference pose (the
// identity delta when additive clips are written as stored), and the clip says so.
void replace_non_finite_channels(SampledClip& out, const anim::Clip& clip, const havok::Skeleton& skel, Mirror mirror, bool additive) {
    const size_t nk = out.times.size();
    for (size_t t = 0; t < out.T.size(); ++t) {
        if (out.bones[t] < 0) continue;
        std::vector<float>* channel[3] = {&out.T[t], &out.R[t], &out.S[t]};
        for (int part = 0; part < 3; ++part) {
            std::vector<float>& keys = *channel[part];
            if (all_finite(keys)) continue;
            size_t bad = 0;
            const size_t comps = part == 1 ? 4 : 3;
            for (size_t k = 0; k < keys.size(); k += comps)
                for (size_t c = 0; c < comps; ++c)
                    if (!std::isfinite(keys[k + c])) {
                        ++bad;
                        break;
                    }
            if (keys.size() == comps) bad = nk;  // a channel kept as one key stands for every frame
            anim::Transform x;
            const size_t bone = size_t(out.bones[t]);
            if ((clip.blend_hint == anim::BlendHint::normal || additive) && bone < skel.reference_pose.size()) {
                x = from_havok(skel.reference_pose[bone]);
                for (float& v : x.translation) v = std::isfinite(v) ? v : 0.0f;
                for (float& v : x.scale) v = std::isfinite(v) ? v : 1.0f;
            }
            keys.clear();
            if (part == 0)
                for (double v : conv_t(mirror, x.translation)) keys.push_back(float(v));
            else if (part == 1)
                push_quat(keys, conv_q(mirror, x.rotation));
            else
                keys.assign(x.scale.begin(), x.scale.end());
            out.warnings.push_back(clip.name + ": track " + std::to_string(t) + " (bone " + skel.bone_names[bone] + ") " +
                                   anim::track_part_name(anim::TrackPart(part)) + ": " + std::to_string(bad) + " of " + std::to_string(nk) +
                                   " keys are not finite" + (additive ? " after baking the additive clip onto the reference pose" : "") +
                                   (clip.blend_hint == anim::BlendHint::normal || additive ? "; the bone's reference pose is used instead"
                                                                                          : "; the identity delta is used instead"));
        }
    }
}

SampledClip sample_clip(const anim::Clip& decoded, const havok::Skeleton& skel, const AnimationGlbOptions& options, Mirror mirror) {
    SampledClip out;
    // Track parts the file's data cannot give (decoding left them at the identity) take the
    // bone's reference pose, on a copy: the caller's clip stays as decoded. Each is said.
    std::optional<anim::Clip> patched;
    if (!decoded.undecoded.empty()) {
        patched = decoded;
        anim::use_reference_pose(*patched, skel);
    }
    const anim::Clip& clip = patched ? *patched : decoded;
    for (const auto& n : clip.notes) out.warnings.push_back(clip.name + ": " + n);
    for (const auto& u : clip.undecoded) out.warnings.push_back(anim::undecoded_message(clip, u, skel));
    const bool resample = options.sample_rate > 0 && clip.duration > 0;
    out.times = key_times(clip, options, resample);
    const size_t nt = size_t(std::max(clip.num_tracks, 0));
    out.T.resize(nt);
    out.R.resize(nt);
    out.S.resize(nt);
    out.bones = anim::tracks_to_bones(clip, skel);
    const size_t nk = out.times.size();
    const std::vector<uint8_t> fixed = fixed_channels(clip, out.bones, nt, resample);
    const bool additive = clip.blend_hint != anim::BlendHint::normal && options.bake_additive;
    KeyWriter write_key{out, fixed, clip, skel, mirror, additive};
    write_key.size_channels(nk);
    if (clip.blend_hint != anim::BlendHint::normal)
        out.warnings.push_back(clip.name + ": additive clip (blend hint " + std::to_string(int(clip.blend_hint)) + ")" +
                               (additive ? " baked onto the reference pose" : " written as stored deltas"));
    const bool by_channel = !resample && clip.spline && !clip.spline->blocks.empty() && clip.spline->max_frames_per_block >= 2 && clip.num_frames > 0;
    if (by_channel) sample_spline_by_channel(clip, nk, write_key);
    else sample_whole_poses(clip, out.times, resample, write_key);
    replace_non_finite_channels(out, clip, skel, mirror, additive);
    // A constant channel keeps its one key (add_channel writes it so): checked here, on the
    // sampling threads, rather than in the serial commit.
    for (size_t t = 0; t < nt; ++t) {
        if (constant(out.T[t], 3)) out.T[t].resize(std::min<size_t>(out.T[t].size(), 3));
        if (constant(out.R[t], 4)) out.R[t].resize(std::min<size_t>(out.R[t].size(), 4));
        if (constant(out.S[t], 3)) out.S[t].resize(std::min<size_t>(out.S[t].size(), 3));
    }
    return out;
}

void add_clips_to(GltfDocument& gdoc, const havok::Skeleton& skel, std::span<const anim::Clip> clips, const Targets& targets,
                  const AnimationGlbOptions& options, Mirror mirror, AnimationGlbReport& report) {
    json& doc = gdoc.json();
    DataBuilder data(gdoc);
    // Clips are sampled a window at a time (on options.parallel_for's threads when given) and
    // committed to the document strictly in clip order: whichever thread finishes the clip
    // whose turn it is commits it and every following clip already sampled, so the (serial)
    // commit runs beside the sampling of the window's other clips instead of after it, and the
    // output is the same whatever the window and thread count. A window bounds the sampled
    // clips held at once; it is wide (128 clips with two jobs: c5000's 66 in one) because each
    // window ends in a barrier, and a thread that finds no clip left to claim starts another
    // item instead (then c5000's last clips and its glb write ran on one thread alone).
    const size_t window = std::max<size_t>(1, options.parallel_for ? 32 * options.parallel_batch : 1);
    std::vector<SampledClip> sampled;
    std::mutex commit_mutex;
    std::vector<uint8_t> ready;
    size_t next_commit = 0;
    bool committing = false;
    for (size_t first = 0; first < clips.size(); first += window) {
        const size_t count = std::min(window, clips.size() - first);
        sampled.assign(count, {});
        ready.assign(count, 0);
        const auto commit = [&](size_t k) {
            const anim::Clip& clip = clips[k];
            SampledClip& sc = sampled[k - first];
            for (auto& w : sc.warnings) report.warnings.push_back(std::move(w));
            AnimationText anim;
            LazyTimes time_acc{data, std::move(sc.times)};
            LazyTimes time0{data, {0.0f}};
            const size_t nt = size_t(std::max(clip.num_tracks, 0));
            const auto& bones = sc.bones;
            auto& T = sc.T;
            auto& R = sc.R;
            auto& S = sc.S;
            size_t unmatched = 0;
            for (size_t t = 0; t < nt; ++t) {
                const int node = bones[t] >= 0 ? targets.bone_node[size_t(bones[t])] : -1;
                if (node < 0) {
                    ++unmatched;
                    continue;
                }
                add_channel(anim, data, node, "translation", std::move(T[t]), 3, time_acc, time0, report.channels);
                add_channel(anim, data, node, "rotation", std::move(R[t]), 4, time_acc, time0, report.channels);
                add_channel(anim, data, node, "scale", std::move(S[t]), 3, time_acc, time0, report.channels);
            }
            if (options.pose_untracked_bones) {
                // Bones no track drives take the skeleton's reference pose, as the game poses them.
                std::vector<uint8_t> driven(skel.bone_names.size());
                for (size_t t = 0; t < nt; ++t)
                    if (bones[t] >= 0) driven[size_t(bones[t])] = 1;
                for (size_t b = 0; b < skel.bone_names.size() && b < targets.bone_node.size(); ++b) {
                    if (driven[b] || targets.bone_node[b] < 0 || b >= skel.reference_pose.size()) continue;
                    const anim::Transform x = from_havok(skel.reference_pose[b]);
                    std::vector<float> t3, r4, s3;
                    for (double v : conv_t(mirror, x.translation)) t3.push_back(float(v));
                    push_quat(r4, conv_q(mirror, x.rotation));
                    for (float v : x.scale) s3.push_back(v);
                    add_channel(anim, data, targets.bone_node[b], "translation", std::move(t3), 3, time0, time0, report.channels);
                    add_channel(anim, data, targets.bone_node[b], "rotation", std::move(r4), 4, time0, time0, report.channels);
                    add_channel(anim, data, targets.bone_node[b], "scale", std::move(s3), 3, time0, time0, report.channels);
                }
            }
            if (unmatched) report.warnings.push_back(clip.name + ": " + std::to_string(unmatched) + " tracks drive no bone of the target");
            if (options.root_motion && clip.root_motion && !clip.root_motion->samples.empty() && targets.root_node >= 0) {
                const auto& m = *clip.root_motion;
                std::vector<float> rt, rp, rr;
                const size_t n = m.samples.size();
                const double step = n > 1 && m.duration > 0 ? double(m.duration) / double(n - 1) : 1.0 / 30.0;
                V3 up{m.up[0], m.up[1], m.up[2]};
                const double len = std::sqrt(up[0] * up[0] + up[1] * up[1] + up[2] * up[2]);
                if (!(len > 1e-6) || !std::isfinite(len)) up = {0, 1, 0};
                else for (auto& v : up) v /= len;
                double prev_yaw = 0;
                for (size_t i = 0; i < n; ++i) {
                    rt.push_back(float(double(i) * step));
                    const auto& s = m.samples[i];
                    const V3 p = conv_t(mirror, {s[0], s[1], s[2]});
                    for (double v : p) rp.push_back(float(v));
                    double yaw = s[3];
                    if (i > 0) {  // unwrap so slerp follows the stored turn
                        while (yaw - prev_yaw > M_PI) yaw -= 2 * M_PI;
                        while (prev_yaw - yaw > M_PI) yaw += 2 * M_PI;
                    }
                    prev_yaw = yaw;
                    const double h = std::sin(yaw / 2);
                    push_quat(rr, conv_q(mirror, {float(up[0] * h), float(up[1] * h), float(up[2] * h), float(std::cos(yaw / 2))}));
                }
                for (size_t i = 1; i < rt.size(); ++i)
                    if (rt[i] <= rt[i - 1]) rt[i] = std::nextafter(rt[i - 1], 1e30f);
                LazyTimes racc{data, rt};
                add_channel(anim, data, targets.root_node, "translation", std::move(rp), 3, racc, time0, report.channels);
                add_channel(anim, data, targets.root_node, "rotation", std::move(rr), 4, racc, time0, report.channels);
            }
            if (anim.empty()) {
                report.warnings.push_back(clip.name + ": no channel (no track matched a node); animation left out");
                sc = {};
                return;
            }
            anim.finish(gdoc, clip);
            ++report.animations;
            sc = {};  // this clip's keys are in the document now
        };
        const std::function<void(size_t)> sample_one = [&](size_t j) {
            sampled[j] = sample_clip(clips[first + j], skel, options, mirror);
            std::unique_lock<std::mutex> lock(commit_mutex);
            ready[j] = 1;
            if (committing) return;  // the committing thread takes this clip when its turn comes
            committing = true;
            while (next_commit < first + count && ready[next_commit - first]) {
                lock.unlock();
                commit(next_commit);
                lock.lock();
                ++next_commit;
            }
            committing = false;
        };
        if (options.parallel_for && count > 1) options.parallel_for(count, sample_one);
        else for (size_t j = 0; j < count; ++j) sample_one(j);
    }
    data.finish();
    if (doc.contains("animations") && doc["animations"].is_array() && doc["animations"].empty() && gdoc.animation_count() == 0)
        doc.erase("animations");
}

// Local transforms of the skeleton's bones in glTF space, and their world matrices.
std::vector<M4> world_matrices(const havok::Skeleton& s, Mirror mirror) {
    const size_t n = s.bone_names.size();
    std::vector<M4> world(n);
    for (size_t i = 0; i < n; ++i) {  // parents come first in Havok skeletons; fall back on identity otherwise
        const anim::Transform x = i < s.reference_pose.size() ? from_havok(s.reference_pose[i]) : anim::Transform{};
        const M4 local = trs(conv_t(mirror, x.translation), conv_q(mirror, x.rotation), {x.scale[0], x.scale[1], x.scale[2]});
        const int p = s.parents[i];
        world[i] = p >= 0 && size_t(p) < i ? mul(world[size_t(p)], local) : local;
    }
    return world;
}

bool is_int(const json& j) { return j.is_number_integer() || j.is_number_unsigned(); }

}  // namespace

Result<void> add_skeleton_and_clips(GltfDocument& gdoc, const havok::Skeleton& skel, std::span<const anim::Clip> clips,
                                    const AnimationGlbOptions& options, AnimationGlbReport* report_out) {
    AnimationGlbReport report;
    json& doc = gdoc.json();
    const Mirror mirror = options.mirror == Mirror::z ? Mirror::z : Mirror::x;
    report.mirror = mirror;
    const size_t n = skel.bone_names.size();
    if (skel.parents.size() != n) return make_error("skeleton has " + std::to_string(skel.parents.size()) + " parents for " + std::to_string(n) + " bones", "skeleton");
    doc["asset"]["generator"] = "drape 0.1.0 (animation)";
    doc["extras"] = {{"coordinates", std::string("game (x, y, z) -> glTF ") + (mirror == Mirror::x ? "(-x, y, z)" : "(x, y, -z)") + "; metres"}};
    json nodes = json::array();
    json root = {{"name", options.root_name.empty() ? skel.name + "_root" : options.root_name}, {"children", json::array()}};
    nodes.push_back(root);
    Targets targets;
    targets.root_node = 0;
    for (size_t i = 0; i < n; ++i) {
        const anim::Transform x = i < skel.reference_pose.size() ? from_havok(skel.reference_pose[i]) : anim::Transform{};
        const V3 t = conv_t(mirror, x.translation);
        const Q q = conv_q(mirror, x.rotation);
        json node = {{"name", skel.bone_names[i]}, {"translation", t}, {"rotation", q}};
        if (x.scale != anim::Vec3{1, 1, 1}) node["scale"] = x.scale;
        nodes.push_back(node);
        targets.bone_node.push_back(int(i + 1));
    }
    for (size_t i = 0; i < n; ++i) {
        const int p = skel.parents[i];
        const size_t parent_node = p >= 0 && size_t(p) < i ? size_t(p) + 1 : 0;
        if (!nodes[parent_node].contains("children")) nodes[parent_node]["children"] = json::array();
        nodes[parent_node]["children"].push_back(int(i + 1));
    }
    if (nodes[0]["children"].empty()) nodes[0].erase("children");
    doc["nodes"] = nodes;
    doc["scene"] = 0;
    doc["scenes"] = json::array({{{"name", root["name"]}, {"nodes", json::array({0})}}});
    if (n > 0) {
        // A skin over the bones so that importers (Blender) build an armature.
        std::vector<float> ibm;
        for (const auto& w : world_matrices(skel, mirror)) {
            const M4 inv = xf::affine_inverse(w);
            for (double v : inv) ibm.push_back(float(v));
        }
        DataBuilder data(gdoc);
        const int acc = data.add(ibm, "MAT4");
        data.finish();
        json joints = json::array();
        for (size_t i = 0; i < n; ++i) joints.push_back(int(i + 1));
        doc["skins"] = json::array({{{"name", skel.name}, {"joints", joints}, {"inverseBindMatrices", acc}, {"skeleton", 0}}});
    }
    add_clips_to(gdoc, skel, clips, targets, options, mirror, report);
    if (report_out) *report_out = std::move(report);
    return {};
}

Result<std::vector<uint8_t>> animation_glb(const havok::Skeleton& skel, std::span<const anim::Clip> clips, const AnimationGlbOptions& options,
                                           AnimationGlbReport* report_out) {
    GltfDocument doc;
    if (auto r = add_skeleton_and_clips(doc, skel, clips, options, report_out); !r) return r.error();
    return doc.glb();
}

Result<void> add_clips(GltfDocument& gdoc, const havok::Skeleton& skel, std::span<const anim::Clip> clips, const AnimationGlbOptions& options,
                       AnimationGlbReport* report_out) {
    AnimationGlbReport report;
    if (skel.parents.size() != skel.bone_names.size())
        return make_error("skeleton has " + std::to_string(skel.parents.size()) + " parents for " + std::to_string(skel.bone_names.size()) + " bones",
                          "skeleton");
    json& doc = gdoc.json();
    if (!doc.contains("nodes") || !doc["nodes"].is_array() || doc["nodes"].empty()) return make_error("the model has no nodes", "glb.json.nodes");
    for (const char* key : {"accessors", "bufferViews", "animations", "scenes"})
        if (doc.contains(key) && !doc[key].is_array()) return make_error("not an array", std::string("glb.json.") + key);
    json& nodes = doc["nodes"];
    const size_t nn = nodes.size();
    std::vector<int> parent(nn, -1);
    std::unordered_map<std::string, int> by_name;
    for (size_t i = 0; i < nn; ++i) {
        if (!nodes[i].is_object()) return make_error("node " + std::to_string(i) + " is not an object", "glb.json.nodes");
        if (nodes[i].contains("name") && nodes[i]["name"].is_string()) by_name.emplace(nodes[i]["name"].get<std::string>(), int(i));
        if (nodes[i].contains("children")) {
            if (!nodes[i]["children"].is_array()) return make_error("node " + std::to_string(i) + " children is not an array", "glb.json.nodes");
            for (const auto& c : nodes[i]["children"]) {
                if (!is_int(c) || c.get<int64_t>() < 0 || c.get<int64_t>() >= int64_t(nn))
                    return make_error("node " + std::to_string(i) + " has a child out of range", "glb.json.nodes");
                parent[size_t(c.get<int64_t>())] = int(i);
            }
        }
    }
    Targets targets;
    const size_t nb = skel.bone_names.size();
    targets.bone_node.assign(nb, -1);
    size_t missing = 0;
    for (size_t i = 0; i < nb; ++i) {
        auto it = by_name.find(skel.bone_names[i]);
        if (it == by_name.end()) {
            ++missing;
            continue;
        }
        targets.bone_node[i] = it->second;
    }
    if (missing) report.warnings.push_back(std::to_string(missing) + " of " + std::to_string(nb) + " skeleton bones have no node of that name in the model");
    // Mirror: compare the model's bone translations with the reference pose.
    Mirror mirror = options.mirror;
    if (mirror == Mirror::detect) {
        // 1. What the model says of itself: drape writers state "game (x, y, z) -> glTF (...)" in an
        //    `extras.coordinates` of the document or of a node.
        auto stated = [](const json& o) -> int {
            if (!o.is_object() || !o.contains("extras") || !o["extras"].is_object() || !o["extras"].contains("coordinates") ||
                !o["extras"]["coordinates"].is_string())
                return 0;
            const std::string c = o["extras"]["coordinates"].get<std::string>();
            if (c.find("(-x, y, z)") != std::string::npos) return 1;
            if (c.find("(x, y, -z)") != std::string::npos) return 2;
            return 0;
        };
        int says = stated(doc);
        for (size_t i = 0; i < nn && !says; ++i) says = stated(nodes[i]);
        // 2. Otherwise a vote of the matched bones: which mirror of the reference translation is nearer.
        int vote = 0;
        for (size_t i = 0; i < nb && !says; ++i) {
            const int node = targets.bone_node[i];
            if (node < 0 || i >= skel.reference_pose.size() || !nodes[size_t(node)].contains("translation")) continue;
            const json& t = nodes[size_t(node)]["translation"];
            if (!t.is_array() || t.size() != 3 || !t[0].is_number() || !t[1].is_number() || !t[2].is_number()) continue;
            const auto& r = skel.reference_pose[i].translation;
            if (std::abs(r[0]) < 1e-4 && std::abs(r[2]) < 1e-4) continue;  // says nothing
            const double tx = t[0].get<double>(), tz = t[2].get<double>();
            const double ex = std::abs(tx + r[0]) + std::abs(tz - r[2]);
            const double ez = std::abs(tx - r[0]) + std::abs(tz + r[2]);
            vote += ez < ex ? 1 : ex < ez ? -1 : 0;
        }
        mirror = says == 2 || (!says && vote > 0) ? Mirror::z : Mirror::x;
    }
    report.mirror = mirror;
    // Root motion: the parent of the root bone's node, or a new node above it.
    if (options.root_motion) {
        int root_bone_node = -1;
        for (size_t i = 0; i < nb && root_bone_node < 0; ++i)
            if (skel.parents[i] < 0 && targets.bone_node[i] >= 0) root_bone_node = targets.bone_node[i];
        if (root_bone_node >= 0) {
            if (parent[size_t(root_bone_node)] >= 0) {
                targets.root_node = parent[size_t(root_bone_node)];
            } else {
                const int added = int(nodes.size());
                nodes.push_back({{"name", options.root_name.empty() ? skel.name + "_root" : options.root_name}, {"children", json::array({root_bone_node})}});
                if (doc.contains("scenes"))
                    for (auto& s : doc["scenes"])
                        if (s.is_object() && s.contains("nodes") && s["nodes"].is_array())
                            for (auto& x : s["nodes"])
                                if (is_int(x) && x.get<int64_t>() == root_bone_node) x = added;
                targets.root_node = added;
            }
        }
    }
    add_clips_to(gdoc, skel, clips, targets, options, mirror, report);
    if (report_out) *report_out = std::move(report);
    return {};
}

Result<std::vector<uint8_t>> add_animations_to_glb(Bytes model_glb, const havok::Skeleton& skel, std::span<const anim::Clip> clips,
                                                   const AnimationGlbOptions& options, AnimationGlbReport* report_out) {
    auto doc = GltfDocument::from_glb(model_glb);
    if (!doc) return doc.error();
    if (auto r = add_clips(*doc, skel, clips, options, report_out); !r) return r.error();
    return doc->glb();
}

}  // namespace drape::exporters
