// drape solver prototypes (bench/prototypes): what the experiments share. The link pass's
// reference (one link at a time through the runtime's own kernel, so a prototype's bits can be
// checked against it) and the clock they time with.
#pragma once

#include <time.h>

#include "solver/link_kernel.h"
#include "solver/solver.h"

namespace drape::solver {
// The runtime's AVX2 link batches of `width` lanes (8, or 16 run as two halves; links_avx2.cpp,
// not in a header of the solver's). The prototypes measure eight-lane schedules: they build
// their grids with SimClothDesc::link_batch_lanes = 8, as a CPU without AVX-512 does.
void link_batches_avx2(Float4* p, const uint32_t* packed, uint32_t count, uint32_t width, bool uniform);
}  // namespace drape::solver

namespace drape::solver::prototype {

// CPU time of the calling thread, in seconds (what another process does in between does not count).
inline double cpu_seconds() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// Link i of `l` on the positions `p`, one lane: the reference every prototype's batch must equal.
inline void link_scalar(Float4* p, const LinkArrays& l, uint32_t i) {
    Float4& a = p[l.a[i]];
    Float4& b = p[l.b[i]];
    float ax = a.x, ay = a.y, az = a.z, bx = b.x, by = b.y, bz = b.z;
    lanes::link_kernel<float, bool>(ax, ay, az, bx, by, bz, l.min_length[i], l.max_length[i], l.k_push[i], l.k_pull[i],
                                    l.w_a[i], l.w_b[i], 0.0f);
    a.x = ax, a.y = ay, a.z = az, b.x = bx, b.y = by, b.z = bz;
}

}  // namespace drape::solver::prototype
