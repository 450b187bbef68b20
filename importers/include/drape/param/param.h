// drape: PARAM tables (game parameters: NPCs, equipment, models...), their row layouts, and the
// encrypted regulation files that carry them (docs/params.md).
//
// A PARAM file is one table: a header, a row table (id, where the row's bytes are, where its
// name is), the rows' bytes (every row of a table has the same size), the table's type string
// and the row names. DS3, Sekiro and Elden Ring keep them as members of a BND4
// (`gameparam.parambnd.dcx` in Sekiro; the encrypted `regulation.bin` in Elden Ring, DS3's
// `Data0.bdt` likewise).
//
// Layout (little endian unless byte 0x2C is 0xFF; offsets absolute within the PARAM file):
//   0x00 u32 strings offset (where the type string or the names start; not reliable: only a
//        bound); 0x04 u16 data start (0 in the 64-bit form); 0x06 i16 unknown; 0x08 i16 data
//        version of the table's layout (NpcParam: 9 in Elden Ring 1.12, 14 in Sekiro);
//        0x0A u16 row count
//   0x0C the type string: either 32 bytes, NUL- or space-padded (when format_2d bit 0x80 is
//        clear), or i32 0, i64 offset of a NUL-terminated string, 20 zero bytes (bit 0x80 set)
//   0x2C u8 endianness (0 little, 0xFF big), 0x2D u8 format_2d, 0x2E u8 format_2e (bit 0x01:
//        row names are UTF-16, else Shift-JIS), 0x2F u8 layout format version
//   format_2d bit 0x04 (64-bit offsets): 0x30 i64 data start, 8 zero bytes; rows from 0x40 of
//        24 bytes: i32 id, i32 unused, i64 data offset, i64 name offset
//   format_2d bits 0x01 and 0x02 both set (32-bit data start): 0x30 i32 data start, 12 zero
//        bytes; rows from 0x40. Otherwise rows from 0x30. Rows of 12 bytes: i32 id, u32 data
//        offset, u32 name offset.
//   A name offset of 0 means no name. Elden Ring and almost every Sekiro table use 0x85 / 0x07
//   (64-bit offsets, the type by offset, UTF-16 names); three Sekiro tables use 0x01 and 0x02
//   (32-bit, the type inline, Shift-JIS names).
// The row size is not stored: the rows' bytes run from the first row's data offset up to the
// first of the strings (the smallest of the type string offset, the header's strings offset
// and the name offsets that lie past the data), divided by the row count.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "drape/io/error.h"
#include "drape/io/reader.h"

