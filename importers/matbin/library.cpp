// drape: MaterialLibrary: indexes the member names of material binders, parses on lookup.
#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <system_error>
#include <unordered_map>
#include <unordered_set>

#include "drape/bnd/bnd4.h"
#include "drape/dcx/member.h"
#include "drape/io/file.h"
#include "drape/matbin/matbin.h"

namespace drape::matbin {

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_material_binder_name(const std::string& file_name) {
    const std::string n = lower(file_name);
    for (const char* suffix : {".matbinbnd.dcx", ".matbinbnd", ".mtdbnd.dcx", ".mtdbnd"})
        if (ends_with(n, suffix)) return true;
    return false;
}

}  // namespace

std::string material_key(std::string_view path) {
    const size_t slash = path.find_last_of("/\\");
    std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
    const size_t dot = base.find_last_of('.');
    if (dot != std::string_view::npos) base = base.substr(0, dot);
    return lower(base);
}

// Members of a KRAK binder whose stored bytes lie closer than this are decoded in one range:
// the blocks between them (at most one 256 KiB block) cost less than decoding a block that
// holds the end of one member and the start of the next twice.
constexpr uint64_t k_merge_gap = 256 * 1024;

struct MaterialLibrary::Impl {
    struct Source {
        std::string name;
        // Eager: the decompressed binder (or the loose file). Lazy: the DCX file as read, which
        // `lazy` decodes from.
        std::vector<uint8_t> bytes;
        bnd::Binder eager;  // eager: the binder, its entries view into bytes
        std::optional<dcx::LazyBinder> lazy;  // KRAK binders: members decoded on lookup
        dcx::DecodeOptions options;           // what lazy decodes with
        bool loose = false;
        // The entries (lazy: without their data).
        const bnd::Binder& binder() const { return lazy ? lazy->binder() : eager; }
    };
    struct Member {
        size_t source = 0;
        size_t entry = 0;  // index into binder.entries (unused for a loose file or a copy)
        std::string name;  // as stored
        std::optional<std::vector<uint8_t>> copy;  // keep_only: the member's own (decompressed) bytes
    };
    std::vector<std::unique_ptr<Source>> sources;  // stable addresses: entries point into bytes
    std::vector<std::string> source_names;
    std::vector<Member> members;
    std::unordered_map<std::string, std::vector<size_t>> by_key;  // material_key -> members, in added order
    std::optional<std::unordered_set<std::string>> keep;          // keep_only's keys
    mutable std::atomic<uint64_t> decoded{0};                     // decoded_bytes()

    mutable std::mutex mutex;
    mutable std::map<size_t, std::unique_ptr<Result<Material>>> parsed;

    // The member's bytes as bnd::entry_bytes gives them, decoded from a lazy source (under
    // the mutex: LazyBinder::member writes its output buffer).
    Result<std::vector<uint8_t>> lazy_member(const Source& s, const bnd::Entry& e) const {
        auto b = const_cast<dcx::LazyBinder&>(*s.lazy).member_bytes(e);
        if (b) decoded += e.stored_size;
        return b;
    }

    Result<Material> parse(size_t i) const {
        const Member& mb = members[i];
        const Source& s = *sources[mb.source];
        Result<Material> r = make_error("unread");
        if (mb.copy) {
            r = read_material(*mb.copy);
        } else if (s.loose) {
            r = read_material(s.bytes);
        } else {
            const auto& e = s.binder().entries[mb.entry];
            if (s.lazy || e.compressed(s.eager.bit_big_endian)) {
                auto b = s.lazy ? lazy_member(s, e) : bnd::entry_bytes(s.eager, e);
                if (!b) {
                    Error err = std::move(b).error();
                    err.within(mb.name).within(s.name);
                    return err;
                }
                r = read_material(*b);
            } else {
                r = read_material(e.data);
            }
        }
        if (!r) {
            Error err = std::move(r).error();
            if (!s.loose) err.within(mb.name);
            err.within(s.name);
            return err;
        }
        r->member = mb.name;
        return r;
    }

    const Result<Material>& cached(size_t i) const {
        std::lock_guard<std::mutex> lock(mutex);
        auto& slot = parsed[i];
        if (!slot) slot = std::make_unique<Result<Material>>(parse(i));
        return *slot;
    }

