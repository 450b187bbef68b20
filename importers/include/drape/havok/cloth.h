// drape: typed views of Havok Cloth (hcl) objects, for every class of the games' census
// (docs/havok-cloth.md#the-census; layouts: docs/formats.md#havok-cloth-classes). Built on the
// generic view by member name, so the same code reads DS3/BB 2014 packfiles, Sekiro 2016
// (hclSimClothData v13) and Elden Ring 2018 (v14) tagfiles.
// Members a version does not have stay at their defaults. Packed data (local blocks, weight
// bytes, packed vectors) is kept as stored.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "drape/havok/animation.h"
#include "drape/havok/hkx.h"

namespace drape::hcl {

using havok::Vec4;
using Mat4 = std::array<float, 16>;  // hkMatrix4 / hkTransform as stored (4 columns)

struct BufferAccess {  // hclClothState::BufferAccess
    bool operator==(const BufferAccess&) const = default;
    uint32_t buffer_index = 0;
    std::array<uint8_t, 4> per_component_flags{};
    bool triangles_read = false;
    uint32_t shadow_buffer_index = 0;
};

struct TransformSetAccess {  // hclClothState::TransformSetAccess
    bool operator==(const TransformSetAccess&) const = default;
    uint32_t transform_set_index = 0;
    std::array<uint8_t, 2> per_component_flags{};
};

struct BufferLayout {
    bool operator==(const BufferLayout&) const = default;
    struct Element {
        bool operator==(const Element&) const = default;
        uint8_t vector_conversion = 0, vector_size = 0, slot_id = 0, slot_start = 0;
    };
    struct Slot {
        bool operator==(const Slot&) const = default;
        uint8_t flags = 0, stride = 0;
    };
    std::array<Element, 4> elements{};
    std::array<Slot, 4> slots{};
    uint8_t num_slots = 0, triangle_format = 0;
};

struct BufferDefinition {  // hclBufferDefinition, hclScratchBufferDefinition, hclShadowBufferDefinition
    bool operator==(const BufferDefinition&) const = default;
    uint32_t item = 0;
    std::string class_name;
    std::string name;
    int32_t type = 0, sub_type = 0;
    uint32_t num_vertices = 0, num_triangles = 0;
    BufferLayout layout;
    std::vector<uint16_t> triangle_indices;                   // scratch, shadow
    bool store_normals = false, store_tangents_and_bitangents = false;  // scratch
    bool shadow_positions = false, shadow_normals = false, shadow_tangents = false, shadow_bitangents = false;
};

struct TransformSetDefinition {
    bool operator==(const TransformSetDefinition&) const = default;
    uint32_t item = 0;
    std::string name;
    int32_t type = 0;
    uint32_t num_transforms = 0;
};

struct ClothState {
    bool operator==(const ClothState&) const = default;
    uint32_t item = 0;
    std::string name;
    std::vector<uint32_t> operators;
    std::vector<BufferAccess> used_buffers;
    std::vector<TransformSetAccess> used_transform_sets;
    std::vector<uint32_t> used_sim_cloths;
};

// ---- constraint sets -------------------------------------------------------------------

enum class ConstraintKind : uint8_t {
    standard_link, stretch_link, bend_link, bend_stiffness, compressible_link, local_range, transition, volume_mx, other
};
const char* constraint_kind_name(ConstraintKind k);

struct Link {  // standard and stretch
    bool operator==(const Link&) const = default;
    uint16_t particle_a = 0, particle_b = 0;
    float rest_length = 0, stiffness = 0;
};
struct BendLink {
    bool operator==(const BendLink&) const = default;
    uint16_t particle_a = 0, particle_b = 0;
    float bend_min_length = 0, stretch_max_length = 0, bend_stiffness = 0, stretch_stiffness = 0;
};
struct BendStiffnessLink {
    bool operator==(const BendStiffnessLink&) const = default;
    float weight_a = 0, weight_b = 0, weight_c = 0, weight_d = 0, bend_stiffness = 0, rest_curvature = 0;
    uint16_t particle_a = 0, particle_b = 0, particle_c = 0, particle_d = 0;
};
struct CompressibleLink {
    bool operator==(const CompressibleLink&) const = default;
    uint16_t particle_a = 0, particle_b = 0;
    float rest_length = 0, compression_length = 0, stiffness = 0;
};
struct LocalConstraint {
    bool operator==(const LocalConstraint&) const = default;
    uint16_t particle_index = 0, reference_vertex = 0;
    float maximum_distance = 0, max_normal_distance = 0, min_normal_distance = 0;
};
struct TransitionParticle {
    bool operator==(const TransitionParticle&) const = default;
    uint16_t particle_index = 0, reference_vertex = 0;
    float to_anim_delay = 0, to_sim_delay = 0, to_sim_max_distance = 0;
};
struct VolumeEntry {  // hclVolumeConstraintMx Frame/Apply single data; a batch is 16 of them
    bool operator==(const VolumeEntry&) const = default;
    Vec4 frame_vector{};
    uint16_t particle_index = 0;
    float weight_or_stiffness = 0;
};

struct ConstraintSet {
    bool operator==(const ConstraintSet&) const = default;
    uint32_t item = 0;
    std::string class_name;
    ConstraintKind kind = ConstraintKind::other;
    std::string name;
    uint32_t constraint_id = 0;  // ER only (docs/havok-cloth.md#stored-type-members)
    std::vector<Link> links;      // standard, stretch
    std::vector<BendLink> bend_links;
    std::vector<BendStiffnessLink> bend_stiffness_links;
    float max_rest_pose_height_sq = 0;
    bool clamp_bend_stiffness = false, use_rest_pose_config = false;
    std::vector<CompressibleLink> compressible_links;
    // local range
    std::vector<LocalConstraint> local_constraints;
    uint32_t reference_mesh_buffer_idx = 0;  // local range and transition
    float stiffness = 0;
    uint32_t shape_type = 0;
    bool apply_normal_component = false;
    // transition
    std::vector<TransitionParticle> transition_particles;
    float to_anim_period = 0, to_anim_plus_delay_period = 0, to_sim_period = 0, to_sim_plus_delay_period = 0;
    // volume Mx: batches flattened (16 entries each), then singles
    std::vector<VolumeEntry> frame_batches, frame_singles, apply_batches, apply_singles;
};

// ---- collidables -------------------------------------------------------------------------

enum class ShapeKind : uint8_t { sphere, plane, capsule, tapered_capsule, convex_geometry, other };
const char* shape_kind_name(ShapeKind k);

struct Shape {
    bool operator==(const Shape&) const = default;
    uint32_t item = 0;
    std::string class_name;
    ShapeKind kind = ShapeKind::other;
    Vec4 sphere{};          // sphere: centre xyz, radius presumably w (docs/formats.md#havok-cloth-classes)
    Vec4 plane_equation{};  // plane
    // capsule
    Vec4 start{}, end{}, dir{};
    float radius = 0, cap_len_sqrd_inv = 0;
    // tapered capsule
    Vec4 small{}, big{}, cone_apex{}, cone_axis{}, l_vec{}, d_vec{}, tan_theta_vec_neg{};
    float small_radius = 0, big_radius = 0, l = 0, d = 0, cos_theta = 0, sin_theta = 0, tan_theta = 0, tan_theta_sqr = 0;
    // convex geometry
    std::vector<uint16_t> tetrahedra_grid;
    std::vector<uint8_t> grid_cells;
    std::vector<Mat4> tetrahedra_equations;
    Mat4 local_from_world{}, world_from_local{};
    Vec4 aabb_min{}, aabb_max{}, geom_centroid{}, inv_cell_size{};
    uint16_t grid_res = 0;
};

struct Collidable {
    bool operator==(const Collidable&) const = default;
    uint32_t item = 0;
    std::string name;
    Mat4 transform{};
    Vec4 linear_velocity{}, angular_velocity{};
    uint64_t user_data = 0;
    std::optional<Shape> shape;
    float pinch_detection_radius = 0;
    int8_t pinch_detection_priority = 0;
    bool pinch_detection_enabled = false, virtual_collision_point_collision_enabled = false, enabled = true;
};

// ---- sim cloth -------------------------------------------------------------------------

struct ParticleData {
    bool operator==(const ParticleData&) const = default;
    float mass = 0, inv_mass = 0, radius = 0, friction = 0;
};

struct SimClothPose {
    bool operator==(const SimClothPose&) const = default;
    uint32_t item = 0;
    std::string name;
    std::vector<Vec4> positions;
};

struct SimulationInfo {  // hclSimClothData::OverridableSimulationInfo
    bool operator==(const SimulationInfo&) const = default;
    Vec4 gravity{};
    float global_damping_per_second = 0;
    float collision_tolerance = 0;  // 2014
    uint32_t sub_steps = 0;         // 2014
    bool pinch_detection_enabled = false, landscape_collision_enabled = false, transfer_motion_enabled = false;  // 2014
};

struct CollidableTransformMap {
    bool operator==(const CollidableTransformMap&) const = default;
    int32_t transform_set_index = -1;
    std::vector<uint32_t> transform_indices;
    std::vector<Mat4> offsets;
};

struct LandscapeCollisionData {
    bool operator==(const LandscapeCollisionData&) const = default;
    float landscape_radius = 0;
    bool enable_stuck_particle_detection = false;
    float stuck_particles_stretch_factor_sq = 0;
    bool pinch_detection_enabled = false;
    int8_t pinch_detection_priority = 0;
    float pinch_detection_radius = 0;
    float collision_tolerance = 0;  // 2018
};

struct TransferMotionData {
    bool operator==(const TransferMotionData&) const = default;
    uint32_t transform_set_index = 0, transform_index = 0;
    bool transfer_translation_motion = false, transfer_rotation_motion = false;
    float min_translation_speed = 0, max_translation_speed = 0, min_translation_blend = 0, max_translation_blend = 0;
    float min_rotation_speed = 0, max_rotation_speed = 0, min_rotation_blend = 0, max_rotation_blend = 0;
};

struct PinchingData {
    bool operator==(const PinchingData&) const = default;
    bool pinch_detection_enabled = false;
    int8_t pinch_detection_priority = 0;
    float pinch_detection_radius = 0;
};

// hclVirtualCollisionPointsData (2016/2018), as stored.
struct VirtualCollisionPoints {
    bool operator==(const VirtualCollisionPoints&) const = default;
    struct Block {
        bool operator==(const Block&) const = default;
        float safe_displacement_radius = 0;
        uint16_t starting_vcp_index = 0;
        uint8_t num_vcps = 0;
    };
    struct DictionaryEntry {
        bool operator==(const DictionaryEntry&) const = default;
        uint16_t starting_barycentric_index = 0;
        uint8_t num_barycentrics = 0;
    };
    struct EdgeFanSection {
        bool operator==(const EdgeFanSection&) const = default;
        uint16_t opposite_real_particle_index = 0, barycentric_dictionary_index = 0;
    };
    struct EdgeFan {  // landscape fans also use vcp_start_index
        bool operator==(const EdgeFan&) const = default;
        uint16_t real_particle_index = 0, edge_start_index = 0, vcp_start_index = 0;
        uint8_t num_edges = 0;
    };
    struct TriangleFanSection {
        bool operator==(const TriangleFanSection&) const = default;
        std::array<uint16_t, 2> opposite_real_particle_indices{};
        uint16_t barycentric_dictionary_index = 0;
    };
    struct TriangleFan {  // landscape fans also use triangle_start_index
        bool operator==(const TriangleFan&) const = default;
        uint16_t real_particle_index = 0, triangle_start_index = 0, vcp_start_index = 0;
        uint8_t num_triangles = 0;
    };
    std::vector<Block> blocks;
    uint16_t num_vc_points = 0, num_landscape_vc_points = 0;
    std::vector<uint16_t> landscape_particles_block_index;
    std::vector<float> edge_barycentrics_dictionary;
    std::vector<DictionaryEntry> edge_dictionary_entries, triangle_dictionary_entries;
    std::vector<std::array<float, 2>> triangle_barycentrics_dictionary;  // {u, v}
    std::vector<EdgeFanSection> edges, edges_landscape;
    std::vector<EdgeFan> edge_fans, edge_fans_landscape;
    std::vector<TriangleFanSection> triangles, triangles_landscape;
    std::vector<TriangleFan> triangle_fans, triangle_fans_landscape;
    std::vector<uint16_t> edge_fan_indices, triangle_fan_indices, edge_fan_indices_landscape, triangle_fan_indices_landscape;
};

struct SimClothData {
    bool operator==(const SimClothData&) const = default;
    uint32_t item = 0;
    uint32_t version = 0;  // 13 Sekiro, 14 ER (docs/havok-cloth.md#where-the-cloth-is)
    std::string name;
    SimulationInfo simulation_info;
    std::vector<ParticleData> particles;
    std::vector<uint16_t> fixed_particles;
    bool do_normals = false;
    std::vector<uint32_t> sim_op_ids;
    std::vector<SimClothPose> poses;
    std::vector<ConstraintSet> static_constraint_sets;
    std::vector<ConstraintSet> anti_pinch_constraint_sets;
    CollidableTransformMap collidable_transform_map;
    std::vector<Collidable> per_instance_collidables;
    float max_particle_radius = 0;
    std::vector<uint32_t> static_collision_masks;
    size_t action_count = 0;
    float total_mass = 0;
    TransferMotionData transfer_motion;
    bool transfer_motion_enabled = false, landscape_collision_enabled = false;
    LandscapeCollisionData landscape_collision;
    uint32_t num_landscape_collidable_particles = 0;
    std::vector<uint16_t> triangle_indices;
    std::vector<uint8_t> triangle_flips;
    bool pinch_detection_enabled = false;
    std::vector<uint8_t> per_particle_pinch_detection_enabled;
    std::vector<PinchingData> collidable_pinching_datas;
    uint16_t min_pinched_particle_index = 0, max_pinched_particle_index = 0;
    uint32_t max_collision_pairs = 0;
    VirtualCollisionPoints virtual_collision_points;  // 2016/2018
};

// ---- operators -------------------------------------------------------------------------

enum class OperatorKind : uint8_t {
    simulate, move_particles, copy_vertices, gather_all_vertices, gather_some_vertices, input_convert, output_convert,
    update_all_vertex_frames, update_some_vertex_frames, simple_mesh_bone_deform, mesh_bone_deform,
    object_space_skin_p, object_space_skin_pn, object_space_skin_pnt, object_space_skin_pntb,
    bone_space_skin_p, bone_space_skin_pn, bone_space_skin_pnt, bone_space_skin_pntb,
    object_space_mesh_mesh_deform_p, object_space_mesh_mesh_deform_pn, object_space_mesh_mesh_deform_pnt, object_space_mesh_mesh_deform_pntb,
    bone_space_mesh_mesh_deform_p, bone_space_mesh_mesh_deform_pn, bone_space_mesh_mesh_deform_pnt, bone_space_mesh_mesh_deform_pntb,
    mesh_mesh_deform,  // 2014 hclMeshMeshDeformOperator
    other
};
const char* operator_kind_name(OperatorKind k);
OperatorKind operator_kind_of(std::string_view class_name);

struct SimulateConfig {
    bool operator==(const SimulateConfig&) const = default;
    std::string name;
    std::vector<int32_t> constraint_execution;
    std::vector<uint8_t> instance_collidables_used;
    uint8_t sub_steps = 1, number_of_solve_iterations = 1;
    bool use_all_instance_collidables = true, adapt_constraint_stiffness = false;
};

// One N-blend entry block of a deformer (object space N = 1..8, bone space N = 1..4), as stored.
struct BlendBlock {
    bool operator==(const BlendBlock&) const = default;
    uint8_t blends = 0;  // N
    std::vector<uint16_t> vertex_indices;
    std::vector<uint16_t> bone_indices;
    std::vector<uint16_t> bone_weights;  // u8 for N 2-4, u16 for N 5-8, empty for N 1 and bone space
};

struct Deformer {  // hclObjectSpaceDeformer / hclBoneSpaceDeformer
    bool operator==(const Deformer&) const = default;
    std::vector<BlendBlock> blocks;  // grouped by N, the order of the members (eight…one)
    std::vector<uint8_t> control_bytes;
    uint16_t start_vertex_index = 0, end_vertex_index = 0;
    bool partial_write = false;
};

// Local blocks of 16 vertices, flattened: packed = hkPackedVector3 {i16 x4}, unpacked = hkVector4.
struct LocalBlocks {
    bool operator==(const LocalBlocks&) const = default;
    std::vector<std::array<int16_t, 4>> packed_positions, packed_normals, packed_tangents, packed_bitangents;
    std::vector<Vec4> positions, normals, tangents, bitangents;  // unpacked blocks (and bone-space P/PN positions)
};

struct VertexParticlePair {
    bool operator==(const VertexParticlePair&) const = default;
    uint16_t vertex_index = 0, particle_index = 0;
};
struct TriangleBonePair {  // simple mesh bone deform
    bool operator==(const TriangleBonePair&) const = default;
    uint16_t bone_offset = 0, triangle_offset = 0;
};
struct MeshBoneTriangleBonePair {  // mesh bone deform
    bool operator==(const MeshBoneTriangleBonePair&) const = default;
    Mat4 local_bone_transform{};
    float weight = 0;
    uint16_t triangle_index = 0;
};
struct TriangleVertexPair {  // 2014 mesh-mesh deform
    bool operator==(const TriangleVertexPair&) const = default;
    Vec4 local_position{}, local_normal{};
    uint16_t triangle_index = 0;
    float weight = 0;
};

struct Operator {
    bool operator==(const Operator&) const = default;
    uint32_t item = 0;
    std::string class_name;
    OperatorKind kind = OperatorKind::other;
    std::string name;
    uint32_t operator_id = 0;
    std::vector<BufferAccess> used_buffers;                // 2016/2018
    std::vector<TransformSetAccess> used_transform_sets;  // 2016/2018

