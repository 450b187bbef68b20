// drape (private): helpers for typed views over the generic Havok value view.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "drape/havok/animation.h"
#include "drape/havok/hkx.h"

namespace drape::havok::detail {

// Reads members of one object by name; the first missing required member is remembered as an
// error naming the object and member.
class ObjectReader {
public:
    ObjectReader(const File& f, uint32_t item) : m_item(item), m_obj(f.object(item)) {}
    ObjectReader(uint32_t item, Value v) : m_item(item), m_obj(v) {}

    const Value& value() const { return m_obj; }
    bool ok() const { return !m_error.has_value(); }
    const Error& error() const { return *m_error; }
    std::string where() const { return m_obj.type_info().name + " (item " + std::to_string(m_item) + ")"; }

    Value req(std::string_view member) {
        Value v = m_obj[member];
        if (!v.valid() && !m_error) m_error = make_error("no member '" + std::string(member) + "'", where());
        return v;
    }
    Value opt(std::string_view member) const { return m_obj[member]; }

private:
    uint32_t m_item;
    Value m_obj;
    std::optional<Error> m_error;
};

// The element budget of one typed read: a file whose objects point to the same arrays many times
// over cannot make a typed view allocate without bound (DESIGN.md: a fixed multiple of its size).
struct Budget {
    uint64_t left = ~uint64_t(0);
    bool exhausted = false;
};
inline thread_local Budget* t_budget = nullptr;

// Elements of an array a typed view may read (0 once the budget is spent).
inline uint64_t take(uint64_t n) {
    if (!t_budget) return n;
    if (n > t_budget->left) {
        t_budget->exhausted = true;
        t_budget->left = 0;
        return 0;
    }
    t_budget->left -= n;
    return n;
}

// Installs a budget of 16 elements per byte of the file's data (+64 Ki) unless one is active.
class BudgetScope {
public:
    explicit BudgetScope(const File& f) {
        if (t_budget) return;
        m_budget.left = 16 * uint64_t(f.data.size()) + 65536;
        t_budget = &m_budget;
        m_owner = true;
    }
    ~BudgetScope() {
        if (m_owner) t_budget = nullptr;
    }
    BudgetScope(const BudgetScope&) = delete;
    BudgetScope& operator=(const BudgetScope&) = delete;
    bool exhausted() const { return m_owner && m_budget.exhausted; }
    Error error() const {
        return make_error("the typed view would read more than 16 elements per byte of data (objects shared too many times)", "havok.typed_view");
    }

private:
    Budget m_budget;
    bool m_owner = false;
};

// The first n elements of an array, stepped through without resolving the array again for
// each one: Value::at(i) looks the array up anew on every call, which made reading a clip's
// spline bytes a fifth of `drape convert`'s instructions. Element i is the first element's type
// at first.offset() + i * stride, Value::at's own arithmetic (Value::size() already checked that
// all of them lie inside the data).
struct Elements {
    Value first;
    uint64_t stride = 0;
    Value operator[](uint64_t i) const { return Value(first.file(), first.type(), first.offset() + i * stride); }
};
inline Elements elements(const Value& arr, uint64_t n) {
    if (n == 0) return {};
    const Value first = arr.at(0);
    return {first, first.valid() ? uint64_t(first.type_info().r_size) : 0};
}

template <class T>
std::vector<T> ints(const Value& arr) {
    std::vector<T> out;
    const uint64_t n = take(arr.size());
    out.reserve(n);
    const Elements e = elements(arr, n);
    for (uint64_t i = 0; i < n; ++i) out.push_back(T(e[i].as_int()));
    return out;
}

inline std::vector<float> floats(const Value& arr) {
    std::vector<float> out;
    const uint64_t n = take(arr.size());
    out.reserve(n);
    const Elements e = elements(arr, n);
    for (uint64_t i = 0; i < n; ++i) out.push_back(float(e[i].as_float()));
    return out;
}

inline Vec4 vec4(const Value& v) {
    Vec4 r{0, 0, 0, 0};
    for (uint64_t i = 0; i < 4 && i < v.size(); ++i) r[i] = float(v.at(i).as_float());
    return r;
}

inline std::vector<Vec4> vec4s(const Value& arr) {
    std::vector<Vec4> out;
    const uint64_t n = take(arr.size());
    out.reserve(n);
    const Elements e = elements(arr, n);
    for (uint64_t i = 0; i < n; ++i) out.push_back(vec4(e[i]));
    return out;
}

// hkMatrix4 / hkTransform: 16 floats, column-major as stored.
inline std::array<float, 16> mat4(const Value& v) {
    std::array<float, 16> m{};
    const std::vector<float> f = v.floats();
    for (size_t i = 0; i < 16 && i < f.size(); ++i) m[i] = f[i];
    return m;
}

inline QsTransform qs_transform(const Value& v) {
    QsTransform t;
    t.translation = vec4(v["translation"]);
    t.rotation = vec4(v["rotation"]);
    t.scale = vec4(v["scale"]);
    // Some type tables describe hkQsTransform as 12 floats instead of a record.
    if (!v["translation"].valid()) {
        const std::vector<float> f = v.floats();
        if (f.size() >= 12) {
            for (int i = 0; i < 4; ++i) {
                t.translation[i] = f[i];
                t.rotation[i] = f[4 + i];
                t.scale[i] = f[8 + i];
            }
        }
    }
    return t;
}

inline std::vector<std::string> strings(const Value& arr) {
    std::vector<std::string> out;
    const uint64_t n = take(arr.size());
    for (uint64_t i = 0; i < n; ++i) out.push_back(arr.at(i).as_string());
    return out;
}

// Items that the pointers of an array point to (0 for null).
inline std::vector<uint32_t> pointees(const Value& arr) {
    std::vector<uint32_t> out;
    const uint64_t n = take(arr.size());
    for (uint64_t i = 0; i < n; ++i) out.push_back(arr.at(i).pointee_item());
    return out;
}

inline std::vector<uint8_t> raw_bytes(const Value& arr) {
    std::vector<uint8_t> out;
    const uint64_t n = take(arr.size());
    const Elements e = elements(arr, n);
    if (n == 0 || !e.first.valid()) return out;
    const Type& t = e.first.type_info();
    const Kind k = e.first.kind();
    uint64_t bits = t.r_format >> 10;  // Value::as_int's width rule
    if (bits == 0 || bits > 64 || bits % 8) bits = uint64_t(t.r_size) * 8;
    if ((k == Kind::Int || k == Kind::Bool) && bits == 8 && t.r_size == 1) {
        // One-byte integers, contiguous: the bytes themselves (what uint8_t(as_int()) gives for
        // each, signed or not), inside the data as Value::size() checked.
        const auto& data = e.first.file()->data;
        const uint64_t at = e.first.offset();
        if (at <= data.size() && n <= data.size() - at) return {data.begin() + long(at), data.begin() + long(at + n)};
    }
    out.reserve(n);
    for (uint64_t i = 0; i < n; ++i) out.push_back(uint8_t(e[i].as_int()));
    return out;
}

}  // namespace drape::havok::detail
