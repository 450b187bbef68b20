// drape::drive: the transform-set driver and the simulate run (see cloth_drive.h).
#include "drape/convert/cloth_drive.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <unordered_map>

#include "drape/runtime.h"
#include "drape/schema/verify.h"

namespace drape::drive {

namespace {

namespace fb = drape::cloth_fb;
using M4 = std::array<float, 16>;

const M4 k_id = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

M4 mul(const M4& a, const M4& b) {  // a * b, column-major
    M4 r{};
    for (int c = 0; c < 4; ++c)
        for (int k = 0; k < 4; ++k) r[c * 4 + k] = ((a[k] * b[c * 4] + a[4 + k] * b[c * 4 + 1]) + a[8 + k] * b[c * 4 + 2]) + a[12 + k] * b[c * 4 + 3];
    return r;
}

M4 trs(const std::array<float, 3>& t, const std::array<float, 4>& q, const std::array<float, 3>& s) {
    const float x = q[0], y = q[1], z = q[2], w = q[3];
    M4 m = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),     0,
            2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),     0,
            2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y), 0,
            t[0],                    t[1],                    t[2],                    1};
    for (int c = 0; c < 3; ++c)
        for (int k = 0; k < 3; ++k) m[c * 4 + k] *= s[size_t(c)];
    return m;
}

M4 affine_inverse(const M4& m) {
    const double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6], k = m[10];
    const double A = e * k - f * h, B = -(d * k - f * g), C = d * h - e * g;
    const double det = a * A + b * B + c * C;
    M4 r = k_id;
    if (det == 0) return r;
    const double inv[9] = {A / det, -(b * k - c * h) / det, (b * f - c * e) / det, B / det, (a * k - c * g) / det,
                           -(a * f - c * d) / det, C / det, -(a * h - b * g) / det, (a * e - b * d) / det};  // row-major
    for (int col = 0; col < 3; ++col)
        for (int row = 0; row < 3; ++row) r[col * 4 + row] = float(inv[row * 3 + col]);
    for (int row = 0; row < 3; ++row) r[12 + row] = float(-(inv[row * 3] * m[12] + inv[row * 3 + 1] * m[13] + inv[row * 3 + 2] * m[14]));
    return r;
}

std::vector<M4> skeleton_world(const havok::Skeleton& s, const std::vector<M4>& local) {
    std::vector<M4> w(local.size(), k_id);
    for (size_t i = 0; i < local.size(); ++i) {
        const int p = i < s.parents.size() ? s.parents[i] : -1;
        w[i] = (p >= 0 && size_t(p) < i) ? mul(w[size_t(p)], local[i]) : local[i];
    }
    return w;
}

std::vector<M4> reference_world(const havok::Skeleton& s) {
    std::vector<M4> local;
    for (const auto& q : s.reference_pose)
        local.push_back(trs({q.translation[0], q.translation[1], q.translation[2]}, q.rotation, {q.scale[0], q.scale[1], q.scale[2]}));
    local.resize(s.bone_names.size(), k_id);
    return skeleton_world(s, local);
}

}  // namespace

TransformSetDriver::TransformSetDriver(const std::vector<std::string>& names, const havok::Skeleton* cloth, const std::vector<float>& bind_world,
                                       const havok::Skeleton* anim_skeleton, const anim::Clip* clip, bool sway,
                                       const std::vector<float>& rest_world)
    : m_anim(clip ? anim_skeleton : nullptr), m_clip(anim_skeleton ? clip : nullptr), m_sway(sway) {
    const size_t n = names.size();
    m_ref_world.assign(n * 16, 0);
    std::vector<M4> cloth_ref;
    if (cloth) cloth_ref = reference_world(*cloth);
    std::unordered_map<std::string, int32_t> cloth_index;
    if (cloth)
        for (size_t i = 0; i < cloth->bone_names.size(); ++i) cloth_index.emplace(cloth->bone_names[i], int32_t(i));
    for (size_t i = 0; i < n; ++i) {
        // The skin's own bind pose first (bone = inverse of its inverse bind: the pose the skin was
        // authored at), then the cloth skeleton's reference pose (given, else as the file stores
        // it), else the identity.
        M4 r = k_id;
        auto it = cloth_index.find(names[i]);
        if (it != cloth_index.end()) r = cloth_ref[size_t(it->second)];
        else if (rest_world.size() >= (i + 1) * 16) std::copy_n(rest_world.begin() + long(i * 16), 16, r.begin());
        if (bind_world.size() >= (i + 1) * 16 && bind_world[i * 16 + 15] == 1.0f) std::copy_n(bind_world.begin() + long(i * 16), 16, r.begin());
        std::copy(r.begin(), r.end(), m_ref_world.begin() + long(i * 16));
    }
    m_anim_bone.assign(n, -1);
    m_follow.assign(n, -1);
    if (!m_anim) return;
    std::unordered_map<std::string, int32_t> anim_index;
    for (size_t i = 0; i < m_anim->bone_names.size(); ++i) anim_index.emplace(m_anim->bone_names[i], int32_t(i));
    for (size_t i = 0; i < n; ++i) {
        auto it = anim_index.find(names[i]);
        if (it != anim_index.end()) m_anim_bone[i] = it->second, ++m_matched;
    }
    // Nearest matched ancestor through the cloth skeleton's parents (transform i = cloth bone i).
    if (cloth)
        for (size_t i = 0; i < n; ++i) {
            if (m_anim_bone[i] >= 0) continue;
            int32_t p = i < cloth->parents.size() ? cloth->parents[i] : -1;
            while (p >= 0 && size_t(p) < n && m_anim_bone[size_t(p)] < 0) p = size_t(p) < cloth->parents.size() ? cloth->parents[size_t(p)] : -1;
            if (p >= 0 && size_t(p) < n) m_follow[i] = p;
        }
    const auto tb = anim::tracks_to_bones(*m_clip, *m_anim);
    m_track_of_bone.assign(m_anim->bone_names.size(), -1);
    for (size_t t = 0; t < tb.size(); ++t)
        if (tb[t] >= 0 && size_t(tb[t]) < m_track_of_bone.size()) m_track_of_bone[size_t(tb[t])] = int32_t(t);
    const auto aw = reference_world(*m_anim);
    for (const auto& m : aw) m_anim_ref_world.insert(m_anim_ref_world.end(), m.begin(), m.end());
}

