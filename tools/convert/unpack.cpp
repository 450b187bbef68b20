// drape: unpacking DCX, BND4, BXF4 and TPF containers to folders with a repack manifest.
#include "drape/convert/unpack.h"

#include <set>
#include <sstream>

#include "drape/bnd/bnd4.h"
#include "drape/io/file.h"
#include "drape/io/json_writer.h"
#include "drape/tpf/tpf.h"

namespace drape::game {

std::string unpack_folder_name(std::string_view file_name) {
    std::string out = sanitize_member_path(file_name);
    if (const size_t slash = out.find_last_of('/'); slash != std::string::npos) out = out.substr(slash + 1);
    for (char& c : out)
        if (c == '.') c = '-';
    return out;
}

namespace {

// Deepest nesting followed with `recursive` (the games nest at most 3 levels).
constexpr unsigned k_max_depth = 6;

struct Unpacker {
    const UnpackOptions& options;
    UnpackResult& result;

    Result<void> write(const std::filesystem::path& path, Bytes bytes) {
        if (auto w = write_file_atomic(path, bytes); !w) return w;
        ++result.files;
        return {};
    }

    // A member's relative path inside `folder`, unique among `used` (two stored names can
    // sanitise to the same path: the later one gets "~<index>").
    static std::string unique_path(std::string path, size_t index, std::set<std::string>& used) {
        if (path == k_unpack_manifest) path += "~" + std::to_string(index);
        while (!used.insert(path).second) path += "~" + std::to_string(index);
        return path;
    }

    static void write_dcx(JsonWriter& j, const dcx::Header& h) {
        j.key("dcx").begin_object();
        j.field("compression", dcx::compression_name(h.compression));
        j.field("level", unsigned(h.level));
        j.field("unk04", hex(h.unk04)).field("unk10", hex(h.unk10)).field("unk14", hex(h.unk14)).field("unk38", unsigned(h.unk38));
        j.end_object();
    }

