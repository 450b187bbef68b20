/* drape runtime: plays a .drcloth cloth program (the game's Havok Cloth operators) in an engine.
 *
 * C99. One immutable asset (drape_cloth_file) loaded from memory and shared by any number of
 * instances (drape_instance), one per cloth data a character wears. Everything an instance needs
 * is allocated when it is created (through the optional allocator callbacks); drape_instance_step
 * never allocates. The arithmetic follows the games' own
 * (docs/havok-cloth.md#the-run-time-arithmetic-rules): the same inputs give the same bits with
 * every compiler and optimisation level on x86-64 (SSE2, no FMA contraction; see
 * docs/runtime.md#determinism).
 *
 * Spaces: the game's (metres, left-handed, Y up). Matrices are 16 floats, four columns c0..c3 of
 * four floats (Havok's hkTransform layout, c3 = translation), as .drcloth stores them.
 *
 * Threads: a drape_cloth_file may be read from any thread once loaded; one instance is used by
 * one thread at a time. Errors: every function that can fail returns a drape_result; the asset
 * loader fills a drape_error, an instance keeps the message of its last failure
 * (drape_instance_error_message). A bad file is refused, never a crash. No C++ exception leaves
 * a function of this API: a failed allocation (the loader's, or an allocator callback that throws)
 * is DRAPE_RESULT_OUT_OF_MEMORY, any other exception DRAPE_RESULT_BAD_DATA, with its message.
 */
#ifndef DRAPE_RUNTIME_H
#define DRAPE_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The C API is the only thing the shared library exports (docs/runtime.md#the-runtime-as-a-package). */
#ifndef DRAPE_API
#if defined(_WIN32) && defined(DRAPE_RUNTIME_SHARED)
#ifdef DRAPE_RUNTIME_BUILDING
#define DRAPE_API __declspec(dllexport)
#else
#define DRAPE_API __declspec(dllimport)
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define DRAPE_API __attribute__((visibility("default")))
#else
#define DRAPE_API
#endif
#endif

typedef enum drape_result {
    DRAPE_RESULT_OK = 0,
    DRAPE_RESULT_INVALID_ARGUMENT = 1, /* a null pointer, an index out of range, a wrong cookie */
    DRAPE_RESULT_NOT_CLOTH_FILE = 2,   /* the FlatBuffers verifier refused the bytes (or no "DRCL") */
    DRAPE_RESULT_UNSUPPORTED_VERSION = 3, /* format_version.major this runtime does not read */
    DRAPE_RESULT_BAD_INDEX = 4,        /* an index stored in the file is out of range (checked at load) */
    DRAPE_RESULT_BAD_DATA = 5,         /* a count or value stored in the file is inconsistent */
    DRAPE_RESULT_OUT_OF_MEMORY = 6,    /* the allocator returned NULL */
    DRAPE_RESULT_NOT_FOUND = 7,        /* a name that matches nothing (state by name) */
    DRAPE_RESULT_BUFFER_TOO_SMALL = 8, /* the caller's output capacity is below what is needed */
    DRAPE_RESULT_FULL = 9              /* every run-time collidable / wind slot is in use */
} drape_result;

/* The message of a failure: what was wrong, naming the table, field and index. */
#define DRAPE_ERROR_MESSAGE_SIZE 256
typedef struct drape_error {
    drape_result code;
    char message[DRAPE_ERROR_MESSAGE_SIZE]; /* NUL-terminated, empty when code == DRAPE_RESULT_OK */
} drape_error;

/* Optional allocator. alloc returns memory aligned to `alignment` (a power of two <= 64) or NULL.
 * A zeroed drape_allocator (alloc == NULL) means the C library's aligned allocation. */
typedef struct drape_allocator {
    void* (*alloc)(void* user, size_t size, size_t alignment);
    void (*free)(void* user, void* pointer);
    void* user;
} drape_allocator;

/* The runtime's version, "MAJOR.MINOR.PATCH": MAJOR.MINOR is the .drcloth format version it was
 * built for (schema/cloth.fbs FormatVersion); it reads every file of that MAJOR. The shared
 * library's SONAME carries MAJOR (libdrape_runtime.so.MAJOR). */
DRAPE_API const char* drape_runtime_version(void);

/* ---- the asset ------------------------------------------------------------------------ */

typedef struct drape_cloth_file drape_cloth_file;

/* Verifies `bytes` (a .drcloth FlatBuffer, not zstd-wrapped: the caller unwraps) with the
 * schema's verifier, then checks every index the file stores against the count it indexes, and
 * builds the runtime's own copy: the bytes may be freed after the call. On failure *out_file is
 * NULL and `error` (may be NULL) says why. */