    // keep_only on a lazy source: the kept members' bytes decoded (neighbours in one range)
    // and copied. A range that does not decode fails the binder, as decoding it whole would
    // have; a member whose own DCX does not decompress is left out (find reports no definition).
    Result<void> copy_kept_lazy(Source& src, std::vector<Member>& kept) {
        std::vector<size_t> order(kept.size());
        for (size_t k = 0; k < order.size(); ++k) order[k] = k;
        const auto& entries = src.binder().entries;
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
            return entries[kept[a].entry].data_offset < entries[kept[b].entry].data_offset;
        });
        const uint64_t total = src.lazy->header().uncompressed_size;
        dcx::Buffer range;
        for (size_t first = 0; first < order.size();) {
            const uint64_t start = entries[kept[order[first]].entry].data_offset;
            uint64_t end = start;
            size_t last = first;
            for (; last < order.size(); ++last) {
                const bnd::Entry& e = entries[kept[order[last]].entry];
                if (e.data_offset > total || e.stored_size > total - e.data_offset)
                    return make_error_at(e.data_offset, "bnd4.file.data", "member data lies outside the binder").within(kept[order[last]].name);
                if (last > first && e.data_offset > end + k_merge_gap) break;
                end = std::max(end, e.data_offset + e.stored_size);
            }
            auto got = dcx::decompress_range(src.bytes, start, end - start, range, src.options);
            if (!got) return got.error();
            decoded += end - start;
            for (size_t k = first; k < last; ++k) {
                Member& mb = kept[order[k]];
                bnd::Entry e = entries[mb.entry];
                e.data = got->subspan(size_t(e.data_offset - start), size_t(e.stored_size));
                if (e.compressed(src.binder().bit_big_endian)) {
                    auto b = bnd::entry_bytes(src.binder(), e);
                    if (b) mb.copy = std::move(*b);
                } else {
                    mb.copy = std::vector<uint8_t>(e.data.begin(), e.data.end());
                }
            }
            first = last;
        }
        return {};
    }
};

MaterialLibrary::MaterialLibrary() : m(std::make_unique<Impl>()) {}
MaterialLibrary::~MaterialLibrary() = default;
MaterialLibrary::MaterialLibrary(MaterialLibrary&&) noexcept = default;
MaterialLibrary& MaterialLibrary::operator=(MaterialLibrary&&) noexcept = default;

Result<void> MaterialLibrary::add_bytes(std::vector<uint8_t> bytes, std::string name, const dcx::DecodeOptions& options) {
    auto src = std::make_unique<Impl::Source>();
    src->name = name;
    src->options = options;
    const size_t source_index = m->sources.size();
    bool lazy = false;
    if (dcx::is_dcx(bytes)) {
        auto h = dcx::read_header(bytes);
        if (!h) return std::move(h).error().within(name);
        if (h->compression == dcx::Compression::krak) {
            // KRAK: only the blocks of the BND4 headers now, the members when they are needed.
            src->bytes = std::move(bytes);  // the LazyBinder views it: it must not move again
            // Members are looked up by name only: no sanitised paths (most of the header cost).
            auto lb = dcx::LazyBinder::open(src->bytes, options, bnd::ReadOptions{.member_paths = false});
            if (lb) {
                m->decoded += lb->binder().headers_end;
                src->lazy.emplace(std::move(*lb));
                lazy = true;
            } else if (lb.error().field != "dcx.bnd4") {
                return std::move(lb).error().within(name);
            } else {
                bytes = std::move(src->bytes);  // not a binder: decoded whole below
            }
        }
        if (!lazy) {
            // DFLT and ZSTD cannot be entered in the middle (dcx/member.h): decoded whole.
            auto d = dcx::decompress(bytes, options);
            if (!d) return std::move(d).error().within(name);
            m->decoded += d->size();
            bytes = std::move(*d);
        }
    }
    if (!lazy) src->bytes = std::move(bytes);
    if (!lazy && (is_matbin(src->bytes) || is_mtd(src->bytes))) {
        src->loose = true;
        m->by_key[material_key(name)].push_back(m->members.size());
        m->members.push_back({source_index, 0, name, std::nullopt});
    } else if (lazy || bnd::is_bnd4(src->bytes)) {
        if (!lazy) {
            auto b = bnd::read_bnd4(src->bytes, bnd::ReadOptions{.member_paths = false});
            if (!b) return std::move(b).error().within(name);
            src->eager = std::move(*b);
        }
        const bnd::Binder& binder = src->binder();
        std::vector<Impl::Member> added;
        std::vector<std::string> keys;  // material_key of each added member
        for (size_t i = 0; i < binder.entries.size(); ++i) {
            const auto& e = binder.entries[i];
            std::string key = material_key(e.name);
            if (m->keep && !m->keep->count(key)) continue;
            added.push_back({source_index, i, e.name, std::nullopt});
            keys.push_back(std::move(key));
        }
        if (m->keep) {
            if (lazy) {
                if (auto c = m->copy_kept_lazy(*src, added); !c) return std::move(c).error().within(name);
            } else {
                for (auto& member : added) {
                    const auto& e = binder.entries[member.entry];
                    if (e.compressed(binder.bit_big_endian)) {
                        auto b = bnd::entry_bytes(binder, e);
                        if (b) member.copy = std::move(*b);
                    } else {
                        member.copy = std::vector<uint8_t>(e.data.begin(), e.data.end());
                    }
                }
            }
        }
        for (size_t k = 0; k < added.size(); ++k) {
            if (m->keep && !added[k].copy) continue;  // unreadable: as if absent (find reports no definition)
            m->by_key[std::move(keys[k])].push_back(m->members.size());
            m->members.push_back(std::move(added[k]));
        }
        if (m->keep) {  // every kept member has its copy: the binder's bytes can go
            src->lazy.reset();
            src->eager = {};
            std::vector<uint8_t>().swap(src->bytes);
        }
    } else {
        return make_error_at(0, "material_library", "neither a material binder (BND4) nor a MATBIN or MTD").within(name);
    }
    m->sources.push_back(std::move(src));
    m->source_names.push_back(std::move(name));
    return {};
}

