// drape: clips and skeletons of an animation binder or a loose Havok file.
#include "drape/anim/anibnd.h"

#include <cctype>
#include <unordered_map>

#include "drape/bnd/bnd4.h"
#include "drape/havok/hkx.h"

namespace drape::anim {

std::string clip_name_from_path(std::string_view path) {
    const size_t slash = path.find_last_of("/\\");
    std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
    // Strip every extension (a.hkx, a.anibnd.dcx).
    const size_t dot = base.find('.');
    if (dot != std::string_view::npos && dot > 0) base = base.substr(0, dot);
    return std::string(base);
}

namespace {

struct Member {
    std::string name;
    std::vector<uint8_t> owned;
    Bytes bytes;
};

bool is_havok(Bytes b) { return havok::is_packfile(b) || havok::is_tagfile(b) || havok::is_compendium(b); }

void read_member(const Member& m, const havok::CompendiumSet& set, ClipSet& out) {
    auto fail = [&](Error e) { out.failures.push_back({m.name, std::move(e.within(m.name))}); };
    auto file = havok::read_hkx(m.bytes, set.lookup());
    if (!file) return fail(std::move(file.error()));
    auto container = havok::read_animation_container(*file);
    if (!container) return fail(std::move(container.error()));
    for (auto& s : container->skeletons) out.skeletons.push_back(std::move(s));
    auto clips = decode_each_clip(*container);
    const std::string base = clip_name_from_path(m.name);
    for (size_t i = 0; i < clips.size(); ++i) {
        const std::string name = clips.size() == 1 ? base : base + "_" + std::to_string(i);
        if (!clips[i]) {
            out.failures.push_back({m.name, std::move(clips[i].error().within(m.name)), name});
            continue;
        }
        Clip& c = *clips[i];
        c.name = name;
        out.clips.push_back(std::move(c));
    }
}

}  // namespace

Result<ClipSet> read_clip_set(Bytes data, std::string_view name, const dcx::DecodeOptions& dcx_options) {
    return read_clip_set(data, name, dcx_options, {});
}

Result<ClipSet> read_clip_set(Bytes data, std::string_view name, const dcx::DecodeOptions& dcx_options, const ParallelFor& parallel_for) {
    std::vector<uint8_t> plain;
    if (dcx::is_dcx(data)) {
        auto d = dcx::decompress(data, dcx_options);
        if (!d) return std::move(d.error().within(std::string(name)));
        plain = std::move(*d);
        data = plain;
    }
    std::vector<Member> members;
    std::vector<TaeMember> taes;
    std::vector<MemberFailure> tae_failures;
    if (bnd::is_bnd4(data)) {
        auto b = bnd::read_bnd4(data);
        if (!b) return std::move(b.error().within(std::string(name)));
        for (const auto& e : b->entries) {
            auto bytes = bnd::entry_bytes(*b, e);
            if (!bytes) return std::move(bytes.error().within(std::string(name)));
            if (tae::is_tae(*bytes)) {
                auto t = tae::read_tae(*bytes);
                if (!t) {
                    tae_failures.push_back({e.name, std::move(t.error().within(e.name))});
                    continue;
                }
                const int32_t category = tae::category_of(e.name, t->id);
                taes.push_back({e.name, category, std::move(*t)});
                continue;
            }
            if (!is_havok(*bytes)) continue;
            Member m{e.name, std::move(*bytes), {}};
            members.push_back(std::move(m));
        }
        for (auto& m : members) m.bytes = m.owned;
    } else if (is_havok(data)) {
        members.push_back({std::string(name), {}, data});
    } else {
        return make_error("neither a BND4 binder nor a Havok file (packfile, TAG0)", std::string(name));
    }
    ClipSet out;
    havok::CompendiumSet set;
    for (const auto& m : members)
        if (havok::is_compendium(m.bytes))
            if (auto r = set.add(m.bytes); !r) out.failures.push_back({m.name, std::move(r.error().within(m.name))});
    std::vector<const Member*> readers;
    for (const auto& m : members)
        if (!havok::is_compendium(m.bytes)) readers.push_back(&m);
    std::vector<ClipSet> parts(readers.size());
    const std::function<void(size_t)> task = [&](size_t k) { read_member(*readers[k], set, parts[k]); };
    if (parallel_for && readers.size() > 1) parallel_for(readers.size(), task);
    else for (size_t k = 0; k < readers.size(); ++k) task(k);
    for (auto& part : parts) {  // binder order
        for (auto& s : part.skeletons) out.skeletons.push_back(std::move(s));
        for (auto& c : part.clips) out.clips.push_back(std::move(c));
        for (auto& f : part.failures) out.failures.push_back(std::move(f));
    }
    for (auto& f : tae_failures) out.failures.push_back(std::move(f));
    out.taes = std::move(taes);
    out.clips_with_events = attach_events(out.clips, out.taes);
    return out;
}

// The TAE's category (tae::category_of) makes XXX of the whole id, never a prefix of the member
// name (docs/animation.md#events: matching by the first two digits put a234.tae's events on a023_* clips).
size_t attach_events(std::vector<Clip>& clips, const std::vector<TaeMember>& taes) {
    std::unordered_map<std::string, size_t> by_name;
    for (size_t i = 0; i < clips.size(); ++i) by_name.emplace(clips[i].name, i);
    for (const auto& t : taes) {
        for (auto& ce : tae::clip_events(t.tae, t.category)) {
            auto it = by_name.find(ce.clip);
            if (it == by_name.end()) continue;
            Clip& c = clips[it->second];
            c.motion_from = std::move(ce.motion_from);
            c.events = std::move(ce.events);
        }
    }
    size_t n = 0;
    for (const auto& c : clips) n += c.events.empty() ? 0 : 1;
    return n;
}

SkeletonFailure skeleton_failure(const ClipSet& set) {
    SkeletonFailure out;
    for (const auto& f : set.failures) {
        if (!f.clip.empty()) continue;
        std::string stem = clip_name_from_path(f.member);
        for (char& c : stem) c = char(std::tolower(static_cast<unsigned char>(c)));
        if (stem.rfind("skeleton", 0) != 0) continue;
        out.failure = &f;
        out.unsupported_sdk = f.error.field == "SDKV" && f.error.reason.find("unsupported Havok SDK") != std::string::npos;
        return out;
    }
    return out;
}

std::optional<std::filesystem::path> main_anibnd_beside(const std::filesystem::path& input) {
    const std::string name = input.filename().string();
    std::string lower = name;
    for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
    const bool dcx = lower.size() > 11 && lower.ends_with(".anibnd.dcx");
    if (!dcx && !lower.ends_with(".anibnd")) return std::nullopt;
    const size_t underscore = name.find('_');
    const size_t dot = name.find('.');
    if (underscore == std::string::npos || underscore == 0 || underscore > dot) return std::nullopt;
    const std::string stem = name.substr(0, underscore);
    for (const char* ext : {".anibnd.dcx", ".anibnd"}) {
        const auto candidate = input.parent_path() / (stem + ext);
        std::error_code ec;
        if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
    }
    return std::nullopt;
}

}  // namespace drape::anim
