// drape runtime: instance creation (one allocation), the step (the state's operators in order)
// and the C API of instances.
#include "rt_instance.h"

#include "rt_c_api.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#if defined(__SSE__) || defined(_M_X64)
#include <xmmintrin.h>
#define DRAPE_HAVE_MXCSR 1
#endif

using namespace drape::rt;
namespace sv = drape::solver;

namespace {

drape_result fail(drape_instance* inst, drape_result r, const char* fmt, ...) {
    if (inst) {
        va_list ap;
        va_start(ap, fmt);
        std::vsnprintf(inst->error, sizeof inst->error, fmt, ap);
        va_end(ap);
    }
    return r;
}

void* default_alloc(void*, size_t size, size_t alignment) {
    // aligned_alloc needs a size that is a multiple of the alignment
    size = (size + alignment - 1) / alignment * alignment;
    return std::aligned_alloc(alignment, size ? size : alignment);
}
void default_free(void*, void* p) { std::free(p); }

// Two passes over the same layout: measure (base == nullptr) then carve.
struct Carver {
    uint8_t* base = nullptr;
    size_t offset = 0;
    template <class T>
    T* take(size_t count) {
        offset = (offset + 63) & ~size_t(63);
        T* p = base ? reinterpret_cast<T*>(base + offset) : nullptr;
        offset += count * sizeof(T);
        return p;
    }
};

const Mat4 k_identity = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};

// Lays out (and with c.base set, initialises) every array of the instance.
void layout(drape_instance& inst, Carver& c, uint32_t max_collidables, uint32_t max_winds) {
    const ClothModel& m = *inst.cloth;
    const bool fill = c.base != nullptr;
    const uint32_t nb = uint32_t(m.buffers.size()), ns = uint32_t(m.sims.size());
    inst.transforms.m = c.take<Mat4>(m.transform_count ? m.transform_count : 1);
    inst.transforms.count = m.transform_count;
    if (fill)
        for (uint32_t i = 0; i < m.transform_count; ++i) inst.transforms.m[i] = k_identity;
    inst.buffers = c.take<BufferData>(nb);
    inst.inputs = c.take<DisplayInput>(nb);
    inst.buffer_positions = c.take<const sv::Float4*>(nb ? nb : 1);
    inst.buffer_normals = c.take<const sv::Float4*>(nb ? nb : 1);
    for (uint32_t b = 0; b < nb; ++b) {
        const BufferDef& d = m.buffers[b];
        const size_t n4 = size_t(d.num_vertices) * 4;
        BufferData* bd = fill ? &inst.buffers[b] : nullptr;
        float* p = c.take<float>(n4);
        float* n = c.take<float>(n4);
        float* t = c.take<float>(n4);
        float* bt = c.take<float>(n4);
        uint16_t* tri = nullptr;
        if (d.kind == BufferKind::display || d.triangles.empty()) tri = c.take<uint16_t>(size_t(d.num_triangles) * 3);
        float* ip = nullptr, *in = nullptr, *it = nullptr;
        if (d.kind == BufferKind::display) ip = c.take<float>(n4), in = c.take<float>(n4), it = c.take<float>(n4);
        if (!fill) continue;
        new (bd) BufferData();
        bd->p = p, bd->n = n, bd->t = t, bd->b = bt;
        bd->count = d.num_vertices;
        std::memset(p, 0, n4 * sizeof(float));
        std::memset(n, 0, n4 * sizeof(float));
        std::memset(t, 0, n4 * sizeof(float));
        std::memset(bt, 0, n4 * sizeof(float));
        if (!d.triangles.empty()) {
            bd->triangles = d.triangles.data();
            bd->triangle_count = uint32_t(d.triangles.size() / 3);
        } else {
            std::memset(tri, 0, size_t(d.num_triangles) * 3 * sizeof(uint16_t));
            bd->triangles = tri;
            bd->triangle_count = 0;  // until the engine sets them
        }
        bd->world_from_mesh = bd->mesh_from_world = k_identity;
        new (&inst.inputs[b]) DisplayInput();
        inst.inputs[b].p = ip, inst.inputs[b].n = in, inst.inputs[b].t = it;
        inst.buffer_positions[b] = reinterpret_cast<const sv::Float4*>(p);
        inst.buffer_normals[b] = reinterpret_cast<const sv::Float4*>(n);
    }
    // A shadow that shares its user buffer's vertex arrays (ClothModel::storage_of) points at them;
    // its own stay allocated and unused (the instance's layout does not depend on the plan).
    if (fill)
        for (uint32_t b = 0; b < nb && b < m.storage_of.size(); ++b) {
            const uint32_t u = m.storage_of[b];
            if (u == b || u >= nb || m.buffers[u].num_vertices != m.buffers[b].num_vertices) continue;
            BufferData& bd = inst.buffers[b];
            bd.p = inst.buffers[u].p, bd.n = inst.buffers[u].n, bd.t = inst.buffers[u].t, bd.b = inst.buffers[u].b;
            inst.buffer_positions[b] = reinterpret_cast<const sv::Float4*>(bd.p);
            inst.buffer_normals[b] = reinterpret_cast<const sv::Float4*>(bd.n);
        }
    inst.sims = c.take<SimSlot>(ns ? ns : 1);
    const auto& setups = inst.file->setups[inst.cloth_index].setups;
    for (uint32_t s = 0; s < ns; ++s) {
        // The sim cloth's solver state comes from its first simulate operator's set-up.
        const sv::Setup* setup = nullptr;
        for (size_t k = 0; k < m.simulates.size(); ++k)
            if (m.simulates[k].sim == s && k < setups.size() && setups[k]) {
                setup = setups[k];
                break;
            }
        const uint32_t count = m.sims[s].particle_count;
        void* state_mem = nullptr;
        size_t state_size = 0;
        sv::Float4 *own_p = nullptr, *own_prev = nullptr;
        if (setup) {
            sv::StateOptions o;
            o.runtime_collidable_capacity = max_collidables;
            state_size = sv::state_bytes(*setup, o);
            state_mem = c.take<sv::Float4>((state_size + 15) / 16);
        }
        if (!setup) own_p = c.take<sv::Float4>(count ? count : 1), own_prev = c.take<sv::Float4>(count ? count : 1);
        sv::Float4 *ref_p = nullptr, *ref_n = nullptr;
        if (inst.flags & DRAPE_INSTANCE_RECORD_REFERENCE) ref_p = c.take<sv::Float4>(count ? count : 1), ref_n = c.take<sv::Float4>(count ? count : 1);
        if (!fill) continue;
        SimSlot& slot = inst.sims[s];
        new (&slot) SimSlot();
        if (ref_p) {
            const float nan = std::numeric_limits<float>::quiet_NaN();
            for (uint32_t i = 0; i < count; ++i) ref_p[i] = ref_n[i] = {nan, nan, nan, 0};
            slot.reference = ref_p, slot.reference_normal = ref_n;
        }
        slot.count = count;
        slot.setup = setup;
        if (setup) {
            sv::StateOptions o;
            o.runtime_collidable_capacity = max_collidables;
            slot.state = sv::build_state(*setup, o, state_mem, state_size);
            slot.positions = slot.state->positions;
            slot.previous = slot.state->previous_positions;
        }
        if (!setup) {
            slot.positions = own_p, slot.previous = own_prev;
            const SimCloth& sc = m.sims[s];
            for (uint32_t i = 0; i < count; ++i) {
                own_p[i] = {sc.rest_x[i], sc.rest_y[i], sc.rest_z[i], 0};
                own_prev[i] = own_p[i];
            }
        }
    }
    // The sim cloths' own buffers are their particles (positions / previous positions).
    if (fill)
        for (uint32_t b = 0; b < nb; ++b) {
            const BufferDef& d = m.buffers[b];
            if (d.sim < 0) continue;
            SimSlot& slot = inst.sims[d.sim];
            inst.buffers[b].p = reinterpret_cast<float*>(d.previous ? slot.previous : slot.positions);
            inst.buffer_positions[b] = reinterpret_cast<const sv::Float4*>(inst.buffers[b].p);
        }
    // Scratch: composite matrices for the largest subset, normal sums for the most normal ids.
    inst.scratch.matrices = c.take<Mat4>(m.max_subset ? m.max_subset : 1);
    inst.scratch.matrix_capacity = m.max_subset;
    for (int r = 0; r < 3; ++r) inst.scratch.accum[r] = c.take<float>(m.max_normal_ids ? m.max_normal_ids : 1);
    inst.scratch.accum_capacity = m.max_normal_ids;
    inst.scratch.triangle_normals = reinterpret_cast<float*>(c.take<sv::Float4>(size_t(m.max_frame_triangles) + 1));
    inst.scratch.triangle_capacity = m.max_frame_triangles;
    inst.collidable_capacity = max_collidables;
    inst.collidables = c.take<sv::RuntimeCollidable>(size_t(ns) * max_collidables + 1);
    inst.collidable_used = c.take<uint8_t>(size_t(ns) * max_collidables + 1);
    inst.collidable_active = c.take<sv::RuntimeCollidable>(size_t(max_collidables) + 1);
    inst.wind_capacity = max_winds;
    inst.winds = c.take<sv::WindField>(size_t(max_winds) + 1);
    inst.wind_active = c.take<sv::WindField>(size_t(max_winds) + 1);
    if (fill) {
        std::memset(inst.collidable_used, 0, size_t(ns) * max_collidables + 1);
        for (size_t i = 0; i < size_t(ns) * max_collidables + 1; ++i) new (&inst.collidables[i]) sv::RuntimeCollidable();
        for (size_t i = 0; i < size_t(max_winds) + 1; ++i) new (&inst.winds[i]) sv::WindField();
    }
}

