// drape: TAG0 tagfiles and TCM0 compendiums (docs/formats.md#havok-tagfiles). SDK 2015, 2016
// (Sekiro) and 2018 (Elden Ring); 2019 and later are refused.
#include <cstring>

#include "drape/havok/hkx.h"

namespace drape::havok {

bool read_varint(ByteReader& r, uint64_t& out, const char* field) {
    out = 0;
    uint8_t b0 = 0;
    if (!r.read(b0, field)) return false;
    size_t extra = 0;
    uint64_t v = 0;
    if (b0 < 0x80) {
        out = b0;
        return true;
    } else if ((b0 & 0xC0) == 0x80) {
        extra = 1, v = b0 & 0x3F;
    } else if ((b0 & 0xE0) == 0xC0) {
        extra = 2, v = b0 & 0x1F;
    } else if ((b0 & 0xF8) == 0xE0) {
        extra = 3, v = b0 & 0x07;
    } else if ((b0 & 0xF8) == 0xE8) {
        extra = 4, v = b0 & 0x07;
    } else if ((b0 & 0xF8) == 0xF0) {
        extra = 7, v = b0 & 0x07;
    } else if (b0 == 0xF8) {
        extra = 5;
    } else if (b0 == 0xF9) {
        extra = 8;
    } else {
        return r.fail_at(r.pos() - 1, field, "bad varint prefix " + hex(b0));
    }
    for (size_t i = 0; i < extra; ++i) {
        uint8_t b = 0;
        if (!r.read(b, field)) return false;
        v = (v << 8) | b;
    }
    out = v;
    return true;
}

void write_varint(std::vector<uint8_t>& out, uint64_t v) {
    auto be = [&](uint64_t x, size_t n) {
        for (size_t i = n; i-- > 0;) out.push_back(uint8_t(x >> (8 * i)));
    };
    if (v < (1ull << 7)) {
        out.push_back(uint8_t(v));
    } else if (v < (1ull << 14)) {
        be(v | 0x8000ull, 2);
    } else if (v < (1ull << 21)) {
        be(v | 0xC00000ull, 3);
    } else if (v < (1ull << 27)) {
        be(v | 0xE0000000ull, 4);
    } else if (v < (1ull << 35)) {
        be(v | 0xE800000000ull, 5);
    } else if (v < (1ull << 40)) {
        out.push_back(0xF8);
        be(v, 5);
    } else if (v < (1ull << 59)) {
        be(v | 0xF000000000000000ull, 8);
    } else {
        out.push_back(0xF9);
        be(v, 8);
    }
}

namespace {

struct Section {
    char tag[5] = {};
    bool has_children = false;
    ByteReader body;  // the bytes after the 8-byte header
};

// Reads the sections directly inside `r` (from its current position to its end).
bool read_sections(ByteReader& r, std::vector<Section>& out, const char* field) {
    while (r.remaining() > 0 && !r.failed()) {
        const size_t start = r.pos();
        ByteReader hdr = r.slice(start, 8, field);
        if (hdr.failed()) return false;
        hdr.set_big_endian(true);
        const uint32_t word = hdr.u32(field);
        Section s;
        hdr.read_bytes(s.tag, 4, field);
        const uint32_t size = word & 0x3FFFFFFF;
        const uint32_t flags = word >> 30;
        if (size < 8) return r.fail_at(start, field, "section " + escape_bytes(std::string_view(s.tag, 4)) + " size " + std::to_string(size) + " below 8");
        if (size > r.remaining())
            return r.fail_at(start, field, "section " + escape_bytes(std::string_view(s.tag, 4)) + " size " + std::to_string(size) + " exceeds " +
                                               std::to_string(r.remaining()) + " B left");
        s.has_children = flags == 0;
        s.body = r.slice(start + 8, size - 8, field);
        out.push_back(std::move(s));
        r.skip(size, field);
    }
    return !r.failed();
}

bool tag_is(const Section& s, const char* a) { return std::memcmp(s.tag, a, 4) == 0; }

Error err_of(const ByteReader& r) { return r.error(); }

bool read_strings(ByteReader r, std::vector<std::string>& out) {
    const Bytes b = r.bytes();
    size_t start = 0;
    for (size_t i = 0; i < b.size(); ++i) {
        if (b[i] == 0) {
            out.emplace_back(reinterpret_cast<const char*>(b.data()) + start, i - start);
            start = i + 1;
        }
    }
    return true;
}

// TNAM: the type names and their template parameters; sizes `types`.
Result<void> read_type_names(ByteReader r, const std::vector<std::string>& tstr, TypeTable& types) {
    uint64_t count = 0;
    if (!read_varint(r, count, "TNAM.count")) return err_of(r);
    if (count == 0) return make_error_at(r.base(), "TNAM.count", "0 types (the null type is always counted)");
    if (!r.check_count(count - 1, 2, "TNAM.count")) return err_of(r);
    types.types.assign(count, Type{});
    for (uint64_t i = 1; i < count; ++i) {
        uint64_t name = 0, tcount = 0;
        if (!read_varint(r, name, "TNAM.name") || !read_varint(r, tcount, "TNAM.template_count")) return err_of(r);
        if (name >= tstr.size())
            return make_error_at(r.abs_pos(), "TNAM.name", "string index " + std::to_string(name) + " >= " + std::to_string(tstr.size()));
        if (!r.check_count(tcount, 2, "TNAM.template_count")) return err_of(r);
        Type& t = types.types[i];
        t.name = tstr[name];
        for (uint64_t k = 0; k < tcount; ++k) {
            uint64_t pn = 0, pv = 0;
            if (!read_varint(r, pn, "TNAM.param_name") || !read_varint(r, pv, "TNAM.param_value")) return err_of(r);
            if (pn >= tstr.size() || tstr[pn].empty())
                return make_error_at(r.abs_pos(), "TNAM.param_name", "string index " + std::to_string(pn) + " out of range");
            TemplateParam p;
            const char k0 = tstr[pn][0];
            if (k0 != 't' && k0 != 'v')
                return make_error_at(r.abs_pos(), "TNAM.param_name", "parameter '" + tstr[pn] + "' is neither 't' nor 'v'");
            p.is_type = k0 == 't';
            p.name = tstr[pn].substr(1);
            p.value = pv;
            if (p.is_type && pv >= count)
                return make_error_at(r.abs_pos(), "TNAM.param_value", "type index " + std::to_string(pv) + " >= " + std::to_string(count));
            t.params.push_back(std::move(p));
        }
    }
    return {};
}

// THSH: the type hashes.
Result<void> read_type_hashes(ByteReader r, TypeTable& types) {
    const uint64_t count = types.types.size();
    uint64_t n = 0;
    if (!read_varint(r, n, "THSH.count")) return err_of(r);
    if (!r.check_count(n, 5, "THSH.count")) return err_of(r);
    for (uint64_t k = 0; k < n; ++k) {
        uint64_t idx = 0;
        if (!read_varint(r, idx, "THSH.type")) return err_of(r);
        const uint32_t h = r.u32("THSH.hash");
        if (r.failed()) return err_of(r);
        if (idx == 0 || idx >= count) return make_error_at(r.abs_pos(), "THSH.type", "type index " + std::to_string(idx) + " out of range");
        types.types[idx].hash = h;
        types.types[idx].has_hash = true;
    }
    return {};
}

// TYPE section (§3.1-3.5): fills `types` (unresolved).
Result<void> read_type_section(ByteReader type_sec, TypeTable& types) {
    std::vector<Section> subs;
    if (!read_sections(type_sec, subs, "TYPE")) return err_of(type_sec);
    std::vector<std::string> tstr, fstr;
    const Section *tnam = nullptr, *tbod = nullptr, *thsh = nullptr;
    bool tbdy_style = false, tna1_style = false;
    for (const Section& s : subs) {
        if (tag_is(s, "TSTR") || tag_is(s, "TST1"))
            read_strings(s.body, tstr);
        else if (tag_is(s, "FSTR") || tag_is(s, "FST1"))
            read_strings(s.body, fstr);
        else if (tag_is(s, "TNAM") || tag_is(s, "TNA1")) {
            tnam = &s;
            tna1_style = tag_is(s, "TNA1");
        } else if (tag_is(s, "TBOD") || tag_is(s, "TBDY")) {
            tbod = &s;
            tbdy_style = tag_is(s, "TBDY");
        } else if (tag_is(s, "THSH"))
            thsh = &s;
    }
    (void)tna1_style;
    if (!tnam) return make_error_at(type_sec.base(), "TYPE", "no TNAM/TNA1 section");
    if (auto tn = read_type_names(tnam->body, tstr, types); !tn) return tn.error();
    const uint64_t count = types.types.size();
    if (tbod) {
        ByteReader r = tbod->body;
        while (r.remaining() > 0) {
            uint64_t idx = 0;
            if (!read_varint(r, idx, "TBDY.type")) return err_of(r);
            if (idx == 0) {
                if (tbdy_style) break;
                continue;
            }
            if (idx >= count)
                return make_error_at(r.abs_pos(), "TBDY.type", "type index " + std::to_string(idx) + " >= " + std::to_string(count));
            Type& t = types.types[idx];
            uint64_t parent = 0, opt = 0;
            if (!read_varint(r, parent, "TBDY.parent") || !read_varint(r, opt, "TBDY.opt")) return err_of(r);
            if (parent >= count) return make_error_at(r.abs_pos(), "TBDY.parent", "type index " + std::to_string(parent) + " out of range");
            t.parent = uint32_t(parent);
            t.opt = uint32_t(opt);
            t.has_body = true;
            uint64_t v = 0;
            if (opt & k_opt_format) {
                if (!read_varint(r, v, "TBDY.format")) return err_of(r);
                t.format = uint32_t(v);
            }
            if (opt & k_opt_subtype) {
                if (!read_varint(r, v, "TBDY.subtype")) return err_of(r);
                if (v >= count) return make_error_at(r.abs_pos(), "TBDY.subtype", "type index " + std::to_string(v) + " out of range");
                t.subtype = uint32_t(v);
            }
            if (opt & k_opt_version) {
                if (!read_varint(r, v, "TBDY.version")) return err_of(r);
                t.version = uint32_t(v);
            }
            if (opt & k_opt_size_align) {
                uint64_t a = 0;
                if (!read_varint(r, v, "TBDY.size") || !read_varint(r, a, "TBDY.align")) return err_of(r);
                if (v > 0x7FFFFFFF || a > 0x10000) return make_error_at(r.abs_pos(), "TBDY.size", "size " + std::to_string(v) + " too large");
                t.size = uint32_t(v);
                t.align = uint32_t(a);
            }
            if (opt & k_opt_flags) {
                if (!read_varint(r, v, "TBDY.flags")) return err_of(r);
                t.flags = uint32_t(v);
            }
            if (opt & k_opt_members) {
                uint64_t mc = 0;
                if (!read_varint(r, mc, "TBDY.member_count")) return err_of(r);
                if (tbdy_style) mc &= 0xFFFF;  // fields | properties << 16; only fields follow
                if (!r.check_count(mc, 4, "TBDY.member_count")) return err_of(r);
                t.members.resize(mc);
                for (Member& m : t.members) {
                    uint64_t name = 0, fl = 0, off = 0, ty = 0;
                    if (!read_varint(r, name, "TBDY.member.name") || !read_varint(r, fl, "TBDY.member.flags") ||
                        !read_varint(r, off, "TBDY.member.offset") || !read_varint(r, ty, "TBDY.member.type"))
                        return err_of(r);
                    if (name >= fstr.size())
                        return make_error_at(r.abs_pos(), "TBDY.member.name", "string index " + std::to_string(name) + " >= " + std::to_string(fstr.size()));
                    if (ty >= count) return make_error_at(r.abs_pos(), "TBDY.member.type", "type index " + std::to_string(ty) + " out of range");
                    if (off > 0x7FFFFFFF) return make_error_at(r.abs_pos(), "TBDY.member.offset", "offset too large");
                    m.name = fstr[name];
                    m.flags = uint32_t(fl);
                    m.offset = uint32_t(off);
                    m.type = uint32_t(ty);
                }
            }
            if (opt & k_opt_interfaces) {
                uint64_t ic = 0;
                if (!read_varint(r, ic, "TBDY.interface_count")) return err_of(r);
                if (!r.check_count(ic, 2, "TBDY.interface_count")) return err_of(r);
                for (uint64_t k = 0; k < ic; ++k) {
                    uint64_t a = 0, b = 0;
                    if (!read_varint(r, a, "TBDY.interface.type") || !read_varint(r, b, "TBDY.interface.offset")) return err_of(r);
                    if (a >= count) return make_error_at(r.abs_pos(), "TBDY.interface.type", "type index out of range");
                    t.interfaces.emplace_back(uint32_t(a), uint32_t(b));
                }
            }
            if (opt & 0x80) return make_error_at(r.abs_pos(), "TBDY.opt", "attributes (opt 0x80) are not supported");
        }
    }
    if (thsh) return read_type_hashes(thsh->body, types);
    return {};
}

Result<int> sdk_year(const std::string& sdk, uint64_t at) {
    if (sdk.size() == 8 && sdk.compare(0, 4, "2015") == 0) return 2015;
    if (sdk.size() == 8 && sdk.compare(0, 4, "2016") == 0) return 2016;
    if (sdk.size() == 8 && sdk.compare(0, 4, "2018") == 0) return 2018;
    return make_error_at(at, "SDKV", "unsupported Havok SDK '" + escape_bytes(sdk) + "' (drape reads 2015, 2016 and 2018 tagfiles)");
}

}  // namespace

bool is_tagfile(Bytes d) { return d.size() >= 8 && std::memcmp(d.data() + 4, "TAG0", 4) == 0; }
bool is_compendium(Bytes d) { return d.size() >= 8 && std::memcmp(d.data() + 4, "TCM0", 4) == 0; }

static Result<std::vector<Section>> root_sections(Bytes data, const char* magic) {
    ByteReader r(data);
    std::vector<Section> top;
    if (!read_sections(r, top, magic)) return r.error();
    if (top.empty() || !tag_is(top[0], magic) || !top[0].has_children)
        return make_error_at(0, magic, std::string("not a ") + magic + " file");
    std::vector<Section> subs;
    ByteReader body = top[0].body;
    if (!read_sections(body, subs, magic)) return body.error();
    return subs;
}

std::optional<uint64_t> tagfile_compendium_id(Bytes data) {
    auto subs = root_sections(data, "TAG0");
    if (!subs) return std::nullopt;
    for (Section& s : *subs)
        if (tag_is(s, "TCRF")) {
            uint64_t id = s.body.u64("TCRF.id");
            if (!s.body.failed()) return id;
        }
    return std::nullopt;
}

Result<Compendium> read_compendium(Bytes data) {
    auto subs = root_sections(data, "TCM0");
    if (!subs) return subs.error();
    Compendium c;
    bool have_type = false;
    for (Section& s : *subs) {
        if (tag_is(s, "TCID")) {
            if (s.body.size() % 8) return make_error_at(s.body.base(), "TCID", "size " + std::to_string(s.body.size()) + " is not a multiple of 8");
            while (s.body.remaining() >= 8) c.ids.push_back(s.body.u64("TCID.id"));
        } else if (tag_is(s, "TYPE")) {
            auto r = read_type_section(s.body, c.types);
            if (!r) return r.error();
            have_type = true;
        }
    }
    if (c.ids.empty()) return make_error_at(0, "TCID", "compendium has no id");
    if (!have_type) return make_error_at(0, "TYPE", "compendium has no TYPE section");
    auto rr = c.types.resolve();
    if (!rr) return rr.error();
    return c;
}

Result<File> read_tagfile(Bytes data, const Compendium* compendium) {
    auto subs = root_sections(data, "TAG0");
    if (!subs) return subs.error();
    File f;
    f.form = Form::tagfile;
    const Section *sdkv = nullptr, *dat = nullptr, *type = nullptr, *tcrf = nullptr, *indx = nullptr;
    for (const Section& s : *subs) {
        if (tag_is(s, "SDKV")) sdkv = &s;
        else if (tag_is(s, "DATA")) dat = &s;
        else if (tag_is(s, "TYPE")) type = &s;
        else if (tag_is(s, "TCRF")) tcrf = &s;
        else if (tag_is(s, "INDX")) indx = &s;
    }
    if (!sdkv) return make_error_at(8, "SDKV", "missing SDKV section");
    {
        ByteReader r = sdkv->body;
        std::string s;
        r.read_fixed_string(r.size(), s, "SDKV");
        f.sdk = s;
        auto y = sdk_year(f.sdk, r.base());
        if (!y) return y.error();
        f.year = *y;
    }
    if (!dat) return make_error_at(8, "DATA", "missing DATA section");
    if (!indx) return make_error_at(8, "INDX", "missing INDX section");
    if (type) {
        auto r = read_type_section(type->body, f.types);
        if (!r) return r.error();
    } else if (tcrf) {
        ByteReader r = tcrf->body;
        const uint64_t id = r.u64("TCRF.id");
        if (r.failed()) return r.error();
        f.compendium_id = id;
        if (!compendium)
            return make_error_at(r.base(), "TCRF", "types live in compendium " + hex(id) + ", which was not found beside the tagfile");
        bool match = false;
        for (uint64_t c : compendium->ids) match |= c == id;
        if (!match) return make_error_at(r.base(), "TCRF", "compendium " + hex(id) + " does not match the one given");
        f.types = compendium->types;
    } else {
        return make_error_at(8, "TYPE", "missing TYPE and TCRF sections");
    }
    auto rr = f.types.resolve();
    if (!rr) return rr.error();
    f.data.assign(dat->body.data(), dat->body.data() + dat->body.size());
    const uint64_t data_base = dat->body.base();
    (void)data_base;
    std::vector<Section> isubs;
    ByteReader ir = indx->body;
    if (!read_sections(ir, isubs, "INDX")) return ir.error();
    const Section* item = nullptr;
    for (const Section& s : isubs)
        if (tag_is(s, "ITEM")) item = &s;
    if (!item) return make_error_at(indx->body.base(), "ITEM", "missing ITEM section");
    ByteReader r = item->body;
    const uint64_t n = r.size() / 12;
    f.items.reserve(n);
    for (uint64_t i = 0; i < n; ++i) {
        Item it;
        const uint32_t tf = r.u32("ITEM.type");
        const uint32_t off = r.u32("ITEM.offset");
        const uint32_t cnt = r.u32("ITEM.count");
        if (r.failed()) return r.error();
        it.type = tf & 0xFFFFFF;
        it.is_pointer = (tf >> 28) == 1;
        it.offset = off;
        it.count = cnt;
        if (it.type >= f.types.types.size())
            return make_error_at(r.abs_pos() - 12, "ITEM.type", "type index " + std::to_string(it.type) + " >= " + std::to_string(f.types.types.size()));
        const uint64_t es = f.types.at(it.type).r_size;
        if (off > f.data.size() || (es && cnt > (f.data.size() - off) / es))
            return make_error_at(r.abs_pos() - 12, "ITEM.count",
                                 "item " + std::to_string(i) + " (" + std::to_string(cnt) + " x " + std::to_string(es) + " B at " + hex(off) +
                                     ") exceeds DATA (" + std::to_string(f.data.size()) + " B)");
        f.items.push_back(it);
    }
    if (f.items.empty()) f.items.emplace_back();
    f.root = f.items.size() > 1 ? 1 : 0;
    return f;
}

}  // namespace drape::havok
