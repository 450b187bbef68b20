// The fast zlib encoder of fast_deflate.h: matches at two fixed distances, one dynamic
// Huffman block sized exactly before it is written, stored blocks when those are smaller.
#include "drape/exporters/fast_deflate.h"
#include "kept_buffer.h"

#include <libdeflate.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <memory>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace drape::image {

namespace {

static_assert(std::endian::native == std::endian::little, "the bit writer stores little-endian words");

constexpr int k_max_match = 258;
constexpr int k_litlen_symbols = 286;  // 0..255 literals, 256 end of block, 257..285 lengths
constexpr int k_dist_symbols = 30;
constexpr int k_codelen_symbols = 19;

// RFC 1951 3.2.5: base value and extra bits of each length (257..285) and distance code.
constexpr uint16_t k_length_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                        31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr uint8_t k_length_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr uint16_t k_dist_base[30] = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
                                      193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr uint8_t k_dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
// The order in which the code-length code's lengths are sent.
constexpr uint8_t k_codelen_order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

struct LengthCode {
    uint16_t symbol;  // 257..285
    uint8_t extra_bits;
    uint16_t extra_value;
};

constexpr std::array<LengthCode, k_max_match + 1> make_length_codes() {
    std::array<LengthCode, k_max_match + 1> t{};
    for (int c = 0; c < 28; ++c)  // 284's last value would be 258, which 285 says in 0 bits
        for (int v = 0; v < (1 << k_length_extra[c]) && k_length_base[c] + v < k_max_match; ++v)
            t[size_t(k_length_base[c] + v)] = {uint16_t(257 + c), k_length_extra[c], uint16_t(v)};
    t[k_max_match] = {285, 0, 0};
    return t;
}
constexpr std::array<LengthCode, k_max_match + 1> k_length_codes = make_length_codes();

int dist_code_of(uint32_t distance) {
    int c = 0;
    while (c + 1 < k_dist_symbols && k_dist_base[c + 1] <= distance) ++c;
    return c;
}

// Huffman code lengths for freq[0, n), none longer than limit, every code complete (at least
// two symbols get a length, so no decoder sees a one-code or empty tree).
void build_lengths(const uint32_t* freq, int n, int limit, uint8_t* lengths) {
    std::fill(lengths, lengths + n, uint8_t(0));
    int used[k_litlen_symbols];
    int m = 0;
    for (int s = 0; s < n; ++s)
        if (freq[s]) used[m++] = s;
    if (m < 2) {  // pad with the lowest unused symbols
        for (int s = 0; s < n && m < 2; ++s)
            if (!freq[s] && (m == 0 || used[0] != s)) used[m++] = s;
        lengths[used[0]] = lengths[used[1]] = 1;
        return;
    }
    std::sort(used, used + m, [&](int a, int b) { return freq[a] != freq[b] ? freq[a] < freq[b] : a < b; });

    // Two-queue construction: leaves in ascending weight, internal nodes appear in ascending
    // weight too. Nodes 0..m-1 are the sorted leaves, m..2m-2 the internal nodes.
    uint64_t weight[2 * k_litlen_symbols];
    int parent[2 * k_litlen_symbols];
    for (int i = 0; i < m; ++i) weight[i] = freq[used[i]];
    int leaf = 0, inner = m, next = m;
    auto take = [&]() {
        if (leaf < m && (inner >= next || weight[leaf] <= weight[inner])) return leaf++;
        return inner++;
    };
    while (next < 2 * m - 1) {
        const int a = take();
        const int b = take();
        weight[next] = weight[a] + weight[b];
        parent[a] = parent[b] = next;
        ++next;
    }
    int depth[2 * k_litlen_symbols];
    depth[2 * m - 2] = 0;
    for (int k = 2 * m - 3; k >= 0; --k) depth[k] = depth[parent[k]] + 1;

    // Count leaves per length, clamp to the limit, then restore the Kraft equality: each step
    // splits the deepest leaf above the limit into two one level lower, taking one leaf off
    // the limit level, which lowers the Kraft sum by one unit of 2^-limit.
    int count[32] = {};
    for (int i = 0; i < m; ++i) ++count[std::min(depth[i], limit)];
    uint64_t kraft = 0;
    for (int l = 1; l <= limit; ++l) kraft += uint64_t(count[l]) << (limit - l);
    const uint64_t full = uint64_t(1) << limit;
    while (kraft > full) {
        int bits = limit - 1;
        while (count[bits] == 0) --bits;
        --count[bits];
        count[bits + 1] += 2;
        --count[limit];
        --kraft;
    }
    // The rarest symbols get the longest codes.
    int i = 0;
    for (int l = limit; l >= 1; --l)
        for (int k = 0; k < count[l]; ++k) lengths[used[i++]] = uint8_t(l);
}

// Canonical codes (RFC 1951 3.2.2), bit-reversed for the LSB-first stream.
void build_codes(const uint8_t* lengths, int n, uint16_t* codes) {
    int count[16] = {};
    for (int s = 0; s < n; ++s) ++count[lengths[s]];
    count[0] = 0;
    uint32_t next[16] = {};
    uint32_t code = 0;
    for (int l = 1; l < 16; ++l) {
        code = (code + uint32_t(count[l - 1])) << 1;
        next[l] = code;
    }
    for (int s = 0; s < n; ++s) {
        const int l = lengths[s];
        if (!l) {
            codes[s] = 0;
            continue;
        }
        uint32_t c = next[l]++, r = 0;
        for (int b = 0; b < l; ++b) r |= ((c >> b) & 1u) << (l - 1 - b);
        codes[s] = uint16_t(r);
    }
}

// Pass 1 records one step per decision of its pixel loop: 0 for a literal pixel (`unit`
// bytes), or 1 + distance * (k_max_match + 1) + length for a match. Pass 2 replays the same
// loop over the steps, so it needs neither literal counts nor a branch per decision.
constexpr size_t k_match_slots = 2 * (k_max_match + 1);
static_assert(k_match_slots < 65536);

inline void store64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }
inline uint64_t load64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

// Length of the match at p against p - d, at least 8 bytes known equal, up to limit.
inline size_t extend(const uint8_t* p, size_t d, size_t limit, size_t safe_words) {
    const uint8_t* earlier = p - d;  // (len - d would wrap when d > len)
    size_t len = 8;
    if (len >= limit) return limit;
    while (len + 8 <= safe_words) {
        const uint64_t x = load64(p + len) ^ load64(earlier + len);
        if (x) return std::min(limit, len + size_t(std::countr_zero(x) >> 3));
        len += 8;
        if (len >= limit) return limit;
    }
    while (len < limit && p[len] == earlier[len]) ++len;
    return len;
}

class BitWriter {
public:
    explicit BitWriter(uint8_t* out) : out_(out) {}
    // At most 56 - 7 bits per put between flushes.
    void put(uint64_t bits, int count) {
        buf_ |= bits << used_;
        used_ += count;
    }
    void flush() {
        std::memcpy(out_, &buf_, 8);
        const int bytes = used_ >> 3;
        out_ += bytes;
        buf_ = bytes == 8 ? 0 : buf_ >> (bytes * 8);
        used_ &= 7;
    }
    // Hands the buffer to a caller's locals and back (see the symbol loop).
    uint8_t* release_flushed() {
        flush();
        return out_;
    }
    void take_pending(uint64_t& buf, int& used) const {
        buf = buf_;
        used = used_;
    }
    void resume(uint8_t* out, uint64_t buf, int used) {
        out_ = out;
        buf_ = buf;
        used_ = used;
    }
    // Flushes everything, padding the last byte with zeros; returns the end.
    uint8_t* finish() {
        flush();
        if (used_) *out_++ = uint8_t(buf_);
        used_ = 0;
        buf_ = 0;
        return out_;
    }

private:
    uint8_t* out_;
    uint64_t buf_ = 0;
    int used_ = 0;
};

void put_stored(const uint8_t* data, size_t size, std::vector<uint8_t>& out) {
    size_t pos = 0;
    do {
        const size_t n = std::min<size_t>(size - pos, 65535);
        const bool last = pos + n == size;
        out.push_back(last ? 1 : 0);  // BFINAL, BTYPE 00, padded to the byte
        out.push_back(uint8_t(n));
        out.push_back(uint8_t(n >> 8));
        out.push_back(uint8_t(~n));
        out.push_back(uint8_t(~n >> 8));
        out.insert(out.end(), data + pos, data + pos + n);
        pos += n;
    } while (pos < size);
}


