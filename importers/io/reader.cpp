#include "drape/io/reader.h"

#include <iconv.h>

#include <algorithm>
#include <cstdio>
#include <mutex>

namespace drape {

std::string hex(uint64_t v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llX", static_cast<unsigned long long>(v));
    return buf;
}

std::string escape_bytes(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size());
    for (const char ch : bytes) {
        const auto c = uint8_t(ch);
        if (c == 0) {
            out += "\\0";
        } else if (c >= 0x20 && c < 0x7F) {
            out += char(c);
        } else {
            char b[8];
            std::snprintf(b, sizeof b, "\\x%02X", c);
            out += b;
        }
    }
    return out;
}

size_t utf8_sequence_at(std::string_view text, size_t i, uint32_t* code_point) {
    if (i >= text.size()) return 0;
    const auto c = uint8_t(text[i]);
    size_t n = 0;
    uint32_t cp = 0, min = 0;  // the smallest code point the length may encode (no overlongs)
    if ((c & 0xE0) == 0xC0) n = 2, cp = c & 0x1F, min = 0x80;
    else if ((c & 0xF0) == 0xE0) n = 3, cp = c & 0x0F, min = 0x800;
    else if ((c & 0xF8) == 0xF0) n = 4, cp = c & 0x07, min = 0x10000;
    if (n == 0 || n > text.size() - i) return 0;
    for (size_t k = 1; k < n; ++k) {
        const auto cc = uint8_t(text[i + k]);
        if ((cc & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (cc & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    if (code_point) *code_point = cp;
    return n;
}

std::string printable_utf8(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    auto escape = [&](uint8_t c) {
        char b[8];
        std::snprintf(b, sizeof b, "\\x%02X", c);
        out += b;
    };
    size_t i = 0;
    while (i < text.size()) {
        const auto c = uint8_t(text[i]);
        if (c < 0x80) {
            if (c >= 0x20 && c < 0x7F) out += char(c);
            else escape(c);
            ++i;
            continue;
        }
        uint32_t cp = 0;
        const size_t n = utf8_sequence_at(text, i, &cp);
        if (n != 0 && !(cp >= 0x80 && cp < 0xA0)) {  // C1 controls are escaped too
            out.append(text.substr(i, n));
            i += n;
        } else {
            escape(c);
            ++i;
        }
    }
    return out;
}

std::string Error::to_string() const {
    std::string s;
    for (size_t i = 0; i < chain.size(); ++i) {
        if (i) s += " > ";
        s += chain[i];
    }
    if (has_offset) {
        if (!s.empty()) s += ' ';
        s += '@' + hex(offset);
    }
    if (!field.empty()) {
        if (!s.empty()) s += ' ';
        s += field;
    }
    if (!s.empty()) s += ": ";
    s += reason;
    // Names and reasons may quote a file's bytes; whatever was not escaped where it was quoted is
    // escaped here, so a message is always printable UTF-8 (terminals, logs, JSON reports).
    return printable_utf8(s);
}

Error make_error(std::string reason, std::string field) {
    Error e;
    e.reason = std::move(reason);
    e.field = std::move(field);
    return e;
}

Error make_error_at(uint64_t offset, std::string field, std::string reason) {
    Error e;
    e.offset = offset;
    e.has_offset = true;
    e.field = std::move(field);
    e.reason = std::move(reason);
    return e;
}

bool ByteReader::fail(const char* field, std::string reason) { return fail_at(m_pos, field, std::move(reason)); }

bool ByteReader::fail_at(size_t pos, const char* field, std::string reason) {
    if (!m_failed) {
        m_failed = true;
        m_error = make_error_at(m_base + pos, field ? field : "", std::move(reason));
    }
    return false;
}

std::string ByteReader::truncated_reason(size_t need, size_t at) const {
    size_t left = at <= m_size ? m_size - at : 0;
    return "truncated: needs " + std::to_string(need) + " B, " + std::to_string(left) + " B left";
}

bool ByteReader::fail_truncated(size_t need, const char* field) { return fail(field, truncated_reason(need, m_pos)); }

std::string ByteReader::mismatch_reason(uint64_t got, uint64_t expected) {
    return "expected " + hex(expected) + ", found " + hex(got);
}

bool ByteReader::seek(size_t pos, const char* field) {
    if (m_failed) return false;
    if (pos > m_size) return fail(field, "offset " + hex(m_base + pos) + " is past the end (" + hex(m_base + m_size) + ")");
    m_pos = pos;
    return true;
}

bool ByteReader::skip(size_t n, const char* field) {
    if (m_failed) return false;
    if (remaining() < n) return fail_truncated(n, field);
    m_pos += n;
    return true;
}

bool ByteReader::align(size_t alignment, const char* field) {
    if (alignment <= 1) return !m_failed;
    size_t r = m_pos % alignment;
    return r == 0 ? !m_failed : skip(alignment - r, field);
}

bool ByteReader::expect_magic(std::string_view magic, const char* field) {
    if (m_failed) return false;
    if (remaining() < magic.size()) return fail_truncated(magic.size(), field);
    if (std::memcmp(m_data + m_pos, magic.data(), magic.size()) != 0) {
        const std::string found = escape_bytes(Bytes(m_data + m_pos, magic.size()));
        const std::string want = escape_bytes(magic);
        return fail(field, "bad magic: expected \"" + want + "\", found \"" + found + "\"");
    }
    m_pos += magic.size();
    return true;
}

bool ByteReader::read_bytes(void* out, size_t n, const char* field) {
    if (m_failed) return false;
    if (remaining() < n) return fail_truncated(n, field);
    if (n) std::memcpy(out, m_data + m_pos, n);
    m_pos += n;
    return true;
}

Bytes ByteReader::take(size_t n, const char* field) {
    if (m_failed) return {};
    if (remaining() < n) {
        fail_truncated(n, field);
        return {};
    }
    Bytes b{m_data + m_pos, n};
    m_pos += n;
    return b;
}

bool ByteReader::check_count(uint64_t count, uint64_t elem_size, const char* field) {
    return check_count_at(m_pos, count, elem_size, field);
}

bool ByteReader::check_count_at(size_t pos, uint64_t count, uint64_t elem_size, const char* field) {
    if (m_failed) return false;
    uint64_t left = pos <= m_size ? m_size - pos : 0;
    bool overflow = elem_size != 0 && count > UINT64_MAX / elem_size;
    if (overflow || count * elem_size > left) {
        return fail_at(pos, field,
                       std::to_string(count) + " x " + std::to_string(elem_size) + " B exceeds " + std::to_string(left) +
                           " B left");
    }
    return true;
}

ByteReader ByteReader::slice(uint64_t offset, uint64_t size, const char* field) {
    ByteReader sub;
    if (!m_failed) {
        if (offset > m_size || size > m_size - offset) {
            fail(field, "range " + hex(m_base + offset) + "+" + hex(size) + " is outside " + hex(m_base) + ".." +
                            hex(m_base + m_size));
        } else {
            sub = ByteReader(Bytes{m_data + offset, size_t(size)}, m_base + offset, m_big_endian);
            return sub;
        }
    }
    sub.m_failed = true;
    sub.m_error = m_error;
    return sub;
}

ByteReader ByteReader::slice_from(uint64_t offset, const char* field) {
    if (offset > m_size) return slice(offset, 0, field);
    return slice(offset, m_size - offset, field);
}

bool ByteReader::read_fixed_string(size_t n, std::string& out, const char* field) {
    Bytes b = take(n, field);
    if (m_failed) return false;
    size_t len = n;
    while (len > 0 && b[len - 1] == 0) --len;
    out.assign(reinterpret_cast<const char*>(b.data()), len);
    return true;
}

bool ByteReader::read_cstring_at(size_t offset, std::string& out, const char* field, size_t max_units) {
    if (m_failed) return false;
    if (offset >= m_size) return fail_at(offset, field, "string offset " + hex(m_base + offset) + " is past the end");
    size_t end = offset;
    size_t limit = offset + std::min(max_units, m_size - offset);
    while (end < limit && m_data[end] != 0) ++end;
    if (end == limit) return fail_at(offset, field, "unterminated string");
    out.assign(reinterpret_cast<const char*>(m_data + offset), end - offset);
    return true;
}

bool ByteReader::read_cstring(std::string& out, const char* field, size_t max_units) {
    if (!read_cstring_at(m_pos, out, field, max_units)) return false;
    m_pos += out.size() + 1;
    return true;
}

bool ByteReader::read_utf16z_at(size_t offset, std::string& out, const char* field, size_t max_units) {
    if (m_failed) return false;
    if (offset >= m_size) return fail_at(offset, field, "string offset " + hex(m_base + offset) + " is past the end");
    size_t units = 0;
    size_t avail = (m_size - offset) / 2;
    size_t limit = std::min(max_units, avail);
    while (units < limit && (m_data[offset + 2 * units] | m_data[offset + 2 * units + 1]) != 0) ++units;
    if (units == limit) return fail_at(offset, field, "unterminated UTF-16 string");
    out = utf16_to_utf8(Bytes{m_data + offset, units * 2}, m_big_endian);
    return true;
}

bool ByteReader::read_sjisz_at(size_t offset, std::string& out, const char* field, size_t max_units) {
    std::string raw;
    if (!read_cstring_at(offset, raw, field, max_units)) return false;
    out = sjis_to_utf8(Bytes{reinterpret_cast<const uint8_t*>(raw.data()), raw.size()});
    return true;
}

static void put_utf8(std::string& s, uint32_t cp) {
    if (cp < 0x80) {
        s += char(cp);
    } else if (cp < 0x800) {
        s += char(0xC0 | (cp >> 6));
        s += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        s += char(0xE0 | (cp >> 12));
        s += char(0x80 | ((cp >> 6) & 0x3F));
        s += char(0x80 | (cp & 0x3F));
    } else {
        s += char(0xF0 | (cp >> 18));
        s += char(0x80 | ((cp >> 12) & 0x3F));
        s += char(0x80 | ((cp >> 6) & 0x3F));
        s += char(0x80 | (cp & 0x3F));
    }
}

std::string utf16_to_utf8(Bytes units, bool big_endian) {
    std::string s;
    size_t n = units.size() / 2;
    auto unit = [&](size_t i) -> uint32_t {
        return big_endian ? (uint32_t(units[2 * i]) << 8 | units[2 * i + 1])
                          : (uint32_t(units[2 * i + 1]) << 8 | units[2 * i]);
    };
    // The ASCII prefix (every member name of the games' binders is ASCII) written straight into
    // the string; the rest, from the first other unit, one code point at a time.
    s.resize(n);
    size_t i = 0;
    for (uint32_t u; i < n && (u = unit(i)) < 0x80; ++i) s[i] = char(u);
    s.resize(i);
    if (i == n) return s;
    s.reserve(n + 8);
    for (; i < n; ++i) {
        uint32_t u = unit(i);
        if (u >= 0xD800 && u < 0xDC00 && i + 1 < n) {
            uint32_t lo = unit(i + 1);
            if (lo >= 0xDC00 && lo < 0xE000) {
                put_utf8(s, 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00));
                ++i;
                continue;
            }
        }
        if (u >= 0xD800 && u < 0xE000) u = 0xFFFD;
        put_utf8(s, u);
    }
    return s;
}

std::u16string utf8_to_utf16(std::string_view in) {
    std::u16string out;
    size_t i = 0;
    while (i < in.size()) {
        uint8_t c = uint8_t(in[i]);
        uint32_t cp = 0xFFFD;
        size_t len = 1;
        if (c < 0x80) {
            cp = c;
        } else if ((c >> 5) == 6 && i + 1 < in.size()) {
            cp = ((c & 0x1F) << 6) | (uint8_t(in[i + 1]) & 0x3F);
            len = 2;
        } else if ((c >> 4) == 14 && i + 2 < in.size()) {
            cp = ((c & 0x0F) << 12) | ((uint8_t(in[i + 1]) & 0x3F) << 6) | (uint8_t(in[i + 2]) & 0x3F);
            len = 3;
        } else if ((c >> 3) == 30 && i + 3 < in.size()) {
            cp = ((c & 0x07) << 18) | ((uint8_t(in[i + 1]) & 0x3F) << 12) | ((uint8_t(in[i + 2]) & 0x3F) << 6) |
                 (uint8_t(in[i + 3]) & 0x3F);
            len = 4;
        }
        i += len;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            out += char16_t(0xD800 + (cp >> 10));
            out += char16_t(0xDC00 + (cp & 0x3FF));
        } else {
            out += char16_t(cp);
        }
    }
    return out;
}

// Shift-JIS through glibc's iconv (CP932, the Windows variant FromSoftware's tools use).
// ASCII-only strings, by far the common case, skip iconv.
static std::string iconv_convert(const char* to, const char* from, std::string_view in, bool* ok) {
    if (ok) *ok = true;
    bool ascii = true;
    for (char c : in) ascii = ascii && uint8_t(c) < 0x80;
    if (ascii) return std::string(in);
    iconv_t cd = iconv_open(to, from);
    if (cd == iconv_t(-1)) {
        if (ok) *ok = false;
        return std::string(in);
    }
    std::string out;
    out.resize(in.size() * 4 + 8);
    char* src = const_cast<char*>(in.data());
    size_t src_left = in.size();
    char* dst = out.data();
    size_t dst_left = out.size();
    while (src_left > 0) {
        size_t r = iconv(cd, &src, &src_left, &dst, &dst_left);
        if (r == size_t(-1)) {
            if (ok) *ok = false;
            // Skip one bad byte, emit U+FFFD in the target when it is UTF-8, '?' otherwise.
            ++src;
            --src_left;
            const char* repl = std::string_view(to) == "UTF-8" ? "\xEF\xBF\xBD" : "?";
            size_t rl = std::strlen(repl);
            if (dst_left < rl) break;
            std::memcpy(dst, repl, rl);
            dst += rl;
            dst_left -= rl;
        }
    }
    iconv_close(cd);
    out.resize(out.size() - dst_left);
    return out;
}

std::string sjis_to_utf8(Bytes bytes) {
    return iconv_convert("UTF-8", "CP932", {reinterpret_cast<const char*>(bytes.data()), bytes.size()}, nullptr);
}

std::string utf8_to_sjis(std::string_view utf8, bool* ok) { return iconv_convert("CP932", "UTF-8", utf8, ok); }

}  // namespace drape
