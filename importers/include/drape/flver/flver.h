// drape: FLVER2 models (docs/formats.md#flver2): nodes (bones), dummy polys, materials, meshes with
// their face sets and decoded vertices.
//
// Supported versions: 0x20009..0x2001B (DS2, DS1R, BB, DS3, Sekiro, ER, AC6 test files);
// the reader is tested on 0x20014 (DS3, BB) and 0x2001A (ER). Anything else, FLVER0 (DeS)
// and big-endian PS3/X360 files with Edge-compressed buffers, is refused with an
// "unsupported" error naming the version.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "drape/io/reader.h"

namespace drape::flver {

struct Vec2 {
    float x = 0, y = 0;
};
struct Vec3 {
    float x = 0, y = 0, z = 0;
};
struct Vec4 {
    float x = 0, y = 0, z = 0, w = 0;
};

inline constexpr int32_t k_version_min = 0x20009;
inline constexpr int32_t k_version_max = 0x2001B;
// Caps that keep a hostile file from asking for absurd work; far above any game file.
inline constexpr uint32_t k_max_vertices_per_mesh = 1u << 24;
inline constexpr uint32_t k_max_layout_members = 64;

// Face set flags (SoulsFormats FLVER2.FaceSet.FSFlags).
inline constexpr uint32_t k_faceset_lod1 = 0x01000000;
inline constexpr uint32_t k_faceset_lod2 = 0x02000000;
inline constexpr uint32_t k_faceset_lod_ex = 0x04000000;
inline constexpr uint32_t k_faceset_edge_compressed = 0x40000000;
inline constexpr uint32_t k_faceset_motion_blur = 0x80000000;

// Vertex layout semantics (docs/formats.md#vertex-layouts).
enum class Semantic : uint32_t {
    position = 0,
    bone_weights = 1,
    bone_indices = 2,
    normal = 3,
    uv = 5,
    tangent = 6,
    bitangent = 7,
    vertex_color = 10,
};

struct Header {
    bool big_endian = false;
    int32_t version = 0;
    int32_t data_offset = 0;
    int32_t data_length = 0;
    Vec3 bbox_min, bbox_max;
    int32_t true_face_count = 0;
    int32_t total_face_count = 0;
    uint8_t vertex_index_size = 0;  // 0 = per face set
    bool unicode = true;
    bool unk4a = false;
    int32_t unk4c = 0;
    uint8_t unk5c = 0, unk5d = 0;
    int32_t unk68 = 0;
    int32_t unk74 = 0;
};

// A dummy poly (SoulsFormats FLVER.Dummy): a named point on a node.
struct Dummy {
    Vec3 position;
    std::array<uint8_t, 4> color{};  // as stored (ARGB; BGRA for 0x20010)
    Vec3 forward;
    int16_t reference_id = 0;
    int16_t parent_node = -1;  // "parentBoneIndex": the space position/forward/upward are in
    Vec3 upward;
    int16_t attach_node = -1;  // the node it follows
    bool flag1 = false;
    bool use_upward = false;
    int32_t unk30 = 0, unk34 = 0;
};

struct Texture {
    std::string path;  // as stored, e.g. N:\FDP\data\...\HD_M_7200_a.tif
    std::string type;  // shader slot, e.g. g_DiffuseTexture
    Vec2 scale{1, 1};
    uint8_t tiling_u = 0, tiling_v = 0;
    float unk14 = 0, unk18 = 0, unk1c = 0;
};

// A shader parameter of the material's MATBIN / MTD (drape::matbin::Param, flattened).
struct MaterialParam {
    std::string name;
    std::string type;            // "bool", "int", "int2", "float" .. "float5"
    std::vector<double> values;  // bools as 0 / 1
};

struct Material {
    std::string name;
    std::string mtd;  // MTD (DS3) or MATBIN/matxml (ER) path
    std::vector<Texture> textures;
    int32_t flags = 0;
    int32_t gx_offset = 0;  // 0 = no GX list (the list itself is not decoded)
    int32_t index = 0;
    // Filled by drape::game::resolve_material_textures (not by the FLVER reader): the MATBIN /
    // MTD the `mtd` path names, its shader and parameters; empty when not resolved.
    std::string definition;  // member name in its binder
    std::string shader;
    std::vector<MaterialParam> params;
};

// A node (bone) with its bind pose relative to its parent (SoulsFormats FLVER.Node).
// Local matrix, column-vector form: T * Ry * Rz * Rx * S (docs/formats.md#flver-records).
struct Node {
    std::string name;
    Vec3 translation;
    Vec3 rotation;  // Euler radians
    Vec3 scale{1, 1, 1};
    int16_t parent = -1, first_child = -1, next_sibling = -1, previous_sibling = -1;  // negative = none
    Vec3 bbox_min, bbox_max;
    int32_t flags = 0;
};

struct FaceSet {
    uint32_t flags = 0;
    bool triangle_strip = false;
    bool cull_backfaces = false;
    int16_t unk06 = 0;
    uint8_t index_size = 16;        // 16 or 32 bits as stored
    std::vector<uint32_t> indices;  // as stored (strips keep their 0xFFFF restarts)