// The layout pass 1 walks: rows of `stride` bytes (the whole input is one row for a raw
// stream), each starting with `lead` bytes that are always literals (a PNG filter byte), then
// units of `unit` bytes (a pixel): matches start and end on unit boundaries and within the
// row, so that one decision is taken per pixel rather than per byte (the decisions' branch
// misses were most of the time per byte).
struct Layout {
    size_t stride;
    size_t lead;
    size_t unit;
};

struct Pass1 {
    uint32_t lit_freq[k_litlen_symbols] = {};
    uint64_t extra_bits = 0;  // of the length codes
    uint64_t dist_uses[2] = {};
    // One per decision; at most one per `unit` bytes, so size / unit + 1 (not zeroed).
    uint16_t* steps = nullptr;
    // The steps of the rows from byte `split` on start at `second` (find_matches_masked takes
    // two halves of the rows at once); find_matches leaves split 0 and second = steps.
    size_t split = 0;
    uint16_t* second = nullptr;
};

using KeptSteps = image_detail::KeptBuffer<uint16_t>;  // per thread, see kept_buffer.h

// Unit: bytes per pixel as a constant (1, 3, 4), or 0 for layout.unit at run time.
template <size_t Unit>
void find_matches(const uint8_t* data, size_t size, Layout layout, size_t d0, size_t d1, Pass1& p) {
    const size_t unit = Unit ? Unit : layout.unit;
    const size_t max_len = size_t(k_max_match) - size_t(k_max_match) % unit;
    uint16_t* const steps = p.steps;
    size_t n = 0;
    const size_t fast_end = size >= 8 ? size - 8 : 0;  // 4- and 8-byte loads stay inside data
    for (size_t row = 0; row < size; row += layout.stride) {
        const size_t row_end = std::min(size, row + layout.stride);
        size_t i = std::min(row + layout.lead, row_end);
        for (size_t k = row; k < i; ++k) ++p.lit_freq[data[k]];
        if (d0) {
            const size_t end = std::min(row_end, fast_end);
            while (i + unit <= end) {
                // One 8-byte XOR per candidate both tests the first three bytes and measures a
                // short match; extend() runs on only for matches of 8 bytes or more.
                const uint64_t here = load64(data + i);
                const size_t limit = std::min(max_len, row_end - i);
                size_t len = 0;
                int which = 0;
                const uint64_t x0 = i >= d0 ? here ^ load64(data + i - d0) : 1;
                const uint64_t x1 = d1 && i >= d1 ? here ^ load64(data + i - d1) : 1;
                if (!(x0 & 0xFFFFFFu)) {
                    len = x0 ? size_t(std::countr_zero(x0) >> 3) : extend(data + i, d0, limit, size - i);
                    if (len < 32 && !(x1 & 0xFFFFFFu)) {
                        const size_t len1 = x1 ? size_t(std::countr_zero(x1) >> 3) : extend(data + i, d1, limit, size - i);
                        if (len1 > len) len = len1, which = 1;
                    }
                    len = std::min(len, limit);
                } else if (!(x1 & 0xFFFFFFu)) {
                    len = std::min(limit, x1 ? size_t(std::countr_zero(x1) >> 3) : extend(data + i, d1, limit, size - i));
                    which = 1;
                } else {
                    for (size_t k = 0; k < unit; ++k) ++p.lit_freq[data[i + k]];
                    steps[n++] = 0;
                    i += unit;
                    continue;
                }
                if (unit > 1) len -= len % unit;
                if (len < 3) {
                    for (size_t k = 0; k < unit; ++k) ++p.lit_freq[data[i + k]];
                    steps[n++] = 0;
                    i += unit;
                    continue;
                }
                const LengthCode& lc = k_length_codes[len];
                ++p.lit_freq[lc.symbol];
                p.extra_bits += lc.extra_bits;
                ++p.dist_uses[which];
                steps[n++] = uint16_t(1 + size_t(which) * (k_max_match + 1) + len);
                i += len;
            }
        }
        for (; i < row_end; ++i) ++p.lit_freq[data[i]];
    }
    p.split = 0;
    p.second = steps;
}

// Pass 1 for image rows: per row, one bit per byte says whether that byte differs from the
// byte d0 back, another whether it differs from the byte d1 back (16 bytes per SSE2 compare),
// so the match length at a position is the count of trailing zeros of the bits from there (one
// 8-byte load and a shift per candidate) instead of byte compares. Both candidates are measured and the
// longer taken (the first on a tie). Same loop bounds and step coding as find_matches.
class RowMasks {
public:
    explicit RowMasks(size_t stride) : bytes_((stride >> 3) + 32), bits_(2 * bytes_) {}
    // Bits of row [row, row + len) of data: bit k of `m0` is 0 where data[row + k] ==
    // data[row + k - d0], else 1 (also where row + k < d0, and past the row); `m1` the same for
    // d1 (all 1 when d1 is 0).
    void build(const uint8_t* data, size_t row, size_t len, size_t d0, size_t d1) {
        uint8_t* m0 = bits_.data();
        uint8_t* m1 = m0 + bytes_;
        std::memset(m0, 0xFF, 2 * bytes_);
        const uint8_t* p = data + row;
        size_t k = 0;
        if (row >= d0 && (!d1 || row >= d1)) {
#if defined(__SSE2__)
            for (; k + 16 <= len; k += 16) {
                const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + k));
                const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + k - d0));
                const uint16_t e0 = uint16_t(~_mm_movemask_epi8(_mm_cmpeq_epi8(c, a)));
                std::memcpy(m0 + (k >> 3), &e0, 2);
                if (d1) {
                    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + k - d1));
                    const uint16_t e1 = uint16_t(~_mm_movemask_epi8(_mm_cmpeq_epi8(c, b)));
                    std::memcpy(m1 + (k >> 3), &e1, 2);
                }
            }
#endif
        }
        for (; k < len; ++k) {  // the first row, a row's last bytes, no SSE2
            const size_t at = row + k;
            const bool e0 = at >= d0 && data[at] == data[at - d0];
            const bool e1 = d1 && at >= d1 && data[at] == data[at - d1];
            m0[k >> 3] = uint8_t(m0[k >> 3] & ~(uint8_t(e0) << (k & 7)));
            m1[k >> 3] = uint8_t(m1[k >> 3] & ~(uint8_t(e1) << (k & 7)));
        }
    }
    // Equal bytes from row offset k on against d0 (which 0) or d1 (which 1), up to the row's
    // end and at most 258 (k_max_match). One load covers 56 bytes; longer runs loop.
    [[gnu::always_inline]] size_t run(int which, size_t k) const {
        const uint8_t* m = bits_.data() + size_t(which) * bytes_;
        const size_t c = equal_from(m, k);
        return c < 56 ? c : long_run(m, k);
    }

private:
    // The bits are stored inverted (1 = differs, also past the row's end), so a run is one
    // load, a shift and a bit scan (the 1 at bit 56 bounds it to what the load covers).
    [[gnu::always_inline]] static size_t equal_from(const uint8_t* m, size_t k) {
        const uint64_t differs = load64(m + (k >> 3)) >> (k & 7);
        return size_t(__builtin_ctzll(differs | (uint64_t(1) << 56)));  // the input is never 0
    }
    [[gnu::noinline]] static size_t long_run(const uint8_t* m, size_t k) {
        size_t n = 56;
        for (;;) {
            const size_t c = equal_from(m, k + n);
            n += c;
            if (c < 56 || n >= size_t(k_max_match)) return std::min(n, size_t(k_max_match));
        }
    }

    size_t bytes_;
    std::vector<uint8_t> bits_;
};

