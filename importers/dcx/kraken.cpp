// drape: Oodle Kraken decoder, written from a clean-room specification alone
// (docs/containers.md#kraken).
//
// Layout: this file holds what exists once (scratch arenas, helper threads, the error context,
// block framing, the CPU checks, parallel decoding and the public functions); kraken_core.inc
// holds the decoding itself: bit readers, array headers, Huffman, tANS, RLE, recursive arrays,
// LZ chunks, quanta and chunks, and the decoding of a run of blocks. This file includes it twice (baseline
// and x86-64-v3) and picks a copy per call.
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
#include <cpuid.h>
#include <smmintrin.h>
// A second copy of the decoding core for x86-64-v3 CPUs (see where kraken_core.inc is included).
#define DRAPE_KRAKEN_X86_64_V3 1
#else
#define DRAPE_KRAKEN_X86_64_V3 0
#endif

namespace drape::kraken {
namespace {

constexpr size_t k_block_size = 0x40000;  // 3.1
constexpr size_t k_chunk_size = 0x20000;  // 4
constexpr int k_max_depth = 16;           // nesting limit of arrays (files need 2)
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
// What the CPU may run: the choices of set_cpu_extensions and cpuid, shared by both copies of
// the core.

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define DRAPE_KRAKEN_RECENT_SHUFFLE 1
#define DRAPE_KRAKEN_TARGET_SSE41 __attribute__((target("sse4.1")))
alignas(16) constexpr uint8_t k_recent_shuffle[4][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {4, 5, 6, 7, 0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15},
    {8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15},
    {12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
};
#else
#define DRAPE_KRAKEN_RECENT_SHUFFLE 0
#define DRAPE_KRAKEN_TARGET_SSE41
#endif

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

// Whether decode_blocks runs the x86-64-v3 copy of the core: the CPU (and the OS, for the AVX
// state) has AVX2, BMI1, BMI2, LZCNT, FMA, MOVBE, F16C, POPCNT and SSE4.2, and extensions are
// allowed (set_cpu_extensions).
#if DRAPE_KRAKEN_X86_64_V3
bool cpu_has_x86_64_v3() {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
    const bool leaf1 = (c & bit_SSE4_2) && (c & bit_MOVBE) && (c & bit_POPCNT) && (c & bit_OSXSAVE) && (c & bit_AVX) &&
                       (c & bit_F16C) && (c & bit_FMA);
    if (!leaf1) return false;
    unsigned xcr0_lo = 0, xcr0_hi = 0;
    __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
    if ((xcr0_lo & 6) != 6) return false;  // the OS saves the SSE and AVX state
    if (__get_cpuid_max(0, nullptr) < 7) return false;
    __cpuid_count(7, 0, a, b, c, d);
    if (!(b & bit_AVX2) || !(b & bit_BMI) || !(b & bit_BMI2)) return false;
    if (!__get_cpuid(0x80000001, &a, &b, &c, &d)) return false;
    return (c & bit_LZCNT) != 0;
}
#endif

bool use_x86_64_v3() {
#if DRAPE_KRAKEN_X86_64_V3
    static const bool cpu = cpu_has_x86_64_v3();
    return cpu && g_cpu_extensions.load(std::memory_order_relaxed);
#else
    return false;
#endif
}

// ----------------------------------------------------------------------------------------
// Framing (docs/containers.md#stream-framing)

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
    return "Oodle decoder type " + n + " (not Kraken, nor another Oodle codec drape knows: 5 LZNA, 10 Mermaid/Selkie, "
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

// ----------------------------------------------------------------------------------------
// The decoding core, twice: for the baseline, and for x86-64-v3 (Elden Ring's emevd 1.02x the
// baseline copy's speed on an AMD Zen 5, 1.03-1.04x as a whole-file -march=x86-64-v3 build,
// spread evenly over the core's functions: three-operand shifts, LZCNT, VEX forms). The copies
// differ only in the instructions the compiler may use; tests run both (set_cpu_extensions(false) picks the baseline).

namespace baseline {
#define DRAPE_KRAKEN_CORE_TARGET_SHUFFLE DRAPE_KRAKEN_TARGET_SSE41
#include "kraken_core.inc"
#undef DRAPE_KRAKEN_CORE_TARGET_SHUFFLE
}  // namespace baseline

#if DRAPE_KRAKEN_X86_64_V3
// Every function defined in the region gets the target; functions of headers included earlier
// (the standard library's) keep the baseline, so no out-of-line copy of one can carry AVX2
// into code that runs on any CPU.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,bmi,bmi2,lzcnt,fma,movbe,f16c,popcnt,sse4.2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,bmi,bmi2,lzcnt,fma,movbe,f16c,popcnt,sse4.2")
#endif
namespace x86_64_v3 {
#define DRAPE_KRAKEN_CORE_TARGET_SHUFFLE
#include "kraken_core.inc"
#undef DRAPE_KRAKEN_CORE_TARGET_SHUFFLE
}  // namespace x86_64_v3
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif

// One segment on the copy of the core the call chose (use_x86_64_v3, once per call).
bool decode_segment(bool v3, Ctx& c, Bytes in, uint8_t* out, size_t shift, const std::vector<BlockInfo>& blocks,
                    size_t first, size_t last) {
#if DRAPE_KRAKEN_X86_64_V3
    if (v3) return x86_64_v3::decode_segment(c, in, out, shift, blocks, first, last);
#else
    (void)v3;
#endif
    return baseline::decode_segment(c, in, out, shift, blocks, first, last);
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
    const bool v3 = use_x86_64_v3();  // one copy of the core for the whole call

    if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
    size_t nthreads = std::min<size_t>(jobs, nseg);
    if (nthreads <= 1) {
        PooledArena arena;
        Ctx c(arena.get());
        c.in_base = in.data();
        for (size_t s = 0; s < nseg; ++s)
            if (!decode_segment(v3, c, in, out, shift, blocks, seg_start[s], seg_start[s + 1])) return ctx_error(c);
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
            if (!decode_segment(v3, c, in, out, shift, blocks, seg_start[s], seg_start[s + 1])) {
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
