// drape: Oodle Kraken decoder, written from docs/KRAKEN.md alone (clean room).
//
// Layout of this file, following the document:
//   bit readers (KRAKEN.md 2), array headers (5), Huffman (6), tANS (7), RLE (8),
//   recursive arrays (9), LZ chunks (10), quanta and chunks (4), block framing (3).
//
// Every function that can fail returns bool and records the first failure in the Ctx
// (input offset, reason, and the path of the array being decoded). Hot loops never allocate:
// scratch space comes from a per-thread arena that is reused from chunk to chunk.
#include "drape/dcx/kraken.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#endif
#include <string>
#include <thread>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <smmintrin.h>
#endif

namespace drape::kraken {
namespace {

constexpr size_t k_block_size = 0x40000;  // 3.1
constexpr size_t k_chunk_size = 0x20000;  // 4
constexpr int k_max_depth = 16;           // 5.2: nesting limit (files need 2)
constexpr size_t k_max_array = 0x40000;   // largest decoded size any array header can state
constexpr size_t k_slack = 64;            // spare bytes after every arena buffer

// ----------------------------------------------------------------------------------------
// Byte helpers

inline uint64_t load_le64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
    return v;
}
inline uint64_t load_be64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
    return v;
}
inline void store_le64(uint8_t* p, uint64_t v) {
    if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
    std::memcpy(p, &v, 8);
}
inline uint32_t be16(const uint8_t* p) { return uint32_t(p[0]) << 8 | p[1]; }
inline uint32_t be24(const uint8_t* p) { return uint32_t(p[0]) << 16 | uint32_t(p[1]) << 8 | p[2]; }
inline uint32_t be32(const uint8_t* p) { return uint32_t(p[0]) << 24 | be24(p + 1); }
inline uint32_t le16(const uint8_t* p) { return uint32_t(p[0]) | uint32_t(p[1]) << 8; }
inline uint32_t le24(const uint8_t* p) { return le16(p) | uint32_t(p[2]) << 16; }

// 32 bytes from s to d, both loads before the stores: for copies whose source ends at least
// 32 bytes before d, or that do not overlap at all.
inline void copy32(uint8_t* d, const uint8_t* s) {
#if defined(__SSE2__)
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d), a);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 16), b);
#else
    std::memcpy(d, s, 32);
#endif
}
inline void copy16(uint8_t* d, const uint8_t* s) {
#if defined(__SSE2__)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d), _mm_loadu_si128(reinterpret_cast<const __m128i*>(s)));
#else
    std::memcpy(d, s, 16);
#endif
}

// 0, -1, 1, -2, 2, ... for v = 0, 1, 2, 3, 4, ...; without a branch (the code-length
// descriptions' values alternate in sign unpredictably).
constexpr int zigzag(uint32_t v) { return int(v >> 1) ^ -int(v & 1); }
static_assert(zigzag(0) == 0 && zigzag(1) == -1 && zigzag(2) == 1 && zigzag(3) == -2 && zigzag(255) == -128);
inline int bitlen(uint32_t x) { return x ? 32 - std::countl_zero(x) : 0; }

std::string num(uint64_t v) { return std::to_string(v); }

// The 11 low bits of x in reverse order (bit 10 to bit 0, ...).
constexpr uint8_t k_rev8[256] = {
#define R2(n) n, n + 2 * 64, n + 1 * 64, n + 3 * 64
#define R4(n) R2(n), R2(n + 2 * 16), R2(n + 1 * 16), R2(n + 3 * 16)
#define R6(n) R4(n), R4(n + 2 * 4), R4(n + 1 * 4), R4(n + 3 * 4)
    R6(0), R6(2), R6(1), R6(3)
#undef R6
#undef R4
#undef R2
};
static_assert(k_rev8[1] == 0x80 && k_rev8[0x0F] == 0xF0 && k_rev8[0x35] == 0xAC);
inline uint32_t reverse11(uint32_t x) { return (uint32_t(k_rev8[x & 0xFF]) << 3) | (k_rev8[(x >> 8) & 7] >> 5); }

// ----------------------------------------------------------------------------------------
// Scratch arena: stack-like (mark / release), blocks are kept and reused. Blocks are
// zero-filled once when created and arenas are reused across calls (ArenaPool), so every byte
// the decoder can read from scratch (the fast LZ loop reads a literal buffer's slack before
// it knows the literals ran out, and the length/distance lists' slack under a discarded
// select) is initialised memory, and a call pays no allocation or page faults for it.

class Arena {
public:
    struct Mark {
        size_t blk, off;
    };
    Mark mark() const { return {m_blk, m_off}; }
    void release(Mark m) {
        m_blk = m.blk;
        m_off = m.off;
    }
    uint8_t* alloc(size_t n) {
        n = (n + k_slack + 15) & ~size_t(15);
        for (;;) {
            if (m_blk < m_blocks.size()) {
                Block& b = m_blocks[m_blk];
                if (m_off + n <= b.size) {
                    uint8_t* p = b.data.get() + m_off;
                    m_off += n;
                    return p;
                }
                ++m_blk;
                m_off = 0;
                continue;
            }
            size_t size = std::max(n, size_t(1) << 20);
            m_blocks.push_back({std::unique_ptr<uint8_t[]>(new uint8_t[size]()), size});  // zeroed once
        }
    }

private:
    struct Block {
        std::unique_ptr<uint8_t[]> data;
        size_t size;
    };
    std::vector<Block> m_blocks;
    size_t m_blk = 0, m_off = 0;
};

// Arenas kept between calls: a decoding thread takes one for the call and gives it back, so
// the scratch memory is allocated and zero-filled once per concurrently decoding thread, not
// once per call (zero-filling a megabyte per call would cost more than decoding a small file).
// At most k_kept arenas are kept (about 1 MiB each).
class ArenaPool {
public:
    std::unique_ptr<Arena> take() {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            if (!m_free.empty()) {
                std::unique_ptr<Arena> a = std::move(m_free.back());
                m_free.pop_back();
                return a;
            }
        }
        return std::make_unique<Arena>();
    }
    void give(std::unique_ptr<Arena> a) {
        a->release({0, 0});
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_free.size() < k_kept) m_free.push_back(std::move(a));
    }

private:
    static constexpr size_t k_kept = 8;
    std::mutex m_mutex;
    std::vector<std::unique_ptr<Arena>> m_free;
};

ArenaPool& arena_pool() {
    static ArenaPool pool;
    return pool;
}

// An arena of the pool for the lifetime of one decoding thread's work in one call.
class PooledArena {
public:
    PooledArena() : m_arena(arena_pool().take()) {}
    ~PooledArena() { arena_pool().give(std::move(m_arena)); }
    PooledArena(const PooledArena&) = delete;
    PooledArena& operator=(const PooledArena&) = delete;
    Arena& get() { return *m_arena; }

private:
    std::unique_ptr<Arena> m_arena;
};

// ----------------------------------------------------------------------------------------
// Helper threads for parallel decoding, kept between calls. A parallel call used to start and
// join its threads every time; a kept helper that has just finished a task keeps polling for
// the next one for a short while (k_helper_spin) before it sleeps, so back-to-back calls (a
// folder of files, the benchmark) find it running instead of waking a halted vCPU, and pay no
// thread start. A call takes free helpers from the pool (starting new ones when none is free)
// and returns them when their task is done; at most k_kept_helpers idle helpers are kept.

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

constexpr auto k_helper_spin = std::chrono::microseconds(200);
constexpr auto k_caller_yield = std::chrono::microseconds(2000);

class Helper {
public:
    Helper() : m_thread([this] { loop(); }) {}
    ~Helper() {
        m_quit.store(true);
        post(nullptr);
        m_thread.join();
    }
    Helper(const Helper&) = delete;
    Helper& operator=(const Helper&) = delete;

    // Runs `task` on this helper; wait() returns once it has finished.
    void run(const std::function<void()>* task) {
        m_done.store(false, std::memory_order_relaxed);
        post(task);
    }
    // The caller has finished its own share and has nothing else to do: it polls for k_helper_spin,
    // then yields its core for up to k_caller_yield more (the helper's last block can take longer
    // than the poll, and a sleeping caller pays a wake-up), then sleeps.
    void wait() {
        const auto start = std::chrono::steady_clock::now();
        while (!m_done.load(std::memory_order_acquire)) {
            const auto waited = std::chrono::steady_clock::now() - start;
            if (waited > k_helper_spin + k_caller_yield) {
                m_done.wait(false, std::memory_order_acquire);
                break;
            }
            if (waited > k_helper_spin)
                std::this_thread::yield();
            else
                cpu_relax();
        }
    }

private:
    void post(const std::function<void()>* task) {
        m_task.store(task, std::memory_order_release);
        m_gen.fetch_add(1, std::memory_order_release);
        m_gen.notify_one();
    }
    void loop() {
        unsigned seen = 0;
        for (;;) {
            auto until = std::chrono::steady_clock::now() + k_helper_spin;
            unsigned g;
            while ((g = m_gen.load(std::memory_order_acquire)) == seen) {
                if (std::chrono::steady_clock::now() > until) {
                    m_gen.wait(seen, std::memory_order_acquire);
                    until = std::chrono::steady_clock::now() + k_helper_spin;
                }
                cpu_relax();
            }
            seen = g;
            if (m_quit.load()) return;
            const std::function<void()>* task = m_task.load(std::memory_order_acquire);
            if (task) (*task)();
            m_done.store(true, std::memory_order_release);
            m_done.notify_one();
        }
    }

    std::atomic<unsigned> m_gen{0};  // incremented per post; the helper runs m_task when it changes
    std::atomic<const std::function<void()>*> m_task{nullptr};
    std::atomic<bool> m_done{true}, m_quit{false};
    std::thread m_thread;  // last: starts after the fields above exist
};

class HelperPool;
HelperPool& helper_pool_instance();

class HelperPool {
public:
#if defined(__unix__) || defined(__APPLE__)
    // A child of fork() has none of the parent's helper threads: it forgets the kept ones
    // (leaked, not destroyed: their threads do not exist there) and starts its own.
    HelperPool() {
        pthread_atfork([] { helper_pool_instance().m_mutex.lock(); }, [] { helper_pool_instance().m_mutex.unlock(); },
                       [] {
                           HelperPool& p = helper_pool_instance();
                           for (auto& h : p.m_free) (void)h.release();
                           p.m_free.clear();
                           p.m_mutex.unlock();
                       });
    }
#endif
    std::unique_ptr<Helper> take() {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            if (!m_free.empty()) {
                std::unique_ptr<Helper> h = std::move(m_free.back());
                m_free.pop_back();
                return h;
            }
        }
        return std::make_unique<Helper>();
    }
    void give(std::unique_ptr<Helper> h) {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_free.size() < k_kept_helpers) m_free.push_back(std::move(h));
    }

private:
    static constexpr size_t k_kept_helpers = 8;
    std::mutex m_mutex;
    std::vector<std::unique_ptr<Helper>> m_free;
};

HelperPool& helper_pool_instance() {
    static HelperPool pool;
    return pool;
}
HelperPool& helper_pool() { return helper_pool_instance(); }

// ----------------------------------------------------------------------------------------
// Decoding context: error state and the path of names for error fields.

struct Ctx {
    const uint8_t* in_base = nullptr;
    long block = -1;
    long chunk = -1;
    struct Name {
        const char* s;
        long idx;
    };
    Name names[40];
    int depth = 0;
    bool failed = false;
    size_t err_off = 0;
    std::string err_field, err_reason;
    Arena& arena;

    explicit Ctx(Arena& a) : arena(a) {}

    std::string path() const {
        std::string s = "kraken";
        char buf[48];
        if (block >= 0) {
            std::snprintf(buf, sizeof buf, ".block[%ld]", block);
            s += buf;
        }
        if (chunk >= 0) {
            std::snprintf(buf, sizeof buf, ".chunk[%ld]", chunk);
            s += buf;
        }
        for (int i = 0; i < depth; ++i) {
            s += '.';
            s += names[i].s;
            if (names[i].idx >= 0) {
                std::snprintf(buf, sizeof buf, "[%ld]", names[i].idx);
                s += buf;
            }
        }
        return s;
    }
    bool fail(const uint8_t* at, std::string reason) {
        if (!failed) {
            failed = true;
            err_off = size_t(at - in_base);
            err_reason = std::move(reason);
            err_field = path();
        }
        return false;
    }
};

struct Scope {
    Ctx& c;
    Scope(Ctx& ctx, const char* s, long idx = -1) : c(ctx) { c.names[c.depth++] = {s, idx}; }
    ~Scope() { --c.depth; }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
};

// ----------------------------------------------------------------------------------------
// Bit readers (KRAKEN.md 2). `pos` counts bytes loaded so far (may run past the region; bytes
// past it read as zero), `cnt` the unconsumed bits in `bits`. Consumed bits = 8*pos - cnt.

// LSB-first (LF / LB): bits are right-aligned, the next bit is bit 0 of `bits`.
template <bool Backward>
struct LsbReader {
    const uint8_t* data;
    size_t size;
    size_t pos = 0;
    uint64_t bits = 0;
    unsigned cnt = 0;

    LsbReader(const uint8_t* d, size_t n) : data(d), size(n) {}

