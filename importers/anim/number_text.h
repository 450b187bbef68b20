// drape anim (internal): how the decoders' messages print stored numbers.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace drape::anim::detail {

// A float as the messages print it: NaN and infinities by name (printf's spelling varies).
inline std::string number_text(float v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", double(v));
    return buf;
}

// Four stored floats (a quaternion or a vector with w) as "(x, y, z, w)".
template <class Four>
std::string four_text(const Four& q) {
    return "(" + number_text(q[0]) + ", " + number_text(q[1]) + ", " + number_text(q[2]) + ", " + number_text(q[3]) + ")";
}

}  // namespace drape::anim::detail