DRAPE_API drape_result drape_cloth_file_load(const void* bytes, size_t size, drape_cloth_file** out_file,
                                             drape_error* error);
DRAPE_API void drape_cloth_file_destroy(drape_cloth_file* file); /* NULL is ignored */

/* Listing. Indices count as in the file; a name is NUL-terminated and owned by the file.
 * An index out of range gives 0 / NULL. */
DRAPE_API uint32_t drape_cloth_data_count(const drape_cloth_file* file);
DRAPE_API const char* drape_cloth_data_name(const drape_cloth_file* file, uint32_t cloth);
/* The transform set (one per cloth data in every game file): bone names in transform order.
 * The engine matches its own bones to these names once and sets the matrices by index. */
DRAPE_API uint32_t drape_cloth_transform_count(const drape_cloth_file* file, uint32_t cloth);
DRAPE_API const char* drape_cloth_transform_name(const drape_cloth_file* file, uint32_t cloth, uint32_t transform);
/* The transform's rest pose: the model-space matrix of its bone in the cloth skeleton's reference
 * pose (16 floats, four columns), written to out_matrix. Returns 1, or 0 (out untouched) when the
 * file stores no rest pose (files written before format 2.2) or an index is out of range. A host
 * with no animation poses the set at these (times the character's root). */
DRAPE_API int drape_cloth_transform_rest_pose(const drape_cloth_file* file, uint32_t cloth, uint32_t transform,
                                              float out_matrix[16]);

typedef enum drape_buffer_kind {
    DRAPE_BUFFER_OTHER = 0,
    DRAPE_BUFFER_DISPLAY = 1, /* a mesh of the model, vertex for vertex */
    DRAPE_BUFFER_SHADOW = 2,
    DRAPE_BUFFER_SCRATCH = 3,
    DRAPE_BUFFER_SIM = 4
} drape_buffer_kind;
DRAPE_API uint32_t drape_cloth_buffer_count(const drape_cloth_file* file, uint32_t cloth);
DRAPE_API const char* drape_cloth_buffer_name(const drape_cloth_file* file, uint32_t cloth, uint32_t buffer);
DRAPE_API drape_buffer_kind drape_cloth_buffer_kind(const drape_cloth_file* file, uint32_t cloth, uint32_t buffer);
DRAPE_API uint32_t drape_cloth_buffer_vertex_count(const drape_cloth_file* file, uint32_t cloth, uint32_t buffer);
DRAPE_API uint32_t drape_cloth_buffer_triangle_count(const drape_cloth_file* file, uint32_t cloth, uint32_t buffer);
/* 1 when the buffer's definition stores its own triangle indices (then the engine does not hand
 * them in: drape_instance_set_buffer_triangles refuses), 0 otherwise. Game display buffers store
 * none; synthesized files may. */
DRAPE_API int drape_cloth_buffer_stores_triangles(const drape_cloth_file* file, uint32_t cloth, uint32_t buffer);
/* The glTF mesh a display buffer drives (empty when unbound). */
DRAPE_API const char* drape_cloth_buffer_mesh_name(const drape_cloth_file* file, uint32_t cloth, uint32_t buffer);

DRAPE_API uint32_t drape_cloth_state_count(const drape_cloth_file* file, uint32_t cloth);
DRAPE_API const char* drape_cloth_state_name(const drape_cloth_file* file, uint32_t cloth, uint32_t state);

DRAPE_API uint32_t drape_cloth_sim_count(const drape_cloth_file* file, uint32_t cloth);
DRAPE_API const char* drape_cloth_sim_name(const drape_cloth_file* file, uint32_t cloth, uint32_t sim);
DRAPE_API uint32_t drape_cloth_sim_particle_count(const drape_cloth_file* file, uint32_t cloth, uint32_t sim);

/* The transforms of the set that the cloth itself writes (bone deform operators), ascending. */
DRAPE_API uint32_t drape_cloth_driven_bone_count(const drape_cloth_file* file, uint32_t cloth);
DRAPE_API uint32_t drape_cloth_driven_bone(const drape_cloth_file* file, uint32_t cloth, uint32_t i);

/* A sim cloth's file collidables, for drawing them: the shape in its own frame and what moves it.
 * At run time a collidable that follows a transform sits at that transform x offset
 * (drape_instance_read_collidable_transform gives where the last step used it). */
