// drape: a streaming JSON writer. Values go to the stream as they are written, so a document
// of any size (the whole object graph of a large Havok file) needs memory only for the nesting
// depth. Used by `drape inspect --json` and the unpack manifests.
//
// Contract: calls must form one well-formed value (keys only directly inside objects, every
// begin matched by its end); a misuse is a programming error and throws std::logic_error.
// Strings are written as UTF-8: well-formed UTF-8 is kept, every other byte is written as the
// text \xNN (as drape's error messages do), control characters as \uXXXX escapes. Non-finite
// doubles are written as the strings "nan", "inf" and "-inf" (JSON has no such numbers).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace drape {

class JsonWriter {
public:
    // indent: spaces per level; 0 writes everything on one line.
    explicit JsonWriter(std::ostream& out, int indent = 1) : m_out(out), m_indent(indent) {}

    JsonWriter& begin_object();
    JsonWriter& end_object();
    JsonWriter& begin_array();
    JsonWriter& end_array();
    JsonWriter& key(std::string_view k);

    JsonWriter& value(std::string_view s);
    JsonWriter& value(const char* s) { return value(std::string_view(s)); }
    JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
    JsonWriter& value(bool b);
    JsonWriter& value(int64_t v);
    JsonWriter& value(uint64_t v);
    JsonWriter& value(int v) { return value(int64_t(v)); }
    JsonWriter& value(unsigned v) { return value(uint64_t(v)); }
    JsonWriter& value(double v);
    JsonWriter& null();

    // key + value in one call.
    template <class T>
    JsonWriter& field(std::string_view k, const T& v) {
        key(k);
        return value(v);
    }

    // True once exactly one complete top-level value has been written.
    bool complete() const { return m_stack.empty() && m_done; }

    // A JSON string literal (with quotes) for `s`, escaped as above.
    static std::string quote(std::string_view s);

private:
    enum class Frame : uint8_t { object, array };
    void before_value();
    void newline();

    std::ostream& m_out;
    int m_indent;
    std::vector<Frame> m_stack;
    std::vector<bool> m_has_items;
    bool m_after_key = false;
    bool m_done = false;
};

}  // namespace drape