// The rows are taken in two halves at once (row k of the top half, then row k of the bottom
// half, one step of each in turn): a match step's length feeds the next step's position
// through loads, a shift, a bit scan and compares (about 25 cycles), and two independent
// chains run in the time of one. The bottom half's steps go to their own array (Pass1::second).
template <size_t Unit>
void find_matches_masked(const uint8_t* data, size_t size, Layout layout, size_t d0, size_t d1, Pass1& p) {
    const size_t unit = Unit ? Unit : layout.unit;
    const size_t max_len = size_t(k_max_match) - size_t(k_max_match) % unit;
    // A run of equal bytes (capped at 258) -> the whole units in it, or 0 when under 3 bytes.
    uint16_t whole[k_max_match + 1];
    for (size_t r = 0; r <= size_t(k_max_match); ++r) {
        const size_t w = std::min(r, max_len) - std::min(r, max_len) % unit;
        whole[r] = uint16_t(w >= 3 ? w : 0);
    }
    const size_t fast_end = size >= 8 ? size - 8 : 0;  // the bounds of find_matches (pass 2 replays them)
    // Literal bytes counted in four tables (by byte of the pixel; [3] also the length symbols)
    // so that consecutive adds rarely wait on the same counter.
    uint32_t freq[4][k_litlen_symbols] = {};
    const size_t rows = (size + layout.stride - 1) / layout.stride;
    const size_t top_rows = rows / 2;
    p.split = top_rows * layout.stride;
    p.second = p.steps + p.split / unit + 1;  // the top half takes at most split / unit steps
    // Each half's position, row and steps are plain locals (no pointer to them escapes, so they
    // stay in registers; in a struct beside the masks they were reloaded after every store).
    RowMasks top_masks(layout.stride), bottom_masks(layout.stride);
    uint16_t* top_steps = p.steps;
    uint16_t* bottom_steps = p.second;
    uint64_t uses[2] = {0, 0};
    // Starts a row: its lead bytes counted as literals; returns where steps end (== i: none).
    auto begin_row = [&](RowMasks& masks, size_t row, size_t& i, size_t& row_end) {
        row_end = std::min(size, row + layout.stride);
        i = std::min(row + layout.lead, row_end);
        for (size_t k = row; k < i; ++k) ++p.lit_freq[data[k]];
        const size_t end = std::min(row_end, fast_end);
        if (!d0 || i + unit > end) return i;
        masks.build(data, row, row_end - row, d0, d1);
        return end;
    };
    // k: the step's offset in its row (kept rather than the position, one subtraction less on
    // the chain from one step to the next).
    auto step = [&](const RowMasks& masks, const uint8_t* row, size_t& k, uint16_t*& steps) __attribute__((always_inline)) {
        const size_t r0 = masks.run(0, k);
        const size_t r1 = masks.run(1, k);
        const size_t which = r1 > r0;
        const size_t len = whole[which ? r1 : r0];  // the runs end at the row's end and at 258
        if (!len) {
            for (size_t b = 0; b < unit; ++b) ++freq[b & 3][row[k + b]];
            *steps++ = 0;
            k += unit;
            return;
        }
        ++freq[3][k_length_codes[len].symbol];  // the extra bits follow from these counts (below)
        ++uses[which];
        *steps++ = uint16_t(1 + which * (k_max_match + 1) + len);
        k += len;
    };
    for (size_t y = 0; y < rows - top_rows; ++y) {
        const size_t brow = (top_rows + y) * layout.stride;
        size_t bk, brow_end;
        const size_t bend = begin_row(bottom_masks, brow, bk, brow_end) - brow;  // offsets in the row from here
        bk -= brow;
        if (y < top_rows) {
            const size_t trow = y * layout.stride;
            size_t tk, trow_end;
            const size_t tend = begin_row(top_masks, trow, tk, trow_end) - trow;
            tk -= trow;
            while (tk + unit <= tend && bk + unit <= bend) {
                step(top_masks, data + trow, tk, top_steps);
                step(bottom_masks, data + brow, bk, bottom_steps);
            }
            while (tk + unit <= tend) step(top_masks, data + trow, tk, top_steps);
            for (tk += trow; tk < trow_end; ++tk) ++p.lit_freq[data[tk]];
        }
        while (bk + unit <= bend) step(bottom_masks, data + brow, bk, bottom_steps);
        for (bk += brow; bk < brow_end; ++bk) ++p.lit_freq[data[bk]];
    }
    for (int c = 0; c < 28; ++c) p.extra_bits += uint64_t(freq[3][257 + c]) * k_length_extra[c];  // 285 has none
    p.dist_uses[0] += uses[0];
    p.dist_uses[1] += uses[1];
    for (int c = 0; c < 4; ++c)
        for (int v = 0; v < 256; ++v) p.lit_freq[v] += freq[c][v];
    for (int v = 256; v < k_litlen_symbols; ++v) p.lit_freq[v] += freq[3][v];
}

// Pass 1 for RGB and RGBA rows (PNG): one bit per pixel and candidate instead of one per byte.
// Per row, bit x of `left` is 1 where pixel x differs from the Unit bytes before it (for x == 0
// the end of the row above and this row's filter byte, as a byte compare at distance Unit sees
// them; on the first row: differs), bit x of `up` where it differs from pixel x of the row above
// (every bit on the first row, or when rows are too long for the up distance). Bits from the
// row's width on are 1, so every run stops at the row's end. A decision is then a run of
// literal pixels (trailing ones of left & up) and the match after it (the longer run of zeros
// of the two, the left one on a tie): one step per match instead of one per literal pixel
// or match, and no per-byte mask to gather. Decisions equal the byte masks' but for that tie
// rule (a byte run of 5 and of 4 are one pixel each: the byte version took the 5).
//
// The mask builders (portable, SSSE3/SSE2, AVX2) write the same bits, as whole 16-pixel words
// (bits from the width on set) from the row's start to its last partial word; the caller sets
// every byte after that to 0xFF. px: the row's first pixel; readable: bytes that may be loaded
// from px on (the rows below included); up: the up distance in bytes (0: none).
using BuildPixelMasks = void (*)(const uint8_t* px, size_t width, size_t up, bool first_row, size_t readable, uint8_t* left,
                                 uint8_t* upm);

inline void store_mask16(uint8_t* m, size_t x, unsigned equal) {
    const uint16_t differs = uint16_t(~equal);
    std::memcpy(m + (x >> 3), &differs, 2);
}

// Pixels from x (a multiple of 16) to the row's end, one compare each.
template <size_t Unit>
void pixel_masks_portable_from(const uint8_t* px, size_t x, size_t width, size_t up, bool first_row, uint8_t* left,
                               uint8_t* upm) {
    for (; x < width; x += 16) {
        unsigned l = 0, u = 0;
        for (size_t j = 0; j < 16 && x + j < width; ++j) {
            const uint8_t* c = px + (x + j) * Unit;
            const bool el = (x + j > 0 || !first_row) && std::memcmp(c, c - Unit, Unit) == 0;
            const bool eu = up && !first_row && std::memcmp(c, c - up, Unit) == 0;
            l |= unsigned(el) << j;
            u |= unsigned(eu) << j;
        }
        store_mask16(left, x, l);
        store_mask16(upm, x, u);
    }
}

template <size_t Unit>
void pixel_masks_portable(const uint8_t* px, size_t width, size_t up, bool first_row, size_t, uint8_t* left, uint8_t* upm) {
    pixel_masks_portable_from<Unit>(px, 0, width, up, first_row, left, upm);
}