typedef struct drape_collidable_info {
    const char* name;        /* as the file names it; valid while the file lives */
    int kind;                /* a drape_shape_kind; 0 for a collidable without a shape (never collides) */
    float a[4], b[4];        /* the shape, as drape_collidable's (b repeats the radius in w) */
    uint32_t transform;      /* the transform-set index it follows, or UINT32_MAX: it stays at `rest` */
    float offset[16];        /* transform from shape, when it follows one */
    float rest[16];          /* world from shape as the file stores it (the authoring pose) */
} drape_collidable_info;
DRAPE_API uint32_t drape_cloth_sim_collidable_count(const drape_cloth_file* file, uint32_t cloth, uint32_t sim);
DRAPE_API drape_result drape_cloth_sim_collidable(const drape_cloth_file* file, uint32_t cloth, uint32_t sim,
                                                  uint32_t collidable, drape_collidable_info* out);

/* ---- instances ------------------------------------------------------------------------ */

typedef struct drape_instance drape_instance;

#define DRAPE_INSTANCE_DEF_COOKIE 0x44524931u /* "DRI1": set by drape_default_instance_def */

typedef enum drape_instance_flags {
    /* Bone deformers normalise with the exact 1/sqrtf instead of the processor's approximate
     * reciprocal square root (rsqrtps, no refinement) the game uses. The approximation differs
     * between CPU vendors and generations; the exact mode gives the same bits everywhere. */
    DRAPE_INSTANCE_EXACT_RSQRT = 1u << 0,
    /* Leave the MXCSR alone during drape_instance_step (the embedder guarantees round to nearest
     * and flush-to-zero itself). By default the step saves MXCSR, sets FTZ on, DAZ off, round to
     * nearest (the game thread's 0x8000 rounding/flush bits) and restores it on return. */
    DRAPE_INSTANCE_KEEP_FP_ENVIRONMENT = 1u << 1,
    /* Depenetration, off by default. NOT the game's arithmetic: with it the motion departs from
     * the game's wherever it acts. The game's collision pass pushes a particle out of each
     * collidable it collides with once, in collidable order, so a particle wedged where two of
     * them overlap can end a step inside the earlier one (up to 1.7 cm on the corpus). With this
     * flag, after each simulate operator's step (after its last substep, before its particle
     * normals), every free particle still deeper than 1e-6 m inside a collidable it collides
     * with (the collidable's hull plus the particle's radius, where the step's collision had the
     * collidable; file and run-time collidables, every shape kind) is moved out onto that
     * surface along the collision's normal, and its previous position by the same offset, so no
     * velocity is added; no friction is applied. One round meets the collidables in order; a
     * further round revisits only the particles the last one moved, until a round moves nothing
     * or DRAPE_DEPENETRATION_ROUNDS rounds ran (a particle squeezed into a gap narrower than its
     * diameter between two collidables can stay inside one). Where no particle is inside, one
     * round reads the particles and writes nothing, and the step's result is the game's bits. */
    DRAPE_INSTANCE_DEPENETRATE = 1u << 2,
    /* Keep each particle's skinned place as the simulate operator read it, for
     * drape_instance_read_reference (a state may overwrite that buffer after the simulate
     * operator: Sekiro's hair copies its particles back into it). A copy per particle and step. */
    DRAPE_INSTANCE_RECORD_REFERENCE = 1u << 3
} drape_instance_flags;
/* The most rounds DRAPE_INSTANCE_DEPENETRATE runs per step. */
#define DRAPE_DEPENETRATION_ROUNDS 16

typedef struct drape_instance_def {
    uint32_t cloth;                  /* index of the cloth data */
    uint32_t flags;                  /* drape_instance_flags */
    uint32_t max_runtime_collidables; /* slots for drape_instance_set_collidable (default 8) */
    uint32_t max_wind_fields;        /* slots for drape_instance_set_wind (default 4) */
    drape_allocator allocator;       /* zeroed: the C library */
    uint32_t cookie;                 /* DRAPE_INSTANCE_DEF_COOKIE */
} drape_instance_def;

DRAPE_API drape_instance_def drape_default_instance_def(void);

/* Creates an instance of one cloth data of `file` (which must outlive it). All memory of the
 * instance is allocated here, in one block. The instance starts in state 0, every transform
 * and buffer matrix the identity, every particle at its rest pose. */
DRAPE_API drape_result drape_instance_create(const drape_cloth_file* file, const drape_instance_def* def,
                                             drape_instance** out_instance, drape_error* error);
DRAPE_API void drape_instance_destroy(drape_instance* instance); /* NULL is ignored */
/* The message of the instance's last failure (empty if none). */
DRAPE_API const char* drape_instance_error_message(const drape_instance* instance);

/* Per frame, before step: the transform set's world matrices, transforms [first, first+count). */
DRAPE_API drape_result drape_instance_set_transforms(drape_instance* instance, uint32_t first, uint32_t count,
                                                     const float* matrices);
