// drape: Havok object files. TAG0 tagfiles (2015/2016/2018: DSR, Sekiro, Elden Ring), TCM0 type
// compendiums, and hk_2014.1.0-r1 packfiles (DS3, Bloodborne), read into one generic object view
// (docs/formats.md#havok-tagfiles, #havok-packfiles).
//
// Every object is read through a type table: the file's own TYPE section (tagfile), the types of
// its compendium (TCRF), or drape's own 2014 layouts (packfile, which describe no layout). A
// typed view (animation.h, cloth.h) reads members by name through `Value`, never by offset.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "drape/io/reader.h"

namespace drape::havok {

// The kind in the low 4 bits of a type's format word (§3.4).
enum class Kind : uint8_t { Void = 0, Opaque = 1, Bool = 2, String = 3, Int = 4, Float = 5, Pointer = 6, Record = 7, Array = 8 };
const char* kind_name(Kind k);

struct TemplateParam {
    std::string name;      // without its 't'/'v' prefix
    bool is_type = false;  // 't': value is a type index; 'v': an integer
    uint64_t value = 0;
};

struct Member {
    std::string name;
    uint32_t flags = 0;   // 1 NonSerializable, 2 Protected, 4 Private, 8 Hidden, 16 Property, 32 Field
    uint32_t offset = 0;  // from the start of the record (parent bytes included)
    uint32_t type = 0;    // type index
};

// Optional-field bits of a body record (§3.4).
inline constexpr uint32_t k_opt_format = 0x01, k_opt_subtype = 0x02, k_opt_version = 0x04, k_opt_size_align = 0x08,
                          k_opt_flags = 0x10, k_opt_members = 0x20, k_opt_interfaces = 0x40;

struct Type {
    std::string name;
    std::vector<TemplateParam> params;
    uint32_t parent = 0;
    uint32_t opt = 0;  // which of the fields below the record itself states
    uint32_t format = 0, subtype = 0, version = 0, size = 0, align = 0, flags = 0;
    std::vector<Member> members;  // own members only
    std::vector<std::pair<uint32_t, uint32_t>> interfaces;
    uint32_t hash = 0;
    bool has_hash = false;
    bool has_body = false;

    // Resolved through the parent chain by TypeTable::resolve().
    uint32_t r_format = 0, r_subtype = 0, r_version = 0, r_size = 0, r_align = 0, r_flags = 0;
    std::vector<Member> all_members;  // parents' first
};

// Index 0 is the null type. Every index inside a resolved table is below types.size().
struct TypeTable {
    std::vector<Type> types;

    const Type& at(uint32_t i) const { return types[i < types.size() ? i : 0]; }
    Kind kind(uint32_t i) const { return Kind(at(i).r_format & 0xF); }
    // First type of that name (0 when none). Template types share names; this returns the first.
    uint32_t find(std::string_view name) const;
    // Display name with template arguments, e.g. "hkArray<hkUint16>".
    std::string full_name(uint32_t i) const;
    // Is `i` the type `base` or derived from it (by name)?
    bool derives_from(uint32_t i, std::string_view base) const;
    // Fills the r_* fields and all_members; refuses parent cycles, out-of-range indices and
    // members that do not fit in their record.
    Result<void> resolve();
};

// One entry of a tagfile's ITEM table (index 0 = null). Packfiles get one item per object.
struct Item {
    uint32_t type = 0;
    bool is_pointer = false;  // 0x1… kind (an object); otherwise an array or string item
    uint64_t offset = 0;      // in File::data
    uint64_t count = 0;
};

enum class Form : uint8_t { tagfile, packfile };

struct File;

// A typed position in a file's data. Reads are bounds-checked: a missing member or a read past
// the data gives an invalid Value / zero and never touches memory outside File::data.
class Value {
public:
    Value() = default;
    Value(const File* f, uint32_t type, uint64_t offset) : m_file(f), m_type(type), m_offset(offset) {}

    bool valid() const { return m_file != nullptr && m_type != 0; }
    explicit operator bool() const { return valid(); }
    uint32_t type() const { return m_type; }
    uint64_t offset() const { return m_offset; }
    const File* file() const { return m_file; }
    Kind kind() const;
    const Type& type_info() const;
    std::string type_name() const;

    // Records
    bool has(std::string_view member) const;
    Value operator[](std::string_view member) const;

