// drape: PARAM row layouts (generated table in layouts.inc), field decoding and display masks.
#include <charconv>
#include <cstring>
#include <iterator>

#include "drape/param/param.h"

namespace drape::param {

namespace {
#include "layouts.inc"

uint32_t type_bytes(FieldType t) {
    switch (t) {
        case FieldType::s8:
        case FieldType::u8:
        case FieldType::dummy8: return 1;
        case FieldType::s16:
        case FieldType::u16: return 2;
        case FieldType::s32:
        case FieldType::u32:
        case FieldType::f32: return 4;
    }
    return 1;
}

bool is_signed(FieldType t) { return t == FieldType::s8 || t == FieldType::s16 || t == FieldType::s32; }

char lower(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }

}  // namespace

const char* game_name(Game g) {
    switch (g) {
        case Game::unknown: return "unknown";
        case Game::dark_souls_3: return "Dark Souls III";
        case Game::sekiro: return "Sekiro";
        case Game::elden_ring: return "Elden Ring";
        case Game::nightreign: return "Elden Ring Nightreign";
    }
    return "unknown";
}

Game game_of_member_path(std::string_view path) {
    // "N:\GR\data\Param\..." : the component after the drive names the game's build tree.
    const size_t colon = path.find(":\\");
    if (colon == std::string_view::npos) return Game::unknown;
    std::string_view rest = path.substr(colon + 2);
    std::string tree(rest.substr(0, rest.find('\\')));
    for (char& c : tree) c = lower(c);
    if (tree == "fdp") return Game::dark_souls_3;
    if (tree == "ntc") return Game::sekiro;
    if (tree == "gr") return Game::elden_ring;
    if (tree == "cl") return Game::nightreign;
    return Game::unknown;
}

const char* field_type_name(FieldType t) {
    switch (t) {
        case FieldType::s8: return "s8";
        case FieldType::u8: return "u8";
        case FieldType::s16: return "s16";
        case FieldType::u16: return "u16";
        case FieldType::s32: return "s32";
        case FieldType::u32: return "u32";
        case FieldType::f32: return "f32";
        case FieldType::dummy8: return "dummy8";
    }
    return "?";
}

std::string param_name(std::string_view path) {
    const size_t slash = path.find_last_of("\\/");
    if (slash != std::string_view::npos) path.remove_prefix(slash + 1);
    const size_t gt = path.rfind("> ");
    if (gt != std::string_view::npos) path.remove_prefix(gt + 2);
    if (path.size() >= 6) {
        std::string tail(path.substr(path.size() - 6));
        for (char& c : tail) c = lower(c);
        if (tail == ".param") path.remove_suffix(6);
    }
    return std::string(path);
}

std::span<const LayoutDef> layouts() { return k_layouts; }

const Field* Layout::find(std::string_view name) const {
    for (const auto& f : fields)
        if (f.name == name) return &f;
    return nullptr;
}

uint32_t regulation_version(std::string_view binder_version) {
    if (binder_version.empty() || binder_version.size() > 9) return 0;
    uint32_t v = 0;
    for (char c : binder_version) {
        if (c < '0' || c > '9') return 0;
        v = v * 10 + uint32_t(c - '0');
    }
    return v;
}

std::optional<Layout> find_layout(Game game, std::string_view param_type, uint32_t version) {
    for (const LayoutDef& def : k_layouts) {
        if (def.game != game || param_type != def.param_type) continue;
        Layout out;
        out.param_type = def.param_type;
        out.data_version = def.data_version;
        // Bitfields fill a storage unit of their type (a padding bitfield counts as u8) from its
        // lowest bit; a field of another unit type, a field too wide for what is left, or a whole
        // field closes the unit.
        uint32_t offset = 0;  // bytes placed before the open unit
        uint32_t unit_bits = 0, unit_used = 0;
        FieldType unit_type = FieldType::u8;
        auto close_unit = [&] {
            offset += unit_bits / 8;
            unit_bits = unit_used = 0;
        };
        for (const FieldDef& f : def.fields) {
            if (version != 0 && f.first_version != 0 && version < f.first_version) continue;
            if (f.removed_version != 0 && (version == 0 || version >= f.removed_version)) continue;
            Field field;
            field.name = f.name;
            field.type = f.type;
            if (f.bits != 0) {
                const FieldType storage = f.type == FieldType::dummy8 ? FieldType::u8 : f.type;
                const uint32_t width = type_bytes(storage) * 8;
                if (unit_bits == 0 || storage != unit_type || unit_used + f.bits > width) {
                    close_unit();
                    unit_type = storage;
                    unit_bits = width;
                }
                field.bit_offset = offset * 8 + unit_used;
                field.bits = f.bits;
                unit_used += f.bits;
            } else {
                close_unit();
                field.bit_offset = offset * 8;
                field.bits = type_bytes(f.type) * 8 * f.count;
                offset += type_bytes(f.type) * f.count;
            }
            out.fields.push_back(std::move(field));
        }
        close_unit();
        out.size = offset;
        return out;
    }
    return std::nullopt;
}

Result<void> check_layout(const Param& param, const Layout& layout) {
    if (param.type != layout.param_type)
        return make_error("the table's type " + escape_bytes(param.type) + " is not the layout's " + layout.param_type, "param.type");
    if (!param.rows.empty() && param.row_size != layout.size)
        return make_error("rows of " + std::to_string(param.row_size) + " B do not fit the " + std::to_string(layout.size) + " B layout of " +
                              layout.param_type + " (data version " + std::to_string(param.data_version) + ", the layout's " +
                              std::to_string(layout.data_version) + ")",
                          "param.row_size");
    return {};
}

Value field_value(const Field& field, Bytes row, bool big_endian) {
    Value v;
    const uint32_t first = field.bit_offset / 8;
    const uint32_t shift = field.bit_offset % 8;
    const bool whole = shift == 0 && field.bits == type_bytes(field.type) * 8;
    if (field.padding() || field.bits == 0 || first >= row.size()) return v;
    if (field.type == FieldType::f32 && whole) {
        if (row.size() - first < 4) return v;
        uint32_t u = 0;
        std::memcpy(&u, row.data() + first, 4);
        if (big_endian) u = byteswap_value(u);
        float f = 0;
        std::memcpy(&f, &u, 4);
        v.is_float = true;
        v.f = f;
        return v;
    }
    // Little-endian bytes of the unit that holds the bits; a big-endian whole field is swapped.
    const uint32_t nbytes = (shift + field.bits + 7) / 8;
    if (nbytes > 8 || row.size() - first < nbytes) return v;
    uint64_t raw = 0;
    for (uint32_t i = 0; i < nbytes; ++i) {
        const uint32_t byte = big_endian && whole ? nbytes - 1 - i : i;
        raw |= uint64_t(row[first + byte]) << (8 * i);
    }
    raw >>= shift;
    const uint64_t mask = field.bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << field.bits) - 1;
    raw &= mask;
    if (is_signed(field.type) && field.bits < 64 && (raw >> (field.bits - 1)) & 1) raw |= ~mask;
    v.i = int64_t(raw);
    return v;
}