// Saves the MXCSR and sets round to nearest, flush-to-zero on, denormals-are-zero off (docs/havok-cloth.md:
// the game thread's MXCSR holds 0x8000 in these bits); exception masks are left as they are.
struct FpEnvironment {
#if DRAPE_HAVE_MXCSR
    unsigned saved = 0;
    bool active = false;
    explicit FpEnvironment(bool keep) {
        if (keep) return;
        saved = _mm_getcsr();
        const unsigned k_rounding = 0x6000, k_daz = 0x0040, k_ftz = 0x8000;
        _mm_setcsr((saved & ~(k_rounding | k_daz)) | k_ftz);
        active = true;
    }
    ~FpEnvironment() {
        if (active) _mm_setcsr(saved);
    }
#else
    explicit FpEnvironment(bool) {}
#endif
};

sv::StepInputs step_inputs(drape_instance& inst, float dt, uint32_t sim) {
    sv::StepInputs in;
    in.dt = dt;
    in.transforms = reinterpret_cast<const sv::Matrix4*>(inst.transforms.m);
    in.transform_count = inst.transforms.count;
    in.buffer_positions = inst.buffer_positions;
    in.buffer_normals = inst.buffer_normals;
    in.buffer_count = uint32_t(inst.cloth->buffers.size());
    uint32_t nc = 0;
    for (uint32_t k = 0; k < inst.collidable_capacity; ++k) {
        const size_t slot = size_t(sim) * inst.collidable_capacity + k;
        if (inst.collidable_used[slot]) inst.collidable_active[nc++] = inst.collidables[slot];
    }
    in.runtime_collidables = inst.collidable_active;
    in.runtime_collidable_count = nc;
    uint32_t nw = 0;
    for (uint32_t k = 0; k < inst.wind_capacity; ++k)
        if (inst.winds[k].speed != 0) inst.wind_active[nw++] = inst.winds[k];
    in.wind_fields = inst.wind_active;
    in.wind_field_count = nw;
    if (inst.flags & DRAPE_INSTANCE_DEPENETRATE) in.depenetration_rounds = DRAPE_DEPENETRATION_ROUNDS;
    // Only the wind reads the particle normals, in the next step: run_state and teleport bring
    // them up to date where it will.
    in.defer_normals = true;
    return in;
}

// The particle normals the last step deferred, from its positions (nothing has moved them
// since): before anything moves them, where a step with wind may read them.
void update_due_normals(drape_instance& inst) {
    for (size_t s = 0; s < inst.cloth->sims.size(); ++s) {
        SimSlot& slot = inst.sims[s];
        if (slot.state && slot.setup) sv::update_normals(*slot.setup, *slot.state);
    }
}

bool wind_blows(const drape_instance& inst) {
    for (uint32_t k = 0; k < inst.wind_capacity; ++k)
        if (inst.winds[k].speed != 0) return true;
    return false;
}

// The buffer an operator naming `index` reaches in this state: the state's redirection (a display
// buffer to its shadow) for the vertices, the named buffer's triangles (docs/havok-cloth.md: neither the
// shadow nor the display definition stores triangles; they are the drawn mesh's).
BufferData buf(drape_instance& inst, const State& st, uint32_t index) {
    BufferData b = inst.buffers[st.buffer_map[index]];
    b.triangles = inst.buffers[index].triangles;
    b.triangle_count = inst.buffers[index].triangle_count;
    return b;
}

