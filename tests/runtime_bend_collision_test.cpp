// The bend stiffness projection and the collision pass's order, as the runtime reads them from
// the corpus (README "runtime"): each rule stated in its test's name. The expected values are
// computed here in double from the rule, not by the solver.
#include <doctest/doctest.h>

#include <cmath>

#include "solver_support.h"

using namespace drape::solver;
using drape::solver::test::Sim;

namespace {

struct Quad {
    Float4 p[4];  // a, b (wings), c, d (hinge)
};

// Wings at heights ha (a) and hb (b) over the hinge c = (0,0,0) - d = (1,0,0), each lifted by
// `fold` radians out of the plane z = 0 (a V when fold > 0).
Quad hinge(double ha, double hb, double fold) {
    Quad q;
    q.p[0] = {0.4f, float(ha * std::cos(fold)), float(ha * std::sin(fold)), 0};
    q.p[1] = {0.7f, float(-hb * std::cos(fold)), float(hb * std::sin(fold)), 0};
    q.p[2] = {0, 0, 0, 0};
    q.p[3] = {1, 0, 0, 0};
    return q;
}

// The signed curvature (c.n)/(hA hB), c = sum w_i p_i, n = unit((d - c) x (b - a)), in double.
double curvature(const Float4* p, const double* w) {
    double P[4][3];
    for (int i = 0; i < 4; ++i) P[i][0] = p[i].x, P[i][1] = p[i].y, P[i][2] = p[i].z;
    double c[3] = {0, 0, 0}, e[3], ab[3], ac[3], bc[3];
    for (int k = 0; k < 3; ++k) {
        for (int i = 0; i < 4; ++i) c[k] += w[i] * P[i][k];
        e[k] = P[3][k] - P[2][k], ab[k] = P[1][k] - P[0][k], ac[k] = P[0][k] - P[2][k], bc[k] = P[1][k] - P[2][k];
    }
    auto cross = [](const double* a, const double* b, double* o) {
        o[0] = a[1] * b[2] - a[2] * b[1], o[1] = a[2] * b[0] - a[0] * b[2], o[2] = a[0] * b[1] - a[1] * b[0];
    };
    auto norm = [](const double* a) { return std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); };
    double m[3], xa[3], xb[3];
    cross(e, ab, m), cross(ac, e, xa), cross(bc, e, xb);
    const double hA = norm(xa) / norm(e), hB = norm(xb) / norm(e);
    return ((c[0] * m[0] + c[1] * m[1] + c[2] * m[2]) / norm(m)) / (hA * hB);
}

// Weights of the hinge above as the files store them: wings hB/(hA+hB) and hA/(hA+hB), the hinge
// point where the segment a-b crosses c-d (x = wa*0.4 + wb*0.7) split between c and d.
void weights(double ha, double hb, double* w) {
    w[0] = hb / (ha + hb), w[1] = ha / (ha + hb);
    const double x = w[0] * 0.4 + w[1] * 0.7;
    w[2] = -(1 - x), w[3] = -x;
}

struct BendRun {
    ParticleDesc particles[4] = {{1, 1, 0, 0}, {1, 1, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}};  // hinge pinned
    BendStiffnessDesc link;
    ConstraintSetDesc set;
    SimClothDesc d;
    BendRun(const Quad& start, const double* w, float stiffness, float rest_curvature) {
        link = {float(w[0]), float(w[1]), float(w[2]), float(w[3]), stiffness, rest_curvature, 0, 1, 2, 3};
        set.kind = ConstraintKind::bend_stiffness;
        set.bend_stiffness_links = &link;
        set.count = 1;
        d.particles = particles;
        d.particle_count = 4;
        d.rest_positions = start.p;
        d.gravity = {0, 0, 0, 0};
        d.constraint_sets = &set;
        d.constraint_set_count = 1;
    }
};

}  // namespace

TEST_CASE("runtime bend stiffness: restCurvature is the signed curvature (c.n)/(hA hB) with n = unit((d-c) x (b-a)): a hinge at its rest curvature stays where it is") {
    const double ha = 0.3, hb = 0.2, fold = 0.35;
    double w[4];
    weights(ha, hb, w);
    const Quad q = hinge(ha, hb, fold);
    const double rest = curvature(q.p, w);
    CHECK(rest < 0);  // lifting both wings (a V) turns c against n: a negative curvature
    CHECK(std::fabs(rest - (-2 * std::sin(fold) / (ha + hb))) < 0.01 * std::fabs(rest));  // about 2 sin(fold)/(hA+hB)
    BendRun run(q, w, 1.0f, float(rest));
    Sim sim(run.d);
    REQUIRE(sim.ok());
    StepInputs in;
    for (int s = 0; s < 10; ++s) sim.step(in);
    for (uint32_t i = 0; i < 4; ++i) {
        CHECK(std::fabs(sim.p(i).x - q.p[i].x) < 2e-6f);
        CHECK(std::fabs(sim.p(i).y - q.p[i].y) < 2e-6f);
        CHECK(std::fabs(sim.p(i).z - q.p[i].z) < 2e-6f);
    }
}

