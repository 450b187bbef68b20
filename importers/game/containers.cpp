#include "drape/game/containers.h"

#include "drape/bnd/bnd4.h"
#include "drape/io/file.h"
#include "drape/param/param.h"

namespace drape::game {

namespace {

struct Walker {
    const dcx::DecodeOptions& options;
    const std::function<Visit(Member&&)>& on_member;
    const std::function<Visit(Error&&)>& on_error;
    bool stopped = false;

    void fail(Error e) {
        if (on_error(std::move(e)) == Visit::stop) stopped = true;
    }

    // `owned` holds the bytes when this level had to produce them (decompression, a member copy).
    void walk(std::vector<uint8_t> owned, const std::string& label, unsigned depth, const std::string& binder_version = {}) {
        if (stopped) return;
        if (depth > k_max_container_depth) {
            fail(std::move(make_error("containers nested deeper than " + std::to_string(k_max_container_depth) + " levels")
                               .within(label)));
            return;
        }
        if (param::regulation_key(owned)) {
            auto d = param::decrypt_regulation(owned);
            if (!d) return fail(std::move(d.error().within(label)));
            owned.clear();
            owned.shrink_to_fit();
            return walk(std::move(*d), label, depth + 1);
        }
        if (dcx::is_dcx(owned)) {
            auto d = dcx::decompress(owned, options);
            if (!d) return fail(std::move(d.error().within(label)));
            owned.clear();
            owned.shrink_to_fit();
            return walk(std::move(*d), label, depth + 1, binder_version);
        }
        if (bnd::is_bnd4(owned)) {
            auto b = bnd::read_bnd4(owned);
            if (!b) return fail(std::move(b.error().within(label)));
            for (const auto& e : b->entries) {
                if (stopped) return;
                auto eb = bnd::entry_bytes(*b, e);
                if (!eb) {
                    fail(std::move(eb.error().within(e.name).within(label)));
                    continue;
                }
                walk(std::move(*eb), label + " > " + e.name, depth + 1, b->version);
            }
            return;
        }
        if (on_member(Member{label, std::move(owned), binder_version}) == Visit::stop) stopped = true;
    }
};

void walk_owned(std::vector<uint8_t> bytes, const std::string& label, const dcx::DecodeOptions& options,
                const std::function<Visit(Member&&)>& on_member, const std::function<Visit(Error&&)>& on_error) {
    Walker w{options, on_member, on_error};
    w.walk(std::move(bytes), label, 0);
}

Result<std::vector<Member>> open_owned(std::vector<uint8_t> bytes, const std::string& label, const dcx::DecodeOptions& options) {
    std::vector<Member> out;
    std::optional<Error> first;
    walk_owned(
        std::move(bytes), label, options,
        [&](Member&& m) {
            out.push_back(std::move(m));
            return Visit::next;
        },
        [&](Error&& e) {
            first = std::move(e);
            return Visit::stop;
        });
    if (first) return std::move(*first);
    return out;
}

}  // namespace

void walk_members(Bytes bytes, const std::string& label, const dcx::DecodeOptions& options,
                  const std::function<Visit(Member&&)>& on_member, const std::function<Visit(Error&&)>& on_error) {
    walk_owned(std::vector<uint8_t>(bytes.begin(), bytes.end()), label, options, on_member, on_error);
}

Result<std::vector<Member>> open_members(Bytes bytes, const std::string& label, const dcx::DecodeOptions& options) {
    return open_owned(std::vector<uint8_t>(bytes.begin(), bytes.end()), label, options);
}

Result<std::vector<Member>> open_members(const std::filesystem::path& path, const std::string& label,
                                         const dcx::DecodeOptions& options) {
    auto data = read_file(path);
    if (!data) return data.error();
    return open_owned(std::move(*data), label, options);
}

std::vector<Member> open_members_lenient(Bytes bytes, const std::string& label, const dcx::DecodeOptions& options,
                                         std::vector<Error>& errors) {
    std::vector<Member> out;
    walk_members(
        bytes, label, options,
        [&](Member&& m) {
            out.push_back(std::move(m));
            return Visit::next;
        },
        [&](Error&& e) {
            errors.push_back(std::move(e));
            return Visit::next;
        });
    return out;
}

Result<havok::CompendiumSet> compendiums_for(const std::vector<Member>& members, const std::filesystem::path& folder) {
    havok::CompendiumSet set;
    std::vector<Bytes> siblings;
    for (const auto& m : members) siblings.emplace_back(m.bytes);
    std::vector<std::vector<uint8_t>> beside;
    if (members.size() == 1 && havok::tagfile_compendium_id(members[0].bytes)) {
        std::error_code ec;
        for (const auto& de : std::filesystem::directory_iterator(folder.empty() ? "." : folder, ec)) {
            if (de.path().extension() != ".compendium") continue;
            if (auto c = read_file(de.path())) beside.push_back(std::move(*c));
        }
        for (const auto& c : beside) siblings.emplace_back(c);
    }
    if (auto r = set.add_siblings(siblings); !r) return r.error();
    return set;
}

std::filesystem::path bdt_beside(const std::filesystem::path& bhd) {
    std::string ext = bhd.extension().string();
    auto pos = ext.rfind("bhd");
    if (pos == std::string::npos) return {};
    ext.replace(pos, 3, "bdt");
    auto p = bhd;
    p.replace_extension(ext);
    return p;
}

}  // namespace drape::game
