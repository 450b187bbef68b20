// drape solver: the local-range entry on lanes (step.cpp solve_local_range states the scalar
// loop). Shared by the four-lane (SSE2) and eight-lane (AVX2) paths, so both run the loop's
// expressions in its order, lane by lane; a conditional step of the loop is a select.
#pragma once

#include <cstdint>

#include "solver/lanes.h"

namespace drape::solver::lanes {

// Lanes of particle p, reference vertex c and its normal n (zero without normals): the target
// t the loop moves the particle to (before the live-lane select). hi, lo: the normal band
// (read only with apply_normal); maxd: the maximum distance.
template <class V, class M>
inline void local_range_kernel(V px, V py, V pz, V cx, V cy, V cz, V nx, V ny, V nz, bool has_normals, bool apply_normal, V hi, V lo,
                               V maxd, uint32_t shape_type, float stiffness, V& tx, V& ty, V& tz) {
    const V zero = splat_v<V>(0.0f);
    V dx = px - cx, dy = py - cy, dz = pz - cz;
    const V nd = has_normals ? (dx * nx + dy * ny) + dz * nz : zero;
    V nd_new = nd;
    if (apply_normal && has_normals) {
        nd_new = select(gt(nd, hi), hi, nd);
        nd_new = select(lt(nd_new, lo), lo, nd_new);
    }
    if (shape_type == 1) {
        V qx = dx - nx * nd, qy = dy - ny * nd, qz = dz - nz * nd;
        const V l2 = (qx * qx + qy * qy) + qz * qz;
        const M far = gt(l2, maxd * maxd);
        const V k = maxd / vsqrt(l2);
        qx = select(far, qx * k, qx), qy = select(far, qy * k, qy), qz = select(far, qz * k, qz);
        tx = (cx + qx) + nx * nd_new, ty = (cy + qy) + ny * nd_new, tz = (cz + qz) + nz * nd_new;
    } else {
        const M moved = neq(nd_new, nd);
        const V kn = nd_new - nd;
        dx = select(moved, dx + nx * kn, dx), dy = select(moved, dy + ny * kn, dy), dz = select(moved, dz + nz * kn, dz);
        const V l2 = (dx * dx + dy * dy) + dz * dz;
        const M far = gt(l2, maxd * maxd);
        const V k = maxd / vsqrt(l2);
        dx = select(far, dx * k, dx), dy = select(far, dy * k, dy), dz = select(far, dz * k, dz);
        tx = cx + dx, ty = cy + dy, tz = cz + dz;
    }
    if (stiffness != 1.0f) {
        const V st = splat_v<V>(stiffness);
        tx = px + (tx - px) * st, ty = py + (ty - py) * st, tz = pz + (tz - pz) * st;
    }
}

}  // namespace drape::solver::lanes
