// drape::drive: runs a .drcloth through the runtime the way a game drives it, for `drape
// simulate` (and anything else that needs cloth motion without an engine): a clip drives the
// cloth's transform set by bone name, a transform-set bone the clip's skeleton lacks follows its
// nearest matched parent at the cloth skeleton's reference pose, and without a clip the bind pose
// sways procedurally. Reports, per sim cloth, the figures that say whether the cloth is right.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "drape/anim/animation.h"
#include "drape/havok/animation.h"
#include "drape/io/error.h"

namespace drape::drive {

// World matrices (16 floats each, four columns, c3 translation, the game's space) of every
// transform of one cloth data's transform set, at time t.
class TransformSetDriver {
public:
    // set_names: the transform set's bone names (transform i = bone i). cloth_skeleton: the
    // cloth's own skeleton when known (parents and reference pose; docs/havok-cloth.md: the transform set
    // is that skeleton), else nullptr. bind_world: a fallback reference pose per transform (16
    // floats each, e.g. the inverses of an object-space skin's inverse binds), used for bones
    // the cloth skeleton does not give; may be empty. anim_skeleton + clip: the character's
    // skeleton and the clip that moves it; both nullptr: the reference pose swaying. rest_world: the
    // transform set's rest pose as the .drcloth stores it (16 floats per transform, may be empty),
    // used where neither the skin nor the cloth skeleton gives a bone.
    TransformSetDriver(const std::vector<std::string>& set_names, const havok::Skeleton* cloth_skeleton,
                       const std::vector<float>& bind_world, const havok::Skeleton* anim_skeleton, const anim::Clip* clip,
                       bool sway = true, const std::vector<float>& rest_world = {});
    // The set at time t: a clip plays once from 0 and holds its last pose past its end.
    void pose_at(float t, float* out) const;
    uint32_t matched() const { return m_matched; }  // transforms driven by a bone of the clip's skeleton
    uint32_t count() const { return uint32_t(m_ref_world.size() / 16); }

private:
    std::vector<float> m_ref_world;   // 16 per transform: the cloth's reference pose (world)
    std::vector<int32_t> m_anim_bone; // per transform: the animation skeleton bone of the same name, -1
    std::vector<int32_t> m_follow;    // per transform: nearest ancestor with an animation bone, -1
    const havok::Skeleton* m_anim = nullptr;
    const anim::Clip* m_clip = nullptr;
    std::vector<int32_t> m_track_of_bone;
    std::vector<float> m_anim_ref_world;  // 16 per animation bone: its reference pose (world)
    uint32_t m_matched = 0;
    bool m_sway = true;
};

// The link kinds whose stretch is reported apart (the sets' rest lengths: standard and stretch
// links their rest length, bend links their stretch_max_length, compressible links their
// rest_length).
enum class LinkKind : uint8_t { standard, stretch, bend, compressible };
constexpr size_t k_link_kinds = 4;
const char* link_kind_name(LinkKind kind);

// A link at least this stiff is firm (SimStats::max_firm_link_stretch).
inline constexpr float k_firm_link_stiffness = 0.5f;

struct SimStats {
    std::string cloth, sim, state;
    uint32_t particles = 0, steps = 0;
    // The cloth data's current state (its first: the instance's start) runs this sim cloth's
    // simulate operator. A sim cloth of another state keeps its rest pose and every figure below
    // stays 0: nothing of it runs.
    bool in_state = true;
    bool finite = true;               // every position finite after every step
    float max_link_stretch = 0;       // largest (length - rest) / rest over every link kind, over the run
    float max_link_stretch_by_kind[k_link_kinds] = {0, 0, 0, 0};  // the same per LinkKind
    // The same over firm links only: links solved with a stiffness (a bend link's stretch
    // stiffness) of at least k_firm_link_stiffness. Standard, bend and compressible links store it
    // divided by their ends' inverse-mass sum; the figure takes the solved value. Every link of
    // the corpus is firm (0.5 to 1.0), so there the figure equals max_link_stretch.
    float max_firm_link_stretch = 0;
    // Where it was: the step (0-based) and the link's two particles (particle_a, particle_b as
    // stored), for finding what drives it (drape simulate --json prints them).
    uint32_t max_link_stretch_step = 0;
    uint32_t max_link_particles[2] = {0, 0};
    float max_penetration_m = 0;      // deepest particle inside a file collidable it collides with (after a step)
    // Deepest a colliding particle's skinned place (its local-range reference vertex) lies inside
    // a collidable the particle collides with. Where the pose puts the skinned place inside a
    // collidable, the local range pulls the particle in and the collision pushes it out: neither
    // holds, and the links across the collidable stretch, by the data and the pose alone.
    float max_reference_penetration_m = 0;
    // The largest stretch of a link measured between its particles' skinned places (their
    // local-range reference vertices), over the run: how far the skinned mesh itself, posed by the
    // clip, stretches the links. A particle held near its skinned place stretches its links by
    // about as much.
    float max_reference_link_stretch = 0;
    // The same among particles clear of every other collidable they collide with (farther than
    // their radius + 1e-5 m from its hull): a particle wedged where two collidables overlap is
    // pushed out of each in collidable order and can end inside the earlier one; any other
    // particle left inside counts here (the collision pass leaves none: 0 on the corpus).
    float max_isolated_penetration_m = 0;
    // Largest |pinned particle - its move-particles vertex| after a step, over the move-particles
    // operators of the state.
    float max_pinned_error_m = 0;
    // The local-range sets of the state's sim cloth: the largest distance of a particle from its
    // reference vertex (its skinned place), the bound that particle has (maximum_distance), and
    // the largest excess of any particle over its own bound (0 when every particle held it). A
    // cylinder set measures the distance across its vertex's normal.
    float max_skin_distance_m = 0, max_skin_distance_bound_m = 0, max_local_range_excess_m = 0;
    // The bones the state's bone deformers write: the largest distance of such a bone from the
    // nearest particle of the cloth data's simulated sim cloths (-1 when the state drives none).
    float max_driven_bone_distance_m = -1;
    // How far the lowest particle went below the lowest skinned reference vertex of the sim cloth
    // (its move-particles and local-range buffers) over the run (0 when never below).
    float max_below_skin_m = 0;
    double ns_per_step = 0;           // median wall time of one step of the cloth data
    // Kinetic energy per unit mass (mean of |dx/dt|^2 / 2 over the particles), the largest in the
    // first and in the last tenth of the run: without input (RunOptions::sway false, no clip) the
    // late figure must not exceed the early one.
    double early_energy = 0, late_energy = 0;
};

struct RunOptions {
    uint32_t steps = 1000;
    float dt = 1.0f / 30;
    const havok::Skeleton* cloth_skeleton = nullptr;  // the cloth file's own skeleton, when known
    const havok::Skeleton* anim_skeleton = nullptr;
    const anim::Clip* clip = nullptr;
    bool sway = true;  // without a clip: sway the root (false: hold the reference pose still)
    // The runtime's opt-in depenetration (DRAPE_INSTANCE_DEPENETRATE: not the game's arithmetic).
    bool depenetrate = false;
};

// Loads `drcloth` with the runtime and runs every cloth data `steps` steps.
Result<std::vector<SimStats>> simulate(const std::vector<uint8_t>& drcloth, const RunOptions& options);

}  // namespace drape::drive