    bool is_lod0() const { return (flags & (k_faceset_lod1 | k_faceset_lod2 | k_faceset_lod_ex)) == 0; }
    bool is_motion_blur() const { return (flags & k_faceset_motion_blur) != 0; }
    // Triangles as index triples, winding as stored: strips are unrolled (winding alternates,
    // a restart resets it; 0xFFFF restarts only when the mesh has fewer than 65535 vertices,
    // 0xFFFFFFFF in 32-bit sets), degenerate triangles (two equal indices) are dropped.
    std::vector<std::array<uint32_t, 3>> triangles(uint32_t vertex_count) const;
};

struct LayoutMember {
    int32_t unk00 = 0;
    int32_t struct_offset = 0;
    uint32_t type = 0;
    uint32_t semantic = 0;
    int32_t index = 0;
};

struct BufferLayout {
    std::vector<LayoutMember> members;
    uint32_t size() const;  // sum of the member sizes
};

struct VertexBuffer {
    int32_t buffer_index = 0;
    int32_t layout_index = 0;
    int32_t vertex_size = 0;
    int32_t vertex_count = 0;
    int32_t buffer_length = 0;
    int32_t buffer_offset = 0;  // relative to Header::data_offset
};

// Decoded vertex attributes of one mesh, one vector per attribute (empty = absent).
struct Vertices {
    uint32_t count = 0;
    std::vector<Vec3> positions;
    std::vector<Vec3> normals;
    std::vector<int32_t> normal_w;  // the normal's w as an integer (rigid meshes: the node index)
    std::vector<std::vector<Vec4>> tangents;  // per tangent slot, xyz + w sign
    std::vector<Vec4> bitangents;
    std::vector<std::vector<Vec2>> uvs;  // per UV set, in layout order (two-set types add two)
    std::vector<std::vector<Vec4>> colors;  // RGBA 0..1
    // Bone indices are FLVER node indices (16 bits: Gundyr has 274 bones). For versions before
    // 0x2000E they are already remapped through the mesh's bone list.
    std::vector<std::array<uint16_t, 4>> bone_indices;
    std::vector<Vec4> bone_weights;
};

struct Mesh {
    bool dynamic = false;  // 1: skinned, model space; 0: rigid, each vertex in the space of node normal_w
    int32_t material = 0;
    int32_t default_node = -1;
    std::vector<int32_t> bone_indices;  // the mesh's bone list (empty in DS3/BB/ER)
    bool has_bbox = false;
    // As stored (docs/formats.md#flver-records: min, max, + a third vector from 0x2001A). On the
    // ER map piece in the corpus the first two do not look like min/max (min > max) and the
    // third lies inside the mesh: kept raw, not used by the exporter.
    Vec3 bbox_min, bbox_max, bbox_unk;
    std::vector<FaceSet> face_sets;
    std::vector<VertexBuffer> vertex_buffers;
    Vertices vertices;

    // The first LOD0 face set that is not motion blur (nullptr when none).
    const FaceSet* lod0() const;
};

struct Model {
    Header header;
    std::vector<Dummy> dummies;
    std::vector<Material> materials;
    std::vector<Node> nodes;
    std::vector<Mesh> meshes;
    std::vector<BufferLayout> layouts;
    // What the reader accepted although the file breaks a rule the game's own reader does not
    // care about, one line each (at most one per kind and file): e.g. node links past the last
    // node, written by community editors, read as none. Callers print them as warnings.
    std::vector<std::string> warnings;
};

// Size in bytes of a layout member type code, 0 if unknown.
uint32_t member_type_size(uint32_t type);

bool is_flver(Bytes data);
// Reads a FLVER2 file. Never throws; errors name the offset and field. What it accepts leniently
// (node links out of range) is listed in Model::warnings.
Result<Model> read_flver(Bytes data);

// The display mask of a material named "#NN#..." (NN decimal), or -1.
int display_mask(const std::string& material_name);

}  // namespace drape::flver
