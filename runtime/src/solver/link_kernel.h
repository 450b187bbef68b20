// drape solver: the unified link on lanes (solver.h LinkArrays states the arithmetic). Shared by
// the scalar, SSE2 and AVX2 paths so that all of them run the same operations in the same order.
#pragma once

#include "solver/lanes.h"

namespace drape::solver::lanes {

// One unified link on lanes (solver.h LinkArrays states the arithmetic).
// Both link kernels end alike: each end moves along the link by its inverse-mass share of f.
template <class V>
inline void move_link_ends(V& ax, V& ay, V& az, V& bx, V& by, V& bz, V dx, V dy, V dz, V f, V w_a, V w_b) {
    const V fa = f * w_a, fb = f * w_b;
    ax = ax + dx * fa;
    ay = ay + dy * fa;
    az = az + dz * fa;
    bx = bx - dx * fb;
    by = by - dy * fb;
    bz = bz - dz * fb;
}

template <class V, class M>
inline void link_kernel(V& ax, V& ay, V& az, V& bx, V& by, V& bz, V min_len, V max_len, V k_push, V k_pull, V w_a, V w_b,
                        V zero) {
    const V dx = bx - ax, dy = by - ay, dz = bz - az;
    const V len2 = (dx * dx + dy * dy) + dz * dz;
    const V len = vsqrt(len2);
    const V target = vmin(vmax(len, min_len), max_len);
    const M longer = gt(len, max_len);
    const V k = select(longer, k_pull, k_push);
    const V f = select(gt(len, zero), ((len - target) / len) * k, zero);
    move_link_ends(ax, ay, az, bx, by, bz, dx, dy, dz, f, w_a, w_b);
}

// The same link where min_length == max_length == rest and k_push == k_pull == k bit for bit
// (a uniform run, solver.h LinkSchedule): there clamp(len, rest, rest) is rest whatever len is
// (NaN included: max(NaN, rest) = rest) and the stiffness select picks k either way, so the two
// are left out and the operations that remain are the general kernel's, in its order.
template <class V, class M>
inline void link_kernel_uniform(V& ax, V& ay, V& az, V& bx, V& by, V& bz, V rest, V k, V w_a, V w_b, V zero) {
    const V dx = bx - ax, dy = by - ay, dz = bz - az;
    const V len2 = (dx * dx + dy * dy) + dz * dz;
    const V len = vsqrt(len2);
    const V f = select(gt(len, zero), ((len - rest) / len) * k, zero);
    move_link_ends(ax, ay, az, bx, by, bz, dx, dy, dz, f, w_a, w_b);
}

// Four links of a packed batch (solver.h LinkSchedule::packed): `rec` points at the lanes'
// first word of the a-offset field, fields are `stride` words apart (8 for the halves of an
// eight-lane batch, 4 for a four-lane one).
template <bool Uniform>
inline void link_batch4_packed(unsigned char* base, const uint32_t* rec, uint32_t stride) {
    const uint32_t* oa = rec;
    const uint32_t* ob = rec + stride;
    Float4& a0 = *reinterpret_cast<Float4*>(base + oa[0]);
    Float4& a1 = *reinterpret_cast<Float4*>(base + oa[1]);
    Float4& a2 = *reinterpret_cast<Float4*>(base + oa[2]);
    Float4& a3 = *reinterpret_cast<Float4*>(base + oa[3]);
    Float4& b0 = *reinterpret_cast<Float4*>(base + ob[0]);
    Float4& b1 = *reinterpret_cast<Float4*>(base + ob[1]);
    Float4& b2 = *reinterpret_cast<Float4*>(base + ob[2]);
    Float4& b3 = *reinterpret_cast<Float4*>(base + ob[3]);
    F4 ax, ay, az, aw, bx, by, bz, bw;
    transpose(a0, a1, a2, a3, ax, ay, az, aw);
    transpose(b0, b1, b2, b3, bx, by, bz, bw);
    const float* f = reinterpret_cast<const float*>(rec + 2 * stride);
    if constexpr (Uniform) {
        link_kernel_uniform<F4, M4>(ax, ay, az, bx, by, bz, load4(f), load4(f + stride), load4(f + 2 * stride),
                                    load4(f + 3 * stride), splat4(0.0f));
    } else {
        link_kernel<F4, M4>(ax, ay, az, bx, by, bz, load4(f), load4(f + stride), load4(f + 2 * stride), load4(f + 3 * stride),
                            load4(f + 4 * stride), load4(f + 5 * stride), splat4(0.0f));
    }
    untranspose(ax, ay, az, aw, a0, a1, a2, a3);
    untranspose(bx, by, bz, bw, b0, b1, b2, b3);
}

}  // namespace drape::solver::lanes
