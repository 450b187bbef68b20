// drape: what a converter loads from a game file: its FLVER, its Havok skeleton, its TPFs, and
// which game wrote a Havok file. All go through the one container walker (containers.h).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drape/dcx/dcx.h"
#include "drape/flver/flver.h"
#include "drape/game/containers.h"
#include "drape/havok/animation.h"

namespace drape::game {

// The first FLVER among the leaves of `bytes` (itself, or a member through DCX/BND4 layers: a
// .chrbnd.dcx, .partsbnd.dcx, .mapbnd), parsed. `label` names the input in errors; an error in
// the FLVER carries the member chain (`c.partsbnd.dcx > N:\...\c.flver @0x.. field: reason`).
// Layers that cannot be opened are skipped while a FLVER may still be found elsewhere.
Result<flver::Model> load_flver(Bytes bytes, const std::string& label, const dcx::DecodeOptions& options);
Result<flver::Model> load_flver_file(const std::filesystem::path& path, const dcx::DecodeOptions& options);

// The first Havok skeleton among `members` (members named like "skeleton" first); nullopt when
// none holds one. `folder` is where a loose tagfile's compendium would be.
std::optional<havok::Skeleton> find_havok_skeleton(const std::vector<Member>& members, const std::filesystem::path& folder = {});
// The same for a file (a Skeleton.hkx, an .anibnd(.dcx), a cloth *_c.hkx).
Result<std::optional<havok::Skeleton>> load_havok_skeleton(const std::filesystem::path& path, const dcx::DecodeOptions& options);

// Every TPF leaf of `bytes` (decompressed copies), in walk order; unreadable layers are skipped.
std::vector<std::vector<uint8_t>> collect_tpfs(Bytes bytes, const dcx::DecodeOptions& options);

// The game a Havok SDK version string belongs to ("Elden Ring", "Sekiro", "Dark Souls
// Remastered"); empty for hk_2014.1.0-r1, which DS3 and Bloodborne share.
std::string game_of_sdk(std::string_view sdk);

}  // namespace drape::game
