// drape solver: the bend-stiffness item on lanes (step.cpp solve_bend_stiffness states the
// arithmetic). Shared by the four-lane (SSE2) and eight-lane (AVX2) paths, so both run bend_one's
// scalar expressions in its order, lane by lane.
#pragma once

#include "solver/lanes.h"

namespace drape::solver::lanes {

// Items one per lane: particle q of a lane at x[q], y[q], z[q], its weight w[q] and inverse mass
// im_of[q]; the item's inverse-mass sum, stiffness and rest curvature. Moves the particles of
// the live lanes (im, m2 and e2 positive) and leaves the others as they were; false when no lane
// is live (nothing changed).
template <class V, class M>
inline bool bend_kernel(V (&x)[4], V (&y)[4], V (&z)[4], const V (&w)[4], const V (&im_of)[4], V im, V stiffness, V rest_curvature) {
    const V cx = ((w[0] * x[0] + w[1] * x[1]) + w[2] * x[2]) + w[3] * x[3];
    const V cy = ((w[0] * y[0] + w[1] * y[1]) + w[2] * y[2]) + w[3] * y[3];
    const V cz = ((w[0] * z[0] + w[1] * z[1]) + w[2] * z[2]) + w[3] * z[3];
    const V ex = x[3] - x[2], ey = y[3] - y[2], ez = z[3] - z[2];
    const V abx = x[1] - x[0], aby = y[1] - y[0], abz = z[1] - z[0];
    const V mx = ey * abz - ez * aby, my = ez * abx - ex * abz, mz = ex * aby - ey * abx;
    const V m2 = (mx * mx + my * my) + mz * mz, e2 = (ex * ex + ey * ey) + ez * ez;
    const V zero = splat_v<V>(0.0f);
    const M live = mask_and(gt(im, zero), mask_and(gt(m2, zero), gt(e2, zero)));
    if (!any(live)) return false;
    const V inv_m = splat_v<V>(1.0f) / vsqrt(m2);
    const V nx = mx * inv_m, ny = my * inv_m, nz = mz * inv_m;
    const V acx = x[0] - x[2], acy = y[0] - y[2], acz = z[0] - z[2];
    const V bcx = x[1] - x[2], bcy = y[1] - y[2], bcz = z[1] - z[2];
    const V xax = acy * ez - acz * ey, xay = acz * ex - acx * ez, xaz = acx * ey - acy * ex;
    const V xbx = bcy * ez - bcz * ey, xby = bcz * ex - bcx * ez, xbz = bcx * ey - bcy * ex;
    const V heights = (vsqrt((xax * xax + xay * xay) + xaz * xaz) * vsqrt((xbx * xbx + xby * xby) + xbz * xbz)) / e2;
    const V violation = ((cx * nx + cy * ny) + cz * nz) - rest_curvature * heights;
    const V g = (stiffness * violation) / im;
    for (int q = 0; q < 4; ++q) {
        const V f = (g * w[q]) * im_of[q];
        x[q] = select(live, x[q] - nx * f, x[q]);
        y[q] = select(live, y[q] - ny * f, y[q]);
        z[q] = select(live, z[q] - nz * f, z[q]);
    }
    return true;
}

}  // namespace drape::solver::lanes