// 16-pixel words a vector loop may build: its loads reach `reach` bytes past the word's first
// pixel, which must stay within `readable`; a last partial word is built too when its loads fit
// (finish_words then sets its bits from the width on).
inline size_t vector_words(size_t width, size_t readable, size_t unit, size_t reach) {
    const size_t fit = readable >= reach ? (readable - reach) / (16 * unit) + 1 : 0;
    return std::min((width + 15) / 16, fit);
}
inline void finish_words(size_t words, size_t width, uint8_t* left, uint8_t* upm) {
    if (16 * words <= width) return;
    const size_t x = 16 * (words - 1);
    const uint16_t outside = uint16_t(~((1u << (width - x)) - 1));
    for (uint8_t* m : {left, upm}) {
        uint16_t v;
        std::memcpy(&v, m + (x >> 3), 2);
        v = uint16_t(v | outside);
        std::memcpy(m + (x >> 3), &v, 2);
    }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define DRAPE_FAST_DEFLATE_X86 1
// RGB: four pixels of a 16-byte load spread to 32-bit lanes (top byte 0) by one shuffle, then
// compared as 32-bit words; 16 pixels per stored word of bits. The first row is left to the
// portable loop (its left loads would start before the data).
[[gnu::target("ssse3")]] inline __m128i rgb4_ssse3(const uint8_t* p, __m128i spread) {
    return _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), spread);
}
[[gnu::target("ssse3")]] inline unsigned equal4(__m128i a, __m128i b) {
    return unsigned(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(a, b))));
}
[[gnu::target("ssse3")]] void pixel_masks_ssse3_rgb(const uint8_t* px, size_t width, size_t up, bool first_row, size_t readable,
                                                     uint8_t* left, uint8_t* upm) {
    size_t x = 0;
    if (!first_row) {
        const __m128i spread = _mm_setr_epi8(0, 1, 2, -128, 3, 4, 5, -128, 6, 7, 8, -128, 9, 10, 11, -128);
        const size_t words = vector_words(width, readable, 3, 52);  // the last load reads px[3x + 36, 3x + 52)
        for (size_t w = 0; w < words; ++w, x += 16) {
            unsigned l = 0, u = 0;
            for (size_t g = 0; g < 4; ++g) {
                const uint8_t* c = px + 3 * (x + 4 * g);
                const __m128i cv = rgb4_ssse3(c, spread);
                l |= equal4(cv, rgb4_ssse3(c - 3, spread)) << (4 * g);
                if (up) u |= equal4(cv, rgb4_ssse3(c - up, spread)) << (4 * g);
            }
            store_mask16(left, x, l);
            store_mask16(upm, x, u);
        }
        finish_words(words, width, left, upm);
    }
    pixel_masks_portable_from<3>(px, x, width, up, first_row, left, upm);
}
// RGBA: four pixels per 16-byte load as they are (SSE2 is part of x86-64).
[[gnu::target("ssse3")]] void pixel_masks_sse2_rgba(const uint8_t* px, size_t width, size_t up, bool first_row, size_t readable,
                                                    uint8_t* left, uint8_t* upm) {
    size_t x = 0;
    if (!first_row) {
        const size_t words = vector_words(width, readable, 4, 64);
        for (size_t w = 0; w < words; ++w, x += 16) {
            unsigned l = 0, u = 0;
            for (size_t g = 0; g < 4; ++g) {
                const uint8_t* c = px + 4 * (x + 4 * g);
                const __m128i cv = _mm_loadu_si128(reinterpret_cast<const __m128i*>(c));
                l |= equal4(cv, _mm_loadu_si128(reinterpret_cast<const __m128i*>(c - 4))) << (4 * g);
                if (up) u |= equal4(cv, _mm_loadu_si128(reinterpret_cast<const __m128i*>(c - up))) << (4 * g);
            }
            store_mask16(left, x, l);
            store_mask16(upm, x, u);
        }
        finish_words(words, width, left, upm);
    }
    pixel_masks_portable_from<4>(px, x, width, up, first_row, left, upm);
}

// AVX2: eight pixels per compare. RGB: a 32-byte load's first 24 bytes, their 32-bit words
// 0-2 and 3-5 moved to the two 128-bit lanes, then spread within each lane as above.
[[gnu::target("avx2")]] inline __m256i rgb8_avx2(const uint8_t* p, __m256i lanes, __m256i spread) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    return _mm256_shuffle_epi8(_mm256_permutevar8x32_epi32(v, lanes), spread);
}
[[gnu::target("avx2")]] inline __m256i at(const uint8_t* q) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q)); }
[[gnu::target("avx2")]] inline unsigned equal8(__m256i a, __m256i b) {
    return unsigned(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(a, b))));
}
[[gnu::target("avx2")]] void pixel_masks_avx2_rgb(const uint8_t* px, size_t width, size_t up, bool first_row, size_t readable,
                                                   uint8_t* left, uint8_t* upm) {
    size_t x = 0;
    if (!first_row) {
        const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 0, 3, 4, 5, 0);
        const __m256i spread = _mm256_setr_epi8(0, 1, 2, -128, 3, 4, 5, -128, 6, 7, 8, -128, 9, 10, 11, -128, 0, 1, 2, -128, 3,
                                                4, 5, -128, 6, 7, 8, -128, 9, 10, 11, -128);
        const size_t words = vector_words(width, readable, 3, 56);  // the second load reads px[3x + 24, 3x + 56)
        for (size_t w = 0; w < words; ++w, x += 16) {
            const uint8_t* c = px + 3 * x;
            const __m256i c0 = rgb8_avx2(c, lanes, spread), c1 = rgb8_avx2(c + 24, lanes, spread);
            const unsigned l = equal8(c0, rgb8_avx2(c - 3, lanes, spread)) | equal8(c1, rgb8_avx2(c + 21, lanes, spread)) << 8;
            unsigned u = 0;
            if (up) u = equal8(c0, rgb8_avx2(c - up, lanes, spread)) | equal8(c1, rgb8_avx2(c + 24 - up, lanes, spread)) << 8;
            store_mask16(left, x, l);
            store_mask16(upm, x, u);
        }
        finish_words(words, width, left, upm);
    }
    pixel_masks_portable_from<3>(px, x, width, up, first_row, left, upm);
}
[[gnu::target("avx2")]] void pixel_masks_avx2_rgba(const uint8_t* px, size_t width, size_t up, bool first_row, size_t readable,
                                                    uint8_t* left, uint8_t* upm) {
    size_t x = 0;
    if (!first_row) {
        const size_t words = vector_words(width, readable, 4, 64);
        for (size_t w = 0; w < words; ++w, x += 16) {
            const uint8_t* c = px + 4 * x;
            const __m256i c0 = at(c), c1 = at(c + 32);
            const unsigned l = equal8(c0, at(c - 4)) | equal8(c1, at(c + 28)) << 8;
            unsigned u = 0;
            if (up) u = equal8(c0, at(c - up)) | equal8(c1, at(c + 32 - up)) << 8;
            store_mask16(left, x, l);
            store_mask16(upm, x, u);
        }
        finish_words(words, width, left, upm);
    }
    pixel_masks_portable_from<4>(px, x, width, up, first_row, left, upm);
}
#endif

// The builders a path uses (unit 3, unit 4); an unsupported path falls back to portable.
struct PixelMaskBuilders {
    BuildPixelMasks rgb = pixel_masks_portable<3>;
    BuildPixelMasks rgba = pixel_masks_portable<4>;
};

bool cpu_supported(FastDeflateCpu cpu) {
    switch (cpu) {
        case FastDeflateCpu::automatic:
        case FastDeflateCpu::portable: return true;
#ifdef DRAPE_FAST_DEFLATE_X86
        case FastDeflateCpu::ssse3: return __builtin_cpu_supports("ssse3");
        case FastDeflateCpu::avx2:  // the passes of this level are compiled with BMI1/2 too
            return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
#endif
        default: return false;
    }
}

// The path that runs for `cpu`: automatic -> the best supported, unsupported -> portable.
FastDeflateCpu effective_cpu(FastDeflateCpu cpu) {
    if (cpu == FastDeflateCpu::automatic) {
        static const FastDeflateCpu best = cpu_supported(FastDeflateCpu::avx2)    ? FastDeflateCpu::avx2
                                           : cpu_supported(FastDeflateCpu::ssse3) ? FastDeflateCpu::ssse3
                                                                                  : FastDeflateCpu::portable;
        return best;
    }
    return cpu_supported(cpu) ? cpu : FastDeflateCpu::portable;
}

PixelMaskBuilders pixel_mask_builders(FastDeflateCpu cpu) {
    PixelMaskBuilders b;
#ifdef DRAPE_FAST_DEFLATE_X86
    if (cpu == FastDeflateCpu::ssse3) {
        b.rgb = pixel_masks_ssse3_rgb;
        b.rgba = pixel_masks_sse2_rgba;
    } else if (cpu == FastDeflateCpu::avx2) {
        b.rgb = pixel_masks_avx2_rgb;
        b.rgba = pixel_masks_avx2_rgba;
    }
#else
    (void)cpu;
#endif
    return b;
}

// A pixel step: the literal pixels before a match in the high bits, the match's slot (as in
// Pass1::steps, 0 = none: the row ended or the run reached k_max_literal_run) in the low ten.
constexpr uint32_t k_literal_shift = 10;
static_assert(1 + k_match_slots <= (1u << k_literal_shift));
// A longer run of literal pixels is split into steps of this many (22 bits would hold more;
// this bound keeps the split testable on a small image).
constexpr size_t k_max_literal_run = 65535;

