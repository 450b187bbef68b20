// drape: the bounded byte reader. Every parser of untrusted bytes reads through it.
//
// Rules (STYLE.md 2.2):
// - every read is checked against the bytes that remain; the first failure sticks and
//   records {offset, field, reason}; later reads fail at once and keep the first error;
// - `check_count(count, size)` refuses a count whose total does not fit in what remains,
//   before anything is allocated;
// - offset tables use `slice(offset, size)`, a bounded sub-reader whose error offsets stay
//   absolute within the innermost container.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "drape/io/error.h"

namespace drape {

using Bytes = std::span<const uint8_t>;

template <class T>
constexpr T byteswap_value(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    if constexpr (sizeof(T) == 1) {
        return v;
    } else {
        uint8_t b[sizeof(T)];
        std::memcpy(b, &v, sizeof(T));
        for (size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(b[i], b[sizeof(T) - 1 - i]);
        std::memcpy(&v, b, sizeof(T));
        return v;
    }
}

class ByteReader {
public:
    ByteReader() = default;
    // `base` is the absolute offset of data[0] inside the innermost container; errors report
    // base + position.
    explicit ByteReader(Bytes data, uint64_t base = 0, bool big_endian = false)
        : m_data(data.data()), m_size(data.size()), m_base(base), m_big_endian(big_endian) {}

    void set_big_endian(bool big) { m_big_endian = big; }
    bool big_endian() const { return m_big_endian; }

    size_t size() const { return m_size; }
    size_t pos() const { return m_pos; }
    size_t remaining() const { return m_size - m_pos; }
    uint64_t base() const { return m_base; }
    uint64_t abs_pos() const { return m_base + m_pos; }
    const uint8_t* data() const { return m_data; }
    Bytes bytes() const { return {m_data, m_size}; }

    bool failed() const { return m_failed; }
    const Error& error() const { return m_error; }

    // Records a failure at the current position (first one wins). Always returns false.
    bool fail(const char* field, std::string reason);
    bool fail_at(size_t pos, const char* field, std::string reason);

    bool seek(size_t pos, const char* field);
    bool skip(size_t n, const char* field);
    // Moves to the next multiple of `alignment` (relative to the start of this reader).
    bool align(size_t alignment, const char* field);

    template <class T>
        requires std::is_trivially_copyable_v<T>
    bool read(T& out, const char* field) {
        if (m_failed) return false;
        if (remaining() < sizeof(T)) return fail_truncated(sizeof(T), field);
        std::memcpy(&out, m_data + m_pos, sizeof(T));
        if (m_big_endian) out = byteswap_value(out);
        m_pos += sizeof(T);
        return true;
    }

    // Value-returning form: 0 (T{}) on failure, the failure sticks.
    template <class T>
        requires std::is_trivially_copyable_v<T>
    T get(const char* field) {
        T v{};
        (void)read(v, field);
        return v;
    }
    uint8_t u8(const char* f) { return get<uint8_t>(f); }
    uint16_t u16(const char* f) { return get<uint16_t>(f); }
    uint32_t u32(const char* f) { return get<uint32_t>(f); }
    uint64_t u64(const char* f) { return get<uint64_t>(f); }
    int8_t i8(const char* f) { return get<int8_t>(f); }
    int16_t i16(const char* f) { return get<int16_t>(f); }
    int32_t i32(const char* f) { return get<int32_t>(f); }
    int64_t i64(const char* f) { return get<int64_t>(f); }
    float f32(const char* f) { return get<float>(f); }

    // Reads a value at an absolute position of this reader without moving.
    template <class T>
    bool peek_at(size_t pos, T& out, const char* field) {
        if (m_failed) return false;
        if (pos > m_size || m_size - pos < sizeof(T)) return fail_at(pos, field, truncated_reason(sizeof(T), pos));
        std::memcpy(&out, m_data + pos, sizeof(T));
        if (m_big_endian) out = byteswap_value(out);
        return true;
    }

    // Checks that the magic bytes at the current position equal `magic`, and consumes them.
    bool expect_magic(std::string_view magic, const char* field);
    // Reads a value and checks it equals `expected`.
    template <class T>
    bool expect(T expected, const char* field) {
        T v{};
        if (!read(v, field)) return false;
        if (v != expected) {
            using U = std::make_unsigned_t<T>;
            return fail_at(m_pos - sizeof(T), field, mismatch_reason(uint64_t(U(v)), uint64_t(U(expected))));
        }
        return true;
    }

    // Raw bytes (no endian swap).
    bool read_bytes(void* out, size_t n, const char* field);
    // A span of n bytes at the current position, consumed. Empty span on failure.
    Bytes take(size_t n, const char* field);

    // Fails unless count * elem_size bytes remain after the current position.
    bool check_count(uint64_t count, uint64_t elem_size, const char* field);
    // Same, measured from absolute position `pos` of this reader.
    bool check_count_at(size_t pos, uint64_t count, uint64_t elem_size, const char* field);

    // A bounded sub-reader over [offset, offset + size) of this reader. On failure this reader
    // fails and the returned reader is empty and failed with the same error.
    ByteReader slice(uint64_t offset, uint64_t size, const char* field);
    // From offset to the end of this reader.
    ByteReader slice_from(uint64_t offset, const char* field);

    // Fixed-length ASCII/byte string (trailing NULs trimmed).
    bool read_fixed_string(size_t n, std::string& out, const char* field);
    // NUL-terminated strings at an absolute offset of this reader, converted to UTF-8.
    // `max_units` caps the length searched (a missing terminator is an error).
    bool read_cstring_at(size_t offset, std::string& out, const char* field, size_t max_units = 65536);
    bool read_utf16z_at(size_t offset, std::string& out, const char* field, size_t max_units = 65536);
    bool read_sjisz_at(size_t offset, std::string& out, const char* field, size_t max_units = 65536);
    // NUL-terminated at the current position, consumed.
    bool read_cstring(std::string& out, const char* field, size_t max_units = 65536);

private:
    bool fail_truncated(size_t need, const char* field);
    std::string truncated_reason(size_t need, size_t at) const;
    static std::string mismatch_reason(uint64_t got, uint64_t expected);

    const uint8_t* m_data = nullptr;
    size_t m_size = 0;
    size_t m_pos = 0;
    uint64_t m_base = 0;
    bool m_big_endian = false;
    bool m_failed = false;
    Error m_error;
};

// UTF-16 code units (little or big endian bytes) to UTF-8; unpaired surrogates become U+FFFD.
std::string utf16_to_utf8(Bytes units, bool big_endian);
// Shift-JIS (CP932) bytes to UTF-8. Invalid sequences become U+FFFD.
std::string sjis_to_utf8(Bytes bytes);
std::string utf8_to_sjis(std::string_view utf8, bool* ok = nullptr);
// UTF-8 to UTF-16 code units.
std::u16string utf8_to_utf16(std::string_view utf8);

std::string hex(uint64_t v);

// Bytes quoted from a file into a message (magics, section tags, compression names): printable
// ASCII stays as is, NUL becomes \0 and every other byte \xNN, so the message is ASCII whatever
// the file holds. Quote raw bytes with this; Error::to_string() also cleans whatever slips by.
std::string escape_bytes(std::string_view bytes);
inline std::string escape_bytes(Bytes bytes) {
    return escape_bytes(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}
// Text that is meant to be UTF-8 (names decoded from UTF-16 or Shift-JIS) made safe to print:
// well-formed UTF-8 sequences of non-control characters stay, every other byte (control
// characters, invalid or truncated sequences, surrogates, overlongs) becomes \xNN.
std::string printable_utf8(std::string_view text);
// The length (2 to 4) of the well-formed UTF-8 sequence of a non-ASCII character that starts at
// text[i], with its code point; 0 when the bytes there are not one (a stray continuation byte,
// a truncated sequence, an overlong form, a surrogate, a code point past U+10FFFF).
size_t utf8_sequence_at(std::string_view text, size_t i, uint32_t* code_point);

}  // namespace drape