// DRAPE_INSTANCE_RECORD_REFERENCE: the sim's reference vertices as its simulate operator is
// about to read them (through the state's redirections).
void record_reference(drape_instance& inst, const State& st, uint32_t sim) {
    const SimCloth& sc = inst.cloth->sims[sim];
    SimSlot& slot = inst.sims[sim];
    if (sc.reference_buffer >= st.buffer_map.size()) return;
    const BufferData& b = inst.buffers[st.buffer_map[sc.reference_buffer]];
    for (uint32_t i = 0; i < slot.count && i < sc.reference_vertex.size(); ++i) {
        const uint32_t v = sc.reference_vertex[i];
        if (v == 0xFFFF || v >= b.count) continue;
        slot.reference[i] = {b.p[size_t(v) * 4], b.p[size_t(v) * 4 + 1], b.p[size_t(v) * 4 + 2], 0};
        if (b.n) slot.reference_normal[i] = {b.n[size_t(v) * 4], b.n[size_t(v) * 4 + 1], b.n[size_t(v) * 4 + 2], 0};
    }
}

// Whether the state itself runs the input conversion `c`'s display skins right after it (at
// positions pos + 1, ...), each writing the conversion's shadow: then the stand-in skin would
// compute the same vertices from the same transforms a moment earlier, and is skipped.
bool state_skins_next(const ClothModel& m, const State& st, size_t pos, const ConvertOp& c) {
    if (c.display_skins.empty()) return false;
    for (size_t q = 0; q < c.display_skins.size(); ++q) {
        const size_t next = pos + 1 + q;
        if (next >= st.operators.size() || st.operators[next] != c.display_skins[q]) return false;
        const DeformOp& d = m.deforms[m.operators[c.display_skins[q]].payload];
        if (d.output_buffer >= st.buffer_map.size() || st.buffer_map[d.output_buffer] != c.to_buffer) return false;
    }
    return true;
}

}  // namespace

namespace drape::rt {

void run_state(drape_instance& inst, float dt, bool skip_simulate) {
    const ClothModel& m = *inst.cloth;
    if (m.states.empty()) return;
    const State& st = m.states[inst.state];
    const bool exact = (inst.flags & DRAPE_INSTANCE_EXACT_RSQRT) != 0;
    (void)dt;
    if (!skip_simulate && wind_blows(inst)) update_due_normals(inst);
    // The buffers the solver reads through this state's redirections.
    for (size_t b = 0; b < m.buffers.size(); ++b) {
        inst.buffer_positions[b] = reinterpret_cast<const sv::Float4*>(inst.buffers[st.buffer_map[b]].p);
        inst.buffer_normals[b] = reinterpret_cast<const sv::Float4*>(inst.buffers[st.buffer_map[b]].n);
    }
    // The operators' notifyPreExecution pass: the simulate operators first (docs/havok-cloth.md "Sekiro").
    if (!skip_simulate)
        for (uint32_t oi : st.operators) {
            const Operator& op = m.operators[oi];
            if (op.kind != OpKind::simulate) continue;
            SimSlot& slot = inst.sims[m.simulates[op.payload].sim];
            if (slot.state && slot.setup) sv::notify(*slot.setup, *slot.state, step_inputs(inst, dt, m.simulates[op.payload].sim));
        }
    for (size_t pos = 0; pos < st.operators.size(); ++pos) {
        const Operator& op = m.operators[st.operators[pos]];
        switch (op.kind) {
            case OpKind::simulate: {
                if (skip_simulate) break;
                const uint32_t s = m.simulates[op.payload].sim;
                SimSlot& slot = inst.sims[s];
                if (slot.reference) record_reference(inst, st, s);
                if (slot.state && slot.setup) sv::simulate(*slot.setup, *slot.state, step_inputs(inst, dt, s));
                break;
            }
            case OpKind::move_particles: {
                const MoveParticlesOp& mp = m.moves[op.payload];
                SimSlot& slot = inst.sims[mp.sim];
                Particles p{reinterpret_cast<float*>(slot.positions), slot.count};
                run_move_particles(mp, buf(inst, st, mp.ref_buffer), p);
                // Pinned particles: previous = current, so no velocity and no rescale touches them.
                for (uint16_t q : mp.particles) slot.previous[q] = {slot.positions[q].x, slot.positions[q].y, slot.positions[q].z, slot.previous[q].w};
                break;
            }
            case OpKind::copy_vertices: {
                const CopyOp& c = m.copies[op.payload];
                BufferData out = buf(inst, st, c.output_buffer);
                run_copy_vertices(c, buf(inst, st, c.input_buffer), out);
                break;
            }
            case OpKind::gather_all:
            case OpKind::gather_some: {
                const GatherOp& g = m.gathers[op.payload];
                BufferData out = buf(inst, st, g.output_buffer);
                run_gather(g, buf(inst, st, g.input_buffer), out);
                break;
            }
            case OpKind::input_convert: {
                // The user buffer as the engine handed it (its skinned vertices when set).
                const ConvertOp& c = m.converts[op.payload];
                BufferData& to = inst.buffers[c.to_buffer];
                const DisplayInput& di = inst.inputs[c.from_buffer];
                BufferData from = inst.buffers[c.from_buffer];
                if (di.has_positions) from.p = di.p;
                if (di.has_normals) from.n = di.n;
                if (di.has_tangents) from.t = di.t;
                if (c.from_buffer != c.to_buffer)
                    run_convert(from, to, pos < st.convert_streams.size() ? st.convert_streams[pos] : uint8_t(k_stream_p | k_stream_n | k_stream_t | k_stream_b));
                // No vertices from the engine: the file's own skin of the mesh (its `_Skin` state)
                // stands in for the engine's, so the rest of the state reads the skinned mesh.
                // Where the state overwrites some of its vertices before reading them, skins
                // without those (plan_conversions).
                const uint32_t planned = pos < st.stand_in.size() ? st.stand_in[pos] : UINT32_MAX;
                if (!di.has_positions && c.from_buffer != c.to_buffer && !state_skins_next(m, st, pos, c))
                    for (size_t q = 0; q < c.display_skins.size(); ++q) {
                        const Operator& skin = m.operators[c.display_skins[q]];
                        const size_t copies = planned == UINT32_MAX ? 1 : 2;
                        for (size_t k = 0; k < copies; ++k) {
                            const DeformOp& d = planned == UINT32_MAX ? m.deforms[skin.payload] : m.stand_in_deforms[planned + 2 * q + k];
                            if (planned != UINT32_MAX && d.blocks.empty()) continue;  // a copy with no vertex left
                            if (skin.kind == OpKind::object_space_skin) run_object_space_skin(d, inst.transforms, to, inst.scratch);
                            else run_bone_space_skin(d, inst.transforms, to, inst.scratch);
                        }
                    }
                break;
            }
            case OpKind::output_convert: {
                const ConvertOp& c = m.converts[op.payload];
                if (c.from_buffer != c.to_buffer) run_convert(inst.buffers[c.from_buffer], inst.buffers[c.to_buffer]);
                break;
            }
            case OpKind::update_all_vertex_frames:
            case OpKind::update_some_vertex_frames: {
                const VertexFramesOp& f = m.frames[op.payload];
                BufferData b = buf(inst, st, f.buffer);
                run_vertex_frames(f, b, inst.scratch, m.buffers[f.buffer].triangles.empty() ? nullptr : m.buffers[f.buffer].triangles.data());
                break;
            }
            case OpKind::simple_mesh_bone_deform: {
                const SimpleBoneDeformOp& d = m.simple_bone_deforms[op.payload];
                run_simple_mesh_bone_deform(d, buf(inst, st, d.input_buffer), inst.transforms, exact);
                break;
            }
            case OpKind::mesh_bone_deform: {
                const MeshBoneDeformOp& d = m.mesh_bone_deforms[op.payload];
                run_mesh_bone_deform(d, buf(inst, st, d.input_buffer), inst.transforms, exact);
                break;
            }
            case OpKind::object_space_skin: {
                const DeformOp& d = m.deforms[op.payload];
                BufferData out = buf(inst, st, d.output_buffer);
                run_object_space_skin(d, inst.transforms, out, inst.scratch);
                break;
            }
            case OpKind::bone_space_skin: {
                const DeformOp& d = m.deforms[op.payload];
                BufferData out = buf(inst, st, d.output_buffer);
                run_bone_space_skin(d, inst.transforms, out, inst.scratch);
                break;
            }
            case OpKind::object_space_mesh_mesh_deform: {
                const DeformOp& d = m.deforms[op.payload];
                BufferData out = buf(inst, st, d.output_buffer);
                run_object_space_mesh_mesh_deform(d, buf(inst, st, d.input_buffer), out, inst.scratch);
                break;
            }
            case OpKind::bone_space_mesh_mesh_deform: {
                const DeformOp& d = m.deforms[op.payload];
                BufferData out = buf(inst, st, d.output_buffer);
                run_bone_space_mesh_mesh_deform(d, buf(inst, st, d.input_buffer), out, inst.scratch);
                break;
            }
            case OpKind::mesh_mesh_deform_2014: {
                const MeshMeshDeform2014Op& d = m.mesh_mesh_2014[op.payload];
                BufferData out = buf(inst, st, d.output_buffer);
                run_mesh_mesh_deform_2014(d, buf(inst, st, d.input_buffer), out, inst.scratch);
                break;
            }
            case OpKind::unsupported: break;
        }
    }
}

}  // namespace drape::rt

