#include "drape/game/loaders.h"

#include <algorithm>
#include <cctype>

#include "drape/io/file.h"
#include "drape/tpf/tpf.h"

namespace drape::game {

Result<flver::Model> load_flver(Bytes bytes, const std::string& label, const dcx::DecodeOptions& options) {
    std::optional<Member> found;
    std::optional<Error> first_error;
    walk_members(
        bytes, label, options,
        [&](Member&& m) {
            if (!flver::is_flver(m.bytes)) return Visit::next;
            found = std::move(m);
            return Visit::stop;
        },
        [&](Error&& e) {
            if (!first_error) first_error = std::move(e);
            return Visit::next;
        });
    if (!found) {
        if (first_error) return std::move(*first_error);
        return make_error(flver::is_flver(bytes) ? "no FLVER" : "no FLVER inside (not a FLVER, nor a DCX/BND4 holding one)",
                          "model.input")
            .within(label);
    }
    auto m = flver::read_flver(found->bytes);
    if (!m) {
        Error e = std::move(m).error();
        // found->name is "label > member > ..."; the error chain wants each level.
        std::vector<std::string> chain;
        const std::string& n = found->name;
        for (size_t at = 0;;) {
            size_t next = n.find(" > ", at);
            chain.push_back(n.substr(at, next == std::string::npos ? std::string::npos : next - at));
            if (next == std::string::npos) break;
            at = next + 3;
        }
        e.chain.insert(e.chain.begin(), chain.begin(), chain.end());
        return e;
    }
    return m;
}

Result<flver::Model> load_flver_file(const std::filesystem::path& path, const dcx::DecodeOptions& options) {
    auto bytes = read_file(path);
    if (!bytes) return std::move(bytes).error();
    return load_flver(*bytes, path.filename().string(), options);
}

std::optional<havok::Skeleton> find_havok_skeleton(const std::vector<Member>& members, const std::filesystem::path& folder) {
    auto comps = compendiums_for(members, folder);
    havok::CompendiumSet none;
    const havok::CompendiumSet& set = comps ? *comps : none;
    auto is_skel = [](const std::string& n) {
        std::string l = n;
        for (char& c : l) c = char(std::tolower(uint8_t(c)));
        return l.find("skeleton") != std::string::npos;
    };
    // Members named like the anibnd's skeleton first, then any Havok member with a skeleton.
    std::vector<const Member*> order;
    for (const auto& m : members)
        if (is_skel(m.name)) order.push_back(&m);
    for (const auto& m : members)
        if (!is_skel(m.name)) order.push_back(&m);
    for (const Member* m : order) {
        if (!havok::is_packfile(m->bytes) && !havok::is_tagfile(m->bytes)) continue;
        auto f = havok::read_hkx(m->bytes, set.lookup());
        if (!f) continue;
        auto c = havok::read_animation_container(*f);
        if (c && !c->skeletons.empty()) return c->skeletons[0];
    }
    return std::nullopt;
}

Result<std::optional<havok::Skeleton>> load_havok_skeleton(const std::filesystem::path& path, const dcx::DecodeOptions& options) {
    auto opened = open_members(path, path.filename().string(), options);
    if (!opened) return opened.error();
    return find_havok_skeleton(*opened, path.parent_path());
}

std::vector<std::vector<uint8_t>> collect_tpfs(Bytes bytes, const dcx::DecodeOptions& options) {
    std::vector<std::vector<uint8_t>> out;
    walk_members(
        bytes, "", options,
        [&](Member&& m) {
            if (tpf::is_tpf(m.bytes)) out.push_back(std::move(m.bytes));
            return Visit::next;
        },
        [](Error&&) { return Visit::next; });
    return out;
}

std::string game_of_sdk(std::string_view sdk) {
    if (sdk == "20180100") return "Elden Ring";
    if (sdk == "20160200") return "Sekiro";
    if (sdk == "20150100") return "Dark Souls Remastered";
    return "";
}

}  // namespace drape::game
