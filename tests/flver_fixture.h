// Test helper: writes a small synthetic FLVER2 from the layout in docs/formats.md#flver2, and records
// where each record went so tests can patch single fields.
#pragma once

#include <cstdint>
#include <array>
#include <cstring>
#include <string>
#include <vector>

namespace drape::test {

struct FlverFixture {
    int32_t version = 0x20014;
    uint32_t node_count = 2;
    uint16_t bone_index = 1;        // every vertex's first bone index
    std::vector<int32_t> mesh_bones;  // the mesh's bone list (empty in DS3 and later)
    bool strip = false;
    bool dynamic = true;
    uint8_t normal_w = 0;           // the normal's w byte (rigid meshes: the vertex's node)
    bool index32 = false;           // 32-bit face set indices
    uint32_t mesh_count = 1;        // extra meshes repeat mesh 0's record (same lists)
    // A custom layout: members {type, semantic, index} and the bytes of one vertex (used for
    // all four vertices). Empty = the default layout below.
    std::vector<std::array<uint32_t, 3>> custom_members;
    std::vector<uint8_t> custom_vertex;

    // Offsets of the records in the last build().
    struct Offsets {
        size_t dummy, material, node, mesh, faceset, vertex_buffer, layout, texture, members, member_count,
            faceset_list, vb_list, bone_list, data, indices, vertices;
    } at{};

    static constexpr uint32_t k_vertex_size = 48;
    static constexpr uint32_t k_vertex_count = 4;

    static uint32_t type_size(uint32_t t) {
        switch (t) {
            case 0x01: case 0x16: case 0x18: case 0x1A: case 0x2E: return 8;
            case 0x02: return 12;
            case 0x03: return 16;
            default: return 4;
        }
    }

