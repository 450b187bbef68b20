// drape runtime: the loader. Verifies the bytes with the schema's verifier (structure), then
// reads every cloth data into the runtime's model (model.h), checking every index the file
// stores against the count it indexes, once, so the operators need no checks at step time.
#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "drape/schema/verify.h"
#include "rt_c_api.h"
#include "rt_instance.h"
#include "rt_ops.h"

using namespace drape::rt;

namespace fb = drape::cloth_fb;

namespace {

struct LoadError {
    drape_result code = DRAPE_RESULT_OK;
    char message[DRAPE_ERROR_MESSAGE_SIZE] = {};
};

// A failed check: the path of the object (cloth data, operator / sim cloth), the field, the value
// and the bound it broke.
struct Loader {
    LoadError err;
    std::string where;  // e.g. "cloth_datas[0] 'Cloth' operators[3] 'Skin'"

    bool fail(drape_result code, const char* fmt, ...) {
        if (err.code != DRAPE_RESULT_OK) return false;
        err.code = code;
        char tail[200];
        va_list ap;
        va_start(ap, fmt);
        std::vsnprintf(tail, sizeof tail, fmt, ap);
        va_end(ap);
        std::snprintf(err.message, sizeof err.message, "%s: %s", where.c_str(), tail);
        return false;
    }
    // index < bound, or a BAD_INDEX error naming field, value and bound.
    bool index(uint64_t value, uint64_t bound, const char* field, size_t item = SIZE_MAX) {
        if (value < bound) return true;
        if (item == SIZE_MAX) return fail(DRAPE_RESULT_BAD_INDEX, "%s = %llu, not below %llu", field, (unsigned long long)value, (unsigned long long)bound);
        return fail(DRAPE_RESULT_BAD_INDEX, "%s[%zu] = %llu, not below %llu", field, item, (unsigned long long)value, (unsigned long long)bound);
    }
};

template <class T>
size_t size_of(const flatbuffers::Vector<T>* v) {
    return v ? v->size() : 0;
}

std::string str(const flatbuffers::String* s) { return s ? std::string(s->c_str(), s->size()) : std::string(); }

Mat4 mat(const fb::Mat4& m) {
    const fb::Vec4* c[4] = {&m.c0(), &m.c1(), &m.c2(), &m.c3()};
    Mat4 r;
    for (int k = 0; k < 4; ++k) r.m[k * 4] = c[k]->x(), r.m[k * 4 + 1] = c[k]->y(), r.m[k * 4 + 2] = c[k]->z(), r.m[k * 4 + 3] = c[k]->w();
    return r;
}

// Triangles an operator may read of buffer b: its stored ones, else (display) the engine's, at
// most num_triangles.
uint32_t triangle_capacity(const BufferDef& b) { return b.triangles.empty() ? b.num_triangles : uint32_t(b.triangles.size() / 3); }

uint8_t channel_streams(fb::VertexChannels c) {
    switch (c) {
        case fb::VertexChannels::P: return k_stream_p;
        case fb::VertexChannels::PN: return k_stream_p | k_stream_n;
        case fb::VertexChannels::PNT: return k_stream_p | k_stream_n | k_stream_t;
        case fb::VertexChannels::PNTB: return k_stream_p | k_stream_n | k_stream_t | k_stream_b;
    }
    return k_stream_p;
}

// Local vectors, packed ones decoded (exactly) at load.
void read_local(const flatbuffers::Vector<const fb::PackedVector3*>* packed, const flatbuffers::Vector<const fb::Vec4*>* plain, LocalStream& out) {
    if (size_of(packed)) {
        for (const fb::PackedVector3* v : *packed) {
            const int16_t w[4] = {v->x(), v->y(), v->z(), v->scale()};
            float o[3];
            unpack_vector3(w, o);
            out.x.push_back(o[0]), out.y.push_back(o[1]), out.z.push_back(o[2]), out.w.push_back(1.0f);
        }
    } else if (size_of(plain)) {
        for (const fb::Vec4* v : *plain) out.x.push_back(v->x()), out.y.push_back(v->y()), out.z.push_back(v->z()), out.w.push_back(v->w());
    }
}

// The deformer's blocks in processed order (control bytes). A control byte c names the group
// N = 4 - c for c in 0..3 (measured: in every Sekiro, Elden Ring and Bloodborne object-space and
// bone-space deformer of the corpus the counts of each c equal the counts of the N = 4 - c
// blocks); c 4..7 would be the 5..8-blend groups (no file has one).
bool read_deformer(Loader& L, const fb::Deformer* d, bool object_space, uint32_t out_vertices, uint32_t subset_size, DeformOp& op) {
    if (!d) return L.fail(DRAPE_RESULT_BAD_DATA, "deformer missing");
    std::vector<std::vector<const fb::BlendBlock*>> by_n(9);
    for (size_t i = 0; i < size_of(d->blocks()); ++i) {
        const fb::BlendBlock* b = d->blocks()->Get(uint32_t(i));
        const uint32_t n = b->blends();
        if (n < 1 || n > (object_space ? 8u : 4u)) return L.fail(DRAPE_RESULT_BAD_DATA, "deformer.blocks[%zu].blends = %u", i, n);
        by_n[n].push_back(b);
    }
    std::vector<size_t> next(9, 0);
    for (size_t k = 0; k < size_of(d->control_bytes()); ++k) {
        const uint32_t c = d->control_bytes()->Get(uint32_t(k));
        const uint32_t n = c <= 3 ? 4 - c : (c <= 7 ? c + 1 : 0);
        if (n == 0 || n >= by_n.size() || next[n] >= by_n[n].size()) continue;  // a batch marker, or no block left
        const fb::BlendBlock* b = by_n[n][next[n]++];
        DeformBlock blk{};
        blk.local = uint32_t(k);
        blk.blends = uint8_t(n);
        const size_t nv = size_of(b->vertex_indices()), nbones = size_of(b->bone_indices()), nw = size_of(b->bone_weights());
        const size_t want_v = object_space ? 16 : 16 / n;
        const size_t want_b = object_space ? 16 * n : want_v * n;
        if (nv != want_v || nbones != want_b || (object_space && n > 1 && nw != 16 * n))
            return L.fail(DRAPE_RESULT_BAD_DATA, "deformer block %zu (%u blends): %zu vertices, %zu bones, %zu weights", k, n, nv, nbones, nw);
        blk.vertex_count = uint8_t(nv);
        for (size_t j = 0; j < nv; ++j) {
            blk.vertices[j] = b->vertex_indices()->Get(uint32_t(j));
            if (!L.index(blk.vertices[j], out_vertices, "deformer vertex_indices", j)) return false;
        }
        for (size_t j = 0; j < nbones; ++j) {
            blk.bones[j] = b->bone_indices()->Get(uint32_t(j));
            if (!L.index(blk.bones[j], subset_size, "deformer bone_indices", j)) return false;
        }
        for (size_t j = 0; j < nw; ++j) blk.weights[j] = b->bone_weights()->Get(uint32_t(j));
        op.blocks.push_back(blk);
    }
    return true;
}

bool read_locals(Loader& L, const fb::LocalBlocks* lb, DeformOp& op) {
    if (!lb) return L.fail(DRAPE_RESULT_BAD_DATA, "local blocks missing");
    read_local(lb->packed_positions(), lb->positions(), op.local_p);
    read_local(lb->packed_normals(), lb->normals(), op.local_n);
    read_local(lb->packed_tangents(), lb->tangents(), op.local_t);
    read_local(lb->packed_bi_tangents(), lb->bi_tangents(), op.local_b);
    size_t need = 0;
    for (const DeformBlock& b : op.blocks) need = std::max<size_t>(need, size_t(b.local) * 16 + 16);
    if (op.local_p.x.size() < need) return L.fail(DRAPE_RESULT_BAD_DATA, "%zu local positions, the blocks need %zu", op.local_p.x.size(), need);
    // A stream the operator's channels name but the file lacks (or holds too few of) is not
    // written, and dropped: an empty stream is what every reader of the locals takes for absent.
    const std::pair<LocalStream*, uint8_t> streams[3] = {{&op.local_n, k_stream_n}, {&op.local_t, k_stream_t}, {&op.local_b, k_stream_b}};
    for (const auto& [ls, bit] : streams)
        if (ls->x.size() < need) {
            op.streams &= uint8_t(~bit);
            *ls = LocalStream();
        }
    return true;
}

// What every operator reader checks its indices against: the cloth's buffers and sim cloths
// (read before the operators) and its transform set.
struct OpScope {
    Loader& L;
    ClothModel& m;
    uint32_t transform_count;