extern "C" {

const char* drape_runtime_version(void) { return DRAPE_RUNTIME_VERSION; }

drape_instance_def drape_default_instance_def(void) {
    drape_instance_def d;
    std::memset(&d, 0, sizeof d);
    d.max_runtime_collidables = 8;
    d.max_wind_fields = 4;
    d.cookie = DRAPE_INSTANCE_DEF_COOKIE;
    return d;
}

drape_result drape_instance_create(const drape_cloth_file* file, const drape_instance_def* def, drape_instance** out,
                                   drape_error* error) {
    auto report = [&](drape_result r, const char* msg) {
        if (error) {
            error->code = r;
            std::snprintf(error->message, sizeof error->message, "%s", msg);
        }
        return r;
    };
    // The user's allocator may be C++ that throws: the barrier keeps that inside.
    auto create = [&]() -> drape_result {
        if (out) *out = nullptr;
        if (!file || !def || !out) return report(DRAPE_RESULT_INVALID_ARGUMENT, "drape_instance_create: null argument");
        if (def->cookie != DRAPE_INSTANCE_DEF_COOKIE)
            return report(DRAPE_RESULT_INVALID_ARGUMENT, "drape_instance_create: def not from drape_default_instance_def");
        if (def->cloth >= file->model.cloths.size()) return report(DRAPE_RESULT_INVALID_ARGUMENT, "drape_instance_create: cloth index out of range");
        if (def->max_runtime_collidables > 1024 || def->max_wind_fields > 64)
            return report(DRAPE_RESULT_INVALID_ARGUMENT, "drape_instance_create: more than 1024 collidable or 64 wind slots");
        if ((def->allocator.alloc == nullptr) != (def->allocator.free == nullptr))
            return report(DRAPE_RESULT_INVALID_ARGUMENT, "drape_instance_create: allocator needs both alloc and free");
        drape_allocator a = def->allocator;
        if (!a.alloc) a.alloc = default_alloc, a.free = default_free, a.user = nullptr;

        drape_instance probe;
        probe.file = file;
        probe.cloth = &file->model.cloths[def->cloth];
        probe.cloth_index = def->cloth;
        probe.flags = def->flags;  // the layout depends on them
        Carver measure;
        measure.take<drape_instance>(1);
        layout(probe, measure, def->max_runtime_collidables, def->max_wind_fields);
        const size_t size = measure.offset;
        void* block = a.alloc(a.user, size, 64);
        if (!block) return report(DRAPE_RESULT_OUT_OF_MEMORY, "drape_instance_create: the allocator returned NULL");
        Carver carve;
        carve.base = static_cast<uint8_t*>(block);
        drape_instance* inst = new (carve.take<drape_instance>(1)) drape_instance();
        inst->file = file;
        inst->cloth = probe.cloth;
        inst->cloth_index = def->cloth;
        inst->flags = def->flags;
        inst->allocator = a;
        inst->block = block;
        inst->block_size = size;
        layout(*inst, carve, def->max_runtime_collidables, def->max_wind_fields);
        *out = inst;
        if (error) error->code = DRAPE_RESULT_OK, error->message[0] = 0;
        return DRAPE_RESULT_OK;
    };
    return c_api_barrier(create, [&](drape_result r, const char* what) {
        char msg[DRAPE_ERROR_MESSAGE_SIZE];
        std::snprintf(msg, sizeof msg, "drape_instance_create: %s", what);
        return report(r, msg);
    });
}

void drape_instance_destroy(drape_instance* inst) {
    if (!inst) return;
    drape_allocator a = inst->allocator;
    void* block = inst->block;
    inst->~drape_instance();
    a.free(a.user, block);
}

const char* drape_instance_error_message(const drape_instance* inst) { return inst ? inst->error : ""; }

drape_result drape_instance_set_transforms(drape_instance* inst, uint32_t first, uint32_t count, const float* matrices) {
    if (!inst || (!matrices && count)) return fail(inst, DRAPE_RESULT_INVALID_ARGUMENT, "set_transforms: null argument");
    if (first > inst->transforms.count || count > inst->transforms.count - first)
        return fail(inst, DRAPE_RESULT_INVALID_ARGUMENT, "set_transforms: transforms [%u, %u) outside the set's %u", first, first + count,
                    inst->transforms.count);
    std::memcpy(inst->transforms.m + first, matrices, size_t(count) * sizeof(Mat4));
    return DRAPE_RESULT_OK;
}

drape_result drape_instance_set_buffer_matrices(drape_instance* inst, uint32_t buffer, const float* wfm, const float* mfw) {
    if (!inst || !wfm) return fail(inst, DRAPE_RESULT_INVALID_ARGUMENT, "set_buffer_matrices: null argument");
    if (buffer >= inst->cloth->buffers.size())
        return fail(inst, DRAPE_RESULT_INVALID_ARGUMENT, "set_buffer_matrices: buffer %u of %zu", buffer, inst->cloth->buffers.size());
    BufferData& b = inst->buffers[buffer];
    std::memcpy(b.world_from_mesh.m, wfm, sizeof(Mat4));
    if (mfw) {
        std::memcpy(b.mesh_from_world.m, mfw, sizeof(Mat4));
    } else {
        // Affine inverse: R^T and -R^T t (rotation and uniform scale assumed orthogonal-ish: the
        // exact 3x3 inverse by cofactors).
        const float* m = wfm;
        const float a = m[0], bb = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6], k = m[10];
        const float A = e * k - f * h, B = -(d * k - f * g), C = d * h - e * g;
        const float det = (a * A + bb * B) + c * C;
        const float id = det != 0 ? 1.0f / det : 0.0f;
        float r[9] = {A * id, -(bb * k - c * h) * id, (bb * f - c * e) * id, B * id, (a * k - c * g) * id, -(a * f - c * d) * id,
                      C * id, -(a * h - bb * g) * id, (a * e - bb * d) * id};
        // r is row-major inverse; store as columns.
        float* o = b.mesh_from_world.m;
        for (int col = 0; col < 3; ++col)
            for (int row = 0; row < 3; ++row) o[col * 4 + row] = r[row * 3 + col];
        o[3] = o[7] = o[11] = 0;
        for (int row = 0; row < 3; ++row) o[12 + row] = -((r[row * 3] * m[12] + r[row * 3 + 1] * m[13]) + r[row * 3 + 2] * m[14]);
        o[15] = 1;
    }
    b.world_from_mesh_identity = is_identity(b.world_from_mesh);
    b.mesh_from_world_identity = is_identity(b.mesh_from_world);
    return DRAPE_RESULT_OK;
}

