// drape: every clip and skeleton of an animation binder (.anibnd, .anibnd.dcx) or of one Havok
// file (.hkx). Tagfiles whose types are in the binder's compendium are resolved through it.
// Meant to be called once per character by a whole-folder converter: one bad member is
// reported in `failures` and does not stop the others.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drape/anim/animation.h"
#include "drape/dcx/dcx.h"
#include "drape/havok/animation.h"
#include "drape/tae/tae.h"

namespace drape::anim {

struct MemberFailure {
    std::string member;  // binder member name (or the file name)
    Error error;
    std::string clip;    // the clip that did not decode (its ClipSet name); empty when the whole member failed
};

// A TAE member of the binder, read.
struct TaeMember {
    std::string member;     // binder member name
    int32_t category = -1;  // tae::category_of(member, tae.id)
    tae::Tae tae;
};

struct ClipSet {
    std::vector<Clip> clips;                 // in binder order; Clip::name = member file stem
    std::vector<havok::Skeleton> skeletons;  // every skeleton found (an anibnd holds one)
    std::vector<MemberFailure> failures;     // members and clips that did not decode, with their reason
    // Every TAE member, in binder order; their events are on the clips of the same whole id
    // (Clip::events, Clip::motion_from). A TAE that does not read is in `failures`.
    std::vector<TaeMember> taes;
    size_t clips_with_events = 0;  // clips that carry at least one event
};

// "N:\\...\\a000_003000.hkx" -> "a000_003000".
std::string clip_name_from_path(std::string_view path);

// Reads a DCX-compressed or plain BND4 of Havok members, or a single packfile/tagfile.
// `name` names the input in errors and is the clip name of a single file. The call fails only
// when the container itself is unreadable; member errors go to ClipSet::failures.
Result<ClipSet> read_clip_set(Bytes data, std::string_view name, const dcx::DecodeOptions& dcx_options = {});
// The same, the Havok members read and their clips decoded as parallel_for(n, task) runs them
// (task(i) for every i in [0, n), on any threads; it returns once all ran). The set is the same
// whatever the threads: each member's clips, skeletons and failures are merged in binder order.
using ParallelFor = std::function<void(size_t, const std::function<void(size_t)>&)>;
Result<ClipSet> read_clip_set(Bytes data, std::string_view name, const dcx::DecodeOptions& dcx_options, const ParallelFor& parallel_for);

// Puts on each clip the events of the TAE entry of its whole id aXXX_YYYYYY (the TAE's
// category and the entry id, docs/animation.md#events), and the clip it borrows motion from.
// read_clip_set does this within one binder; a caller that merges clip sets (the player's TAEs in
// c0000.anibnd.dcx, clips in c0000_a00_hi.anibnd.dcx) calls it again on the merged lists.
// Returns how many clips carry events.
size_t attach_events(std::vector<Clip>& clips, const std::vector<TaeMember>& taes);

// The failure of the member that holds the set's skeleton (a member named skeleton*.hkx), when
// that member did not read; nullptr otherwise. Lets a caller say why a binder that has a
// skeleton yields none (e.g. a 2019+ tagfile: `unsupported_sdk` is then true).
struct SkeletonFailure {
    const MemberFailure* failure = nullptr;
    bool unsupported_sdk = false;  // the tagfile's SDK (SDKV) is one drape does not read
};
SkeletonFailure skeleton_failure(const ClipSet& set);

// Clip-only binders (c0000_a00_lo.anibnd.dcx, c0000_a7x.anibnd.dcx) hold no skeleton; the
// character's main binder beside them (c0000.anibnd.dcx, else c0000.anibnd) does. Returns that
// file when `input`'s name is <stem>_<anything>.anibnd[.dcx] and it exists, else nullopt.
std::optional<std::filesystem::path> main_anibnd_beside(const std::filesystem::path& input);

}  // namespace drape::anim