TEST_CASE("runtime bend stiffness: the violation c.n - restCurvature*hA*hB moves the wings along n by stiffness * w_i * invMass_i / sum w_j^2 invMass_j, so a flat hinge bends to its rest curvature") {
    const double ha = 0.3, hb = 0.2;
    double w[4];
    weights(ha, hb, w);
    const Quad flat = hinge(ha, hb, 0.0), bent = hinge(ha, hb, 0.1);
    const double target = curvature(bent.p, w);
    CHECK(std::fabs(curvature(flat.p, w)) < 1e-6);  // the weights make c vanish on a flat pair
    SUBCASE("stiffness 1: one projection along n = -z, each wing by w_i * invMass_i / sum w_j^2 invMass_j") {
        BendRun run(flat, w, 1.0f, float(target));
        Sim sim(run.d);
        REQUIRE(sim.ok());
        StepInputs in;
        sim.step(in);
        // n = unit((d - c) x (b - a)) = -z on the flat hinge; the violation is -target*hA*hB.
        const double violation = -target * ha * hb, share = violation / (w[0] * w[0] + w[1] * w[1]);
        CHECK(std::fabs(sim.p(0).z - share * w[0]) < 1e-6);  // p -= n * (share * w_i): +z by share * w_i
        CHECK(std::fabs(sim.p(1).z - share * w[1]) < 1e-6);
        CHECK(sim.p(0).x == flat.p[0].x);  // along n only
        CHECK(sim.p(0).y == flat.p[0].y);
        CHECK(sim.p(2).z == 0.0f);  // the pinned hinge stays
        CHECK(sim.p(3).z == 0.0f);
        const Float4 now[4] = {sim.p(0), sim.p(1), sim.p(2), sim.p(3)};
        CHECK(std::fabs(curvature(now, w) - target) < 0.02 * std::fabs(target));  // linearised: within 2% in one step
    }
    SUBCASE("stiffness 0.5: half the violation per projection, converging to the rest curvature") {
        BendRun run(flat, w, 0.5f, float(target));
        Sim sim(run.d);
        REQUIRE(sim.ok());
        StepInputs in;
        sim.step(in);
        const Float4 one[4] = {sim.p(0), sim.p(1), sim.p(2), sim.p(3)};
        CHECK(std::fabs(curvature(one, w) - 0.5 * target) < 0.02 * std::fabs(target));
        // Verlet keeps the velocity of each correction, so the hinge overshoots and swings about
        // the rest curvature; with damping it settles there.
    }
}

TEST_CASE("runtime collision: a particle meets each collidable once in collidable order, so where two overlap the later one can leave it inside the earlier") {
    // Two spheres of radius 0.5 at x = -0.4 and x = +0.4, overlapping around x = 0; a particle at
    // (0.05, 0.1, 0) is inside both. Sphere 0 pushes it out to its hull (radius 0.5 from
    // (-0.4,0,0)); sphere 1 then pushes it out of itself, back into sphere 0.
    ParticleDesc particles[1] = {{1, 1, 0, 0}};
    Float4 rest[1] = {{0.05f, 0.1f, 0, 0}};
    CollidableDesc col[2];
    col[0].shape.kind = ShapeKind::sphere;
    col[0].shape.sphere = {-0.4f, 0, 0, 0.5f};
    col[1].shape.kind = ShapeKind::sphere;
    col[1].shape.sphere = {0.4f, 0, 0, 0.5f};
    const int32_t execution[1] = {-1};
    SimClothDesc d;
    d.particles = particles;
    d.particle_count = 1;
    d.rest_positions = rest;
    d.gravity = {0, 0, 0, 0};
    d.collidables = col;
    d.collidable_count = 2;
    d.execution = execution;
    d.execution_count = 1;
    for (SolveMode mode : {SolveMode::sequential, SolveMode::scheduled}) {
        Sim sim(d);
        REQUIRE(sim.ok());
        StepInputs in;
        in.mode = mode;
        sim.step(in);
        // Expected, in double: out of sphere 0 along (p - c0), then out of sphere 1 along (p' - c1).
        double p[3] = {0.05, 0.1, 0};
        const double c0[3] = {-0.4, 0, 0}, c1[3] = {0.4, 0, 0};
        auto push = [&](const double* c) {
            double v[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
            const double l = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            if (l >= 0.5) return;
            for (int k = 0; k < 3; ++k) p[k] = c[k] + v[k] * (0.5 / l);
        };
        push(c0);
        push(c1);
        CHECK(std::fabs(sim.p(0).x - p[0]) < 1e-6);
        CHECK(std::fabs(sim.p(0).y - p[1]) < 1e-6);
        const Float4 q = sim.p(0);
        const float d1 = std::sqrt((q.x - 0.4f) * (q.x - 0.4f) + q.y * q.y + q.z * q.z);
        const float d0 = std::sqrt((q.x + 0.4f) * (q.x + 0.4f) + q.y * q.y + q.z * q.z);
        CHECK(std::fabs(d1 - 0.5f) < 1e-6f);  // on the last collidable's hull
        CHECK(d0 < 0.5f - 0.01f);             // left inside the first
    }
}
