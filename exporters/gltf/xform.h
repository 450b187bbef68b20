// Private math for the glTF exporter: column-vector 4x4 affine matrices (column-major, like
// glTF), quaternions (x, y, z, w), the FLVER node transform and the game -> glTF mirror.
#pragma once

#include <array>
#include <cmath>

#include "drape/flver/flver.h"

namespace drape::exporters::xf {

using Mat4 = std::array<double, 16>;  // m[col * 4 + row]
using Quat = std::array<double, 4>;   // x, y, z, w
using V3 = std::array<double, 3>;

inline Mat4 identity() { return {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}; }

inline Mat4 mul(const Mat4& a, const Mat4& b) {
    Mat4 r{};
    for (int c = 0; c < 4; ++c)
        for (int row = 0; row < 4; ++row) {
            double s = 0;
            for (int k = 0; k < 4; ++k) s += a[k * 4 + row] * b[c * 4 + k];
            r[c * 4 + row] = s;
        }
    return r;
}

inline Quat qmul(const Quat& a, const Quat& b) {
    return {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1], a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
            a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3], a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
}

// FLVER Euler (radians): column form R = Ry * Rz * Rx (SoulsFormats' row form Rx * Rz * Ry).
inline Quat euler_to_quat(double x, double y, double z) {
    Quat qx{std::sin(x / 2), 0, 0, std::cos(x / 2)};
    Quat qy{0, std::sin(y / 2), 0, std::cos(y / 2)};
    Quat qz{0, 0, std::sin(z / 2), std::cos(z / 2)};
    return qmul(qy, qmul(qz, qx));
}

inline Mat4 trs(const V3& t, const Quat& q, const V3& s) {
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    const double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
                         2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                         2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)};
    // r is column-major: column c = r[c*3 .. c*3+2]
    Mat4 m{};
    for (int c = 0; c < 3; ++c)
        for (int row = 0; row < 3; ++row) m[c * 4 + row] = r[c * 3 + row] * s[size_t(c)];
    m[12] = t[0];
    m[13] = t[1];
    m[14] = t[2];
    m[15] = 1;
    return m;
}

inline Mat4 node_local(const flver::Node& n) {
    return trs({n.translation.x, n.translation.y, n.translation.z}, euler_to_quat(n.rotation.x, n.rotation.y, n.rotation.z),
               {n.scale.x, n.scale.y, n.scale.z});
}

inline Mat4 affine_inverse(const Mat4& m) {
    const double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6], i = m[10];
    double det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
    if (std::fabs(det) < 1e-30) return identity();
    const double id = 1.0 / det;
    Mat4 r = identity();
    // inverse of the 3x3 (row, col indexing): inv = adj / det
    r[0] = (e * i - f * h) * id;
    r[4] = (c * h - b * i) * id;
    r[8] = (b * f - c * e) * id;
    r[1] = (f * g - d * i) * id;
    r[5] = (a * i - c * g) * id;
    r[9] = (c * d - a * f) * id;
    r[2] = (d * h - e * g) * id;
    r[6] = (b * g - a * h) * id;
    r[10] = (a * e - b * d) * id;
    for (int row = 0; row < 3; ++row)
        r[12 + row] = -(r[row] * m[12] + r[4 + row] * m[13] + r[8 + row] * m[14]);
    return r;
}

inline V3 xform_point(const Mat4& m, const V3& p) {
    return {m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12], m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13],
            m[2] * p[0] + m[6] * p[1] + m[10] * p[2] + m[14]};
}
inline V3 xform_dir(const Mat4& m, const V3& p) {
    return {m[0] * p[0] + m[4] * p[1] + m[8] * p[2], m[1] * p[0] + m[5] * p[1] + m[9] * p[2],
            m[2] * p[0] + m[6] * p[1] + m[10] * p[2]};
}

inline V3 cross(const V3& a, const V3& b) {
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
inline double dot(const V3& a, const V3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
inline double length(const V3& a) { return std::sqrt(dot(a, a)); }
inline bool normalize(V3& a) {
    double l = length(a);
    if (!(l > 1e-12) || !std::isfinite(l)) return false;
    a = {a[0] / l, a[1] / l, a[2] / l};
    return true;
}

// The game -> glTF change of basis: negate Z. For a point or direction; for a matrix M the
// converted matrix is P M P; for a rotation quaternion (x, y, z, w) it is (-x, -y, z, w).
inline V3 mirror(const V3& v) { return {v[0], v[1], -v[2]}; }
inline Quat mirror(const Quat& q) { return {-q[0], -q[1], q[2], q[3]}; }
inline Mat4 mirror(const Mat4& m) {
    Mat4 r = m;
    // P M P flips the sign of entries in row 2 or column 2 (not both).
    for (int c = 0; c < 4; ++c)
        for (int row = 0; row < 4; ++row) {
            int flips = (row == 2) + (c == 2);
            if (flips == 1) r[c * 4 + row] = -r[c * 4 + row];
        }
    return r;
}

// Decomposes an affine matrix into translation, rotation, scale (negative determinant folds
// into a negative X scale).
inline void decompose(const Mat4& m, V3& t, Quat& q, V3& s) {
    t = {m[12], m[13], m[14]};
    V3 c0{m[0], m[1], m[2]}, c1{m[4], m[5], m[6]}, c2{m[8], m[9], m[10]};
    s = {length(c0), length(c1), length(c2)};
    if (dot(cross(c0, c1), c2) < 0) s[0] = -s[0];
    for (int k = 0; k < 3; ++k)
        if (std::fabs(s[size_t(k)]) < 1e-12) s[size_t(k)] = 1e-12;
    double r[3][3];  // r[row][col]
    for (int row = 0; row < 3; ++row) {
        r[row][0] = c0[size_t(row)] / s[0];
        r[row][1] = c1[size_t(row)] / s[1];
        r[row][2] = c2[size_t(row)] / s[2];
    }
    double tr = r[0][0] + r[1][1] + r[2][2];
    if (tr > 0) {
        double k = std::sqrt(tr + 1.0) * 2;
        q = {(r[2][1] - r[1][2]) / k, (r[0][2] - r[2][0]) / k, (r[1][0] - r[0][1]) / k, 0.25 * k};
    } else if (r[0][0] > r[1][1] && r[0][0] > r[2][2]) {
        double k = std::sqrt(1.0 + r[0][0] - r[1][1] - r[2][2]) * 2;
        q = {0.25 * k, (r[0][1] + r[1][0]) / k, (r[0][2] + r[2][0]) / k, (r[2][1] - r[1][2]) / k};
    } else if (r[1][1] > r[2][2]) {
        double k = std::sqrt(1.0 + r[1][1] - r[0][0] - r[2][2]) * 2;
        q = {(r[0][1] + r[1][0]) / k, 0.25 * k, (r[1][2] + r[2][1]) / k, (r[0][2] - r[2][0]) / k};
    } else {
        double k = std::sqrt(1.0 + r[2][2] - r[0][0] - r[1][1]) * 2;
        q = {(r[0][2] + r[2][0]) / k, (r[1][2] + r[2][1]) / k, 0.25 * k, (r[1][0] - r[0][1]) / k};
    }
    double l = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (l > 0) q = {q[0] / l, q[1] / l, q[2] / l, q[3] / l};
    else q = {0, 0, 0, 1};
}

}  // namespace drape::exporters::xf