drape_result drape_instance_set_display_vertices(drape_instance* inst, uint32_t buffer, uint32_t count, const float* positions,
                                                 const float* normals, const float* tangents) {
    if (!inst || !positions) return fail(inst, DRAPE_RESULT_INVALID_ARGUMENT, "set_display_vertices: null argument");
    if (buffer >= inst->cloth->buffers.size() || inst->cloth->buffers[buffer].kind != BufferKind::display)
        return fail(inst, DRAPE_RESULT_INVALID_ARGUMENT, "set_display_vertices: buffer %u is not a display buffer", buffer);
    if (count != inst->cloth->buffers[buffer].num_vertices)
        return fail(inst, DRAPE_RESULT_INVALID_ARGUMENT, "set_display_vertices: %u vertices, the buffer has %u", count,
                    inst->cloth->buffers[buffer].num_vertices);
    DisplayInput& di = inst->inputs[buffer];
    auto put = [&](float* dst, const float* src) {
        for (uint32_t v = 0; v < count; ++v) dst[v * 4] = src[v * 3], dst[v * 4 + 1] = src[v * 3 + 1], dst[v * 4 + 2] = src[v * 3 + 2], dst[v * 4 + 3] = 0;
    };
    put(di.p, positions);
    di.has_positions = true;
    di.has_normals = normals != nullptr;
    if (normals) put(di.n, normals);
    di.has_tangents = tangents != nullptr;
    if (tangents) put(di.t, tangents);
    return DRAPE_RESULT_OK;
}

drape_result drape_instance_set_buffer_triangles(drape_instance* inst, uint32_t buffer, uint32_t count, const uint16_t* indices) {
    if (!inst || (!indices && count)) return fail(inst, DRAPE_RESULT_INVALID_ARGUMENT, "set_buffer_triangles: null argument");
    if (buffer >= inst->cloth->buffers.size())
        return fail(inst, DRAPE_RESULT_INVALID_ARGUMENT, "set_buffer_triangles: buffer %u of %zu", buffer, inst->cloth->buffers.size());
    const BufferDef& d = inst->cloth->buffers[buffer];
    if (!d.triangles.empty()) return fail(inst, DRAPE_RESULT_INVALID_ARGUMENT, "set_buffer_triangles: buffer %u has its own triangles", buffer);
    if (count > d.num_triangles)
        return fail(inst, DRAPE_RESULT_INVALID_ARGUMENT, "set_buffer_triangles: %u triangles, the buffer holds %u", count, d.num_triangles);
    for (uint32_t i = 0; i < count * 3; ++i)
        if (indices[i] >= d.num_vertices)
            return fail(inst, DRAPE_RESULT_INVALID_ARGUMENT, "set_buffer_triangles: index %u = %u, the buffer has %u vertices", i,
                        unsigned(indices[i]), d.num_vertices);
    BufferData& b = inst->buffers[buffer];
    std::memcpy(const_cast<uint16_t*>(b.triangles), indices, size_t(count) * 3 * sizeof(uint16_t));
    b.triangle_count = count;
    return DRAPE_RESULT_OK;
}

drape_result drape_instance_select_state(drape_instance* inst, uint32_t state) {
    if (!inst) return DRAPE_RESULT_INVALID_ARGUMENT;
    if (state >= inst->cloth->states.size())
        return fail(inst, DRAPE_RESULT_INVALID_ARGUMENT, "select_state: state %u of %zu", state, inst->cloth->states.size());
    inst->state = state;
    return DRAPE_RESULT_OK;
}

drape_result drape_instance_select_state_by_name(drape_instance* inst, const char* name) {
    if (!inst || !name) return fail(inst, DRAPE_RESULT_INVALID_ARGUMENT, "select_state_by_name: null argument");
    for (size_t s = 0; s < inst->cloth->states.size(); ++s)
        if (inst->cloth->states[s].name == name) {
            inst->state = uint32_t(s);
            return DRAPE_RESULT_OK;
        }
    return fail(inst, DRAPE_RESULT_NOT_FOUND, "select_state_by_name: no state named '%.120s'", name);
}

uint32_t drape_instance_state(const drape_instance* inst) { return inst ? inst->state : 0; }

