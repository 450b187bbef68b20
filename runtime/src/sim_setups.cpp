// drape runtime: the solver's immutable set-ups, one per simulate operator, built at load from
// the file's sim cloth (schema 2.0) into the solver's plain description (solver/solver.h).
#include <array>
#include <cstdio>
#include <new>

#include "drape/schema/verify.h"
#include "rt_instance.h"

namespace fb = drape::cloth_fb;
namespace sv = drape::solver;

namespace {

template <class T>
size_t n_of(const flatbuffers::Vector<T>* v) {
    return v ? v->size() : 0;
}
sv::Float4 f4(const fb::Vec4* v) { return v ? sv::Float4{v->x(), v->y(), v->z(), v->w()} : sv::Float4{}; }
sv::Float4 f4(const fb::Vec4& v) { return {v.x(), v.y(), v.z(), v.w()}; }
sv::Matrix4 m4(const fb::Mat4& m) { return {f4(m.c0()), f4(m.c1()), f4(m.c2()), f4(m.c3())}; }

// Every array the description points at, alive while build_setup copies it.
struct DescArrays {
    std::vector<sv::ParticleDesc> particles;
    std::vector<sv::Float4> rest;
    std::vector<sv::ConstraintSetDesc> sets;
    std::vector<std::vector<sv::LinkDesc>> links;
    std::vector<std::vector<sv::BendLinkDesc>> bend_links;
    std::vector<std::vector<sv::CompressibleLinkDesc>> compressible;
    std::vector<std::vector<sv::BendStiffnessDesc>> bend_stiffness;
    std::vector<std::vector<sv::LocalRangeDesc>> local;
    std::vector<std::vector<sv::TransitionDesc>> transition;
    std::vector<std::vector<sv::VolumeEntryDesc>> volume;
    std::vector<std::vector<sv::Matrix4>> tetrahedra;
    std::vector<int32_t> execution;
    std::vector<sv::CollidableDesc> collidables;
    std::vector<uint32_t> masks;
    std::vector<uint16_t> triangles;
    std::vector<uint32_t> vertex_counts;
};

void volume_entries(const flatbuffers::Vector<const fb::VolumeEntry*>* v, std::vector<sv::VolumeEntryDesc>& out) {
    for (size_t i = 0; i < n_of(v); ++i) {
        const auto* e = v->Get(uint32_t(i));
        out.push_back({f4(e->frame_vector()), e->particle_index(), e->weight_or_stiffness()});
    }
}

// The particles and their rest pose (pose 0, zero when the file has none).
void describe_particles(const fb::SimClothData& sd, DescArrays& a, sv::SimClothDesc& d) {
    for (size_t i = 0; i < n_of(sd.particle_datas()); ++i) {
        const auto* p = sd.particle_datas()->Get(uint32_t(i));
        a.particles.push_back({p->mass(), p->inv_mass(), p->radius(), p->friction()});
    }
    const size_t np = a.particles.size();
    a.rest.assign(np, sv::Float4{});
    if (n_of(sd.sim_cloth_poses()) && sd.sim_cloth_poses()->Get(0)->positions()) {
        const auto* pos = sd.sim_cloth_poses()->Get(0)->positions();
        for (size_t i = 0; i < np && i < pos->size(); ++i) a.rest[i] = f4(*pos->Get(uint32_t(i)));
    }
    d.particles = a.particles.data();
    d.particle_count = uint32_t(np);
    d.rest_positions = a.rest.data();
}

// Gravity and damping of the sim cloth; sub-steps, iterations and the execution order of the
// operator's first config.
void describe_config(const fb::SimClothData& sd, const fb::SimulateOperator& op, DescArrays& a, sv::SimClothDesc& d) {
    if (const auto* si = sd.simulation_info()) {
        if (si->gravity()) d.gravity = f4(si->gravity());
        d.global_damping_per_second = si->global_damping_per_second();
    }
    d.total_mass = sd.total_mass();
    const fb::SimulateConfig* cfg = n_of(op.configs()) ? op.configs()->Get(0) : nullptr;
    if (cfg) {
        d.sub_steps = cfg->sub_steps() ? cfg->sub_steps() : 1;
        d.solve_iterations = cfg->number_of_solve_iterations() ? cfg->number_of_solve_iterations() : 1;
        d.adapt_constraint_stiffness = cfg->adapt_constraint_stiffness();
        if (cfg->constraint_execution()) {
            a.execution.assign(cfg->constraint_execution()->begin(), cfg->constraint_execution()->end());
            d.execution = a.execution.data();
            d.execution_count = uint32_t(a.execution.size());
        }
    }
    if (sd.simulation_info() && sd.simulation_info()->sub_steps() && (!cfg || cfg->sub_steps() <= 1))
        d.sub_steps = uint8_t(std::min<uint32_t>(sd.simulation_info()->sub_steps(), 255));  // 2014: stored on the sim cloth
}

// The file stores standard, bend and compressible link stiffnesses divided by the link's
// inverse-mass sum (stiffness / (invMassA + invMassB): that product is one value per set in
// every such set of the corpus, 1.0, 0.9, 0.8 or 0.5, in all three SDKs), the correction being
// stiffness * invMass per end. The solver's links take the authored stiffness and apply it by
// inverse-mass shares, so the stored value is multiplied back. Read as the authored stiffness
// the links were 1/(wA + wB) too weak (1/79 to 1/2400): real cloth stretched 5 to 42 times.
// Stretch links store the authored stiffness (one end pinned in every set): not converted.
float share_stiffness(const std::vector<sv::ParticleDesc>& particles, float stored, uint32_t pa, uint32_t pb) {
    const size_t np = particles.size();
    const float ia = pa < np ? particles[pa].inv_mass : 0.0f, ib = pb < np ? particles[pb].inv_mass : 0.0f;
    return stored * (ia + ib);
}

// Bend stiffness links store their stiffness the same way, negated: stored = -s / sum w_i^2
// invMass_i (s, the fraction of the violation one projection removes, is in (0, 1] in 95% of
// the corpus's links and at most 2.1; the stored value is negative in every link). The solver
// takes s (its clamp to [0, 1] under clampBendStiffness then means something; read as a
// negative stiffness, the clamp zeroed every Sekiro and Elden Ring set).
float bend_stiffness_fraction(const std::vector<sv::ParticleDesc>& particles, float stored, std::array<float, 4> w, std::array<uint32_t, 4> p) {
    const size_t np = particles.size();
    float sum = 0;
    for (int q = 0; q < 4; ++q) sum = sum + (w[size_t(q)] * w[size_t(q)]) * (p[size_t(q)] < np ? particles[p[size_t(q)]].inv_mass : 0.0f);
    return -(stored * sum);
}

// The four link kinds, each into its own array of set k.
bool describe_link_set(const fb::ConstraintSet* cs, size_t k, DescArrays& a, sv::ConstraintSetDesc& s) {
    const auto& pd = a.particles;
    if (const auto* l = cs->data_as_StandardLinkSet()) {
        for (size_t i = 0; i < n_of(l->links()); ++i) {
            const auto* e = l->links()->Get(uint32_t(i));
            a.links[k].push_back({e->particle_a(), e->particle_b(), e->rest_length(), share_stiffness(pd, e->stiffness(), e->particle_a(), e->particle_b())});
        }
        s.kind = sv::ConstraintKind::standard_link, s.links = a.links[k].data(), s.count = uint32_t(a.links[k].size());
    } else if (const auto* l2 = cs->data_as_StretchLinkSet()) {
        for (size_t i = 0; i < n_of(l2->links()); ++i) {
            const auto* e = l2->links()->Get(uint32_t(i));
            a.links[k].push_back({e->particle_a(), e->particle_b(), e->rest_length(), e->stiffness()});
        }
        s.kind = sv::ConstraintKind::stretch_link, s.links = a.links[k].data(), s.count = uint32_t(a.links[k].size());
    } else if (const auto* b = cs->data_as_BendLinkSet()) {
        for (size_t i = 0; i < n_of(b->links()); ++i) {
            const auto* e = b->links()->Get(uint32_t(i));
            a.bend_links[k].push_back({e->particle_a(), e->particle_b(), e->bend_min_length(), e->stretch_max_length(),
                                        share_stiffness(pd, e->bend_stiffness(), e->particle_a(), e->particle_b()),
                                        share_stiffness(pd, e->stretch_stiffness(), e->particle_a(), e->particle_b())});
        }
        s.kind = sv::ConstraintKind::bend_link, s.bend_links = a.bend_links[k].data(), s.count = uint32_t(a.bend_links[k].size());
    } else if (const auto* c = cs->data_as_CompressibleLinkSet()) {
        for (size_t i = 0; i < n_of(c->links()); ++i) {
            const auto* e = c->links()->Get(uint32_t(i));
            a.compressible[k].push_back({e->particle_a(), e->particle_b(), e->rest_length(), e->compression_length(),
                                          share_stiffness(pd, e->stiffness(), e->particle_a(), e->particle_b())});
        }
        s.kind = sv::ConstraintKind::compressible_link, s.compressible_links = a.compressible[k].data(), s.count = uint32_t(a.compressible[k].size());
    } else {
        return false;
    }
    return true;
}

// The other kinds: bend stiffness, local range, transition, volume; a set of a kind the solver
// does not run becomes an empty standard-link set, which keeps the indices.
void describe_other_set(const fb::ConstraintSet* cs, size_t k, DescArrays& a, sv::ConstraintSetDesc& s) {
    if (const auto* bs = cs->data_as_BendStiffnessSet()) {
        for (size_t i = 0; i < n_of(bs->links()); ++i) {
            const auto* e = bs->links()->Get(uint32_t(i));
            a.bend_stiffness[k].push_back({e->weight_a(), e->weight_b(), e->weight_c(), e->weight_d(),
                                           bend_stiffness_fraction(a.particles, e->bend_stiffness(), {e->weight_a(), e->weight_b(), e->weight_c(), e->weight_d()},
                                                                   {e->particle_a(), e->particle_b(), e->particle_c(), e->particle_d()}),
                                           e->rest_curvature(), e->particle_a(), e->particle_b(), e->particle_c(), e->particle_d()});
        }
        s.kind = sv::ConstraintKind::bend_stiffness, s.bend_stiffness_links = a.bend_stiffness[k].data(), s.count = uint32_t(a.bend_stiffness[k].size());
        s.clamp_bend_stiffness = bs->clamp_bend_stiffness();
    } else if (const auto* lr = cs->data_as_LocalRangeSet()) {
        for (size_t i = 0; i < n_of(lr->local_constraints()); ++i) {
            const auto* e = lr->local_constraints()->Get(uint32_t(i));
            a.local[k].push_back({e->particle_index(), e->reference_vertex(), e->maximum_distance(), e->max_normal_distance(), e->min_normal_distance()});
        }
        s.kind = sv::ConstraintKind::local_range, s.local_constraints = a.local[k].data(), s.count = uint32_t(a.local[k].size());
        s.stiffness = lr->stiffness(), s.shape_type = lr->shape_type(), s.apply_normal_component = lr->apply_normal_component();
        s.reference_buffer = lr->reference_mesh_buffer_index();
    } else if (const auto* tr = cs->data_as_TransitionSet()) {
        for (size_t i = 0; i < n_of(tr->per_particle_data()); ++i) {
            const auto* e = tr->per_particle_data()->Get(uint32_t(i));
            a.transition[k].push_back({e->particle_index(), e->reference_vertex(), e->to_anim_delay(), e->to_sim_delay(), e->to_sim_max_distance()});
        }
        s.kind = sv::ConstraintKind::transition, s.transition_particles = a.transition[k].data(), s.count = uint32_t(a.transition[k].size());
        s.to_anim_period = tr->to_anim_period(), s.to_anim_plus_delay_period = tr->to_anim_plus_delay_period();
        s.to_sim_period = tr->to_sim_period(), s.to_sim_plus_delay_period = tr->to_sim_plus_delay_period();
        s.reference_buffer = tr->reference_mesh_buffer_index();
    } else if (const auto* v = cs->data_as_VolumeMxSet()) {
        volume_entries(v->frame_batch_datas(), a.volume[k * 2]);
        volume_entries(v->frame_single_datas(), a.volume[k * 2]);
        volume_entries(v->apply_batch_datas(), a.volume[k * 2 + 1]);
        volume_entries(v->apply_single_datas(), a.volume[k * 2 + 1]);
        s.kind = sv::ConstraintKind::volume_mx;
        s.frame_datas = a.volume[k * 2].data(), s.frame_count = uint32_t(a.volume[k * 2].size());
        s.apply_datas = a.volume[k * 2 + 1].data(), s.apply_count = uint32_t(a.volume[k * 2 + 1].size());
    } else {
        s.kind = sv::ConstraintKind::standard_link, s.count = 0;
    }
}

// Every constraint set in stored order (the execution order indexes them). The particles come
// first: link stiffnesses are converted with their inverse masses.
void describe_constraint_sets(const fb::SimClothData& sd, DescArrays& a, sv::SimClothDesc& d) {
    const size_t nsets = n_of(sd.static_constraint_sets());
    a.sets.resize(nsets);
    a.links.resize(nsets), a.bend_links.resize(nsets), a.compressible.resize(nsets), a.bend_stiffness.resize(nsets);
    a.local.resize(nsets), a.transition.resize(nsets), a.volume.resize(nsets * 2);
    for (size_t k = 0; k < nsets; ++k) {
        const fb::ConstraintSet* cs = sd.static_constraint_sets()->Get(uint32_t(k));
        if (!describe_link_set(cs, k, a, a.sets[k])) describe_other_set(cs, k, a, a.sets[k]);
    }
    d.constraint_sets = a.sets.data();
    d.constraint_set_count = uint32_t(nsets);
}

// Collidable k of the sim cloth: the file's object, following its bone through the transform
// map; `tetrahedra` keeps a convex shape's planes alive.
sv::CollidableDesc describe_collidable(const fb::Collidable* c, const fb::CollidableTransformMap* map, size_t k, std::vector<sv::Matrix4>& tetrahedra) {
    sv::CollidableDesc cd_;
    if (c->transform()) cd_.transform = m4(*c->transform());
    if (c->linear_velocity()) cd_.linear_velocity = f4(c->linear_velocity());
    if (c->angular_velocity()) cd_.angular_velocity = f4(c->angular_velocity());
    cd_.enabled = c->enabled();
    bool known = true;
    if (const auto* s = c->shape_as_SphereShape()) {
        cd_.shape.kind = sv::ShapeKind::sphere, cd_.shape.sphere = f4(s->sphere());
    } else if (const auto* p = c->shape_as_PlaneShape()) {
        cd_.shape.kind = sv::ShapeKind::plane, cd_.shape.plane_equation = f4(p->plane_equation());
    } else if (const auto* cp = c->shape_as_CapsuleShape()) {
        cd_.shape.kind = sv::ShapeKind::capsule, cd_.shape.start = f4(cp->start()), cd_.shape.end = f4(cp->end()), cd_.shape.radius = cp->radius();
    } else if (const auto* tc = c->shape_as_TaperedCapsuleShape()) {
        cd_.shape.kind = sv::ShapeKind::tapered_capsule, cd_.shape.small = f4(tc->small()), cd_.shape.big = f4(tc->big());
        cd_.shape.small_radius = tc->small_radius(), cd_.shape.big_radius = tc->big_radius();
    } else if (const auto* cg = c->shape_as_ConvexGeometryShape()) {
        cd_.shape.kind = sv::ShapeKind::convex_geometry;
        for (size_t i = 0; i < n_of(cg->tetrahedra_equations()); ++i) tetrahedra.push_back(m4(*cg->tetrahedra_equations()->Get(uint32_t(i))));
        cd_.shape.tetrahedra_equations = tetrahedra.data();
        cd_.shape.tetrahedra_count = uint32_t(tetrahedra.size());
        if (cg->local_from_world()) cd_.shape.local_from_world = m4(*cg->local_from_world());
    } else {
        known = false;  // no shape: never collides
    }
    if (!known) cd_.enabled = false;
    if (map && map->transform_set_index() >= 0 && k < n_of(map->transform_indices()) && k < n_of(map->offsets())) {
        cd_.bone = int32_t(map->transform_indices()->Get(uint32_t(k)));
        cd_.offset = m4(*map->offsets()->Get(uint32_t(k)));
    }
    return cd_;
}

// False when the sim cloth names a collidable the file does not have.
bool describe_collidables(const fb::ClothFile& root, const fb::SimClothData& sd, DescArrays& a, sv::SimClothDesc& d) {
    const auto* map = sd.collidable_transform_map();
    a.tetrahedra.resize(n_of(sd.collidables()));
    for (size_t k = 0; k < n_of(sd.collidables()); ++k) {
        const uint32_t ci = sd.collidables()->Get(uint32_t(k));
        if (ci >= n_of(root.collidables())) return false;
        a.collidables.push_back(describe_collidable(root.collidables()->Get(ci), map, k, a.tetrahedra[k]));
    }
    d.collidables = a.collidables.data();
    d.collidable_count = uint32_t(a.collidables.size());
    return true;
}

bool describe(const fb::ClothFile& root, const fb::ClothData& cd, const fb::SimClothData& sd, const fb::SimulateOperator& op,
              uint32_t transform_count, const drape::rt::ClothModel& m, DescArrays& a, sv::SimClothDesc& d) {
    describe_particles(sd, a, d);
    describe_config(sd, op, a, d);
    describe_constraint_sets(sd, a, d);
    if (!describe_collidables(root, sd, a, d)) return false;
    if (sd.static_collision_masks()) {
        a.masks.assign(sd.static_collision_masks()->begin(), sd.static_collision_masks()->end());
        a.masks.resize(a.particles.size(), 0);
        d.collision_masks = a.masks.data();
    }
    if (sd.triangle_indices()) {
        a.triangles.assign(sd.triangle_indices()->begin(), sd.triangle_indices()->end());
        d.triangle_indices = a.triangles.data();
        d.triangle_index_count = uint32_t(a.triangles.size());
    }
    d.do_normals = sd.do_normals();
    d.transform_count = transform_count;
    for (const auto& b : m.buffers) a.vertex_counts.push_back(b.num_vertices);
    d.buffer_count = uint32_t(a.vertex_counts.size());
    d.buffer_vertex_counts = a.vertex_counts.data();
    (void)cd;
    return true;
}

}  // namespace

