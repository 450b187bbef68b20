// drape solver: a bump arena over caller memory. With a null base it only measures, so the size
// query and the build walk the same layout code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

namespace drape::solver {

class Arena {
public:
    Arena(void* base, size_t capacity) : m_base(static_cast<unsigned char*>(base)), m_capacity(capacity) {}
    bool measuring() const { return m_base == nullptr; }
    bool overflowed() const { return m_overflow; }
    size_t used() const { return m_used; }

    // n value-initialised Ts, 16-byte aligned; nullptr while measuring or when out of room.
    template <class T>
    T* take(size_t n) {
        m_used = (m_used + 15) & ~size_t(15);
        const size_t at = m_used;
        m_used += n * sizeof(T);
        if (m_base == nullptr) return nullptr;
        if (m_used > m_capacity) {
            m_overflow = true;
            return nullptr;
        }
        T* p = reinterpret_cast<T*>(m_base + at);
        for (size_t i = 0; i < n; ++i) new (p + i) T();
        return p;
    }

    // The same with the array's start 64-byte aligned (a cache line: the particle arrays, whose
    // 512-bit loads and masked stores would otherwise split lines). The 48 bytes of slack are
    // reserved whatever the base, so measuring and building use the same sizes.
    template <class T>
    T* take_line_aligned(size_t n) {
        m_used = (m_used + 15) & ~size_t(15);
        const size_t start = m_used;
        m_used += 48 + n * sizeof(T);
        if (m_base == nullptr) return nullptr;
        if (m_used > m_capacity) {
            m_overflow = true;
            return nullptr;
        }
        const uintptr_t a = (reinterpret_cast<uintptr_t>(m_base + start) + 63) & ~uintptr_t(63);
        T* p = reinterpret_cast<T*>(a);
        for (size_t i = 0; i < n; ++i) new (p + i) T();
        return p;
    }

private:
    unsigned char* m_base;
    size_t m_capacity;
    size_t m_used = 0;
    bool m_overflow = false;
};

}  // namespace drape::solver
