// drape: unpacking containers to a folder (`drape unpack`): DCX, BND4, BXF4 and TPF (to .dds
// files), like the community's binder tools do, with a manifest that keeps what a later repack
// needs to restore the container (DCX parameters, binder header, member ids, flags and stored
// names, texture bytes of the TPF table).
//
// Layout: a container `c2080.anibnd.dcx` unpacks into `<out>/c2080-anibnd-dcx/` (the file name
// with '.' as '-'); its members keep their sanitised paths (Entry::path, sanitize_member_path),
// joined with safe_join, so nothing is ever written outside that folder whatever a stored name
// holds. The manifest is `drape-unpack.json` in the folder. With `recursive`, a member that is
// itself a container (DCX, BND4, TPF) is also unpacked, into a folder beside it named the same
// way, with its own manifest. Every file is written atomically (a temporary file, then rename).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "drape/dcx/dcx.h"
#include "drape/io/error.h"
#include "drape/io/reader.h"

namespace drape::game {

struct UnpackOptions {
    bool recursive = false;
    dcx::DecodeOptions dcx;
};

struct UnpackResult {
    std::filesystem::path folder;  // the container's folder
    size_t files = 0;              // files written (members, textures, manifests), every level
    size_t containers = 0;         // containers unpacked (1 + nested ones)
    // Members that could not be read or unpacked further; everything else was written.
    std::vector<Error> errors;
};

// The folder name of a container file: "c2080.anibnd.dcx" -> "c2080-anibnd-dcx".
std::string unpack_folder_name(std::string_view file_name);
// The manifest's file name inside the folder.
inline constexpr const char* k_unpack_manifest = "drape-unpack.json";

// Unpacks `data` (named `name`, a file name) into out_dir / unpack_folder_name(name). Fails
// when `data` is none of DCX, BND4, TPF (or a DCX holding something else: then its payload is
// written as one file), when the container itself cannot be read, or when a file cannot be
// written; a member that cannot be read goes to UnpackResult::errors.
Result<UnpackResult> unpack(Bytes data, const std::string& name, const std::filesystem::path& out_dir, const UnpackOptions& options = {});
// A BXF4 pair: the header file (.bhd, named `name`) and its data file (.bdt).
Result<UnpackResult> unpack_bxf4(Bytes bhd, Bytes bdt, const std::string& name, const std::filesystem::path& out_dir,
                                 const UnpackOptions& options = {});

}  // namespace drape::game
