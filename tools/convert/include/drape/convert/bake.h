// drape: bakes a cloth's motion into a glTF 2.0 binary (.glb), so that any viewer that plays
// glTF animations (Blender, Godot, three.js) plays the cloth as the game's cloth program moves it.
//
// The cloth's display meshes get one morph target per baked frame (sparse: only the vertices that
// left their skinned place), and the clip's animation gets a `weights` channel on each such mesh
// that selects frame k's target at frame k's time (linear in between). The targets hold what the
// skin does not: target k of vertex v is M_v(t_k)^-1 * x_v(t_k) - bind_v, M_v the vertex's blended
// skin matrix at t_k, x_v the simulated position, so skin + morph puts the vertex exactly on the
// simulation at every baked frame, and the mesh keeps its skin for every other clip.
//
// Everything the input has (nodes, skins, clips, materials, textures) is kept; the new data is
// appended to the binary chunk. The input's accessors the bake reads must be tightly packed
// floats (drape's own exporters write them so); others are refused with an error.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "drape/io/error.h"
#include "drape/io/reader.h"

namespace drape::bake {

using Mat4 = std::array<double, 16>;  // column-major, column-vector (glTF's convention)
using Vec3f = std::array<float, 3>;

// A .glb opened for baking: its JSON, its binary chunk, and the readers the bake needs.
class Scene {
public:
    static Result<Scene> parse(Bytes glb);

    int find_animation(const std::string& name) const;  // -1 when absent
    std::vector<std::string> animation_names() const;
    double animation_duration(int animation) const;      // the largest key time of its samplers
    int find_node(const std::string& name) const;        // -1 when absent
    size_t node_count() const;
    std::string node_name(size_t node) const;

    // Every node's world matrix at time t of `animation` (-1: the nodes' own TRS, the rest pose).
    // Channels are sampled as glTF says: STEP, LINEAR (slerp for rotations), CUBICSPLINE.
    Result<std::vector<Mat4>> world_matrices(int animation, double t) const;
    // The same with some nodes' world matrices given (bones the cloth drives): each such node
    // gets the local matrix that puts it there under its parent, projected onto translation,
    // rotation and scale (what glTF channels hold: the origin is kept exactly, shear is lost),
    // returned in `given_local` (in `given`'s order); descendants follow.
    Result<std::vector<Mat4>> world_matrices(int animation, double t, const std::vector<std::pair<int, Mat4>>& given,
                                             std::vector<Mat4>* given_local = nullptr) const;

    // A mesh drawn by a node: its first primitive's positions (mesh space) and, when the node
    // has a skin, the joints (as node indices), weights and inverse bind matrices.
    struct Mesh {
        int mesh = -1, node = -1, skin = -1;
        std::string name, default_node;  // default_node: drape's extras (the FLVER node), may be empty
        std::vector<Vec3f> positions;
        std::vector<std::array<uint16_t, 4>> joints;  // node indices (resolved through the skin)
        std::vector<std::array<float, 4>> weights;
        std::vector<Mat4> inverse_bind;  // per joint of the skin, in the skin's joint order
        std::vector<int> skin_joints;    // the skin's joints (node indices)
    };
    std::vector<Mesh> meshes() const;  // every mesh a node draws, in node order
    // The first primitive's triangle indices of glTF mesh `mesh` (empty when it has none).
    Result<std::vector<uint32_t>> triangles(int mesh) const;

    // Adds an animation `name` that turns and sways `node` about the vertical axis and side to
    // side (a procedural motion for characters without a clip): `seconds` long, keyed at `rate`.
    Result<int> add_sway(const std::string& name, int node, double seconds, double rate);

