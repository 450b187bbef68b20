#pragma once
// Memory a thread keeps between calls (the PNG encoder's scanlines, the fast deflate's steps).
#include <cstddef>
#include <memory>

namespace drape::image_detail {

// Up to `KeepBytes` are kept between calls and reused; a larger request is allocated for that
// call alone and freed by done(). Encoding texture after texture then pays no page faults for
// fresh multi-megabyte buffers, which glibc maps and unmaps per call at these sizes (about 1,100
// faults per 1024^2 RGB texture, about 12% of its encoding time, between the two encoders).
// The memory is not initialised. Not thread-safe: keep one per thread (thread_local).
template <class T, size_t KeepBytes = (size_t(16) << 20)>
class KeptBuffer {
public:
    T* get(size_t n) {
        if (n > KeepBytes / sizeof(T)) {
            once_.reset(new T[n]);
            return once_.get();
        }
        if (kept_count_ < n) {
            kept_.reset(new T[n]);
            kept_count_ = n;
        }
        return kept_.get();
    }
    // Frees what the last get() allocated for its call alone; the kept memory stays.
    void done() { once_.reset(); }

private:
    std::unique_ptr<T[]> kept_, once_;
    size_t kept_count_ = 0;
};

}  // namespace drape::image_detail
