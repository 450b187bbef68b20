// drape: Havok type tables and the generic value view (docs/formats.md#the-type-table,
// #items-and-data).
#include <cmath>
#include <cstring>

#include "drape/havok/hkx.h"

namespace drape::havok {

const char* kind_name(Kind k) {
    switch (k) {
        case Kind::Void: return "void";
        case Kind::Opaque: return "opaque";
        case Kind::Bool: return "bool";
        case Kind::String: return "string";
        case Kind::Int: return "int";
        case Kind::Float: return "float";
        case Kind::Pointer: return "pointer";
        case Kind::Record: return "record";
        case Kind::Array: return "array";
    }
    return "unknown";
}

uint32_t TypeTable::find(std::string_view name) const {
    for (uint32_t i = 1; i < types.size(); ++i)
        if (types[i].name == name) return i;
    return 0;
}

static void full_name_into(const TypeTable& t, uint32_t i, std::string& out, int depth) {
    const Type& ty = t.at(i);
    out += ty.name.empty() ? std::string("?") : ty.name;
    if (ty.params.empty()) return;
    if (depth > 6) {
        out += "<...>";
        return;
    }
    out += '<';
    for (size_t k = 0; k < ty.params.size(); ++k) {
        if (k) out += ", ";
        if (ty.params[k].is_type) {
            if (ty.params[k].value == 0 || ty.params[k].value >= t.types.size())
                out += "void";
            else
                full_name_into(t, uint32_t(ty.params[k].value), out, depth + 1);
        } else {
            out += std::to_string(ty.params[k].value);
        }
    }
    out += '>';
}

std::string TypeTable::full_name(uint32_t i) const {
    std::string s;
    full_name_into(*this, i, s, 0);
    return s;
}

bool TypeTable::derives_from(uint32_t i, std::string_view base) const {
    for (size_t guard = 0; i != 0 && i < types.size() && guard <= types.size(); ++guard) {
        if (types[i].name == base) return true;
        i = types[i].parent;
    }
    return false;
}

Result<void> TypeTable::resolve() {
    const size_t n = types.size();
    if (n == 0) types.emplace_back();
    for (size_t i = 1; i < types.size(); ++i) {
        const Type& t = types[i];
        if (t.parent >= n) return make_error("type " + t.name + ": parent index " + std::to_string(t.parent) + " out of range", "TYPE.TBDY");
        if ((t.opt & k_opt_subtype) && t.subtype >= n)
            return make_error("type " + t.name + ": subtype index " + std::to_string(t.subtype) + " out of range", "TYPE.TBDY");
        for (const Member& m : t.members)
            if (m.type >= n || m.type == 0)
                return make_error("type " + t.name + ", member " + m.name + ": type index " + std::to_string(m.type) + " out of range",
                                  "TYPE.TBDY");
        for (const TemplateParam& p : t.params)
            if (p.is_type && p.value >= n)
                return make_error("type " + t.name + ": template parameter " + p.name + " type index out of range", "TYPE.TNAM");
    }
    // Parent chains: no cycles.
    std::vector<uint8_t> state(types.size(), 0);  // 0 new, 1 visiting, 2 done
    std::vector<uint32_t> order;
    order.reserve(types.size());
    for (uint32_t i = 1; i < types.size(); ++i) {
        std::vector<uint32_t> chain;
        uint32_t c = i;
        while (c != 0 && state[c] == 0) {
            state[c] = 1;
            chain.push_back(c);
            c = types[c].parent;
        }
        if (c != 0 && state[c] == 1) return make_error("type " + types[i].name + ": parent chain loops", "TYPE.TBDY");
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
            state[*it] = 2;
            order.push_back(*it);
        }
    }
    for (uint32_t i : order) {
        Type& t = types[i];
        const Type* p = t.parent ? &types[t.parent] : nullptr;
        t.r_format = (t.opt & k_opt_format) ? t.format : p ? p->r_format : 0;
        t.r_subtype = (t.opt & k_opt_subtype) ? t.subtype : p ? p->r_subtype : 0;
        t.r_version = (t.opt & k_opt_version) ? t.version : p ? p->r_version : 0;
        t.r_size = (t.opt & k_opt_size_align) ? t.size : p ? p->r_size : 0;
        t.r_align = (t.opt & k_opt_size_align) ? t.align : p ? p->r_align : 0;
        t.r_flags = (t.opt & k_opt_flags) ? t.flags : p ? p->r_flags : 0;
        t.all_members.clear();
        if (p) t.all_members = p->all_members;
        t.all_members.insert(t.all_members.end(), t.members.begin(), t.members.end());
    }
    for (uint32_t i = 1; i < types.size(); ++i) {
        const Type& t = types[i];
        for (const Member& m : t.all_members) {
            const uint64_t end = uint64_t(m.offset) + types[m.type].r_size;
            if (end > t.r_size)
                return make_error("type " + t.name + ", member " + m.name + ": offset " + std::to_string(m.offset) + " + size " +
                                      std::to_string(types[m.type].r_size) + " exceeds the record size " + std::to_string(t.r_size),
                                  "TYPE.TBDY");
        }
    }
    return {};
}