    // Scalars (Int, Bool, Float; an Int also reads as a float and vice versa is refused)
    int64_t as_int() const;
    uint64_t as_uint() const { return uint64_t(as_int()); }
    double as_float() const;
    bool as_bool() const { return as_int() != 0; }
    std::string as_string() const;

    // Arrays: dynamic (hkArray, hkRelArray) or fixed inline (T[N], hkVector4 = float[4]).
    bool is_array() const { return kind() == Kind::Array; }
    uint64_t size() const;
    Value at(uint64_t i) const;
    // Floats of a fixed float array or a record of floats (hkVector4, hkQsTransform...), flattened.
    std::vector<float> floats() const;

    // Pointers: the item (object) they point to, 0 = null.
    uint32_t pointee_item() const;
    Value deref() const;

    // Raw bytes of this value (its type's size).
    Bytes bytes() const;

private:
    struct ArrayRef {
        uint32_t elem_type = 0;
        uint64_t offset = 0, count = 0;
    };
    ArrayRef array_ref() const;

    const File* m_file = nullptr;
    uint32_t m_type = 0;
    uint64_t m_offset = 0;
};

struct File {
    Form form = Form::tagfile;
    std::string sdk;  // "20160200", "20180100", "hk_2014.1.0-r1"
    int year = 0;     // 2014, 2015, 2016, 2018
    TypeTable types;
    std::vector<uint8_t> data;  // tagfile DATA, packfile __data__
    std::vector<Item> items;    // index 0 null
    uint32_t root = 0;          // item of the root object (hkRootLevelContainer)
    std::optional<uint64_t> compendium_id;  // TCRF id when the types came from a compendium
    bool packfile_reuse_padding = false;

    // Packfile pointer maps (empty for tagfiles).
    std::unordered_map<uint32_t, uint32_t> local_fixups;   // slot -> target offset in data
    std::unordered_map<uint32_t, uint32_t> global_fixups;  // slot -> item index of the object pointed to
    std::unordered_map<uint32_t, uint32_t> object_at;      // data offset -> item index

    // Items that are objects, in file order.
    std::vector<uint32_t> objects() const;
    Value object(uint32_t item) const;
    Value root_object() const { return object(root); }
    const std::string& class_name(uint32_t item) const;
    // Every object of class `name` or derived from it.
    std::vector<uint32_t> objects_of(std::string_view name) const;
    // The first object of a class in the root container's variants, or any object of it.
    std::optional<uint32_t> first_of(std::string_view name) const;
};

struct Compendium {
    std::vector<uint64_t> ids;
    TypeTable types;
};

// Unsupported SDK (2019 and later) and the like are refused with one clear line.
bool is_tagfile(Bytes data);     // TAG0
bool is_compendium(Bytes data);  // TCM0
bool is_packfile(Bytes data);

// The TCRF compendium id of a tagfile, if it has one (nullopt for types inline or bad data).
std::optional<uint64_t> tagfile_compendium_id(Bytes data);

// drape's own hk_2014 class layouts (packfiles carry none), computed for a packfile without
// (DS3) or with (BB) reusePaddingOptimization. Unknown classes are absent.
const TypeTable& packfile_layouts_2014(bool reuse_padding);

Result<Compendium> read_compendium(Bytes data);
// Reads a tagfile. A tagfile that references a compendium (TCRF) needs `compendium`; without
// it the error says which id is missing.
Result<File> read_tagfile(Bytes data, const Compendium* compendium = nullptr);
Result<File> read_packfile(Bytes data);

// Finds the compendium a tagfile names, among siblings (binder members or folder files).
using CompendiumLookup = std::function<const Compendium*(uint64_t id)>;
// Any of the three forms (a compendium alone is refused: it holds no objects).
Result<File> read_hkx(Bytes data, const CompendiumLookup& lookup = {});

// Loads every `.compendium` among `siblings` (name, bytes); lookup by id.
struct CompendiumSet {
    std::vector<Compendium> compendiums;
    // Adds a TCM0 file; its error when it is not one.
    Result<void> add(Bytes data);
    // Adds every sibling that is a compendium (TCM0); the first bad one is an error.
    Result<void> add_siblings(const std::vector<Bytes>& siblings);
    const Compendium* find(uint64_t id) const;
    CompendiumLookup lookup() const {
        return [this](uint64_t id) { return find(id); };
    }
};

// Varint of §3.2 (exposed for the fixture writer and tests).
bool read_varint(ByteReader& r, uint64_t& out, const char* field);
void write_varint(std::vector<uint8_t>& out, uint64_t v);

}  // namespace drape::havok