    inline void refill() {
        if (pos + 8 <= size) {
            uint64_t v = Backward ? load_be64(data + size - pos - 8) : load_le64(data + pos);
            bits |= v << cnt;
            pos += (63 - cnt) >> 3;
            cnt |= 56;
        } else {
            refill_slow();
        }
    }
    // refill() for a caller that knows pos + 8 <= size (see huff_safe_steps).
    inline void refill_unchecked() {
        uint64_t v = Backward ? load_be64(data + size - pos - 8) : load_le64(data + pos);
        bits |= v << cnt;
        pos += (63 - cnt) >> 3;
        cnt |= 56;
    }
    // How many more refills, each followed by at most 56 bits consumed (pos grows by at most 7
    // per refill), stay with pos + 8 <= size.
    size_t safe_refills() const { return pos + 8 <= size ? (size - pos - 8) / 7 + 1 : 0; }
    void refill_slow() {
        while (cnt <= 56) {
            uint64_t b = 0;
            if (pos < size) b = Backward ? data[size - 1 - pos] : data[pos];
            bits |= b << cnt;
            ++pos;
            cnt += 8;
        }
    }
    // n <= 32; little-endian value (first bit = least significant).
    inline uint32_t read(unsigned n) {
        if (cnt < n) refill();
        uint32_t v = uint32_t(bits & ((uint64_t(1) << n) - 1));
        bits >>= n;
        cnt -= n;
        return v;
    }
    size_t consumed_bytes() const { return (pos * 8 - cnt + 7) / 8; }
};

// MSB-first (MF / MB): bits are left-aligned, the next bit is bit 63 of `bits`.
template <bool Backward>
struct MsbReader {
    const uint8_t* data;
    size_t size;
    size_t pos = 0;
    uint64_t bits = 0;
    unsigned cnt = 0;

    MsbReader(const uint8_t* d, size_t n) : data(d), size(n) {}

    __attribute__((always_inline)) inline void refill() {
        if (pos + 8 <= size) [[likely]] {
            uint64_t v = Backward ? load_le64(data + size - pos - 8) : load_be64(data + pos);
            bits |= v >> cnt;
            pos += (63 - cnt) >> 3;
            cnt |= 56;
        } else {
            refill_slow();
        }
    }
    __attribute__((noinline)) void refill_slow() {
        while (cnt <= 56) {
            uint64_t b = 0;
            if (pos < size) b = Backward ? data[size - 1 - pos] : data[pos];
            bits |= b << (56 - cnt);
            ++pos;
            cnt += 8;
        }
    }
    // n <= 32; big-endian value (first bit = most significant).
    __attribute__((always_inline)) inline uint32_t read(unsigned n) {
        if (cnt < n) refill();
        uint32_t v = uint32_t((bits >> 1) >> (63 - n));  // the top n bits; 0 for n = 0, without a branch
        bits <<= n;
        cnt -= n;
        return v;
    }
    // Number of 0 bits before the next 1 bit, without consuming; exact up to 32.
    inline unsigned peek_zeros() {
        if (cnt < 33) refill();
        return bits ? unsigned(std::countl_zero(bits)) : 64u;
    }
    inline void skip(unsigned n) {  // n <= cnt
        bits = n >= 64 ? 0 : bits << n;
        cnt -= n;
    }
    uint64_t consumed_bits() const { return uint64_t(pos) * 8 - cnt; }
    size_t consumed_bytes() const { return size_t((consumed_bits() + 7) / 8); }
};

using MF = MsbReader<false>;
using MB = MsbReader<true>;

// A unary value (zeros before the next 1, the 1 consumed) that must lie within `limit_bits`.
bool read_unary(MF& r, uint64_t limit_bits, uint32_t& out) {
    uint64_t z = 0;
    for (;;) {
        if (r.cnt < 57) r.refill();
        unsigned lz = r.bits ? unsigned(std::countl_zero(r.bits)) : 64u;
        if (lz < r.cnt) {
            r.skip(lz + 1);
            z += lz;
            break;
        }
        z += r.cnt;
        r.bits = 0;
        r.cnt = 0;
        if (r.consumed_bits() > limit_bits) return false;
    }
    if (r.consumed_bits() > limit_bits || z > 0xFFFFFFFFu) return false;
    out = uint32_t(z);
    return true;
}

// ----------------------------------------------------------------------------------------
// Arrays (KRAKEN.md 5)

struct ArrayHeader {
    unsigned type = 0;
    size_t hdr = 0;  // header length
    size_t c = 0;    // payload length
    size_t d = 0;    // decoded size
};

bool parse_header(Ctx& c, const uint8_t* p, const uint8_t* end, size_t cap, ArrayHeader& h) {
    size_t left = size_t(end - p);
    if (left < 1) return c.fail(p, "array header: no bytes left");
    unsigned b0 = p[0];
    h.type = (b0 >> 4) & 7;
    if (h.type == 0) {
        if (b0 >= 0x80) {
            if (left < 2) return c.fail(p, "array header: truncated (needs 2 B, " + num(left) + " B left)");
            h.hdr = 2;
            h.d = be16(p) & 0xFFF;
        } else {
            if (left < 3) return c.fail(p, "array header: truncated (needs 3 B, " + num(left) + " B left)");
            h.hdr = 3;
            h.d = be24(p);
            if (h.d > 0x3FFFF) return c.fail(p, "stored array length " + num(h.d) + " exceeds 0x3FFFF");
        }
        h.c = h.d;
    } else {
        if (h.type > 5) return c.fail(p, "invalid array type " + num(h.type));
        if (b0 >= 0x80) {
            if (left < 3) return c.fail(p, "array header: truncated (needs 3 B, " + num(left) + " B left)");
            h.hdr = 3;
            uint32_t x = be24(p);
            h.c = x & 0x3FF;
            h.d = h.c + ((x >> 10) & 0x3FF) + 1;
        } else {
            if (left < 5) return c.fail(p, "array header: truncated (needs 5 B, " + num(left) + " B left)");
            h.hdr = 5;
            uint32_t y = be32(p + 1);
            h.c = y & 0x3FFFF;
            h.d = ((size_t(b0 & 0x0F) << 14) | (y >> 18)) + 1;
            if (h.c >= h.d) return c.fail(p, "array compressed size " + num(h.c) + " is not below decoded size " + num(h.d));
        }
    }
    if (h.c > left - h.hdr)
        return c.fail(p, "array payload of " + num(h.c) + " B exceeds the " + num(left - h.hdr) + " B left");
    if (h.d > cap) return c.fail(p, "array decoded size " + num(h.d) + " exceeds capacity " + num(cap));
    return true;
}

bool decode_array(Ctx& c, const uint8_t* p, const uint8_t* end, uint8_t* dst, size_t cap, size_t& used, size_t& size,
                  int depth);

// ----------------------------------------------------------------------------------------
// Huffman (KRAKEN.md 6)

struct CodePair {
    uint8_t sym, len;
};

// Reads the ranges of 6.3 step 7 from parameters e[0..P); fills `syms` with n used symbols.
bool read_ranges(Ctx& c, const uint8_t* at, MF& r, const uint32_t* e, uint32_t P, uint32_t n, uint8_t* syms) {
    uint32_t sym = 0, used = 0, pi = 0;
    struct Range {
        uint32_t start, count;
    };
    Range ranges[130];
    uint32_t nr = 0;
    if (P & 1) {
        uint32_t ev = e[pi++];
        if (ev > 7) return c.fail(at, "symbol range: first-symbol parameter " + num(ev) + " exceeds 7");
        sym = r.read(ev + 1) + (1u << (ev + 1)) - 1;
    }
    for (uint32_t i = 0; i < P / 2; ++i) {
        uint32_t a = e[pi++], b = e[pi++];
        if (a > 8 || b > 7) return c.fail(at, "symbol range: parameters " + num(a) + "/" + num(b) + " exceed 8/7");
        uint32_t count = r.read(a) + (1u << a);
        uint32_t gap = r.read(b + 1) + (1u << (b + 1)) - 1;
        if (sym >= 256 || used + count > n) return c.fail(at, "symbol range runs past 256 symbols or the symbol count");
        ranges[nr++] = {sym, count};
        used += count;
        sym += count + gap;
    }
    if (sym >= 256 || used >= n || sym + (n - used) > 256)
        return c.fail(at, "symbol ranges do not fit: next symbol " + num(sym) + ", " + num(used) + " of " + num(n) + " used");
    ranges[nr++] = {sym, n - used};
    uint32_t k = 0;
    for (uint32_t i = 0; i < nr; ++i)
        for (uint32_t j = 0; j < ranges[i].count; ++j) syms[k++] = uint8_t(ranges[i].start + j);
    return true;
}

// Range-description count P (6.4).
uint32_t read_range_count(MF& r, uint32_t n) {
    if (n == 256) return 0;
    uint32_t m = 2 * std::min(n, 257 - n);
    int y = bitlen(m - 1);
    uint32_t z = (1u << y) - m;
    uint32_t w = r.read(unsigned(y - 1));
    if (w < z) return w;
    return 2 * w + r.read(1) - z;
}

// Reads the code description (6.1-6.5) and builds a 2048-entry LSB-first lookup table:
// entry = symbol | (length << 8). `desc_bytes` = bytes used by the description.
bool read_huffman_code(Ctx& c, const uint8_t* payload, size_t csize, uint16_t* table, size_t& desc_bytes) {
    MF r(payload, csize);
    const uint64_t limit = uint64_t(csize) * 8;
    CodePair pairs[256];
    uint32_t n = 0;
    if (r.read(1) == 0) {
        if (r.read(1) == 1) {  // run form
            unsigned k = r.read(2);
            unsigned zlimit = 20u >> k;
            int avg = 32;
            uint32_t s = 0;
            bool present = r.read(1) == 1;
            for (;;) {
                if (!present) {
                    unsigned z = r.peek_zeros();
                    if (z > 7) return c.fail(payload, "huffman run form: run count prefix too long");
                    r.skip(z);
                    uint32_t cnt = r.read(z + 2) - 1;
                    s += cnt;
                    if (s >= 256) break;
                }
                present = false;
                unsigned z = r.peek_zeros();
                if (z > 7) return c.fail(payload, "huffman run form: run count prefix too long");
                r.skip(z);
                uint32_t cnt = r.read(z + 2) - 1;
                if (s + cnt > 256) return c.fail(payload, "huffman run form: symbol run passes 256");
                for (uint32_t i = 0; i < cnt; ++i) {
                    unsigned zz = r.peek_zeros();
                    if (zz > zlimit) return c.fail(payload, "huffman run form: code length prefix too long");
                    r.skip(zz + 1);
                    uint32_t v = (zz << k) + r.read(k);
                    int len = zigzag(v) + (avg + 2) / 4;
                    if (len < 1 || len > 11) return c.fail(payload, "huffman run form: code length " + std::to_string(len) + " outside 1..11");
                    avg = len + (3 * avg + 2) / 4;
                    pairs[n++] = {uint8_t(s), uint8_t(len)};
                    ++s;
                }
                if (s == 256) break;
            }
            if (s != 256) return c.fail(payload, "huffman run form: runs cover " + num(s) + " symbols, not 256");
            if (n < 2) return c.fail(payload, "single-symbol Huffman array");
        } else {  // list form
            uint32_t m = r.read(8);
            if (m == 0) return c.fail(payload, "huffman list form: zero symbols");
            if (m == 1) return c.fail(payload, "single-symbol Huffman array");
            unsigned w = r.read(3);
            if (w > 4) return c.fail(payload, "huffman list form: length width " + num(w) + " exceeds 4");
            for (uint32_t i = 0; i < m; ++i) {
                uint32_t sym = r.read(8);
                uint32_t len = r.read(w) + 1;
                if (len > 11) return c.fail(payload, "huffman list form: code length " + num(len) + " exceeds 11");
                pairs[n++] = {uint8_t(sym), uint8_t(len)};
            }
        }
    } else {
        if (r.read(1) == 1) return c.fail(payload, "huffman code selector 11 is invalid");
        unsigned k = r.read(2);
        n = r.read(8) + 1;
        uint32_t P = read_range_count(r, n);
        uint32_t u[512];
        for (uint32_t i = 0; i < n + P; ++i)
            if (!read_unary(r, limit, u[i])) return c.fail(payload, "huffman range form: unary values run past the array");
        uint32_t rem[256];
        for (uint32_t i = 0; i < n; ++i) rem[i] = r.read(k);
        if (r.consumed_bits() > limit) return c.fail(payload, "huffman range form: remainders run past the array");
        if (n == 1) return c.fail(payload, "single-symbol Huffman array");
        int sum = 30;
        uint8_t lens[256];
        for (uint32_t i = 0; i < n; ++i) {
            if (u[i] > 255) return c.fail(payload, "huffman range form: length value too large");
            uint32_t v = (u[i] << k) + rem[i];
            if (v > 255) return c.fail(payload, "huffman range form: length value " + num(v) + " exceeds 255");
            int d = zigzag(v);
            int len = d + (sum >> 2) + 1;
            if (len < 1 || len > 11) return c.fail(payload, "huffman range form: code length " + std::to_string(len) + " outside 1..11");
            lens[i] = uint8_t(len);
            sum += d;
        }
        uint8_t syms[256];
        if (!read_ranges(c, payload, r, u + n, P, n, syms)) return false;
        for (uint32_t i = 0; i < n; ++i) pairs[i] = {syms[i], lens[i]};
    }
    if (r.consumed_bits() > limit) return c.fail(payload, "huffman code description runs past the array");
    desc_bytes = r.consumed_bytes();

    // Canonical code (6.5): order by (length, listing order).
    uint32_t count[12] = {};
    for (uint32_t i = 0; i < n; ++i) ++count[pairs[i].len];
    uint32_t start[12];
    uint32_t acc = 0;
    for (int l = 1; l <= 11; ++l) {
        start[l] = acc;
        acc += count[l];
    }
    CodePair sorted[256];
    for (uint32_t i = 0; i < n; ++i) sorted[start[pairs[i].len]++] = pairs[i];
    // The table is indexed by the next 11 stream bits, first bit in bit 0, so a code of length
    // len fills every index whose low len bits are its bit-reversed codeword. Built by
    // doubling: after the codes of length l are placed in table[0, 2^l), copying that half
    // upwards gives each of them its slots in table[0, 2^(l+1)); a prefix-free code never
    // places a longer code over a shorter one's slot. About 2048 entry copies per table
    // (memcpy) instead of one scattered store per entry.
    uint32_t code = 0;
    uint32_t i = 0;
    table[0] = table[1] = 0;  // slots no code of length 1 takes: defined until a longer code takes them
    for (unsigned len = 1; len <= 11; ++len) {
        if (len > 1) std::memcpy(table + (size_t(1) << (len - 1)), table, sizeof(uint16_t) << (len - 1));
        for (; i < n && sorted[i].len == len; ++i) {
            const uint32_t span = 1u << (11 - len);
            if (code + span > 2048) return c.fail(payload, "huffman code is over-subscribed");
            const uint32_t rc = reverse11(code) & ((1u << len) - 1);  // the codeword's bits, first in bit 0
            table[rc] = uint16_t(sorted[i].sym | (len << 8));
            code += span;
        }
    }
    if (code != 2048) return c.fail(payload, "huffman code is incomplete");
    return true;
}

