// drape: Elden Ring MATBIN and Sekiro / DS3 MTD material definitions, and a library that finds
// the definition a FLVER material names.
//
// A FLVER material names its definition by path (`mtd` field): Elden Ring
// `N:\GR\data\Material\mtd\Chr\matxml\C[c5000]_WP_Sword.matxml` is the member
// `...\matxml\C[c5000]_WP_Sword.matbin` of `material/allmaterial*.matbinbnd.dcx`; Sekiro and
// DS3 `...\c7109_sss.mtd` is the member `c7109_sss.mtd` of `mtd/allmaterialbnd.mtdbnd.dcx`.
// The definition holds the shader, its parameters and the samplers whose texture paths the
// FLVER leaves empty.
//
// MATBIN layout (little endian; offsets absolute, strings NUL-terminated UTF-16LE):
//   0x00 "MAB\0", i32 2, i64 shader path offset, i64 source path offset (the .matxml the FLVER
//   names), u32 key, i32 parameter count, i32 sampler count, 20 zero bytes  (0x38 bytes)
//   parameter (0x28): i64 name offset, i64 value offset, u32 key, u32 type, 16 zero bytes
//   sampler   (0x30): i64 type offset, i64 path offset, u32 key, f32 x2 scale, 20 zero bytes
//   parameter types: 0 bool (1 byte), 4 int, 5 int2, 8 float, 9 float2, 10 float3, 11 float4,
//   12 float5 (4 bytes per component).
// MTD layout: nested blocks {i32 0, i32 length, i32 type, i32 version, u8 marker, pad to 4}
//   and marked strings {i32 byte length, Shift-JIS bytes, u8 marker, pad to 4}; see
//   importers/matbin/mtd.cpp. The block lengths are not reliable (76 of Sekiro's 3,170 MTDs
//   state lengths that overshoot their content), so the reader walks the content and ignores them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "drape/dcx/dcx.h"
#include "drape/io/error.h"
#include "drape/io/reader.h"

namespace drape::matbin {

enum class Format : uint8_t { matbin, mtd };

// A shader parameter. `type` is the name the MTD stores ("bool", "int", "int2", "float" ...
// "float5"); MATBIN's numeric types map to the same names. Booleans and integers land in
// `ints` (a bool as 0 or 1), floats in `floats`; exactly one of them is filled.
struct Param {
    std::string name;
    std::string type;
    uint32_t key = 0;  // MATBIN only
    std::vector<int32_t> ints;
    std::vector<float> floats;
};

// A texture slot of the shader. `type` equals the FLVER texture entry's `type`
// (e.g. C_DetailBlend__snp_Texture2D_7_AlbedoMap); `path` is empty when the slot is unused.
struct Sampler {
    std::string type;
    std::string path;
    uint32_t key = 0;           // MATBIN only
    float scale[2] = {0, 0};    // MATBIN only (0, 0 in 86 % of the corpus samplers)
    int32_t uv_index = 0;       // MTD only
    int32_t shader_data_index = 0;  // MTD only
};

struct Material {
    Format format = Format::matbin;
    std::string member;       // member name in its binder (set by MaterialLibrary), else empty
    std::string shader_path;  // MATBIN: the .spx; MTD: the shader the MTD names
    std::string source_path;  // MATBIN: the .matxml path (what the FLVER names); MTD: empty
    std::string description;  // MTD only (Shift-JIS converted to UTF-8)
    uint32_t key = 0;         // MATBIN only
    std::vector<Param> params;
    std::vector<Sampler> samplers;
};

bool is_matbin(Bytes data);  // starts with "MAB\0"
bool is_mtd(Bytes data);     // starts with the MTD block header and the "MTD " magic

Result<Material> read_matbin(Bytes data);
Result<Material> read_mtd(Bytes data);
// MATBIN or MTD, by content.
Result<Material> read_material(Bytes data);

// The lookup key of a material path: the file name without folders and extension, lower case
// ("N:\...\matxml\C[c5000]_WP_Sword.matxml" -> "c[c5000]_wp_sword").
std::string material_key(std::string_view path);

// The material definitions of a game folder, indexed by name. Adding a binder indexes its
// member names only; a member is parsed the first time it is looked up and the result is
// kept. A KRAK binder (Elden Ring's, Sekiro's) is opened with dcx::LazyBinder: adding decodes
// only the blocks of its BND4 headers, a lookup the blocks of the member it reads (with
// keep_only: the kept members, when added). DFLT and ZSTD binders, which cannot be entered in
// the middle, are decompressed whole when added. Lookups are thread-safe; adding is not (add
// first, then share).
class MaterialLibrary {
public:
    MaterialLibrary();
    ~MaterialLibrary();
    MaterialLibrary(MaterialLibrary&&) noexcept;
    MaterialLibrary& operator=(MaterialLibrary&&) noexcept;

