// drape runtime: what of an input conversion a state reads (its copy's streams, its stand-in
// skins' vertices).
//
// When the engine hands no display vertices, an input conversion runs the file's own skin of the
// mesh into the shadow (ConvertOp::display_skins), so that the vertices no later operator writes
// are the skinned mesh. Most of a cloth mesh's vertices are then written again by the state's
// mesh-mesh deform before anything reads them: skinning them is work nobody sees. This pass finds
// them once at load, per state, and keeps copies of the skins without them (and, for vertices
// whose positions are overwritten but whose normals or tangents are read, copies that write all
// but the positions; each copy blends only the streams some vertex of it reads). Likewise a stream of
// the conversion's copy that the state overwrites everywhere before reading (Sekiro's hair: its
// skin writes every vertex right after) is not copied.
//
// The pass walks the operators after the conversion in state order, per vertex of the shadow
// and per stream (position, normal, tangent, bitangent) the stand-in writes: a read makes the
// stream live, a write before any read makes it dead. Reads are taken broadly (an operator that
// reads a buffer reads every vertex and every stream it may), writes narrowly (only what the
// operator surely writes), and whatever is still undecided at the end of the state is live
// (the engine reads the buffers after the step). A vertex is left out only when every stream the
// stand-in writes is dead; its positions are left out when they are.
//
// A shadow that only ever stands for its user buffer between the pair's own conversions (below,
// plan_shared_storage) shares the user buffer's vertex arrays: its conversions' copies are then
// copies of an array onto itself, and are not made.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "rt_ops.h"