// Trailing zeros of v != 0, zero-extended (an int result would be sign-extended on the chain).
[[gnu::always_inline]] inline size_t ctz64(uint64_t v) { return size_t(unsigned(__builtin_ctzll(v))); }

// 56 bits of a mask from bit k on, the 57th set (so a bit scan never sees 0 and a run found in
// one load is at most 56).
[[gnu::always_inline]] inline uint64_t mask_window(const uint8_t* m, size_t k) {
    return (load64(m + (k >> 3)) >> (k & 7)) | (uint64_t(1) << 56);
}

// Pass 1 over pixel masks: rows of a filter byte and width pixels of Unit bytes, the top and
// bottom halves walked at once as in find_matches_masked. Steps: one uint32_t per decision
// (see k_literal_shift), at most one per pixel; the bottom half's from steps + split pixels.
// FixedMaskBytes: the bytes of each mask when rows hold at most k_fixed_mask_pixels pixels (the
// four masks then lie at constant offsets from one register), 0 for wider rows (sized per call).
constexpr size_t k_fixed_mask_pixels = 4096;
constexpr size_t k_fixed_mask_bytes = k_fixed_mask_pixels / 8 + 32;

template <size_t Unit, size_t FixedMaskBytes>
[[gnu::always_inline]] inline void find_pixel_matches(const uint8_t* data, size_t rows, size_t stride, size_t up, BuildPixelMasks build,
                                                      Pass1& p, uint32_t* steps_begin, uint32_t*& second) {
    const size_t width = (stride - 1) / Unit;
    const size_t max_px = size_t(k_max_match) / Unit;  // 86 RGB pixels, 64 RGBA pixels
    const size_t mask_bytes = FixedMaskBytes ? FixedMaskBytes : (width >> 3) + 32;
    alignas(64) uint8_t fixed_masks[FixedMaskBytes ? 4 * FixedMaskBytes : 1];
    std::vector<uint8_t> sized_masks(FixedMaskBytes ? 0 : 4 * mask_bytes);
    uint8_t* const top_m = FixedMaskBytes ? fixed_masks : sized_masks.data();
    uint8_t* const bottom_m = top_m + 2 * mask_bytes;
    // Literal bytes counted by byte of the pixel: consecutive adds rarely wait on the same counter.
    uint32_t freq[Unit][256] = {};
    const size_t top_rows = rows / 2;
    p.split = top_rows * stride;
    uint32_t* top_steps = steps_begin;
    uint32_t* bottom_steps = steps_begin + top_rows * width;
    second = bottom_steps;
    // Matches counted per (candidate, pixels): one add per match; the length symbols, their
    // extra bits and the distance uses follow from these counts after the loop.
    // Index: pixels for the left candidate, pixels + k_up for the up one.
    constexpr size_t k_up = k_max_match / Unit + 1;
    uint32_t matches[2 * k_up] = {};
    // A match's step slot by that index.
    uint16_t slot_of[2 * k_up];
    for (size_t px = 0; px <= max_px; ++px) {
        const size_t len = std::max<size_t>(px * Unit, 3);
        slot_of[px] = uint16_t(1 + len);
        slot_of[k_up + px] = uint16_t(1 + (k_max_match + 1) + len);
    }
    // Bytes a mask builder may load from a row's first pixel on (past the row, within the data).
    const size_t total = rows * stride;
    auto readable_after = [&](size_t y) { return total - (y * stride + 1); };
    // Builds a row's masks and counts its literal bytes: the literal pixels are exactly those
    // that differ from both candidates (a pixel inside or at the start of a match equals its
    // candidate), so they are counted here from the bits, off the chain of decisions below.
    auto begin_row = [&](size_t y, uint8_t* m) {
        const uint8_t* row = data + y * stride;
        ++p.lit_freq[row[0]];  // the filter byte
        uint8_t* const mu = m + mask_bytes;
        // The bits from the last whole 16-pixel word of the row on must read 1; builders write
        // whole words before it.
        const size_t fill_from = (width >> 4) * 2;
        std::memset(m + fill_from, 0xFF, mask_bytes - fill_from);
        std::memset(mu + fill_from, 0xFF, mask_bytes - fill_from);
        build(row + 1, width, up, y == 0, readable_after(y), m, mu);
        const uint8_t* px = row + 1;
        for (size_t x = 0; x < width; x += 64, px += 64 * Unit) {
            uint64_t lit = load64(m + (x >> 3)) & load64(mu + (x >> 3));
            if (width - x < 64) lit &= (uint64_t(1) << (width - x)) - 1;
            for (; lit; lit &= lit - 1) {
                const uint8_t* b = px + ctz64((lit)) * Unit;
                for (size_t c = 0; c < Unit; ++c) ++freq[c][b[c]];
            }
        }
    };
    // Equal pixels from k on in mask m, at most max_px (for runs of 56 and more).
    auto long_run = [&](const uint8_t* m, size_t k) {
        size_t n = 0;
        for (;;) {
            const size_t c = ctz64((mask_window(m, k + n)));
            n += c;
            if (c < 56 || n >= max_px) return std::min(n, max_px);
        }
    };
    // One decision: the literal pixels from k on (their bytes are counted in begin_row), then
    // the match after them. Both runs come from the same two 56-bit windows as the literal run
    // unless a run reaches the windows' end.
    auto step = [&](const uint8_t* m, size_t& k, uint32_t*& steps) __attribute__((always_inline)) {
        const uint8_t* mu = m + mask_bytes;
        const uint64_t wl = mask_window(m, k), wu = mask_window(mu, k);
        size_t n = ctz64((~(wl & wu) | (uint64_t(1) << 56)));
        if (n == 56) [[unlikely]] {  // 56 literal pixels or more: to the next match or the row's end
            while (k + n < width) {
                const size_t c = ctz64((~(mask_window(m, k + n) & mask_window(mu, k + n)) | (uint64_t(1) << 56)));
                n += c;
                if (c < 56) break;
            }
            n = std::min({n, width - k, k_max_literal_run});
            k += n;
            if (k == width || n == k_max_literal_run) {
                *steps++ = uint32_t(n << k_literal_shift);
                return;
            }
            const size_t r0 = long_run(m, k), r1 = long_run(mu, k);
            const size_t at = r1 > r0 ? k_up + r1 : r0;
            ++matches[at];
            *steps++ = uint32_t(n << k_literal_shift | slot_of[at]);
            k += std::max(r0, r1);
            return;
        }
        if (k + n >= width) {  // literals to the row's end (the bits past it read "differs")
            *steps++ = uint32_t((width - k) << k_literal_shift);
            k = width;
            return;
        }
        // Runs from k + n within the windows: the bit at 56 - n bounds them.
        size_t r0 = ctz64((wl >> n)), r1 = ctz64((wu >> n));
        k += n;
        if (std::max(r0, r1) == 56 - n) [[unlikely]] {
            r0 = long_run(m, k);
            r1 = long_run(mu, k);
        }
        const size_t at = r1 > r0 ? k_up + r1 : r0;  // the longer run, the left one on a tie
        ++matches[at];
        *steps++ = uint32_t(n << k_literal_shift | slot_of[at]);
        k += std::max(r0, r1);  // >= 1 (not a literal pixel), <= max_px
    };
    for (size_t y = 0; y < rows - top_rows; ++y) {
        const size_t by = top_rows + y;
        begin_row(by, bottom_m);
        size_t bk = 0;
        if (y < top_rows) {
            begin_row(y, top_m);
            size_t tk = 0;
            while (tk < width && bk < width) {
                step(top_m, tk, top_steps);
                step(bottom_m, bk, bottom_steps);
            }
            while (tk < width) step(top_m, tk, top_steps);
        }
        while (bk < width) step(bottom_m, bk, bottom_steps);
    }
    for (size_t which = 0; which < 2; ++which)
        for (size_t px = 1; px <= max_px; ++px) {
            const LengthCode& lc = k_length_codes[px * Unit];
            const uint32_t n = matches[which * k_up + px];
            p.lit_freq[lc.symbol] += n;
            p.extra_bits += uint64_t(n) * lc.extra_bits;
            p.dist_uses[which] += n;
        }
    for (size_t c = 0; c < Unit; ++c)
        for (int v = 0; v < 256; ++v) p.lit_freq[v] += freq[c][v];
}

