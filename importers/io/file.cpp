#include "drape/io/file.h"

#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <fstream>

#include "drape/io/reader.h"

namespace drape {

Result<std::vector<uint8_t>> read_file(const std::filesystem::path& path, uint64_t max_size) {
    Error e;
    e.chain.push_back(path.string());
    std::error_code ec;
    auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status)) {
        e.reason = "cannot open: no such file";
        return e;
    }
    if (std::filesystem::is_directory(status)) {
        e.reason = "is a folder, not a file";
        return e;
    }
    std::ifstream f(path, std::ios::binary | std::ios::ate);
    if (!f) {
        e.reason = "cannot open for reading";
        return e;
    }
    auto size = static_cast<uint64_t>(f.tellg());
    if (size > max_size) {
        e.reason = "file of " + std::to_string(size) + " B exceeds the " + std::to_string(max_size) + " B limit";
        return e;
    }
    std::vector<uint8_t> data(size);
    f.seekg(0);
    if (size && !f.read(reinterpret_cast<char*>(data.data()), std::streamsize(size))) {
        e.reason = "read failed";
        return e;
    }
    return data;
}

Result<void> write_file(const std::filesystem::path& path, const void* data, size_t size) {
    std::error_code ec;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f) {
        Error e = make_error("cannot open for writing");
        e.chain.push_back(path.string());
        return e;
    }
    if (size) f.write(static_cast<const char*>(data), std::streamsize(size));
    if (!f) {
        Error e = make_error("write failed");
        e.chain.push_back(path.string());
        return e;
    }
    return {};
}

namespace {

// A temporary name beside `path`, unique per process and call: concurrent writers (the convert
// jobs) never share one.
std::filesystem::path temporary_beside(const std::filesystem::path& path) {
    static std::atomic<unsigned> counter{0};
    std::filesystem::path tmp = path;
    tmp += ".drape-tmp" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
    return tmp;
}

Result<void> make_parent(const std::filesystem::path& path) {
    std::error_code ec;
    if (!path.parent_path().empty()) std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) return make_error("cannot create folder " + path.parent_path().string() + ": " + ec.message());
    return {};
}

Result<void> move_into_place(const std::filesystem::path& tmp, const std::filesystem::path& path) {
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        Error e = make_error("cannot rename the temporary file into place");
        e.chain.push_back(path.string());
        return e;
    }
    return {};
}

}  // namespace

Result<void> write_file_atomic(const std::filesystem::path& path, const void* data, size_t size) {
    if (auto p = make_parent(path); !p) return p;
    const std::filesystem::path tmp = temporary_beside(path);
    if (auto w = write_file(tmp, data, size); !w) {
        std::error_code ec;
        std::filesystem::remove(tmp, ec);
        return w;
    }
    return move_into_place(tmp, path);
}

Result<void> write_file_atomic(const std::filesystem::path& path, const std::function<bool(std::ostream&)>& write) {
    if (auto p = make_parent(path); !p) return p;
    const std::filesystem::path tmp = temporary_beside(path);
    bool ok;
    {
        std::ofstream out(tmp, std::ios::binary);
        ok = out && write(out);
        out.close();
        ok = ok && !out.fail();
    }
    if (!ok) {
        std::error_code ec;
        std::filesystem::remove(tmp, ec);
        Error e = make_error("cannot write the file");
        e.chain.push_back(path.string());
        return e;
    }
    return move_into_place(tmp, path);
}

namespace {

// What sanitize_member_path keeps of each byte: 0 = dropped (NUL and control characters), the
// characters Windows refuses in names as '_', the others as they are.
constexpr std::array<char, 256> k_member_char = [] {
    std::array<char, 256> t{};
    for (int u = 0; u < 256; ++u) {
        char c = char(u);
        if (u < 0x20 || u == 0x7F) c = 0;
        else if (c == '<' || c == '>' || c == ':' || c == '"' || c == '|' || c == '?' || c == '*') c = '_';
        t[size_t(u)] = c;
    }
    return t;
}();

}  // namespace

std::string sanitize_member_path(std::string_view name) {
    // Split on both separators; drop drive letters ("N:"), empty, "." and ".." components.
    // One pass, each component cleaned straight into `out` and taken back when it is dropped
    // (a binder index names thousands of members: building each component in a string of its
    // own, character by character, was 2-4% of `drape convert`).
    std::string out;
    out.resize(name.size() + 1);
    char* const base = out.data();
    size_t size = 0;  // of out's meaningful prefix
    size_t start = 0;
    for (size_t i = 0; i <= name.size(); ++i) {
        if (i < name.size() && name[i] != '\\' && name[i] != '/') continue;
        const std::string_view cur = name.substr(start, i - start);
        start = i + 1;
        const size_t mark = size;  // out before this component
        const size_t first = mark == 0 ? 0 : mark + 1;  // after the separator
        size_t end = first;
        for (char c : cur) {
            const char m = k_member_char[static_cast<unsigned char>(c)];
            base[end] = m;
            end += m != 0;
        }
        // Trailing dots and spaces are not portable (Windows strips them).
        while (end > first && (base[end - 1] == '.' || base[end - 1] == ' ')) --end;
        const std::string_view p(base + first, end - first);
        const bool drive = cur.size() == 2 && cur[1] == ':' && mark == 0;  // the first component kept
        if (p.empty() || p == "." || p == ".." || drive) continue;  // dropped: out stays at mark
        if (mark != 0) base[mark] = '/';
        size = end;
    }
    out.resize(size);
    return out.empty() ? "unnamed" : out;
}

Result<std::filesystem::path> safe_join(const std::filesystem::path& root, std::string_view relative) {
    std::string clean = sanitize_member_path(relative);
    std::filesystem::path joined = (root / clean).lexically_normal();
    std::filesystem::path base = root.lexically_normal();
    auto rel = joined.lexically_relative(base);
    if (rel.empty() || rel.is_absolute() || *rel.begin() == "..") {
        return make_error("path \"" + std::string(relative) + "\" would leave the output folder");
    }
    return joined;
}

}  // namespace drape
