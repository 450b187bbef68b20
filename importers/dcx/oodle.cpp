#include "oodle.h"

#include <dlfcn.h>

#include <map>
#include <mutex>

namespace drape::oodle {

namespace {

// The signature the Oodle 2.6+ runtimes export (oo2core_6 is the one Sekiro and ER ship).
using DecompressFn = int64_t (*)(const void* comp, int64_t comp_size, void* raw, int64_t raw_size, int fuzz_safe,
                                 int check_crc, int verbosity, void* dec_buf_base, int64_t dec_buf_size,
                                 void* fp_callback, void* callback_user_data, void* decoder_memory,
                                 int64_t decoder_memory_size, int thread_phase);

struct Loaded {
    void* handle = nullptr;
    DecompressFn fn = nullptr;
    std::string error;
};

Loaded load(const std::string& path) {
    static std::mutex mutex;
    static std::map<std::string, Loaded> cache;
    std::lock_guard lock(mutex);
    auto it = cache.find(path);
    if (it != cache.end()) return it->second;
    Loaded l;
    l.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!l.handle) {
        const char* e = dlerror();
        l.error = "cannot load the Oodle library \"" + path + "\": " + (e ? e : "unknown error") +
                  " (a Windows .dll cannot be loaded on Linux: use a native liboo2corelinux64.so)";
    } else {
        l.fn = reinterpret_cast<DecompressFn>(dlsym(l.handle, "OodleLZ_Decompress"));
        if (!l.fn) l.error = "the library \"" + path + "\" has no OodleLZ_Decompress symbol";
    }
    cache[path] = l;
    return l;
}

}  // namespace

Result<void> decompress(const std::string& library_path, Bytes in, std::span<uint8_t> out) {
    Loaded l = load(library_path);
    if (!l.fn) return make_error(l.error, "oodle");
    // fuzz_safe = 1: the library checks its input; thread_phase 3 = decode in one call.
    int64_t r = l.fn(in.data(), int64_t(in.size()), out.data(), int64_t(out.size()), 1, 0, 0, nullptr, 0, nullptr,
                     nullptr, nullptr, 0, 3);
    if (r != int64_t(out.size())) {
        return make_error_at(0, "oodle",
                             "OodleLZ_Decompress failed: returned " + std::to_string(r) + " for " +
                                 std::to_string(out.size()) + " expected bytes");
    }
    return {};
}

}  // namespace drape::oodle