#define DRAPE_HUFF_DEC(R, OUT)                  \
    do {                                         \
        uint32_t e_ = table[(R).bits & 0x7FF];   \
        (OUT) = uint8_t(e_);                     \
        (R).bits >>= (e_ >> 8);                  \
        (R).cnt -= (e_ >> 8);                    \
    } while (0)

// One 3-stream section (6.7) over [p, e) producing n bytes: stream A forward over its sA
// bytes, B forward and C backward over the rest; symbols go A, C, B, A, C, B, ...
// A section is decoded in two phases so that the two halves of a split array (type 4) can run
// their six streams together: huff_open, then huff_run15 as long as both halves have 15
// symbols left, then huff_finish. The readers live in the caller's locals (not behind a
// pointer), so the byte stores to the output cannot force them out of registers.
struct HuffRun {
    LsbReader<false> a, b;
    LsbReader<true> cc;
};

bool huff_open(Ctx& c, const uint8_t* p, const uint8_t* e, size_t& sa) {
    size_t size = size_t(e - p);
    if (size < 3) return c.fail(p, "huffman stream section of " + num(size) + " B is below 3 B");
    sa = le16(p);
    if (sa > size - 2) return c.fail(p, "huffman stream A size " + num(sa) + " exceeds the section");
    return true;
}

#define DRAPE_HUFF_RUN15_WITH(REFILL, A, B, CC, O)                             \
    do {                                                                       \
        (A).REFILL();                                                          \
        (B).REFILL();                                                          \
        (CC).REFILL();                                                         \
        DRAPE_HUFF_DEC(A, (O)[0]);                                             \
        DRAPE_HUFF_DEC(CC, (O)[1]);                                            \
        DRAPE_HUFF_DEC(B, (O)[2]);                                             \
        DRAPE_HUFF_DEC(A, (O)[3]);                                             \
        DRAPE_HUFF_DEC(CC, (O)[4]);                                            \
        DRAPE_HUFF_DEC(B, (O)[5]);                                             \
        DRAPE_HUFF_DEC(A, (O)[6]);                                             \
        DRAPE_HUFF_DEC(CC, (O)[7]);                                            \
        DRAPE_HUFF_DEC(B, (O)[8]);                                             \
        DRAPE_HUFF_DEC(A, (O)[9]);                                             \
        DRAPE_HUFF_DEC(CC, (O)[10]);                                           \
        DRAPE_HUFF_DEC(B, (O)[11]);                                            \
        DRAPE_HUFF_DEC(A, (O)[12]);                                            \
        DRAPE_HUFF_DEC(CC, (O)[13]);                                           \
        DRAPE_HUFF_DEC(B, (O)[14]);                                            \
    } while (0)
#define DRAPE_HUFF_RUN15(A, B, CC, O) DRAPE_HUFF_RUN15_WITH(refill, A, B, CC, O)
#define DRAPE_HUFF_RUN15_UNCHECKED(A, B, CC, O) DRAPE_HUFF_RUN15_WITH(refill_unchecked, A, B, CC, O)

// Symbols [i, n) of one section, then its exact-consumption checks.
inline bool huff_finish(Ctx& c, const uint16_t* table, LsbReader<false> a, LsbReader<false> b, LsbReader<true> cc,
                        const uint8_t* p, size_t sa, uint8_t* dst, size_t i, size_t n) {
    while (n - i >= 15) {  // refill bounds hoisted as in huffman_split
        size_t safe = std::min({a.safe_refills(), b.safe_refills(), cc.safe_refills(), (n - i) / 15});
        if (safe == 0) {
            DRAPE_HUFF_RUN15(a, b, cc, dst + i);
            i += 15;
            continue;
        }
        for (; safe > 0; --safe, i += 15) DRAPE_HUFF_RUN15_UNCHECKED(a, b, cc, dst + i);
    }
    for (; i < n; ++i) {
        switch (i % 3) {
        case 0:
            a.refill();
            DRAPE_HUFF_DEC(a, dst[i]);
            break;
        case 1:
            cc.refill();
            DRAPE_HUFF_DEC(cc, dst[i]);
            break;
        default:
            b.refill();
            DRAPE_HUFF_DEC(b, dst[i]);
            break;
        }
    }
    const uint8_t* r_start = p + 2 + sa;
    const size_t r_size = b.size;
    if (a.consumed_bytes() != sa)
        return c.fail(p, "huffman stream A used " + num(a.consumed_bytes()) + " B of " + num(sa));
    if (b.consumed_bytes() + cc.consumed_bytes() != r_size)
        return c.fail(r_start, "huffman streams B and C used " + num(b.consumed_bytes()) + " + " + num(cc.consumed_bytes()) +
                                   " B of " + num(r_size));
    return true;
}

bool huffman_streams(Ctx& c, const uint16_t* table, const uint8_t* p, const uint8_t* e, uint8_t* dst, size_t n) {
    size_t sa = 0;
    if (!huff_open(c, p, e, sa)) return false;
    const size_t r_size = size_t(e - p) - 2 - sa;
    return huff_finish(c, table, LsbReader<false>(p + 2, sa), LsbReader<false>(p + 2 + sa, r_size),
                       LsbReader<true>(p + 2 + sa, r_size), p, sa, dst, 0, n);
}

// Both halves of a split array: their six streams decoded together (independent lookups in
// flight hide the table's load latency), then each half's rest and checks in stream order.
bool huffman_split(Ctx& c, const uint16_t* table, const uint8_t* q, const uint8_t* h2, const uint8_t* e, uint8_t* dst,
                   size_t n1, size_t n2) {
    size_t sa1 = 0, sa2 = 0;
    // decode_huffman checked both halves' sizes, so neither fails; the order stays that of
    // decoding the halves one after the other.
    if (!huff_open(c, q, h2, sa1) || !huff_open(c, h2, e, sa2)) return false;
    const size_t r1 = size_t(h2 - q) - 2 - sa1, r2 = size_t(e - h2) - 2 - sa2;
    LsbReader<false> a1(q + 2, sa1), b1(q + 2 + sa1, r1);
    LsbReader<true> c1(q + 2 + sa1, r1);
    LsbReader<false> a2(h2 + 2, sa2), b2(h2 + 2 + sa2, r2);
    LsbReader<true> c2(h2 + 2 + sa2, r2);
    uint8_t* d2 = dst + n1;
    size_t i = 0;
    const size_t both = std::min(n1, n2);
    // Bounds of the refills hoisted: runs of steps that no stream's refill can take past its
    // region's last 8 bytes go unchecked; the steps near the ends take the checked refill.
    while (both - i >= 15) {
        size_t safe = std::min({a1.safe_refills(), b1.safe_refills(), c1.safe_refills(), a2.safe_refills(),
                                b2.safe_refills(), c2.safe_refills(), (both - i) / 15});
        if (safe == 0) {
            DRAPE_HUFF_RUN15(a1, b1, c1, dst + i);
            DRAPE_HUFF_RUN15(a2, b2, c2, d2 + i);
            i += 15;
            continue;
        }
        for (; safe > 0; --safe, i += 15) {
            DRAPE_HUFF_RUN15_UNCHECKED(a1, b1, c1, dst + i);
            DRAPE_HUFF_RUN15_UNCHECKED(a2, b2, c2, d2 + i);
        }
    }
    if (!huff_finish(c, table, a1, b1, c1, q, sa1, dst, i, n1)) return false;
    return huff_finish(c, table, a2, b2, c2, h2, sa2, d2, i, n2);
}
#undef DRAPE_HUFF_RUN15_UNCHECKED
#undef DRAPE_HUFF_RUN15
#undef DRAPE_HUFF_RUN15_WITH
#undef DRAPE_HUFF_DEC

bool decode_huffman(Ctx& c, const uint8_t* payload, size_t csize, size_t d, uint8_t* dst, bool split) {
    uint16_t table[2048];
    size_t desc = 0;
    if (!read_huffman_code(c, payload, csize, table, desc)) return false;
    const uint8_t* p = payload + desc;
    const uint8_t* e = payload + csize;
    if (!split) return huffman_streams(c, table, p, e, dst, d);
    size_t size = size_t(e - p);
    if (size < 6) return c.fail(p, "huffman split stream section of " + num(size) + " B is below 6 B");
    size_t s1 = le24(p);
    const uint8_t* q = p + 3;
    if (s1 > size - 3) return c.fail(p, "huffman first half size " + num(s1) + " exceeds the section");
    if (s1 < 2 || s1 < size_t(le16(q)) + 4) return c.fail(q, "huffman first half too small for its stream A");
    const uint8_t* h2 = q + s1;
    size_t h2size = size_t(e - h2);
    if (h2size < 3 || h2size < size_t(le16(h2)) + 4) return c.fail(h2, "huffman second half too small for its stream A");
    size_t n1 = (d + 1) / 2;
    return huffman_split(c, table, q, h2, e, dst, n1, d - n1);
}

// ----------------------------------------------------------------------------------------
// tANS (KRAKEN.md 7)

struct TansEntry {
    uint16_t base;
    uint8_t sym;
    uint8_t nb;
};