// ---- Value -------------------------------------------------------------------------------

Kind Value::kind() const { return m_file ? m_file->types.kind(m_type) : Kind::Void; }
const Type& Value::type_info() const {
    static const Type k_null;
    return m_file ? m_file->types.at(m_type) : k_null;
}
std::string Value::type_name() const { return m_file ? m_file->types.full_name(m_type) : std::string(); }

static const Member* find_member(const Type& t, std::string_view name) {
    for (const Member& m : t.all_members)
        if (m.name == name) return &m;
    return nullptr;
}

bool Value::has(std::string_view member) const { return valid() && kind() == Kind::Record && find_member(type_info(), member); }

Value Value::operator[](std::string_view member) const {
    if (!valid() || kind() != Kind::Record) return {};
    const Member* m = find_member(type_info(), member);
    if (!m) return {};
    return Value(m_file, m->type, m_offset + m->offset);
}

static bool read_raw(const File* f, uint64_t off, size_t n, void* out) {
    if (!f || off > f->data.size() || f->data.size() - off < n) return false;
    std::memcpy(out, f->data.data() + off, n);
    return true;
}

static uint64_t read_uint_n(const File* f, uint64_t off, size_t n, bool big, bool* ok) {
    uint8_t b[8] = {};
    if (n > 8 || !read_raw(f, off, n, b)) {
        if (ok) *ok = false;
        return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= uint64_t(b[big ? n - 1 - i : i]) << (8 * i);
    if (ok) *ok = true;
    return v;
}

int64_t Value::as_int() const {
    if (!valid()) return 0;
    const Type& t = type_info();
    const Kind k = kind();
    if (k == Kind::Float) {
        // A float read as an integer: NaN, infinities and values outside int64's range read as 0
        // (converting them would be undefined behaviour).
        const double f = as_float();
        if (!(f >= -9.2e18 && f <= 9.2e18)) return 0;
        return int64_t(f);
    }
    if (k != Kind::Int && k != Kind::Bool) return 0;
    size_t bits = t.r_format >> 10;
    if (bits == 0 || bits > 64 || bits % 8) bits = size_t(t.r_size) * 8;
    if (bits == 0 || bits > 64) return 0;
    const size_t n = bits / 8;
    bool ok = false;
    uint64_t v = read_uint_n(m_file, m_offset, n, (t.r_format & 0x100) != 0, &ok);
    if (!ok) return 0;
    if ((t.r_format & 0x200) && n < 8) {
        const uint64_t sign = uint64_t(1) << (bits - 1);
        if (v & sign) v |= ~((sign << 1) - 1);
    }
    return int64_t(v);
}

static float half_to_float(uint16_t h) {
    // hkHalf16 stores the top 16 bits of an f32 (format >> 8 == 0x746,
    // docs/formats.md#the-format-word)
    uint32_t bits = uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

double Value::as_float() const {
    if (!valid()) return 0;
    const Type& t = type_info();
    const Kind k = kind();
    if (k == Kind::Int || k == Kind::Bool) return double(as_int());
    if (k != Kind::Float) return 0;
    const uint32_t fmt = t.r_format >> 8;
    if (fmt == 0x345E && t.r_size == 8) {
        uint64_t b = read_uint_n(m_file, m_offset, 8, false, nullptr);
        double d;
        std::memcpy(&d, &b, 8);
        return d;
    }
    if (fmt == 0x746 || t.r_size == 2) return half_to_float(uint16_t(read_uint_n(m_file, m_offset, 2, false, nullptr)));
    if (fmt == 0x345E && t.r_size == 16) {  // hkSimdDouble64: x lane
        uint64_t b = read_uint_n(m_file, m_offset, 8, false, nullptr);
        double d;
        std::memcpy(&d, &b, 8);
        return d;
    }
    uint32_t b = uint32_t(read_uint_n(m_file, m_offset, 4, false, nullptr));
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}

uint32_t Value::pointee_item() const {
    if (!valid() || kind() != Kind::Pointer) return 0;
    if (m_file->form == Form::packfile) {
        auto it = m_file->global_fixups.find(uint32_t(m_offset));
        return it == m_file->global_fixups.end() ? 0 : it->second;
    }
    const uint64_t idx = read_uint_n(m_file, m_offset, m_file->year >= 2018 && type_info().r_size >= 8 ? 8 : 4, false, nullptr);
    return idx < m_file->items.size() ? uint32_t(idx) : 0;
}

Value Value::deref() const { return m_file ? m_file->object(pointee_item()) : Value(); }

std::string Value::as_string() const {
    if (!valid() || kind() != Kind::String) return {};
    const Type& t = type_info();
    if (t.r_format & 0x20) {  // char[N] inline
        size_t n = t.r_size;
        std::string s;
        for (size_t i = 0; i < n && m_offset + i < m_file->data.size(); ++i) {
            char c = char(m_file->data[m_offset + i]);
            if (!c) break;
            s += c;
        }
        return s;
    }
    uint64_t start = 0, limit = 0;
    if (m_file->form == Form::packfile) {
        auto it = m_file->local_fixups.find(uint32_t(m_offset));
        if (it == m_file->local_fixups.end()) return {};
        start = it->second;
        limit = m_file->data.size();
    } else {
        const uint64_t idx = read_uint_n(m_file, m_offset, m_file->year >= 2018 ? 8 : 4, false, nullptr);
        if (idx == 0 || idx >= m_file->items.size()) return {};
        const Item& item = m_file->items[idx];
        start = item.offset;
        limit = item.offset + item.count * std::max<uint32_t>(1, m_file->types.at(item.type).r_size);
        if (limit > m_file->data.size()) limit = m_file->data.size();
    }
    std::string s;
    for (uint64_t i = start; i < limit; ++i) {
        char c = char(m_file->data[i]);
        if (!c) break;
        s += c;
    }
    return s;
}

Value::ArrayRef Value::array_ref() const {
    ArrayRef a;
    if (!valid() || kind() != Kind::Array) return a;
    const Type& t = type_info();
    if (t.r_format & 0x20) {
        a.elem_type = t.r_subtype;
        a.offset = m_offset;
        a.count = t.r_format >> 8;
        const uint32_t es = m_file->types.at(a.elem_type).r_size;
        if (es == 0 || a.count * uint64_t(es) > t.r_size) a.count = es ? t.r_size / es : 0;
        return a;
    }
    if (m_file->form == Form::packfile) {
        auto it = m_file->local_fixups.find(uint32_t(m_offset));
        const int64_t count = int32_t(read_uint_n(m_file, m_offset + 8, 4, false, nullptr));
        if (it == m_file->local_fixups.end() || count <= 0) return a;
        a.elem_type = t.r_subtype;
        a.offset = it->second;
        a.count = uint64_t(count);
    } else {
        const uint64_t idx = read_uint_n(m_file, m_offset, (m_file->year >= 2018 && t.r_size >= 8) ? 8 : 4, false, nullptr);
        if (idx == 0 || idx >= m_file->items.size()) return a;
        const Item& item = m_file->items[idx];
        a.elem_type = item.type ? item.type : t.r_subtype;
        a.offset = item.offset;
        a.count = item.count;
    }
    const uint64_t es = m_file->types.at(a.elem_type).r_size;
    if (a.elem_type == 0 || es == 0 || a.offset > m_file->data.size() || a.count > (m_file->data.size() - a.offset) / es) a = {};
    return a;
}

uint64_t Value::size() const { return array_ref().count; }

Value Value::at(uint64_t i) const {
    ArrayRef a = array_ref();
    if (i >= a.count) return {};
    return Value(m_file, a.elem_type, a.offset + i * m_file->types.at(a.elem_type).r_size);
}

static void collect_floats(const Value& v, std::vector<float>& out, int depth) {
    if (!v.valid() || depth > 8 || out.size() > 4096) return;
    switch (v.kind()) {
        case Kind::Float: out.push_back(float(v.as_float())); break;
        case Kind::Array: {
            const uint64_t n = v.size();
            for (uint64_t i = 0; i < n && i < 256; ++i) collect_floats(v.at(i), out, depth + 1);
            break;
        }
        case Kind::Record:
            for (const Member& m : v.type_info().all_members) collect_floats(v[m.name], out, depth + 1);
            break;
        default: break;
    }
}

std::vector<float> Value::floats() const {
    std::vector<float> out;
    collect_floats(*this, out, 0);
    return out;
}

Bytes Value::bytes() const {
    if (!valid()) return {};
    uint64_t n = type_info().r_size;
    if (m_offset > m_file->data.size()) return {};
    n = std::min<uint64_t>(n, m_file->data.size() - m_offset);
    return {m_file->data.data() + m_offset, size_t(n)};
}

// ---- File --------------------------------------------------------------------------------

std::vector<uint32_t> File::objects() const {
    std::vector<uint32_t> out;
    for (uint32_t i = 1; i < items.size(); ++i)
        if (items[i].is_pointer && items[i].type != 0) out.push_back(i);
    return out;
}

Value File::object(uint32_t item) const {
    if (item == 0 || item >= items.size() || items[item].type == 0) return {};
    return Value(this, items[item].type, items[item].offset);
}

const std::string& File::class_name(uint32_t item) const {
    static const std::string k_empty;
    if (item >= items.size()) return k_empty;
    return types.at(items[item].type).name;
}

std::vector<uint32_t> File::objects_of(std::string_view name) const {
    std::vector<uint32_t> out;
    for (uint32_t i : objects())
        if (types.derives_from(items[i].type, name)) out.push_back(i);
    return out;
}

std::optional<uint32_t> File::first_of(std::string_view name) const {
    auto v = objects_of(name);
    if (v.empty()) return std::nullopt;
    return v.front();
}

Result<void> CompendiumSet::add(Bytes data) {
    auto c = read_compendium(data);
    if (!c) return c.error();
    compendiums.push_back(std::move(*c));
    return {};
}

Result<void> CompendiumSet::add_siblings(const std::vector<Bytes>& siblings) {
    for (Bytes b : siblings)
        if (is_compendium(b)) {
            auto r = add(b);
            if (!r) return r;
        }
    return {};
}

const Compendium* CompendiumSet::find(uint64_t id) const {
    for (const Compendium& c : compendiums)
        for (uint64_t i : c.ids)
            if (i == id) return &c;
    return nullptr;
}

}  // namespace drape::havok
