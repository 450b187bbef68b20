// Test support: writes a FLVER2 model (docs/formats.md#flver2) from a plain description: nodes, materials
// with their textures, and skinned triangle-list meshes with one vertex buffer each. Used by the
// sample game (tests/support/sample_game.cpp); the reader (importers/flver) reads it back.
//
// Every mesh uses one layout of 48-byte vertices, as DS3 to Elden Ring store skinned meshes:
// position Float3, normal and tangent Byte4 ((b - 127) / 127), bone indices UShort4 (global node
// indices: the mesh's bone list stays empty as in DS3 and later), bone weights Short4Norm
// (/ 32767), two UV sets Short4 (/ 2048) and a colour Byte4.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace drape::test {

struct FlverNodeSpec {
    std::string name;
    std::array<float, 3> translation{0, 0, 0};  // local to the parent
    std::array<float, 3> rotation{0, 0, 0};     // Euler radians
    std::array<float, 3> scale{1, 1, 1};
    int16_t parent = -1;
    int32_t flags = 8;  // SFN NodeFlags: 4 mesh, 8 bone
};

struct FlverTextureSpec {
    std::string path, type;
};

struct FlverMaterialSpec {
    std::string name, mtd;
    std::vector<FlverTextureSpec> textures;
};

struct FlverVertexSpec {
    std::array<float, 3> position{}, normal{0, 1, 0};
    std::array<float, 4> tangent{1, 0, 0, 1};
    std::array<float, 2> uv{};
    std::array<uint16_t, 4> bones{};
    std::array<float, 4> weights{1, 0, 0, 0};
    std::array<uint8_t, 4> color{255, 255, 255, 255};
};

struct FlverMeshSpec {
    int32_t material = 0;
    int32_t default_node = -1;
    bool dynamic = true;
    std::vector<FlverVertexSpec> vertices;
    std::vector<uint16_t> indices;  // triangle list, clockwise seen from the front (the games' winding)
};

struct FlverDummySpec {
    std::array<float, 3> position{}, forward{0, 0, 1}, upward{0, 1, 0};
    int16_t reference_id = 0, parent_node = -1, attach_node = -1;
};

struct FlverSpec {
    int32_t version = 0x2001A;  // Sekiro and Elden Ring
    std::vector<FlverNodeSpec> nodes;
    std::vector<FlverMaterialSpec> materials;
    std::vector<FlverMeshSpec> meshes;
    std::vector<FlverDummySpec> dummies;
};

// The FLVER2 bytes (little-endian, UTF-16 strings). Node child/sibling links and bounding boxes
// (header, meshes, bones from the vertices they weight) are computed.
std::vector<uint8_t> write_flver(const FlverSpec& spec);

}  // namespace drape::test