drape_result drape_instance_set_collidable(drape_instance* inst, uint32_t sim, uint32_t slot, const drape_collidable* c) {
    if (!inst) return DRAPE_RESULT_INVALID_ARGUMENT;
    if (sim >= inst->cloth->sims.size() || slot >= inst->collidable_capacity)
        return fail(inst, DRAPE_RESULT_INVALID_ARGUMENT, "set_collidable: sim %u slot %u outside %zu sims x %u slots", sim, slot,
                    inst->cloth->sims.size(), inst->collidable_capacity);
    const size_t k = size_t(sim) * inst->collidable_capacity + slot;
    if (!c) {
        inst->collidable_used[k] = 0;
        return DRAPE_RESULT_OK;
    }
    sv::RuntimeCollidable& r = inst->collidables[k];
    r = sv::RuntimeCollidable();
    switch (c->kind) {
        case DRAPE_SHAPE_SPHERE:
            r.shape.kind = sv::ShapeKind::sphere;
            r.shape.sphere = {c->a[0], c->a[1], c->a[2], c->a[3]};
            break;
        case DRAPE_SHAPE_CAPSULE:
            r.shape.kind = sv::ShapeKind::capsule;
            r.shape.start = {c->a[0], c->a[1], c->a[2], 0};
            r.shape.end = {c->b[0], c->b[1], c->b[2], 0};
            r.shape.radius = c->a[3];
            break;
        case DRAPE_SHAPE_TAPERED_CAPSULE:
            r.shape.kind = sv::ShapeKind::tapered_capsule;
            r.shape.small = {c->a[0], c->a[1], c->a[2], 0};
            r.shape.big = {c->b[0], c->b[1], c->b[2], 0};
            r.shape.small_radius = c->a[3];
            r.shape.big_radius = c->b[3];
            break;
        default: return fail(inst, DRAPE_RESULT_INVALID_ARGUMENT, "set_collidable: shape kind %d", int(c->kind));
    }
    std::memcpy(&r.transform, c->transform, sizeof(float) * 16);
    r.linear_velocity = {c->linear_velocity[0], c->linear_velocity[1], c->linear_velocity[2], 0};
    r.angular_velocity = {c->angular_velocity[0], c->angular_velocity[1], c->angular_velocity[2], 0};
    r.enabled = c->enabled != 0;
    inst->collidable_used[k] = 1;
    return DRAPE_RESULT_OK;
}

drape_result drape_instance_set_wind(drape_instance* inst, uint32_t slot, const float direction[3], float speed) {
    if (!inst || !direction) return fail(inst, DRAPE_RESULT_INVALID_ARGUMENT, "set_wind: null argument");
    if (slot >= inst->wind_capacity) return fail(inst, DRAPE_RESULT_INVALID_ARGUMENT, "set_wind: slot %u of %u", slot, inst->wind_capacity);
    if (!std::isfinite(speed)) return fail(inst, DRAPE_RESULT_INVALID_ARGUMENT, "set_wind: speed is not finite");
    inst->winds[slot].direction = {direction[0], direction[1], direction[2], 0};
    inst->winds[slot].speed = speed;
    return DRAPE_RESULT_OK;
}

drape_result drape_instance_step(drape_instance* inst, float dt) {
    if (!inst) return DRAPE_RESULT_INVALID_ARGUMENT;
    if (!(dt > 0) || !std::isfinite(dt)) return fail(inst, DRAPE_RESULT_INVALID_ARGUMENT, "step: dt must be finite and > 0");
    return c_api_barrier(
        [&] {
            FpEnvironment env((inst->flags & DRAPE_INSTANCE_KEEP_FP_ENVIRONMENT) != 0);
            run_state(*inst, dt, false);
            return DRAPE_RESULT_OK;
        },
        [&](drape_result r, const char* what) { return fail(inst, r, "step: %s", what); });
}

namespace {
struct ManyStep {
    drape_instance* const* instances;
    float dt;
};
void step_range(uint32_t begin, uint32_t end, uint32_t, void* context) {
    const ManyStep& m = *static_cast<const ManyStep*>(context);
    for (uint32_t i = begin; i < end; ++i) {
        m.instances[i]->last_step = drape_instance_step(m.instances[i], m.dt);
        m.instances[i]->stepped = true;
    }
}
}  // namespace

drape_result drape_instances_step(drape_instance* const* instances, uint32_t count, float dt, const drape_task_system* tasks) {
    if (count && !instances) return DRAPE_RESULT_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < count; ++i)
        if (!instances[i]) return DRAPE_RESULT_INVALID_ARGUMENT;
    // One instance twice would be stepped twice at once. Each instance holds its index while the
    // list is checked (one pass, not a comparison of every pair: a host may step thousands), and
    // the marks are cleared before anything else happens.
    uint32_t repeat = UINT32_MAX, first = 0;
    for (uint32_t i = 0; i < count && repeat == UINT32_MAX; ++i) {
        if (instances[i]->batch_slot != UINT32_MAX) repeat = i, first = instances[i]->batch_slot;
        else instances[i]->batch_slot = i;
    }
    for (uint32_t i = 0; i < count; ++i) instances[i]->batch_slot = UINT32_MAX;
    if (repeat != UINT32_MAX) return fail(instances[repeat], DRAPE_RESULT_INVALID_ARGUMENT, "instances_step: instance %u is also instance %u", repeat, first);
    ManyStep m{instances, dt};
    for (uint32_t i = 0; i < count; ++i) instances[i]->stepped = false;
    if (tasks && tasks->enqueue && count > 1) {
        void* handle = tasks->enqueue(step_range, count, 1, &m, tasks->user);
        if (handle && tasks->finish) tasks->finish(handle, tasks->user);
    } else {
        step_range(0, count, 0, &m);
    }
    for (uint32_t i = 0; i < count; ++i) {
        if (!instances[i]->stepped) return fail(instances[i], DRAPE_RESULT_INVALID_ARGUMENT, "instances_step: the host's task system did not run instance %u", i);
        if (instances[i]->last_step != DRAPE_RESULT_OK) return instances[i]->last_step;
    }
    return DRAPE_RESULT_OK;
}

drape_result drape_instance_advance(drape_instance* inst, float seconds, float time_scale, float step_seconds, uint32_t max_steps,
                                   uint32_t* out_steps) {
    if (out_steps) *out_steps = 0;
    if (!inst) return DRAPE_RESULT_INVALID_ARGUMENT;
    if (!(seconds >= 0) || !std::isfinite(seconds) || !(time_scale >= 0) || !std::isfinite(time_scale) || !(step_seconds > 0) ||
        !std::isfinite(step_seconds))
        return fail(inst, DRAPE_RESULT_INVALID_ARGUMENT, "advance: seconds and time_scale must be finite and >= 0, step_seconds > 0");
    inst->accumulator += seconds * time_scale;
    uint32_t steps = 0;
    while (inst->accumulator >= step_seconds && steps < max_steps) {
        const drape_result r = drape_instance_step(inst, step_seconds);
        if (r != DRAPE_RESULT_OK) return r;
        inst->accumulator -= step_seconds;
        ++steps;
    }
    // A host that stalls (or a max_steps it cannot afford) drops the time it could not step,
    // rather than owing it to the next frames.
    if (inst->accumulator >= step_seconds) inst->accumulator = std::fmod(inst->accumulator, step_seconds);
    if (out_steps) *out_steps = steps;
    return DRAPE_RESULT_OK;
}

