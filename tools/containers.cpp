#include "containers.h"

#include "drape/bnd/bnd4.h"
#include "drape/io/file.h"

namespace drape::cli {

namespace {

Result<void> open_into(std::vector<uint8_t> bytes, const std::string& label, const dcx::DecodeOptions& options,
                       std::vector<Member>& out, unsigned depth) {
    if (depth > 6) return make_error("containers nested deeper than 6 levels").within(label);
    if (dcx::is_dcx(bytes)) {
        auto d = dcx::decompress(bytes, options);
        if (!d) return std::move(d.error().within(label));
        return open_into(std::move(*d), label, options, out, depth + 1);
    }
    if (bnd::is_bnd4(bytes)) {
        auto b = bnd::read_bnd4(bytes);
        if (!b) return std::move(b.error().within(label));
        for (const auto& e : b->entries) {
            auto eb = bnd::entry_bytes(*b, e);
            if (!eb) return std::move(eb.error().within(e.name).within(label));
            if (auto r = open_into(std::move(*eb), label + " > " + e.name, options, out, depth + 1); !r) return r;
        }
        return {};
    }
    out.push_back({label, std::move(bytes)});
    return {};
}

}  // namespace

Result<std::vector<Member>> open_members(Bytes bytes, const std::string& label, const dcx::DecodeOptions& options) {
    std::vector<Member> out;
    if (auto r = open_into(std::vector<uint8_t>(bytes.begin(), bytes.end()), label, options, out, 0); !r) return r.error();
    return out;
}

Result<std::vector<Member>> open_members(const std::filesystem::path& path, const std::string& label,
                                         const dcx::DecodeOptions& options) {
    auto data = read_file(path);
    if (!data) return data.error();
    std::vector<Member> out;
    if (auto r = open_into(std::move(*data), label, options, out, 0); !r) return r.error();
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

}  // namespace drape::cli