bool decode_tans(Ctx& c, const uint8_t* payload, size_t csize, size_t d, uint8_t* dst) {
    if (csize < 8) return c.fail(payload, "tANS array payload of " + num(csize) + " B is below 8 B");
    if (d < 5) return c.fail(payload, "tANS array decoded size " + num(d) + " is below 5");
    MF r(payload, csize);
    const uint64_t limit = uint64_t(csize) * 8;
    if (r.read(1) != 0) return c.fail(payload, "tANS reserved bit is set");
    unsigned T = r.read(2) + 8;
    uint32_t L = 1u << T;
    uint32_t freq[256] = {};
    if (r.read(1) == 1) {  // Golomb-Rice form
        unsigned g = r.read(3);
        uint32_t n = r.read(8) + 1;
        if (n < 2) return c.fail(payload, "tANS weight table lists fewer than 2 symbols");
        uint32_t P = read_range_count(r, n);
        uint32_t u[512];
        for (uint32_t i = 0; i < n + P; ++i)
            if (!read_unary(r, limit, u[i])) return c.fail(payload, "tANS weight table: unary values run past the array");
        uint8_t syms[256];
        if (!read_ranges(c, payload, r, u + n, P, n, syms)) return false;
        int avg = 6;
        uint64_t total = 0;
        for (uint32_t i = 0; i < n; ++i) {
            uint32_t x = g + u[i];
            if (x > 15) return c.fail(payload, "tANS weight: Rice width " + num(x) + " exceeds 15");
            int v = int(r.read(x) + (1u << x) - (1u << g));
            int a = avg / 4;
            int lim = 2 * a;
            if (v <= lim) v = a + zigzag(uint32_t(v));
            avg += std::min(lim, v) - a;
            freq[syms[i]] = uint32_t(v + 1);
            total += uint32_t(v + 1);
        }
        if (total != L) return c.fail(payload, "tANS weights sum to " + num(total) + ", not " + num(L));
    } else {  // sparse form
        uint32_t cnt = r.read(3) + 1;
        unsigned db = r.read(4);
        if (db == 0 || db > T) return c.fail(payload, "tANS sparse weights: delta width " + num(db) + " outside 1.." + num(T));
        uint32_t wgt = 0, tot = 0;
        for (uint32_t i = 0; i < cnt; ++i) {
            uint32_t s = r.read(8);
            if (freq[s]) return c.fail(payload, "tANS sparse weights: symbol " + num(s) + " repeated");
            wgt += r.read(db);
            if (wgt == 0) return c.fail(payload, "tANS sparse weights: zero weight");
            freq[s] = wgt;
            tot += wgt;
        }
        uint32_t s = r.read(8);
        if (freq[s]) return c.fail(payload, "tANS sparse weights: symbol " + num(s) + " repeated");
        if (tot >= L || L - tot < wgt || L - tot < 2)
            return c.fail(payload, "tANS sparse weights: last weight invalid (total " + num(tot) + " of " + num(L) + ")");
        freq[s] = L - tot;
    }
    if (r.consumed_bits() > limit) return c.fail(payload, "tANS header runs past the array");
    size_t hdr = r.consumed_bytes();
    if (hdr >= csize) return c.fail(payload, "tANS data is empty");

    // Decoding table (7.3).
    TansEntry table[2048];
    uint32_t singles = 0;
    for (int s = 0; s < 256; ++s) singles += freq[s] == 1;
    uint32_t R = L - singles;
    {
        uint32_t si = R;
        for (int s = 0; s < 256; ++s)
            if (freq[s] == 1) table[si++] = {0, uint8_t(s), uint8_t(T)};
    }
    uint32_t fill[4];
    {
        uint32_t q = R / 4, rm = R % 4, at = 0;
        for (uint32_t j = 0; j < 4; ++j) {
            fill[j] = at;
            at += q + (j < rm ? 1 : 0);
        }
    }
    uint32_t acc = 0;
    for (int s = 0; s < 256; ++s) {
        uint32_t F = freq[s];
        if (F < 2) continue;
        uint32_t k = 0;
        for (uint32_t j = 0; j < 4; ++j) {
            uint32_t cj = (F + ((acc - j - 1) & 3)) / 4;
            for (uint32_t t = 0; t < cj; ++t, ++k) {
                uint32_t fk = F + k;
                unsigned nb = T - unsigned(bitlen(fk) - 1);
                table[fill[j]++] = {uint16_t((fk << nb) - L), uint8_t(s), uint8_t(nb)};
            }
        }
        acc += F;
    }

    // Data (7.4, 7.5).
    const uint8_t* p = payload + hdr;
    size_t size = csize - hdr;
    LsbReader<false> f(p, size);
    LsbReader<true> b(p, size);
    uint32_t x[5];
    x[0] = f.read(T);
    x[1] = b.read(T);
    x[2] = f.read(T);
    x[3] = b.read(T);
    x[4] = f.read(T);
    size_t n = d - 5;
    size_t i = 0;
#define DRAPE_TANS_STEP(R, S, OUT)                          \
    do {                                                     \
        const TansEntry& e_ = table[x[S]];                   \
        (OUT) = e_.sym;                                      \
        x[S] = e_.base + uint32_t((R).bits & ((1u << e_.nb) - 1)); \
        (R).bits >>= e_.nb;                                  \
        (R).cnt -= e_.nb;                                    \
    } while (0)
    while (n - i >= 10) {
        f.refill();
        uint8_t* o = dst + i;
        DRAPE_TANS_STEP(f, 0, o[0]);
        DRAPE_TANS_STEP(f, 1, o[1]);
        DRAPE_TANS_STEP(f, 2, o[2]);
        DRAPE_TANS_STEP(f, 3, o[3]);
        DRAPE_TANS_STEP(f, 4, o[4]);
        b.refill();
        DRAPE_TANS_STEP(b, 0, o[5]);
        DRAPE_TANS_STEP(b, 1, o[6]);
        DRAPE_TANS_STEP(b, 2, o[7]);
        DRAPE_TANS_STEP(b, 3, o[8]);
        DRAPE_TANS_STEP(b, 4, o[9]);
        i += 10;
    }
    for (; i < n; ++i) {
        unsigned step = unsigned(i % 10);
        if (step < 5) {
            f.refill();
            DRAPE_TANS_STEP(f, step, dst[i]);
        } else {
            b.refill();
            DRAPE_TANS_STEP(b, step - 5, dst[i]);
        }
    }
#undef DRAPE_TANS_STEP
    for (int s = 0; s < 5; ++s) {
        if (x[s] >= 256) return c.fail(p, "tANS final state " + num(x[s]) + " is not below 256");
        dst[n + size_t(s)] = uint8_t(x[s]);
    }
    if (f.consumed_bytes() + b.consumed_bytes() != size)
        return c.fail(p, "tANS streams used " + num(f.consumed_bytes()) + " + " + num(b.consumed_bytes()) + " B of " + num(size));
    return true;
}

// ----------------------------------------------------------------------------------------
// RLE (KRAKEN.md 8)

bool decode_rle(Ctx& c, const uint8_t* payload, size_t csize, size_t d, uint8_t* dst, int depth) {
    if (csize == 0) return c.fail(payload, "RLE array payload is empty");
    if (csize == 1) {
        std::memset(dst, payload[0], d);
        return true;
    }
    Arena::Mark mark = c.arena.mark();
    const uint8_t* k;
    size_t ksize;
    if (payload[0] == 0) {
        k = payload + 1;
        ksize = csize - 1;
    } else {
        uint8_t* buf = c.arena.alloc(k_max_array + csize);
        size_t used = 0, got = 0;
        {
            Scope s(c, "rle_prefix");
            if (!decode_array(c, payload, payload + csize, buf, k_max_array, used, got, depth + 1)) return false;
        }
        std::memcpy(buf + got, payload + used, csize - used);
        k = buf;
        ksize = got + (csize - used);
    }
    size_t front = 0, back = ksize, o = 0;
    uint8_t run = 0;
    auto at = [&](size_t pos) { return payload[0] == 0 ? payload + 1 + pos : payload; };
    while (front < back) {
        unsigned cmd = k[back - 1];
        size_t lit = 0, runs = 0;
        if (cmd == 0 || cmd >= 0x30) {
            back -= 1;
            lit = 15 - (cmd & 15);
            runs = cmd >> 4;
        } else if (cmd == 1) {
            back -= 1;
            if (front >= back) return c.fail(at(back), "RLE run-byte command has no byte left");
            run = k[front++];
            continue;
        } else {
            if (back - front < 2) return c.fail(at(back), "RLE two-byte command overlaps the literals");
            unsigned x = cmd * 256 + k[back - 2];
            back -= 2;
            if (cmd >= 0x10) {
                x -= 4096;
                lit = x & 63;
                runs = x >> 6;
            } else if (cmd >= 0x09) {
                runs = size_t(128) * (x - 0x8FF);
            } else {
                lit = size_t(64) * (x - 0x1FF);
            }
        }
        if (lit > back - front) return c.fail(at(back), "RLE literal copy passes the command cursor");
        if (lit + runs > d - o) return c.fail(at(back), "RLE output exceeds the decoded size " + num(d));
#if defined(__SSE2__)
        // The one-byte commands (at most 15 literals and 15 run bytes) as one 16-byte step
        // each, where the output and the literals have the room: no library call per command.
        if ((lit | runs) < 16 && d - o >= 32 && back - front >= 16) {
            copy16(dst + o, k + front);
            _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + o + lit), _mm_set1_epi8(char(run)));
            front += lit;
            o += lit + runs;
            continue;
        }
#endif
        std::memcpy(dst + o, k + front, lit);
        front += lit;
        o += lit;
        std::memset(dst + o, run, runs);
        o += runs;
    }
    if (front != back) return c.fail(at(back), "RLE cursors do not meet");
    if (o != d) return c.fail(at(back), "RLE produced " + num(o) + " B, not " + num(d));
    c.arena.release(mark);
    return true;
}

// ----------------------------------------------------------------------------------------
// Recursive arrays (KRAKEN.md 9)

bool decode_recursive(Ctx& c, const uint8_t* payload, size_t csize, size_t d, uint8_t* dst, int depth) {
    if (csize < 6) return c.fail(payload, "recursive array payload of " + num(csize) + " B is below 6 B");
    const uint8_t* end = payload + csize;
    unsigned b = payload[0];
    unsigned k7 = b & 0x7F;
    if (k7 < 2) return c.fail(payload, "recursive array count " + num(k7) + " is below 2");
    const uint8_t* p = payload + 1;
    if (!(b & 0x80)) {  // concatenation
        size_t o = 0;
        for (unsigned i = 0; i < k7; ++i) {
            Scope s(c, "part", long(i));
            size_t used = 0, got = 0;
            if (!decode_array(c, p, end, dst + o, d - o, used, got, depth + 1)) return false;
            p += used;
            o += got;
        }
        if (o != d) return c.fail(p, "recursive parts produce " + num(o) + " B, not " + num(d));
        if (p != end) return c.fail(p, "recursive parts end " + num(size_t(end - p)) + " B before the payload end");
        return true;
    }
    // Interval-mixed form.
    unsigned k = b & 0x3F;
    if (end - p < 3) return c.fail(p, "mixed array payload too short");
    if (k == 0) {
        Scope s(c, "single");
        size_t used = 0, got = 0;
        if (!decode_array(c, p, end, dst, d, used, got, depth + 1)) return false;
        if (got != d || p + used != end) return c.fail(p + used, "mixed single size/end: " + num(got) + " of " + num(d) + " B, " +
                                                                     num(size_t(end - p - used)) + " B left over");
        return true;
    }
    Arena::Mark mark = c.arena.mark();
    uint8_t* src = c.arena.alloc(d);  // sources must be used up exactly, so they total D
    size_t src_start[64], src_size[64];
    size_t total = 0;
    for (unsigned i = 0; i < k; ++i) {
        Scope s(c, "source", long(i) + 1);
        size_t used = 0, got = 0;
        if (!decode_array(c, p, end, src + total, d - total, used, got, depth + 1)) return false;
        src_start[i] = total;
        src_size[i] = got;
        total += got;
        p += used;
    }
    if (end - p < 3) return c.fail(p, "mixed array: no room for the bit-region size");
    uint32_t qw = le16(p);
    p += 2;
    bool packed = (qw & 0x8000) != 0;
    size_t v = qw & 0x3FFF;
    ArrayHeader h;
    {
        Scope s(c, "selectors");
        if (!parse_header(c, p, end, total, h)) return false;
        if (h.d < 2) return c.fail(p, "mixed array: selector count " + num(h.d) + " is below 2");
    }
    size_t g = h.d;
    uint8_t* sel = c.arena.alloc(g);
    uint8_t* wid = c.arena.alloc(g);
    size_t nw;
    {
        Scope s(c, "selectors");
        size_t used = 0, got = 0;
        if (!decode_array(c, p, end, sel, g, used, got, depth + 1)) return false;
        if (got != g) return c.fail(p, "mixed array: selectors decode to " + num(got) + " B, not " + num(g));
        p += used;
    }
    if (packed) {
        for (size_t i = 0; i < g; ++i) {
            wid[i] = sel[i] >> 4;
            sel[i] &= 15;
        }
        nw = g;
    } else {
        Scope s(c, "widths");
        size_t used = 0, got = 0;
        if (!decode_array(c, p, end, wid, g - 1, used, got, depth + 1)) return false;
        if (got != g - 1) return c.fail(p, "mixed array: widths decode to " + num(got) + " B, not " + num(g - 1));
        for (size_t i = 0; i < got; ++i)
            if (wid[i] > 16) return c.fail(p, "mixed array: width " + num(wid[i]) + " exceeds 16");
        p += used;
        nw = g - 1;
    }
    if (v > size_t(end - p)) return c.fail(p, "mixed array: bit region of " + num(v) + " B exceeds the " + num(size_t(end - p)) + " B left");
    if (size_t(end - p) != v) return c.fail(p + v, "mixed array: bit region ends before the payload end");
    if (sel[g - 1] != 0) return c.fail(p, "mixed array: last selector is not 0");
    Scope s(c, "bits");
    MF fr(p, v);
    MB br(p, v);
    const uint64_t limit = uint64_t(v) * 8;
    size_t vi = 0, o = 0;
    size_t src_used[64] = {};
    auto next_value = [&](uint32_t& len) {
        unsigned w = wid[vi];
        uint32_t x = (vi & 1) ? br.read(w) : fr.read(w);
        ++vi;
        len = (1u << w) + x;
    };
    size_t i = 0;
    for (; i < g; ++i) {
        unsigned sl = sel[i];
        if (sl == 0) {
            if (packed) {
                uint32_t ignored;
                next_value(ignored);
            }
            break;
        }
        if (sl > k) return c.fail(p, "mixed array: selector " + num(sl) + " exceeds source count " + num(k));
        if (vi >= nw) return c.fail(p, "mixed array: more selectors than values");
        uint32_t len;
        next_value(len);
        if (len > src_size[sl - 1] - src_used[sl - 1]) return c.fail(p, "mixed array: source " + num(sl) + " runs out");
        if (len > d - o) return c.fail(p, "mixed array: output exceeds " + num(d) + " B");
        std::memcpy(dst + o, src + src_start[sl - 1] + src_used[sl - 1], len);
        src_used[sl - 1] += len;
        o += len;
    }
    if (fr.consumed_bits() > limit || br.consumed_bits() > limit) return c.fail(p, "mixed array: values run past the bit region");
    if (i != g - 1) return c.fail(p, "mixed array: a 0 selector comes before the last one");
    if (vi != nw) return c.fail(p, "mixed array: " + num(nw - vi) + " values unused");
    for (unsigned j = 0; j < k; ++j)
        if (src_used[j] != src_size[j]) return c.fail(p, "mixed array: source " + num(j + 1) + " not used up");
    if (o != d) return c.fail(p, "mixed array produced " + num(o) + " B, not " + num(d));
    c.arena.release(mark);
    return true;
}

