// drape: typed views of the hka classes, by member name (docs/formats.md#animation-layouts).
#include "drape/havok/animation.h"

#include <algorithm>

#include "view_util.h"

namespace drape::havok {

using namespace detail;

static Error not_class(const File& f, uint32_t item, const char* cls) {
    return make_error("item " + std::to_string(item) + " is " + (f.class_name(item).empty() ? "no object" : f.class_name(item)) + ", not " + cls,
                      cls);
}

Result<Skeleton> read_skeleton(const File& f, uint32_t item) {
    if (!f.types.derives_from(item < f.items.size() ? f.items[item].type : 0, "hkaSkeleton")) return not_class(f, item, "hkaSkeleton");
    ObjectReader o(f, item);
    Skeleton s;
    s.item = item;
    s.name = o.req("name").as_string();
    s.parents = ints<int16_t>(o.req("parentIndices"));
    const Value bones = o.req("bones");
    const Value pose = o.req("referencePose");
    if (!o.ok()) return o.error();
    const uint64_t nb = take(bones.size());
    for (uint64_t i = 0; i < nb; ++i) {
        const Value b = bones.at(i);
        s.bone_names.push_back(b["name"].as_string());
        s.lock_translation.push_back(b["lockTranslation"].as_bool() ? 1 : 0);
    }
    const uint64_t np = take(pose.size());
    for (uint64_t i = 0; i < np; ++i) s.reference_pose.push_back(qs_transform(pose.at(i)));
    s.reference_floats = floats(o.opt("referenceFloats"));
    s.float_slots = strings(o.opt("floatSlots"));
    if (s.parents.size() != s.bone_names.size())
        return make_error(std::to_string(s.parents.size()) + " parent indices for " + std::to_string(s.bone_names.size()) + " bones", o.where() + " parentIndices");
    for (size_t i = 0; i < s.parents.size(); ++i)
        if (s.parents[i] < -1 || s.parents[i] >= int(s.parents.size()))
            return make_error("bone " + std::to_string(i) + " has parent " + std::to_string(s.parents[i]) + ", out of range", o.where() + " parentIndices");
    return s;
}

Result<ReferenceFrame> read_reference_frame(const File& f, uint32_t item) {
    ObjectReader o(f, item);
    ReferenceFrame r;
    r.item = item;
    r.up = vec4(o.req("up"));
    r.forward = vec4(o.req("forward"));
    r.duration = float(o.req("duration").as_float());
    r.samples = vec4s(o.req("referenceFrameSamples"));
    if (!o.ok()) return o.error();
    return r;
}

Result<Animation> read_animation(const File& f, uint32_t item) {
    if (!f.types.derives_from(item < f.items.size() ? f.items[item].type : 0, "hkaAnimation")) return not_class(f, item, "hkaAnimation");
    ObjectReader o(f, item);
    Animation a;
    a.item = item;
    a.class_name = f.class_name(item);
    a.type = int32_t(o.req("type").as_int());
    a.duration = float(o.req("duration").as_float());
    a.number_of_transform_tracks = int32_t(o.req("numberOfTransformTracks").as_int());
    a.number_of_float_tracks = int32_t(o.req("numberOfFloatTracks").as_int());
    if (!o.ok()) return o.error();
    if (const uint32_t rf = o.opt("extractedMotion").pointee_item(); rf && f.types.derives_from(f.items[rf].type, "hkaDefaultAnimatedReferenceFrame")) {
        auto r = read_reference_frame(f, rf);
        if (!r) return r.error();
        a.reference_frame = std::move(*r);
    }
    if (f.types.derives_from(f.items[item].type, "hkaSplineCompressedAnimation")) {
        SplineData s;
        s.num_frames = int32_t(o.req("numFrames").as_int());
        s.num_blocks = int32_t(o.req("numBlocks").as_int());
        s.max_frames_per_block = int32_t(o.req("maxFramesPerBlock").as_int());
        s.mask_and_quantization_size = int32_t(o.req("maskAndQuantizationSize").as_int());
        s.block_duration = float(o.req("blockDuration").as_float());
        s.block_inverse_duration = float(o.req("blockInverseDuration").as_float());
        s.frame_duration = float(o.req("frameDuration").as_float());
        s.block_offsets = ints<uint32_t>(o.req("blockOffsets"));
        s.float_block_offsets = ints<uint32_t>(o.req("floatBlockOffsets"));
        s.transform_offsets = ints<uint32_t>(o.req("transformOffsets"));
        s.float_offsets = ints<uint32_t>(o.req("floatOffsets"));
        s.data = raw_bytes(o.req("data"));
        s.endian = int32_t(o.req("endian").as_int());
        if (!o.ok()) return o.error();
        a.spline = std::move(s);
    } else if (f.types.derives_from(f.items[item].type, "hkaInterleavedUncompressedAnimation")) {
        InterleavedData d;
        const Value tr = o.req("transforms");
        if (!o.ok()) return o.error();
        const uint64_t n = take(tr.size());
        d.transforms.reserve(n);
        for (uint64_t i = 0; i < n; ++i) d.transforms.push_back(qs_transform(tr.at(i)));
        d.floats = floats(o.opt("floats"));
        a.interleaved = std::move(d);
    }
    return a;
}

Result<Binding> read_binding(const File& f, uint32_t item) {
    if (!f.types.derives_from(item < f.items.size() ? f.items[item].type : 0, "hkaAnimationBinding")) return not_class(f, item, "hkaAnimationBinding");
    ObjectReader o(f, item);
    Binding b;
    b.item = item;
    b.original_skeleton_name = o.req("originalSkeletonName").as_string();
    b.animation_item = o.req("animation").pointee_item();
    b.transform_track_to_bone_indices = ints<int16_t>(o.req("transformTrackToBoneIndices"));
    b.float_track_to_float_slot_indices = ints<int16_t>(o.req("floatTrackToFloatSlotIndices"));
    b.partition_indices = ints<int16_t>(o.opt("partitionIndices"));
    b.blend_hint = int32_t(o.req("blendHint").as_int());
    if (!o.ok()) return o.error();
    return b;
}

Result<AnimationContainer> read_animation_container(const File& f) {
    BudgetScope budget(f);
    AnimationContainer c;
    for (uint32_t item : f.objects_of("hkaAnimationContainer")) {
        ObjectReader o(f, item);
        for (uint32_t s : pointees(o.req("skeletons"))) {
            if (!s) continue;
            auto r = read_skeleton(f, s);
            if (!r) return r.error();
            c.skeletons.push_back(std::move(*r));
        }
        for (uint32_t a : pointees(o.req("animations"))) {
            if (!a) continue;
            auto r = read_animation(f, a);
            if (!r) return r.error();
            c.animations.push_back(std::move(*r));
        }
        for (uint32_t b : pointees(o.req("bindings"))) {
            if (!b) continue;
            auto r = read_binding(f, b);
            if (!r) return r.error();
            c.bindings.push_back(std::move(*r));
        }
        if (!o.ok()) return o.error();
    }
    if (budget.exhausted()) return budget.error();
    return c;
}

std::vector<RawObject> raw_objects(const File& f, std::string_view class_name) {
    std::vector<RawObject> out;
    std::vector<uint64_t> starts;  // packfile objects span to the next object
    for (uint32_t o : f.objects()) starts.push_back(f.items[o].offset);
    std::sort(starts.begin(), starts.end());
    for (uint32_t item : f.objects_of(class_name)) {
        RawObject r;
        r.item = item;
        r.class_name = f.class_name(item);
        r.version = f.types.at(f.items[item].type).r_version;
        const uint64_t begin = f.items[item].offset;
        uint64_t end = begin + f.types.at(f.items[item].type).r_size;
        if (f.form == Form::packfile) {
            auto next = std::upper_bound(starts.begin(), starts.end(), begin);
            end = next == starts.end() ? f.data.size() : *next;
        }
        end = std::min<uint64_t>(end, f.data.size());
        if (begin < end) r.bytes.assign(f.data.begin() + begin, f.data.begin() + end);
        out.push_back(std::move(r));
    }
    return out;
}

}  // namespace drape::havok
