#include "drape/game/identify.h"

#include <cstring>

#include "drape/bnd/bnd4.h"
#include "drape/flver/flver.h"
#include "drape/havok/hkx.h"
#include "drape/tpf/tpf.h"
#include "drape/io/file.h"

namespace drape::game {

const char* kind_name(Kind k) {
    switch (k) {
        case Kind::empty: return "empty";
        case Kind::unknown: return "unknown";
        case Kind::text: return "text";
        case Kind::dcx: return "DCX";
        case Kind::bnd4: return "BND4";
        case Kind::bhf4: return "BXF4 header (BHF4)";
        case Kind::bdf4: return "BXF4 data (BDF4)";
        case Kind::tpf: return "TPF";
        case Kind::flver: return "FLVER";
        case Kind::havok_packfile: return "Havok packfile";
        case Kind::havok_tagfile: return "Havok tagfile";
        case Kind::havok_compendium: return "Havok type compendium";
        case Kind::tae: return "TAE";
        case Kind::emevd: return "EMEVD";
        case Kind::param: return "PARAM";
        case Kind::drcloth: return "drape cloth";
    }
    return "?";
}

namespace {

bool starts(Bytes d, const char* magic, size_t n, size_t at = 0) {
    return d.size() >= at + n && std::memcmp(d.data() + at, magic, n) == 0;
}

bool ends_with_ci(std::string_view s, std::string_view suffix) {
    if (s.size() < suffix.size()) return false;
    for (size_t i = 0; i < suffix.size(); ++i) {
        char a = s[s.size() - suffix.size() + i], b = suffix[i];
        if (a >= 'A' && a <= 'Z') a = char(a + 32);
        if (a != b) return false;
    }
    return true;
}

}  // namespace

bool is_tae(Bytes d) { return starts(d, "TAE ", 4); }
bool is_emevd(Bytes d) { return starts(d, "EVD\0", 4); }
bool is_drcloth(Bytes d) { return starts(d, "DRCL", 4, 4); }

Kind identify(Bytes d, std::string_view name) {
    if (d.empty()) return Kind::empty;
    // One sniffer per format, each in its reader's module.
    if (dcx::is_dcx(d)) return Kind::dcx;
    if (bnd::is_bnd4(d)) return Kind::bnd4;
    if (bnd::is_bhf4(d)) return Kind::bhf4;
    if (bnd::is_bdf4(d)) return Kind::bdf4;
    if (tpf::is_tpf(d)) return Kind::tpf;
    if (flver::is_flver(d)) return Kind::flver;
    if (havok::is_packfile(d)) return Kind::havok_packfile;
    if (havok::is_tagfile(d)) return Kind::havok_tagfile;
    if (havok::is_compendium(d)) return Kind::havok_compendium;
    if (is_tae(d)) return Kind::tae;
    if (is_emevd(d)) return Kind::emevd;
    if (is_drcloth(d)) return Kind::drcloth;
    if (ends_with_ci(name, ".param")) return Kind::param;
    bool text = true;
    for (size_t i = 0; i < d.size() && i < 4096 && text; ++i) {
        uint8_t c = d[i];
        text = c == '\n' || c == '\r' || c == '\t' || (c >= 0x20 && c != 0x7F);
    }
    return text ? Kind::text : Kind::unknown;
}

namespace {

void describe_leaf(Node& n, Bytes d) {
    ByteReader r(d);
    switch (n.kind) {
        case Kind::flver: {
            bool be = d.size() > 6 && d[6] == 'B';
            r.set_big_endian(be);
            r.seek(8, "flver.version");
            uint32_t version = r.u32("flver.version");
            r.seek(0x14, "flver.counts");
            uint32_t dummies = r.u32("flver.dummy_count");
            uint32_t materials = r.u32("flver.material_count");
            uint32_t bones = r.u32("flver.bone_count");
            uint32_t meshes = r.u32("flver.mesh_count");
            if (r.failed()) {
                n.error = r.error();
                return;
            }
            n.fields.push_back({"version", hex(version)});
            n.fields.push_back({"bones", std::to_string(bones)});
            n.fields.push_back({"meshes", std::to_string(meshes)});
            n.fields.push_back({"materials", std::to_string(materials)});
            n.fields.push_back({"dummies", std::to_string(dummies)});
            break;
        }
        case Kind::havok_packfile: {
            std::string version;
            r.seek(0x28, "packfile.contents_version");
            r.read_fixed_string(15, version, "packfile.contents_version");
            if (r.failed()) {
                n.error = r.error();
                return;
            }
            while (!version.empty() && uint8_t(version.back()) == 0xFF) version.pop_back();
            n.fields.push_back({"version", version});
            break;
        }
        case Kind::havok_tagfile:
        case Kind::havok_compendium: {
            // The first subsection of TAG0 is SDKV (8 ASCII characters); of TCM0, TCID.
            std::string tag, sdk;
            r.set_big_endian(true);
            r.seek(8, "tagfile.section");
            uint32_t size = 0;
            r.read(size, "tagfile.section.size");
            r.read_fixed_string(4, tag, "tagfile.section.tag");
            if (!r.failed() && tag == "SDKV") {
                r.read_fixed_string(8, sdk, "tagfile.sdkv");
                n.fields.push_back({"sdk", sdk});
            } else if (!r.failed()) {
                n.fields.push_back({"first_section", tag});
            }
            if (r.failed()) n.error = r.error();
            break;
        }
        case Kind::tpf: {
            r.seek(8, "tpf.texture_count");
            int32_t count = r.i32("tpf.texture_count");
            uint8_t platform = r.u8("tpf.platform");
            if (r.failed()) {
                n.error = r.error();
                return;
            }
            n.fields.push_back({"textures", std::to_string(count)});
            n.fields.push_back({"platform", std::to_string(platform)});
            break;
        }
        default: break;
    }
}

void walk_into(Node& n, Bytes d, const WalkOptions& o, unsigned depth);

void walk_binder(Node& n, const bnd::Binder& b, const WalkOptions& o, unsigned depth) {
    n.fields.push_back({"version", b.version});
    n.fields.push_back({"members", std::to_string(b.entries.size())});
    n.fields.push_back({"format", hex(b.format)});
    n.fields.push_back({"names", b.unicode ? "UTF-16" : "Shift-JIS"});
    for (const bnd::Entry& e : b.entries) {
        Node c;
        c.name = e.name;
        c.path = e.path;
        c.id = e.id;
        c.stored_size = e.stored_size;
        if (e.compressed(b.bit_big_endian) && !dcx::is_dcx(e.data)) {
            auto bytes = bnd::entry_bytes(b, e);
            if (!bytes) {
                c.error = bytes.error();
            } else {
                c.size = bytes->size();
                c.fields.push_back({"member_compression", "zlib"});
                walk_into(c, *bytes, o, depth + 1);
            }
        } else {
            c.size = e.stored_size;
            walk_into(c, e.data, o, depth + 1);
        }
        n.children.push_back(std::move(c));
    }
}

void walk_into(Node& n, Bytes d, const WalkOptions& o, unsigned depth) {
    n.kind = identify(d, n.name);
    if (depth > o.max_depth) {
        n.error = make_error("containers nested deeper than " + std::to_string(o.max_depth) + " levels");
        return;
    }
    switch (n.kind) {
        case Kind::dcx: {
            dcx::Header h;
            auto out = dcx::decompress(d, o.dcx, &h);
            n.fields.push_back({"compression", dcx::compression_name(h.compression)});
            n.fields.push_back({"level", std::to_string(h.level)});
            n.fields.push_back({"dcx_version", hex(h.unk04)});
            if (!out) {
                n.error = out.error();
                return;
            }
            n.size = out->size();
            Node inner;
            inner.name = "(payload)";
            inner.path = inner.name;
            inner.size = out->size();
            inner.stored_size = h.compressed_size;
            walk_into(inner, *out, o, depth + 1);
            n.children.push_back(std::move(inner));
            return;
        }
        case Kind::bnd4: {
            auto b = bnd::read_bnd4(d);
            if (!b) {
                n.error = b.error();
                return;
            }
            walk_binder(n, *b, o, depth);
            return;
        }
        default: describe_leaf(n, d); return;
    }
}

// Prefixes every error in the subtree with the names of the containers above it.
void chain_errors(Node& n, std::vector<std::string>& chain) {
    if (n.name != "(payload)") chain.push_back(n.name);  // the pseudo-node is not a name a user knows
    if (n.error) n.error->chain.insert(n.error->chain.begin(), chain.begin(), chain.end());
    for (Node& c : n.children) chain_errors(c, chain);
    if (n.name != "(payload)") chain.pop_back();
}

}  // namespace

Node walk(Bytes data, std::string name, const WalkOptions& o) {
    Node n;
    n.name = std::move(name);
    n.path = n.name;
    n.size = n.stored_size = data.size();
    walk_into(n, data, o, 0);
    std::vector<std::string> chain;
    chain_errors(n, chain);
    return n;
}

Node walk_bxf4(Bytes bhd, Bytes bdt, std::string name, const WalkOptions& o) {
    Node n;
    n.name = std::move(name);
    n.path = n.name;
    n.kind = Kind::bhf4;
    n.size = n.stored_size = bhd.size() + bdt.size();
    auto b = bnd::read_bxf4(bhd, bdt);
    if (!b) n.error = b.error();
    else walk_binder(n, *b, o, 0);
    std::vector<std::string> chain;
    chain_errors(n, chain);
    return n;
}

std::optional<Error> first_error(const Node& n) {
    if (n.error) return n.error;
    for (const Node& c : n.children)
        if (auto e = first_error(c)) return e;
    return std::nullopt;
}

}  // namespace drape::game