void TransformSetDriver::pose_at(float t, float* out) const {
    const size_t n = m_ref_world.size() / 16;
    auto ref = [&](size_t i) {
        M4 r;
        std::copy_n(m_ref_world.begin() + long(i * 16), 16, r.begin());
        return r;
    };
    if (!m_anim) {
        // The bind pose, its root swaying: a turn about y and a slide along x, at two frequencies.
        const float kPi = 3.14159265f;
        const float amount = m_sway ? 1.0f : 0.0f;
        const float yaw = amount * 0.35f * std::sin(2 * kPi * 0.5f * t), slide = amount * 0.15f * std::sin(2 * kPi * 0.8f * t);
        const float c = std::cos(yaw), s = std::sin(yaw);
        const M4 sway = {c, 0, -s, 0, 0, 1, 0, 0, s, 0, c, 0, slide, 0, 0, 1};
        for (size_t i = 0; i < n; ++i) {
            const M4 w = mul(sway, ref(i));
            std::copy(w.begin(), w.end(), out + i * 16);
        }
        return;
    }
    std::vector<anim::Transform> tracks(size_t(std::max(m_clip->num_tracks, 0)));
    // The clip plays once and holds its last pose, as a game plays an action: wrapping at its end
    // jumped the skeleton from the last pose to the first within one step (an attack clip is not a
    // loop), which teleported the pinned particles and stretched c5000's mantle 14 times.
    anim::sample_time(*m_clip, std::clamp(t, 0.0f, std::max(m_clip->duration, 0.0f)), tracks);
    std::vector<M4> local(m_anim->bone_names.size());
    // An additive clip (blend hint 1 or 2) stores deltas on the reference pose: used as local
    // transforms they fold the skeleton onto its root (c5000's additive clips stretched its
    // mantle 22 times from the first step), so they play on the reference pose, as the glTF
    // export bakes them.
    const bool additive = m_clip->blend_hint != anim::BlendHint::normal;
    for (size_t b = 0; b < local.size(); ++b) {
        const int32_t tr = m_track_of_bone[b];
        if (tr >= 0 && size_t(tr) < tracks.size()) {
            anim::Transform x = tracks[size_t(tr)];
            if (additive && b < m_anim->reference_pose.size()) {
                const auto& q = m_anim->reference_pose[b];
                anim::Transform base;
                base.translation = {q.translation[0], q.translation[1], q.translation[2]};
                base.rotation = anim::normalize(q.rotation);
                base.scale = {q.scale[0], q.scale[1], q.scale[2]};
                x = anim::apply_additive(m_clip->blend_hint, base, x);
            }
            local[b] = trs(x.translation, x.rotation, x.scale);
        } else if (b < m_anim->reference_pose.size()) {
            const auto& q = m_anim->reference_pose[b];
            local[b] = trs({q.translation[0], q.translation[1], q.translation[2]}, q.rotation, {q.scale[0], q.scale[1], q.scale[2]});
        } else {
            local[b] = k_id;
        }
    }
    const auto world = skeleton_world(*m_anim, local);
    for (size_t i = 0; i < n; ++i) {
        M4 w = ref(i);
        if (m_anim_bone[i] >= 0) {
            w = world[size_t(m_anim_bone[i])];
        } else if (m_follow[i] >= 0) {
            // Follow the matched ancestor, keeping the reference-pose offset from it.
            const size_t p = size_t(m_follow[i]);
            w = mul(world[size_t(m_anim_bone[p])], mul(affine_inverse(ref(p)), ref(i)));
        }
        std::copy(w.begin(), w.end(), out + i * 16);
    }
}

