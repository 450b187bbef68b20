// The benchmark grid (a hanging N x N cloth) as a sim cloth description of the solver (a white-box
// client of runtime/src/solver, as the solver's tests are).
//
// An N x N grid, 2 m x 2 m, hanging in the plane z = 0 (x in [-1, 1], top row at y = 2.5, bottom
// row at y = 0.5), top row pinned, every other particle inverse mass 1; three standard-link sets
// of stiffness 1 solved in this order: structural (i,j)-(i+1,j) and (i,j)-(i,j+1), shear
// (i,j)-(i+1,j+1) and (i+1,j)-(i,j+1), bend (i,j)-(i+2,j) and (i,j)-(i,j+2), each set row-major
// in the order listed (as a file would store them; the solver finds its own commuting groups).
// Gravity (0, -9.81, 0), 1 substep, 1 iteration. With capsules: two static capsules along x,
// x in [-0.6, 0.6], radius 0.1, axis at z = -0.05, 0.6 m and 1.4 m below the top row.
#pragma once

#include <cstdint>
#include <vector>

#include "solver/solver.h"

namespace drape::solver {

struct GridWorkload {
    uint32_t n = 0;
    std::vector<ParticleDesc> particles;
    std::vector<Float4> rest;
    std::vector<LinkDesc> structural, shear, bend;
    std::vector<ConstraintSetDesc> sets;
    std::vector<CollidableDesc> collidables;
    SimClothDesc desc;  // points into the vectors above: do not copy a GridWorkload
    GridWorkload() = default;
    GridWorkload(const GridWorkload&) = delete;
    GridWorkload& operator=(const GridWorkload&) = delete;

    // Particle (i, j): column i (x), row j (y, row 0 on top). Index j * n + i.
    uint32_t index(uint32_t i, uint32_t j) const { return j * n + i; }
    uint32_t link_count() const { return uint32_t(structural.size() + shear.size() + bend.size()); }
};

// Fills `w` for an n x n grid (n >= 3) with `capsules` static capsules (0 or 2).
void build_grid_workload(GridWorkload& w, uint32_t n, uint32_t capsules);

}  // namespace drape::solver
