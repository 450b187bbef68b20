// drape solver: the unified link on lanes (solver.h LinkArrays states the arithmetic). Shared by
// the scalar, SSE2 and AVX2 paths so that all of them run the same operations in the same order.
#pragma once

#include "solver/lanes.h"

namespace drape::solver::lanes {

// One unified link on lanes (solver.h LinkArrays states the arithmetic).
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
    const V fa = f * w_a, fb = f * w_b;
    ax = ax + dx * fa;
    ay = ay + dy * fa;
    az = az + dz * fa;
    bx = bx - dx * fb;
    by = by - dy * fb;
    bz = bz - dz * fb;
}

}  // namespace drape::solver::lanes