std::optional<Value> field_value(const Layout& layout, std::string_view name, Bytes row, bool big_endian) {
    const Field* f = layout.find(name);
    if (!f) return std::nullopt;
    return field_value(*f, row, big_endian);
}

std::string value_text(const Value& v) {
    if (!v.is_float) return std::to_string(v.i);
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, float(v.f));
    return std::string(buf, res.ptr);
}

bool npc_row_of_character(Game game, int32_t row_id, uint32_t character) {
    const uint32_t per_character = game == Game::dark_souls_3 ? 100 : 10000;
    return row_id >= 0 && uint32_t(row_id) / per_character == character;
}

std::optional<uint32_t> character_number(std::string_view name) {
    if (name.size() < 5 || lower(name[0]) != 'c') return std::nullopt;
    uint32_t n = 0;
    for (size_t i = 1; i < 5; ++i) {
        if (name[i] < '0' || name[i] > '9') return std::nullopt;
        n = n * 10 + uint32_t(name[i] - '0');
    }
    if (name.size() > 5 && name[5] >= '0' && name[5] <= '9') return std::nullopt;
    return n;
}

Result<std::vector<NpcMasks>> display_masks(const Param& npc_param, const Layout& layout, Game game, uint32_t character) {
    if (auto ok = check_layout(npc_param, layout); !ok) return ok.error();
    const Field* masks[32];
    for (int i = 0; i < 32; ++i) {
        masks[i] = layout.find("modelDispMask" + std::to_string(i));
        if (!masks[i]) return make_error("the layout of " + layout.param_type + " has no modelDispMask" + std::to_string(i), "param.layout");
    }
    std::vector<NpcMasks> out;
    for (const Row& row : npc_param.rows) {
        if (!npc_row_of_character(game, row.id, character)) continue;
        NpcMasks m;
        m.row_id = row.id;
        m.row_name = row.name;
        for (int i = 0; i < 32; ++i)
            if (field_value(*masks[i], row.data, npc_param.big_endian).i != 0) m.masks |= uint32_t(1) << i;
        out.push_back(std::move(m));
    }
    return out;
}

}  // namespace drape::param
