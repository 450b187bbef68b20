// drape: identify any game file by content and walk containers (DCX, BND4, BXF4) into a tree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "drape/dcx/dcx.h"
#include "drape/io/reader.h"

namespace drape::game {

enum class Kind : uint8_t {
    empty, unknown, text, dcx, bnd4, bhf4, bdf4, tpf, flver, havok_packfile, havok_tagfile, havok_compendium,
    tae, emevd, param, drcloth,
};
const char* kind_name(Kind k);

// Sniffers of the formats that have no reader module here (the others: dcx::is_dcx,
// bnd::is_bnd4/is_bhf4/is_bdf4, tpf::is_tpf, flver::is_flver, havok::is_packfile/is_tagfile/
// is_compendium). A .drcloth is recognised by its FlatBuffers identifier "DRCL" at offset 4.
bool is_tae(Bytes data);
bool is_emevd(Bytes data);
bool is_drcloth(Bytes data);

// Identifies bytes by their magic (`name` helps only for formats without one, e.g. PARAM).
Kind identify(Bytes data, std::string_view name = {});

struct Node {
    std::string name;            // file name, or member name as stored in its binder
    std::string path;            // sanitised relative path (members), or the name
    int32_t id = -1;             // binder member id, -1 when none
    Kind kind = Kind::unknown;
    uint64_t size = 0;           // bytes of this element (decompressed when it was compressed)
    uint64_t stored_size = 0;    // bytes as stored (differs for DCX and compressed members)
    std::vector<std::pair<std::string, std::string>> fields;  // key facts: compression, version, counts
    std::vector<Node> children;
    std::optional<Error> error;  // set when this element could not be read
};

struct WalkOptions {
    dcx::DecodeOptions dcx;
    unsigned max_depth = 8;
};

// Builds the tree of `data`. Never fails as a whole: a part that cannot be read carries its
// error in its node (with the container chain) and the walk goes on with its siblings.
Node walk(Bytes data, std::string name, const WalkOptions& options = {});
// BXF4: the header file (.bhd) and its data file (.bdt).
Node walk_bxf4(Bytes bhd, Bytes bdt, std::string name, const WalkOptions& options = {});

// First error found anywhere in the tree (depth first), with its chain of containers.
std::optional<Error> first_error(const Node& node);

}  // namespace drape::game