namespace {
// A saved state: this header, then the instance's block as it was. Pointers inside the block
// point into the block and into the file, so a state is restored only into the instance (and
// block) that saved it.
struct SavedStateHeader {
    char magic[8];
    const void* instance;
    const void* block;
    uint64_t block_size;
    uint32_t state;
    float accumulator;
};
constexpr char k_state_magic[8] = {'D', 'R', 'A', 'P', 'E', 'S', 'T', '1'};
}  // namespace

size_t drape_instance_state_size(const drape_instance* inst) { return inst ? sizeof(SavedStateHeader) + inst->block_size : 0; }

drape_result drape_instance_save_state(const drape_instance* inst, void* out, size_t capacity) {
    if (!inst || !out) return DRAPE_RESULT_INVALID_ARGUMENT;
    if (capacity < drape_instance_state_size(inst)) return DRAPE_RESULT_BUFFER_TOO_SMALL;
    SavedStateHeader h{};
    std::memcpy(h.magic, k_state_magic, sizeof h.magic);
    h.instance = inst, h.block = inst->block, h.block_size = inst->block_size, h.state = inst->state, h.accumulator = inst->accumulator;
    std::memcpy(out, &h, sizeof h);
    if (inst->block_size) std::memcpy(static_cast<unsigned char*>(out) + sizeof h, inst->block, inst->block_size);
    return DRAPE_RESULT_OK;
}

drape_result drape_instance_restore_state(drape_instance* inst, const void* saved, size_t size) {
    if (!inst || !saved) return fail(inst, DRAPE_RESULT_INVALID_ARGUMENT, "restore_state: null argument");
    SavedStateHeader h;
    if (size != drape_instance_state_size(inst)) return fail(inst, DRAPE_RESULT_INVALID_ARGUMENT, "restore_state: %zu bytes, this instance's state has %zu", size, drape_instance_state_size(inst));
    std::memcpy(&h, saved, sizeof h);
    if (std::memcmp(h.magic, k_state_magic, sizeof h.magic) != 0 || h.instance != inst || h.block != inst->block || h.block_size != inst->block_size)
        return fail(inst, DRAPE_RESULT_INVALID_ARGUMENT, "restore_state: not a state this instance saved");
    if (inst->block_size) std::memcpy(inst->block, static_cast<const unsigned char*>(saved) + sizeof h, inst->block_size);
    inst->state = h.state;
    inst->accumulator = h.accumulator;
    return DRAPE_RESULT_OK;
}

namespace {
// The state named prefix + the name of state `of` (no allocation), UINT32_MAX when none.
uint32_t companion_state(const ClothModel& m, const char* prefix, uint32_t of) {
    const std::string& base = m.states[of].name;
    const size_t n = std::strlen(prefix);
    for (size_t k = 0; k < m.states.size(); ++k) {
        const std::string& s = m.states[k].name;
        if (s.size() == n + base.size() && s.compare(0, n, prefix) == 0 && s.compare(n, base.size(), base) == 0) return uint32_t(k);
    }
    return UINT32_MAX;
}
// Whether state `k` copies, gathers or deforms into the positions (or, with `previous`, the
// previous positions) of sim cloth `sim`.
bool state_writes_particles(const ClothModel& m, uint32_t k, size_t sim, bool previous) {
    const State& st = m.states[k];
    for (uint32_t oi : st.operators) {
        const Operator& op = m.operators[oi];
        uint32_t out = UINT32_MAX;
        switch (op.kind) {
            case OpKind::copy_vertices: out = m.copies[op.payload].output_buffer; break;
            case OpKind::gather_all:
            case OpKind::gather_some: out = m.gathers[op.payload].output_buffer; break;
            case OpKind::object_space_mesh_mesh_deform:
            case OpKind::bone_space_mesh_mesh_deform: out = m.deforms[op.payload].output_buffer; break;
            case OpKind::mesh_mesh_deform_2014: out = m.mesh_mesh_2014[op.payload].output_buffer; break;
            default: break;
        }
        if (out >= m.buffers.size() || out >= st.buffer_map.size()) continue;
        const BufferDef& b = m.buffers[st.buffer_map[out]];
        if (b.sim == int32_t(sim) && b.previous == previous) return true;
    }
    return false;
}
}  // namespace

namespace {
// drape_instance_reset's body, run through the exception barrier.
drape_result reset_instance(drape_instance* inst) {
    if (!inst) return DRAPE_RESULT_INVALID_ARGUMENT;
    FpEnvironment env((inst->flags & DRAPE_INSTANCE_KEEP_FP_ENVIRONMENT) != 0);
    const ClothModel& m = *inst->cloth;
    // The files' own start from the animation: every corpus cloth data (DS3, BB, Sekiro, Elden
    // Ring) has, beside its simulated state S, the states "_preAtoS_" S (skin the display, gather
    // it into the previous positions) and "_curAtoS_" S (skin, gather into the particles). Run
    // both, so every particle starts on the skinned mesh of these transforms; the reference
    // buffer alone holds only what S's operators write (the pinned vertices of c5000's tail: its
    // free particles started at the bind pose, up to 1.5 m off under a clip).
    // A sim whose particles the _curAtoS_ state does not reach (Elden Ring c2030's skirt: its
    // gather writes a buffer of the other sim) starts where _preAtoS_ put its previous
    // positions, else on its reference vertices, as without them.
    uint32_t pre = UINT32_MAX, cur = UINT32_MAX;
    if (!m.states.empty()) {
        const uint32_t current = inst->state;
        pre = companion_state(m, "_preAtoS_", current);
        cur = companion_state(m, "_curAtoS_", current);
        if (pre != UINT32_MAX && cur != UINT32_MAX) {
            inst->state = pre;
            run_state(*inst, 1.0f / 30, true);
            inst->state = cur;
            run_state(*inst, 1.0f / 30, true);
            inst->state = current;
        } else {
            pre = cur = UINT32_MAX;
        }
    }
    run_state(*inst, 1.0f / 30, true);
    const State* st = m.states.empty() ? nullptr : &m.states[inst->state];
    for (size_t s = 0; s < m.sims.size(); ++s) {
        const SimCloth& sc = m.sims[s];
        SimSlot& slot = inst->sims[s];
        // Unpinned particles: where the _curAtoS_ gather put them, else their reference vertex,
        // else the rest pose through the root buffer.
        const BufferData* ref = (st && sc.reference_buffer != UINT32_MAX) ? &inst->buffers[st->buffer_map[sc.reference_buffer]] : nullptr;
        const BufferData* root = (sc.root_buffer != UINT32_MAX) ? &inst->buffers[sc.root_buffer] : nullptr;
        const bool gathered = cur != UINT32_MAX && state_writes_particles(m, cur, s, false);
        const bool gathered_previous = !gathered && pre != UINT32_MAX && state_writes_particles(m, pre, s, true);
        for (uint32_t i = 0; i < sc.particle_count && gathered_previous; ++i)
            if (!sc.pinned[i]) slot.positions[i] = {slot.previous[i].x, slot.previous[i].y, slot.previous[i].z, slot.positions[i].w};
        for (uint32_t i = 0; i < sc.particle_count && !gathered && !gathered_previous; ++i) {
            if (sc.pinned[i]) continue;  // the move-particles operators just placed it
            float o[3] = {sc.rest_x[i], sc.rest_y[i], sc.rest_z[i]};
            if (ref && sc.reference_vertex[i] != 0xFFFF) {
                const float* v = ref->p + size_t(sc.reference_vertex[i]) * 4;
                if (ref->world_from_mesh_identity) o[0] = v[0], o[1] = v[1], o[2] = v[2];
                else transform_point(ref->world_from_mesh, v[0], v[1], v[2], o);
            } else if (root && !root->world_from_mesh_identity) {
                transform_point(root->world_from_mesh, sc.rest_x[i], sc.rest_y[i], sc.rest_z[i], o);
            }
            slot.positions[i].x = o[0], slot.positions[i].y = o[1], slot.positions[i].z = o[2];
        }
        for (uint32_t i = 0; i < sc.particle_count; ++i) slot.previous[i] = slot.positions[i];
        if (slot.state && slot.setup) {
            // The solver's own bookkeeping (substep length, transitions) back to its start, at these positions.
            sv::reset_state(*slot.setup, *slot.state, slot.positions, reinterpret_cast<const sv::Matrix4*>(inst->transforms.m),
                            inst->transforms.count);
        }
    }
    return DRAPE_RESULT_OK;
}
}  // namespace

