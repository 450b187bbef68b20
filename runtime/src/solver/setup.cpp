// drape solver: building the immutable Setup from a description, into caller memory.
//
// Every index of the description is checked here once (particles, reference vertices, bones,
// execution entries), so the step needs no checks. The link schedule is computed here: for each
// run of consecutive link sets in the execution order, link k goes to level
// 1 + max(level of the last earlier link on particle a, ... on particle b). Links of one level
// share no particle, and every particle sees its links in file order, so solving level by level
// (four links of a level at a time) gives the bits of the sequential solve.
#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <vector>

#include "solver/arena.h"
#include "solver/solver.h"

namespace drape::solver {
namespace {

bool is_link_kind(ConstraintKind k) {
    return k == ConstraintKind::standard_link || k == ConstraintKind::stretch_link || k == ConstraintKind::bend_link ||
           k == ConstraintKind::compressible_link;
}

struct Errors {
    char* text;
    size_t size;
    bool fail(const char* fmt, ...) {
        if (text && size) {
            va_list ap;
            va_start(ap, fmt);
            std::vsnprintf(text, size, fmt, ap);
            va_end(ap);
        }
        return false;
    }
};

// The execution order with -1 entries kept; nullptr execution = every set in order.
struct Execution {
    const SimClothDesc& d;
    uint32_t count() const { return d.execution ? d.execution_count : d.constraint_set_count; }
    int32_t at(uint32_t i) const { return d.execution ? d.execution[i] : int32_t(i); }
    bool has_collision() const {
        for (uint32_t i = 0; i < count(); ++i)
            if (at(i) < 0) return true;
        return false;
    }
};

bool check_vertex(const SimClothDesc& d, uint32_t buffer, uint32_t vertex, Errors& e, uint32_t set, uint32_t item) {
    if (buffer >= d.buffer_count)
        return e.fail("constraint set %u: reference buffer %u out of %u buffers", set, buffer, d.buffer_count);
    if (d.buffer_vertex_counts == nullptr || vertex >= d.buffer_vertex_counts[buffer])
        return e.fail("constraint set %u item %u: reference vertex %u out of buffer %u's %u vertices", set, item, vertex,
                      buffer, d.buffer_vertex_counts ? d.buffer_vertex_counts[buffer] : 0u);
    return true;
}

bool validate(const SimClothDesc& d, Errors& e) {
    const uint32_t n = d.particle_count;
    if (n == 0 || d.particles == nullptr || d.rest_positions == nullptr) return e.fail("sim cloth has no particles");
    if (n > 65535) return e.fail("sim cloth: %u particles, more than a u16 index holds", n);
    if (d.sub_steps == 0 || d.solve_iterations == 0) return e.fail("subSteps and numberOfSolveIterations must be >= 1");
    if (d.constraint_set_count && d.constraint_sets == nullptr) return e.fail("constraint sets missing");
    auto p_ok = [&](uint32_t p) { return p < n; };
    for (uint32_t s = 0; s < d.constraint_set_count; ++s) {
        const ConstraintSetDesc& c = d.constraint_sets[s];
        switch (c.kind) {
            case ConstraintKind::standard_link:
            case ConstraintKind::stretch_link:
                if (c.count && !c.links) return e.fail("constraint set %u: links missing", s);
                for (uint32_t i = 0; i < c.count; ++i)
                    if (!p_ok(c.links[i].particle_a) || !p_ok(c.links[i].particle_b))
                        return e.fail("constraint set %u link %u: particle out of %u", s, i, n);
                break;
            case ConstraintKind::bend_link:
                if (c.count && !c.bend_links) return e.fail("constraint set %u: bend links missing", s);
                for (uint32_t i = 0; i < c.count; ++i)
                    if (!p_ok(c.bend_links[i].particle_a) || !p_ok(c.bend_links[i].particle_b))
                        return e.fail("constraint set %u link %u: particle out of %u", s, i, n);
                break;
            case ConstraintKind::compressible_link:
                if (c.count && !c.compressible_links) return e.fail("constraint set %u: compressible links missing", s);
                for (uint32_t i = 0; i < c.count; ++i)
                    if (!p_ok(c.compressible_links[i].particle_a) || !p_ok(c.compressible_links[i].particle_b))
                        return e.fail("constraint set %u link %u: particle out of %u", s, i, n);
                break;
            case ConstraintKind::bend_stiffness:
                if (c.count && !c.bend_stiffness_links) return e.fail("constraint set %u: bend stiffness links missing", s);
                for (uint32_t i = 0; i < c.count; ++i) {
                    const BendStiffnessDesc& b = c.bend_stiffness_links[i];
                    if (!p_ok(b.particle_a) || !p_ok(b.particle_b) || !p_ok(b.particle_c) || !p_ok(b.particle_d))
                        return e.fail("constraint set %u link %u: particle out of %u", s, i, n);
                }
                break;
            case ConstraintKind::local_range:
                if (c.count && !c.local_constraints) return e.fail("constraint set %u: local constraints missing", s);
                if (c.shape_type > 1) return e.fail("constraint set %u: local range shape type %u (0 sphere, 1 cylinder)", s, c.shape_type);
                for (uint32_t i = 0; i < c.count; ++i) {
                    if (!p_ok(c.local_constraints[i].particle_index))
                        return e.fail("constraint set %u item %u: particle out of %u", s, i, n);
                    if (!check_vertex(d, c.reference_buffer, c.local_constraints[i].reference_vertex, e, s, i)) return false;
                }
                break;
            case ConstraintKind::transition:
                if (c.count && !c.transition_particles) return e.fail("constraint set %u: transition particles missing", s);
                for (uint32_t i = 0; i < c.count; ++i) {
                    if (!p_ok(c.transition_particles[i].particle_index))
                        return e.fail("constraint set %u item %u: particle out of %u", s, i, n);
                    if (!check_vertex(d, c.reference_buffer, c.transition_particles[i].reference_vertex, e, s, i)) return false;
                }
                break;
            case ConstraintKind::volume_mx:
                if ((c.frame_count && !c.frame_datas) || (c.apply_count && !c.apply_datas))
                    return e.fail("constraint set %u: volume data missing", s);
                for (uint32_t i = 0; i < c.frame_count; ++i)
                    if (!p_ok(c.frame_datas[i].particle_index)) return e.fail("constraint set %u frame %u: particle out of %u", s, i, n);
                for (uint32_t i = 0; i < c.apply_count; ++i)
                    if (!p_ok(c.apply_datas[i].particle_index)) return e.fail("constraint set %u apply %u: particle out of %u", s, i, n);
                break;
            default:
                return e.fail("constraint set %u: unknown kind %u", s, unsigned(c.kind));
        }
    }
    if (d.execution) {
        for (uint32_t i = 0; i < d.execution_count; ++i)
            if (d.execution[i] < -1 || d.execution[i] >= int32_t(d.constraint_set_count))
                return e.fail("constraint execution %u: %d out of %u sets", i, d.execution[i], d.constraint_set_count);
    }
    if (d.collidable_count && !d.collidables) return e.fail("collidables missing");
    if (d.collidable_count > 32) return e.fail("%u collidables: collision masks hold 32", d.collidable_count);
    for (uint32_t i = 0; i < d.collidable_count; ++i) {
        const CollidableDesc& c = d.collidables[i];
        if (c.bone >= 0 && uint32_t(c.bone) >= d.transform_count)
            return e.fail("collidable %u: bone %d out of %u transforms", i, c.bone, d.transform_count);
        if (unsigned(c.shape.kind) > unsigned(ShapeKind::convex_geometry)) return e.fail("collidable %u: unknown shape", i);
        if (c.shape.kind == ShapeKind::convex_geometry && c.shape.tetrahedra_count && !c.shape.tetrahedra_equations)
            return e.fail("collidable %u: tetrahedra missing", i);
    }
    if (d.triangle_index_count % 3) return e.fail("%u triangle indices: not whole triangles", d.triangle_index_count);
    if (d.triangle_index_count && !d.triangle_indices) return e.fail("triangle indices missing");
    for (uint32_t i = 0; i < d.triangle_index_count; ++i)
        if (d.triangle_indices[i] >= n) return e.fail("triangle index %u: particle %u out of %u", i, d.triangle_indices[i], n);
    return true;
}

void take_links(Arena& a, LinkArrays& l, uint32_t capacity) {
    l.a = a.take<uint32_t>(capacity);
    l.b = a.take<uint32_t>(capacity);
    l.min_length = a.take<float>(capacity);
    l.max_length = a.take<float>(capacity);
    l.k_push = a.take<float>(capacity);
    l.k_pull = a.take<float>(capacity);
    l.w_a = a.take<float>(capacity);
    l.w_b = a.take<float>(capacity);
}

void put_link(LinkArrays& l, uint32_t i, uint32_t pa, uint32_t pb, float min_len, float max_len, float k_push, float k_pull,
              const float* inv_mass) {
    l.a[i] = pa;
    l.b[i] = pb;
    l.min_length[i] = min_len;
    l.max_length[i] = max_len;
    l.k_push[i] = k_push;
    l.k_pull[i] = k_pull;
    const float ia = inv_mass[pa], ib = inv_mass[pb], sum = ia + ib;
    l.w_a[i] = sum > 0 ? ia / sum : 0.0f;
    l.w_b[i] = sum > 0 ? ib / sum : 0.0f;
}

void copy_link(const LinkArrays& from, uint32_t i, LinkArrays& to, uint32_t j) {
    to.a[j] = from.a[i];
    to.b[j] = from.b[i];
    to.min_length[j] = from.min_length[i];
    to.max_length[j] = from.max_length[i];
    to.k_push[j] = from.k_push[i];
    to.k_pull[j] = from.k_pull[i];
    to.w_a[j] = from.w_a[i];
    to.w_b[j] = from.w_b[i];
}

uint32_t float_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

// The batches of `ls.links` as the lanes read them (solver.h LinkSchedule::packed).
void pack_schedule(LinkSchedule& ls) {
    const LinkArrays& l = ls.links;
    bool uniform = true;
    for (uint32_t i = 0; i < l.count && uniform; ++i)
        uniform = float_bits(l.min_length[i]) == float_bits(l.max_length[i]) && float_bits(l.k_push[i]) == float_bits(l.k_pull[i]);
    ls.uniform = uniform;
    ls.packed_fields = uniform ? 6 : 8;
    uint32_t* out = ls.packed;
    uint32_t at = 0;
    auto batch = [&](uint32_t width) {
        const float* uniform_fields[4] = {l.min_length, l.k_push, l.w_a, l.w_b};
        const float* general_fields[6] = {l.min_length, l.max_length, l.k_push, l.k_pull, l.w_a, l.w_b};
        for (uint32_t k = 0; k < width; ++k) out[k] = l.a[at + k] * uint32_t(sizeof(Float4));
        out += width;
        for (uint32_t k = 0; k < width; ++k) out[k] = l.b[at + k] * uint32_t(sizeof(Float4));
        out += width;
        const uint32_t nf = uniform ? 4 : 6;
        for (uint32_t f = 0; f < nf; ++f) {
            const float* src = uniform ? uniform_fields[f] : general_fields[f];
            for (uint32_t k = 0; k < width; ++k) out[k] = float_bits(src[at + k]);
            out += width;
        }
        at += width;
    };
    for (uint32_t lv = 0; lv < ls.level_count; ++lv) {
        for (uint32_t b = 0; b < ls.level_batches16[lv]; ++b) batch(16);
        for (uint32_t b = 0; b < ls.level_batches8[lv]; ++b) batch(8);
        for (uint32_t b = 0; b < ls.level_batches4[lv]; ++b) batch(4);
        at += ls.level_singles[lv];
    }
}

struct ScheduleScratch {
    uint32_t *pred_count, *next_a, *next_b, *height, *heap, *fifo_link, *fifo_time, *last;
};

constexpr uint32_t kNone = 0xFFFFFFFFu;
// A batch's inputs should come from batches at least this far back, so that the processor
// overlaps a batch with the ones before it instead of waiting for their stores (a batch is
// about 120 instructions; the out-of-order window holds a few; measured on the grid, 0 to 8
// give the same time within noise, the packing into full batches is what counts).
constexpr uint32_t kLatencyBatches = 2;

// The link schedule of one run (solver.h LinkSchedule). Link k depends on the last earlier link
// on each of its particles; any order that keeps every link after those, with no two links of a
// batch sharing a particle, gives the sequential bits (the links of a particle meet it in file
// order, and links that share no particle commute). Ready links never share a particle (one of
// two such links depends on the other), so a batch is any set of ready links. List scheduling:
// each step emits one batch of the ready links with the longest chains after them, preferring
// links whose inputs were produced kLatencyBatches batches ago; 12-16 ready links make a
// sixteen-lane batch (when `widest` is 16), 5-11 an eight-lane one (of 8 at most), 2-4 a
// four-lane one, 1 a single; consecutive sixteen-lane then eight-lane batches form one level
// entry.
void schedule_links(LinkSchedule& ls, uint32_t padded, uint32_t filler, ScheduleScratch& sc, uint32_t widest) {
    const LinkArrays& seq = ls.sequential;
    const uint32_t n = seq.count;
    for (uint32_t p = 0; p < padded; ++p) sc.last[p] = kNone;
    for (uint32_t k = 0; k < n; ++k) {
        sc.pred_count[k] = 0;
        sc.next_a[k] = sc.next_b[k] = kNone;
        const uint32_t ps[2] = {seq.a[k], seq.b[k]};
        for (int side = 0; side < (ps[0] == ps[1] ? 1 : 2); ++side) {
            const uint32_t p = ps[side];
            const uint32_t j = sc.last[p];
            if (j != kNone) {
                (seq.a[j] == p ? sc.next_a[j] : sc.next_b[j]) = k;
                ++sc.pred_count[k];
            }
            sc.last[p] = k;
        }
    }
    for (uint32_t k = n; k-- > 0;) {
        const uint32_t ha = sc.next_a[k] == kNone ? 0 : sc.height[sc.next_a[k]];
        const uint32_t hb = sc.next_b[k] == kNone ? 0 : sc.height[sc.next_b[k]];
        sc.height[k] = 1 + (ha > hb ? ha : hb);
    }
    // Max-heap on (height, then file order).
    uint32_t heap_size = 0;
    auto before = [&](uint32_t x, uint32_t y) { return sc.height[x] != sc.height[y] ? sc.height[x] > sc.height[y] : x < y; };
    auto push = [&](uint32_t k) {
        uint32_t i = heap_size++;
        while (i > 0 && before(k, sc.heap[(i - 1) / 2])) {
            sc.heap[i] = sc.heap[(i - 1) / 2];
            i = (i - 1) / 2;
        }
        sc.heap[i] = k;
    };
    auto pop = [&]() {
        const uint32_t top = sc.heap[0], k = sc.heap[--heap_size];
        uint32_t i = 0;
        for (;;) {
            uint32_t c = 2 * i + 1;
            if (c >= heap_size) break;
            if (c + 1 < heap_size && before(sc.heap[c + 1], sc.heap[c])) ++c;
            if (!before(sc.heap[c], k)) break;
            sc.heap[i] = sc.heap[c];
            i = c;
        }
        if (heap_size) sc.heap[i] = k;
        return top;
    };
    uint32_t head = 0, tail = 0;
    for (uint32_t k = 0; k < n; ++k)
        if (sc.pred_count[k] == 0) {
            sc.fifo_link[tail] = k;
            sc.fifo_time[tail++] = 0;
        }
    LinkArrays& out = ls.links;
    uint32_t slot = 0, levels = 0, emitted = 0;
    bool open = false;  // the last level entry still takes eight-lane batches
    for (uint32_t t = 0; emitted < n; ++t) {
        while (head < tail && sc.fifo_time[head] <= t) push(sc.fifo_link[head++]);
        const uint32_t ready = heap_size + (tail - head);
        const uint32_t limit = widest >= 16 && ready >= 12 ? 16 : 8;
        uint32_t take[16], m = 0;
        while (m < limit && heap_size) take[m++] = pop();
        while (m < limit && head < tail) take[m++] = sc.fifo_link[head++];  // ready, produced more recently
        const uint32_t width = m >= 12 ? 16 : (m >= 5 ? 8 : (m >= 2 ? 4 : 1));
        for (uint32_t j = 0; j < width; ++j) {
            if (j < m) {
                copy_link(seq, take[j], out, slot + j);
            } else {  // a lane filler: the spare particle, pinned, zero weights
                out.a[slot + j] = out.b[slot + j] = filler;
                out.min_length[slot + j] = out.max_length[slot + j] = 0;
                out.k_push[slot + j] = out.k_pull[slot + j] = 0;
                out.w_a[slot + j] = out.w_b[slot + j] = 0;
            }
        }
        slot += width;
        // A sixteen-lane batch cannot follow an eight-lane one within an entry.
        if (open && width == 16 && ls.level_batches8[levels - 1]) open = false;
        if (!open) {
            ls.level_batches16[levels] = ls.level_batches8[levels] = ls.level_batches4[levels] = ls.level_singles[levels] = 0;
            ++levels;
            open = true;
        }
        if (width == 16) {
            ++ls.level_batches16[levels - 1];
        } else if (width == 8) {
            ++ls.level_batches8[levels - 1];
        } else {
            (width == 4 ? ls.level_batches4 : ls.level_singles)[levels - 1] = 1;
            open = false;
        }
        emitted += m;
        for (uint32_t j = 0; j < m; ++j)
            for (uint32_t next : {sc.next_a[take[j]], sc.next_b[take[j]]})
                if (next != kNone && --sc.pred_count[next] == 0) {
                    sc.fifo_link[tail] = next;
                    sc.fifo_time[tail++] = t + kLatencyBatches;
                }
    }
    ls.level_count = levels;
    ls.links.count = slot;
}

uint32_t link_count(const ConstraintSetDesc& c) { return is_link_kind(c.kind) ? c.count : 0; }

// The sequential links of one set, in the unified form (solver.h LinkArrays).
void fill_set_links(const ConstraintSetDesc& c, LinkArrays& l, uint32_t& at, const float* inv_mass) {
    for (uint32_t i = 0; i < c.count; ++i, ++at) {
        switch (c.kind) {
            case ConstraintKind::standard_link: {
                const LinkDesc& k = c.links[i];
                put_link(l, at, k.particle_a, k.particle_b, k.rest_length, k.rest_length, k.stiffness, k.stiffness, inv_mass);
                break;
            }
            case ConstraintKind::stretch_link: {  // no push: target = len whenever len <= rest
                const LinkDesc& k = c.links[i];
                put_link(l, at, k.particle_a, k.particle_b, 0.0f, k.rest_length, 0.0f, k.stiffness, inv_mass);
                break;
            }
            case ConstraintKind::bend_link: {
                const BendLinkDesc& k = c.bend_links[i];
                put_link(l, at, k.particle_a, k.particle_b, k.bend_min_length, k.stretch_max_length, k.bend_stiffness,
                         k.stretch_stiffness, inv_mass);
                break;
            }
            case ConstraintKind::compressible_link: {
                const CompressibleLinkDesc& k = c.compressible_links[i];
                put_link(l, at, k.particle_a, k.particle_b, k.compression_length, k.rest_length, k.stiffness, k.stiffness,
                         inv_mass);
                break;
            }
            default:
                break;
        }
    }
}

Shape make_shape(const ShapeDesc& s, Arena& a) {
    Shape r;
    r.kind = s.kind;
    switch (s.kind) {
        case ShapeKind::sphere:
            r.p0 = {s.sphere.x, s.sphere.y, s.sphere.z, 0};
            r.r0 = s.sphere.w;
            break;
        case ShapeKind::plane:
            r.p0 = s.plane_equation;
            break;
        case ShapeKind::capsule:
        case ShapeKind::tapered_capsule: {
            const Float4& p0 = s.kind == ShapeKind::capsule ? s.start : s.small;
            const Float4& p1 = s.kind == ShapeKind::capsule ? s.end : s.big;
            r.p0 = {p0.x, p0.y, p0.z, 0};
            r.p1 = {p1.x, p1.y, p1.z, 0};
            r.r0 = s.kind == ShapeKind::capsule ? s.radius : s.small_radius;
            r.r1 = s.kind == ShapeKind::capsule ? s.radius : s.big_radius;
            const Float4 axis{r.p1.x - r.p0.x, r.p1.y - r.p0.y, r.p1.z - r.p0.z, 0};
            const float l2 = dot3(axis, axis);
            r.inv_axis_length_sq = l2 > 0 ? 1.0f / l2 : 0.0f;
            break;
        }
        case ShapeKind::convex_geometry: {
            Matrix4* t = a.take<Matrix4>(s.tetrahedra_count);
            if (t)
                for (uint32_t i = 0; i < s.tetrahedra_count; ++i) t[i] = s.tetrahedra_equations[i];
            r.tetrahedra = t;
            r.tetrahedra_count = s.tetrahedra_count;
            r.local_from_world = s.local_from_world;
            break;
        }
    }
    return r;
}

// The per-particle arrays, padded to whole lanes, and the cloth's scalars; filled when not measuring.
void layout_particles(const SimClothDesc& d, Arena& a, Setup& s, uint32_t padded, bool fill) {
    const uint32_t n = d.particle_count;
    s.particle_count = n;
    s.padded_count = padded;
    s.inv_mass = a.take<float>(padded);
    s.mass_share = a.take<float>(padded);
    s.radius = a.take<float>(padded);
    s.friction = a.take<float>(padded);
    s.collision_mask = a.take<uint32_t>(padded);
    s.dynamic_mask = a.take<uint32_t>(padded);
    s.rest_positions = a.take<Float4>(padded);
    s.gravity = d.gravity;
    s.gravity.w = 0;
    s.global_damping_per_second = d.global_damping_per_second;
    s.sub_steps = d.sub_steps;
    s.solve_iterations = d.solve_iterations;
    s.adapt_constraint_stiffness = d.adapt_constraint_stiffness;
    s.do_normals = d.do_normals;
    s.transform_count = d.transform_count;
    s.buffer_count = d.buffer_count;
    if (!fill) return;
    float total = d.total_mass;
    if (!(total > 0)) {
        total = 0;
        for (uint32_t i = 0; i < n; ++i) total += d.particles[i].mass;
    }
    const float inv_total = total > 0 ? 1.0f / total : 0.0f;
    for (uint32_t i = 0; i < n; ++i) {
        const ParticleDesc& p = d.particles[i];
        s.inv_mass[i] = p.inv_mass;
        s.mass_share[i] = p.mass * inv_total;
        s.radius[i] = p.radius;
        s.friction[i] = p.friction < 0 ? 0.0f : (p.friction > 1 ? 1.0f : p.friction);
        s.collision_mask[i] = d.collision_masks ? d.collision_masks[i] : ~0u;
        s.dynamic_mask[i] = p.inv_mass > 0 ? ~0u : 0u;
        s.rest_positions[i] = d.rest_positions[i];
    }
    // The largest |radius|, or -1 when some radius is not finite (collision then tests every lane).
    float max_abs = 0;
    for (uint32_t i = 0; i < n && max_abs >= 0; ++i) {
        const float r = std::fabs(d.particles[i].radius);
        max_abs = !(r <= std::numeric_limits<float>::max()) ? -1.0f : (r > max_abs ? r : max_abs);
    }
    s.max_radius = max_abs;
}

// Whether execution entry i is a link set that continues the run of the entry before it.
bool continues_link_run(const SimClothDesc& d, const Execution& ex, uint32_t i) {
    return i > 0 && ex.at(i - 1) >= 0 && is_link_kind(d.constraint_sets[ex.at(i - 1)].kind);
}

// How many sets of each kind the execution order runs (a run of link sets counts once): the
// sizes of the Setup's set arrays, taken before the sets themselves.
struct SetCounts {
    uint32_t runs = 0, bends = 0, ranges = 0, transitions = 0, volumes = 0;
};

SetCounts count_sets(const SimClothDesc& d, const Execution& ex) {
    SetCounts n;
    for (uint32_t i = 0; i < ex.count(); ++i) {
        const int32_t e = ex.at(i);
        if (e < 0) continue;
        const ConstraintKind k = d.constraint_sets[e].kind;
        if (is_link_kind(k)) {
            if (!continues_link_run(d, ex, i)) ++n.runs;
        } else if (k == ConstraintKind::bend_stiffness) ++n.bends;
        else if (k == ConstraintKind::local_range) ++n.ranges;
        else if (k == ConstraintKind::transition) ++n.transitions;
        else if (k == ConstraintKind::volume_mx) ++n.volumes;
    }
    return n;
}

// One run of link sets, execution entries [first, end): the sequential links, then (when
// filling) their schedule and its packed batches. `last_level` is the schedule scratch per
// particle, shared by the runs.
void layout_link_run(const SimClothDesc& d, const Execution& ex, uint32_t first, uint32_t end, uint32_t total, Arena& a, const Setup& s,
                     uint32_t* last_level, bool fill, LinkSchedule& ls) {
    take_links(a, ls.sequential, total);
    ls.sequential.count = total;
    // Slots: a padded sixteen-lane batch holds at least 12 links, an eight-lane one at
    // least 5, a four-lane one at least 2.
    const uint32_t capacity = 2 * total + 16;
    take_links(a, ls.links, capacity);
    ls.level_batches4 = a.take<uint32_t>(total + 1);
    ls.level_batches8 = a.take<uint32_t>(total + 1);
    ls.level_batches16 = a.take<uint32_t>(total + 1);
    ls.level_singles = a.take<uint32_t>(total + 1);
    ls.packed = a.take<uint32_t>(8 * size_t(capacity));
    ScheduleScratch sc;
    sc.pred_count = a.take<uint32_t>(total + 1);
    sc.next_a = a.take<uint32_t>(total + 1);
    sc.next_b = a.take<uint32_t>(total + 1);
    sc.height = a.take<uint32_t>(total + 1);
    sc.heap = a.take<uint32_t>(total + 1);
    sc.fifo_link = a.take<uint32_t>(total + 1);
    sc.fifo_time = a.take<uint32_t>(total + 1);
    sc.last = last_level;
    if (!fill) return;
    uint32_t at = 0;
    for (uint32_t j = first; j < end; ++j) fill_set_links(d.constraint_sets[ex.at(j)], ls.sequential, at, s.inv_mass);
    const uint32_t widest = d.link_batch_lanes ? d.link_batch_lanes : (widest_lanes() >= 16 ? 16u : 8u);
    schedule_links(ls, s.padded_count, s.particle_count, sc, widest);
    pack_schedule(ls);
}

// A level with at most this many four-able items runs them one by one: independent scalar items
// overlap in the core, where a padded eight-lane call computes eight lanes on one chain of
// dependent levels (a small cloth's bend levels hold one or two items).
constexpr size_t k_bend_single_max = 2;

// Bend stiffness: four weighted particles per constraint; the weighted inverse-mass sum is
// computed once here, in the order the step would. The items are stored in schedule order
// (BendStiffnessSet): by level, four independent items at a time; an item naming one particle
// twice runs alone, and so do the items of a level with at most k_bend_single_max of them.
void layout_bend_stiffness(const ConstraintSetDesc& c, Arena& a, const Setup& s, bool fill, BendStiffnessSet& b) {
    const uint32_t n = c.count;
    // Each item's level, and each level's items in file order, the batched ones first (in both
    // passes: the padding below sizes the arrays).
    std::vector<uint32_t> level(n), last(s.particle_count, 0);
    std::vector<uint8_t> alone(n, 0);
    uint32_t levels = 0;
    for (uint32_t j = 0; j < n; ++j) {
        const BendStiffnessDesc& k = c.bend_stiffness_links[j];
        const uint32_t p[4] = {k.particle_a, k.particle_b, k.particle_c, k.particle_d};
        uint32_t lv = 0;
        for (uint32_t q : p) lv = std::max(lv, last[q]);
        for (uint32_t q : p) last[q] = lv + 1;
        level[j] = lv;
        levels = std::max(levels, lv + 1);
        alone[j] = p[0] == p[1] || p[0] == p[2] || p[0] == p[3] || p[1] == p[2] || p[1] == p[3] || p[2] == p[3];
    }
    std::vector<uint32_t> fourable(levels, 0);
    for (uint32_t j = 0; j < n; ++j) fourable[level[j]] += !alone[j];
    std::vector<std::vector<uint32_t>> four(levels), one(levels);
    for (uint32_t j = 0; j < n; ++j) (alone[j] || fourable[level[j]] <= k_bend_single_max ? one : four)[level[j]].push_back(j);
    // A level's four-able items are padded to a multiple of eight with items that move nothing
    // (every particle the spare one past the cloth's, zero weights and inverse-mass sum: no lane
    // of them is live), so the eight-lane kernel takes every batch of the level two at a time (a
    // last four-item batch on four lanes cost about as much as a pair on eight).
    uint32_t padding = 0;
    for (uint32_t l = 0; l < levels; ++l) padding += (8 - uint32_t(four[l].size() % 8)) % 8;
    const uint32_t m = n + padding;
    b.count = n;
    b.stored = m;
    b.particles = a.take<uint32_t>(4 * size_t(m));
    b.weights = a.take<float>(4 * size_t(m));
    b.stiffness = a.take<float>(m);
    b.rest_curvature = a.take<float>(m);
    b.inv_mass_sum = a.take<float>(m);
    b.batch_weights = a.take<float>(4 * size_t(m));
    b.batch_inv_mass = a.take<float>(4 * size_t(m));
    b.file_order = a.take<uint32_t>(n);
    b.level_batches4 = a.take<uint32_t>(size_t(levels) + 1);
    b.level_singles = a.take<uint32_t>(size_t(levels) + 1);
    if (!fill) return;
    constexpr uint32_t k_pad = UINT32_MAX;
    std::vector<uint32_t> order;
    order.reserve(m);
    b.level_count = levels;
    for (uint32_t l = 0; l < levels; ++l) {
        while (four[l].size() % 8) four[l].push_back(k_pad);
        b.level_batches4[l] = uint32_t(four[l].size() / 4);
        b.level_singles[l] = uint32_t(one[l].size());
        order.insert(order.end(), four[l].begin(), four[l].end());
        order.insert(order.end(), one[l].begin(), one[l].end());
    }
    for (uint32_t at = 0; at < m; ++at) {
        const uint32_t j = order[at];
        if (j == k_pad) {
            for (int q = 0; q < 4; ++q) b.particles[4 * at + q] = s.particle_count, b.weights[4 * at + q] = 0.0f;
            b.stiffness[at] = b.rest_curvature[at] = b.inv_mass_sum[at] = 0.0f;
            continue;
        }
        b.file_order[j] = at;
        const BendStiffnessDesc& k = c.bend_stiffness_links[j];
        const uint32_t p[4] = {k.particle_a, k.particle_b, k.particle_c, k.particle_d};
        const float w[4] = {k.weight_a, k.weight_b, k.weight_c, k.weight_d};
        for (int q = 0; q < 4; ++q) {
            b.particles[4 * at + q] = p[q];
            b.weights[4 * at + q] = w[q];
        }
        float st = k.bend_stiffness;
        if (c.clamp_bend_stiffness) st = st < 0 ? 0.0f : (st > 1 ? 1.0f : st);
        b.stiffness[at] = st;
        b.rest_curvature[at] = k.rest_curvature;
        b.inv_mass_sum[at] = (((w[0] * w[0]) * s.inv_mass[p[0]] + (w[1] * w[1]) * s.inv_mass[p[1]]) + (w[2] * w[2]) * s.inv_mass[p[2]]) +
                             (w[3] * w[3]) * s.inv_mass[p[3]];
    }
    // The batches' lanes: each level's batches first, then its singles.
    uint32_t at = 0;
    for (uint32_t l = 0; l < levels; ++l) {
        for (uint32_t k = 0; k < b.level_batches4[l]; ++k, at += 4)
            for (uint32_t q = 0; q < 4; ++q)
                for (uint32_t lane = 0; lane < 4; ++lane) {
                    b.batch_weights[4 * size_t(at) + 4 * q + lane] = b.weights[4 * size_t(at + lane) + q];
                    b.batch_inv_mass[4 * size_t(at) + 4 * q + lane] = s.inv_mass[b.particles[4 * size_t(at + lane) + q]];
                }
        at += b.level_singles[l];
    }
}

void layout_local_range(const ConstraintSetDesc& c, Arena& a, const Setup& s, bool fill, LocalRangeSet& r) {
    r.count = c.count;
    r.particle = a.take<uint32_t>(c.count);
    r.vertex = a.take<uint32_t>(c.count);
    r.maximum_distance = a.take<float>(c.count);
    r.max_normal_distance = a.take<float>(c.count);
    r.min_normal_distance = a.take<float>(c.count);
    r.stiffness = c.stiffness;
    r.shape_type = c.shape_type;
    r.apply_normal_component = c.apply_normal_component;
    r.reference_buffer = c.reference_buffer;
    if (!fill) return;
    for (uint32_t j = 0; j < c.count; ++j) {
        const LocalRangeDesc& k = c.local_constraints[j];
        r.particle[j] = k.particle_index;
        r.vertex[j] = k.reference_vertex;
        r.maximum_distance[j] = k.maximum_distance;
        r.max_normal_distance[j] = k.max_normal_distance;
        r.min_normal_distance[j] = k.min_normal_distance;
    }
    std::vector<uint8_t> named(s.particle_count, 0);
    r.distinct = true;
    for (uint32_t j = 0; j < c.count && r.distinct; ++j) {
        const uint32_t i = r.particle[j];
        r.distinct = i < named.size() && !named[i];
        if (r.distinct) named[i] = 1;
    }
}

// `state_index`: the set's slot in an instance's per-transition-set state.
void layout_transition(const ConstraintSetDesc& c, Arena& a, uint32_t state_index, bool fill, TransitionSet& t) {
    t.count = c.count;
    t.particle = a.take<uint32_t>(c.count);
    t.vertex = a.take<uint32_t>(c.count);
    t.to_anim_delay = a.take<float>(c.count);
    t.to_sim_delay = a.take<float>(c.count);
    t.to_sim_max_distance = a.take<float>(c.count);
    t.to_anim_period = c.to_anim_period;
    t.to_anim_plus_delay_period = c.to_anim_plus_delay_period;
    t.to_sim_period = c.to_sim_period;
    t.to_sim_plus_delay_period = c.to_sim_plus_delay_period;
    t.reference_buffer = c.reference_buffer;
    t.state_index = state_index;
    if (!fill) return;
    for (uint32_t j = 0; j < c.count; ++j) {
        const TransitionDesc& k = c.transition_particles[j];
        t.particle[j] = k.particle_index;
        t.vertex[j] = k.reference_vertex;
        t.to_anim_delay[j] = k.to_anim_delay;
        t.to_sim_delay[j] = k.to_sim_delay;
        t.to_sim_max_distance[j] = k.to_sim_max_distance;
    }
}

// `state_index`: the set's slot in an instance's per-volume-set state.
void layout_volume(const ConstraintSetDesc& c, Arena& a, uint32_t state_index, bool fill, VolumeSet& v) {
    v.frame_count = c.frame_count;
    v.apply_count = c.apply_count;
    v.frame_vectors = a.take<Float4>(c.frame_count);
    v.frame_particles = a.take<uint32_t>(c.frame_count);
    v.frame_weights = a.take<float>(c.frame_count);
    v.apply_vectors = a.take<Float4>(c.apply_count);
    v.apply_particles = a.take<uint32_t>(c.apply_count);
    v.apply_stiffness = a.take<float>(c.apply_count);
    v.state_index = state_index;
    if (!fill) return;
    for (uint32_t j = 0; j < c.frame_count; ++j) {
        v.frame_vectors[j] = c.frame_datas[j].frame_vector;
        v.frame_particles[j] = c.frame_datas[j].particle_index;
        v.frame_weights[j] = c.frame_datas[j].weight_or_stiffness;
    }
    for (uint32_t j = 0; j < c.apply_count; ++j) {
        v.apply_vectors[j] = c.apply_datas[j].frame_vector;
        v.apply_particles[j] = c.apply_datas[j].particle_index;
        v.apply_stiffness[j] = c.apply_datas[j].weight_or_stiffness;
    }
}

void layout_collidables(const SimClothDesc& d, Arena& a, Setup& s, bool fill) {
    s.collidable_count = d.collidable_count;
    s.collidables = a.take<Collidable>(d.collidable_count);
    for (uint32_t i = 0; i < d.collidable_count; ++i) {
        const CollidableDesc& c = d.collidables[i];
        Shape shape = make_shape(c.shape, a);
        if (fill) {
            Collidable& o = s.collidables[i];
            o.shape = shape;
            o.bone = c.bone;
            o.offset = c.offset;
            o.initial_transform = c.transform;
            o.initial_linear_velocity = c.linear_velocity;
            o.initial_angular_velocity = c.angular_velocity;
            o.enabled = c.enabled;
        }
    }
}

// The passes in execution order (runs of link sets merge into one scheduled pass), each set's
// arrays taken as its pass comes. When measuring, the sets are laid out into a local and dropped:
// only the arena's size counts.
void layout_passes(const SimClothDesc& d, Arena& a, Setup& s, bool fill) {
    const Execution ex{d};
    const uint32_t max_passes = ex.count() + 1;
    s.passes = a.take<Pass>(max_passes);
    const SetCounts counts = count_sets(d, ex);
    s.link_runs = a.take<LinkSchedule>(counts.runs);
    s.bend_stiffness_sets = a.take<BendStiffnessSet>(counts.bends);
    s.local_range_sets = a.take<LocalRangeSet>(counts.ranges);
    s.transition_sets = a.take<TransitionSet>(counts.transitions);
    s.volume_sets = a.take<VolumeSet>(counts.volumes);
    uint32_t* last_level = a.take<uint32_t>(s.padded_count);  // schedule scratch (kept, as the others: they are small)

    uint32_t pass = 0, run = 0, bend = 0, range = 0, transition = 0, volume = 0;
    auto add_pass = [&](PassKind k, uint32_t index) {
        if (fill) s.passes[pass] = Pass{k, index};
        ++pass;
    };
    for (uint32_t i = 0; i < ex.count(); ++i) {
        const int32_t e = ex.at(i);
        if (e < 0) {
            add_pass(PassKind::collision, 0);
            continue;
        }
        const ConstraintSetDesc& c = d.constraint_sets[e];
        if (is_link_kind(c.kind)) {
            if (continues_link_run(d, ex, i)) continue;  // joined below
            uint32_t end = i, total = 0;
            while (end < ex.count() && ex.at(end) >= 0 && is_link_kind(d.constraint_sets[ex.at(end)].kind))
                total += link_count(d.constraint_sets[ex.at(end++)]);
            LinkSchedule tmp;
            layout_link_run(d, ex, i, end, total, a, s, last_level, fill, fill ? s.link_runs[run] : tmp);
            add_pass(PassKind::links, run++);
            continue;
        }
        switch (c.kind) {
            case ConstraintKind::bend_stiffness: {
                BendStiffnessSet tmp;
                layout_bend_stiffness(c, a, s, fill, fill ? s.bend_stiffness_sets[bend] : tmp);
                add_pass(PassKind::bend_stiffness, bend++);
                break;
            }
            case ConstraintKind::local_range: {
                LocalRangeSet tmp;
                layout_local_range(c, a, s, fill, fill ? s.local_range_sets[range] : tmp);
                add_pass(PassKind::local_range, range++);
                break;
            }
            case ConstraintKind::transition: {
                TransitionSet tmp;
                layout_transition(c, a, transition, fill, fill ? s.transition_sets[transition] : tmp);
                add_pass(PassKind::transition, transition++);
                break;
            }
            case ConstraintKind::volume_mx: {
                VolumeSet tmp;
                layout_volume(c, a, volume, fill, fill ? s.volume_sets[volume] : tmp);
                add_pass(PassKind::volume_mx, volume++);
                break;
            }
            default:
                break;
        }
    }
    if (!ex.has_collision()) add_pass(PassKind::collision, 0);
    s.pass_count = pass;
    s.link_run_count = counts.runs;
    s.bend_stiffness_set_count = counts.bends;
    s.local_range_set_count = counts.ranges;
    s.transition_set_count = counts.transitions;
    s.volume_set_count = counts.volumes;
}

// Lays out (and, when not measuring, fills) the whole setup, in the arena's order: particles,
// triangles, passes and their sets, collidables. Returns false when out of room.
bool layout(const SimClothDesc& d, Arena& a, Setup& s) {
    const bool fill = !a.measuring();
    const uint32_t padded = (d.particle_count + 1 + 3) & ~3u;  // at least one spare particle: the lane filler of link batches
    layout_particles(d, a, s, padded, fill);
    s.triangle_count = d.triangle_index_count / 3;
    s.triangles = a.take<uint32_t>(d.triangle_index_count);
    if (fill)
        for (uint32_t i = 0; i < d.triangle_index_count; ++i) s.triangles[i] = d.triangle_indices[i];
    s.normal_first = a.take<uint32_t>(size_t(d.particle_count) + 1);
    s.normal_triangles = a.take<uint32_t>(size_t(s.triangle_count) * 3);
    if (fill) {  // triangle indices are checked below the particle count
        const uint32_t corners = s.triangle_count * 3;
        for (uint32_t k = 0; k < corners; ++k) ++s.normal_first[s.triangles[k] + 1];
        for (uint32_t i = 0; i < d.particle_count; ++i) s.normal_first[i + 1] += s.normal_first[i];
        std::vector<uint32_t> at(s.normal_first, s.normal_first + d.particle_count);
        for (uint32_t k = 0; k < corners; ++k) s.normal_triangles[at[s.triangles[k]]++] = k / 3;
    }
    layout_passes(d, a, s, fill);
    layout_collidables(d, a, s, fill);
    return !a.overflowed();
}

}  // namespace

size_t setup_bytes(const SimClothDesc& desc) {
    Errors e{nullptr, 0};
    if (!validate(desc, e)) return 0;
    Arena a(nullptr, 0);
    a.take<Setup>(1);
    Setup s;
    layout(desc, a, s);
    return a.used() + 16;
}

const Setup* build_setup(const SimClothDesc& desc, void* memory, size_t size, char* error, size_t error_size) {
    Errors e{error, error_size};
    if (!validate(desc, e)) return nullptr;
    if (memory == nullptr || (reinterpret_cast<uintptr_t>(memory) & 15) != 0) {
        e.fail("setup memory must be 16-byte aligned");
        return nullptr;
    }
    Arena a(memory, size);
    Setup* s = a.take<Setup>(1);
    if (s == nullptr || !layout(desc, a, *s)) {
        e.fail("setup memory: %zu bytes, %zu needed", size, setup_bytes(desc));
        return nullptr;
    }
    s->bytes = a.used();
    return s;
}

}  // namespace drape::solver