// The code words pass 2 writes: each literal's code and bit count, and for every step slot
// (0: a literal pixel, else a match) the match's whole word, its bit count and how far it
// advances.
struct SymbolWords {
    uint64_t lit_code[256];
    uint8_t lit_bits[256];
    uint64_t match_word[1 + k_match_slots];
    uint8_t match_bits[1 + k_match_slots];
    uint16_t match_advance[1 + k_match_slots];
    uint16_t match_length[1 + k_match_slots];  // bytes; 0 for slot 0 (write_pixel_steps)
};

// Pass 2: replays find_matches' loop (same rows, same loop bounds) over its steps and writes
// the bits. Each step is written without a branch on its kind: the literal pixel's word (its
// `unit` literal codes, at most 4 x 14 bits) and the slot's match word are both formed and
// the step's kind selects one by a mask; slot 0's match word is empty and advances one unit.
// Bits go through a 64-bit buffer flushed after every step (at most 7 bits stay), so a step
// of up to 57 bits always fits. Returns the output position; buf/used hold the pending bits.
template <size_t Unit>
uint8_t* write_steps(const uint8_t* data, size_t size, size_t rows_begin, size_t rows_end, Layout layout, size_t d0,
                     const SymbolWords& w, const uint16_t* steps, uint8_t* o, uint64_t& buf_io, int& used_io) {
    const size_t unit = Unit ? Unit : layout.unit;
    uint64_t buf = buf_io;
    uint64_t used = uint64_t(used_io);
    auto flush = [&]() {
        store64(o, buf);
        const uint64_t bytes = used >> 3;
        o += bytes;
        buf >>= bytes * 8;  // bytes <= 7 (used <= 63 before the flush): a shift below 64
        used &= 7;
    };
    auto put_literal = [&](uint8_t b) {
        buf |= w.lit_code[b] << used;
        used += w.lit_bits[b];
    };
    const size_t fast_end = size >= 8 ? size - 8 : 0;
    for (size_t row = rows_begin; row < rows_end; row += layout.stride) {
        const size_t row_end = std::min(size, row + layout.stride);
        size_t i = std::min(row + layout.lead, row_end);
        for (size_t k = row; k < i; ++k) {
            put_literal(data[k]);
            flush();
        }
        if (d0) {
            const size_t end = std::min(row_end, fast_end);
            while (i + unit <= end) {
                const size_t t = *steps++;
                uint64_t lw = 0, lb = 0;
                if constexpr (Unit == 3 || Unit == 4 || Unit == 1) {
                    for (size_t k = 0; k < Unit; ++k) {
                        const uint8_t b = data[i + k];
                        lw |= w.lit_code[b] << lb;
                        lb += w.lit_bits[b];
                    }
                    const uint64_t lit_mask = uint64_t(0) - uint64_t(t == 0);
                    buf |= (w.match_word[t] | (lw & lit_mask)) << used;
                    used += w.match_bits[t] + (lb & lit_mask);
                    flush();
                } else {  // a run-time unit: literal bytes one by one
                    if (t == 0) {
                        for (size_t k = 0; k < unit; ++k) {
                            put_literal(data[i + k]);
                            flush();
                        }
                    } else {
                        buf |= w.match_word[t] << used;
                        used += w.match_bits[t];
                        flush();
                    }
                }
                i += w.match_advance[t];
            }
        }
        for (; i < row_end; ++i) {
            put_literal(data[i]);
            flush();
        }
    }
    buf_io = buf;
    used_io = int(used);
    return o;
}

// Pass 2 of find_pixel_matches' steps: per row its filter byte, then per step its literal
// pixels (each flushed: up to 4 x 14 bits) and its match word (slot 0 is empty). Rows
// [row_first, row_last); returns the output position, buf/used the pending bits.
template <size_t Unit>
[[gnu::always_inline]] inline uint8_t* write_pixel_steps(const uint8_t* data, size_t row_first, size_t row_last, size_t stride,
                                                         const SymbolWords& w, const uint32_t* steps, uint8_t* o, uint64_t& buf_io,
                                                         int& used_io) {
    uint64_t buf = buf_io;
    uint64_t used = uint64_t(used_io);
    auto flush = [&]() {
        store64(o, buf);
        const uint64_t bytes = used >> 3;
        o += bytes;
        buf >>= bytes * 8;  // bytes <= 7 (used <= 63 before the flush)
        used &= 7;
    };
    for (size_t y = row_first; y < row_last; ++y) {
        const uint8_t* px = data + y * stride;
        buf |= w.lit_code[px[0]] << used;  // the filter byte
        used += w.lit_bits[px[0]];
        flush();
        ++px;
        const uint8_t* const end = px + (stride - 1);
        auto literal_pixel = [&](uint64_t keep) __attribute__((always_inline)) {
            uint64_t lw = 0, lb = 0;
            for (size_t c = 0; c < Unit; ++c) {
                lw |= w.lit_code[px[c]] << lb;
                lb += w.lit_bits[px[c]];
            }
            buf |= (lw & keep) << used;
            used += lb & keep;
            flush();
        };
        while (px < end) {
            const uint32_t t = *steps++;
            const size_t literals = t >> k_literal_shift;
            // The first literal pixel without a branch (most steps have none or one: a branch
            // on the count mispredicted about every other step); its bits are dropped when the
            // step has none (px is inside the row either way, so its bytes can be read).
            const uint64_t keep = uint64_t(0) - uint64_t(literals != 0);
            literal_pixel(keep);
            px += Unit & keep;
            for (const uint8_t* lit_end = px + (literals - (literals != 0)) * Unit; px < lit_end; px += Unit) literal_pixel(~uint64_t(0));
            const uint32_t slot = t & ((1u << k_literal_shift) - 1);
            buf |= w.match_word[slot] << used;
            used += w.match_bits[slot];
            flush();
            px += w.match_length[slot];
        }
    }
    buf_io = buf;
    used_io = int(used);
    return o;
}

// Both pixel passes per ISA level: `base` for any x86-64 (or other) CPU, `v3` compiled for AVX2
// CPUs with BMI1/2 (shifts by a register without CL, three-operand bit operations: fewer
// instructions per decision). One source, so the same steps and the same bytes.
template <size_t Unit>
struct PixelPasses {
    static void find(const uint8_t* data, size_t rows, size_t stride, size_t up, BuildPixelMasks build, Pass1& p,
                     uint32_t* steps, uint32_t*& second) {
        if ((stride - 1) / Unit <= k_fixed_mask_pixels)
            find_pixel_matches<Unit, k_fixed_mask_bytes>(data, rows, stride, up, build, p, steps, second);
        else
            find_pixel_matches<Unit, 0>(data, rows, stride, up, build, p, steps, second);
    }
    static uint8_t* write(const uint8_t* data, size_t row_first, size_t row_last, size_t stride, const SymbolWords& w,
                          const uint32_t* steps, uint8_t* o, uint64_t& buf, int& used) {
        return write_pixel_steps<Unit>(data, row_first, row_last, stride, w, steps, o, buf, used);
    }
#ifdef DRAPE_FAST_DEFLATE_X86
    [[gnu::target("avx2,bmi,bmi2")]] static void find_v3(const uint8_t* data, size_t rows, size_t stride, size_t up,
                                                         BuildPixelMasks build, Pass1& p, uint32_t* steps, uint32_t*& second) {
        if ((stride - 1) / Unit <= k_fixed_mask_pixels)
            find_pixel_matches<Unit, k_fixed_mask_bytes>(data, rows, stride, up, build, p, steps, second);
        else
            find_pixel_matches<Unit, 0>(data, rows, stride, up, build, p, steps, second);
    }
    [[gnu::target("avx2,bmi,bmi2")]] static uint8_t* write_v3(const uint8_t* data, size_t row_first, size_t row_last, size_t stride,
                                                              const SymbolWords& w, const uint32_t* steps, uint8_t* o,
                                                              uint64_t& buf, int& used) {
        return write_pixel_steps<Unit>(data, row_first, row_last, stride, w, steps, o, buf, used);
    }
#endif
    using Find = decltype(&find);
    using Write = decltype(&write);
    static Find find_for(FastDeflateCpu cpu) {
#ifdef DRAPE_FAST_DEFLATE_X86
        if (cpu == FastDeflateCpu::avx2) return find_v3;
#endif
        (void)cpu;
        return find;
    }
    static Write write_for(FastDeflateCpu cpu) {
#ifdef DRAPE_FAST_DEFLATE_X86
        if (cpu == FastDeflateCpu::avx2) return write_v3;
#endif
        (void)cpu;
        return write;
    }
};