/* A buffer's world-from-mesh matrix and its stored inverse (the game sets both; the display
 * buffers hold the character's root: docs/havok-cloth.md#at-run-time). mesh_from_world NULL:
 * computed as the affine inverse of world_from_mesh. */
DRAPE_API drape_result drape_instance_set_buffer_matrices(drape_instance* instance, uint32_t buffer,
                                                          const float* world_from_mesh, const float* mesh_from_world);
/* Display vertices the engine has already skinned (the game hands the cloth the mesh it has
 * skinned, docs/havok-cloth.md#display-buffers; the input-convert operators read them). xyz
 * triples in mesh space, `count` must equal the buffer's vertex count; normals/tangents may be
 * NULL. Kept until replaced.
 * Until a buffer's positions are handed in, its input conversion skins the buffer itself with
 * the file's own skin of that mesh (the skin operators of the cloth data's `_Skin` state, the
 * same bones and weights as the model's), at the cost of one display skin per step; a buffer
 * that state does not skin gets the buffer's previous output. */
DRAPE_API drape_result drape_instance_set_display_vertices(drape_instance* instance, uint32_t buffer, uint32_t count,
                                                           const float* positions, const float* normals,
                                                           const float* tangents);
/* The triangles of a display buffer (the drawn mesh's first face set, 3 indices each, winding of
 * the model): a display buffer's definition carries none, the vertex-frame operators need them.
 * `count` triangles, at most the buffer's triangle count. */
DRAPE_API drape_result drape_instance_set_buffer_triangles(drape_instance* instance, uint32_t buffer, uint32_t count,
                                                           const uint16_t* indices);

/* The current state (the operator list step runs). By index or by name. */
DRAPE_API drape_result drape_instance_select_state(drape_instance* instance, uint32_t state);
DRAPE_API drape_result drape_instance_select_state_by_name(drape_instance* instance, const char* name);
DRAPE_API uint32_t drape_instance_state(const drape_instance* instance);

/* Run-time collidables (docs/havok-cloth.md#collidables-added-at-run-time). Shape kinds: */
typedef enum drape_shape_kind {
    DRAPE_SHAPE_SPHERE = 1,          /* a: centre xyz, radius w */
    DRAPE_SHAPE_PLANE = 2,           /* a: normal xyz, offset w (listed only: not a run-time collidable) */
    DRAPE_SHAPE_CAPSULE = 3,         /* a: start xyz radius w, b: end xyz */
    DRAPE_SHAPE_TAPERED_CAPSULE = 4, /* a: small end xyz radius w, b: big end xyz radius w */
    DRAPE_SHAPE_CONVEX_GEOMETRY = 5  /* tetrahedra; a and b zero (listed only) */
} drape_shape_kind;
typedef struct drape_collidable {
    drape_shape_kind kind;
    float a[4], b[4];          /* the shape in its own frame */
    float transform[16];       /* world from shape */
    float linear_velocity[4];  /* m/s */
    float angular_velocity[4]; /* rad/s */
    uint32_t enabled;
} drape_collidable;
/* Sets slot `slot` (< max_runtime_collidables) of sim cloth `sim`: a sphere, capsule or tapered capsule. */
DRAPE_API drape_result drape_instance_set_collidable(drape_instance* instance, uint32_t sim, uint32_t slot,
                                                     const drape_collidable* collidable);
/* A global wind force field (docs/havok-cloth.md#the-elden-ring-wind-action): unit direction,
 * speed m/s. speed 0 removes the field. */
DRAPE_API drape_result drape_instance_set_wind(drape_instance* instance, uint32_t slot, const float direction[3],
                                               float speed);

/* Runs the current state's operators in order with the game's variable time step dt (s, > 0). */
DRAPE_API drape_result drape_instance_step(drape_instance* instance, float dt);
/* Many characters on the host's threads. The runtime has no thread of its own: it hands its work
 * to the host's task system, as box2d does. enqueue runs task(begin, end, worker, task_context)
 * over [0, count), split into ranges of at least min_range as the host likes, possibly on other
 * threads (worker < worker_count identifies the thread), and returns a handle that finish waits
 * for; it may also run everything before returning and return NULL. */
typedef void drape_task_fn(uint32_t begin, uint32_t end, uint32_t worker, void* task_context);
typedef struct drape_task_system {
    void* (*enqueue)(drape_task_fn* task, uint32_t count, uint32_t min_range, void* task_context, void* user);
    void (*finish)(void* handle, void* user);
    void* user;
    uint32_t worker_count;
} drape_task_system;
/* Steps `count` distinct instances by dt through `tasks` (NULL: one after another on this thread).
 * The same bits as stepping each with drape_instance_step; allocates nothing. Returns the first
 * failure's code (each failed instance keeps its message), else DRAPE_RESULT_OK. */
