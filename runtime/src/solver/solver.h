// drape runtime, simulate kernel: the hclSimulateOperator of Havok Cloth as Sekiro and Elden Ring
// run it (docs/havok-cloth.md "At run time", "Sekiro", "Elden Ring").
//
// Private to the runtime (runtime/src): the C API wraps it. Three objects:
//   Setup      immutable, one per sim cloth + simulate config; shared by every instance. Holds the
//              particles, the constraint sets in execution order, the link schedule (commuting
//              groups found once from the file's link order), shapes and collidables, settings.
//   State      one per instance: positions, previous positions, normals, last substep length,
//              damping, collidable transforms and velocities, constraint instance data
//              (transition state, volume eigenvectors). Structure of arrays.
//   StepInputs per call: dt, the transform set's world matrices, the reference buffers, the
//              run-time collidables and wind fields the engine adds.
//
// Memory: nothing here allocates. Each object is built by a size query followed by a build into
// caller-provided memory (16-byte aligned), so the runtime allocates everything at instance
// creation through the user's allocator:
//     size_t n = drape::solver::setup_bytes(desc);      void* m = alloc(n);
//     const Setup* s = drape::solver::build_setup(desc, m, n);        // nullptr: desc invalid
//     size_t k = drape::solver::state_bytes(*s, options); void* q = alloc(k);
//     State* st = drape::solver::build_state(*s, options, q, k);
//     per frame: (move particles writes pinned positions) ... drape::solver::step(*s, *st, in);
// build_setup checks every index of the description once (particles, reference vertices,
// bones, collidables, execution entries), so step() needs no checks.
//
// Arithmetic (the runtime target compiles with -ffp-contract=off): the order of every sum is
// fixed; dot products follow docs/havok-cloth.md (four lanes (x+z)+(y+w), three lanes (x+y)+z); reciprocals
// are rounded before they multiply where docs/havok-cloth.md says so. SIMD (SSE2, AVX2, AVX-512) is used only
// where it leaves the bits unchanged: per-particle work, and groups of links that provably
// commute (no two share a particle, and every link keeps its place relative to each earlier
// link it shares a particle with). SolveMode::sequential runs the plain scalar loop in file
// order and gives the same bits as SolveMode::scheduled (tested).
#pragma once

#include <cstddef>
#include <cstdint>

