#include "drape/io/json_writer.h"

#include "drape/io/reader.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace drape {

std::string JsonWriter::quote(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 2);
    out += '"';
    size_t i = 0;
    while (i < s.size()) {
        const auto c = uint8_t(s[i]);
        if (c < 0x80) {
            switch (c) {
                case '"': out += "\\\""; break;
                case '\\': out += "\\\\"; break;
                case '\n': out += "\\n"; break;
                case '\t': out += "\\t"; break;
                case '\r': out += "\\r"; break;
                default:
                    if (c < 0x20 || c == 0x7F) {
                        char b[8];
                        std::snprintf(b, sizeof b, "\\u%04X", c);
                        out += b;
                    } else {
                        out += char(c);
                    }
            }
            ++i;
            continue;
        }
        if (const size_t n = utf8_sequence_at(s, i, nullptr)) {
            out.append(s.substr(i, n));
            i += n;
        } else {
            char b[8];
            std::snprintf(b, sizeof b, "\\\\x%02X", c);  // the text \xNN
            out += b;
            ++i;
        }
    }
    out += '"';
    return out;
}

void JsonWriter::newline() {
    if (m_indent <= 0) return;
    m_out << '\n';
    for (size_t i = 0; i < m_stack.size() * size_t(m_indent); ++i) m_out << ' ';
}

void JsonWriter::before_value() {
    if (m_stack.empty()) {
        if (m_done) throw std::logic_error("JsonWriter: a second top-level value");
        return;
    }
    if (m_stack.back() == Frame::object) {
        if (!m_after_key) throw std::logic_error("JsonWriter: a value inside an object needs a key");
        m_after_key = false;
        return;
    }
    if (m_has_items.back()) m_out << ',';
    m_has_items.back() = true;
    newline();
}

JsonWriter& JsonWriter::key(std::string_view k) {
    if (m_stack.empty() || m_stack.back() != Frame::object || m_after_key) throw std::logic_error("JsonWriter: a key outside an object");
    if (m_has_items.back()) m_out << ',';
    m_has_items.back() = true;
    newline();
    m_out << quote(k) << (m_indent > 0 ? ": " : ":");
    m_after_key = true;
    return *this;
}

JsonWriter& JsonWriter::begin_object() {
    before_value();
    m_out << '{';
    m_stack.push_back(Frame::object);
    m_has_items.push_back(false);
    return *this;
}

JsonWriter& JsonWriter::begin_array() {
    before_value();
    m_out << '[';
    m_stack.push_back(Frame::array);
    m_has_items.push_back(false);
    return *this;
}

JsonWriter& JsonWriter::end_object() {
    if (m_stack.empty() || m_stack.back() != Frame::object || m_after_key) throw std::logic_error("JsonWriter: end_object without its object");
    const bool items = m_has_items.back();
    m_stack.pop_back();
    m_has_items.pop_back();
    if (items) newline();
    m_out << '}';
    if (m_stack.empty()) m_done = true;
    return *this;
}

JsonWriter& JsonWriter::end_array() {
    if (m_stack.empty() || m_stack.back() != Frame::array) throw std::logic_error("JsonWriter: end_array without its array");
    const bool items = m_has_items.back();
    m_stack.pop_back();
    m_has_items.pop_back();
    if (items) newline();
    m_out << ']';
    if (m_stack.empty()) m_done = true;
    return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
    before_value();
    m_out << quote(s);
    if (m_stack.empty()) m_done = true;
    return *this;
}

JsonWriter& JsonWriter::value(bool b) {
    before_value();
    m_out << (b ? "true" : "false");
    if (m_stack.empty()) m_done = true;
    return *this;
}

JsonWriter& JsonWriter::value(int64_t v) {
    before_value();
    m_out << v;
    if (m_stack.empty()) m_done = true;
    return *this;
}

JsonWriter& JsonWriter::value(uint64_t v) {
    before_value();
    m_out << v;
    if (m_stack.empty()) m_done = true;
    return *this;
}

JsonWriter& JsonWriter::value(double v) {
    if (!std::isfinite(v)) return value(std::string_view(std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf")));
    before_value();
    char buf[64];
    // Shortest text that reads back to the same double.
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    std::string_view text(buf, size_t(r.ptr - buf));
    m_out << text;
    // Keep it a JSON number that reads back as floating point ("1" -> "1.0").
    if (text.find_first_of(".eE") == std::string_view::npos) m_out << ".0";
    if (m_stack.empty()) m_done = true;
    return *this;
}

JsonWriter& JsonWriter::null() {
    before_value();
    m_out << "null";
    if (m_stack.empty()) m_done = true;
    return *this;
}

}  // namespace drape