    bool buffer(uint32_t i, const char* field) { return L.index(i, uint32_t(m.buffers.size()), field); }
    // One transform set per cloth data in every game file; the runtime runs that one.
    bool transform_set(uint32_t i, const char* field) { return L.index(i, transform_count ? 1 : 0, field); }
};

// Appends a loaded operator to the model's array of its kind; the operator names it by index.
template <class T>
bool emit(Operator& out, OpKind kind, std::vector<T>& list, T op) {
    out.kind = kind;
    out.payload = uint32_t(list.size());
    list.push_back(std::move(op));
    return true;
}

bool load_simulate(OpScope& c, const fb::SimulateOperator* s, Operator& out) {
    if (!c.L.index(s->sim_cloth_index(), c.m.sims.size(), "sim_cloth_index")) return false;
    if (size_of(s->configs()) == 0) return c.L.fail(DRAPE_RESULT_BAD_DATA, "simulate operator without a config");
    return emit(out, OpKind::simulate, c.m.simulates, SimulateOp{s->sim_cloth_index(), 0});
}

// Also marks the particles it sets as pinned in their sim cloth.
bool load_move_particles(OpScope& c, const fb::MoveParticlesOperator* s, Operator& out) {
    Loader& L = c.L;
    ClothModel& m = c.m;
    if (!L.index(s->sim_cloth_index(), m.sims.size(), "sim_cloth_index") || !c.buffer(s->ref_buffer_index(), "ref_buffer_index")) return false;
    MoveParticlesOp mp;
    mp.sim = s->sim_cloth_index();
    mp.ref_buffer = s->ref_buffer_index();
    const uint32_t nv = m.buffers[mp.ref_buffer].num_vertices, np = m.sims[mp.sim].particle_count;
    for (size_t i = 0; i < size_of(s->vertex_particle_pairs()); ++i) {
        const auto* p = s->vertex_particle_pairs()->Get(uint32_t(i));
        if (!L.index(p->vertex_index(), nv, "vertex_particle_pairs.vertex_index", i) ||
            !L.index(p->particle_index(), np, "vertex_particle_pairs.particle_index", i))
            return false;
        mp.vertices.push_back(p->vertex_index());
        mp.particles.push_back(p->particle_index());
        m.sims[mp.sim].pinned[p->particle_index()] = 1;
    }
    return emit(out, OpKind::move_particles, m.moves, std::move(mp));
}

bool load_copy_vertices(OpScope& c, const fb::CopyVerticesOperator* s, Operator& out) {
    const std::vector<BufferDef>& b = c.m.buffers;
    if (!c.buffer(s->input_buffer_index(), "input_buffer_index") || !c.buffer(s->output_buffer_index(), "output_buffer_index")) return false;
    CopyOp op{s->input_buffer_index(), s->output_buffer_index(), s->number_of_vertices(), s->start_vertex_in(), s->start_vertex_out(), s->copy_normals()};
    const uint64_t in_end = uint64_t(op.start_in) + op.count, out_end = uint64_t(op.start_out) + op.count;
    if (in_end > b[op.input_buffer].num_vertices || out_end > b[op.output_buffer].num_vertices)
        return c.L.fail(DRAPE_RESULT_BAD_INDEX, "copy of %u vertices from %u to %u leaves its buffers (%u, %u vertices)", op.count, op.start_in,
                        op.start_out, b[op.input_buffer].num_vertices, b[op.output_buffer].num_vertices);
    return emit(out, OpKind::copy_vertices, c.m.copies, op);
}

// Gather all: one input vertex per output vertex, negative for none (those are not gathered).
bool read_gather_all(OpScope& c, const fb::GatherAllVerticesOperator* s, GatherOp& g) {
    g.input_buffer = s->input_buffer_index(), g.output_buffer = s->output_buffer_index(), g.normals = s->gather_normals();
    if (!c.buffer(g.input_buffer, "input_buffer_index") || !c.buffer(g.output_buffer, "output_buffer_index")) return false;
    const uint32_t in_vertices = c.m.buffers[g.input_buffer].num_vertices, out_vertices = c.m.buffers[g.output_buffer].num_vertices;
    const auto* v = s->vertex_input_from_vertex_output();
    if (size_of(v) > out_vertices)
        return c.L.fail(DRAPE_RESULT_BAD_INDEX, "vertex_input_from_vertex_output has %zu entries, the output buffer %u vertices", size_of(v), out_vertices);
    for (size_t i = 0; i < size_of(v); ++i) {
        const int16_t iv = v->Get(uint32_t(i));
        if (iv < 0) continue;
        if (!c.L.index(uint32_t(iv), in_vertices, "vertex_input_from_vertex_output", i)) return false;
        g.inputs.push_back(uint16_t(iv));
        g.outputs.push_back(uint16_t(i));
    }
    return true;
}

// Gather some: explicit (input, output) vertex pairs.
bool read_gather_some(OpScope& c, const fb::GatherSomeVerticesOperator* s, GatherOp& g) {
    g.input_buffer = s->input_buffer_index(), g.output_buffer = s->output_buffer_index(), g.normals = s->gather_normals();
    if (!c.buffer(g.input_buffer, "input_buffer_index") || !c.buffer(g.output_buffer, "output_buffer_index")) return false;
    const uint32_t in_vertices = c.m.buffers[g.input_buffer].num_vertices, out_vertices = c.m.buffers[g.output_buffer].num_vertices;
    for (size_t i = 0; i < size_of(s->vertex_pairs()); ++i) {
        const auto* p = s->vertex_pairs()->Get(uint32_t(i));
        if (!c.L.index(p->index_input(), in_vertices, "vertex_pairs.index_input", i) ||
            !c.L.index(p->index_output(), out_vertices, "vertex_pairs.index_output", i))
            return false;
        g.inputs.push_back(p->index_input());
        g.outputs.push_back(p->index_output());
    }
    return true;
}

bool load_gather(OpScope& c, const fb::Operator* o, Operator& out) {
    GatherOp g;
    const bool all = o->data_type() == fb::OperatorData::GatherAllVerticesOperator;
    if (!(all ? read_gather_all(c, o->data_as_GatherAllVerticesOperator(), g) : read_gather_some(c, o->data_as_GatherSomeVerticesOperator(), g)))
        return false;
    return emit(out, all ? OpKind::gather_all : OpKind::gather_some, c.m.gathers, std::move(g));
}

bool load_convert(OpScope& c, const fb::Operator* o, Operator& out) {
    const bool input = o->data_type() == fb::OperatorData::InputConvertOperator;
    uint32_t user, shadow;
    if (input) {
        const auto* s = o->data_as_InputConvertOperator();
        user = s->user_buffer_index(), shadow = s->shadow_buffer_index();
    } else {
        const auto* s = o->data_as_OutputConvertOperator();
        user = s->user_buffer_index(), shadow = s->shadow_buffer_index();
    }
    if (!c.buffer(user, "user_buffer_index") || !c.buffer(shadow, "shadow_buffer_index")) return false;
    // As for a state's redirection (load_states): a shadow has its buffer's vertex count.
    const std::vector<BufferDef>& b = c.m.buffers;
    if (b[user].num_vertices != b[shadow].num_vertices)
        return c.L.fail(DRAPE_RESULT_BAD_DATA, "shadow buffer %u holds %u vertices, the user buffer %u it shadows %u", shadow, b[shadow].num_vertices, user,
                        b[user].num_vertices);
    return emit(out, input ? OpKind::input_convert : OpKind::output_convert, c.m.converts, input ? ConvertOp{user, shadow} : ConvertOp{shadow, user});
}

// The fields both vertex-frame operators store under the same names.
template <class S>
void read_frames_common(const S* s, VertexFramesOp& f) {
    f.buffer = s->buffer_index();
    f.num_normal_ids = s->num_unique_normal_ids();
    f.normals = s->update_normals();
    f.tangents = s->update_tangents();
    f.bitangents = s->update_bi_tangents();
    if (s->triangle_flips()) f.triangle_flips.assign(s->triangle_flips()->begin(), s->triangle_flips()->end());
    if (s->reference_vertices()) f.reference_vertices.assign(s->reference_vertices()->begin(), s->reference_vertices()->end());
    if (s->tangent_edge_cos_angle()) f.tangent_cos.assign(s->tangent_edge_cos_angle()->begin(), s->tangent_edge_cos_angle()->end());
    if (s->tangent_edge_sin_angle()) f.tangent_sin.assign(s->tangent_edge_sin_angle()->begin(), s->tangent_edge_sin_angle()->end());
    if (s->bi_tangent_flip()) f.bitangent_flip.assign(s->bi_tangent_flip()->begin(), s->bi_tangent_flip()->end());
}

void read_frames_all(const fb::UpdateAllVertexFramesOperator* s, VertexFramesOp& f) {
    read_frames_common(s, f);
    if (s->vert_to_normal_id()) f.vert_to_normal_id.assign(s->vert_to_normal_id()->begin(), s->vert_to_normal_id()->end());
}

void read_frames_some(const fb::UpdateSomeVertexFramesOperator* s, VertexFramesOp& f) {
    read_frames_common(s, f);
    f.some = true;
    for (size_t i = 0; i < size_of(s->involved_triangles()); ++i) {
        const auto* t = s->involved_triangles()->Get(uint32_t(i));
        f.triangles.push_back(t->a()), f.triangles.push_back(t->b()), f.triangles.push_back(t->c());
    }
    if (s->involved_vertices()) f.involved_vertices.assign(s->involved_vertices()->begin(), s->involved_vertices()->end());
    if (s->involved_vertex_to_normal_id()) f.involved_to_normal_id.assign(s->involved_vertex_to_normal_id()->begin(), s->involved_vertex_to_normal_id()->end());
    if (s->selection_vertex_to_involved_vertex())
        f.selection.assign(s->selection_vertex_to_involved_vertex()->begin(), s->selection_vertex_to_involved_vertex()->end());
}

// The normal-id count the arrays need (the stored num_unique_normal_ids is not trusted: drape's
// 2.0 exporter does not always fill it; every id is a u16, so the count is at most 65536).
// Update all without vert_to_normal_id: each vertex its own id.
bool count_normal_ids_all(OpScope& c, uint32_t nv, VertexFramesOp& f) {
    if (!f.vert_to_normal_id.empty() && f.vert_to_normal_id.size() != nv)
        return c.L.fail(DRAPE_RESULT_BAD_DATA, "vert_to_normal_id has %zu entries, the buffer %u vertices", f.vert_to_normal_id.size(), nv);
    uint32_t ids = 0;
    for (uint16_t id : f.vert_to_normal_id) ids = std::max(ids, uint32_t(id) + 1);
    f.num_normal_ids = f.vert_to_normal_id.empty() ? nv : ids;
    c.m.max_normal_ids = std::max(c.m.max_normal_ids, f.num_normal_ids);
    return true;
}

// Update some: ids per involved vertex (none stored: each involved vertex its own id); the
// triangles and the selection index the involved vertices.
bool count_normal_ids_some(OpScope& c, uint32_t nv, VertexFramesOp& f) {
    Loader& L = c.L;
    const uint32_t ni = uint32_t(f.involved_vertices.size());
    if (f.involved_to_normal_id.empty())
        for (uint32_t i = 0; i < ni; ++i) f.involved_to_normal_id.push_back(uint16_t(i));
    if (f.involved_to_normal_id.size() != ni)
        return L.fail(DRAPE_RESULT_BAD_DATA, "involved_vertex_to_normal_id has %zu entries for %u involved vertices", f.involved_to_normal_id.size(), ni);
    uint32_t ids = 0;
    for (size_t i = 0; i < ni; ++i) {
        if (!L.index(f.involved_vertices[i], nv, "involved_vertices", i)) return false;
        ids = std::max(ids, uint32_t(f.involved_to_normal_id[i]) + 1);
    }
    f.num_normal_ids = ids;
    for (size_t i = 0; i < f.triangles.size(); ++i)
        if (!L.index(f.triangles[i], ni, "involved_triangles (corner)", i)) return false;
    for (size_t i = 0; i < f.selection.size(); ++i)
        if (!L.index(f.selection[i], ni, "selection_vertex_to_involved_vertex", i)) return false;
    c.m.max_normal_ids = std::max(c.m.max_normal_ids, f.num_normal_ids);
    return true;
}

bool load_vertex_frames(OpScope& c, const fb::Operator* o, Operator& out) {
    VertexFramesOp f;
    const bool all = o->data_type() == fb::OperatorData::UpdateAllVertexFramesOperator;
    if (all)
        read_frames_all(o->data_as_UpdateAllVertexFramesOperator(), f);
    else
        read_frames_some(o->data_as_UpdateSomeVertexFramesOperator(), f);
    if (!c.buffer(f.buffer, "buffer_index")) return false;
    const uint32_t nv = c.m.buffers[f.buffer].num_vertices;
    if (!(all ? count_normal_ids_all(c, nv, f) : count_normal_ids_some(c, nv, f))) return false;
    for (size_t i = 0; i < f.reference_vertices.size(); ++i)
        if (!c.L.index(f.reference_vertices[i], nv, "reference_vertices", i)) return false;
    const size_t frames = all ? nv : f.selection.size();
    if (!all)
        for (uint16_t e : f.selection) f.entry_vertex.push_back(f.involved_vertices[e]), f.entry_id.push_back(f.involved_to_normal_id[e]);
    // Tangents need a reference vertex and an angle per frame entry; without them only normals.
    if (f.reference_vertices.size() < frames || f.tangent_cos.size() < frames || f.tangent_sin.size() < frames) f.tangents = false;
    if (f.bitangent_flip.size() < frames) f.bitangents = false;
    // The normal sums read from an index where the triangles are known now: the operator's own
    // (update some), the buffer's from the file (update all; a display buffer without them takes
    // the engine's at run time and scatters).
    const std::vector<uint16_t>& tris = c.m.buffers[f.buffer].triangles;
    bool in_range = true;
    if (all)
        for (uint16_t v : tris) in_range = in_range && v < nv;
    if (!all || (!tris.empty() && in_range)) {
        index_normal_sums(f, tris.data(), uint32_t(tris.size() / 3));
        c.m.max_frame_triangles = std::max(c.m.max_frame_triangles, uint32_t(f.id_triangles.size() / 3));
    }
    return emit(out, all ? OpKind::update_all_vertex_frames : OpKind::update_some_vertex_frames, c.m.frames, std::move(f));
}

bool load_simple_bone_deform(OpScope& c, const fb::SimpleMeshBoneDeformOperator* s, Operator& out) {
    Loader& L = c.L;
    SimpleBoneDeformOp d;
    d.input_buffer = s->input_buffer_index();
    d.transform_set = s->output_transform_set_index();
    if (!c.buffer(d.input_buffer, "input_buffer_index") || !c.transform_set(d.transform_set, "output_transform_set_index")) return false;
    const uint32_t tris = triangle_capacity(c.m.buffers[d.input_buffer]);
    const size_t np = size_of(s->triangle_bone_pairs());
    if (size_of(s->local_bone_transforms()) != np)
        return L.fail(DRAPE_RESULT_BAD_DATA, "%zu triangle bone pairs, %zu local bone transforms", np, size_of(s->local_bone_transforms()));
    for (size_t i = 0; i < np; ++i) {
        const auto* p = s->triangle_bone_pairs()->Get(uint32_t(i));
        // Byte offsets as the game stores them: 64 bytes per matrix, 6 bytes per triangle.
        if (p->bone_offset() % 64 || p->triangle_offset() % 6)
            return L.fail(DRAPE_RESULT_BAD_DATA, "triangle_bone_pairs[%zu]: offsets %u, %u are not whole matrices / triangles", i, unsigned(p->bone_offset()),
                          unsigned(p->triangle_offset()));
        const uint32_t bone = p->bone_offset() / 64u, tri = p->triangle_offset() / 6u;
        if (!L.index(bone, c.transform_count, "triangle_bone_pairs.bone_offset / 64", i) || !L.index(tri, tris, "triangle_bone_pairs.triangle_offset / 6", i))
            return false;
        d.bones.push_back(uint16_t(bone));
        d.triangles.push_back(uint16_t(tri));
        d.local.push_back(mat(*s->local_bone_transforms()->Get(uint32_t(i))));
        c.m.driven_bones.push_back(bone);
    }
    return emit(out, OpKind::simple_mesh_bone_deform, c.m.simple_bone_deforms, std::move(d));
}

// triangle_bone_start_for_bone: per transform of the set, its first pair (ascending); a
// transform with no pairs (start == next start) is not written. Leaves first_pair with 2 entries
// per driven bone, its pairs' [start, end).
bool read_bone_pair_ranges(OpScope& c, const flatbuffers::Vector<uint16_t>* st, size_t np, MeshBoneDeformOp& d) {
    const size_t nbones = size_of(st);
    if (nbones > c.transform_count)
        return c.L.fail(DRAPE_RESULT_BAD_INDEX, "triangle_bone_start_for_bone has %zu entries for %u transforms", nbones, c.transform_count);
    for (size_t b = 0; b < nbones; ++b) {
        const uint32_t first = st->Get(uint32_t(b));
        const uint32_t end = b + 1 < nbones ? st->Get(uint32_t(b + 1)) : uint32_t(np);
        if (first > end || end > np) return c.L.fail(DRAPE_RESULT_BAD_INDEX, "triangle_bone_start_for_bone[%zu] = %u (next %u, %zu pairs)", b, first, end, np);
        if (first == end) continue;
        d.bones.push_back(uint16_t(b));
        d.first_pair.push_back(first);
        c.m.driven_bones.push_back(uint32_t(b));
    }
    std::vector<uint32_t> range;
    for (size_t k = 0; k < d.bones.size(); ++k) {
        const uint32_t b = d.bones[k];
        range.push_back(d.first_pair[k]);
        range.push_back(b + 1 < nbones ? st->Get(b + 1) : uint32_t(np));
    }
    d.first_pair = std::move(range);
    return true;
}

bool load_mesh_bone_deform(OpScope& c, const fb::MeshBoneDeformOperator* s, Operator& out) {
    MeshBoneDeformOp d;
    d.input_buffer = s->input_buffer_index();
    d.transform_set = s->output_transform_set_index();
    if (!c.buffer(d.input_buffer, "input_buffer_index") || !c.transform_set(d.transform_set, "output_transform_set_index")) return false;
    const uint32_t tris = triangle_capacity(c.m.buffers[d.input_buffer]);
    const size_t np = size_of(s->triangle_bone_pairs());
    for (size_t i = 0; i < np; ++i) {
        const auto* p = s->triangle_bone_pairs()->Get(uint32_t(i));
        if (!c.L.index(p->triangle_index(), tris, "triangle_bone_pairs.triangle_index", i)) return false;
        d.pair_triangle.push_back(p->triangle_index());
        d.pair_weight.push_back(p->weight());
        d.pair_local.push_back(mat(p->local_bone_transform()));
    }
    if (!read_bone_pair_ranges(c, s->triangle_bone_start_for_bone(), np, d)) return false;
    return emit(out, OpKind::mesh_bone_deform, c.m.mesh_bone_deforms, std::move(d));
}

// What the four block deformers (skins and mesh-mesh deforms, object and bone space) store
// beside their own fields: the deformer, the local vectors and the subset the bone indices name.
struct DeformSource {
    const fb::Deformer* deformer = nullptr;
    const fb::LocalBlocks* local = nullptr;
    const flatbuffers::Vector<uint16_t>* subset = nullptr;
};

// The deformer's blocks and local vectors, once the subset is known; the scratch for composite
// matrices grows to the largest subset.
bool read_deform_blocks(OpScope& c, const DeformSource& src, bool object_space, DeformOp& d) {
    if (!read_deformer(c.L, src.deformer, object_space, c.m.buffers[d.output_buffer].num_vertices, uint32_t(d.subset.size()), d) ||
        !read_locals(c.L, src.local, d))
        return false;
    c.m.max_subset = std::max(c.m.max_subset, uint32_t(d.subset.size()));
    return true;
}

bool read_object_space_skin(OpScope& c, const fb::ObjectSpaceSkinOperator* s, DeformOp& d, DeformSource& src) {
    d.output_buffer = s->output_buffer_index(), d.transform_set = s->transform_set_index(), d.streams = channel_streams(s->channels());
    src = {s->deformer(), s->local(), s->transform_subset()};
    const size_t nbind = size_of(s->bone_from_skin_mesh_transforms());
    if (size_of(src.subset) && nbind != size_of(src.subset))
        return c.L.fail(DRAPE_RESULT_BAD_DATA, "%zu inverse binds for %zu transforms of the subset", nbind, size_of(src.subset));
    for (size_t i = 0; i < nbind; ++i) d.binds.push_back(mat(*s->bone_from_skin_mesh_transforms()->Get(uint32_t(i))));
    return true;
}

void read_bone_space_skin(const fb::BoneSpaceSkinOperator* s, DeformOp& d, DeformSource& src) {
    d.output_buffer = s->output_buffer_index(), d.transform_set = s->transform_set_index(), d.streams = channel_streams(s->channels());
    src = {s->deformer(), s->local(), s->transform_subset()};
}

bool load_skin(OpScope& c, const fb::Operator* o, Operator& out) {
    Loader& L = c.L;
    const bool object_space = o->data_type() == fb::OperatorData::ObjectSpaceSkinOperator;
    DeformOp d;
    DeformSource src;
    if (object_space) {
        if (!read_object_space_skin(c, o->data_as_ObjectSpaceSkinOperator(), d, src)) return false;
    } else {
        read_bone_space_skin(o->data_as_BoneSpaceSkinOperator(), d, src);
    }
    if (!c.buffer(d.output_buffer, "output_buffer_index") || !c.transform_set(d.transform_set, "transform_set_index")) return false;
    for (size_t i = 0; i < size_of(src.subset); ++i) {
        if (!L.index(src.subset->Get(uint32_t(i)), c.transform_count, "transform_subset", i)) return false;
        d.subset.push_back(src.subset->Get(uint32_t(i)));
    }
    if (d.subset.empty() && !d.binds.empty()) {
        // No subset stored: the inverse binds are those of transforms 0..n-1.
        if (d.binds.size() > c.transform_count) return L.fail(DRAPE_RESULT_BAD_INDEX, "%zu inverse binds, %u transforms", d.binds.size(), c.transform_count);
        for (size_t i = 0; i < d.binds.size(); ++i) d.subset.push_back(uint16_t(i));
    }
    if (!read_deform_blocks(c, src, object_space, d)) return false;
    return emit(out, object_space ? OpKind::object_space_skin : OpKind::bone_space_skin, c.m.deforms, std::move(d));
}

bool read_object_space_mesh_mesh(OpScope& c, const fb::ObjectSpaceMeshMeshDeformOperator* s, DeformOp& d, DeformSource& src) {
    d.input_buffer = s->input_buffer_index(), d.output_buffer = s->output_buffer_index(), d.streams = channel_streams(s->channels());
    d.scale_normal_behaviour = s->scale_normal_behaviour();
    src = {s->deformer(), s->local(), s->input_triangles_subset()};
    const size_t nbind = size_of(s->triangle_from_mesh_transforms());
    if (size_of(src.subset) && nbind != size_of(src.subset))
        return c.L.fail(DRAPE_RESULT_BAD_DATA, "%zu triangle-from-mesh transforms for %zu triangles of the subset", nbind, size_of(src.subset));
    for (size_t i = 0; i < nbind; ++i) d.binds.push_back(mat(*s->triangle_from_mesh_transforms()->Get(uint32_t(i))));
    return true;
}

void read_bone_space_mesh_mesh(const fb::BoneSpaceMeshMeshDeformOperator* s, DeformOp& d, DeformSource& src) {
    d.input_buffer = s->input_buffer_index(), d.output_buffer = s->output_buffer_index(), d.streams = channel_streams(s->channels());
    d.scale_normal_behaviour = s->scale_normal_behaviour();
    src = {s->deformer(), s->local(), s->input_triangles_subset()};
}

bool load_mesh_mesh_deform(OpScope& c, const fb::Operator* o, Operator& out) {
    Loader& L = c.L;
    const bool object_space = o->data_type() == fb::OperatorData::ObjectSpaceMeshMeshDeformOperator;
    DeformOp d;
    DeformSource src;
    if (object_space) {
        if (!read_object_space_mesh_mesh(c, o->data_as_ObjectSpaceMeshMeshDeformOperator(), d, src)) return false;
    } else {
        read_bone_space_mesh_mesh(o->data_as_BoneSpaceMeshMeshDeformOperator(), d, src);
    }
    if (!c.buffer(d.input_buffer, "input_buffer_index") || !c.buffer(d.output_buffer, "output_buffer_index")) return false;
    const uint32_t tris = triangle_capacity(c.m.buffers[d.input_buffer]);
    for (size_t i = 0; i < size_of(src.subset); ++i) {
        if (!L.index(src.subset->Get(uint32_t(i)), tris, "input_triangles_subset", i)) return false;
        d.subset.push_back(src.subset->Get(uint32_t(i)));
    }
    if (d.subset.empty()) {
        // No subset stored: the deformer's bone indices name the input buffer's triangles
        // (HD_M_3005: 16 triangle-from-mesh transforms for its 16 sim triangles).
        const size_t n = object_space ? d.binds.size() : tris;
        if (n > tris) return L.fail(DRAPE_RESULT_BAD_INDEX, "%zu triangle-from-mesh transforms, the input buffer has %u triangles", n, tris);
        for (size_t i = 0; i < n; ++i) d.subset.push_back(uint16_t(i));
    }
    if (!read_deform_blocks(c, src, object_space, d)) return false;
    if (object_space) lay_out_bind_lanes(d);
    return emit(out, object_space ? OpKind::object_space_mesh_mesh_deform : OpKind::bone_space_mesh_mesh_deform, c.m.deforms, std::move(d));
}

// The range [start_vertex, end_vertex] (inclusive) of the output buffer; the starts hold one
// entry per vertex of it plus one (every BB and DS3 operator of the corpus), ascending.
bool read_vertex_pair_starts(OpScope& c, const fb::MeshMeshDeformOperator* s, uint32_t nv, size_t np, MeshMeshDeform2014Op& d) {
    Loader& L = c.L;
    const uint32_t start = s->start_vertex(), end = s->end_vertex();
    const auto* starts = s->triangle_vertex_start_for_vertex();
    if (start > end) return L.fail(DRAPE_RESULT_BAD_DATA, "start_vertex %u after end_vertex %u", start, end);
    if (!L.index(end, nv, "end_vertex")) return false;
    if (size_of(starts) != size_t(end - start) + 2)
        return L.fail(DRAPE_RESULT_BAD_DATA, "triangle_vertex_start_for_vertex has %zu entries for vertices %u..%u (needs %u)", size_of(starts), start, end,
                      end - start + 2);
    d.start_vertex = start;
    for (size_t i = 0; i < size_of(starts); ++i) {
        const uint32_t f = starts->Get(uint32_t(i));
        if (f > np) return L.fail(DRAPE_RESULT_BAD_INDEX, "triangle_vertex_start_for_vertex[%zu] = %u, above the %zu pairs", i, f, np);
        if (i > 0 && f < d.first_pair.back()) return L.fail(DRAPE_RESULT_BAD_DATA, "triangle_vertex_start_for_vertex[%zu] = %u, below the entry before it", i, f);
        d.first_pair.push_back(f);
    }
    return true;
}

// Each pair's triangle, through the input triangle subset when there is one.
bool read_triangle_vertex_pairs(OpScope& c, const fb::MeshMeshDeformOperator* s, uint32_t tris, MeshMeshDeform2014Op& d) {
    const auto* subset = s->input_triangles_subset();
    const auto* pairs = s->triangle_vertex_pairs();
    for (size_t i = 0; i < size_of(pairs); ++i) {
        const auto* p = pairs->Get(uint32_t(i));
        uint32_t t = p->triangle_index();
        if (size_of(subset)) {
            if (!c.L.index(t, size_of(subset), "triangle_vertex_pairs.triangle_index (into input_triangles_subset)", i)) return false;
            t = subset->Get(t);
        } else if (!c.L.index(t, tris, "triangle_vertex_pairs.triangle_index", i)) {
            return false;
        }
        d.triangle.push_back(uint16_t(t));
        const fb::Vec4& lp = p->local_position();
        const fb::Vec4& ln = p->local_normal();
        d.local_p.insert(d.local_p.end(), {lp.x(), lp.y(), lp.z(), p->weight()});
        d.local_n.insert(d.local_n.end(), {ln.x(), ln.y(), ln.z(), 0.0f});
    }
    return true;
}

bool load_mesh_mesh_2014(OpScope& c, const fb::MeshMeshDeformOperator* s, Operator& out) {
    MeshMeshDeform2014Op d;
    d.input_buffer = s->input_buffer_index(), d.output_buffer = s->output_buffer_index();
    d.normals = s->deform_normals();
    if (!c.buffer(d.input_buffer, "input_buffer_index") || !c.buffer(d.output_buffer, "output_buffer_index")) return false;
    const uint32_t tris = triangle_capacity(c.m.buffers[d.input_buffer]);
    const uint32_t nv = c.m.buffers[d.output_buffer].num_vertices;
    const auto* subset = s->input_triangles_subset();
    for (size_t i = 0; i < size_of(subset); ++i)
        if (!c.L.index(subset->Get(uint32_t(i)), tris, "input_triangles_subset", i)) return false;
    const size_t np = size_of(s->triangle_vertex_pairs());
    // An empty operator writes nothing.
    if (size_of(s->triangle_vertex_start_for_vertex()) != 0 || np != 0) {
        if (!read_vertex_pair_starts(c, s, nv, np, d) || !read_triangle_vertex_pairs(c, s, tris, d)) return false;
    }
    index_frames(d, tris);
    c.m.max_subset = std::max(c.m.max_subset, uint32_t(d.frames.size()));
    return emit(out, OpKind::mesh_mesh_deform_2014, c.m.mesh_mesh_2014, std::move(d));
}

// One reader per operator kind; each checks every index it stores against what it indexes.
bool load_operator(Loader& L, const fb::Operator* o, ClothModel& m, Operator& out, uint32_t transform_count) {
    OpScope c{L, m, transform_count};
    switch (o->data_type()) {
        case fb::OperatorData::SimulateOperator: return load_simulate(c, o->data_as_SimulateOperator(), out);
        case fb::OperatorData::MoveParticlesOperator: return load_move_particles(c, o->data_as_MoveParticlesOperator(), out);
        case fb::OperatorData::CopyVerticesOperator: return load_copy_vertices(c, o->data_as_CopyVerticesOperator(), out);
        case fb::OperatorData::GatherAllVerticesOperator:
        case fb::OperatorData::GatherSomeVerticesOperator: return load_gather(c, o, out);
        case fb::OperatorData::InputConvertOperator:
        case fb::OperatorData::OutputConvertOperator: return load_convert(c, o, out);
        case fb::OperatorData::UpdateAllVertexFramesOperator:
        case fb::OperatorData::UpdateSomeVertexFramesOperator: return load_vertex_frames(c, o, out);
        case fb::OperatorData::SimpleMeshBoneDeformOperator: return load_simple_bone_deform(c, o->data_as_SimpleMeshBoneDeformOperator(), out);
        case fb::OperatorData::MeshBoneDeformOperator: return load_mesh_bone_deform(c, o->data_as_MeshBoneDeformOperator(), out);
        case fb::OperatorData::ObjectSpaceSkinOperator:
        case fb::OperatorData::BoneSpaceSkinOperator: return load_skin(c, o, out);
        case fb::OperatorData::ObjectSpaceMeshMeshDeformOperator:
        case fb::OperatorData::BoneSpaceMeshMeshDeformOperator: return load_mesh_mesh_deform(c, o, out);
        case fb::OperatorData::MeshMeshDeformOperator: return load_mesh_mesh_2014(c, o->data_as_MeshMeshDeformOperator(), out);
        default:
            // Unknown classes, empty slots: not run (listed by drape check).
            out.kind = OpKind::unsupported;
            return true;
    }
}

// The file collidables of each sim cloth (shape, the transform it follows), for the C API's listing.
bool load_collidables(Loader& L, const fb::ClothFile& root, const fb::ClothData* cd, ClothModel& m) {
    for (size_t s = 0; s < size_of(cd->sim_cloth_datas()) && s < m.sims.size(); ++s) {
        const auto* sd = cd->sim_cloth_datas()->Get(uint32_t(s));
        const auto* map = sd->collidable_transform_map();
        const bool follows = map && map->transform_set_index() >= 0;
        for (size_t k = 0; k < size_of(sd->collidables()); ++k) {
            const uint32_t ci = sd->collidables()->Get(uint32_t(k));
            if (!L.index(ci, size_of(root.collidables()), "sim collidables", k)) return false;
            const fb::Collidable* c = root.collidables()->Get(ci);
            CollidableInfo info;
            info.name = str(c->name());
            if (c->transform()) info.rest = mat(*c->transform());
            auto put = [](float* o, const fb::Vec4* v, float w) {
                if (v) o[0] = v->x(), o[1] = v->y(), o[2] = v->z();
                o[3] = w;
            };
            if (const auto* sp = c->shape_as_SphereShape()) {
                info.kind = DRAPE_SHAPE_SPHERE;
                put(info.a, sp->sphere(), sp->sphere() ? sp->sphere()->w() : 0.0f);
            } else if (const auto* pl = c->shape_as_PlaneShape()) {
                info.kind = DRAPE_SHAPE_PLANE;
                put(info.a, pl->plane_equation(), pl->plane_equation() ? pl->plane_equation()->w() : 0.0f);
            } else if (const auto* cp = c->shape_as_CapsuleShape()) {
                info.kind = DRAPE_SHAPE_CAPSULE;
                put(info.a, cp->start(), cp->radius());
                put(info.b, cp->end(), cp->radius());
            } else if (const auto* tc = c->shape_as_TaperedCapsuleShape()) {
                info.kind = DRAPE_SHAPE_TAPERED_CAPSULE;
                put(info.a, tc->small(), tc->small_radius());
                put(info.b, tc->big(), tc->big_radius());
            } else if (c->shape_as_ConvexGeometryShape()) {
                info.kind = DRAPE_SHAPE_CONVEX_GEOMETRY;
            }
            if (follows && k < size_of(map->transform_indices()) && k < size_of(map->offsets())) {
                info.transform = map->transform_indices()->Get(uint32_t(k));
                if (!L.index(info.transform, m.transform_count, "collidable_transform_map.transform_indices", k)) return false;
                info.offset = mat(*map->offsets()->Get(uint32_t(k)));
            }
            m.sims[s].collidables.push_back(std::move(info));
        }
    }
    return true;
}

// The first transform set (the one the runtime runs): its size, bone names and reference pose.
bool load_transform_set(Loader& L, const fb::ClothData* cd, ClothModel& m) {
    uint32_t transform_count = 0;
    if (size_of(cd->transform_set_definitions()) > 0) {
        const auto* ts = cd->transform_set_definitions()->Get(0);
        transform_count = ts->num_transforms();
        if (transform_count > 65536) return L.fail(DRAPE_RESULT_BAD_DATA, "transform_set_definitions[0].num_transforms = %u", transform_count);
        for (size_t i = 0; i < size_of(ts->bone_names()); ++i) m.bone_names.push_back(str(ts->bone_names()->Get(uint32_t(i))));
        if (!m.bone_names.empty() && m.bone_names.size() != transform_count)
            return L.fail(DRAPE_RESULT_BAD_DATA, "transform set: %zu bone names for %u transforms", m.bone_names.size(), transform_count);
        const size_t rest = size_of(ts->reference_pose());
        if (rest != 0 && rest != transform_count)
            return L.fail(DRAPE_RESULT_BAD_DATA, "transform set: %zu reference pose matrices for %u transforms", rest, transform_count);
        for (size_t i = 0; i < rest; ++i) m.rest_pose.push_back(mat(*ts->reference_pose()->Get(uint32_t(i))));
    }
    m.transform_count = transform_count;
    return true;
}

bool load_buffers(Loader& L, const fb::ClothData* cd, ClothModel& m) {
    for (size_t b = 0; b < size_of(cd->buffer_definitions()); ++b) {
        const auto* d = cd->buffer_definitions()->Get(uint32_t(b));
        BufferDef bd;
        bd.name = str(d->name());
        bd.kind = BufferKind(uint8_t(d->kind()) <= 4 ? uint8_t(d->kind()) : 0);
        bd.type = d->type();
        bd.num_vertices = d->num_vertices();
        bd.num_triangles = d->num_triangles();
        if (bd.num_vertices > 65536 || bd.num_triangles > (1u << 20))
            return L.fail(DRAPE_RESULT_BAD_DATA, "buffer_definitions[%zu]: %u vertices, %u triangles", b, bd.num_vertices, bd.num_triangles);
        if (d->display_binding()) bd.mesh_name = str(d->display_binding()->mesh_name());
        const auto* t = d->triangle_indices();
        if (size_of(t) % 3) return L.fail(DRAPE_RESULT_BAD_DATA, "buffer_definitions[%zu].triangle_indices: %zu indices, not whole triangles", b, size_of(t));
        for (size_t i = 0; i < size_of(t); ++i) {
            if (!L.index(t->Get(uint32_t(i)), bd.num_vertices, "buffer triangle_indices", i)) return false;
            bd.triangles.push_back(t->Get(uint32_t(i)));
        }
        m.buffers.push_back(std::move(bd));
    }
    return true;
}

// One constraint set's particle -> reference vertex pairs (local range constraints and
// transition data store them under the same names).
template <class Set, class Pairs>
bool read_reference_pairs(Loader& L, const ClothModel& m, const Set* set, const Pairs* pairs, const char* buffer_field, const char* particle_field,
                          const char* vertex_field, SimCloth& sc) {
    if (!L.index(set->reference_mesh_buffer_index(), m.buffers.size(), buffer_field)) return false;
    const uint32_t nv = m.buffers[set->reference_mesh_buffer_index()].num_vertices;
    for (size_t i = 0; i < size_of(pairs); ++i) {
        const auto* c = pairs->Get(uint32_t(i));
        if (!L.index(c->particle_index(), sc.particle_count, particle_field, i) || !L.index(c->reference_vertex(), nv, vertex_field, i)) return false;
        sc.reference_vertex[c->particle_index()] = c->reference_vertex();
    }
    sc.reference_buffer = set->reference_mesh_buffer_index();
    return true;
}

// Each particle's reference vertex (for reset): from the first local-range or transition set;
// and every buffer such a set reads.
bool load_reference_vertices(Loader& L, const ClothModel& m, const fb::SimClothData* sd, SimCloth& sc) {
    sc.reference_vertex.assign(sc.particle_count, 0xFFFF);
    for (size_t k = 0; k < size_of(sd->static_constraint_sets()); ++k) {
        const auto* cs = sd->static_constraint_sets()->Get(uint32_t(k));
        if (const auto* lr = cs->data_as_LocalRangeSet()) sc.read_buffers.push_back(lr->reference_mesh_buffer_index());
        else if (const auto* tr = cs->data_as_TransitionSet()) sc.read_buffers.push_back(tr->reference_mesh_buffer_index());
    }
    for (size_t k = 0; k < size_of(sd->static_constraint_sets()) && sc.reference_buffer == UINT32_MAX; ++k) {
        const auto* cs = sd->static_constraint_sets()->Get(uint32_t(k));
        if (const auto* lr = cs->data_as_LocalRangeSet()) {
            if (!read_reference_pairs(L, m, lr, lr->local_constraints(), "local range reference_mesh_buffer_index", "local_constraints.particle_index",
                                      "local_constraints.reference_vertex", sc))
                return false;
        } else if (const auto* tr = cs->data_as_TransitionSet()) {
            if (!read_reference_pairs(L, m, tr, tr->per_particle_data(), "transition reference_mesh_buffer_index", "per_particle_data.particle_index",
                                      "per_particle_data.reference_vertex", sc))
                return false;
        }
    }
    return true;
}

bool load_sim_cloth(Loader& L, const fb::SimClothData* sd, size_t s, const ClothModel& m, SimCloth& sc) {
    sc.name = str(sd->name());
    sc.particle_count = uint32_t(size_of(sd->particle_datas()));
    if (sc.particle_count > 65536) return L.fail(DRAPE_RESULT_BAD_DATA, "sim_cloth_datas[%zu]: %u particles", s, sc.particle_count);
    sc.rest_x.assign(sc.particle_count, 0), sc.rest_y.assign(sc.particle_count, 0), sc.rest_z.assign(sc.particle_count, 0);
    if (size_of(sd->sim_cloth_poses()) && sd->sim_cloth_poses()->Get(0)->positions()) {
        const auto* pos = sd->sim_cloth_poses()->Get(0)->positions();
        for (uint32_t i = 0; i < sc.particle_count && i < pos->size(); ++i)
            sc.rest_x[i] = pos->Get(i)->x(), sc.rest_y[i] = pos->Get(i)->y(), sc.rest_z[i] = pos->Get(i)->z();
    }
    sc.pinned.assign(sc.particle_count, 0);
    for (size_t i = 0; i < size_of(sd->fixed_particles()); ++i) {
        const uint16_t p = sd->fixed_particles()->Get(uint32_t(i));
        if (!L.index(p, sc.particle_count, "fixed_particles", i)) return false;
        sc.fixed.push_back(p);
    }
    if (!load_reference_vertices(L, m, sd, sc)) return false;
    for (size_t b = 0; b < m.buffers.size(); ++b)
        if (m.buffers[b].kind == BufferKind::display) {
            sc.root_buffer = uint32_t(b);
            break;
        }
    const auto* tri = sd->triangle_indices();
    if (size_of(tri) % 3) return L.fail(DRAPE_RESULT_BAD_DATA, "sim_cloth_datas[%zu].triangle_indices: %zu, not whole triangles", s, size_of(tri));
    for (size_t i = 0; i < size_of(tri); ++i) {
        if (!L.index(tri->Get(uint32_t(i)), sc.particle_count, "sim triangle_indices", i)) return false;
        sc.triangles.push_back(tri->Get(uint32_t(i)));
    }
    return true;
}

// The sim cloths' own buffers (type 1 positions, type 2 previous positions: the census of
// docs/havok-cloth.md of every file has them with the particle count and the sim's triangle
// count), and buffers without stored triangles that have a sim cloth's vertex and triangle counts
// (a display buffer drawn from the simulated mesh), take the sim cloth's triangles; the engine
// may still set a display buffer's own (drape_instance_set_buffer_triangles).
void bind_sim_buffers(ClothModel& m) {
    for (BufferDef& b : m.buffers) {
        for (size_t s = 0; s < m.sims.size(); ++s) {
            const SimCloth& sc = m.sims[s];
            if (b.num_vertices != sc.particle_count) continue;
            const bool same_triangles = b.num_triangles * 3 == sc.triangles.size();
            if ((b.type == 1 || b.type == 2) && b.sim < 0) {
                bool taken = false;
                for (const BufferDef& o : m.buffers) taken = taken || (&o != &b && o.sim == int32_t(s) && o.type == b.type);
                if (taken) continue;
                b.sim = int32_t(s);
                b.previous = b.type == 2;
            }
            if (b.triangles.empty() && same_triangles && !sc.triangles.empty() && (b.sim == int32_t(s) || b.kind == BufferKind::display)) {
                b.triangles = sc.triangles;
                break;
            }
        }
    }
}

bool load_operators(Loader& L, const fb::ClothData* cd, ClothModel& m) {
    for (size_t i = 0; i < size_of(cd->operators()); ++i) {
        const auto* o = cd->operators()->Get(uint32_t(i));
        Operator op;
        op.name = str(o->name());
        char where[160];
        std::snprintf(where, sizeof where, " operators[%zu] '%.60s'", i, op.name.c_str());
        const size_t keep = L.where.size();
        L.where += where;
        if (!load_operator(L, o, m, op, m.transform_count)) return false;
        L.where.resize(keep);
        m.operators.push_back(std::move(op));
    }
    return true;
}

bool load_states(Loader& L, const fb::ClothData* cd, ClothModel& m) {
    const size_t nops = size_of(cd->operators());
    for (size_t s = 0; s < size_of(cd->cloth_state_datas()); ++s) {
        const auto* st = cd->cloth_state_datas()->Get(uint32_t(s));
        State state;
        state.name = str(st->name());
        for (size_t i = 0; i < size_of(st->operators()); ++i) {
            const uint32_t oi = st->operators()->Get(uint32_t(i));
            if (!L.index(oi, nops, "cloth_state_datas operators", i)) return false;
            state.operators.push_back(oi);
        }
        state.buffer_map.resize(m.buffers.size());
        for (size_t b = 0; b < m.buffers.size(); ++b) state.buffer_map[b] = uint32_t(b);
        for (size_t i = 0; i < size_of(st->used_buffers()); ++i) {
            const auto* u = st->used_buffers()->Get(uint32_t(i));
            if (!L.index(u->buffer_index(), m.buffers.size(), "used_buffers.buffer_index", i) ||
                !L.index(u->shadow_buffer_index(), m.buffers.size(), "used_buffers.shadow_buffer_index", i))
                return false;
            // A shadow has the vertex count of the buffer it stands for (docs/havok-cloth.md "Display
            // buffers"). The operators' arrays are checked against the buffer they name, and they
            // run over the shadow: fewer vertices there would be written past, more would be read
            // by per-vertex arrays sized for the named buffer (normal ids, tangent angles).
            const uint32_t named = m.buffers[u->buffer_index()].num_vertices, shadow = m.buffers[u->shadow_buffer_index()].num_vertices;
            if (named != shadow)
                return L.fail(DRAPE_RESULT_BAD_DATA, "cloth_state_datas[%zu] used_buffers[%zu]: shadow buffer %u holds %u vertices, the buffer %u it shadows %u", s, i,
                              u->shadow_buffer_index(), shadow, u->buffer_index(), named);
            state.buffer_map[u->buffer_index()] = u->shadow_buffer_index();
        }
        m.states.push_back(std::move(state));
    }
    return true;
}

// The display skins of each input conversion (ConvertOp::display_skins): the `_Skin` state's
// skins of its user buffer, when the shadow holds every vertex they write.
void link_display_skins(ClothModel& m) {
    for (const State& st : m.states) {
        if (st.name != "_Skin") continue;
        for (const Operator& op : m.operators) {
            if (op.kind != OpKind::input_convert) continue;
            ConvertOp& c = m.converts[op.payload];
            if (m.buffers[c.to_buffer].num_vertices < m.buffers[c.from_buffer].num_vertices) continue;
            for (uint32_t oi : st.operators) {
                const Operator& skin = m.operators[oi];
                if ((skin.kind == OpKind::object_space_skin || skin.kind == OpKind::bone_space_skin) &&
                    m.deforms[skin.payload].output_buffer == c.from_buffer)
                    c.display_skins.push_back(oi);
            }
        }
    }
}

// In the file's order: the transform set, the buffers, the sim cloths (which index the buffers),
// the operators (which index both), the states (which index the operators).
bool load_cloth(Loader& L, const fb::ClothData* cd, ClothModel& m) {
    m.name = str(cd->name());
    if (!load_transform_set(L, cd, m) || !load_buffers(L, cd, m)) return false;
    for (size_t s = 0; s < size_of(cd->sim_cloth_datas()); ++s) {
        SimCloth sc;
        if (!load_sim_cloth(L, cd->sim_cloth_datas()->Get(uint32_t(s)), s, m, sc)) return false;
        m.sims.push_back(std::move(sc));
    }
    bind_sim_buffers(m);
    if (!load_operators(L, cd, m) || !load_states(L, cd, m)) return false;
    link_display_skins(m);
    plan_conversions(m);
    plan_shared_storage(m);
    std::sort(m.driven_bones.begin(), m.driven_bones.end());
    m.driven_bones.erase(std::unique(m.driven_bones.begin(), m.driven_bones.end()), m.driven_bones.end());
    return true;
}

}  // namespace