bool decode_array(Ctx& c, const uint8_t* p, const uint8_t* end, uint8_t* dst, size_t cap, size_t& used, size_t& size,
                  int depth) {
    if (depth > k_max_depth) return c.fail(p, "arrays nested deeper than " + num(k_max_depth));
    ArrayHeader h;
    if (!parse_header(c, p, end, cap, h)) return false;
    const uint8_t* payload = p + h.hdr;
    bool ok = true;
    switch (h.type) {
    case 0:
        std::memcpy(dst, payload, h.d);
        break;
    case 1:
        ok = decode_tans(c, payload, h.c, h.d, dst);
        break;
    case 2:
        ok = decode_huffman(c, payload, h.c, h.d, dst, false);
        break;
    case 3:
        ok = decode_rle(c, payload, h.c, h.d, dst, depth);
        break;
    case 4:
        ok = decode_huffman(c, payload, h.c, h.d, dst, true);
        break;
    default:
        ok = decode_recursive(c, payload, h.c, h.d, dst, depth);
        break;
    }
    if (!ok) return false;
    used = h.hdr + h.c;
    size = h.d;
    return true;
}

// Decodes a named array of the LZ chunk at *p, advancing *p.
bool lz_array(Ctx& c, const char* name, const uint8_t*& p, const uint8_t* end, uint8_t* dst, size_t cap, size_t& size) {
    Scope s(c, name);
    size_t used = 0;
    if (!decode_array(c, p, end, dst, cap, used, size, 0)) return false;
    p += used;
    return true;
}

// ----------------------------------------------------------------------------------------
// LZ chunks (KRAKEN.md 10)

inline uint64_t add_bytes8(uint64_t a, uint64_t b) {
    constexpr uint64_t hi = 0x8080808080808080ull;
    return ((a & ~hi) + (b & ~hi)) ^ ((a ^ b) & hi);
}

// Branch-free selects for the command loop's data-dependent, unpredictable choices (long
// lengths, which recent distance). GCC compiles both ?: and and/or masks there into branches
// or long mask sequences, so on x86-64 they are one compare and one conditional move.
// pick_eq: x == k ? a : b.  pick_ge: x >= k ? a : b (unsigned).
inline size_t pick_eq(size_t x, size_t k, size_t a, size_t b) {
#if defined(__GNUC__) && defined(__x86_64__)
    asm("cmp %[k], %[x]\n\tcmove %[a], %[b]" : [b] "+r"(b) : [x] "r"(x), [k] "er"(k), [a] "r"(a) : "cc");
    return b;
#else
    const size_t m = size_t(0) - size_t(x == k);
    return (a & m) | (b & ~m);
#endif
}
inline size_t pick_ge(size_t x, size_t k, size_t a, size_t b) {
#if defined(__GNUC__) && defined(__x86_64__)
    asm("cmp %[k], %[x]\n\tcmovae %[a], %[b]" : [b] "+r"(b) : [x] "r"(x), [k] "er"(k), [a] "r"(a) : "cc");
    return b;
#else
    const size_t m = size_t(0) - size_t(x >= k);
    return (a & m) | (b & ~m);
#endif
}

// Bytes the fast command loop keeps free before the chunk end: its 16-byte steps may write
// up to 15 bytes past a command's literals and match (up to 31 past a match in the
// long-match form, whose first 32 bytes go unconditionally and the rest in 32-byte steps).
constexpr size_t k_lz_margin = 32;


// Mode 0 literals: d[i] = s[i] + ref[i] for i < lam, ref = d - r0 (r0 >= 8). Up to 8 bytes as
// one 8-byte step, else the first 16 as two 8-byte steps (also for lam = 0: the match
// overwrites them), the rest in steps of 16 when r0 >= 16, else 8; each step reads only bytes
// written before it. May write up to 15 bytes past lam (and read as far past s and ref).
inline void add8(uint8_t* d, const uint8_t* s, const uint8_t* ref) {
#if defined(__SSE2__)
    __m128i a = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(s));
    __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(ref));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(d), _mm_add_epi8(a, b));
#else
    store_le64(d, add_bytes8(load_le64(s), load_le64(ref)));
#endif
}
inline void add16(uint8_t* d, const uint8_t* s, const uint8_t* ref) {
#if defined(__SSE2__)
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ref));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d), _mm_add_epi8(a, b));
#else
    add8(d, s, ref);
    add8(d + 8, s + 8, ref + 8);
#endif
}
inline void add4(uint8_t* d, const uint8_t* s, const uint8_t* ref) {
#if defined(__SSE2__)
    uint32_t a, b;
    std::memcpy(&a, s, 4);
    std::memcpy(&b, ref, 4);
    const uint32_t r = uint32_t(_mm_cvtsi128_si32(_mm_add_epi8(_mm_cvtsi32_si128(int(a)), _mm_cvtsi32_si128(int(b)))));
    std::memcpy(d, &r, 4);
#else
    for (int i = 0; i < 4; ++i) d[i] = uint8_t(s[i] + ref[i]);
#endif
}
// The long-match form (see copy_match_long). Up to 4 and up to 8 literals (emevd: 98% of its
// commands have 0-2) as one 4- or 8-byte step: the bytes r0 back were mostly written by the
// last few commands, and a load no wider than needed is more often inside one earlier store,
// which the CPU can forward to it; a 16-byte load there spans several stores and waits for them
// to reach the cache (measured: 1.06-1.08x on the whole emevd decode). Longer runs: the first
// 16 bytes as one 16-byte step when r0 >= 16, which in these chunks is nearly always so.
inline void add_literals_long(uint8_t* d, const uint8_t* s, const uint8_t* ref, size_t lam, size_t r0) {
    if (__builtin_expect(lam <= 4, 1)) {
        add4(d, s, ref);
        return;
    }
    if (lam <= 8) {
        add8(d, s, ref);
        return;
    }
    if (__builtin_expect(r0 >= 16, 1)) {
        add16(d, s, ref);
        for (size_t x = 16; x < lam; x += 16) add16(d + x, s + x, ref + x);
        return;
    }
    for (size_t x = 0; x < 16 || x < lam; x += 8) add8(d + x, s + x, ref + x);
}
inline void add_literals(uint8_t* d, const uint8_t* s, const uint8_t* ref, size_t lam, size_t r0) {
    if (lam <= 8) {  // one 8-byte step: a wider load of the bytes r0 back waits on recent stores (add_literals_long)
        add8(d, s, ref);
        return;
    }
    add8(d, s, ref);
    add8(d + 8, s + 8, ref + 8);
    if (lam <= 16) return;
    size_t x = 16;
#if defined(__SSE2__)
    if (r0 >= 16) {
        do {
            __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + x));
            __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ref + x));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(d + x), _mm_add_epi8(a, b));
            x += 16;
        } while (x < lam);
        return;
    }
#endif
    (void)r0;
    do {
        add8(d + x, s + x, ref + x);
        x += 8;
    } while (x < lam);
}

// A command's lam literals at d, in 16-byte steps that may write up to 15 bytes past d + lam
// (the callers' limits leave that room): copied in raw mode (1), added to the bytes r0 back in
// delta mode. Both LZ loops (checked and trusted) write literals through this.
template <int Mode, bool Long = false>
__attribute__((always_inline)) inline void write_literals(uint8_t* d, const uint8_t* s, size_t lam, size_t r0) {
    if constexpr (Mode == 1) {
        std::memcpy(d, s, 16);
        if (lam > 16) {
            if (lam > 64) {
                std::memcpy(d, s, lam);  // long run: the library's copy (literals never overlap the output)
            } else {
                for (size_t x = 16; x < lam; x += 16) std::memcpy(d + x, s + x, 16);
            }
        }
    } else if constexpr (Long) {
        add_literals_long(d, s, d - r0, lam, r0);
    } else {
        add_literals(d, s, d - r0, lam, r0);
    }
}

// A match of mu bytes (mu >= 2) from src = d - delta (delta >= 8): the first 16 bytes as two
// 8-byte steps whatever mu and delta are, the rest in steps of 16 (delta >= 16) or 8; each
// step reads only bytes written before it. May write up to 15 bytes past mu.
inline void copy_match(uint8_t* d, const uint8_t* src, size_t mu, size_t delta) {
    std::memcpy(d, src, 8);
    std::memcpy(d + 8, src + 8, 8);
    if (mu <= 16) return;
    if (mu > 64 && delta >= mu) {  // long and not overlapping itself: the library's copy
        std::memcpy(d, src, mu);
        return;
    }
    size_t x = 16;
    if (delta >= 16) {
        do {
            std::memcpy(d + x, src + x, 16);
            x += 16;
        } while (x < mu);
    } else {
        do {
            std::memcpy(d + x, src + x, 8);
            x += 8;
        } while (x < mu);
    }
}

// The long-match form of copy_match, for chunks where many matches are longer than 16 bytes
// (Elden Ring's emevd: a third of its matches, mostly 17-32 bytes at distances of 16 or more,
// where copy_match's length test mispredicts): when delta >= 16 the first 32 bytes go as two
// 16-byte steps, so a match of up to 32 bytes takes no length-dependent branch; the second
// step is at offset 16 when mu > 16 and repeats the first (offset 0) otherwise, a select
// rather than a branch: bytes 16-31 of the source often lie in the last commands' stores, and
// loading them when they are not needed made the copy wait for those stores (measured:
// 1.02-1.03x on the whole emevd decode). The rest in 32-byte steps when delta >= 32, else
// 16-byte steps. When delta < 16, 8-byte steps (at least 16 bytes). Each step reads only bytes
// written before it (step size <= delta). May write up to 31 bytes past mu.
inline void copy_match_long(uint8_t* d, const uint8_t* src, size_t mu, size_t delta) {
    if (__builtin_expect(delta >= 16, 1)) {
        copy16(d, src);
        const size_t second = pick_ge(mu, 17, 16, 0);
        copy16(d + second, src + second);
        if (__builtin_expect(mu <= 32, 1)) return;
        size_t x = 32;
        if (delta >= 32) {
            // 32-byte steps, both loads before the stores (which delta >= 32 allows), also for
            // long matches that do not overlap themselves: with glibc's memcpy for those, the
            // whole decode of the 77 MB matbinbnd took 1.05-1.10x as long (interleaved runs on
            // the AMD Zen 5 VM; no other corpus file moved beyond the VM's noise).
            do {
                copy32(d + x, src + x);
                x += 32;
            } while (x < mu);
            return;
        }
        do {
            copy16(d + x, src + x);
            x += 16;
        } while (x < mu);
        return;
    }
    std::memcpy(d, src, 8);
    std::memcpy(d + 8, src + 8, 8);
    for (size_t x = 16; x < mu; x += 8) std::memcpy(d + x, src + x, 8);
}

struct LzState {
    uint8_t* out;  // start of the whole output
    size_t w;      // window start
    size_t e;      // chunk end
};

// The state of the command loop, passed by value so the fast loop keeps it in registers.
struct LzFast {
    size_t o, li, di, ni, r0, r1, r2;
};

// Runs commands [ci, nc) while every check passes and each command ends before `limit`
// (= chunk end - k_lz_margin); returns the index of the first command it did not run. A
// command's values are computed first and committed only when all its checks pass, so the
// exact loop can redo it from the same state and report the precise error.
template <int Mode>
size_t lz_fast(LzFast& st, uint8_t* const out, const size_t limit, const size_t W, const uint8_t* cmd, size_t ci,
               const size_t nc, const uint8_t* lit, const size_t nlit, const uint32_t* dist, const size_t nd,
               const uint32_t* lens, const size_t nl) {
    size_t o = st.o, li = st.li, di = st.di, ni = st.ni, r0 = st.r0, r1 = st.r1, r2 = st.r2;
    // Branch-light: the data-dependent choices (long lengths, which distance, zero literals)
    // are selects, not branches; only the rare long copies loop.
    for (; ci < nc; ++ci) {
        const unsigned cb = cmd[ci];
        const size_t lc = cb & 3, mc = (cb >> 2) & 15;
        const unsigned sel = cb >> 6;
        // lens[nl] and dist[nd] are readable slack: a value read there fails the checks below.
        // Selects rather than ?:
        // so that the compiler cannot turn these into branches (they are unpredictable:
        // measured as most of the decoder's mispredictions).
        size_t nj = ni;
        const size_t lam = pick_eq(lc, 3, lens[nj], lc);
        nj += (lc + 1) >> 2;  // lc == 3
        const size_t mu = pick_eq(mc, 15, 14 + size_t(lens[nj]), mc + 2);
        nj += (mc + 1) >> 4;  // mc == 15
        const size_t near = pick_eq(sel, 1, r1, r0), far = pick_eq(sel, 3, dist[di], r2);
        const size_t delta = pick_ge(sel, 2, far, near);
        const size_t dj = di + ((sel + 1) >> 2);  // sel == 3
        const size_t o2 = o + lam;
        // o2 - W >= 8 always (the raw prefix); a delta below 8 wraps and fails too.
        if ((nj > nl) | (dj > nd) | (lam > nlit - li) | (o2 + mu > limit) | (delta - 8 > o2 - W - 8)) break;
        uint8_t* d = out + o;
        const uint8_t* s = lit + li;
        write_literals<Mode>(d, s, lam, r0);
        li += lam;
        r2 = pick_ge(sel, 2, r1, r2);  // as ?: these compiled to branches (2x the mispredictions)
        r1 = pick_ge(sel, 1, r0, r1);
        r0 = delta;
        di = dj;
        ni = nj;
        uint8_t* m = out + o2;
        copy_match(m, m - delta, mu, delta);
        o = o2 + mu;
    }
    st = {o, li, di, ni, r0, r1, r2};
    return ci;
}