drape_result drape_instance_reset(drape_instance* inst) {
    if (inst) inst->accumulator = 0;
    return c_api_barrier([&] { return reset_instance(inst); },
                         [&](drape_result r, const char* what) { return fail(inst, r, "reset: %s", what); });
}

drape_result drape_instance_teleport(drape_instance* inst, const float* d) {
    if (!inst || !d) return fail(inst, DRAPE_RESULT_INVALID_ARGUMENT, "teleport: null argument");
    Mat4 m;
    std::memcpy(m.m, d, sizeof m.m);
    update_due_normals(*inst);  // as the step left them, before the positions move
    for (size_t s = 0; s < inst->cloth->sims.size(); ++s) {
        SimSlot& slot = inst->sims[s];
        for (uint32_t i = 0; i < slot.count; ++i) {
            float o[3];
            transform_point(m, slot.positions[i].x, slot.positions[i].y, slot.positions[i].z, o);
            slot.positions[i].x = o[0], slot.positions[i].y = o[1], slot.positions[i].z = o[2];
            transform_point(m, slot.previous[i].x, slot.previous[i].y, slot.previous[i].z, o);
            slot.previous[i].x = o[0], slot.previous[i].y = o[1], slot.previous[i].z = o[2];
        }
    }
    return DRAPE_RESULT_OK;
}

drape_result drape_instance_read_particles(const drape_instance* inst, uint32_t sim, float* out, size_t capacity) {
    if (!inst || !out) return DRAPE_RESULT_INVALID_ARGUMENT;
    if (sim >= inst->cloth->sims.size()) return DRAPE_RESULT_INVALID_ARGUMENT;
    const SimSlot& slot = inst->sims[sim];
    if (capacity < size_t(slot.count) * 3) return DRAPE_RESULT_BUFFER_TOO_SMALL;
    for (uint32_t i = 0; i < slot.count; ++i) out[i * 3] = slot.positions[i].x, out[i * 3 + 1] = slot.positions[i].y, out[i * 3 + 2] = slot.positions[i].z;
    return DRAPE_RESULT_OK;
}

drape_result drape_instance_read_reference(const drape_instance* inst, uint32_t sim, float* out, size_t capacity) {
    if (!inst || !out) return DRAPE_RESULT_INVALID_ARGUMENT;
    if (sim >= inst->cloth->sims.size()) return DRAPE_RESULT_INVALID_ARGUMENT;
    const SimSlot& slot = inst->sims[sim];
    if (!slot.reference) return DRAPE_RESULT_INVALID_ARGUMENT;
    if (capacity < size_t(slot.count) * 6) return DRAPE_RESULT_BUFFER_TOO_SMALL;
    for (uint32_t i = 0; i < slot.count; ++i) {
        const sv::Float4 &p = slot.reference[i], &n = slot.reference_normal[i];
        float* o = out + size_t(i) * 6;
        o[0] = p.x, o[1] = p.y, o[2] = p.z, o[3] = n.x, o[4] = n.y, o[5] = n.z;
    }
    return DRAPE_RESULT_OK;
}

drape_result drape_instance_read_collidable_transform(const drape_instance* inst, uint32_t sim, uint32_t collidable, float* out) {
    if (!inst || !out) return DRAPE_RESULT_INVALID_ARGUMENT;
    if (sim >= inst->cloth->sims.size()) return DRAPE_RESULT_INVALID_ARGUMENT;
    const SimSlot& slot = inst->sims[sim];
    if (!slot.state || collidable >= slot.state->collidable_count) return DRAPE_RESULT_INVALID_ARGUMENT;
    std::memcpy(out, &slot.state->collidables[collidable].world, 16 * sizeof(float));
    return DRAPE_RESULT_OK;
}

drape_result drape_instance_read_buffer(const drape_instance* inst, uint32_t buffer, drape_stream stream, float* out, size_t capacity) {
    if (!inst || !out) return DRAPE_RESULT_INVALID_ARGUMENT;
    if (buffer >= inst->cloth->buffers.size()) return DRAPE_RESULT_INVALID_ARGUMENT;
    const BufferData& b = inst->buffers[buffer];
    const float* s = stream == DRAPE_STREAM_POSITION ? b.p : stream == DRAPE_STREAM_NORMAL ? b.n : stream == DRAPE_STREAM_TANGENT ? b.t
                   : stream == DRAPE_STREAM_BITANGENT ? b.b : nullptr;
    if (!s) return DRAPE_RESULT_INVALID_ARGUMENT;
    if (capacity < size_t(b.count) * 3) return DRAPE_RESULT_BUFFER_TOO_SMALL;
    for (uint32_t v = 0; v < b.count; ++v) out[v * 3] = s[v * 4], out[v * 3 + 1] = s[v * 4 + 1], out[v * 3 + 2] = s[v * 4 + 2];
    return DRAPE_RESULT_OK;
}

drape_result drape_instance_read_transforms(const drape_instance* inst, uint32_t first, uint32_t count, float* out) {
    if (!inst || (!out && count)) return DRAPE_RESULT_INVALID_ARGUMENT;
    if (first > inst->transforms.count || count > inst->transforms.count - first) return DRAPE_RESULT_INVALID_ARGUMENT;
    std::memcpy(out, inst->transforms.m + first, size_t(count) * sizeof(Mat4));
    return DRAPE_RESULT_OK;
}

}  // extern "C"
