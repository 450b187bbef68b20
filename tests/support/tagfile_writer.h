// Test support: writes Havok TAG0 tagfiles (2016 and 2018 flavours) from a type table and
// objects filled member by member, the way docs/formats.md#havok-tagfiles describes them. Used to synthesize
// Sekiro and Elden Ring cloth files, which no public repository holds.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "drape/havok/hkx.h"

namespace drape::test {

// The HKLib type registry XML (../shared/reference/havok/HavokTypeRegistry20180100.xml) as a
// resolved type table indexed by the registry's Id. Template parameter names lose their XML
// form and get the tagfile's meaning (is_type from Kind="Type").
Result<havok::TypeTable> load_registry_xml(const std::filesystem::path& path);

// The subset of `full` that `roots` need (parents, subtypes, member and template types),
// re-indexed from 1 in a stable order.
havok::TypeTable closure(const havok::TypeTable& full, const std::vector<std::string>& roots);

// Re-lays out every record derived from hkReferencedObject for a 16-byte hkReferencedObject
// (vtable, memSizeAndFlags, refCount; no propertyBag), keeping member order and natural
// alignment, as docs/formats.md#sdk-differences describes 2015/2016.
void relayout_16_byte_referenced_object(havok::TypeTable& t);

enum class TagfileFlavour {
    v2016,  // SDKV 20160200, TNAM/TBOD, plain member counts, u32 item indices
    v2018,  // SDKV 20180100, TNA1/TBDY, fields | properties << 16, u64 item indices, 0 ends TBDY
    // What the real Sekiro files of the corpus hold (a public description says otherwise): SDKV 20160200
    // with the 2018 sections (TNA1/TBDY) and layouts (24-byte hkReferencedObject).
    v2016_as_sekiro,
};

class TagfileWriter {
public:
    TagfileWriter(TagfileFlavour flavour, havok::TypeTable types);

    const havok::TypeTable& types() const { return m_types; }
    uint32_t type(std::string_view name) const;  // first type of that name; 0 when absent

    // A writable position: a type and an offset in DATA.
    struct Slot {
        TagfileWriter* w = nullptr;
        uint32_t type = 0;
        uint64_t offset = 0;

        havok::Kind kind() const;
        Slot operator[](std::string_view member) const;  // invalid (type 0) when absent
        bool valid() const { return w && type; }
        void set_int(int64_t v) const;
        void set_float(double v) const;
        void set_string(std::string_view s) const;  // hkStringPtr / char* / char[N]
        void set_pointer(uint32_t item) const;      // item index (0 = null)
        // Dynamic array: allocates `count` elements of the array's element type and points the
        // slot at them. Fixed array: no allocation. Returns the element count.
        uint64_t resize(uint64_t count) const;
        Slot at(uint64_t i) const;  // element of a fixed array or of a resized dynamic array
    };

    // A new object item (pointer kind) of class `type_index`; zero-filled.
    uint32_t add_object(uint32_t type_index);
    Slot object(uint32_t item);
    uint32_t root() const { return 1; }

    std::vector<uint8_t> finish() const;

private:
    friend struct Slot;
    uint64_t allocate(uint64_t size, uint64_t align);
    uint32_t add_item(uint32_t type, bool pointer, uint64_t offset, uint64_t count);

    TagfileFlavour m_flavour;
    havok::TypeTable m_types;
    std::vector<uint8_t> m_data;
    std::vector<havok::Item> m_items;
    // where each dynamic array slot points (slot offset -> item)
    std::vector<std::pair<uint64_t, uint32_t>> m_array_slots;
};

}  // namespace drape::test