namespace {

float dist_point_segment(const float* p, const float* a, const float* b) {
    float ab[3], ap[3];
    for (int k = 0; k < 3; ++k) ab[k] = b[k] - a[k], ap[k] = p[k] - a[k];
    const float l2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
    float u = l2 > 0 ? (ap[0] * ab[0] + ap[1] * ab[1] + ap[2] * ab[2]) / l2 : 0;
    u = std::clamp(u, 0.0f, 1.0f);
    float d2 = 0;
    for (int k = 0; k < 3; ++k) {
        const float e = ap[k] - ab[k] * u;
        d2 += e * e;
    }
    return std::sqrt(d2);
}

// Signed distance to the hull of two spheres (a, ra) and (b, rb): the spheres and the cone
// tangent to both (negative inside).
float round_cone_distance(const float* p, const float* a, float ra, const float* b, float rb) {
    double ba[3], pa[3];
    for (int k = 0; k < 3; ++k) ba[k] = double(b[k]) - a[k], pa[k] = double(p[k]) - a[k];
    const double l2 = ba[0] * ba[0] + ba[1] * ba[1] + ba[2] * ba[2];
    if (l2 <= 0) return float(std::sqrt(pa[0] * pa[0] + pa[1] * pa[1] + pa[2] * pa[2]) - std::max(ra, rb));
    const double l = std::sqrt(l2);
    const double dr = double(ra) - rb;
    if (std::fabs(dr) >= l) {  // one sphere contains the other
        const double da = std::sqrt(pa[0] * pa[0] + pa[1] * pa[1] + pa[2] * pa[2]) - ra;
        double pb[3];
        for (int k = 0; k < 3; ++k) pb[k] = double(p[k]) - b[k];
        const double db = std::sqrt(pb[0] * pb[0] + pb[1] * pb[1] + pb[2] * pb[2]) - rb;
        return float(std::min(da, db));
    }
    // 2D: axial coordinate x along a->b, radial y >= 0. The side line tangent to both circles
    // has outward normal n = (nx, ny), nx = (ra - rb) / l; its tangent points project to
    // [0, ny * l] on the side direction d = (ny, -nx).
    const double x = (pa[0] * ba[0] + pa[1] * ba[1] + pa[2] * ba[2]) / l;
    const double y = std::sqrt(std::max(0.0, (pa[0] * pa[0] + pa[1] * pa[1] + pa[2] * pa[2]) - x * x));
    const double nx = dr / l, ny = std::sqrt(1 - nx * nx);
    const double along = x * ny - y * nx;
    if (along <= 0) return float(std::sqrt(x * x + y * y) - ra);
    if (along >= ny * l) return float(std::sqrt((x - l) * (x - l) + y * y) - rb);
    return float((x * nx + y * ny) - ra);
}

struct CollidableRef {
    int kind = 0;  // 1 sphere, 3 capsule, 4 tapered
    float a[3], b[3], ra = 0, rb = 0;
    int32_t bone = -1;
    M4 offset = k_id, fixed = k_id;
};

M4 to_m4(const fb::Mat4& m) {
    const fb::Vec4* cols[4] = {&m.c0(), &m.c1(), &m.c2(), &m.c3()};
    M4 r;
    for (int q = 0; q < 4; ++q) r[size_t(q * 4)] = cols[q]->x(), r[size_t(q * 4 + 1)] = cols[q]->y(), r[size_t(q * 4 + 2)] = cols[q]->z(), r[size_t(q * 4 + 3)] = cols[q]->w();
    return r;
}

float distance3(const float* a, const float* b) {
    return std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

struct Link {
    uint32_t a, b;
    float rest;
    LinkKind kind;
    float stiffness;
};

struct LocalRange {
    uint32_t particle, vertex, buffer;
    float bound;
    bool cylinder;
};

// What one sim cloth is measured against: its links, the state's pinned pairs, its local ranges,
// its collidables, and the buffers that hold its skinned place.
struct SimProbe {
    bool in_state = false;
    std::vector<Link> links;
    std::vector<std::array<uint32_t, 3>> pinned;  // particle, vertex, buffer
    std::vector<LocalRange> ranges;
    std::vector<uint32_t> skin_buffers;            // reference buffers (skinned), for the lowest vertex
    std::vector<CollidableRef> collidables;
    std::vector<uint32_t> masks;
    std::vector<float> radius;  // per particle
    std::vector<float> xyz, last;
    // Per particle of a local range: its skinned place and that vertex's normal as the step's
    // simulate operator read them (DRAPE_INSTANCE_RECORD_REFERENCE), else as the buffer holds
    // them after the step; `placed` says which particles have one.
    std::vector<float> reference, place, place_normal;
    std::vector<uint8_t> placed;
    std::vector<float> dist;  // particle x collidable signed distances of this step
};

// The cloth data's fallback reference pose: the inverses of the object-space skins' inverse binds.
std::vector<float> skin_bind_world(const fb::ClothData* cd, uint32_t nt) {
    std::vector<float> bind(size_t(nt) * 16, 0.0f);
    if (!cd->operators()) return bind;
    for (const fb::Operator* o : *cd->operators()) {
        const auto* s = o->data_as_ObjectSpaceSkinOperator();
        if (!s || !s->transform_subset() || !s->bone_from_skin_mesh_transforms()) continue;
        for (uint32_t j = 0; j < s->transform_subset()->size() && j < s->bone_from_skin_mesh_transforms()->size(); ++j) {
            const uint32_t t = s->transform_subset()->Get(j);
            if (t >= nt) continue;
            const M4 w = affine_inverse(to_m4(*s->bone_from_skin_mesh_transforms()->Get(j)));
            std::copy(w.begin(), w.end(), bind.begin() + long(t) * 16);
        }
    }
    return bind;
}

std::vector<float> file_rest_world(const drape_cloth_file* file, uint32_t c, uint32_t nt) {
    std::vector<float> rest(size_t(nt) * 16);
    for (uint32_t i = 0; i < nt; ++i)
        if (!drape_cloth_transform_rest_pose(file, c, i, rest.data() + size_t(i) * 16)) return {};
    return rest;
}

// A shape's point (xyz) and its w. The shapes' Vec4 fields are optional in the schema: an absent
// one reads as zeros, as the runtime's loader reads it.
float xyz_of(const fb::Vec4* v, float* out) {
    out[0] = v ? v->x() : 0.0f, out[1] = v ? v->y() : 0.0f, out[2] = v ? v->z() : 0.0f;
    return v ? v->w() : 0.0f;
}

CollidableRef collidable_ref(const fb::Collidable* col, const fb::CollidableTransformMap* map, uint32_t k) {
    CollidableRef r;
    if (const auto* sp = col->shape_as_SphereShape()) {
        r.kind = 1, r.ra = xyz_of(sp->sphere(), r.a);
    } else if (const auto* cp = col->shape_as_CapsuleShape()) {
        r.kind = 3, xyz_of(cp->start(), r.a), xyz_of(cp->end(), r.b), r.ra = r.rb = cp->radius();
    } else if (const auto* tc = col->shape_as_TaperedCapsuleShape()) {
        r.kind = 4, xyz_of(tc->small(), r.a), xyz_of(tc->big(), r.b), r.ra = tc->small_radius(), r.rb = tc->big_radius();
    }
    if (col->transform()) r.fixed = to_m4(*col->transform());
    if (map && map->transform_set_index() >= 0 && map->transform_indices() && k < map->transform_indices()->size() && map->offsets() &&
        k < map->offsets()->size()) {
        r.bone = int32_t(map->transform_indices()->Get(k));
        r.offset = to_m4(*map->offsets()->Get(k));
    }
    return r;
}

// The links, particles and collidables of sim cloth `sd`.
void probe_sim(const fb::ClothFile* root, const fb::SimClothData* sd, SimProbe& ps) {
    std::vector<float> inv_mass;
    if (sd->particle_datas())
        for (const auto* pd : *sd->particle_datas()) inv_mass.push_back(pd->inv_mass());
    auto w = [&](uint32_t p) { return p < inv_mass.size() ? inv_mass[p] : 0.0f; };
    auto add = [&](auto* set, LinkKind kind, auto rest_of, auto stiffness_of) {
        if (!set || !set->links()) return;
        for (const auto* k : *set->links()) ps.links.push_back({k->particle_a(), k->particle_b(), rest_of(k), kind, stiffness_of(k)});
    };
    // The stiffness the link is solved with (docs/runtime.md, link stiffness): standard,
    // bend and compressible links store it divided by their ends' inverse-mass sum, stretch
    // links as it is.
    auto shared = [&](const auto* k) { return k->stiffness() * (w(k->particle_a()) + w(k->particle_b())); };
    if (sd->static_constraint_sets())
        for (const fb::ConstraintSet* cs : *sd->static_constraint_sets()) {
            add(cs->data_as_StandardLinkSet(), LinkKind::standard, [](const auto* k) { return k->rest_length(); }, shared);
            add(cs->data_as_StretchLinkSet(), LinkKind::stretch, [](const auto* k) { return k->rest_length(); },
                [](const auto* k) { return k->stiffness(); });
            add(cs->data_as_BendLinkSet(), LinkKind::bend, [](const auto* k) { return k->stretch_max_length(); },
                [&](const auto* k) { return k->stretch_stiffness() * (w(k->particle_a()) + w(k->particle_b())); });
            add(cs->data_as_CompressibleLinkSet(), LinkKind::compressible, [](const auto* k) { return k->rest_length(); }, shared);
            if (const auto* lr = cs->data_as_LocalRangeSet(); lr && lr->local_constraints()) {
                const uint32_t buffer = lr->reference_mesh_buffer_index();
                for (const auto* l : *lr->local_constraints())
                    ps.ranges.push_back({l->particle_index(), l->reference_vertex(), buffer, l->maximum_distance(), lr->shape_type() == 1});
                if (std::find(ps.skin_buffers.begin(), ps.skin_buffers.end(), buffer) == ps.skin_buffers.end()) ps.skin_buffers.push_back(buffer);
            }
        }
    if (sd->particle_datas())
        for (const auto* pd : *sd->particle_datas()) ps.radius.push_back(pd->radius());
    if (sd->static_collision_masks()) ps.masks.assign(sd->static_collision_masks()->begin(), sd->static_collision_masks()->end());
    if (sd->collidables() && root->collidables())
        for (uint32_t k = 0; k < sd->collidables()->size(); ++k) {
            const uint32_t ci = sd->collidables()->Get(k);
            if (ci < root->collidables()->size()) ps.collidables.push_back(collidable_ref(root->collidables()->Get(ci), sd->collidable_transform_map(), k));
        }
}

// What state `state` of `cd` runs: the sims it simulates, their pinned pairs, and the bones its
// bone deformers write.
void probe_state(const fb::ClothData* cd, uint32_t state, std::vector<SimProbe>& sims, std::vector<uint32_t>& driven) {
    if (!cd->cloth_state_datas() || state >= cd->cloth_state_datas()->size() || !cd->operators()) return;
    const fb::ClothState* st = cd->cloth_state_datas()->Get(state);
    if (!st->operators()) return;
    for (uint32_t oi : *st->operators()) {
        if (oi >= cd->operators()->size()) continue;
        const fb::Operator* o = cd->operators()->Get(oi);
        if (const auto* sim = o->data_as_SimulateOperator(); sim && sim->sim_cloth_index() < sims.size()) sims[sim->sim_cloth_index()].in_state = true;
        if (const auto* mp = o->data_as_MoveParticlesOperator(); mp && mp->sim_cloth_index() < sims.size() && mp->vertex_particle_pairs()) {
            SimProbe& ps = sims[mp->sim_cloth_index()];
            for (const auto* p : *mp->vertex_particle_pairs()) ps.pinned.push_back({p->particle_index(), p->vertex_index(), mp->ref_buffer_index()});
            if (std::find(ps.skin_buffers.begin(), ps.skin_buffers.end(), mp->ref_buffer_index()) == ps.skin_buffers.end())
                ps.skin_buffers.push_back(mp->ref_buffer_index());
        }
        if (const auto* b = o->data_as_SimpleMeshBoneDeformOperator(); b && b->triangle_bone_pairs())
            for (const auto* p : *b->triangle_bone_pairs()) driven.push_back(p->bone_offset() / 64u);
        if (const auto* b = o->data_as_MeshBoneDeformOperator(); b && b->triangle_bone_start_for_bone()) {
            const auto* starts = b->triangle_bone_start_for_bone();
            const uint32_t pairs = b->triangle_bone_pairs() ? b->triangle_bone_pairs()->size() : 0;
            for (uint32_t i = 0; i < starts->size(); ++i)
                if (starts->Get(i) < (i + 1 < starts->size() ? starts->Get(i + 1) : pairs)) driven.push_back(i);
        }
    }
    std::sort(driven.begin(), driven.end());
    driven.erase(std::unique(driven.begin(), driven.end()), driven.end());
}

// A buffer's positions (or normals) as the instance holds them, cached per step.
struct BufferReader {
    drape_instance* inst;
    const drape_cloth_file* file;
    uint32_t cloth;
    std::unordered_map<uint64_t, std::vector<float>> cache;
    const std::vector<float>* get(uint32_t buffer, drape_stream stream) {
        const uint64_t key = (uint64_t(buffer) << 8) | uint64_t(stream);
        auto it = cache.find(key);
        if (it != cache.end()) return &it->second;
        std::vector<float> v(size_t(drape_cloth_buffer_vertex_count(file, cloth, buffer)) * 3);
        if (drape_instance_read_buffer(inst, buffer, stream, v.data(), v.size()) != DRAPE_RESULT_OK) v.clear();
        return &cache.emplace(key, std::move(v)).first->second;
    }
};

void measure_links(const SimProbe& ps, uint32_t step, SimStats& st) {
    for (const Link& l : ps.links) {
        if (!(l.rest > 1e-6f) || size_t(std::max(l.a, l.b)) * 3 + 2 >= ps.xyz.size()) continue;
        const float e = (distance3(&ps.xyz[size_t(l.a) * 3], &ps.xyz[size_t(l.b) * 3]) - l.rest) / l.rest;
        float& by_kind = st.max_link_stretch_by_kind[size_t(l.kind)];
        by_kind = std::max(by_kind, e);
        if (l.stiffness >= k_firm_link_stiffness) st.max_firm_link_stretch = std::max(st.max_firm_link_stretch, e);
        if (e > st.max_link_stretch) {
            st.max_link_stretch = e;
            st.max_link_stretch_step = step;
            st.max_link_particles[0] = l.a, st.max_link_particles[1] = l.b;
        }
    }
}

// Each local-range particle's skinned place for this step (SimProbe::place): the recorded
// reference where the runtime has one for it (the vertex its first local-range or transition set
// names), else the range's vertex in the buffer after the step. A state can overwrite that buffer
// after its simulate operator (Sekiro's hair copies the particles back into it), so the buffer
// after the step is the second choice.
void find_places(SimProbe& ps, drape_instance* inst, uint32_t sim, BufferReader& buffers) {
    const size_t np = ps.xyz.size() / 3;
    ps.reference.resize(np * 6);
    const bool recorded = drape_instance_read_reference(inst, sim, ps.reference.data(), ps.reference.size()) == DRAPE_RESULT_OK;
    ps.place.assign(np * 3, 0.0f), ps.place_normal.assign(np * 3, 0.0f), ps.placed.assign(np, 0);
    for (const LocalRange& r : ps.ranges) {
        if (r.particle >= np || ps.placed[r.particle]) continue;
        const float* q = &ps.reference[size_t(r.particle) * 6];
        if (recorded && std::isfinite(q[0])) {
            std::copy_n(q, 3, &ps.place[size_t(r.particle) * 3]);
            std::copy_n(q + 3, 3, &ps.place_normal[size_t(r.particle) * 3]);
        } else {
            const std::vector<float>* ref = buffers.get(r.buffer, DRAPE_STREAM_POSITION);
            const std::vector<float>* nrm = buffers.get(r.buffer, DRAPE_STREAM_NORMAL);
            if (size_t(r.vertex) * 3 + 2 >= ref->size()) continue;
            std::copy_n(&(*ref)[size_t(r.vertex) * 3], 3, &ps.place[size_t(r.particle) * 3]);
            if (size_t(r.vertex) * 3 + 2 < nrm->size()) std::copy_n(&(*nrm)[size_t(r.vertex) * 3], 3, &ps.place_normal[size_t(r.particle) * 3]);
        }
        ps.placed[r.particle] = 1;
    }
}

void measure_skin(const SimProbe& ps, BufferReader& buffers, SimStats& st) {
    for (const auto& pv : ps.pinned) {
        const std::vector<float>* ref = buffers.get(pv[2], DRAPE_STREAM_POSITION);
        if (size_t(pv[1]) * 3 + 2 >= ref->size() || size_t(pv[0]) * 3 + 2 >= ps.xyz.size()) continue;
        st.max_pinned_error_m = std::max(st.max_pinned_error_m, distance3(&ps.xyz[size_t(pv[0]) * 3], &(*ref)[size_t(pv[1]) * 3]));
    }
    for (const LocalRange& r : ps.ranges) {
        if (r.particle >= ps.placed.size() || !ps.placed[r.particle]) continue;
        const float* p = &ps.xyz[size_t(r.particle) * 3];
        const float* v = &ps.place[size_t(r.particle) * 3];
        float d = distance3(p, v);
        if (r.cylinder) {
            // Across the vertex normal: the part of the offset off the normal.
            const float* n = &ps.place_normal[size_t(r.particle) * 3];
            const float along = (p[0] - v[0]) * n[0] + (p[1] - v[1]) * n[1] + (p[2] - v[2]) * n[2];
            d = std::sqrt(std::max(0.0f, d * d - along * along));
        }
        if (d > st.max_skin_distance_m) st.max_skin_distance_m = d, st.max_skin_distance_bound_m = r.bound;
        st.max_local_range_excess_m = std::max(st.max_local_range_excess_m, d - r.bound);
    }
    // Every link between two skinned places.
    for (const Link& l : ps.links)
        if (l.rest > 1e-6f && l.a < ps.placed.size() && l.b < ps.placed.size() && ps.placed[l.a] && ps.placed[l.b])
            st.max_reference_link_stretch =
                std::max(st.max_reference_link_stretch, (distance3(&ps.place[size_t(l.a) * 3], &ps.place[size_t(l.b) * 3]) - l.rest) / l.rest);
    float lowest_skin = INFINITY, lowest_particle = INFINITY;
    for (uint32_t b : ps.skin_buffers) {
        const std::vector<float>* ref = buffers.get(b, DRAPE_STREAM_POSITION);
        for (size_t i = 1; i < ref->size(); i += 3) lowest_skin = std::min(lowest_skin, (*ref)[i]);
    }
    for (size_t i = 1; i < ps.xyz.size(); i += 3) lowest_particle = std::min(lowest_particle, ps.xyz[i]);
    if (std::isfinite(lowest_skin) && std::isfinite(lowest_particle)) st.max_below_skin_m = std::max(st.max_below_skin_m, lowest_skin - lowest_particle);
}

// Signed distance of every particle to every collidable it collides with, where the step's
// collision had it (driven to bone x offset, moved by its velocities each substep).
void measure_collisions(SimProbe& ps, drape_instance* inst, uint32_t s, const std::vector<float>& pose, uint32_t nt, SimStats& st) {
    const size_t np = ps.xyz.size() / 3;
    ps.dist.assign(np * ps.collidables.size(), 1e30f);
    for (size_t k = 0; k < ps.collidables.size(); ++k) {
        const CollidableRef& r = ps.collidables[k];
        if (r.kind == 0) continue;
        M4 w = r.fixed;
        if (r.bone >= 0 && uint32_t(r.bone) < nt) {
            M4 bone;
            std::copy_n(pose.begin() + long(r.bone) * 16, 16, bone.begin());
            w = mul(bone, r.offset);
        }
        M4 moved;
        if (drape_instance_read_collidable_transform(inst, s, uint32_t(k), moved.data()) == DRAPE_RESULT_OK) w = moved;
        float a[3], b[3];
        for (int q = 0; q < 3; ++q) {
            a[q] = ((w[size_t(q)] * r.a[0] + w[size_t(12 + q)]) + w[size_t(4 + q)] * r.a[1]) + w[size_t(8 + q)] * r.a[2];
            b[q] = ((w[size_t(q)] * r.b[0] + w[size_t(12 + q)]) + w[size_t(4 + q)] * r.b[1]) + w[size_t(8 + q)] * r.b[2];
        }
        auto signed_distance = [&](const float* p) {
            if (r.kind == 1) return distance3(p, a) - r.ra;
            if (r.kind == 3) return dist_point_segment(p, a, b) - r.ra;
            return round_cone_distance(p, a, r.ra, b, r.rb);
        };
        auto collides = [&](size_t i) { return k < 32 && i < ps.masks.size() && ((ps.masks[i] >> k) & 1u); };
        for (size_t i = 0; i < np; ++i) {
            if (!collides(i)) continue;
            const float d = signed_distance(&ps.xyz[i * 3]);
            st.max_penetration_m = std::max(st.max_penetration_m, -d);
            ps.dist[i * ps.collidables.size() + k] = d;
        }
        for (size_t i = 0; i < ps.placed.size(); ++i)
            if (ps.placed[i] && collides(i))
                st.max_reference_penetration_m = std::max(st.max_reference_penetration_m, -signed_distance(&ps.place[i * 3]));
    }
    for (size_t i = 0; i < np && !ps.collidables.empty(); ++i) {
        const float* d = &ps.dist[i * ps.collidables.size()];
        size_t in = 0;
        for (size_t k = 1; k < ps.collidables.size(); ++k)
            if (d[k] < d[in]) in = k;
        if (!(d[in] < 0)) continue;
        const float clear = (i < ps.radius.size() ? ps.radius[i] : 0.0f) + 1e-5f;
        bool isolated = true;
        for (size_t k = 0; k < ps.collidables.size(); ++k)
            if (k != in && d[k] <= clear) isolated = false;
        if (isolated) st.max_isolated_penetration_m = std::max(st.max_isolated_penetration_m, -d[in]);
    }
}

void measure_energy(SimProbe& ps, uint32_t step, const RunOptions& options, SimStats& st) {
    if (!ps.last.empty() && !ps.xyz.empty()) {
        double e = 0;
        for (size_t q = 0; q < ps.xyz.size(); ++q) {
            const double v = (double(ps.xyz[q]) - ps.last[q]) / options.dt;
            e += 0.5 * v * v;
        }
        e /= double(ps.xyz.size() / 3);
        if (step < options.steps / 10) st.early_energy = std::max(st.early_energy, e);
        if (step >= options.steps - options.steps / 10) st.late_energy = std::max(st.late_energy, e);
    }
    ps.last = ps.xyz;
}

// The largest distance of a driven bone from the nearest particle of the simulated sims.
float driven_bone_distance(drape_instance* inst, const std::vector<uint32_t>& driven, const std::vector<SimProbe>& sims) {
    float worst = -1;
    for (uint32_t b : driven) {
        float m[16];
        if (drape_instance_read_transforms(inst, b, 1, m) != DRAPE_RESULT_OK) continue;
        float nearest = INFINITY;
        for (const SimProbe& ps : sims)
            if (ps.in_state)
                for (size_t i = 0; i + 2 < ps.xyz.size(); i += 3) nearest = std::min(nearest, distance3(&ps.xyz[i], m + 12));
        if (std::isfinite(nearest)) worst = std::max(worst, nearest);
    }
    return worst;
}

}  // namespace

const char* link_kind_name(LinkKind kind) {
    switch (kind) {
        case LinkKind::standard: return "standard";
        case LinkKind::stretch: return "stretch";
        case LinkKind::bend: return "bend";
        case LinkKind::compressible: return "compressible";
    }
    return "?";
}

namespace {

// Runs cloth data `c` of `file` and appends one SimStats per sim cloth to `out`.
Result<void> run_cloth_data(const drape_cloth_file* file, const fb::ClothFile* root, uint32_t c, const RunOptions& options, std::vector<SimStats>& out) {
    const fb::ClothData* cd = root->cloth_datas()->Get(c);
    const uint32_t nt = drape_cloth_transform_count(file, c);
    std::vector<std::string> names(nt);
    for (uint32_t i = 0; i < nt; ++i) names[i] = drape_cloth_transform_name(file, c, i);
    TransformSetDriver driver(names, options.cloth_skeleton, skin_bind_world(cd, nt), options.anim_skeleton, options.clip, options.sway,
                              file_rest_world(file, c, nt));
    drape_instance_def def = drape_default_instance_def();
    def.cloth = c;
    if (options.depenetrate) def.flags |= DRAPE_INSTANCE_DEPENETRATE;
    def.flags |= DRAPE_INSTANCE_RECORD_REFERENCE;  // the skinned places as the step read them
    drape_instance* inst = nullptr;
    drape_error err;
    if (drape_instance_create(file, &def, &inst, &err) != DRAPE_RESULT_OK) return make_error(err.message, "drape_instance_create");
    std::unique_ptr<drape_instance, void (*)(drape_instance*)> guard(inst, drape_instance_destroy);
    std::vector<float> pose(size_t(nt) * 16 + 16);
    driver.pose_at(0, pose.data());
    if (nt) drape_instance_set_transforms(inst, 0, nt, pose.data());
    drape_instance_reset(inst);

    const uint32_t state = drape_instance_state(inst);
    const uint32_t ns = drape_cloth_sim_count(file, c);
    std::vector<SimProbe> sims(ns);
    for (uint32_t s = 0; s < ns; ++s) {
        sims[s].xyz.resize(size_t(drape_cloth_sim_particle_count(file, c, s)) * 3);
        probe_sim(root, cd->sim_cloth_datas()->Get(s), sims[s]);
    }
    std::vector<uint32_t> driven;
    probe_state(cd, state, sims, driven);
    std::vector<SimStats> stats(ns);
    for (uint32_t s = 0; s < ns; ++s) {
        stats[s].cloth = drape_cloth_data_name(file, c);
        stats[s].sim = drape_cloth_sim_name(file, c, s);
        const char* sn = drape_cloth_state_name(file, c, state);
        stats[s].state = sn ? sn : "";
        stats[s].particles = drape_cloth_sim_particle_count(file, c, s);
        stats[s].in_state = sims[s].in_state;
    }
    float driven_distance = driven.empty() ? -1.0f : 0.0f;
    std::vector<double> times;
    times.reserve(options.steps);
    for (uint32_t step = 0; step < options.steps; ++step) {
        driver.pose_at(float(step + 1) * options.dt, pose.data());
        if (nt) drape_instance_set_transforms(inst, 0, nt, pose.data());
        const auto t0 = std::chrono::steady_clock::now();
        if (drape_instance_step(inst, options.dt) != DRAPE_RESULT_OK) return make_error(drape_instance_error_message(inst), "drape_instance_step");
        times.push_back(double(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count()));
        BufferReader buffers{inst, file, c, {}};
        for (uint32_t s = 0; s < ns; ++s) {
            SimProbe& ps = sims[s];
            SimStats& st = stats[s];
            st.steps = step + 1;
            if (!ps.in_state || drape_instance_read_particles(inst, s, ps.xyz.data(), ps.xyz.size()) != DRAPE_RESULT_OK) continue;
            for (float v : ps.xyz) st.finite = st.finite && std::isfinite(v);
            measure_energy(ps, step, options, st);
            measure_links(ps, step, st);
            find_places(ps, inst, s, buffers);
            measure_skin(ps, buffers, st);
            measure_collisions(ps, inst, s, pose, nt, st);
        }
        if (!driven.empty()) driven_distance = std::max(driven_distance, driven_bone_distance(inst, driven, sims));
    }
    std::sort(times.begin(), times.end());
    const double median = times.empty() ? 0 : times[times.size() / 2];
    for (auto& st : stats) {
        st.ns_per_step = median;
        if (st.in_state) st.max_driven_bone_distance_m = driven_distance;
        out.push_back(std::move(st));
    }
    return {};
}

}  // namespace

Result<std::vector<SimStats>> simulate(const std::vector<uint8_t>& bytes, const RunOptions& options) {
    const auto check = drape::schema::verify_cloth_file(bytes.data(), bytes.size());
    if (!check.ok()) return make_error(check.message);
    drape_error err;
    drape_cloth_file* raw = nullptr;
    if (drape_cloth_file_load(bytes.data(), bytes.size(), &raw, &err) != DRAPE_RESULT_OK) return make_error(err.message, "drape_cloth_file_load");
    std::unique_ptr<drape_cloth_file, void (*)(drape_cloth_file*)> file(raw, drape_cloth_file_destroy);
    std::vector<SimStats> out;
    for (uint32_t c = 0; c < drape_cloth_data_count(file.get()); ++c)
        if (auto r = run_cloth_data(file.get(), check.file, c, options, out); !r) return r.error();
    return out;
}

}  // namespace drape::drive