namespace drape::param {

struct Row {
    int32_t id = 0;
    std::string name;          // UTF-8 (from UTF-16 or Shift-JIS); empty when the row has none
    uint64_t data_offset = 0;  // absolute in the PARAM file
    Bytes data;                // row_size bytes (a view into the PARAM's bytes)
};

struct Param {
    std::string type;             // e.g. NPC_PARAM_ST
    bool big_endian = false;
    uint8_t format_2d = 0, format_2e = 0, format_version = 0;
    int16_t unk06 = 0;
    int16_t data_version = 0;     // the layout's data version the table was written with
    uint32_t row_size = 0;        // bytes per row (0 when the table has no rows)
    std::vector<Row> rows;        // in stored order (ids are not always sorted or unique)
};

// Reads a PARAM file. Row data views point into `data`.
Result<Param> read_param(Bytes data);

// The table name of a PARAM member: its file name without folders and ".param"
// ("regulation.bin > N:\GR\data\Param\param\GameParam\NpcParam.param" -> "NpcParam").
std::string param_name(std::string_view member_path);

// ---- Row layouts --------------------------------------------------------------------------

enum class Game : uint8_t { unknown, dark_souls_3, sekiro, elden_ring, nightreign };
const char* game_name(Game g);
// The game a parambnd or regulation belongs to, from its members' stored paths (the games'
// build trees: `\FDP\` DS3, `\NTC\` Sekiro, `\GR\` Elden Ring, `\CL\` Nightreign).
Game game_of_member_path(std::string_view stored_path);

enum class FieldType : uint8_t { s8, u8, s16, u16, s32, u32, f32, dummy8 };
const char* field_type_name(FieldType t);

// One field of a layout as the table generated from PARAMDEF files holds it (layouts.inc).
struct FieldDef {
    const char* name;
    FieldType type;
    uint8_t bits;              // bitfield width, 0 = the type's whole width
    uint16_t count;            // element count (padding arrays), else 1
    uint32_t first_version;    // regulation version the field appeared in, 0 = always
    uint32_t removed_version;  // regulation version it went in, 0 = never
};
struct LayoutDef {
    Game game;
    const char* param_name;  // the file's stem: NpcParam
    const char* param_type;  // NPC_PARAM_ST
    int16_t data_version;
    std::span<const FieldDef> fields;
};
// Every layout drape carries (Elden Ring: ChrModelParam, EquipParamProtector, EquipParamWeapon,
// NpcParam; Sekiro: EquipParamProtector, EquipParamWeapon, NpcParam).
std::span<const LayoutDef> layouts();

// A field placed in the row: bitfields of one storage unit share its bytes, lowest bit first;
// a padding array is one field of `count` bytes.
struct Field {
    std::string name;
    FieldType type = FieldType::u8;
    uint32_t bit_offset = 0;  // from the row's first byte
    uint32_t bits = 8;        // width of the value (a padding array: 8 * count)
    bool padding() const { return type == FieldType::dummy8; }
};
struct Layout {
    std::string param_type;
    int16_t data_version = 0;
    uint32_t size = 0;  // bytes per row
    std::vector<Field> fields;
    const Field* find(std::string_view name) const;  // case-sensitive, as the layout spells it
};
// The layout of `param_type` in `game` with the fields of regulation `version` (0: every field
// that was never removed; Elden Ring's regulation version is its binder's version string,
// e.g. 11210015). nullopt when drape has none.
std::optional<Layout> find_layout(Game game, std::string_view param_type, uint32_t version = 0);
// The regulation version a binder version string states ("11210015" -> 11210015), 0 when it
// is not all digits (Sekiro's "07D7R6").
uint32_t regulation_version(std::string_view binder_version);

// Checks that a table can be decoded with a layout: same type string and the layout's size
// equal to the table's row size (an empty table has no row size and always agrees).
Result<void> check_layout(const Param& param, const Layout& layout);

// A decoded value: integers in `i`, floats in `f` (is_float), padding as its raw bytes.
struct Value {
    bool is_float = false;
    int64_t i = 0;
    double f = 0;
};
// The value of `field` in `row` (row.data must hold the layout's size: see check_layout).
Value field_value(const Field& field, Bytes row, bool big_endian = false);
// The value of the field named `name`, nullopt when the layout has no such field.
std::optional<Value> field_value(const Layout& layout, std::string_view name, Bytes row, bool big_endian = false);
// Decimal text of a value (floats with the shortest form that reads back the same float).
std::string value_text(const Value& v);

// ---- Regulation -----------------------------------------------------------------------------

// The keys the community publishes for the games' regulation files: AES-256-CBC, the first 16
// bytes of the file are the IV; the plain text is a DCX (Elden Ring, Nightreign) or a BND4
// (DS3), padded to 16 bytes.
enum class RegulationKey : uint8_t { dark_souls_3, elden_ring, nightreign };
const char* regulation_key_name(RegulationKey k);

// The key the bytes are encrypted with, found by decrypting the first block with each key and
// looking for a DCX or BND4 magic; nullopt when no key gives one (or the size is not an IV plus
// whole blocks).
std::optional<RegulationKey> regulation_key(Bytes data);
// Decrypts a regulation (OpenSSL's AES-256-CBC) with the key regulation_key finds and removes
// the block padding when it is well formed. Errors when no key fits.
Result<std::vector<uint8_t>> decrypt_regulation(Bytes data, RegulationKey* key_out = nullptr);

// ---- Display masks ----------------------------------------------------------------------------

// Whether NpcParam row `row_id` is one of character cNNNN's. Elden Ring, Nightreign and Sekiro
// number a character's rows NNNN * 10000 + k (k < 10000): id / 10000 is the character number,
// as every row of the corpus tables shows. Dark Souls III numbers them NNNN * 100 + k (c1430's
// hollow is row 143000; no DS3 table is in the corpus). docs/params.md.
bool npc_row_of_character(Game game, int32_t row_id, uint32_t character);
// The character number of a model name ("c5000" -> 5000), nullopt when it is not c + 4 digits.
std::optional<uint32_t> character_number(std::string_view name);

struct NpcMasks {
    int32_t row_id = 0;
    std::string row_name;
    uint32_t masks = 0;  // bit N = modelDispMaskN
};
// Every row of an NpcParam table of `game` (decoded with `layout`, checked with check_layout) that
// belongs to `character` (npc_row_of_character), with its modelDispMask0..31, in stored order.
// Errors when the layout has no modelDispMask fields or does not fit the table.
Result<std::vector<NpcMasks>> display_masks(const Param& npc_param, const Layout& layout, Game game, uint32_t character);

}  // namespace drape::param