// The fast loop for a chunk whose commands were counted (lz_counts_match): the length and
// distance lists cannot run out, and every new distance is at least 8 (checked for the whole
// list beforehand), so per command only the output end (CheckEnd) and the window are checked,
// and the window only as "the copy's source lies in the window": a recent distance passed
// that at an earlier, lower position, so only new distances can fail it. Literals are not
// checked: reading past nlit stays inside the literal buffer (M bytes plus slack), because
// every literal consumed is one output byte of the chunk and the output stays inside it; the
// caller checks li <= nlit afterwards and redoes the chunk with every check when it fails.
// Without CheckEnd the caller guarantees that commands [0, nc) end at least k_lz_margin bytes
// before the chunk end (lz_execute: the last 16 commands of the chunk write at least 32 bytes
// and all of them together no more than the chunk holds). Pointer-based and out of line so
// that its state stays in registers. Same stopping rule and state as lz_fast.
template <int Mode, bool CheckEnd>
__attribute__((noinline)) size_t lz_trusted(LzFast& st, uint8_t* const out, const size_t limit, const size_t W,
                                            const uint8_t* const cmd, const size_t nc, const uint8_t* const lit,
                                            const uint32_t* const dist, const uint32_t* const lens) {
    uint8_t* op = out + st.o;
    const uint8_t* const op_end = out + limit;
    const uint8_t* const wbase = out + W;
    const uint8_t* sp = lit + st.li;
    const uint32_t* dp = dist + st.di;
    const uint32_t* lp = lens + st.ni;
    size_t r0 = st.r0, r1 = st.r1, r2 = st.r2;
    const uint8_t* cp = cmd;
    const uint8_t* const ce = cmd + nc;
    for (; cp < ce; ++cp) {
        const size_t cb = *cp;
        const size_t lc = cb & 3, mc = (cb >> 2) & 15, sel = cb >> 6;
        const size_t lam = pick_eq(lc, 3, *lp, lc);
        const uint32_t* lq = lp + ((lc + 1) >> 2);  // lc == 3
        const size_t mu = pick_eq(mc, 15, 14 + size_t(*lq), mc + 2);
        lq += (mc + 1) >> 4;  // mc == 15
        const size_t near = pick_eq(sel, 1, r1, r0), far = pick_eq(sel, 3, *dp, r2);
        const size_t delta = pick_ge(sel, 2, far, near);
        if constexpr (CheckEnd) {
            if (lam + mu > size_t(op_end - op)) break;
        }
        if (delta > size_t(op - wbase) + lam) break;
        uint8_t* m = op + lam;
        write_literals<Mode>(op, sp, lam, r0);
        sp += lam;
        r2 = pick_ge(sel, 2, r1, r2);
        r1 = pick_ge(sel, 1, r0, r1);
        r0 = delta;
        dp += (sel + 1) >> 2;  // sel == 3
        lp = lq;
        copy_match(m, m - delta, mu, delta);
        op = m + mu;
    }
    (void)op_end;
    st = {size_t(op - out), size_t(sp - lit), size_t(dp - dist), size_t(lp - lens), r0, r1, r2};
    return size_t(cp - cmd);
}

// The long-match form of lz_trusted without the output-end check (its only use), written for
// the commands of the chunks that take it (emevd: 98% with a literal code of 0-2, a third with
// a long match, half reusing the last distance): a literal code of 3 (a listed length) is a
// branch taken by 1-2% of the commands instead of a select in every one; the window check is
// one compare of the match's offset from the window start against its distance; the match and
// (delta mode) the literals go as the first 32 / 16 bytes unconditionally when the distances
// allow (copy_match_long, add_literals_long). Same stopping rule and state as lz_trusted.
//
// On x86-64 with SSE4.1 (checked at run time; the build targets baseline x86-64) the three
// recent distances live in one vector register: the command's new distance goes into lane 3,
// and one byte shuffle chosen by the selector puts the distance used in lane 0 and the other
// two in the order of KRAKEN.md 10.3 behind it (sel 0: r0 r1 r2; 1: r1 r0 r2; 2: r2 r0 r1;
// 3: new r0 r1). That replaces the six selects and three register moves of the scalar form,
// whose state GCC could not keep in registers with the loop's other pointers (it spilled the
// distance cursor).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define DRAPE_KRAKEN_RECENT_SHUFFLE 1
alignas(16) constexpr uint8_t k_recent_shuffle[4][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {4, 5, 6, 7, 0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15},
    {8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15},
    {12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
};
#define DRAPE_KRAKEN_TARGET_SHUFFLE __attribute__((target("sse4.1")))
#else
#define DRAPE_KRAKEN_RECENT_SHUFFLE 0
#define DRAPE_KRAKEN_TARGET_SHUFFLE
#endif

template <int Mode, bool Shuffle>
__attribute__((noinline)) DRAPE_KRAKEN_TARGET_SHUFFLE size_t lz_trusted_long(LzFast& st, uint8_t* const out, const size_t W,
                                                                           const uint8_t* const cmd, const size_t nc,
                                                                           const uint8_t* const lit, const uint32_t* const dist,
                                                                           const uint32_t* const lens) {
    uint8_t* op = out + st.o;
    const uint8_t* const wbase = out + W;
    const uint8_t* sp = lit + st.li;
    const uint32_t* dp = dist + st.di;
    const uint32_t* lp = lens + st.ni;
    size_t r0 = st.r0, r1 = st.r1, r2 = st.r2;
#if DRAPE_KRAKEN_RECENT_SHUFFLE
    // Recent distances are below 2^32 (KRAKEN.md 10.4), so 32-bit lanes hold them.
    __m128i rv = _mm_setr_epi32(int(uint32_t(r0)), int(uint32_t(r1)), int(uint32_t(r2)), 0);
#endif
    const uint8_t* cp = cmd;
    const uint8_t* const ce = cmd + nc;
    for (; cp < ce; ++cp) {
        const size_t cb = *cp;
        size_t lam = cb & 3;
        const uint32_t* lq = lp;
        uint32_t lnext = *lp;  // the match's listed length when mc == 15 (lens[nl] is readable slack)
        if (__builtin_expect(lam == 3, 0)) {
            lam = lnext;
            lnext = *++lq;
        }
        const size_t mc = (cb >> 2) & 15, sel = cb >> 6;
        const size_t mu = pick_eq(mc, 15, 14 + size_t(lnext), mc + 2);
        size_t delta;
#if DRAPE_KRAKEN_RECENT_SHUFFLE
        if constexpr (Shuffle) {
            // Lane 3 keeps the distance that leaves the set (r2 for sel 3), so that a command
            // that fails the window check can be undone (below).
            rv = _mm_shuffle_epi8(_mm_insert_epi32(rv, int(*dp), 3),
                                  _mm_load_si128(reinterpret_cast<const __m128i*>(k_recent_shuffle[sel])));
            delta = uint32_t(_mm_cvtsi128_si32(rv));
        } else
#endif
        {
            const size_t near = pick_eq(sel, 1, r1, r0), far = pick_eq(sel, 3, *dp, r2);
            delta = pick_ge(sel, 2, far, near);
        }
        uint8_t* const m = op + lam;
        if (size_t(m - wbase) < delta) {
#if DRAPE_KRAKEN_RECENT_SHUFFLE
            if constexpr (Shuffle) {  // undo the shuffle: r0 is known; r1, r2 from their lanes
                alignas(16) uint32_t v[4];
                _mm_store_si128(reinterpret_cast<__m128i*>(v), rv);
                switch (sel) {
                case 0: r1 = v[1], r2 = v[2]; break;  // r0 r1 r2 new
                case 1: r1 = v[0], r2 = v[2]; break;  // r1 r0 r2 new
                case 2: r1 = v[2], r2 = v[0]; break;  // r2 r0 r1 new
                default: r1 = v[2], r2 = v[3]; break; // new r0 r1 r2
                }
            }
#endif
            break;
        }
        lp = lq + ((mc + 1) >> 4);  // mc == 15
        write_literals<Mode, true>(op, sp, lam, r0);
        sp += lam;
#if DRAPE_KRAKEN_RECENT_SHUFFLE
        if constexpr (!Shuffle)
#endif
        {
            r2 = pick_ge(sel, 2, r1, r2);
            r1 = pick_ge(sel, 1, r0, r1);
        }
        r0 = delta;
        dp += (sel + 1) >> 2;  // sel == 3
        copy_match_long(m, m - delta, mu, delta);
        op = m + mu;
    }
#if DRAPE_KRAKEN_RECENT_SHUFFLE
    if constexpr (Shuffle) {
        if (cp == ce) {  // a command that broke out restored r1, r2 itself
            r1 = uint32_t(_mm_extract_epi32(rv, 1));
            r2 = uint32_t(_mm_extract_epi32(rv, 2));
        }
    }
#endif
    st = {size_t(op - out), size_t(sp - lit), size_t(dp - dist), size_t(lp - lens), r0, r1, r2};
    return size_t(cp - cmd);
}

std::atomic<bool> g_cpu_extensions{true};  // set_cpu_extensions

// Whether to run the shuffle form of lz_trusted_long: the CPU has SSE4.1 and it is allowed.
bool recent_shuffle_supported() {
#if DRAPE_KRAKEN_RECENT_SHUFFLE
    static const bool cpu = __builtin_cpu_supports("sse4.1");
    return cpu && g_cpu_extensions.load(std::memory_order_relaxed);
#else
    return false;
#endif
}

// True when the commands take exactly nd new distances and nl long lengths (KRAKEN.md 10.3:
// selector 3, literal code 3, match code 15). Also gives the commands' short lengths summed
// (literal codes 0-2 as themselves, match codes 0-14 as code + 2, match code 15 as its 14):
// with the long lengths added, that is the output all commands write, and the count of long
// matches (match code 15: more than 16 bytes), which picks the copy form. A counting pass
// (vectorisable, no ordering question) that lets the fast loop drop its per-command checks.
bool lz_counts_match(const uint8_t* cmd, size_t nc, size_t nd, size_t nl, size_t& short_sum, size_t& long_matches) {
    size_t need_d = 0, need_l = 0, sum = 0, need_m = 0;
    size_t i = 0;
#if defined(__SSE2__)
    // 16 commands per step: byte masks of the three conditions, summed by psadbw.
    const __m128i zero = _mm_setzero_si128(), one = _mm_set1_epi8(1);
    const __m128i c0 = _mm_set1_epi8(char(0xC0)), m3 = _mm_set1_epi8(3), m3c = _mm_set1_epi8(0x3C);
    const __m128i m0f = _mm_set1_epi8(0x0F), two = _mm_set1_epi8(2);
    __m128i acc_d = zero, acc_l = zero, acc_s = zero, acc_m = zero;
    for (; i + 16 <= nc; i += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(cmd + i));
        const __m128i d = _mm_cmpeq_epi8(_mm_max_epu8(v, c0), v);  // v >= 0xC0
        const __m128i l1 = _mm_cmpeq_epi8(_mm_and_si128(v, m3), m3);
        const __m128i l2 = _mm_cmpeq_epi8(_mm_and_si128(v, m3c), m3c);
        acc_d = _mm_add_epi64(acc_d, _mm_sad_epu8(_mm_and_si128(d, one), zero));
        acc_l = _mm_add_epi64(acc_l, _mm_sad_epu8(_mm_sub_epi8(zero, _mm_add_epi8(l1, l2)), zero));
        acc_m = _mm_add_epi64(acc_m, _mm_sad_epu8(_mm_sub_epi8(zero, l2), zero));
        // lc (0 when 3) + mc + 2 (14 when 15: mc + 2 - 3); l1/l2 are -1 where long.
        const __m128i lc = _mm_andnot_si128(l1, _mm_and_si128(v, m3));
        const __m128i mc = _mm_and_si128(_mm_srli_epi16(v, 2), m0f);
        const __m128i mu = _mm_add_epi8(_mm_add_epi8(mc, two), _mm_add_epi8(l2, _mm_add_epi8(l2, l2)));
        acc_s = _mm_add_epi64(acc_s, _mm_sad_epu8(_mm_add_epi8(lc, mu), zero));
    }
    alignas(16) uint64_t t[2];
    _mm_store_si128(reinterpret_cast<__m128i*>(t), acc_d);
    need_d = size_t(t[0] + t[1]);
    _mm_store_si128(reinterpret_cast<__m128i*>(t), acc_l);
    need_l = size_t(t[0] + t[1]);
    _mm_store_si128(reinterpret_cast<__m128i*>(t), acc_s);
    sum = size_t(t[0] + t[1]);
    _mm_store_si128(reinterpret_cast<__m128i*>(t), acc_m);
    need_m = size_t(t[0] + t[1]);
#endif
    for (; i < nc; ++i) {
        const unsigned b = cmd[i];
        const unsigned lc = b & 3, mc = (b >> 2) & 15;
        need_d += b >= 0xC0;
        need_l += size_t(lc == 3) + size_t(mc == 15);
        need_m += size_t(mc == 15);
        sum += (lc == 3 ? 0 : lc) + (mc == 15 ? 14 : mc + 2);
    }
    short_sum = sum;
    long_matches = need_m;
    return need_d == nd && need_l == nl;
}

// Commands the fast loop leaves to its output-checked form at the end of a chunk.
constexpr size_t k_lz_tail = 16;

