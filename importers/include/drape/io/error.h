// drape: errors and results shared by every reader.
//
// A reader never throws on bad data and never prints: it returns Result<T>, a value or an
// Error. An Error names the chain of containers the data came from
// (`c1000.chrbnd.dcx > c1000.flver`), the byte offset inside the innermost one, the field
// that was being read and the reason, and prints as one line a user can act on.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace drape {

struct Error {
    std::vector<std::string> chain;  // outermost container first; may be empty
    uint64_t offset = 0;             // byte offset inside the innermost element of chain
    bool has_offset = false;         // false for errors that are not about a position
    std::string field;               // e.g. "bnd4.header.file_count"; may be empty
    std::string reason;              // e.g. "4294967295 x 36 B exceeds 312 B left"

    // One line: "a.dcx > b.flver @0x1C4 flver2.header.mesh_count: reason".
    std::string to_string() const;

    // Adds an outer container name in front of the chain (used when an error crosses a
    // container boundary on its way out).
    Error& within(std::string outer) {
        chain.insert(chain.begin(), std::move(outer));
        return *this;
    }
};

Error make_error(std::string reason, std::string field = {});
Error make_error_at(uint64_t offset, std::string field, std::string reason);

// Result<T>: either a T or an Error. Cheap to move; test with `if (!r)`.
template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : m_v(std::in_place_index<0>, std::move(value)) {}
    Result(Error error) : m_v(std::in_place_index<1>, std::move(error)) {}

    explicit operator bool() const { return m_v.index() == 0; }
    bool ok() const { return m_v.index() == 0; }

    T& value() & { return std::get<0>(m_v); }
    const T& value() const& { return std::get<0>(m_v); }
    T&& value() && { return std::get<0>(std::move(m_v)); }
    T* operator->() { return &std::get<0>(m_v); }
    const T* operator->() const { return &std::get<0>(m_v); }
    T& operator*() & { return std::get<0>(m_v); }
    const T& operator*() const& { return std::get<0>(m_v); }

    Error& error() & { return std::get<1>(m_v); }
    const Error& error() const& { return std::get<1>(m_v); }
    Error&& error() && { return std::get<1>(std::move(m_v)); }

private:
    std::variant<T, Error> m_v;
};

template <>
class [[nodiscard]] Result<void> {
public:
    Result() = default;
    Result(Error error) : m_error(std::move(error)), m_failed(true) {}

    explicit operator bool() const { return !m_failed; }
    bool ok() const { return !m_failed; }
    Error& error() & { return m_error; }
    const Error& error() const& { return m_error; }
    Error&& error() && { return std::move(m_error); }

private:
    Error m_error;
    bool m_failed = false;
};

}  // namespace drape