bool drape_runtime_build_sim_setups(drape_cloth_file& file, const fb::ClothFile& root, char* error, size_t error_size) {
    for (size_t c = 0; c < file.model.cloths.size(); ++c) {
        const drape::rt::ClothModel& m = file.model.cloths[c];
        auto& out = file.setups[c];
        out.setups.assign(m.simulates.size(), nullptr);
        const fb::ClothData* cd = root.cloth_datas()->Get(uint32_t(c));
        size_t k = 0;
        for (size_t oi = 0; oi < m.operators.size(); ++oi) {
            if (m.operators[oi].kind != drape::rt::OpKind::simulate) continue;
            const fb::SimulateOperator* op = cd->operators()->Get(uint32_t(oi))->data_as_SimulateOperator();
            const uint32_t sim = m.simulates[m.operators[oi].payload].sim;
            DescArrays arrays;
            sv::SimClothDesc desc;
            if (!describe(root, *cd, *cd->sim_cloth_datas()->Get(sim), *op, m.transform_count, m, arrays, desc)) {
                std::snprintf(error, error_size, "cloth_datas[%zu] sim_cloth_datas[%u]: a collidable index is out of range", c, sim);
                return false;
            }
            const size_t bytes = sv::setup_bytes(desc);
            char why[200] = {};
            if (bytes == 0) {
                sv::build_setup(desc, nullptr, 0, why, sizeof why);
                std::snprintf(error, error_size, "cloth_datas[%zu] sim_cloth_datas[%u] '%.40s': %s", c, sim, m.sims[sim].name.c_str(), why);
                return false;
            }
            // The slot first, so a failed allocation of either leaves nothing unowned.
            out.memory.push_back(nullptr);
            void* mem = ::operator new(bytes, std::align_val_t(64));
            out.memory.back() = mem;
            const sv::Setup* setup = sv::build_setup(desc, mem, bytes, why, sizeof why);
            if (!setup) {
                std::snprintf(error, error_size, "cloth_datas[%zu] sim_cloth_datas[%u] '%.40s': %s", c, sim, m.sims[sim].name.c_str(), why);
                return false;
            }
            out.setups[m.operators[oi].payload] = setup;
            ++k;
        }
        (void)k;
    }
    return true;
}