    std::vector<uint8_t> build() {
        std::vector<uint8_t> b;
        auto put = [&](const void* p, size_t n) {
            const auto* c = static_cast<const uint8_t*>(p);
            b.insert(b.end(), c, c + n);
        };
        auto i32 = [&](int32_t v) { put(&v, 4); };
        auto u32 = [&](uint32_t v) { put(&v, 4); };
        auto i16 = [&](int16_t v) { put(&v, 2); };
        auto u8 = [&](uint8_t v) { put(&v, 1); };
        auto f32 = [&](float v) { put(&v, 4); };
        auto set32 = [&](size_t off, int32_t v) { std::memcpy(b.data() + off, &v, 4); };
        auto pad = [&](size_t a) {
            while (b.size() % a) b.push_back(0);
        };
        struct Member {
            uint32_t type, semantic;
            int32_t index;
        };
        std::vector<Member> members = {{0x02, 0, 0}, {0x10, 3, 0}, {0x10, 6, 0}, {0x18, 2, 0},
                                       {0x1A, 1, 0}, {0x16, 5, 0}, {0x10, 10, 1}};
        std::vector<int32_t> sizes = {12, 4, 4, 8, 8, 8, 4};
        uint32_t vertex_size = k_vertex_size;
        if (!custom_members.empty()) {
            members.clear();
            sizes.clear();
            for (const auto& m : custom_members) {
                members.push_back({m[0], m[1], int32_t(m[2])});
                sizes.push_back(int32_t(type_size(m[0])));
            }
            vertex_size = uint32_t(custom_vertex.size());
        }
        const uint32_t member_count = uint32_t(members.size());
        at.member_count = member_count;
        std::vector<uint16_t> indices = strip ? std::vector<uint16_t>{0, 1, 2, 3} : std::vector<uint16_t>{0, 1, 2, 2, 1, 3};

        // Header (0x80).
        put("FLVER\0L\0", 8);
        i32(version);
        const size_t data_offset_at = b.size();
        i32(0);  // dataOffset
        i32(0);  // dataLength
        i32(1);  // dummies
        i32(1);  // materials
        i32(int32_t(node_count));
        i32(int32_t(mesh_count));  // meshes
        i32(1);  // vertex buffers
        f32(-1), f32(0), f32(-1), f32(1), f32(2), f32(1);
        i32(2), i32(2);                       // face counts
        u8(0), u8(1), u8(0), u8(0);           // index size per face set, unicode
        i32(0);                               // unk4C
        i32(1), i32(1), i32(1);               // face sets, layouts, textures
        u8(0), u8(0), u8(0), u8(0);
        i32(0), i32(0), i32(0), i32(0), i32(0), i32(0), i32(0), i32(0);
        // Dummy (0x40).
        at.dummy = b.size();
        f32(0), f32(1), f32(0);
        u32(0xFFFFFFFF);
        f32(0), f32(0), f32(1);
        i16(100), i16(0);
        f32(0), f32(1), f32(0);
        i16(1), u8(0), u8(1);
        i32(0), i32(0), i32(0), i32(0);
        // Material (0x20): strings patched below.
        at.material = b.size();
        i32(0), i32(0), i32(1), i32(0), i32(0), i32(0), i32(0), i32(0);
        // Nodes (0x80 each).
        at.node = b.size();
        for (uint32_t n = 0; n < node_count; ++n) {
            f32(0), f32(n ? 1.0f : 0.0f), f32(0);
            i32(0);  // name
            f32(0), f32(0), f32(0);
            i16(int16_t(n ? 0 : -1)), i16(int16_t(n == 0 && node_count > 1 ? 1 : -1));
            f32(1), f32(1), f32(1);
            i16(int16_t(n + 1 < node_count && n > 0 ? n + 1 : -1)), i16(int16_t(n > 1 ? n - 1 : -1));
            f32(0), f32(0), f32(0);
            i32(0);
            f32(0), f32(0), f32(0);
            for (int k = 0; k < 13; ++k) i32(0);
        }
        // Meshes (0x30 each).
        at.mesh = b.size();
        for (uint32_t k = 0; k < mesh_count; ++k) {
            u8(dynamic ? 1 : 0), u8(0), u8(0), u8(0);
            i32(0), i32(0), i32(0), i32(0);
            i32(int32_t(mesh_bones.size()));
            i32(0), i32(0);          // bbox, bone list (patched)
            i32(1), i32(0), i32(1), i32(0);  // face sets, list (patched), buffers, list (patched)
        }
        // Face set (0x20).
        at.faceset = b.size();
        u32(0), u8(strip ? 1 : 0), u8(1), i16(0);
        const int32_t isz = index32 ? 4 : 2;
        i32(int32_t(indices.size())), i32(0), i32(int32_t(indices.size()) * isz), i32(0), i32(isz * 8), i32(0);
        // Vertex buffer (0x20).
        at.vertex_buffer = b.size();
        i32(0), i32(0), i32(int32_t(vertex_size)), i32(k_vertex_count), i32(0), i32(0), i32(int32_t(vertex_size * k_vertex_count)), i32(0);
        // Layout (0x10).
        at.layout = b.size();
        i32(int32_t(member_count)), i32(0), i32(0), i32(0);
        // Texture (0x20).
        at.texture = b.size();
        i32(0), i32(0), f32(1), f32(1), u8(1), u8(1), u8(0), u8(0), f32(0), f32(0), f32(0);
        // Layout members.
        at.members = b.size();
        set32(at.layout + 12, int32_t(at.members));
        int32_t off = 0;
        for (uint32_t k = 0; k < member_count; ++k) {
            i32(0), i32(off), u32(members[k].type), u32(members[k].semantic), i32(members[k].index);
            off += sizes[k];
        }
        // Lists.
        at.faceset_list = b.size();
        for (uint32_t k = 0; k < mesh_count; ++k) set32(at.mesh + k * 0x30 + 0x24, int32_t(b.size()));
        i32(0);
        at.vb_list = b.size();
        for (uint32_t k = 0; k < mesh_count; ++k) set32(at.mesh + k * 0x30 + 0x2C, int32_t(b.size()));
        i32(0);
        at.bone_list = b.size();
        for (uint32_t k = 0; k < mesh_count; ++k) set32(at.mesh + k * 0x30 + 0x1C, mesh_bones.empty() ? 0 : int32_t(b.size()));
        for (int32_t x : mesh_bones) i32(x);
        // Strings (UTF-16).
        auto str = [&](size_t field_at, const std::string& s) {
            set32(field_at, int32_t(b.size()));
            for (char c : s) i16(int16_t(c));
            i16(0);
        };
        str(at.material + 0, "#03#Cape");
        str(at.material + 4, "N:\\X\\C[ARSN].mtd");
        str(at.texture + 0, "N:\\X\\tex\\c9999_cape_a.tif");
        str(at.texture + 4, "g_DiffuseTexture");
        for (uint32_t n = 0; n < node_count; ++n) str(at.node + n * 0x80 + 0x0C, "bone" + std::to_string(n));
        // Data area: indices, then vertices.
        pad(16);
        at.data = b.size();
        set32(data_offset_at, int32_t(at.data));
        at.indices = b.size();
        for (uint16_t x : indices) {
            uint32_t x32 = x;
            put(&x32, size_t(isz));
        }
        pad(16);
        at.vertices = b.size();
        set32(at.vertex_buffer + 0x1C, int32_t(at.vertices - at.data));
        const float pos[4][3] = {{-1, 0, -1}, {1, 0, -1}, {-1, 2, 1}, {1, 2, 1}};
        for (uint32_t v = 0; v < k_vertex_count && !custom_members.empty(); ++v) put(custom_vertex.data(), custom_vertex.size());
        for (uint32_t v = 0; v < k_vertex_count && custom_members.empty(); ++v) {
            f32(pos[v][0]), f32(pos[v][1]), f32(pos[v][2]);
            u8(127), u8(127), u8(254), u8(normal_w);     // normal (0, 0, 1): towards +Z in the game
            u8(254), u8(127), u8(127), u8(255);          // tangent (1, 0, 0), w = +1
            uint16_t bi[4] = {bone_index, 0, 0, 0};
            put(bi, 8);
            int16_t bw[4] = {32767, 0, 0, 0};
            put(bw, 8);
            int16_t uv[4] = {int16_t(v * 512), int16_t(1024), 0, 0};  // (v/4, 0.5) and (0, 0) at /2048
            put(uv, 8);
            u8(255), u8(128), u8(0), u8(255);
        }
        set32(data_offset_at + 4, int32_t(b.size() - at.data));
        return b;
    }
};

}  // namespace drape::test