namespace drape::rt {
namespace {

constexpr uint8_t k_p = k_stream_p, k_n = k_stream_n, k_t = k_stream_t, k_b = k_stream_b;
constexpr uint8_t k_all_streams = k_p | k_n | k_t | k_b;

// The streams a skin or 2016+ mesh-mesh deform writes (object space writes bitangents too).
uint8_t deform_streams(const DeformOp& d, bool object_space) {
    uint8_t s = k_p;
    if ((d.streams & k_n) && !d.local_n.empty()) s |= k_n;
    if ((d.streams & k_t) && !d.local_t.empty()) s |= k_t;
    if (object_space && (d.streams & k_b) && !d.local_b.empty()) s |= k_b;
    return s;
}

bool object_space_kind(OpKind k) { return k == OpKind::object_space_skin || k == OpKind::object_space_mesh_mesh_deform; }

struct Walk {
    uint32_t target;               // the shadow the stand-in writes (its storage index)
    std::vector<uint8_t> pending;  // per vertex: streams the stand-in wrote, neither read nor overwritten yet
    std::vector<uint8_t> live;     // per vertex: streams something reads
    uint8_t unread = k_all_streams;  // streams no read has swept yet (a sweep clears them from pending)
    size_t* budget;                // steps left for the whole plan (a hostile file must not make load slow)
    bool spend(size_t steps) {
        if (*budget < steps) return false;
        *budget -= steps;
        return true;
    }
    bool read(uint32_t storage, uint8_t streams) {
        if (storage != target || (streams & unread) == 0) return true;
        if (!spend(pending.size())) return false;
        for (size_t v = 0; v < pending.size(); ++v) live[v] |= pending[v] & streams, pending[v] &= uint8_t(~streams);
        unread &= uint8_t(~streams);
        return true;
    }
    bool write(uint32_t storage, uint32_t v, uint8_t streams) {
        if (!spend(1)) return false;
        if (storage == target && v < pending.size()) pending[v] &= uint8_t(~streams);
        return true;
    }
    bool write_blocks(uint32_t storage, const DeformOp& d, uint8_t streams) {
        for (const DeformBlock& b : d.blocks)
            for (uint32_t j = 0; j < b.vertex_count; ++j)
                if (!write(storage, b.vertices[j], streams)) return false;
        return true;
    }
};

// One operator of the state: its reads, then its writes (an operator reads its inputs before it
// writes its outputs). False for an operator whose reads are unknown: everything is then live.
bool visit(const ClothModel& m, const State& st, const Operator& op, Walk& w) {
    auto at = [&](uint32_t buffer) { return buffer < st.buffer_map.size() ? st.buffer_map[buffer] : UINT32_MAX; };
    switch (op.kind) {
        case OpKind::simulate: {
            const uint32_t s = m.simulates[op.payload].sim;
            if (s >= m.sims.size()) return false;
            const SimCloth& sc = m.sims[s];
            for (uint32_t b : sc.read_buffers)
                if (!w.read(at(b), k_all_streams)) return false;
            return w.read(at(sc.reference_buffer), k_all_streams);
        }
        case OpKind::move_particles: return w.read(at(m.moves[op.payload].ref_buffer), k_all_streams);
        case OpKind::copy_vertices: {
            const CopyOp& c = m.copies[op.payload];
            if (!w.read(at(c.input_buffer), k_all_streams)) return false;
            const uint8_t s = c.normals ? k_all_streams : k_p;
            for (uint32_t k = 0; k < c.count; ++k)
                if (!w.write(at(c.output_buffer), c.start_out + k, s)) return false;
            return true;
        }
        case OpKind::gather_all:
        case OpKind::gather_some: {
            const GatherOp& g = m.gathers[op.payload];
            if (!w.read(at(g.input_buffer), k_all_streams)) return false;
            for (uint16_t o : g.outputs)
                if (!w.write(at(g.output_buffer), o, g.normals ? k_all_streams : k_p)) return false;
            return true;
        }
        case OpKind::input_convert: return w.read(m.converts[op.payload].from_buffer, k_all_streams);  // its writes: taken as none
        case OpKind::output_convert: return w.read(m.converts[op.payload].from_buffer, k_all_streams);
        case OpKind::update_all_vertex_frames:
        case OpKind::update_some_vertex_frames: {
            const VertexFramesOp& f = m.frames[op.payload];
            const uint32_t b = at(f.buffer);
            if (!w.read(b, f.normals ? k_p : uint8_t(k_p | k_n))) return false;  // positions, and the normals where it keeps the buffer's own
            const uint32_t entries = f.some ? uint32_t(f.selection.size()) : (f.buffer < m.buffers.size() ? m.buffers[f.buffer].num_vertices : 0);
            for (uint32_t k = 0; k < entries; ++k) {
                const uint32_t v = f.some ? f.involved_vertices[f.selection[k]] : k;
                uint8_t s = f.normals ? k_n : 0;
                if (f.tangents && k < f.reference_vertices.size()) s |= k_t;
                if (f.tangents && f.bitangents && k < f.reference_vertices.size() && k < f.bitangent_flip.size()) s |= k_b;
                if (!w.write(b, v, s)) return false;
            }
            return true;
        }
        case OpKind::simple_mesh_bone_deform: return w.read(at(m.simple_bone_deforms[op.payload].input_buffer), k_all_streams);
        case OpKind::mesh_bone_deform: return w.read(at(m.mesh_bone_deforms[op.payload].input_buffer), k_all_streams);
        case OpKind::object_space_skin:
        case OpKind::bone_space_skin: {
            const DeformOp& d = m.deforms[op.payload];
            return w.write_blocks(at(d.output_buffer), d, deform_streams(d, object_space_kind(op.kind)));
        }
        case OpKind::object_space_mesh_mesh_deform:
        case OpKind::bone_space_mesh_mesh_deform: {
            const DeformOp& d = m.deforms[op.payload];
            return w.read(at(d.input_buffer), k_all_streams) && w.write_blocks(at(d.output_buffer), d, deform_streams(d, object_space_kind(op.kind)));
        }
        case OpKind::mesh_mesh_deform_2014: {
            const MeshMeshDeform2014Op& d = m.mesh_mesh_2014[op.payload];
            if (!w.read(at(d.input_buffer), k_all_streams)) return false;
            for (size_t v = 0; v + 1 < d.first_pair.size(); ++v)
                if (d.first_pair[v] < d.first_pair[v + 1] && !w.write(at(d.output_buffer), d.start_vertex + uint32_t(v), d.normals ? uint8_t(k_p | k_n) : k_p))
                    return false;
            return true;
        }
        case OpKind::unsupported: return false;
    }
    return false;
}

// `d` without the vertices `keep` rejects: each kept vertex with its own bones, weights and
// local vectors, in block order. A vertex outside `keep` is kept.
DeformOp without(const DeformOp& d, bool object_space, const std::vector<uint8_t>& keep_of) {
    auto keep = [&](uint32_t v) { return v >= keep_of.size() || keep_of[v] != 0; };
    DeformOp out = d;
    out.blocks.clear();
    for (LocalStream* ls : {&out.local_p, &out.local_n, &out.local_t, &out.local_b}) ls->x.clear(), ls->y.clear(), ls->z.clear(), ls->w.clear();
    const LocalStream* from[4] = {&d.local_p, &d.local_n, &d.local_t, &d.local_b};
    LocalStream* to[4] = {&out.local_p, &out.local_n, &out.local_t, &out.local_b};
    for (const DeformBlock& b : d.blocks) {
        DeformBlock nb{};
        nb.local = uint32_t(out.blocks.size());
        nb.blends = b.blends;
        const uint32_t n = b.blends;
        const uint32_t per_vertex = object_space ? 1 : n;  // local vectors per vertex
        for (uint32_t j = 0; j < b.vertex_count; ++j) {
            if (!keep(b.vertices[j])) continue;
            const uint32_t k = nb.vertex_count++;
            nb.vertices[k] = b.vertices[j];
            for (uint32_t i = 0; i < n; ++i) nb.bones[k * n + i] = b.bones[j * n + i], nb.weights[k * n + i] = b.weights[j * n + i];
        }
        if (nb.vertex_count == 0) continue;
        // The block's 16 local vectors: the kept vertices' first, the rest zero (never read).
        for (int s = 0; s < 4; ++s) {
            if (from[s]->x.empty()) continue;
            const size_t base = size_t(b.local) * 16;
            uint32_t filled = 0;
            for (uint32_t j = 0; j < b.vertex_count; ++j) {
                if (!keep(b.vertices[j])) continue;
                for (uint32_t i = 0; i < per_vertex; ++i) {
                    const size_t src = base + size_t(j) * per_vertex + i;
                    to[s]->x.push_back(from[s]->x[src]), to[s]->y.push_back(from[s]->y[src]);
                    to[s]->z.push_back(from[s]->z[src]), to[s]->w.push_back(from[s]->w[src]);
                    ++filled;
                }
            }
            for (; filled < 16; ++filled) to[s]->x.push_back(0), to[s]->y.push_back(0), to[s]->z.push_back(0), to[s]->w.push_back(0);
        }
        out.blocks.push_back(nb);
    }
    return out;
}

// Whether operator `op` of state `st` reads or writes buffer `b` (after the state's
// redirections; conversions by their own indices, which are not redirected). An operator the
// runtime does not run touches nothing.
bool touches(const ClothModel& m, const State& st, const Operator& op, uint32_t b) {
    auto at = [&](uint32_t buffer) { return buffer < st.buffer_map.size() ? st.buffer_map[buffer] : UINT32_MAX; };
    switch (op.kind) {
        case OpKind::simulate: {
            const uint32_t s = m.simulates[op.payload].sim;
            if (s >= m.sims.size()) return true;
            const SimCloth& sc = m.sims[s];
            for (uint32_t r : sc.read_buffers)
                if (at(r) == b) return true;
            return at(sc.reference_buffer) == b;  // its own particle buffers are never shadows
        }
        case OpKind::move_particles: return at(m.moves[op.payload].ref_buffer) == b;
        case OpKind::copy_vertices: return at(m.copies[op.payload].input_buffer) == b || at(m.copies[op.payload].output_buffer) == b;
        case OpKind::gather_all:
        case OpKind::gather_some: return at(m.gathers[op.payload].input_buffer) == b || at(m.gathers[op.payload].output_buffer) == b;
        case OpKind::input_convert:
        case OpKind::output_convert: return m.converts[op.payload].from_buffer == b || m.converts[op.payload].to_buffer == b;
        case OpKind::update_all_vertex_frames:
        case OpKind::update_some_vertex_frames: return at(m.frames[op.payload].buffer) == b;
        case OpKind::simple_mesh_bone_deform: return at(m.simple_bone_deforms[op.payload].input_buffer) == b;
        case OpKind::mesh_bone_deform: return at(m.mesh_bone_deforms[op.payload].input_buffer) == b;
        case OpKind::object_space_skin:
        case OpKind::bone_space_skin: return at(m.deforms[op.payload].output_buffer) == b;
        case OpKind::object_space_mesh_mesh_deform:
        case OpKind::bone_space_mesh_mesh_deform: return at(m.deforms[op.payload].input_buffer) == b || at(m.deforms[op.payload].output_buffer) == b;
        case OpKind::mesh_mesh_deform_2014: return at(m.mesh_mesh_2014[op.payload].input_buffer) == b || at(m.mesh_mesh_2014[op.payload].output_buffer) == b;
        case OpKind::unsupported: return false;
    }
    return true;
}

// Whether shadow `s` of user buffer `u` may share u's vertex arrays: in every state that touches
// s, the state redirects u to s, its first operator touching u or s is the conversion u -> s, its
// last the conversion s -> u, and no other conversion names either. Then:
// - in such a state nothing reads or writes u between the two conversions (every operator naming
//   u reaches s), so u holds, while s is worked on, nothing anyone reads: where the arrays are
//   shared, u's last contents are lost only while nobody can see them, and at the output
//   conversion u is s in both layouts;
// - the input conversion makes s equal u in every stream the state reads before writing
//   (plan_conversions); the streams it does not copy are overwritten before they are read, so
//   what they held before does not matter;
// - states that do not touch s may write u (a skin state, another shadow's conversion): s, in
//   the separate layout stale and unread until the next input conversion, then shows u.
// Only an engine reading the shadow itself (drape_instance_read_buffer) between such states can
// tell the layouts apart: the shadow then shows its user buffer instead of its stale copy.
bool may_share(const ClothModel& m, uint32_t u, uint32_t s) {
    if (u == s || u >= m.buffers.size() || s >= m.buffers.size()) return false;
    const BufferDef &du = m.buffers[u], &ds = m.buffers[s];
    if (ds.kind != BufferKind::shadow || du.sim >= 0 || ds.sim >= 0 || du.num_vertices != ds.num_vertices) return false;
    for (const State& st : m.states) {
        if (st.buffer_map.size() != m.buffers.size()) return false;
        bool touches_s = false;
        for (uint32_t oi : st.operators) touches_s = touches_s || touches(m, st, m.operators[oi], s);
        if (!touches_s) continue;  // it may write u (a skin state, another shadow's conversion)
        if (st.buffer_map[u] != s) return false;
        size_t first = SIZE_MAX, last = SIZE_MAX;
        for (size_t pos = 0; pos < st.operators.size(); ++pos) {
            const Operator& op = m.operators[st.operators[pos]];
            if (!touches(m, st, op, u) && !touches(m, st, op, s)) continue;
            if (first == SIZE_MAX) first = pos;
            last = pos;
            if (op.kind == OpKind::input_convert || op.kind == OpKind::output_convert) {
                const ConvertOp& c = m.converts[op.payload];
                const bool own = op.kind == OpKind::input_convert ? (c.from_buffer == u && c.to_buffer == s) : (c.from_buffer == s && c.to_buffer == u);
                if (!own) return false;  // another conversion names u or s
            }
        }
        const Operator& a = m.operators[st.operators[first]];
        const Operator& z = m.operators[st.operators[last]];
        if (first == last || a.kind != OpKind::input_convert || z.kind != OpKind::output_convert) return false;
        for (size_t pos = first + 1; pos < last; ++pos) {  // one conversion each way
            const Operator& op = m.operators[st.operators[pos]];
            if ((op.kind == OpKind::input_convert || op.kind == OpKind::output_convert) && (touches(m, st, op, u) || touches(m, st, op, s))) return false;
        }
    }
    return true;
}

}  // namespace

void plan_shared_storage(ClothModel& m) {
    m.storage_of.resize(m.buffers.size());
    for (uint32_t b = 0; b < m.buffers.size(); ++b) m.storage_of[b] = b;
    for (const ConvertOp& c : m.converts) {
        const uint32_t u = c.from_buffer, s = c.to_buffer;  // as an input conversion names them
        if (u >= m.buffers.size() || s >= m.buffers.size() || m.storage_of[s] != s || m.storage_of[u] != u) continue;
        if (m.buffers[u].kind == BufferKind::shadow) continue;  // an output conversion: its pair's input names it
        bool shadow_elsewhere = false;  // s is the shadow of one user buffer only
        for (const ConvertOp& o : m.converts)
            shadow_elsewhere |= (o.from_buffer == s && o.to_buffer != u) || (o.to_buffer == s && o.from_buffer != u);
        if (!shadow_elsewhere && may_share(m, u, s)) m.storage_of[s] = u;
    }
}

void plan_conversions(ClothModel& m) {
    m.stand_in_deforms.clear();
    // A bound on the plan's work (vertex sweeps and writes): far above any real cloth's (tens of
    // thousands), far below what makes a load slow.
    size_t budget = size_t(1) << 26;
    // And on the copies' vertices: four times the file's own deform vertices (a state or two of
    // copies per skin in real files; a hostile file naming one big skin from thousands of states
    // gets its first few planned).
    size_t copies = 4096;
    for (const DeformOp& d : m.deforms)
        for (const DeformBlock& b : d.blocks) copies += size_t(b.vertex_count) * 4;
    for (State& st : m.states) {
        st.stand_in.clear();
        st.convert_streams.clear();
        for (size_t pos = 0; pos < st.operators.size(); ++pos) {
            const Operator& op = m.operators[st.operators[pos]];
            if (op.kind != OpKind::input_convert) continue;
            const ConvertOp& c = m.converts[op.payload];
            if (c.from_buffer == c.to_buffer || c.to_buffer >= m.buffers.size() || m.buffers[c.to_buffer].sim >= 0) continue;
            const size_t nv = m.buffers[c.to_buffer].num_vertices;
            // The conversion's copy: every vertex in every stream. A stream no vertex of which is
            // read before the state overwrites it is not copied. (With the stand-in skin after the
            // copy, fewer of its vertices are read still.)
            {
                Walk w{c.to_buffer, std::vector<uint8_t>(nv, k_all_streams), std::vector<uint8_t>(nv, 0), k_all_streams, &budget};
                bool known = true;
                for (size_t q = pos + 1; q < st.operators.size() && known; ++q) known = visit(m, st, m.operators[st.operators[q]], w);
                uint8_t needed = known ? 0 : k_all_streams;
                for (size_t v = 0; v < nv; ++v) needed |= w.live[v] | w.pending[v];
                if (needed != k_all_streams) {
                    if (st.convert_streams.empty()) st.convert_streams.assign(st.operators.size(), k_all_streams);
                    st.convert_streams[pos] = needed;
                }
            }
            if (c.display_skins.empty()) continue;
            // The stand-in skins: their vertices that are read.
            Walk w{c.to_buffer, std::vector<uint8_t>(nv, 0), std::vector<uint8_t>(nv, 0), k_all_streams, &budget};
            for (uint32_t oi : c.display_skins) {
                const Operator& skin = m.operators[oi];
                const DeformOp& d = m.deforms[skin.payload];
                const uint8_t s = deform_streams(d, skin.kind == OpKind::object_space_skin);
                for (const DeformBlock& b : d.blocks)
                    for (uint32_t j = 0; j < b.vertex_count; ++j)
                        if (b.vertices[j] < nv) w.pending[b.vertices[j]] |= s;
            }
            bool known = true;
            for (size_t q = pos + 1; q < st.operators.size() && known; ++q) known = visit(m, st, m.operators[st.operators[q]], w);
            // Per vertex: blended with its positions (they are read), without them (only other
            // streams are read), or not at all; and of each group, the streams some vertex of it
            // reads (the others are overwritten before anything reads them: not blended).
            std::vector<uint8_t> with_p(nv, 1), without_p(nv, 0);
            size_t changed = 0;
            uint8_t with_read = 0, without_read = 0, skin_streams = 0;
            for (size_t v = 0; v < nv; ++v) {
                const uint8_t read = known ? uint8_t(w.live[v] | w.pending[v]) : k_all_streams;
                with_p[v] = (read & k_p) != 0;
                without_p[v] = read != 0 && !with_p[v];
                changed += !with_p[v];
                (with_p[v] ? with_read : without_read) |= read;
            }
            size_t copied = 0;  // the skins' vertices, at most what the copies hold
            for (uint32_t oi : c.display_skins) {
                const Operator& skin = m.operators[oi];
                skin_streams |= deform_streams(m.deforms[skin.payload], skin.kind == OpKind::object_space_skin);
                for (const DeformBlock& b : m.deforms[skin.payload].blocks) copied += b.vertex_count;
            }
            if ((changed == 0 && (skin_streams & uint8_t(~with_read)) == 0) || copied > copies) continue;
            copies -= copied;
            if (st.stand_in.empty()) st.stand_in.assign(st.operators.size(), UINT32_MAX);
            st.stand_in[pos] = uint32_t(m.stand_in_deforms.size());
            // Two copies per skin, in the skin's order: its vertices whose positions are read, then
            // the others whose other streams are (disjoint sets: the order between them is moot).
            for (uint32_t oi : c.display_skins) {
                const Operator& skin = m.operators[oi];
                const bool object_space = skin.kind == OpKind::object_space_skin;
                m.stand_in_deforms.push_back(without(m.deforms[skin.payload], object_space, with_p));
                m.stand_in_deforms.back().streams &= uint8_t(with_read | k_p);
                m.stand_in_deforms.push_back(without(m.deforms[skin.payload], object_space, without_p));
                m.stand_in_deforms.back().streams &= without_read;
                m.stand_in_deforms.back().skip_positions = true;
            }
        }
    }
}

}  // namespace drape::rt