using KeptPixelSteps = image_detail::KeptBuffer<uint32_t>;  // per thread, see kept_buffer.h

// Where pass 1 left its steps: pixel rows (PNG rows of RGB or RGBA pixels with the previous
// pixel as the first distance) keep 32-bit pixel steps, anything else Pass1's byte steps.
struct Matches {
    Pass1 p1;
    bool pixel_rows = false;
    size_t rows = 0;
    uint32_t* pixel_steps = nullptr;
    uint32_t* pixel_second = nullptr;
};

// Pass 1: matches, literal runs and the histogram, with the finder for the layout and unit.
void find_all_matches(const uint8_t* data, size_t size, Layout layout, size_t d0, size_t d1, size_t unit, FastDeflateCpu cpu, KeptSteps& kept_steps,
                      KeptPixelSteps& kept_pixel_steps, Matches& m) {
    Pass1& p1 = m.p1;
    m.pixel_rows = layout.stride < size && layout.lead == 1 && (unit == 3 || unit == 4) && d0 == unit && (d1 == 0 || d1 == layout.stride) &&
                   (layout.stride - 1) % unit == 0 && size % layout.stride == 0;
    m.rows = size / layout.stride;
    if (m.pixel_rows) {
        const PixelMaskBuilders builders = pixel_mask_builders(cpu);
        m.pixel_steps = kept_pixel_steps.get(m.rows * ((layout.stride - 1) / unit) + 1);
        if (unit == 3)
            PixelPasses<3>::find_for(cpu)(data, m.rows, layout.stride, d1, builders.rgb, p1, m.pixel_steps, m.pixel_second);
        else
            PixelPasses<4>::find_for(cpu)(data, m.rows, layout.stride, d1, builders.rgba, p1, m.pixel_steps, m.pixel_second);
    } else if (p1.steps = kept_steps.get(size / unit + 1); layout.stride < size) {  // image rows: the bit masks (whole-stream rows would need size / 4 bytes of bits)
        switch (unit) {
            case 1: find_matches_masked<1>(data, size, layout, d0, d1, p1); break;
            case 3: find_matches_masked<3>(data, size, layout, d0, d1, p1); break;
            case 4: find_matches<4>(data, size, layout, d0, d1, p1); break;
            default: find_matches_masked<0>(data, size, layout, d0, d1, p1); break;
        }
    } else {
        switch (unit) {
            case 1: find_matches<1>(data, size, layout, d0, d1, p1); break;
            case 3: find_matches<3>(data, size, layout, d0, d1, p1); break;
            case 4: find_matches<4>(data, size, layout, d0, d1, p1); break;
            default: find_matches<0>(data, size, layout, d0, d1, p1); break;
        }
    }
}

struct Rle {
    uint8_t symbol, extra;
};

// The dynamic block's codes: lengths of the literal/length, distance and code-length alphabets,
// the run-length coded lengths, and the distance codes of the two distances.
struct BlockCodes {
    int dist_code[2];
    uint8_t lit_len[k_litlen_symbols], dist_len[k_dist_symbols], cl_len[k_codelen_symbols];
    int hlit, hdist, hclen;
    Rle rle[k_litlen_symbols + k_dist_symbols];
    int nrle = 0;
};

// The code lengths, run-length coded (16: repeat the previous 3..6 times, 17: 3..10 zeros,
// 18: 11..138 zeros).
void run_length_code(BlockCodes& b) {
    b.hlit = k_litlen_symbols;
    while (b.hlit > 257 && !b.lit_len[b.hlit - 1]) --b.hlit;
    b.hdist = k_dist_symbols;
    while (b.hdist > 1 && !b.dist_len[b.hdist - 1]) --b.hdist;
    uint8_t all[k_litlen_symbols + k_dist_symbols];
    std::memcpy(all, b.lit_len, size_t(b.hlit));
    std::memcpy(all + b.hlit, b.dist_len, size_t(b.hdist));
    const int total = b.hlit + b.hdist;
    Rle* rle = b.rle;
    int nrle = 0;
    for (int k = 0; k < total;) {
        const uint8_t l = all[k];
        int run = 1;
        while (k + run < total && all[k + run] == l) ++run;
        k += run;
        if (l == 0) {
            while (run >= 11) {
                const int r = std::min(run, 138);
                rle[nrle++] = {18, uint8_t(r - 11)};
                run -= r;
            }
            if (run >= 3) {
                rle[nrle++] = {17, uint8_t(run - 3)};
                run = 0;
            }
        } else {
            rle[nrle++] = {l, 0};
            --run;
            while (run >= 3) {
                const int r = std::min(run, 6);
                rle[nrle++] = {16, uint8_t(r - 3)};
                run -= r;
            }
        }
        while (run-- > 0) rle[nrle++] = {l, 0};
    }
    b.nrle = nrle;
}

// Huffman lengths from pass 1's histogram (the end-of-block symbol counted once), then the
// code-length code of their run-length coding.
void build_block_codes(Pass1& p1, size_t d0, size_t d1, BlockCodes& b) {
    uint32_t* lit_freq = p1.lit_freq;
    uint32_t dist_freq[k_dist_symbols] = {};
    lit_freq[256] = 1;
    b.dist_code[0] = d0 ? dist_code_of(uint32_t(d0)) : 0;
    b.dist_code[1] = d1 ? dist_code_of(uint32_t(d1)) : 0;
    for (int k = 0; k < 2; ++k) dist_freq[b.dist_code[k]] += uint32_t(std::min<uint64_t>(p1.dist_uses[k], UINT32_MAX));
    build_lengths(lit_freq, k_litlen_symbols, 14, b.lit_len);  // 14: four literals per word
    build_lengths(dist_freq, k_dist_symbols, 15, b.dist_len);
    run_length_code(b);
    uint32_t cl_freq[k_codelen_symbols] = {};
    for (int k = 0; k < b.nrle; ++k) ++cl_freq[b.rle[k].symbol];
    build_lengths(cl_freq, k_codelen_symbols, 7, b.cl_len);
    b.hclen = k_codelen_symbols;
    while (b.hclen > 4 && !b.cl_len[k_codelen_order[b.hclen - 1]]) --b.hclen;
}

constexpr uint8_t k_rle_extra[3] = {2, 3, 7};  // extra bits of code-length symbols 16, 17, 18

// The exact size of the dynamic block in bytes, to choose it or stored blocks.
size_t dynamic_block_bytes(const Pass1& p1, const BlockCodes& b) {
    uint64_t bits = 3 + 5 + 5 + 4 + 3 * uint64_t(b.hclen);
    for (int k = 0; k < b.nrle; ++k) bits += b.cl_len[b.rle[k].symbol] + (b.rle[k].symbol >= 16 ? k_rle_extra[b.rle[k].symbol - 16] : 0);
    for (int s = 0; s < k_litlen_symbols; ++s) bits += uint64_t(p1.lit_freq[s]) * b.lit_len[s];
    bits += p1.extra_bits;
    for (int k = 0; k < 2; ++k) bits += p1.dist_uses[k] * (uint64_t(b.dist_len[b.dist_code[k]]) + k_dist_extra[b.dist_code[k]]);
    return size_t((bits + 7) / 8);
}

// The block header: BFINAL, BTYPE, the alphabet sizes, the code-length code and the run-length
// coded lengths.
void write_block_header(const BlockCodes& b, const uint16_t* cl_code, BitWriter& w) {
    w.put(1 | (2 << 1), 3);  // BFINAL, BTYPE 10 (dynamic)
    w.put(uint64_t(b.hlit - 257), 5);
    w.put(uint64_t(b.hdist - 1), 5);
    w.put(uint64_t(b.hclen - 4), 4);
    w.flush();
    for (int k = 0; k < b.hclen; ++k) {
        w.put(b.cl_len[k_codelen_order[k]], 3);
        w.flush();
    }
    for (int k = 0; k < b.nrle; ++k) {
        const int s = b.rle[k].symbol;
        w.put(cl_code[s], b.cl_len[s]);
        if (s >= 16) w.put(b.rle[k].extra, k_rle_extra[s - 16]);
        w.flush();
    }
}