DRAPE_API drape_result drape_instances_step(drape_instance* const* instances, uint32_t count, float dt, const drape_task_system* tasks);
/* Steps at a fixed rate (the games': 1/30 s) however often the host calls: adds seconds x
 * time_scale to the instance's accumulator and runs drape_instance_step(step_seconds) while a
 * whole step is owed, at most max_steps times (time owed beyond that is dropped, so a stalled
 * host does not fall behind for good). Every step of one call uses the transforms last set.
 * time_scale 0 pauses; out_steps (may be NULL) gets the steps run. The accumulator starts at 0,
 * drape_instance_reset empties it, and it is part of the saved state. */
DRAPE_API drape_result drape_instance_advance(drape_instance* instance, float seconds, float time_scale, float step_seconds,
                                              uint32_t max_steps, uint32_t* out_steps);
/* Saving and restoring an instance (scrubbing a timeline): everything it holds that changes
 * (particles, transforms, buffers, run-time collidables, wind, the current state, the advance
 * accumulator) as `drape_instance_state_size` bytes. A state is restored only into the instance
 * that saved it (INVALID_ARGUMENT otherwise); it is not a file format. Neither allocates. */
DRAPE_API size_t drape_instance_state_size(const drape_instance* instance);
DRAPE_API drape_result drape_instance_save_state(const drape_instance* instance, void* out, size_t capacity);
DRAPE_API drape_result drape_instance_restore_state(drape_instance* instance, const void* state, size_t size);
/* Puts every particle on its animated position, velocities zero: when the cloth data has the
 * states "_preAtoS_" S and "_curAtoS_" S beside the current state S (every corpus file does),
 * runs them (they skin the display mesh and gather it into the previous positions and the
 * particles), then runs S's operators except simulate; otherwise runs S's operators except
 * simulate and places each free particle on its reference vertex, else on its rest pose through
 * the sim's first display buffer's world-from-mesh. */
DRAPE_API drape_result drape_instance_reset(drape_instance* instance);
/* Moves every particle (and its previous position) by `world_delta` (world from old world), so
 * a character that jumps across the world keeps its cloth's shape and velocity in its frame. */
DRAPE_API drape_result drape_instance_teleport(drape_instance* instance, const float* world_delta);

/* ---- reading ---------------------------------------------------------------------------- */

/* Particle positions of sim cloth `sim`, xyz triples in world space; capacity in floats. */
DRAPE_API drape_result drape_instance_read_particles(const drape_instance* instance, uint32_t sim, float* out_xyz,
                                                     size_t capacity);
/* With DRAPE_INSTANCE_RECORD_REFERENCE: each particle's reference vertex (of the sim cloth's
 * first local-range or transition set) as the last step's simulate operator read it, six floats
 * per particle (position xyz, then normal xyz), NaN for a particle without one or before the
 * first step; capacity in floats. DRAPE_RESULT_INVALID_ARGUMENT without the flag. */
DRAPE_API drape_result drape_instance_read_reference(const drape_instance* instance, uint32_t sim, float* out_xyz_normal,
                                                     size_t capacity);
/* The world transform (16 floats, four columns, c3 the translation) of the sim cloth's file
 * collidable `collidable` (its index in the sim cloth's collidable list) as the last step's
 * collision used it: driven to its bone and moved by its velocities each substep. */
DRAPE_API drape_result drape_instance_read_collidable_transform(const drape_instance* instance, uint32_t sim,
                                                                uint32_t collidable, float out_matrix[16]);
typedef enum drape_stream {
    DRAPE_STREAM_POSITION = 0,
    DRAPE_STREAM_NORMAL = 1,
    DRAPE_STREAM_TANGENT = 2,
    DRAPE_STREAM_BITANGENT = 3
} drape_stream;
/* A buffer's stream (mesh space of the buffer), xyz triples; capacity in floats. */
DRAPE_API drape_result drape_instance_read_buffer(const drape_instance* instance, uint32_t buffer, drape_stream stream,
                                                  float* out_xyz, size_t capacity);
/* Transforms [first, first+count) of the transform set as they are after the last step (the
 * bones the cloth drives included), 16 floats each. */
DRAPE_API drape_result drape_instance_read_transforms(const drape_instance* instance, uint32_t first, uint32_t count,
                                                      float* out_matrices);

#ifdef __cplusplus
}
#endif
#endif
