// drape: Havok packfiles, hk_2014.1.0-r1, 64-bit little endian (DS3, BB)
// (docs/formats.md#havok-packfiles).
#include <algorithm>
#include <cstring>
#include <map>

#include "drape/havok/hkx.h"
#include "layouts_2014.h"

namespace drape::havok {

namespace {
constexpr uint32_t k_magic0 = 0x57E0E057, k_magic1 = 0x10C0C010;

struct SectionHeader {
    std::string tag;
    uint32_t start = 0, local = 0, global = 0, virt = 0, exports = 0, imports = 0, end = 0;
};

// __classnames__ maps the offset of each name (as virtual fixups cite it) to the name.
Result<void> read_class_names(ByteReader& r, const SectionHeader& s, std::map<uint32_t, std::string>& class_names) {
    ByteReader cr = r.slice(s.start, s.local, "packfile.__classnames__");
    if (cr.failed()) return cr.error();
    while (cr.remaining() >= 5) {
        uint8_t b = 0;
        cr.peek_at(cr.pos(), b, "packfile.__classnames__");
        if (b == 0xFF) break;
        cr.u32("packfile.__classnames__.signature");
        cr.u8("packfile.__classnames__.tag");
        const uint32_t off = uint32_t(cr.pos());
        std::string name;
        if (!cr.read_cstring(name, "packfile.__classnames__.name", 512)) return cr.error();
        class_names[off] = name;
    }
    return {};
}

// Virtual fixups: the objects and their classes; a class without a layout becomes an empty named record.
Result<void> read_virtual_fixups(ByteReader vr, uint32_t dsize, int names_idx, const std::map<uint32_t, std::string>& class_names,
                                 File& f, std::vector<std::pair<uint32_t, uint32_t>>& objs) {
    std::map<std::string, uint32_t, std::less<>> type_of_class;
    for (uint32_t i = 1; i < f.types.types.size(); ++i) type_of_class.emplace(f.types.types[i].name, i);
    if (vr.failed()) return vr.error();
    while (vr.remaining() >= 12) {
        const int32_t src = vr.i32("packfile.virtualFixup.src");
        const int32_t sec = vr.i32("packfile.virtualFixup.section");
        const uint32_t name_off = vr.u32("packfile.virtualFixup.className");
        if (src == -1) continue;
        if (src < 0 || uint32_t(src) >= dsize)
            return make_error_at(vr.abs_pos() - 12, "packfile.virtualFixup.src", "object offset " + hex(uint32_t(src)) + " outside __data__");
        if (sec != names_idx) return make_error_at(vr.abs_pos() - 8, "packfile.virtualFixup.section", "class name not in __classnames__");
        auto it = class_names.find(name_off);
        if (it == class_names.end())
            return make_error_at(vr.abs_pos() - 4, "packfile.virtualFixup.className", "no class name at " + hex(name_off));
        auto known = type_of_class.find(it->second);
        uint32_t ti = known == type_of_class.end() ? 0 : known->second;
        if (ti == 0) {
            // A class drape has no layout for: an empty record that keeps its name.
            Type t;
            t.name = it->second;
            t.opt = k_opt_format | k_opt_size_align;
            t.format = uint32_t(Kind::Record);
            t.has_body = true;
            ti = uint32_t(f.types.types.size());
            f.types.types.push_back(std::move(t));
            type_of_class.emplace(it->second, ti);
        }
        objs.emplace_back(uint32_t(src), ti);
    }
    return {};
}

Result<void> read_local_fixups(ByteReader lr, uint32_t dsize, File& f) {
    if (lr.failed()) return lr.error();
    while (lr.remaining() >= 8) {
        const int32_t src = lr.i32("packfile.localFixup.src");
        const int32_t dst = lr.i32("packfile.localFixup.dst");
        if (src == -1) continue;
        if (src < 0 || dst < 0 || uint32_t(src) >= dsize || uint32_t(dst) > dsize)
            return make_error_at(lr.abs_pos() - 8, "packfile.localFixup", "pointer " + hex(uint32_t(src)) + " -> " + hex(uint32_t(dst)) + " outside __data__");
        f.local_fixups[uint32_t(src)] = uint32_t(dst);
    }
    return {};
}

// Only pointers into __data__ that land on an object are kept.
Result<void> read_global_fixups(ByteReader gr, uint32_t dsize, int data_idx, File& f) {
    if (gr.failed()) return gr.error();
    while (gr.remaining() >= 12) {
        const int32_t src = gr.i32("packfile.globalFixup.src");
        const int32_t sec = gr.i32("packfile.globalFixup.section");
        const int32_t dst = gr.i32("packfile.globalFixup.dst");
        if (src == -1) continue;
        if (src < 0 || uint32_t(src) >= dsize)
            return make_error_at(gr.abs_pos() - 12, "packfile.globalFixup.src", "pointer " + hex(uint32_t(src)) + " outside __data__");
        if (sec != data_idx || dst < 0) continue;
        auto it = f.object_at.find(uint32_t(dst));
        if (it != f.object_at.end()) f.global_fixups[uint32_t(src)] = it->second;
    }
    return {};
}
}  // namespace

bool is_packfile(Bytes d) {
    if (d.size() < 8) return false;
    uint32_t a, b;
    std::memcpy(&a, d.data(), 4);
    std::memcpy(&b, d.data() + 4, 4);
    return a == k_magic0 && b == k_magic1;
}

Result<File> read_packfile(Bytes data) {
    ByteReader r(data);
    if (!r.expect<uint32_t>(k_magic0, "packfile.magic0") || !r.expect<uint32_t>(k_magic1, "packfile.magic1")) return r.error();
    r.i32("packfile.userTag");
    const int32_t file_version = r.i32("packfile.fileVersion");
    const uint8_t pointer_size = r.u8("packfile.pointerSize");
    const uint8_t little_endian = r.u8("packfile.littleEndian");
    const uint8_t reuse = r.u8("packfile.reusePaddingOptimization");
    r.u8("packfile.emptyBaseClassOptimization");
    const int32_t num_sections = r.i32("packfile.numSections");
    const int32_t contents_section = r.i32("packfile.contentsSectionIndex");
    const int32_t contents_offset = r.i32("packfile.contentsSectionOffset");
    r.i32("packfile.contentsClassNameSectionIndex");
    r.i32("packfile.contentsClassNameSectionOffset");
    std::string version;
    r.read_fixed_string(16, version, "packfile.contentsVersion");
    r.i32("packfile.flags");
    const int16_t max_predicate = r.i16("packfile.maxPredicate");
    const int16_t predicate_size = r.i16("packfile.predicateArraySizePlusPadding");
    if (r.failed()) return r.error();
    if (const size_t ff = version.find('\xFF'); ff != std::string::npos) version.resize(ff);
    if (const size_t nul = version.find('\0'); nul != std::string::npos) version.resize(nul);
    if (file_version != 11 || version.rfind("hk_2014", 0) != 0)
        return make_error_at(0x0C, "packfile.fileVersion",
                             "unsupported packfile version " + std::to_string(file_version) + " '" + version + "' (drape reads hk_2014 packfiles)");
    if (pointer_size != 8 || little_endian != 1)
        return make_error_at(0x10, "packfile.pointerSize",
                             "unsupported layout: pointer size " + std::to_string(pointer_size) + ", little endian " +
                                 std::to_string(little_endian) + " (drape reads 64-bit little-endian packfiles)");
    if (max_predicate != -1) {
        if (predicate_size < 0) return make_error_at(0x3E, "packfile.predicateArraySizePlusPadding", "negative size");
        if (!r.skip(size_t(predicate_size), "packfile.predicates")) return r.error();
    }
    if (num_sections < 1 || num_sections > 16)
        return make_error_at(0x14, "packfile.numSections", std::to_string(num_sections) + " sections (expected 1 to 16)");
    std::vector<SectionHeader> secs(static_cast<size_t>(num_sections));
    for (SectionHeader& s : secs) {
        std::string tag;
        r.read_fixed_string(20, tag, "packfile.section.tag");
        if (const size_t ff = tag.find('\xFF'); ff != std::string::npos) tag.resize(ff);
        if (const size_t nul = tag.find('\0'); nul != std::string::npos) tag.resize(nul);
        s.tag = escape_bytes(tag);  // printed in messages only
        s.start = r.u32("packfile.section.absoluteDataStart");
        s.local = r.u32("packfile.section.localFixupsOffset");
        s.global = r.u32("packfile.section.globalFixupsOffset");
        s.virt = r.u32("packfile.section.virtualFixupsOffset");
        s.exports = r.u32("packfile.section.exportsOffset");
        s.imports = r.u32("packfile.section.importsOffset");
        s.end = r.u32("packfile.section.endOffset");
        r.skip(16, "packfile.section.padding");
        if (r.failed()) return r.error();
        const size_t at = r.pos() - 0x40;
        if (!(s.local <= s.global && s.global <= s.virt && s.virt <= s.exports && s.exports <= s.imports && s.imports <= s.end))
            return make_error_at(at + 0x18, "packfile.section.fixups", "section " + s.tag + ": fixup offsets out of order");
        if (uint64_t(s.start) + s.end > data.size())
            return make_error_at(at + 0x14, "packfile.section.endOffset",
                                 "section " + s.tag + " ends at " + hex(uint64_t(s.start) + s.end) + ", past the file (" + hex(data.size()) + ")");
    }
    int names_idx = -1, data_idx = -1;
    for (size_t i = 0; i < secs.size(); ++i) {
        if (secs[i].tag == "__classnames__") names_idx = int(i);
        if (secs[i].tag == "__data__") data_idx = int(i);
    }
    if (names_idx < 0) return make_error_at(0x40, "packfile.section.tag", "no __classnames__ section");
    if (data_idx < 0) return make_error_at(0x40, "packfile.section.tag", "no __data__ section");
    if (contents_section != data_idx) return make_error_at(0x18, "packfile.contentsSectionIndex", "contents are not in __data__");

    // __classnames__: {u32 signature, u8 0x09, name\0}..., then 0xFF padding.
    std::map<uint32_t, std::string> class_names;
    if (auto cn = read_class_names(r, secs[size_t(names_idx)], class_names); !cn) return cn.error();

    const SectionHeader& ds = secs[size_t(data_idx)];
    File f;
    f.form = Form::packfile;
    f.sdk = version;
    f.year = 2014;
    f.packfile_reuse_padding = reuse != 0;
    f.types = layouts_2014(reuse != 0);
    f.data.assign(data.begin() + ds.start, data.begin() + ds.start + ds.local);
    const uint32_t dsize = ds.local;

    auto fixups = [&](uint32_t from, uint32_t to, const char* field) { return r.slice(uint64_t(ds.start) + from, to - from, field); };

    // Virtual fixups: the objects and their classes.
    std::vector<std::pair<uint32_t, uint32_t>> objs;  // offset, type index
    if (auto vf = read_virtual_fixups(fixups(ds.virt, ds.exports, "packfile.virtualFixups"), dsize, names_idx, class_names, f, objs); !vf)
        return vf.error();
    auto rr = f.types.resolve();
    if (!rr) return rr.error();
    std::sort(objs.begin(), objs.end());
    f.items.emplace_back();
    for (auto [off, ti] : objs) {
        if (f.object_at.count(off)) continue;
        const uint32_t size = f.types.types[ti].r_size;
        if (uint64_t(off) + size > dsize)
            return make_error_at(uint64_t(ds.start) + off, "packfile.object",
                                 f.types.types[ti].name + " at " + hex(off) + " (" + std::to_string(size) + " B) runs past __data__");
        Item it;
        it.type = ti;
        it.is_pointer = true;
        it.offset = off;
        it.count = 1;
        f.object_at[off] = uint32_t(f.items.size());
        f.items.push_back(it);
    }
    if (auto lf = read_local_fixups(fixups(ds.local, ds.global, "packfile.localFixups"), dsize, f); !lf) return lf.error();
    if (auto gf = read_global_fixups(fixups(ds.global, ds.virt, "packfile.globalFixups"), dsize, data_idx, f); !gf) return gf.error();
    auto root = f.object_at.find(uint32_t(contents_offset));
    if (root == f.object_at.end())
        return make_error_at(0x1C, "packfile.contentsSectionOffset", "no object at the contents offset " + hex(uint32_t(contents_offset)));
    f.root = root->second;
    return f;
}

Result<File> read_hkx(Bytes data, const CompendiumLookup& lookup) {
    if (is_packfile(data)) return read_packfile(data);
    if (is_tagfile(data)) {
        const Compendium* c = nullptr;
        if (auto id = tagfile_compendium_id(data); id && lookup) c = lookup(*id);
        return read_tagfile(data, c);
    }
    if (is_compendium(data)) return make_error_at(4, "hkx.magic", "a type compendium (TCM0) holds no objects; open a tagfile that uses it");
    return make_error_at(0, "hkx.magic", "not a Havok file (no packfile magic, TAG0 or TCM0)");
}

}  // namespace drape::havok