    // simulate (2014 stores one config's members on the operator itself)
    uint32_t sim_cloth_index = 0;  // simulate, move particles
    std::vector<SimulateConfig> configs;
    // move particles
    std::vector<VertexParticlePair> vertex_particle_pairs;
    uint32_t ref_buffer_idx = 0;
    // buffers and transform sets named by copy, gather, convert, skin, deform, frames operators
    uint32_t input_buffer_idx = 0, output_buffer_idx = 0;
    uint32_t transform_set_index = 0;  // skin; simple/mesh bone deform: outputTransformSetIdx
    // copy vertices
    uint32_t number_of_vertices = 0, start_vertex_in = 0, start_vertex_out = 0;
    bool copy_normals = false;
    // gather
    std::vector<int16_t> vertex_input_from_vertex_output;
    std::vector<std::pair<uint16_t, uint16_t>> gather_pairs;  // {indexInput, indexOutput}
    bool gather_normals = false, partial_gather = false;
    // input / output convert
    uint32_t user_buffer_index = 0, shadow_buffer_index = 0;
    std::vector<uint8_t> conversion_info;  // hclRuntimeConversionInfo, 42 bytes as stored
    // vertex frames
    uint32_t buffer_idx = 0, num_unique_normal_ids = 0;
    std::vector<uint16_t> vert_to_normal_id, reference_vertices, involved_vertices, selection_vertex_to_involved_vertex, involved_vertex_to_normal_id;
    std::vector<uint8_t> triangle_flips;
    std::vector<std::array<uint16_t, 3>> involved_triangles;
    std::vector<float> tangent_edge_cos_angle, tangent_edge_sin_angle, bitangent_flip;
    bool update_normals = false, update_tangents = false, update_bitangents = false;
    // bone deform
    std::vector<TriangleBonePair> triangle_bone_pairs;
    std::vector<Mat4> local_bone_transforms;
    std::vector<MeshBoneTriangleBonePair> mesh_bone_pairs;
    std::vector<uint16_t> triangle_bone_start_for_bone;
    // skin and mesh-mesh deform
    std::vector<Mat4> bone_from_skin_mesh_transforms;  // object-space skin
    std::vector<Mat4> triangle_from_mesh_transforms;   // object-space mesh-mesh deform
    std::vector<uint16_t> transform_subset;
    std::vector<uint16_t> input_triangles_subset;
    uint32_t scale_normal_behaviour = 0;
    bool custom_skin_deform = false;
    Deformer deformer;
    LocalBlocks local;
    // 2014 mesh-mesh deform
    std::vector<TriangleVertexPair> triangle_vertex_pairs;
    std::vector<uint16_t> triangle_vertex_start_for_vertex;
    uint16_t start_vertex = 0, end_vertex = 0;
    bool deform_normals = false, partial_deform = false;
};

struct ClothData {
    bool operator==(const ClothData&) const = default;
    uint32_t item = 0;
    std::string name;
    std::vector<SimClothData> sim_cloths;
    std::vector<BufferDefinition> buffers;
    std::vector<TransformSetDefinition> transform_sets;
    std::vector<Operator> operators;
    std::vector<ClothState> states;
    size_t state_transition_count = 0, action_count = 0;
    uint32_t target_platform = 0;
};

struct ClothContainer {
    bool operator==(const ClothContainer&) const = default;
    std::vector<Collidable> collidables;
    std::vector<ClothData> cloth_datas;
};

// Every hclClothContainer of the file (merged); or, without a container, every hclClothData.
Result<ClothContainer> read_cloth(const havok::File& file);
Result<ClothData> read_cloth_data(const havok::File& file, uint32_t item);
Result<SimClothData> read_sim_cloth(const havok::File& file, uint32_t item);
Result<ConstraintSet> read_constraint_set(const havok::File& file, uint32_t item);
Result<Operator> read_operator(const havok::File& file, uint32_t item);
Result<Collidable> read_collidable(const havok::File& file, uint32_t item);

// hkPackedVector3 decode (docs/formats.md#packed-vectors):
// x_i = f32(i32(u16(v[i]) << 16)) * f32bits(u32(u16(v[3])) << 16).
Vec4 unpack_vector3(const std::array<int16_t, 4>& v);

// ---- drape check -----------------------------------------------------------------------

struct Violation {
    bool operator==(const Violation&) const = default;
    std::string object;  // e.g. "hclSimClothData 'MeshSim' (item 5)"
    std::string member;  // e.g. "fixedParticles[3]"
    std::string message;
};

// Counts of hcl objects per class, as in the census (docs/havok-cloth.md#the-census).
std::vector<std::pair<std::string, size_t>> census(const havok::File& file);

// Every validity rule (docs/havok-cloth.md#validity-rules: particle indices, operator, state,
// buffer and transform set indices, constraint execution, move-particle pairs, reference
// vertices, copy ranges, whole triangles, collidable transform map, transform set vs skeleton). Empty = clean.
std::vector<Violation> check(const ClothContainer& cloth, const std::vector<havok::Skeleton>& skeletons);

}  // namespace drape::hcl