Result<std::vector<uint8_t>> MaterialLibrary::read_binder(const std::filesystem::path& path, const dcx::DecodeOptions& options) {
    auto bytes = read_file(path);
    if (!bytes || !dcx::is_dcx(*bytes)) return bytes;
    auto h = dcx::read_header(*bytes);
    if (!h) return std::move(h).error().within(path.filename().string());
    if (h->compression == dcx::Compression::krak) return bytes;  // add_bytes decodes only what it indexes
    auto d = dcx::decompress(*bytes, options);
    if (!d) return std::move(d).error().within(path.filename().string());
    return d;
}

Result<void> MaterialLibrary::add_file(const std::filesystem::path& path, const dcx::DecodeOptions& options) {
    auto bytes = read_binder(path, options);
    if (!bytes) return std::move(bytes).error();
    return add_bytes(std::move(*bytes), path.filename().string(), options);
}

std::vector<std::filesystem::path> MaterialLibrary::binders_in(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> out;
    for (const auto& d : {dir, dir / "material", dir / "mtd"}) {
        std::error_code ec;
        if (!std::filesystem::is_directory(d, ec)) continue;
        std::vector<std::filesystem::path> here;
        for (std::filesystem::directory_iterator it(d, ec), end; !ec && it != end; it.increment(ec))
            if (it->is_regular_file(ec) && is_material_binder_name(it->path().filename().string())) here.push_back(it->path());
        std::sort(here.begin(), here.end());
        out.insert(out.end(), here.begin(), here.end());
    }
    return out;
}

std::vector<std::filesystem::path> MaterialLibrary::binders_for(const std::filesystem::path& input) {
    std::error_code ec;
    std::filesystem::path dir = std::filesystem::absolute(input, ec).parent_path();
    for (int up = 0; up < 3 && !dir.empty(); ++up) {
        auto found = binders_in(dir);
        if (!found.empty()) return found;
        if (dir == dir.parent_path()) break;
        dir = dir.parent_path();
    }
    return {};
}

void MaterialLibrary::keep_only(std::vector<std::string> keys) {
    m->keep.emplace();
    for (auto& k : keys) m->keep->insert(std::move(k));
}

size_t MaterialLibrary::size() const { return m->members.size(); }
uint64_t MaterialLibrary::decoded_bytes() const { return m->decoded.load(); }
const std::vector<std::string>& MaterialLibrary::sources() const { return m->source_names; }

Result<const Material*> MaterialLibrary::find(std::string_view path) const {
    auto it = m->by_key.find(material_key(path));
    if (it == m->by_key.end()) return static_cast<const Material*>(nullptr);
    const auto& candidates = it->second;
    if (candidates.size() > 1) {
        // Same name in several folders: the MATBIN that says it was built from `path` wins.
        const std::string want = lower(path);
        for (size_t i : candidates) {
            const auto& r = m->cached(i);
            if (r && lower(r->source_path) == want) return &*r;
        }
    }
    const auto& r = m->cached(candidates.front());
    if (!r) return r.error();
    return &*r;
}

std::vector<std::string> MaterialLibrary::member_names() const {
    std::vector<std::string> out;
    out.reserve(m->members.size());
    for (const auto& mb : m->members) out.push_back(mb.name);
    return out;
}

Result<Material> MaterialLibrary::parse_member(size_t i) const {
    if (i >= m->members.size()) return make_error("member " + std::to_string(i) + " out of range", "material_library");
    return m->parse(i);
}

}  // namespace drape::matbin