    // Adds a binder of definitions (`*.matbinbnd.dcx`, `*.mtdbnd.dcx`, a bare BND4, or one
    // loose .matbin / .mtd). `name` is used in errors and by `sources()`.
    Result<void> add_bytes(std::vector<uint8_t> bytes, std::string name, const dcx::DecodeOptions& options = {});
    Result<void> add_file(const std::filesystem::path& path, const dcx::DecodeOptions& options = {});
    // What add_file does before add_bytes: the file read and, when it is a DFLT or ZSTD DCX,
    // decompressed (errors name the file); a KRAK DCX is returned as read, for add_bytes to
    // open lazily. Touches no library, so a caller may run it for several binders on its own
    // threads and hand each result to add_bytes (with the file name as `name`).
    static Result<std::vector<uint8_t>> read_binder(const std::filesystem::path& path, const dcx::DecodeOptions& options = {});

    // The definition files of a game: in `dir` and in its `material/` and `mtd/` folders:
    // `*.matbinbnd.dcx`, `*.mtdbnd.dcx` (and the same without `.dcx`), sorted by name so the
    // base game's binder comes before its DLC's.
    static std::vector<std::filesystem::path> binders_in(const std::filesystem::path& dir);
    // Where the definitions of the game an input file belongs to are: the first of its folder
    // and the two above it (`game/chr/c5000.chrbnd.dcx` -> `game/material/...`) that holds any.
    static std::vector<std::filesystem::path> binders_for(const std::filesystem::path& input);

    // Before adding: index only the members whose material_key is in `keys` and keep a copy
    // of just their bytes, dropping each binder once it is added (Elden Ring's two matbinbnds
    // are 91 MB decompressed; a folder's FLVERs name a few hundred KB of them, and only their
    // blocks are decoded). A KRAK range of kept members that does not decode fails add_bytes.
    // Lookups of other names then find nothing. Without it every member is kept.
    void keep_only(std::vector<std::string> keys);

    size_t size() const;  // indexed members
    // Binder bytes this library has decompressed so far: the BND4 headers and each member
    // range read from a KRAK binder, or the whole payload of a binder decoded whole (tests
    // check with it that a lookup decodes only what it reads).
    uint64_t decoded_bytes() const;
    const std::vector<std::string>& sources() const;

    // The definition a FLVER material path names, or nullptr when the library has no member of
    // that name. When several members share the name (11 names in Elden Ring's two binders), the
    // MATBIN whose source path equals `path` (case-insensitive) wins, else the first added.
    // Parse errors come back as the Error (with the binder and member in its chain).
    Result<const Material*> find(std::string_view path) const;

    // Every indexed member name, as stored (for corpus loops).
    std::vector<std::string> member_names() const;
    // Parses member i of member_names() (no caching); for corpus loops and tests.
    Result<Material> parse_member(size_t i) const;

private:
    struct Impl;
    std::unique_ptr<Impl> m;
};

}  // namespace drape::matbin
