#include "tagfile_writer.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

namespace drape::test {

using havok::Kind;
using havok::Member;
using havok::TemplateParam;
using havok::Type;
using havok::TypeTable;

// ---- registry XML ------------------------------------------------------------------------

namespace {

struct Tag {
    std::string name;
    bool closing = false, self_closing = false;
    std::map<std::string, std::string> attrs;
};

// A minimal reader for the registry's XML: elements with attributes, no text content used.
bool next_tag(const std::string& s, size_t& pos, Tag& tag) {
    while (true) {
        pos = s.find('<', pos);
        if (pos == std::string::npos) return false;
        if (s.compare(pos, 2, "<?") == 0 || s.compare(pos, 4, "<!--") == 0) {
            pos = s.find('>', pos);
            if (pos == std::string::npos) return false;
            continue;
        }
        break;
    }
    const size_t end = s.find('>', pos);
    if (end == std::string::npos) return false;
    std::string body = s.substr(pos + 1, end - pos - 1);
    pos = end + 1;
    tag = Tag{};
    if (!body.empty() && body[0] == '/') {
        tag.closing = true;
        body.erase(0, 1);
    }
    if (!body.empty() && body.back() == '/') {
        tag.self_closing = true;
        body.pop_back();
    }
    size_t i = 0;
    while (i < body.size() && !isspace(uint8_t(body[i]))) tag.name += body[i++];
    while (i < body.size()) {
        while (i < body.size() && isspace(uint8_t(body[i]))) ++i;
        const size_t eq = body.find('=', i);
        if (eq == std::string::npos) break;
        std::string key = body.substr(i, eq - i);
        const size_t q1 = body.find('"', eq);
        const size_t q2 = body.find('"', q1 + 1);
        if (q1 == std::string::npos || q2 == std::string::npos) break;
        std::string val = body.substr(q1 + 1, q2 - q1 - 1);
        // the registry escapes only these
        for (auto [from, to] : {std::pair<const char*, const char*>{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&amp;", "&"}}) {
            size_t k = 0;
            while ((k = val.find(from, k)) != std::string::npos) {
                val.replace(k, std::strlen(from), to);
                k += std::strlen(to);
            }
        }
        tag.attrs[key] = val;
        i = q2 + 1;
    }
    return true;
}

uint64_t num(const Tag& t, const char* k) {
    auto it = t.attrs.find(k);
    return it == t.attrs.end() ? 0 : std::stoull(it->second);
}

}  // namespace

Result<TypeTable> load_registry_xml(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return make_error("cannot open " + path.string());
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string s = ss.str();
    TypeTable t;
    t.types.emplace_back();
    size_t pos = 0;
    Tag tag;
    Type* cur = nullptr;
    while (next_tag(s, pos, tag)) {
        if (tag.closing) {
            if (tag.name == "HavokType") cur = nullptr;
            continue;
        }
        if (tag.name == "HavokType") {
            const uint64_t id = num(tag, "Id");
            if (id == 0 || id > 100000) return make_error("bad type id");
            if (t.types.size() <= id) t.types.resize(id + 1);
            Type& ty = t.types[id];
            ty.name = tag.attrs["Name"];
            ty.parent = uint32_t(num(tag, "Parent"));
            ty.format = uint32_t(num(tag, "Format"));
            ty.subtype = uint32_t(num(tag, "SubType"));
            ty.size = uint32_t(num(tag, "Size"));
            ty.align = uint32_t(num(tag, "Alignment"));
            ty.flags = uint32_t(num(tag, "Flags"));
            ty.version = uint32_t(num(tag, "Version"));
            if (tag.attrs.count("Hash")) {
                ty.hash = uint32_t(num(tag, "Hash"));
                ty.has_hash = true;
            }
            ty.has_body = true;
            // SubType 0 in the registry means "as the parent's" (hkTransform = hkTransformf[16 floats])
            ty.opt = havok::k_opt_format | havok::k_opt_version | havok::k_opt_size_align | havok::k_opt_flags;
            if (ty.subtype) ty.opt |= havok::k_opt_subtype;
            cur = tag.self_closing ? nullptr : &ty;
        } else if (cur && tag.name == "Parameter") {
            TemplateParam p;
            p.name = tag.attrs["Name"];
            p.is_type = tag.attrs["Kind"] == "Type";
            p.value = num(tag, "Value");
            cur->params.push_back(std::move(p));
        } else if (cur && tag.name == "Member") {
            Member m;
            m.name = tag.attrs["Name"];
            m.type = uint32_t(num(tag, "Type"));
            m.offset = uint32_t(num(tag, "Offset"));
            m.flags = uint32_t(num(tag, "Flags"));
            cur->members.push_back(std::move(m));
            cur->opt |= havok::k_opt_members;
        } else if (cur && tag.name == "Interface") {
            cur->interfaces.emplace_back(uint32_t(num(tag, "Type")), uint32_t(num(tag, "Offset")));
            cur->opt |= havok::k_opt_interfaces;
        }
    }
    auto r = t.resolve();
    if (!r) return r.error();
    return t;
}

TypeTable closure(const TypeTable& full, const std::vector<std::string>& roots) {
    std::vector<uint32_t> order;
    std::vector<uint32_t> map(full.types.size(), 0);
    std::deque<uint32_t> todo;
    auto push = [&](uint32_t i) {
        if (i == 0 || i >= full.types.size() || map[i]) return;
        map[i] = uint32_t(order.size() + 1);
        order.push_back(i);
        todo.push_back(i);
    };
    for (const auto& r : roots) push(full.find(r));
    while (!todo.empty()) {
        const uint32_t i = todo.front();
        todo.pop_front();
        const Type& t = full.types[i];
        push(t.parent);
        push(t.subtype);
        for (const auto& p : t.params)
            if (p.is_type) push(uint32_t(p.value));
        for (const auto& m : t.members) push(m.type);
        for (const auto& f : t.interfaces) push(f.first);
    }
    TypeTable out;
    out.types.emplace_back();
    for (uint32_t i : order) {
        Type t = full.types[i];
        t.parent = map[t.parent];
        t.subtype = map[t.subtype];
        for (auto& p : t.params)
            if (p.is_type) p.value = map[p.value];
        for (auto& m : t.members) m.type = map[m.type];
        for (auto& f : t.interfaces) f.first = map[f.first];
        out.types.push_back(std::move(t));
    }
    (void)out.resolve();
    return out;
}

void relayout_16_byte_referenced_object(TypeTable& t) {
    const uint32_t ro = t.find("hkReferencedObject");
    if (!ro) return;
    {
        Type& r = t.types[ro];
        std::vector<Member> ms;
        for (Member m : r.members) {
            if (m.name == "propertyBag") continue;
            if (m.name == "memSizeAndFlags") m.offset = 8;
            if (m.name == "refCount") m.offset = 10;
            ms.push_back(m);
        }
        r.members = ms;
        r.size = 16;
    }
    (void)t.resolve();
    // parent-first order over the records below hkReferencedObject
    std::vector<uint32_t> order;
    std::vector<uint8_t> done(t.types.size(), 0);
    std::function<void(uint32_t)> visit = [&](uint32_t i) {
        if (done[i]) return;
        done[i] = 1;
        if (t.types[i].parent) visit(t.types[i].parent);
        order.push_back(i);
    };
    for (uint32_t i = 1; i < t.types.size(); ++i) visit(i);
    for (uint32_t i : order) {
        if (i == ro || !t.derives_from(i, "hkReferencedObject")) continue;
        Type& ty = t.types[i];
        const Type& p = t.types[ty.parent];
        uint32_t off = p.size, align = std::max<uint32_t>(ty.align, 1);
        std::sort(ty.members.begin(), ty.members.end(), [](const Member& a, const Member& b) { return a.offset < b.offset; });
        for (Member& m : ty.members) {
            const Type& mt = t.types[m.type];
            const uint32_t a = std::max<uint32_t>(mt.r_align, 1);
            off = (off + a - 1) / a * a;
            m.offset = off;
            off += mt.r_size;
        }
        ty.size = (off + align - 1) / align * align;
        (void)t.resolve();
    }
}

// ---- writer ------------------------------------------------------------------------------

TagfileWriter::TagfileWriter(TagfileFlavour flavour, TypeTable types) : m_flavour(flavour), m_types(std::move(types)) {
    m_items.emplace_back();  // null item
}

uint32_t TagfileWriter::type(std::string_view name) const { return m_types.find(name); }

uint64_t TagfileWriter::allocate(uint64_t size, uint64_t align) {
    align = std::max<uint64_t>(align, 16);
    uint64_t off = (m_data.size() + align - 1) / align * align;
    m_data.resize(off + std::max<uint64_t>(size, 1), 0);
    return off;
}

uint32_t TagfileWriter::add_item(uint32_t type, bool pointer, uint64_t offset, uint64_t count) {
    havok::Item it;
    it.type = type;
    it.is_pointer = pointer;
    it.offset = offset;
    it.count = count;
    m_items.push_back(it);
    return uint32_t(m_items.size() - 1);
}

uint32_t TagfileWriter::add_object(uint32_t ti) {
    const Type& t = m_types.at(ti);
    const uint64_t off = allocate(t.r_size, t.r_align);
    return add_item(ti, true, off, 1);
}

TagfileWriter::Slot TagfileWriter::object(uint32_t item) { return Slot{this, m_items[item].type, m_items[item].offset}; }

Kind TagfileWriter::Slot::kind() const { return w ? w->m_types.kind(type) : Kind::Void; }

TagfileWriter::Slot TagfileWriter::Slot::operator[](std::string_view member) const {
    if (!valid()) return {};
    for (const Member& m : w->m_types.at(type).all_members)
        if (m.name == member) return Slot{w, m.type, offset + m.offset};
    return {};
}

static void put(std::vector<uint8_t>& d, uint64_t off, const void* src, size_t n) {
    if (off + n <= d.size()) std::memcpy(d.data() + off, src, n);
}

void TagfileWriter::Slot::set_int(int64_t v) const {
    if (!valid()) return;
    const Type& t = w->m_types.at(type);
    size_t n = t.r_format >> 10;
    n = (n >= 8 && n <= 64) ? n / 8 : t.r_size;
    const uint64_t u = uint64_t(v);
    uint8_t b[8];
    for (size_t i = 0; i < 8; ++i) b[i] = uint8_t(u >> (8 * i));
    put(w->m_data, offset, b, std::min<size_t>(n, 8));
}

void TagfileWriter::Slot::set_float(double v) const {
    if (!valid()) return;
    const Type& t = w->m_types.at(type);
    if (t.r_size == 2) {  // hkHalf16: top half of an f32
        const float f = float(v);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        const uint16_t h = uint16_t(bits >> 16);
        put(w->m_data, offset, &h, 2);
    } else if ((t.r_format >> 8) == 0x345E) {
        put(w->m_data, offset, &v, 8);
    } else {
        const float f = float(v);
        put(w->m_data, offset, &f, 4);
    }
}

void TagfileWriter::Slot::set_pointer(uint32_t item) const {
    if (!valid()) return;
    const uint64_t v = item;
    put(w->m_data, offset, &v, w->m_flavour == TagfileFlavour::v2018 ? 8 : 4);
}

void TagfileWriter::Slot::set_string(std::string_view s) const {
    if (!valid()) return;
    const Type& t = w->m_types.at(type);
    if (t.r_format & 0x20) {
        std::vector<uint8_t> b(t.r_size, 0);
        std::memcpy(b.data(), s.data(), std::min<size_t>(s.size(), b.size() ? b.size() - 1 : 0));
        put(w->m_data, offset, b.data(), b.size());
        return;
    }
    const uint32_t ch = w->m_types.find("char");
    const uint64_t off = w->allocate(s.size() + 1, 1);
    std::memcpy(w->m_data.data() + off, s.data(), s.size());
    const uint32_t item = w->add_item(ch, false, off, s.size() + 1);
    set_pointer(item);
}

uint64_t TagfileWriter::Slot::resize(uint64_t count) const {
    if (!valid() || kind() != Kind::Array) return 0;
    const Type& t = w->m_types.at(type);
    if (t.r_format & 0x20) return t.r_format >> 8;
    const uint32_t elem = t.r_subtype;
    const Type& et = w->m_types.at(elem);
    const uint64_t off = w->allocate(et.r_size * count, et.r_align);
    const uint32_t item = w->add_item(elem, false, off, count);
    const uint64_t v = item;
    put(w->m_data, offset, &v, (w->m_flavour == TagfileFlavour::v2018 && t.r_size >= 8) ? 8 : 4);
    return count;
}

TagfileWriter::Slot TagfileWriter::Slot::at(uint64_t i) const {
    if (!valid() || kind() != Kind::Array) return {};
    const Type& t = w->m_types.at(type);
    if (t.r_format & 0x20) {
        const uint32_t elem = t.r_subtype;
        return Slot{w, elem, offset + i * w->m_types.at(elem).r_size};
    }
    uint64_t idx = 0;
    std::memcpy(&idx, w->m_data.data() + offset, (w->m_flavour == TagfileFlavour::v2018 && t.r_size >= 8) ? 8 : 4);
    if (idx == 0 || idx >= w->m_items.size() || i >= w->m_items[idx].count) return {};
    const havok::Item& it = w->m_items[idx];
    return Slot{w, it.type, it.offset + i * w->m_types.at(it.type).r_size};
}

namespace {

void section(std::vector<uint8_t>& out, const char* tag, const std::vector<uint8_t>& body, bool children) {
    std::vector<uint8_t> b = body;
    while (b.size() % 4) b.push_back(0);
    const uint32_t size = uint32_t(b.size() + 8) | (children ? 0u : 0x40000000u);
    for (int i = 3; i >= 0; --i) out.push_back(uint8_t(size >> (8 * i)));
    out.insert(out.end(), tag, tag + 4);
    out.insert(out.end(), b.begin(), b.end());
}

void u32le(std::vector<uint8_t>& o, uint32_t v) {
    for (int i = 0; i < 4; ++i) o.push_back(uint8_t(v >> (8 * i)));
}

}  // namespace

std::vector<uint8_t> TagfileWriter::finish() const {
    const bool v18 = m_flavour != TagfileFlavour::v2016;  // 2018-style sections
    std::vector<std::string> tstr, fstr;
    std::map<std::string, uint64_t> tidx, fidx;
    auto ts = [&](const std::string& s) {
        auto [it, ins] = tidx.emplace(s, tstr.size());
        if (ins) tstr.push_back(s);
        return it->second;
    };
    auto fs = [&](const std::string& s) {
        auto [it, ins] = fidx.emplace(s, fstr.size());
        if (ins) fstr.push_back(s);
        return it->second;
    };
    const size_t n = m_types.types.size();
    std::vector<uint8_t> tnam, tbod, thsh;
    havok::write_varint(tnam, n);
    for (size_t i = 1; i < n; ++i) {
        const Type& t = m_types.types[i];
        havok::write_varint(tnam, ts(t.name));
        havok::write_varint(tnam, t.params.size());
        for (const auto& p : t.params) {
            havok::write_varint(tnam, ts(std::string(p.is_type ? "t" : "v") + p.name));
            havok::write_varint(tnam, p.value);
        }
    }
    size_t hashes = 0;
    for (size_t i = 1; i < n; ++i) {
        const Type& t = m_types.types[i];
        if (t.has_hash) ++hashes;
        if (!t.has_body) continue;
        uint32_t opt = havok::k_opt_format | havok::k_opt_version | havok::k_opt_size_align | havok::k_opt_flags;
        if (t.parent || t.r_subtype) opt |= havok::k_opt_subtype;
        std::vector<const Member*> fields;
        size_t props = 0;
        for (const auto& m : t.members) {
            if (m.flags & 16) ++props;
            else fields.push_back(&m);
        }
        if (!t.members.empty() || (t.opt & havok::k_opt_members)) opt |= havok::k_opt_members;
        if (!t.interfaces.empty()) opt |= havok::k_opt_interfaces;
        havok::write_varint(tbod, i);
        havok::write_varint(tbod, t.parent);
        havok::write_varint(tbod, opt);
        havok::write_varint(tbod, t.r_format);
        if (opt & havok::k_opt_subtype) havok::write_varint(tbod, t.r_subtype);
        havok::write_varint(tbod, t.r_version);
        havok::write_varint(tbod, t.r_size);
        havok::write_varint(tbod, t.r_align);
        havok::write_varint(tbod, t.r_flags);
        if (opt & havok::k_opt_members) {
            havok::write_varint(tbod, v18 ? (fields.size() | (props << 16)) : fields.size());
            for (const Member* m : fields) {
                havok::write_varint(tbod, fs(m->name));
                havok::write_varint(tbod, m->flags);
                havok::write_varint(tbod, m->offset);
                havok::write_varint(tbod, m->type);
            }
        }
        if (opt & havok::k_opt_interfaces) {
            havok::write_varint(tbod, t.interfaces.size());
            for (const auto& f : t.interfaces) {
                havok::write_varint(tbod, f.first);
                havok::write_varint(tbod, f.second);
            }
        }
    }
    if (v18) havok::write_varint(tbod, 0);
    havok::write_varint(thsh, hashes);
    for (size_t i = 1; i < n; ++i)
        if (m_types.types[i].has_hash) {
            havok::write_varint(thsh, i);
            u32le(thsh, m_types.types[i].hash);
        }
    auto join = [](const std::vector<std::string>& v) {
        std::vector<uint8_t> o;
        for (const auto& s : v) {
            o.insert(o.end(), s.begin(), s.end());
            o.push_back(0);
        }
        return o;
    };
    std::vector<uint8_t> type_body;
    section(type_body, "TPTR", std::vector<uint8_t>(8 * n, 0), false);
    section(type_body, "TSTR", join(tstr), false);
    section(type_body, v18 ? "TNA1" : "TNAM", tnam, false);
    section(type_body, "FSTR", join(fstr), false);
    section(type_body, v18 ? "TBDY" : "TBOD", tbod, false);
    section(type_body, "THSH", thsh, false);
    section(type_body, "TPAD", std::vector<uint8_t>(8, 0), false);
    std::vector<uint8_t> item;
    for (const auto& it : m_items) {
        u32le(item, it.type ? (it.type | (it.is_pointer ? 0x10000000u : 0x20000000u)) : 0);
        u32le(item, uint32_t(it.offset));
        u32le(item, uint32_t(it.count));
    }
    std::vector<uint8_t> indx;
    section(indx, "ITEM", item, false);
    std::vector<uint8_t> root;
    const std::string sdk = m_flavour == TagfileFlavour::v2018 ? "20180100" : "20160200";
    section(root, "SDKV", std::vector<uint8_t>(sdk.begin(), sdk.end()), false);
    std::vector<uint8_t> data = m_data;
    while (data.size() % 16) data.push_back(0);
    section(root, "DATA", data, false);
    section(root, "TYPE", type_body, true);
    section(root, "INDX", indx, true);
    std::vector<uint8_t> out;
    section(out, "TAG0", root, true);
    return out;
}

}  // namespace drape::test