    // Unpacks a container into `folder`. `chain` names it in errors.
    Result<void> container(Bytes data, const std::string& chain, const std::filesystem::path& folder, const dcx::Header* dcx_header,
                           unsigned depth) {
        if (depth > k_max_depth) return make_error("containers nested deeper than " + std::to_string(k_max_depth) + " levels", chain);
        if (dcx::is_dcx(data)) {
            dcx::Header h;
            auto d = dcx::decompress(data, options.dcx, &h);
            if (!d) return std::move(d.error().within(chain));
            return container(*d, chain, folder, &h, depth + 1);
        }
        if (bnd::is_bnd4(data)) {
            auto b = bnd::read_bnd4(data);
            if (!b) return std::move(b.error().within(chain));
            return binder(*b, chain, folder, dcx_header, depth);
        }
        if (tpf::is_tpf(data)) return texture_pack(data, chain, folder, dcx_header);
        if (dcx_header) {  // a DCX of a plain file: its payload, named after the DCX
            std::string name = chain.substr(chain.find_last_of('>') == std::string::npos ? 0 : chain.find_last_of('>') + 2);
            if (name.size() > 4 && name.ends_with(".dcx")) name.resize(name.size() - 4);
            const std::string rel = sanitize_member_path(name);
            const std::string file = rel.substr(rel.find_last_of('/') == std::string::npos ? 0 : rel.find_last_of('/') + 1);
            auto path = safe_join(folder, file);
            if (!path) return std::move(path.error().within(chain));
            if (auto w = write(*path, data); !w) return w;
            std::ostringstream m;
            JsonWriter j(m);
            j.begin_object().field("drape_unpack", 1).field("source", chain).field("container", "DCX");
            write_dcx(j, *dcx_header);
            j.field("file", file).end_object();
            m << "\n";
            const std::string text = m.str();
            ++result.containers;
            return write(folder / k_unpack_manifest, Bytes(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
        }
        return make_error("not a container drape unpacks (DCX, BND4, BXF4 or TPF)", chain);
    }

    // Writes one member and, with `recursive`, unpacks it when it is a container.
    void member(Bytes bytes, const std::string& chain, const std::filesystem::path& path, JsonWriter& j, unsigned depth) {
        if (auto w = write(path, bytes); !w) {
            result.errors.push_back(std::move(w.error()));
            return;
        }
        if (!options.recursive || !(dcx::is_dcx(bytes) || bnd::is_bnd4(bytes) || tpf::is_tpf(bytes))) return;
        const auto nested = path.parent_path() / unpack_folder_name(path.filename().string());
        if (auto r = container(bytes, chain, nested, nullptr, depth + 1); !r) {
            result.errors.push_back(std::move(r.error()));
            return;
        }
        j.field("unpacked", nested.filename().string());
    }

    Result<void> binder(const bnd::Binder& b, const std::string& chain, const std::filesystem::path& folder, const dcx::Header* dcx_header,
                        unsigned depth) {
        std::ostringstream m;
        JsonWriter j(m);
        j.begin_object().field("drape_unpack", 1).field("source", chain).field("container", b.is_bxf ? "BXF4" : "BND4");
        if (dcx_header) write_dcx(j, *dcx_header);
        j.key("binder").begin_object();
        j.field("version", b.version).field("format", hex(b.format)).field("raw_format", hex(b.raw_format));
        j.field("unicode", b.unicode).field("extended", unsigned(b.extended)).field("big_endian", b.big_endian);
        j.field("bit_big_endian", b.bit_big_endian).field("unk04", b.unk04).field("unk05", b.unk05);
        if (b.is_bxf) j.field("bdt_version", b.bdt_version).field("bdt_unk04", b.bdt_unk04).field("bdt_unk05", b.bdt_unk05);
        j.end_object();
        j.key("members").begin_array();
        std::set<std::string> used;
        for (size_t i = 0; i < b.entries.size(); ++i) {
            const auto& e = b.entries[i];
            const std::string rel = unique_path(e.path, i, used);
            j.begin_object();
            if (b.has_ids()) j.field("id", int64_t(e.id));
            j.field("name", e.name).field("path", rel).field("flags", hex(e.flags));
            if (e.id2) j.field("id2", int64_t(e.id2));
            auto path = safe_join(folder, rel);
            auto bytes = path ? bnd::entry_bytes(b, e) : Result<std::vector<uint8_t>>(path.error());
            if (!bytes) {
                j.field("error", bytes.error().to_string());
                result.errors.push_back(std::move(bytes.error().within(e.name).within(chain)));
            } else {
                j.field("size", uint64_t(bytes->size()));
                member(*bytes, chain + " > " + e.name, *path, j, depth);
            }
            j.end_object();
        }
        j.end_array().end_object();
        m << "\n";
        const std::string text = m.str();
        ++result.containers;
        return write(folder / k_unpack_manifest, Bytes(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
    }

    Result<void> texture_pack(Bytes data, const std::string& chain, const std::filesystem::path& folder, const dcx::Header* dcx_header) {
        auto t = tpf::read_tpf(data);
        if (!t) return std::move(t.error().within(chain));
        std::ostringstream m;
        JsonWriter j(m);
        j.begin_object().field("drape_unpack", 1).field("source", chain).field("container", "TPF");
        if (dcx_header) write_dcx(j, *dcx_header);
        j.key("tpf").begin_object();
        j.field("platform", unsigned(t->platform)).field("flag2", unsigned(t->flag2)).field("encoding", unsigned(t->encoding));
        j.end_object();
        j.key("textures").begin_array();
        std::set<std::string> used;
        for (size_t i = 0; i < t->textures.size(); ++i) {
            const auto& tex = t->textures[i];
            const std::string rel = unique_path(sanitize_member_path(tex.name) + ".dds", i, used);
            j.begin_object().field("name", tex.name).field("path", rel);
            j.field("format", unsigned(tex.format)).field("type", unsigned(tex.type)).field("mipmaps", unsigned(tex.mipmaps));
            j.field("flags1", unsigned(tex.flags1));
            if (tex.has_float_struct) {
                j.key("float_struct").begin_object().field("unk", int64_t(tex.floats.unk)).key("values").begin_array();
                for (float f : tex.floats.values) j.value(double(f));
                j.end_array().end_object();
            }
            j.field("size", uint64_t(tex.dds.size()));
            auto path = safe_join(folder, rel);
            if (!path) {
                result.errors.push_back(std::move(path.error().within(tex.name).within(chain)));
            } else if (auto w = write(*path, tex.dds); !w) {
                result.errors.push_back(std::move(w.error()));
            }
            j.end_object();
        }
        j.end_array().end_object();
        m << "\n";
        const std::string text = m.str();
        ++result.containers;
        return write(folder / k_unpack_manifest, Bytes(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
    }
};

}  // namespace

Result<UnpackResult> unpack(Bytes data, const std::string& name, const std::filesystem::path& out_dir, const UnpackOptions& options) {
    UnpackResult result;
    result.folder = out_dir / unpack_folder_name(name);
    Unpacker u{options, result};
    if (auto r = u.container(data, name, result.folder, nullptr, 0); !r) return std::move(r.error());
    return result;
}

Result<UnpackResult> unpack_bxf4(Bytes bhd, Bytes bdt, const std::string& name, const std::filesystem::path& out_dir,
                                 const UnpackOptions& options) {
    UnpackResult result;
    result.folder = out_dir / unpack_folder_name(name);
    auto b = bnd::read_bxf4(bhd, bdt);
    if (!b) return std::move(b.error().within(name));
    Unpacker u{options, result};
    if (auto r = u.binder(*b, name, result.folder, nullptr, 0); !r) return std::move(r.error());
    return result;
}

}  // namespace drape::game