drape_cloth_file::~drape_cloth_file() {
    for (auto& s : setups)
        for (void* p : s.memory) ::operator delete(p, std::align_val_t(64));
}

// The solver's set-ups, one per simulate operator (solver_link.cpp; a no-op without the kernel).
bool drape_runtime_build_sim_setups(drape_cloth_file& file, const fb::ClothFile& root, char* error, size_t error_size);

extern "C" {

drape_result drape_cloth_file_load(const void* bytes, size_t size, drape_cloth_file** out, drape_error* error) {
    auto report = [&](drape_result code, const char* msg) {
        if (error) {
            error->code = code;
            std::snprintf(error->message, sizeof error->message, "%s", msg);
        }
        return code;
    };
    if (out) *out = nullptr;
    if (!out || (!bytes && size)) return report(DRAPE_RESULT_INVALID_ARGUMENT, "drape_cloth_file_load: null argument");
    const auto check = drape::schema::verify_cloth_file(bytes, size);
    if (!check.ok()) {
        using drape::schema::Status;
        const drape_result code = check.status == Status::unsupported_version ? DRAPE_RESULT_UNSUPPORTED_VERSION
                                  : check.status == Status::incomplete        ? DRAPE_RESULT_BAD_DATA
                                                                              : DRAPE_RESULT_NOT_CLOTH_FILE;
        return report(code, check.message);
    }
    auto load = [&]() -> drape_result {
        std::unique_ptr<drape_cloth_file> file(new (std::nothrow) drape_cloth_file());
        if (!file) return report(DRAPE_RESULT_OUT_OF_MEMORY, "drape_cloth_file_load: out of memory");
        Loader L;
        const fb::ClothFile* root = check.file;
        for (size_t c = 0; c < size_of(root->cloth_datas()); ++c) {
            char where[120];
            std::snprintf(where, sizeof where, "cloth_datas[%zu] '%.60s'", c, root->cloth_datas()->Get(uint32_t(c))->name() ? root->cloth_datas()->Get(uint32_t(c))->name()->c_str() : "");
            L.where = where;
            ClothModel m;
            if (!load_cloth(L, root->cloth_datas()->Get(uint32_t(c)), m) ||
                !load_collidables(L, *root, root->cloth_datas()->Get(uint32_t(c)), m))
                break;
            file->model.cloths.push_back(std::move(m));
        }
        if (L.err.code != DRAPE_RESULT_OK) return report(L.err.code, L.err.message);
        file->setups.resize(file->model.cloths.size());
        char msg[DRAPE_ERROR_MESSAGE_SIZE] = {};
        if (!drape_runtime_build_sim_setups(*file, *root, msg, sizeof msg)) return report(DRAPE_RESULT_BAD_DATA, msg);
        *out = file.release();
        if (error) error->code = DRAPE_RESULT_OK, error->message[0] = 0;
        return DRAPE_RESULT_OK;
    };
    return c_api_barrier(load, [&](drape_result code, const char* what) {
        char msg[DRAPE_ERROR_MESSAGE_SIZE];
        std::snprintf(msg, sizeof msg, "drape_cloth_file_load: %s", what);
        return report(code, msg);
    });
}

void drape_cloth_file_destroy(drape_cloth_file* file) { delete file; }

}  // extern "C"