// Every new distance is at least 8 (KRAKEN.md 10.3; a smaller one is an error that the checked
// loops report).
// Written for the baseline's vector instructions: SSE2 has no unsigned 32-bit minimum, and a
// running minimum took five instructions per four distances; "no distance has only its low
// three bits set" is an and, a compare and an or.
bool lz_distances_valid(const uint32_t* dist, size_t nd) {
    uint32_t below8 = 0;
    for (size_t i = 0; i < nd; ++i) below8 |= uint32_t((dist[i] & ~7u) == 0);
    return below8 == 0;
}

// Sum of the long lengths (at most 0x20000 / 4 of them, each below 2^20: no overflow), in runs
// of 2048 summed in 32 bits (below 2^31 each): 64-bit lanes halved the vector width and SSE2
// has no widening load, so the 64-bit running sum took three times the instructions.
uint64_t lz_sum(const uint32_t* lens, size_t nl) {
    uint64_t s = 0;
    for (size_t b = 0; b < nl; b += 2048) {
        const size_t e = std::min(nl, b + 2048);
        uint32_t run = 0;
        for (size_t i = b; i < e; ++i) run += lens[i];
        s += run;
    }
    return s;
}

template <int Mode>
bool lz_execute(Ctx& c, const uint8_t* at, const LzState& st, size_t o, const uint8_t* cmd, size_t nc, const uint8_t* lit,
                size_t nlit, const uint32_t* dist, size_t nd, const uint32_t* lens, size_t nl) {
    uint8_t* const out = st.out;
    const size_t E = st.e, W = st.w;
    size_t r0 = 8, r1 = 8, r2 = 8;
    size_t li = 0, di = 0, ni = 0;
    auto put_literals = [&](size_t lam) {
        uint8_t* d = out + o;
        const uint8_t* s = lit + li;
        if constexpr (Mode == 1) {
            if (lam <= 16 && E - o >= 16) {
                std::memcpy(d, s, 16);  // the literal buffer has slack; bytes past lam are rewritten later
            } else {
                std::memcpy(d, s, lam);
            }
        } else {
            const uint8_t* ref = d - r0;
            size_t i = 0;
            if (E - o >= lam + 8) {
                for (; i < lam; i += 8) store_le64(d + i, add_bytes8(load_le64(s + i), load_le64(ref + i)));
            } else {
                for (; i + 8 <= lam; i += 8) store_le64(d + i, add_bytes8(load_le64(s + i), load_le64(ref + i)));
                for (; i < lam; ++i) d[i] = uint8_t(s[i] + ref[i]);
            }
        }
        li += lam;
        o += lam;
    };
    // One command with every check of 10.3 in order (the fast path's fallback).
    auto exact_command = [&](size_t ci) -> bool {
        unsigned cb = cmd[ci];
        size_t lam = cb & 3;
        if (lam == 3) {
            if (ni >= nl) return c.fail(at, "command " + num(ci) + ": length list exhausted");
            lam = lens[ni++];
        }
        if (lam > nlit - li) return c.fail(at, "command " + num(ci) + ": literal list exhausted");
        if (lam > E - o) return c.fail(at, "command " + num(ci) + ": literals pass the chunk end");
        if (lam) put_literals(lam);
        size_t delta;
        switch (cb >> 6) {
        case 0:
            delta = r0;
            break;
        case 1:
            delta = r1;
            r1 = r0;
            r0 = delta;
            break;
        case 2:
            delta = r2;
            r2 = r1;
            r1 = r0;
            r0 = delta;
            break;
        default:
            if (di >= nd) return c.fail(at, "command " + num(ci) + ": distance list exhausted");
            delta = dist[di++];
            r2 = r1;
            r1 = r0;
            r0 = delta;
            break;
        }
        if (delta < 8) return c.fail(at, "command " + num(ci) + ": distance " + num(delta) + " is below 8");
        if (delta > o - W) return c.fail(at, "command " + num(ci) + ": distance " + num(delta) + " reaches before the window");
        size_t mu = (cb >> 2) & 15;
        if (mu == 15) {
            if (ni >= nl) return c.fail(at, "command " + num(ci) + ": length list exhausted");
            mu = 14 + size_t(lens[ni++]);
        } else {
            mu += 2;
        }
        if (mu > E - o) return c.fail(at, "command " + num(ci) + ": match passes the chunk end");
        uint8_t* d = out + o;
        const uint8_t* s = d - delta;
        if (E - o >= mu + 16) {
            if (delta >= 16) {
                size_t i = 0;
                do {
                    std::memcpy(d + i, s + i, 16);
                    i += 16;
                } while (i < mu);
            } else {
                size_t i = 0;
                do {
                    std::memcpy(d + i, s + i, 8);
                    i += 8;
                } while (i < mu);
            }
        } else {
            for (size_t i = 0; i < mu; ++i) d[i] = s[i];
        }
        o += mu;
        return true;
    };
    size_t ci = 0;
    // Fast path: every command whose checks all pass and that leaves at least k_lz_margin bytes
    // before the chunk end. Its values are computed first and committed only when they pass,
    // so a command that fails a check (or comes near the chunk end) is redone by the exact
    // loop below, which reports the precise error. Copies go in fixed 16- or 8-byte steps in
    // program order, each step reading only bytes written before it (distance >= step size),
    // so overlapping matches never depend on how the compiler vectorises; a step may write up
    // to 15 bytes past the command, which the margin keeps inside the chunk (a later command
    // rewrites them).
    // Trusted fast path first (per-chunk hoisted list checks): when the commands ask for exactly
    // the lengths and distances there are, only the output end and the window are checked per
    // command; literals are checked once afterwards, and if they ran out the chunk is decoded
    // again from its start by the checked loops below (which then report the precise error).
    size_t short_sum = 0, long_matches = 0;
    if (E - o > k_lz_margin && lz_counts_match(cmd, nc, nd, nl, short_sum, long_matches) && lz_distances_valid(dist, nd)) {
        LzFast f{o, li, di, ni, r0, r1, r2};
        // Commands [0, nc - 16) without the output-end check when all commands together write
        // no more than the chunk holds: the last 16 write at least 2 bytes each, so the ones
        // before end at least 32 bytes (k_lz_margin) before the chunk end.
        static_assert(2 * k_lz_tail >= k_lz_margin);
        // The long-match copy form when more than one command in 8 has a match of over 16
        // bytes (emevd: 36%; the character binders: 2-4%, where the short form is faster).
        const bool long_form = long_matches * 8 > nc;
        size_t cj = 0;
        bool all_before_tail = true;  // phase A skipped, or it ran every command it was given
        if (nc > k_lz_tail && uint64_t(short_sum) + lz_sum(lens, nl) <= uint64_t(E - o)) {
            cj = long_form ? (recent_shuffle_supported() ? lz_trusted_long<Mode, true>(f, out, W, cmd, nc - k_lz_tail, lit, dist, lens)
                                                         : lz_trusted_long<Mode, false>(f, out, W, cmd, nc - k_lz_tail, lit, dist, lens))
                           : lz_trusted<Mode, false>(f, out, E - k_lz_margin, W, cmd, nc - k_lz_tail, lit, dist, lens);
            all_before_tail = cj == nc - k_lz_tail;
        }
        if (all_before_tail) cj += lz_trusted<Mode, true>(f, out, E - k_lz_margin, W, cmd + cj, nc - cj, lit, dist, lens);
        if (f.li <= nlit) {
            ci = cj;
            o = f.o, li = f.li, di = f.di, ni = f.ni, r0 = f.r0, r1 = f.r1, r2 = f.r2;
        }
    }
    for (;;) {
        if (E - o > k_lz_margin) {
            LzFast f{o, li, di, ni, r0, r1, r2};
            ci = lz_fast<Mode>(f, out, E - k_lz_margin, W, cmd, ci, nc, lit, nlit, dist, nd, lens, nl);
            o = f.o, li = f.li, di = f.di, ni = f.ni, r0 = f.r0, r1 = f.r1, r2 = f.r2;
        }
        if (ci >= nc) break;
        if (!exact_command(ci)) return false;
        ++ci;
    }
    if (di != nd) return c.fail(at, num(nd - di) + " distances unused");
    if (ni != nl) return c.fail(at, num(nl - ni) + " lengths unused");
    if (E - o != nlit - li)
        return c.fail(at, "trailing literals: " + num(nlit - li) + " left for " + num(E - o) + " output bytes");
    if (E > o) put_literals(E - o);
    return true;
}

bool decode_lz_chunk(Ctx& c, const uint8_t* p, size_t S, unsigned mode, uint8_t* out, size_t cpos, size_t M, size_t W) {
    if (S < 13) return c.fail(p, "LZ chunk of " + num(S) + " B is below 13 B");
    const uint8_t* end = p + S;
    size_t o = cpos;
    if (cpos == W) {
        if (M < 8) return c.fail(p, "LZ chunk of " + num(M) + " output bytes cannot hold the raw prefix");
        std::memcpy(out + cpos, p, 8);
        p += 8;
        o += 8;
    }
    if (p[0] & 0x80) return c.fail(p, "LZ flag byte (excess bytes) unsupported");
    Arena::Mark mark = c.arena.mark();
    uint8_t* lit = c.arena.alloc(M);
    uint8_t* cmd = c.arena.alloc(M);
    size_t nlit = 0, nc = 0;
    if (!lz_array(c, "literals", p, end, lit, M, nlit)) return false;
    if (!lz_array(c, "commands", p, end, cmd, M, nc)) return false;
    if (end - p < 3) return c.fail(p, "LZ chunk: fewer than 3 B left for the distance arrays");
    uint32_t sigma = 0;  // 0 = plain distances
    if (p[0] >= 0x80) {
        sigma = p[0] - 127u;
        ++p;
    }
    uint8_t* dcodes = c.arena.alloc(nc);
    size_t nd = 0;
    if (!lz_array(c, "distances", p, end, dcodes, nc, nd)) return false;
    uint8_t* drem = nullptr;
    if (sigma > 1) {
        drem = c.arena.alloc(nd);
        size_t nr = 0;
        if (!lz_array(c, "distance_remainders", p, end, drem, nd, nr)) return false;
        if (nr != nd) {
            Scope s(c, "distance_remainders");
            return c.fail(p, "distance remainders: " + num(nr) + " for " + num(nd) + " distances");
        }
    }
    uint8_t* lcodes = c.arena.alloc(M / 4);
    size_t nl = 0;
    if (!lz_array(c, "lengths", p, end, lcodes, M / 4, nl)) return false;

    // Bit region (10.2).
    c.names[c.depth++] = {"bits", -1};  // popped below, or by the segment reset on failure
    const size_t region = size_t(end - p);
    MF f(p, region);
    MB b(p, region);
    unsigned z = b.peek_zeros();
    if (z > 18) return c.fail(p, "long-length count prefix too long");
    b.skip(z);
    uint32_t K = b.read(z + 1) - 1;
    if (K > 512) return c.fail(p, "long-length count " + num(K) + " exceeds 512");
    uint32_t* dist = reinterpret_cast<uint32_t*>(c.arena.alloc(nd * 4));
    // Distances alternate between the forward and the backward stream: decoded in pairs so
    // that the choice of stream is not a per-distance branch.
    auto decode_distance = [&](size_t i, auto& rd) __attribute__((always_inline)) -> bool {
        unsigned code = dcodes[i];
        uint64_t dv;
        if (sigma == 0) {
            if (code < 0xF0) {
                unsigned w = (code >> 4) + 4;
                uint32_t x = rd.read(w);
                dv = 16 * ((uint64_t(1) << w) + x) + (code & 15) - 248;
            } else {
                unsigned w = code - 0xF0 + 4;
                uint32_t x = rd.read(w);
                uint32_t y = rd.read(12);
                dv = 8322816 + 4096 * ((uint64_t(1) << w) + x) + y;
            }
        } else {
            unsigned ex = code >> 3;
            if (ex > 26) return c.fail(p, "distance " + num(i) + ": scaled exponent " + num(ex) + " exceeds 26");
            uint32_t x = rd.read(ex);
            uint64_t d0 = (uint64_t(8 + (code & 7)) << ex) + x - 8;
            dv = uint64_t(sigma) * d0 + (drem ? drem[i] : 0);
        }
        if (dv > 0xFFFFFFFFu) return c.fail(p, "distance " + num(i) + " exceeds 32 bits");
        dist[i] = uint32_t(dv);
        return true;
    };
    {
        size_t i = 0;
        for (; i + 1 < nd; i += 2)
            if (!decode_distance(i, f) || !decode_distance(i + 1, b)) return false;
        if (i < nd && !decode_distance(i, f)) return false;
    }
    uint32_t longs[512];
    for (uint32_t j = 0; j < K; ++j) {
        uint32_t x;
        if (j & 1) {
            unsigned zz = b.peek_zeros();
            if (zz > 12) return c.fail(p, "long length prefix too long");
            b.skip(zz);
            x = b.read(zz + 7);
        } else {
            unsigned zz = f.peek_zeros();
            if (zz > 12) return c.fail(p, "long length prefix too long");
            f.skip(zz);
            x = f.read(zz + 7);
        }
        longs[j] = x - 64;
    }
    if (f.consumed_bytes() + b.consumed_bytes() != region)
        return c.fail(p, "bit region: streams used " + num(f.consumed_bytes()) + " + " + num(b.consumed_bytes()) + " B of " +
                             num(region));
    uint32_t* lens = reinterpret_cast<uint32_t*>(c.arena.alloc(nl * 4));
    uint32_t kl = 0;
    for (size_t i = 0; i < nl; ++i) {
        unsigned v = lcodes[i];
        if (v < 255) {
            lens[i] = v + 3;
        } else {
            if (kl >= K) return c.fail(p, "more 255 length codes than long lengths (" + num(K) + ")");
            lens[i] = longs[kl++] + 258;
        }
    }
    if (kl != K) return c.fail(p, "long lengths unused: " + num(K - kl));

    --c.depth;

    LzState st{out, W, cpos + M};
    bool ok;
    {
        Scope cs(c, "execute");
        ok = mode == 0 ? lz_execute<0>(c, p, st, o, cmd, nc, lit, nlit, dist, nd, lens, nl)
                       : lz_execute<1>(c, p, st, o, cmd, nc, lit, nlit, dist, nd, lens, nl);
    }
    c.arena.release(mark);
    return ok;
}

