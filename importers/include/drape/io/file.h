// drape: whole-file loading and safe output paths.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "drape/io/error.h"
#include "drape/io/reader.h"

namespace drape {

// Reads a whole file. Files above `max_size` are refused (default 4 GiB).
Result<std::vector<uint8_t>> read_file(const std::filesystem::path& path, uint64_t max_size = (uint64_t(1) << 32));
Result<void> write_file(const std::filesystem::path& path, const void* data, size_t size);
inline Result<void> write_file(const std::filesystem::path& path, const std::vector<uint8_t>& data) {
    return write_file(path, data.data(), data.size());
}

// Writes a whole file atomically: the bytes go to a temporary file beside `path`, which is then
// renamed over it, so a reader never sees a half-written file and an interrupted write leaves
// any previous file in place. Creates the parent folders.
Result<void> write_file_atomic(const std::filesystem::path& path, const void* data, size_t size);
inline Result<void> write_file_atomic(const std::filesystem::path& path, Bytes data) {
    return write_file_atomic(path, data.data(), data.size());
}
// The same for content streamed by `write` (false when it failed), e.g. a large .glb.
Result<void> write_file_atomic(const std::filesystem::path& path, const std::function<bool(std::ostream&)>& write);

// Turns a name stored in a game file (a Windows path such as
// `N:\GR\data\INTERROOT_win64\chr\c3000\c3000.hkx`) into a safe relative path: backslashes
// become '/', drive letters and leading slashes are removed, `.` and `..` components and
// NUL/control characters are dropped, characters Windows forbids become '_', and an empty
// result becomes `unnamed`. The result never leaves the folder it is joined to.
std::string sanitize_member_path(std::string_view stored_name);

// Joins `root` and a relative path made by sanitize_member_path, and checks (lexically) that
// the result stays inside root. Returns an error if it would not.
Result<std::filesystem::path> safe_join(const std::filesystem::path& root, std::string_view relative);

}  // namespace drape