    // Internals shared with the writer.
    struct Impl;
    std::shared_ptr<Impl> impl;
};

// The motion of one mesh: final positions (glTF scene space) of every vertex at every frame.
struct MeshMotion {
    int mesh = -1;  // Scene::Mesh::mesh
    std::vector<std::vector<Vec3f>> frames;
};

// The motion of one bone the cloth drives: its world matrix (glTF scene space) at every frame.
struct BoneMotion {
    int node = -1;
    std::vector<Mat4> frames;
};

struct WriteOptions {
    // Vertices whose morph offset is below this (metres) stay out of a frame's sparse target.
    float epsilon = 1e-5f;
};

struct WriteReport {
    size_t targets = 0;          // morph targets added (per mesh: one per frame)
    size_t stored_vertices = 0;  // vertex offsets stored over all targets
    size_t bytes_added = 0;      // growth of the binary chunk
    double max_offset = 0;       // largest distance of a vertex from its skinned place (metres)
    size_t bone_channels = 0;    // translation/rotation/scale channels written for driven bones
};

// Adds the motions to `scene` as morph targets keyed on `animation` at `times` (seconds, one per
// frame of every motion), and the driven bones' motions as translation, rotation and scale
// channels of their nodes on `animation` (replacing the clip's own channels of those nodes; the
// morph targets are taken against the skin as these bones move it), and returns the new .glb.
Result<std::vector<uint8_t>> write_baked(Scene& scene, int animation, std::span<const double> times,
                                         std::span<const MeshMotion> motions, std::span<const BoneMotion> bones,
                                         const WriteOptions& options = {}, WriteReport* report = nullptr);

// ---- driving a cloth -------------------------------------------------------------------

// What the bake needs of a running cloth; implemented over drape's runtime (bake_runtime.h).
class Cloth {
public:
    virtual ~Cloth() = default;
    // The transform set's bones, in order (matched to glTF nodes by name).
    virtual std::vector<std::string> bone_names() const = 0;
    struct DisplayBuffer {
        std::string name;  // the FLVER mesh's default node the buffer is bound to (docs/havok-cloth.md)
        std::string mesh;  // the glTF mesh it drives when the cloth file records it (else empty)
        uint32_t vertices = 0;
    };
    virtual std::vector<DisplayBuffer> display_buffers() const = 0;
    // Once, before the first step: the display meshes' triangles (glTF indices, the model's
    // winding) and the bones of the first frame, to put the cloth on its animated pose.
    virtual Result<void> set_display_triangles(size_t, std::span<const uint32_t>) { return {}; }
    virtual Result<void> start(std::span<const Mat4>) { return {}; }
    // Each frame before the step: a display mesh as the engine skinned it (game space), which
    // the cloth's input conversion reads (docs/havok-cloth.md: the game hands the cloth its skinned mesh).
    virtual Result<void> set_skinned_display(size_t, std::span<const Vec3f>) { return {}; }
    // World matrices of the transform set's bones in the game's space (column-major), then one
    // step of `dt` seconds.
    virtual Result<void> step(std::span<const Mat4> bones, float dt) = 0;
    // Display buffer `index`'s positions (game space) after the last step.
    virtual Result<void> display_positions(size_t index, std::span<Vec3f> out) const = 0;
    // The bones the cloth writes itself (bone deform operators), as indices of bone_names(),
    // and their world matrices (game space, in that order) after the last step.
    virtual std::vector<size_t> driven_bones() const { return {}; }
    virtual Result<void> driven_matrices(std::span<Mat4>) const { return {}; }
};

struct BakeOptions {
    std::string clip;    // glTF animation to bake; empty: the first, or a sway when there is none
    bool sway = false;   // bake a procedural sway of the root instead of a clip
    double rate = 30;    // frames per second (the games step cloth at 30 Hz)
    double sway_seconds = 4;
    double start_seconds = 0;  // bake the clip from this time on (clamped to the clip)
    double max_seconds = 0;    // at most this long a stretch of the clip (0: to its end)
    int warmup_steps = 30;  // steps at the first frame's pose before recording, to settle the cloth
    // bake_with_runtime: the runtime's opt-in depenetration (DRAPE_INSTANCE_DEPENETRATE, not the
    // game's arithmetic): particles left inside a collidable after a step are moved out.
    bool depenetrate = false;
    WriteOptions write;
};

struct BakeReport {
    std::string animation;  // the animation the motion was keyed on
    size_t frames = 0;
    std::vector<std::string> meshes;  // glTF meshes that got motion
    std::vector<std::string> driven_bones;  // nodes the cloth drives, keyed as channels
    double max_offset = 0;            // largest distance of a cloth vertex from its skinned place
    WriteReport write;
};

// The game's space and glTF's differ by drape's mirror (z negated, docs/model-export.md).
Mat4 game_from_gltf(const Mat4& gltf_world);

// Runs `cloth` over the clip (or the sway) of `glb` and returns the baked .glb.
Result<std::vector<uint8_t>> bake(Bytes glb, Cloth& cloth, const BakeOptions& options = {}, BakeReport* report = nullptr);

}  // namespace drape::bake