namespace drape::solver {

// hkVector4 as stored (x, y, z, w).
struct alignas(16) Float4 {
    float x = 0, y = 0, z = 0, w = 0;
};
// hkMatrix4 / hkTransform as stored: four columns, c3 the translation (w = 1).
struct alignas(16) Matrix4 {
    Float4 c0{1, 0, 0, 0}, c1{0, 1, 0, 0}, c2{0, 0, 1, 0}, c3{0, 0, 0, 1};
};
// A rotation as a quaternion (x, y, z imaginary, w real).
struct alignas(16) Quaternion {
    float x = 0, y = 0, z = 0, w = 1;
};

// ---- description from plain arrays ---------------------------------------------------------
// The same structs the schema path fills (build from a .drcloth sim cloth: solver_schema.h).
// Every pointer is read during build_setup only; nothing of the description is kept.

// hclSimClothData::ParticleData: kg, 1/kg (0 = pinned: moved by the move-particles operator and
// never by the solver), radius in m, friction coefficient.
struct ParticleDesc {
    float mass = 0, inv_mass = 0, radius = 0, friction = 0;
};

enum class ConstraintKind : uint8_t {
    standard_link,      // hclStandardLinkConstraintSet: both ways to rest_length
    stretch_link,       // hclStretchLinkConstraintSet: only when longer than rest_length
    bend_link,          // hclBendLinkConstraintSet: pushed to bend_min_length, pulled to stretch_max_length
    compressible_link,  // hclCompressibleLinkConstraintSet: free between compression_length and rest_length
    bend_stiffness,     // hclBendStiffnessConstraintSet: four-particle curvature
    local_range,        // hclLocalRangeConstraintSet: within a sphere/cylinder of a reference vertex
    transition,         // hclTransitionConstraintSet: blends to/from the reference (animation)
    volume_mx,          // hclVolumeConstraintMx: shape matching of a particle group
};

struct LinkDesc {  // standard and stretch (hclStandardLinkConstraintSet::Link)
    uint16_t particle_a = 0, particle_b = 0;
    float rest_length = 0, stiffness = 0;
};
struct BendLinkDesc {
    uint16_t particle_a = 0, particle_b = 0;
    float bend_min_length = 0, stretch_max_length = 0, bend_stiffness = 0, stretch_stiffness = 0;
};
struct CompressibleLinkDesc {
    uint16_t particle_a = 0, particle_b = 0;
    float rest_length = 0, compression_length = 0, stiffness = 0;
};
// bend_stiffness: the fraction of the violation one projection removes (the runtime converts the
// file's value: -stored * sum w_i^2 invMass_i); rest_curvature: the signed curvature (c.n)/(hA hB)
// the solver keeps (see solve_bend_stiffness in step.cpp).
struct BendStiffnessDesc {
    float weight_a = 0, weight_b = 0, weight_c = 0, weight_d = 0, bend_stiffness = 0, rest_curvature = 0;
    uint16_t particle_a = 0, particle_b = 0, particle_c = 0, particle_d = 0;
};
struct LocalRangeDesc {  // hclLocalRangeConstraintSet::LocalConstraint
    uint16_t particle_index = 0, reference_vertex = 0;
    float maximum_distance = 0, max_normal_distance = 0, min_normal_distance = 0;
};
struct TransitionDesc {  // hclTransitionConstraintSet::PerParticle
    uint16_t particle_index = 0, reference_vertex = 0;
    float to_anim_delay = 0, to_sim_delay = 0, to_sim_max_distance = 0;
};
struct VolumeEntryDesc {  // hclVolumeConstraintMx frame/apply single data (a batch is 16 of them)
    Float4 frame_vector;
    uint16_t particle_index = 0;
    float weight_or_stiffness = 0;  // weight (frame data) or stiffness (apply data)
};

// One constraint set; `kind` says which array is read (the others are ignored).
struct ConstraintSetDesc {
    ConstraintKind kind = ConstraintKind::standard_link;
    uint32_t count = 0;  // items of the kind's array (volume: see its own counts)
    const LinkDesc* links = nullptr;                          // standard_link, stretch_link
    const BendLinkDesc* bend_links = nullptr;                 // bend_link
    const CompressibleLinkDesc* compressible_links = nullptr; // compressible_link
    const BendStiffnessDesc* bend_stiffness_links = nullptr;  // bend_stiffness
    bool clamp_bend_stiffness = false;
    const LocalRangeDesc* local_constraints = nullptr;        // local_range
    float stiffness = 1;                                      // local_range
    uint32_t shape_type = 0;                                  // local_range: 0 sphere, 1 cylinder
    bool apply_normal_component = false;                      // local_range
    uint32_t reference_buffer = 0;                            // local_range, transition: StepInputs::buffers index
    const TransitionDesc* transition_particles = nullptr;    // transition
    float to_anim_period = 0.1f, to_anim_plus_delay_period = 0.1f;
    float to_sim_period = 0.1f, to_sim_plus_delay_period = 0.1f;
    // volume_mx: frame data, then apply data, each batches (16 entries each) then singles, flattened.
    const VolumeEntryDesc* frame_datas = nullptr;
    uint32_t frame_count = 0;
    const VolumeEntryDesc* apply_datas = nullptr;
    uint32_t apply_count = 0;
};

enum class ShapeKind : uint8_t { sphere, plane, capsule, tapered_capsule, convex_geometry };

// hclShape subclasses, in the collidable's local frame, with the members the files store.
struct ShapeDesc {
    ShapeKind kind = ShapeKind::sphere;
    Float4 sphere;          // sphere: centre xyz, radius w
    Float4 plane_equation;  // plane: normal xyz, offset w (distance ((x*px+y*py)+z*pz)+w)
    Float4 start, end;      // capsule: axis end points
    float radius = 0;       // capsule
    Float4 small, big;      // tapered capsule: centres of the small and big end spheres
    float small_radius = 0, big_radius = 0;
    // convex geometry: the union of tetrahedra, each four plane equations (column k = plane k,
    // outward normal xyz, offset w), in the shape's local frame.
    const Matrix4* tetrahedra_equations = nullptr;
    uint32_t tetrahedra_count = 0;
    Matrix4 local_from_world;  // convex geometry: shape-local from collidable frame
};

// A collidable of the sim cloth (hclSimClothData.perInstanceCollidables with its
// collidableTransformMap entry).
struct CollidableDesc {
    ShapeDesc shape;
    Matrix4 transform;  // initial world transform (hclCollidable.transform)
    Float4 linear_velocity, angular_velocity;
    bool enabled = true;
    int32_t bone = -1;  // transform-set index it follows (-1: stays where it is)
    Matrix4 offset;     // bone-from-collidable offset
};

struct SimClothDesc {
    const ParticleDesc* particles = nullptr;
    uint32_t particle_count = 0;
    const Float4* rest_positions = nullptr;  // particle_count entries (sim cloth pose 0); initial state
    Float4 gravity{0, -9.81f, 0, 0};
    float global_damping_per_second = 0;
    float total_mass = 0;                    // 0: the sum of the particle masses
    uint8_t sub_steps = 1, solve_iterations = 1;
    bool adapt_constraint_stiffness = false;
    const ConstraintSetDesc* constraint_sets = nullptr;
    uint32_t constraint_set_count = 0;
    // SimulateConfig.constraintExecution: indices into constraint_sets in solve order; -1 is the
    // collision pass. Without any -1 the collision pass runs after the last set. nullptr: every set
    // in stored order, then collision.
    const int32_t* execution = nullptr;
    uint32_t execution_count = 0;
    const CollidableDesc* collidables = nullptr;
    uint32_t collidable_count = 0;
    const uint32_t* collision_masks = nullptr;  // per particle, bit k = collides with collidable k; nullptr: all
    const uint16_t* triangle_indices = nullptr; // whole triangles, for particle normals
    uint32_t triangle_index_count = 0;
    bool do_normals = false;
    uint32_t transform_count = 0;               // transform-set size (bounds CollidableDesc::bone)
    uint32_t buffer_count = 0;                  // buffers of the cloth data (bounds reference_buffer)
    const uint32_t* buffer_vertex_counts = nullptr;  // buffer_count entries (bounds reference vertices)
    // Widest link batch the schedule forms: 16 or 8 (any width gives the same bits). 0: 16 where
    // the CPU has AVX-512F (widest_lanes()), else 8 (the AVX2 path runs a sixteen-lane batch as
    // two halves, measurably slower than an eight-lane schedule).
    uint8_t link_batch_lanes = 0;
};

// ---- the immutable setup -----------------------------------------------------------------

// One unified two-particle link of any link kind, solved as
//   len = sqrt((dx*dx + dy*dy) + dz*dz), target = clamp(len, min_length, max_length),
//   f = ((len - target) / len) * (len > max_length ? k_pull : k_push),
//   a += d * (f * w_a), b -= d * (f * w_b)       with d = b - a, w = inverse-mass shares.
struct LinkArrays {
    uint32_t* a = nullptr;  // particle indices
    uint32_t* b = nullptr;
    float* min_length = nullptr;
    float* max_length = nullptr;
    float* k_push = nullptr;  // stiffness when shorter than min_length
    float* k_pull = nullptr;  // stiffness when longer than max_length
    float* w_a = nullptr;     // inv_mass_a / (inv_mass_a + inv_mass_b), 0 when both pinned
    float* w_b = nullptr;
    uint32_t count = 0;
};

// The precomputed schedule of a run of consecutive link sets (setup.cpp schedule_links: a list
// schedule of the file order's dependencies, computed once at set-up): `level_count` entries,
// entry i holds level_batches16[i] sixteen-lane batches, then level_batches8[i] eight-lane
// batches, then level_batches4[i] four-lane batches, then level_singles[i] scalar links, in
// LinkArrays order, run in that order. No two links of a batch share a particle, and every link
// comes after each earlier link (file order) it shares a particle with, so the links of one
// batch may run in any order: a sixteen-lane batch runs as one AVX-512 batch, or as two
// eight-lane halves (AVX2), or four four-lane quarters (SSE2), as the CPU and
// StepInputs::max_lanes allow; an eight-lane batch as one AVX2 batch or two four-lane halves.
// Unused lanes point at the spare particle with zero weights.
//
// `packed` holds the batches as the lanes read them, so the step loads one stream and converts
// nothing: per level, its sixteen-lane batches, then its eight-lane ones, then its four-lane
// ones; a batch of width W is fields of W words each: byte offset of particle a (index * 16), of
// particle b, then the floats. A uniform run (every link has min_length == max_length and
// k_push == k_pull, bit for bit: standard links) stores rest length, stiffness, w_a, w_b: its
// target is the rest length and its stiffness the one value, exactly as the general form
// computes them. Otherwise min_length, max_length, k_push, k_pull, w_a, w_b. Singles are read
// from `links`.
struct LinkSchedule {
    LinkArrays links;         // in schedule order
    LinkArrays sequential;    // the same links in execution (file) order
    uint32_t* level_batches4 = nullptr;
    uint32_t* level_singles = nullptr;
    uint32_t level_count = 0;
    uint32_t* level_batches8 = nullptr;
    uint32_t* level_batches16 = nullptr;
    uint32_t* packed = nullptr;
    uint32_t packed_fields = 8;  // words per lane: 6 when uniform, 8 otherwise
    bool uniform = false;
};

// One entry of the execution order, after build.
enum class PassKind : uint8_t { links, bend_stiffness, local_range, transition, volume_mx, collision };
struct Pass {
    PassKind kind = PassKind::links;
    uint32_t index = 0;  // into Setup::link_runs / constraint_sets (by kind)
};

// The items are stored in schedule order: level after level, each level's items four at a time
// (level_batches4 batches of four items that share no particle, an even number), then its level_singles items
// one by one. An item's level is one past the highest level of the earlier items (in the file's
// order) that share a particle with it, so every item runs after those: the same bits as the
// file's order. file_order[j] is the schedule position of the file's item j (the sequential mode
// runs the items through it).
struct BendStiffnessSet {
    uint32_t count = 0;             // the file's items
    // Items stored in schedule order: the file's and the padding that fills each level's last
    // pair of four-item batches (the spare particle past the cloth's, zero weights: they move
    // nothing).
    uint32_t stored = 0;
    uint32_t* particles = nullptr;  // 4 per item
    float* weights = nullptr;       // 4 per item
    float* stiffness = nullptr;     // per item, clamped to [0, 1] when the set clamps
    float* rest_curvature = nullptr;
    float* inv_mass_sum = nullptr;  // sum w_i^2 * inv_mass_i, per item (0: skipped)
    // Per four-item batch starting at item j, lane-major: weight of item j + k's particle q at
    // [4 j + 4 q + k], and that particle's inverse mass likewise (the lanes' loads, not gathers).
    float* batch_weights = nullptr;
    float* batch_inv_mass = nullptr;
    uint32_t* file_order = nullptr;
    uint32_t level_count = 0;
    uint32_t* level_batches4 = nullptr;
    uint32_t* level_singles = nullptr;
};
struct LocalRangeSet {
    uint32_t count = 0;
    uint32_t* particle = nullptr;
    uint32_t* vertex = nullptr;
    float* maximum_distance = nullptr;
    float* max_normal_distance = nullptr;
    float* min_normal_distance = nullptr;
    float stiffness = 1;
    uint32_t shape_type = 0;
    bool apply_normal_component = false;
    uint32_t reference_buffer = 0;
    bool distinct = false;  // no particle named twice: the scheduled mode runs four entries at a time
};
struct TransitionSet {
    uint32_t count = 0;
    uint32_t* particle = nullptr;
    uint32_t* vertex = nullptr;
    float* to_anim_delay = nullptr;
    float* to_sim_delay = nullptr;
    float* to_sim_max_distance = nullptr;
    float to_anim_period = 0, to_anim_plus_delay_period = 0, to_sim_period = 0, to_sim_plus_delay_period = 0;
    uint32_t reference_buffer = 0;
    uint32_t state_index = 0;  // into State::transitions
};
struct VolumeSet {
    uint32_t frame_count = 0, apply_count = 0;
    Float4* frame_vectors = nullptr;
    uint32_t* frame_particles = nullptr;
    float* frame_weights = nullptr;
    Float4* apply_vectors = nullptr;
    uint32_t* apply_particles = nullptr;
    float* apply_stiffness = nullptr;
    uint32_t state_index = 0;  // into State::volumes
};

// A shape ready for the collision pass (local frame), with its precomputed terms.
struct Shape {
    ShapeKind kind = ShapeKind::sphere;
    Float4 p0, p1;         // sphere: centre, -; plane: equation; capsules: start/small, end/big
    float r0 = 0, r1 = 0;  // sphere/capsule radius; tapered: small, big
    float inv_axis_length_sq = 0;  // capsules: 1 / |p1 - p0|^2 (0 when degenerate)
    const Matrix4* tetrahedra = nullptr;  // convex geometry (into Setup memory)
    uint32_t tetrahedra_count = 0;
    Matrix4 local_from_world;
};

struct Collidable {
    Shape shape;
    int32_t bone = -1;
    Matrix4 offset;
    Matrix4 initial_transform;
    Float4 initial_linear_velocity, initial_angular_velocity;
    bool enabled = true;
};

struct Setup {
    uint32_t particle_count = 0;
    uint32_t padded_count = 0;  // particle arrays are padded to a multiple of 4
    // Per particle (padded_count entries; the padding is pinned, zero mass, radius 0).
    float* inv_mass = nullptr;
    float* mass_share = nullptr;  // mass / total_mass
    float* radius = nullptr;
    float max_radius = 0;  // the largest |radius|, -1 when one is not finite (collision's bounding boxes)
    float* friction = nullptr;
    uint32_t* collision_mask = nullptr;
    uint32_t* dynamic_mask = nullptr;  // ~0u when inv_mass > 0, else 0
    Float4* rest_positions = nullptr;
    Float4 gravity;
    float global_damping_per_second = 0;
    uint32_t sub_steps = 1, solve_iterations = 1;
    bool adapt_constraint_stiffness = false;
    bool do_normals = false;
    uint32_t* triangles = nullptr;  // 3 per triangle
    uint32_t triangle_count = 0;
    // Per particle, the triangles naming it in triangle order, a triangle once per such corner
    // (normal_first[i] .. normal_first[i + 1] index normal_triangles): the particle normals sum
    // them without scattering.
    uint32_t* normal_first = nullptr;
    uint32_t* normal_triangles = nullptr;
    Pass* passes = nullptr;
    uint32_t pass_count = 0;
    LinkSchedule* link_runs = nullptr;
    uint32_t link_run_count = 0;
    BendStiffnessSet* bend_stiffness_sets = nullptr;
    uint32_t bend_stiffness_set_count = 0;
    LocalRangeSet* local_range_sets = nullptr;
    uint32_t local_range_set_count = 0;
    TransitionSet* transition_sets = nullptr;
    uint32_t transition_set_count = 0;
    VolumeSet* volume_sets = nullptr;
    uint32_t volume_set_count = 0;
    Collidable* collidables = nullptr;
    uint32_t collidable_count = 0;
    uint32_t transform_count = 0, buffer_count = 0;
    size_t bytes = 0;  // what build_setup used
};

// Bytes build_setup needs for `desc` (0 when the description is invalid).
size_t setup_bytes(const SimClothDesc& desc);
// Builds into `memory` (16-byte aligned, `size` >= setup_bytes). Checks every index once;
// nullptr when invalid, with a reason in `error` (may be nullptr) of at most error_size bytes.
const Setup* build_setup(const SimClothDesc& desc, void* memory, size_t size, char* error = nullptr,
                         size_t error_size = 0);

// ---- per-instance state -------------------------------------------------------------------

enum class TransitionMode : uint8_t { simulated = 0, to_animation = 2, to_simulation = 3 };  // docs/havok-cloth.md values

struct TransitionState {   // hclTransitionConstraintInstanceData
    float* start_distance = nullptr;  // per particle of the set (+0x18)
    TransitionMode mode = TransitionMode::simulated;  // (+0x28)
    float time = 0;                   // blend time (+0x2C), advanced in notify()
    float divisor = 1;                // the code's further divisor s (docs/havok-cloth.md); 1 unless known
};
struct VolumeState {  // hclVolumeConstraintMxInstanceData
    Matrix4 frame;          // last fitted frame (+0x20)
    Float4 eigenvectors[3]; // warm start of the Jacobi eigen-solve (+0x60)
};

// A collidable as it moves: file collidables first, then run-time ones.
struct CollidableState {
    Quaternion rotation;
    Float4 translation;
    Float4 linear_velocity, angular_velocity;
    Matrix4 world;         // rotation + translation as a matrix, after the last move
    Matrix4 world_to_local;
    const Shape* shape = nullptr;  // file shape, or the run-time collidable's (StepInputs)
    bool enabled = true;
    bool all_particles = false;    // run-time collidables: apply whatever the masks say (docs/havok-cloth.md)
};

struct StateOptions {
    uint32_t runtime_collidable_capacity = 0;  // most run-time collidables any step hands in
};

struct State {
    uint32_t particle_count = 0, padded_count = 0;
    Float4* positions = nullptr;           // padded_count (hclSimClothInstance +0x20)
    Float4* previous_positions = nullptr;  // (+0x30)
    Float4* normals = nullptr;             // (+0x40), computed when the sim cloth does normals
    // The normals are due (StepInputs::defer_normals): the last step left them for
    // update_normals to compute from its positions.
    bool normals_due = false;
    Float4* triangle_normals = nullptr;    // per triangle, the normals' scratch
    Float4* forces = nullptr;              // the action's forces of this step (wind), per particle
    float last_substep_length = 0;         // (+0x50); 0 before the first step
    float damping = 1;                     // (+0x54)
    float substep_length = 0;              // of the current step
    float time_step = 0;                   // dt / slow_motion of the current step
    uint32_t stiffness_model = 1;          // (+0x140): the constructor's 1; 0 and 1 give 1.0
    float slow_motion = 1, world_stepping = 1;
    CollidableState* collidables = nullptr;
    uint32_t collidable_count = 0;         // file collidables
    uint32_t runtime_collidable_capacity = 0, runtime_collidable_count = 0;
    Shape* runtime_shapes = nullptr;       // runtime_collidable_capacity
    TransitionState* transitions = nullptr;
    uint32_t transition_count = 0;
    VolumeState* volumes = nullptr;
    uint32_t volume_count = 0;
    float* scratch = nullptr;              // per-particle scratch (normal accumulation)
    // Depenetration (StepInputs::depenetration_rounds): the four-particle groups the last
    // collision pass moved, one bit each (group_words words); written only while it is on.
    uint64_t* collision_moved = nullptr;
    uint32_t group_words = 0;
    bool started = false;                  // false until the first notify
    size_t bytes = 0;
    Float4 wind_sample_point;              // where this step's wind fields were sampled
};

size_t state_bytes(const Setup& setup, const StateOptions& options);
// Positions and previous positions start at the rest pose; collidables at their file transforms.
State* build_state(const Setup& setup, const StateOptions& options, void* memory, size_t size);
// Back to the rest pose (or to `positions`, particle_count entries, when not nullptr), at rest.
// transforms: the transform set as it is now (transform_count of them, at least the setup's), or
// nullptr: collidables that follow a bone start on bone x offset at rest, the others (and all of
// them without transforms) at the file's initial transform and velocities.
void reset_state(const Setup& setup, State& state, const Float4* positions = nullptr, const Matrix4* transforms = nullptr,
                 uint32_t transform_count = 0);

// ---- per-step inputs ----------------------------------------------------------------------

// A collidable the engine adds at run time (docs/havok-cloth.md "Collidables added at run time"): it applies
// to every particle (the game's rope collides with them although its masks are 0).
struct RuntimeCollidable {
    ShapeDesc shape;   // convex geometry is not accepted here
    Matrix4 transform; // world transform at this notify
    Float4 linear_velocity, angular_velocity;  // moved by these every substep, as file collidables
    bool enabled = true;
};

// A wind force field (the effect system's WindForce; a global field of kind 0): sampled once per
// step at the centre of the particles' bounding box; `direction` unit length, `speed` in m/s.
struct WindField {
    Float4 direction;
    float speed = 0;
};

enum class SolveMode : uint8_t { scheduled, sequential };

struct StepInputs {
    float dt = 1.0f / 30;
    // The transform set's world matrices (transform_count of Setup), for collidable bones.
    const Matrix4* transforms = nullptr;
    uint32_t transform_count = 0;
    // Reference buffers by buffer index (positions and normals, 16-byte vectors, in the sim's
    // space): local range and transition read their reference vertices here. Entries of buffers
    // no set reads may be nullptr.
    const Float4* const* buffer_positions = nullptr;
    const Float4* const* buffer_normals = nullptr;
    uint32_t buffer_count = 0;
    const RuntimeCollidable* runtime_collidables = nullptr;  // at most the state's capacity
    uint32_t runtime_collidable_count = 0;
    const WindField* wind_fields = nullptr;
    uint32_t wind_field_count = 0;
    float wind_stiffness = 10.0f;  // the action's constructor (docs/havok-cloth.md)
    float wind_stride = 0.6f;      // the executable's constant, clamped to [0, 1]
    SolveMode mode = SolveMode::scheduled;
    // Widest lanes the scheduled solve may use: 16 (AVX-512F where the CPU and OS have it,
    // chosen at run time), 8 (AVX2, likewise) or 4 (SSE2 only). Every width gives the same bits;
    // tests run all three.
    uint8_t max_lanes = 16;
    // Diagnosis switches (default off): leave out the collision pass or the local-range sets,
    // to tell which part of a cloth's program moves its particles.
    bool skip_collision = false;
    bool skip_local_range = false;
    // Portable mode: the collidable driving's rsqrt estimate replaced by the correctly rounded
    // value, so the step gives the same bits on every CPU (the game's estimate is CPU-specific).
    bool portable = false;
    // Depenetration (NOT the game's arithmetic; 0 = off, the default, and the step is the game's
    // bit for bit). After the last substep, before the particle normals: every dynamic particle
    // deeper than k_depenetration_slack inside a collidable it collides with (its hull plus the
    // particle's radius, the collision pass's test) is moved out to that surface along the
    // collision pass's normal, and its previous position by the same offset (no velocity
    // injected), without friction; the collidables in order, repeated over the particles that
    // moved, at most this many rounds. Nothing is written where nothing is inside.
    uint32_t depenetration_rounds = 0;
    // The particle normals at the end of the step are left due (State::normals_due) instead of
    // computed: only the wind of a later step reads them. The caller then runs update_normals
    // before anything changes the positions (the next step's operators, a teleport), and only
    // where the next step has wind: the same bits as computing them here, without their cost
    // in calm steps.
    bool defer_normals = false;
};

// How deep a particle must be inside (m) for the depenetration rounds to move it: above the few
// roundings of a particle the collision pass has just put on a surface, so that a round that
// finds nothing deeper ends the rounds.
constexpr float k_depenetration_slack = 1e-6f;

// The widest link lanes this CPU runs (chosen once by cpuid, with the OS's register state):
// 16 (AVX-512F), 8 (AVX2) or 4 (SSE2). The scheduled solve uses min(this, StepInputs::max_lanes).
uint32_t widest_lanes();
// Whether the CPU has AVX-512F and VL (the EVEX builds of the eight-lane kernels and the
// runtime's sixteen-lane blends and composites need both).
bool has_avx512vl();

// The operator's notifyPreExecution: time step dt/slow_motion, substep (1/subSteps)*timeStep,
// previous positions rescaled when the substep length changes, damping, transition blend time,
// collidables driven to their bones (velocities from this frame's matrices).
void notify(const Setup& setup, State& state, const StepInputs& inputs);
// The operator's execute: the wind action, then each substep: move collidables, integrate, the
// passes in execution order (solve_iterations times), normals at the end.
void simulate(const Setup& setup, State& state, const StepInputs& inputs);
// The particle normals a step deferred (StepInputs::defer_normals), from the positions as they
// are now; nothing when none are due.
void update_normals(const Setup& setup, State& state);
// notify() then simulate(). Never allocates.
void step(const Setup& setup, State& state, const StepInputs& inputs);

// Starts a transition set's blend (a state change of the cloth). to_animation records each
// particle's start distance to its reference vertex.
void begin_transition(const Setup& setup, State& state, uint32_t transition_set, TransitionMode mode,
                      const StepInputs& inputs);

// ---- the games' arithmetic, exposed for the rule tests ------------------------------------------

// (1/sub_steps) * (dt/slow_motion), the reciprocal rounded first.
float substep_length(float dt, uint32_t sub_steps, float slow_motion);
// powf(1 - global_damping_per_second, dt), dt the step's length (not the substep's): applied in every substep.
float damping_factor(float global_damping_per_second, float dt);
// Constraint stiffness of the model (0 and 1: 1.0; 2: powf(sub_steps*slow_motion*world_stepping, -1.725)).
float constraint_stiffness(uint32_t model, uint32_t sub_steps, float slow_motion, float world_stepping);
// The keep-velocity flag: (model != 1 || adapt) && (sub_steps != 1 || slow_motion != 1 || world_stepping != 1).
bool keep_velocity(uint32_t model, bool adapt, uint32_t sub_steps, float slow_motion, float world_stepping);
// Inline: the step calls them per particle and link (the runtime builds with -ffp-contract=off,
// so inlining keeps every product and sum as written).
// A four-lane dot product as the game sums it: lanes swapped in pairs (zwxy) and added, then
// neighbours swapped (yxwz) and added.
inline float dot4(const Float4& a, const Float4& b) { return (a.x * b.x + a.z * b.z) + (a.y * b.y + a.w * b.w); }
inline float dot3(const Float4& a, const Float4& b) { return (a.x * b.x + a.y * b.y) + a.z * b.z; }
inline float plane_distance(const Float4& plane, const Float4& p) { return ((p.x * plane.x + p.y * plane.y) + p.z * plane.z) + plane.w; }
// Collidable driving (docs/havok-cloth.md): velocities that take `current` to `goal` in dt.
// portable = true seeds the Newton step with the correctly rounded 1/sqrt instead of the
// processor's estimate (rsqrtss differs between CPU vendors): the same bits on every CPU.
void drive_velocities(const Quaternion& current_rotation, const Float4& current_translation,
                      const Quaternion& goal_rotation, const Float4& goal_translation, float dt,
                      Float4& linear_velocity, Float4& angular_velocity, bool portable = false);
// One substep's rotation: the half-angle quaternion of angular_velocity*h times `rotation`, normalised.
Quaternion integrate_rotation(const Quaternion& rotation, const Float4& angular_velocity, float h);
// The wind action's reuse rule: particle i of n reuses its predecessor's force.
bool wind_reuses_previous(uint32_t i, uint32_t n, float stride);
// A transition particle's distance bound: to_animation ((1 - (1/period)*t) * start) * (1/divisor),
// to_simulation (((1/period)*t) * to_sim_max) * (1/divisor), t = time - delay within [0, period].
float transition_bound(TransitionMode mode, float period, float time, float delay, float start, float to_sim_max,
                       float divisor);
// A volume batch's target for the apply vector v: ((c0*x + t) + c1*y) + c2*z, t = frame.c3.
Float4 volume_target(const Matrix4& frame, const Float4& v);

}  // namespace drape::solver
