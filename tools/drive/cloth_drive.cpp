// drape::drive: the transform-set driver and the simulate run (see cloth_drive.h).
#include "cloth_drive.h"

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
                                       const havok::Skeleton* anim_skeleton, const anim::Clip* clip, bool sway)
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
        // authored at), then the cloth skeleton's reference pose, else the identity.
        M4 r = k_id;
        auto it = cloth_index.find(names[i]);
        if (it != cloth_index.end()) r = cloth_ref[size_t(it->second)];
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
    anim::sample_time(*m_clip, std::fmod(t, std::max(m_clip->duration, 1e-3f)), tracks);
    std::vector<M4> local(m_anim->bone_names.size());
    for (size_t b = 0; b < local.size(); ++b) {
        const int32_t tr = m_track_of_bone[b];
        if (tr >= 0 && size_t(tr) < tracks.size()) {
            local[b] = trs(tracks[size_t(tr)].translation, tracks[size_t(tr)].rotation, tracks[size_t(tr)].scale);
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

// A shape's point (xyz) and its w. The shapes' Vec4 fields are optional in the schema: an absent
// one reads as zeros, as the runtime's loader reads it.
float xyz_of(const fb::Vec4* v, float* out) {
    out[0] = v ? v->x() : 0.0f, out[1] = v ? v->y() : 0.0f, out[2] = v ? v->z() : 0.0f;
    return v ? v->w() : 0.0f;
}

struct CollidableRef {
    int kind = 0;  // 1 sphere, 3 capsule, 4 tapered
    float a[3], b[3], ra = 0, rb = 0;
    int32_t bone = -1;
    M4 offset = k_id, fixed = k_id;
};

}  // namespace

Result<std::vector<SimStats>> simulate(const std::vector<uint8_t>& bytes, const RunOptions& options) {
    const auto check = drape::schema::verify_cloth_file(bytes.data(), bytes.size());
    if (!check.ok()) return make_error(check.message);
    drape_error err;
    drape_cloth_file* raw = nullptr;
    if (drape_cloth_file_load(bytes.data(), bytes.size(), &raw, &err) != DRAPE_RESULT_OK) return make_error(err.message, "drape_cloth_file_load");
    std::unique_ptr<drape_cloth_file, void (*)(drape_cloth_file*)> file(raw, drape_cloth_file_destroy);
    const fb::ClothFile* root = check.file;
    std::vector<SimStats> out;
    for (uint32_t c = 0; c < drape_cloth_data_count(file.get()); ++c) {
        const fb::ClothData* cd = root->cloth_datas()->Get(c);
        const uint32_t nt = drape_cloth_transform_count(file.get(), c);
        std::vector<std::string> names(nt);
        for (uint32_t i = 0; i < nt; ++i) names[i] = drape_cloth_transform_name(file.get(), c, i);
        // A fallback reference pose: the inverses of the object-space skins' inverse binds.
        std::vector<float> bind(size_t(nt) * 16, 0.0f);
        if (cd->operators())
            for (const fb::Operator* o : *cd->operators()) {
                const auto* s = o->data_as_ObjectSpaceSkinOperator();
                if (!s || !s->transform_subset() || !s->bone_from_skin_mesh_transforms()) continue;
                for (uint32_t j = 0; j < s->transform_subset()->size() && j < s->bone_from_skin_mesh_transforms()->size(); ++j) {
                    const uint32_t t = s->transform_subset()->Get(j);
                    if (t >= nt) continue;
                    const fb::Mat4* m = s->bone_from_skin_mesh_transforms()->Get(j);
                    const fb::Vec4* cols[4] = {&m->c0(), &m->c1(), &m->c2(), &m->c3()};
                    M4 ib;
                    for (int k = 0; k < 4; ++k) ib[size_t(k * 4)] = cols[k]->x(), ib[size_t(k * 4 + 1)] = cols[k]->y(), ib[size_t(k * 4 + 2)] = cols[k]->z(), ib[size_t(k * 4 + 3)] = cols[k]->w();
                    const M4 w = affine_inverse(ib);
                    std::copy(w.begin(), w.end(), bind.begin() + long(t) * 16);
                }
            }
        TransformSetDriver driver(names, options.cloth_skeleton, bind, options.anim_skeleton, options.clip, options.sway);
        drape_instance_def def = drape_default_instance_def();
        def.cloth = c;
        if (options.depenetrate) def.flags |= DRAPE_INSTANCE_DEPENETRATE;
        drape_instance* inst = nullptr;
        if (drape_instance_create(file.get(), &def, &inst, &err) != DRAPE_RESULT_OK) return make_error(err.message, "drape_instance_create");
        std::unique_ptr<drape_instance, void (*)(drape_instance*)> guard(inst, drape_instance_destroy);
        std::vector<float> pose(size_t(nt) * 16 + 16);
        driver.pose_at(0, pose.data());
        if (nt) drape_instance_set_transforms(inst, 0, nt, pose.data());
        drape_instance_reset(inst);

        const uint32_t ns = drape_cloth_sim_count(file.get(), c);
        struct PerSim {
            std::vector<std::array<uint32_t, 2>> links;
            std::vector<float> rest;
            std::vector<std::array<uint32_t, 2>> pinned;  // particle, vertex
            uint32_t ref_buffer = 0;
            std::vector<CollidableRef> collidables;
            std::vector<uint32_t> masks;
            std::vector<float> radius;  // per particle
            std::vector<float> xyz, ref_xyz, last;
            std::vector<float> dist;  // particle x collidable signed distances of this step
        };
        std::vector<PerSim> sims(ns);
        for (uint32_t s = 0; s < ns; ++s) {
            const fb::SimClothData* sd = cd->sim_cloth_datas()->Get(s);
            PerSim& ps = sims[s];
            const uint32_t np = drape_cloth_sim_particle_count(file.get(), c, s);
            ps.xyz.resize(size_t(np) * 3);
            // The links measured for stretch. The solver refuses a link past the particles only in
            // the sim cloths it simulates; the others' links are measured here, so bounded here.
            auto measure = [&](const auto* k) {
                if (k->particle_a() < np && k->particle_b() < np) ps.links.push_back({k->particle_a(), k->particle_b()}), ps.rest.push_back(k->rest_length());
            };
            if (sd->static_constraint_sets())
                for (const fb::ConstraintSet* cs : *sd->static_constraint_sets()) {
                    if (const auto* l = cs->data_as_StandardLinkSet(); l && l->links())
                        for (const auto* k : *l->links()) measure(k);
                    if (const auto* l = cs->data_as_StretchLinkSet(); l && l->links())
                        for (const auto* k : *l->links()) measure(k);
                }
            if (sd->particle_datas())
                for (const auto* pd : *sd->particle_datas()) ps.radius.push_back(pd->radius());
            if (sd->static_collision_masks()) ps.masks.assign(sd->static_collision_masks()->begin(), sd->static_collision_masks()->end());
            const auto* map = sd->collidable_transform_map();
            if (sd->collidables() && root->collidables())
                for (uint32_t k = 0; k < sd->collidables()->size(); ++k) {
                    const uint32_t ci = sd->collidables()->Get(k);
                    if (ci >= root->collidables()->size()) continue;
                    const fb::Collidable* col = root->collidables()->Get(ci);
                    CollidableRef r;
                    if (const auto* sp = col->shape_as_SphereShape()) {
                        r.kind = 1, r.ra = xyz_of(sp->sphere(), r.a);
                    } else if (const auto* cp = col->shape_as_CapsuleShape()) {
                        r.kind = 3, xyz_of(cp->start(), r.a), xyz_of(cp->end(), r.b), r.ra = r.rb = cp->radius();
                    } else if (const auto* tc = col->shape_as_TaperedCapsuleShape()) {
                        r.kind = 4, xyz_of(tc->small(), r.a), xyz_of(tc->big(), r.b), r.ra = tc->small_radius(), r.rb = tc->big_radius();
                    }
                    if (col->transform()) {
                        const fb::Mat4* m = col->transform();
                        const fb::Vec4* cols[4] = {&m->c0(), &m->c1(), &m->c2(), &m->c3()};
                        for (int q = 0; q < 4; ++q) r.fixed[size_t(q * 4)] = cols[q]->x(), r.fixed[size_t(q * 4 + 1)] = cols[q]->y(), r.fixed[size_t(q * 4 + 2)] = cols[q]->z(), r.fixed[size_t(q * 4 + 3)] = cols[q]->w();
                    }
                    if (map && map->transform_set_index() >= 0 && map->transform_indices() && k < map->transform_indices()->size() &&
                        map->offsets() && k < map->offsets()->size()) {
                        r.bone = int32_t(map->transform_indices()->Get(k));
                        const fb::Mat4* m = map->offsets()->Get(k);
                        const fb::Vec4* cols[4] = {&m->c0(), &m->c1(), &m->c2(), &m->c3()};
                        for (int q = 0; q < 4; ++q) r.offset[size_t(q * 4)] = cols[q]->x(), r.offset[size_t(q * 4 + 1)] = cols[q]->y(), r.offset[size_t(q * 4 + 2)] = cols[q]->z(), r.offset[size_t(q * 4 + 3)] = cols[q]->w();
                    }
                    ps.collidables.push_back(r);
                }
        }
        // Move-particles pairs: the pinned particles and their vertices.
        if (cd->operators())
            for (const fb::Operator* o : *cd->operators()) {
                const auto* mp = o->data_as_MoveParticlesOperator();
                if (!mp || mp->sim_cloth_index() >= ns || !mp->vertex_particle_pairs()) continue;
                PerSim& ps = sims[mp->sim_cloth_index()];
                ps.ref_buffer = mp->ref_buffer_index();
                for (const auto* p : *mp->vertex_particle_pairs()) ps.pinned.push_back({p->particle_index(), p->vertex_index()});
            }
        std::vector<SimStats> stats(ns);
        for (uint32_t s = 0; s < ns; ++s) {
            stats[s].cloth = drape_cloth_data_name(file.get(), c);
            stats[s].sim = drape_cloth_sim_name(file.get(), c, s);
            stats[s].particles = drape_cloth_sim_particle_count(file.get(), c, s);
            stats[s].simulated = drape_runtime_simulates() != 0;
        }
        std::vector<double> times;
        times.reserve(options.steps);
        for (uint32_t step = 0; step < options.steps; ++step) {
            const float t = float(step + 1) * options.dt;
            driver.pose_at(t, pose.data());
            if (nt) drape_instance_set_transforms(inst, 0, nt, pose.data());
            const auto t0 = std::chrono::steady_clock::now();
            if (drape_instance_step(inst, options.dt) != DRAPE_RESULT_OK) return make_error(drape_instance_error_message(inst), "drape_instance_step");
            times.push_back(double(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count()));
            for (uint32_t s = 0; s < ns; ++s) {
                PerSim& ps = sims[s];
                SimStats& st = stats[s];
                st.steps = step + 1;
                if (drape_instance_read_particles(inst, s, ps.xyz.data(), ps.xyz.size()) != DRAPE_RESULT_OK) continue;
                for (float v : ps.xyz) st.finite = st.finite && std::isfinite(v);
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
                for (size_t l = 0; l < ps.links.size(); ++l) {
                    const float* a = &ps.xyz[size_t(ps.links[l][0]) * 3];
                    const float* b = &ps.xyz[size_t(ps.links[l][1]) * 3];
                    const float d = std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
                    if (ps.rest[l] > 1e-6f && (d - ps.rest[l]) / ps.rest[l] > st.max_link_stretch) {
                        st.max_link_stretch = (d - ps.rest[l]) / ps.rest[l];
                        st.max_link_stretch_step = step;
                        st.max_link_particles[0] = ps.links[l][0], st.max_link_particles[1] = ps.links[l][1];
                    }
                }
                if (!ps.pinned.empty()) {
                    ps.ref_xyz.resize(size_t(drape_cloth_buffer_vertex_count(file.get(), c, ps.ref_buffer)) * 3);
                    if (drape_instance_read_buffer(inst, ps.ref_buffer, DRAPE_STREAM_POSITION, ps.ref_xyz.data(), ps.ref_xyz.size()) == DRAPE_RESULT_OK)
                        for (const auto& pv : ps.pinned) {
                            const float* p = &ps.xyz[size_t(pv[0]) * 3];
                            const float* v = &ps.ref_xyz[size_t(pv[1]) * 3];
                            const float e = std::sqrt((p[0] - v[0]) * (p[0] - v[0]) + (p[1] - v[1]) * (p[1] - v[1]) + (p[2] - v[2]) * (p[2] - v[2]));
                            st.max_pinned_error_m = std::max(st.max_pinned_error_m, e);
                        }
                }
                // Signed distance of every particle to every collidable it collides with.
                const size_t np = ps.xyz.size() / 3;
                ps.dist.assign(np * ps.collidables.size(), 1e30f);
                for (size_t k = 0; k < ps.collidables.size(); ++k) {
                    const CollidableRef& r = ps.collidables[k];
                    if (r.kind == 0) continue;
                    // Where the step's collision had it (driven to bone x offset, moved by its
                    // velocities each substep); bone x offset when the runtime has no solver.
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
                    for (size_t i = 0; i * 3 < ps.xyz.size(); ++i) {
                        if (k >= 32 || i >= ps.masks.size() || !((ps.masks[i] >> k) & 1u)) continue;
                        const float* p = &ps.xyz[i * 3];
                        float d;
                        if (r.kind == 1) d = std::sqrt((p[0] - a[0]) * (p[0] - a[0]) + (p[1] - a[1]) * (p[1] - a[1]) + (p[2] - a[2]) * (p[2] - a[2])) - r.ra;
                        else if (r.kind == 3) d = dist_point_segment(p, a, b) - r.ra;
                        else d = round_cone_distance(p, a, r.ra, b, r.rb);
                        st.max_penetration_m = std::max(st.max_penetration_m, -d);
                        ps.dist[i * ps.collidables.size() + k] = d;
                    }
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
        }
        std::sort(times.begin(), times.end());
        const double median = times.empty() ? 0 : times[times.size() / 2];
        for (auto& st : stats) st.ns_per_step = median, out.push_back(st);
    }
    return out;
}

}  // namespace drape::drive
