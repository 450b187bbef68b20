// drape: every clip and skeleton of an animation binder (.anibnd, .anibnd.dcx) or of one Havok
// file (.hkx). Tagfiles whose types are in the binder's compendium are resolved through it.
// Meant to be called once per character by a whole-folder converter: one bad member is
// reported in `failures` and does not stop the others.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "drape/anim/animation.h"
#include "drape/dcx/dcx.h"
#include "drape/havok/animation.h"

namespace drape::anim {

struct MemberFailure {
    std::string member;  // binder member name (or the file name)
    Error error;
};

struct ClipSet {
    std::vector<Clip> clips;                 // in binder order; Clip::name = member file stem
    std::vector<havok::Skeleton> skeletons;  // every skeleton found (an anibnd holds one)
    std::vector<MemberFailure> failures;     // members that did not decode
};

// "N:\\...\\a000_003000.hkx" -> "a000_003000".
std::string clip_name_from_path(std::string_view path);

// Reads a DCX-compressed or plain BND4 of Havok members, or a single packfile/tagfile.
// `name` names the input in errors and is the clip name of a single file. The call fails only
// when the container itself is unreadable; member errors go to ClipSet::failures.
Result<ClipSet> read_clip_set(Bytes data, std::string_view name, const dcx::DecodeOptions& dcx_options = {});

}  // namespace drape::anim