// ----------------------------------------------------------------------------------------
// Kraken quantum (KRAKEN.md 4)

bool decode_quantum(Ctx& c, const uint8_t* p, size_t q, uint8_t* out, size_t pos, size_t n, size_t W) {
    const uint8_t* end = p + q;
    size_t cpos = pos;
    long index = 0;
    while (cpos < pos + n) {
        c.chunk = index;
        size_t M = std::min(k_chunk_size, pos + n - cpos);
        if (end - p < 4) return c.fail(p, "fewer than 4 B left in the quantum for a chunk");
        uint32_t h = be24(p);
        if (!(h & 0x800000)) {
            Scope s(c, "array");
            size_t used = 0, got = 0;
            if (!decode_array(c, p, end, out + cpos, M, used, got, 0)) return false;
            if (got != M) return c.fail(p, "entropy-only chunk decodes to " + num(got) + " B, not " + num(M));
            p += used;
        } else {
            p += 3;
            size_t S = h & 0x7FFFF;
            unsigned mode = (h >> 19) & 0xF;
            if (S > size_t(end - p)) return c.fail(p - 3, "chunk size " + num(S) + " exceeds the " + num(size_t(end - p)) + " B left");
            if (S > M) return c.fail(p - 3, "chunk size " + num(S) + " exceeds its output size " + num(M));
            if (S == M) {
                if (mode != 0) return c.fail(p - 3, "stored chunk with mode " + num(mode));
                std::memcpy(out + cpos, p, S);
            } else {
                if (mode > 1) return c.fail(p - 3, "LZ chunk mode " + num(mode) + " is not 0 or 1");
                if (!decode_lz_chunk(c, p, S, mode, out, cpos, M, W)) return false;
            }
            p += S;
        }
        cpos += M;
        ++index;
    }
    c.chunk = -1;
    if (p != end) return c.fail(p, "quantum has " + num(size_t(end - p)) + " B left over");
    return true;
}

// ----------------------------------------------------------------------------------------
// Framing (KRAKEN.md 3)

enum class BlockKind : uint8_t { raw, memset, stored, quantum };

struct BlockInfo {
    size_t in_off;    // start of the payload (raw bytes, quantum payload)
    size_t in_size;   // payload bytes
    size_t hdr_off;   // start of the block header
    size_t out_pos;
    size_t n;
    BlockKind kind;
    uint8_t fill;
    bool restart;
};

// A block whose magic nibble is right but whose decoder type is not 6 is another Oodle codec's
// stream (the Oodle library dispatches on this byte): name it, and say how to decode it.
std::string not_implemented(unsigned type) {
    const std::string n = std::to_string(type);
    const char* how = " is not implemented by drape; pass --oodle with the game's oo2core library "
                      "(oo2core_6_win64.dll or liboo2corelinux64.so), or set DRAPE_OODLE";
    if (const char* name = codec_name(type)) return std::string("Oodle ") + name + " (decoder type " + n + ")" + how;
    return "Oodle decoder type " + n + " (not Kraken, and none of the codecs KRAKEN.md names: 5 LZNA, 10 Mermaid/Selkie, "
           "11 BitKnit, 12 Leviathan)" + how;
}

Error block_error(size_t b, const std::string& what, size_t off, std::string reason) {
    return make_error_at(off, "kraken.block[" + std::to_string(b) + "]" + what, std::move(reason));
}

Result<std::vector<BlockInfo>> parse_framing(Bytes in, size_t U) {
    std::vector<BlockInfo> blocks;
    blocks.reserve(U / k_block_size + 1);
    ByteReader r(in, 0, true);
    size_t pos = 0;
    while (pos < U) {
        size_t b = blocks.size();
        BlockInfo bi{};
        bi.hdr_off = r.pos();
        bi.out_pos = pos;
        bi.n = std::min(k_block_size, U - pos);
        uint8_t h0 = 0, h1 = 0;
        if (!r.read(h0, "h") || !r.read(h1, "h")) return block_error(b, ".header", r.error().offset, r.error().reason);
        if ((h0 & 0x0F) != 0x0C) return block_error(b, ".header", bi.hdr_off, "magic nibble is " + hex(h0 & 0x0F) + ", not 0xC");
        if (h0 & 0x30) return block_error(b, ".header", bi.hdr_off, "reserved bits 4-5 are set (" + hex(h0) + ")");
        unsigned type = h1 & 0x7F;
        if (type != 6) return block_error(b, ".header", bi.hdr_off + 1, not_implemented(type));
        bool checksums = (h1 & 0x80) != 0;
        bi.restart = (h0 & 0x80) != 0;
        if (h0 & 0x40) {
            bi.kind = BlockKind::raw;
            bi.in_off = r.pos();
            bi.in_size = bi.n;
            if (!r.skip(bi.n, "u")) return block_error(b, ".raw", bi.in_off, "uncompressed block needs " + std::to_string(bi.n) +
                                                                                  " B, " + std::to_string(r.remaining()) + " B left");
        } else {
            size_t qoff = r.pos();
            if (r.remaining() < 3) return block_error(b, ".quantum", qoff, "truncated quantum header (" + std::to_string(r.remaining()) + " B left)");
            uint32_t v = uint32_t(r.u8("q")) << 16;
            v |= uint32_t(r.u8("q")) << 8;
            v |= r.u8("q");
            uint32_t s = v & 0x3FFFF;
            if (s == 0x3FFFF) {
                if ((v >> 18) != 1) return block_error(b, ".quantum", qoff, "special quantum header with kind " + std::to_string(v >> 18) + ", not 1");
                if (r.remaining() < 1) return block_error(b, ".quantum", r.pos(), "memset quantum lacks its fill byte");
                bi.kind = BlockKind::memset;
                bi.fill = r.u8("f");
                bi.in_off = r.pos();
                bi.in_size = 0;
            } else {
                size_t q = size_t(s) + 1;
                if (checksums) {
                    if (r.remaining() < 3) return block_error(b, ".quantum", r.pos(), "truncated quantum checksum");
                    (void)r.skip(3, "c");  // checksum algorithm not covered by the spec; not verified
                }
                if (q > bi.n) return block_error(b, ".quantum", qoff, "quantum size " + std::to_string(q) + " exceeds block size " + std::to_string(bi.n));
                if (q > r.remaining()) return block_error(b, ".quantum", qoff, "quantum size " + std::to_string(q) + " exceeds the " +
                                                                                 std::to_string(r.remaining()) + " B left (truncated)");
                bi.kind = q == bi.n ? BlockKind::stored : BlockKind::quantum;
                bi.in_off = r.pos();
                bi.in_size = q;
                (void)r.skip(q, "q");
            }
        }
        blocks.push_back(bi);
        pos += bi.n;
    }
    if (r.remaining() != 0)
        return make_error_at(r.pos(), "kraken.end", std::to_string(r.remaining()) + " B of input left after " + std::to_string(U) + " output bytes");
    return blocks;
}

// Decodes blocks [first, last) in order; block `first` sets the window (it is block 0 or has
// the restart bit).
// `out` is the output of position `shift` onwards (shift = the first block's out_pos when only
// a range is decoded, else 0).
bool decode_segment(Ctx& c, Bytes in, uint8_t* out, size_t shift, const std::vector<BlockInfo>& blocks, size_t first,
                    size_t last) {
    size_t W = 0;
    c.arena.release({0, 0});
    c.depth = 0;
    c.failed = false;
    for (size_t i = first; i < last; ++i) {
        const BlockInfo& bi = blocks[i];
        c.block = long(i);
        c.chunk = -1;
        const size_t pos = bi.out_pos - shift;
        if (bi.restart || i == first) W = pos;
        const uint8_t* src = in.data() + bi.in_off;
        uint8_t* dst = out + pos;
        switch (bi.kind) {
        case BlockKind::raw:
        case BlockKind::stored:
            std::memcpy(dst, src, bi.n);
            break;
        case BlockKind::memset:
            std::memset(dst, bi.fill, bi.n);
            break;
        case BlockKind::quantum:
            if (!decode_quantum(c, src, bi.in_size, out, pos, bi.n, W)) return false;
            break;
        }
    }
    return true;
}

Error ctx_error(const Ctx& c) { return make_error_at(c.err_off, c.err_field, c.err_reason); }

// Decodes blocks [first, last) into `out` (the output from blocks[first].out_pos on). Block
// `first` must start a segment (block 0, a restart block, or the start of a range decode).
Result<void> decode_blocks(Bytes in, const std::vector<BlockInfo>& blocks, size_t first, size_t last, uint8_t* out,
                           unsigned jobs) {
    if (first >= last) return {};
    const size_t shift = blocks[first].out_pos;
    // Segments: a block that restarts the window begins a new independent run of blocks.
    std::vector<size_t> seg_start;
    for (size_t i = first; i < last; ++i)
        if (i == first || blocks[i].restart) seg_start.push_back(i);
    seg_start.push_back(last);
    const size_t nseg = seg_start.size() - 1;

    if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
    size_t nthreads = std::min<size_t>(jobs, nseg);
    if (nthreads <= 1) {
        PooledArena arena;
        Ctx c(arena.get());
        c.in_base = in.data();
        for (size_t s = 0; s < nseg; ++s)
            if (!decode_segment(c, in, out, shift, blocks, seg_start[s], seg_start[s + 1])) return ctx_error(c);
        return {};
    }

    // Parallel: the workers take the next segment in stream order from one shared counter
    // (dynamic, so blocks of different cost balance out: on the corpus files of 8+ blocks,
    // measured per-block costs give a 2-worker split within 0.5-3.5% of the ideal either in
    // stream order or costliest first, so the simpler order stays). The error of the first
    // failing segment (in stream order) is reported, as the sequential decoder would.
    std::atomic<size_t> next{0};
    std::atomic<size_t> first_bad{nseg};
    std::vector<Error> errors(nseg);
    auto worker = [&]() {
        PooledArena arena;
        Ctx c(arena.get());
        c.in_base = in.data();
        for (;;) {
            const size_t s = next.fetch_add(1);
            if (s >= nseg || s > first_bad.load()) break;
            c.failed = false;
            if (!decode_segment(c, in, out, shift, blocks, seg_start[s], seg_start[s + 1])) {
                errors[s] = ctx_error(c);
                size_t cur = first_bad.load();
                while (s < cur && !first_bad.compare_exchange_weak(cur, s)) {
                }
            }
        }
    };
    const std::function<void()> task = worker;
    std::vector<std::unique_ptr<Helper>> helpers;
    helpers.reserve(nthreads - 1);
    for (size_t t = 1; t < nthreads; ++t) {
        helpers.push_back(helper_pool().take());
        helpers.back()->run(&task);
    }
    worker();
    for (auto& h : helpers) {
        h->wait();
        helper_pool().give(std::move(h));
    }
    if (first_bad.load() < nseg) return errors[first_bad.load()];
    return {};
}

}  // namespace

bool set_cpu_extensions(bool enabled) { return g_cpu_extensions.exchange(enabled); }

const char* codec_name(unsigned decoder_type) {
    switch (decoder_type) {
    case 5: return "LZNA";
    case 6: return "Kraken";
    case 10: return "Mermaid/Selkie";
    case 11: return "BitKnit";
    case 12: return "Leviathan";
    default: return nullptr;
    }
}

Result<void> decompress(Bytes in, std::span<uint8_t> out, unsigned jobs) {
    auto framing = parse_framing(in, out.size());
    if (!framing) return std::move(framing).error();
    return decode_blocks(in, *framing, 0, framing->size(), out.data(), jobs);
}

Result<void> decompress_range(Bytes in, size_t total, size_t offset, std::span<uint8_t> out, unsigned jobs) {
    if (offset > total || out.size() > total - offset)
        return make_error("range of " + std::to_string(out.size()) + " B at " + std::to_string(offset) + " lies outside the " +
                              std::to_string(total) + " B output",
                          "kraken.range");
    auto framing = parse_framing(in, total);
    if (!framing) return std::move(framing).error();
    const std::vector<BlockInfo>& blocks = *framing;
    if (out.empty()) return {};
    size_t first = offset / k_block_size;
    const size_t last = (offset + out.size() - 1) / k_block_size + 1;
    while (first > 0 && !blocks[first].restart) --first;
    const size_t begin = blocks[first].out_pos;
    const size_t end = blocks[last - 1].out_pos + blocks[last - 1].n;
    if (begin == offset && end == offset + out.size()) return decode_blocks(in, blocks, first, last, out.data(), jobs);
    std::unique_ptr<uint8_t[]> scratch(new uint8_t[end - begin]);
    auto r = decode_blocks(in, blocks, first, last, scratch.get(), jobs);
    if (!r) return r;
    std::memcpy(out.data(), scratch.get() + (offset - begin), out.size());
    return {};
}

}  // namespace drape::kraken