// Every match as one word per (distance, length): the length code, its extra bits, the
// distance code and its extra bits (at most 14 + 5 + 15 + 13 bits). Slot 0 (a literal pixel) is
// the empty word that advances by one unit.
void build_symbol_words(const BlockCodes& b, const uint16_t* lit_code, const uint16_t* dist_codes, size_t unit, size_t d0, size_t d1, SymbolWords& words) {
    for (int c = 0; c < 256; ++c) {
        words.lit_code[c] = lit_code[c];
        words.lit_bits[c] = b.lit_len[c];
    }
    words.match_word[0] = 0;
    words.match_bits[0] = 0;
    words.match_advance[0] = uint16_t(unit);
    words.match_length[0] = 0;
    for (int k = 0; k < 2; ++k) {
        const int c = b.dist_code[k];
        const uint32_t d = k ? uint32_t(d1) : uint32_t(d0);
        const uint64_t tail = dist_codes[c] | uint64_t(d - k_dist_base[c]) << b.dist_len[c];
        const int tail_bits = b.dist_len[c] + k_dist_extra[c];
        for (int len = 0; len <= k_max_match; ++len) {
            const size_t slot = 1 + size_t(k) * (k_max_match + 1) + size_t(len);
            if (len < 3) {  // never recorded
                words.match_word[slot] = 0;
                words.match_bits[slot] = 0;
                words.match_advance[slot] = uint16_t(unit);
                words.match_length[slot] = 0;
                continue;
            }
            const LengthCode& lc = k_length_codes[size_t(len)];
            const int head = b.lit_len[lc.symbol] + lc.extra_bits;
            words.match_word[slot] = lit_code[lc.symbol] | uint64_t(lc.extra_value) << b.lit_len[lc.symbol] | tail << head;
            words.match_bits[slot] = uint8_t(head + tail_bits);
            words.match_advance[slot] = uint16_t(len);
            words.match_length[slot] = uint16_t(len);
        }
    }
}

// Pass 2: the steps of both halves as symbol words, with the writer for the layout and unit.
uint8_t* write_all_steps(const uint8_t* data, size_t size, Layout layout, size_t d0, size_t unit, FastDeflateCpu cpu, const Matches& m,
                         const SymbolWords& words, uint8_t* o, uint64_t& buf, int& used) {
    const Pass1& p1 = m.p1;
    if (m.pixel_rows) {
        const size_t top_rows = p1.split / layout.stride;
        const auto write = unit == 3 ? PixelPasses<3>::write_for(cpu) : PixelPasses<4>::write_for(cpu);
        o = write(data, 0, top_rows, layout.stride, words, m.pixel_steps, o, buf, used);
        o = write(data, top_rows, m.rows, layout.stride, words, m.pixel_second, o, buf, used);
    } else switch (unit) {
        case 1: o = write_steps<1>(data, size, 0, p1.split, layout, d0, words, p1.steps, o, buf, used);
                 o = write_steps<1>(data, size, p1.split, size, layout, d0, words, p1.second, o, buf, used); break;
        case 3: o = write_steps<3>(data, size, 0, p1.split, layout, d0, words, p1.steps, o, buf, used);
                 o = write_steps<3>(data, size, p1.split, size, layout, d0, words, p1.second, o, buf, used); break;
        case 4: o = write_steps<4>(data, size, 0, p1.split, layout, d0, words, p1.steps, o, buf, used);
                 o = write_steps<4>(data, size, p1.split, size, layout, d0, words, p1.second, o, buf, used); break;
        default: o = write_steps<0>(data, size, 0, p1.split, layout, d0, words, p1.steps, o, buf, used);
                 o = write_steps<0>(data, size, p1.split, size, layout, d0, words, p1.second, o, buf, used); break;
    }
    return o;
}

// The one dynamic block, `dynamic_bytes` long, appended to `out`.
void write_dynamic_block(const uint8_t* data, size_t size, Layout layout, size_t d0, size_t d1, size_t unit, FastDeflateCpu cpu, const Matches& m,
                         const BlockCodes& b, size_t dynamic_bytes, std::vector<uint8_t>& out) {
    uint16_t lit_code[k_litlen_symbols], dist_codes[k_dist_symbols], cl_code[k_codelen_symbols];
    build_codes(b.lit_len, k_litlen_symbols, lit_code);
    build_codes(b.dist_len, k_dist_symbols, dist_codes);
    build_codes(b.cl_len, k_codelen_symbols, cl_code);
    const size_t start = out.size();
    out.resize(start + dynamic_bytes + 16);  // 8 bytes of slack for the word stores
    BitWriter w(out.data() + start);
    write_block_header(b, cl_code, w);
    SymbolWords words;
    build_symbol_words(b, lit_code, dist_codes, unit, d0, d1, words);
    uint8_t* o = w.release_flushed();
    uint64_t buf = 0;
    int used = 0;
    w.take_pending(buf, used);
    o = write_all_steps(data, size, layout, d0, unit, cpu, m, words, o, buf, used);
    buf |= uint64_t(lit_code[256]) << used;
    used += b.lit_len[256];
    w.resume(o, buf, used);
    uint8_t* end = w.finish();
    // The size was computed from the same lengths; a difference is a bug here, and more
    // than the 16 bytes of slack would have written past the buffer.
    if (size_t(end - (out.data() + start)) != dynamic_bytes) std::abort();
    out.resize(size_t(end - out.data()));
}

// A zlib stream of one block: pass 1 finds the matches of the (at most two) distances, the
// block is dynamic unless stored blocks are smaller, pass 2 writes the steps.
void compress(const uint8_t* data, size_t size, Layout layout, uint32_t first, uint32_t second, std::vector<uint8_t>& out,
              FastDeflateCpu cpu = FastDeflateCpu::automatic) {
    uint32_t dist[2] = {first, second};
    for (auto& d : dist)
        if (d > 32768) d = 0;
    if (!dist[0]) std::swap(dist[0], dist[1]);
    const size_t d0 = dist[0], d1 = dist[1];
    const size_t unit = std::max<size_t>(1, layout.unit);
    cpu = effective_cpu(cpu);

    thread_local KeptSteps kept_steps;
    thread_local KeptPixelSteps kept_pixel_steps;
    Matches m;
    find_all_matches(data, size, layout, d0, d1, unit, cpu, kept_steps, kept_pixel_steps, m);
    BlockCodes b;
    build_block_codes(m.p1, d0, d1, b);
    const size_t dynamic_bytes = dynamic_block_bytes(m.p1, b);
    const size_t stored_bytes = size + 5 * std::max<size_t>(1, (size + 65534) / 65535);

    out.push_back(0x78);  // deflate, 32 KiB window
    out.push_back(0x01);  // fastest; (0x78 * 256 + 0x01) % 31 == 0
    if (stored_bytes <= dynamic_bytes)
        put_stored(data, size, out);
    else
        write_dynamic_block(data, size, layout, d0, d1, unit, cpu, m, b, dynamic_bytes, out);
    kept_steps.done();
    kept_pixel_steps.done();
    const uint32_t adler = uint32_t(libdeflate_adler32(1, data, size));
    out.push_back(uint8_t(adler >> 24));
    out.push_back(uint8_t(adler >> 16));
    out.push_back(uint8_t(adler >> 8));
    out.push_back(uint8_t(adler));
}

}  // namespace

void fast_zlib_compress(const uint8_t* data, size_t size, FastDeflateDistances distances, std::vector<uint8_t>& out) {
    compress(data, size, {std::max<size_t>(size, 1), 0, 1}, distances.first, distances.second, out);
}

bool fast_deflate_cpu_supported(FastDeflateCpu cpu) { return cpu_supported(cpu); }

void fast_zlib_compress_png(const uint8_t* filtered, size_t rows, size_t row_bytes, uint32_t bytes_per_pixel, std::vector<uint8_t>& out,
                            FastDeflateCpu cpu) {
    // Pixels of 3 bytes or more are the unit; smaller pixels (L, LA) match byte by byte.
    const size_t unit = bytes_per_pixel >= 3 ? bytes_per_pixel : 1;
    compress(filtered, rows * (row_bytes + 1), {row_bytes + 1, 1, unit}, bytes_per_pixel, uint32_t(row_bytes + 1), out, cpu);
}

}  // namespace drape::image
