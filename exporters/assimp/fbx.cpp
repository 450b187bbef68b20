// drape: glb -> FBX through Assimp.
#include "drape/exporters/fbx.h"

#include <assimp/Exporter.hpp>
#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <cstring>

namespace drape::exporters {

namespace {

// Assimp 5.2.4-5.2.5 (Debian 12) writes binary FBX without the 25-byte NULL record that must
// end every nested node list (the constant is turned into an empty string; assimp issue
// #4686), so Blender ("failed to read nested block sentinel") and Assimp itself ("block offset
// is out of range") refuse the file. repair_fbx rewrites the node tree with the records in
// place and every end offset recomputed; a file that already has them comes out unchanged.
constexpr size_t k_fbx_header = 27;     // "Kaydara FBX Binary  \0\x1a\0" + u32 version
constexpr size_t k_null_record = 25;    // FBX >= 7500: u64 end, u64 count, u64 length, u8 name length

uint64_t le64(const std::vector<uint8_t>& b, size_t at) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | b[at + size_t(i)];
    return v;
}
void put64(std::vector<uint8_t>& out, size_t at, uint64_t v) {
    for (int i = 0; i < 8; ++i) out[at + size_t(i)] = uint8_t(v >> (8 * i));
}
bool zeros(const std::vector<uint8_t>& b, size_t at, size_t n) {
    if (at + n > b.size()) return false;
    for (size_t i = 0; i < n; ++i)
        if (b[at + i]) return false;
    return true;
}

// Copies the node at `pos` (and its children) into `out`; returns the input position after it
// or 0 on malformed input.
size_t copy_node(const std::vector<uint8_t>& in, size_t pos, std::vector<uint8_t>& out, int depth) {
    if (depth > 64 || pos + k_null_record > in.size()) return 0;
    const uint64_t end = le64(in, pos), props_length = le64(in, pos + 16);
    const size_t name_length = in[pos + 24];
    const size_t props_end = pos + k_null_record + name_length + size_t(props_length);
    if (end > in.size() || end < props_end || props_end > in.size()) return 0;
    const size_t start = out.size();
    out.insert(out.end(), in.begin() + ptrdiff_t(pos), in.begin() + ptrdiff_t(props_end));
    size_t p = props_end;
    bool children = false;
    while (p < end) {
        if (zeros(in, p, k_null_record)) {
            p += k_null_record;
            break;
        }
        const size_t next = copy_node(in, p, out, depth + 1);
        if (next == 0 || next > end) return 0;
        children = true;
        p = next;
    }
    if (children) out.insert(out.end(), k_null_record, 0);
    put64(out, start, out.size());
    return size_t(end);
}

Result<std::vector<uint8_t>> repair_fbx(const std::vector<uint8_t>& in) {
    if (in.size() < k_fbx_header || std::memcmp(in.data(), "Kaydara FBX Binary  ", 20) != 0)
        return make_error("Assimp wrote no binary FBX header", "fbx.export");
    std::vector<uint8_t> out(in.begin(), in.begin() + ptrdiff_t(k_fbx_header));
    out.reserve(in.size() + in.size() / 8);
    size_t p = k_fbx_header;
    while (p + 8 <= in.size() && le64(in, p) != 0) {
        p = copy_node(in, p, out, 0);
        if (p == 0) return make_error("Assimp wrote a malformed FBX node tree", "fbx.export");
    }
    out.insert(out.end(), k_null_record, 0);  // the top-level list's NULL record
    while (p < in.size() && in[p] == 0) ++p;   // the (possibly short) one in the input
    out.insert(out.end(), in.begin() + ptrdiff_t(p), in.end());  // footer
    return out;
}

}  // namespace

Result<std::vector<uint8_t>> fbx_from_glb(Bytes glb, const FbxOptions& options) {
    if (glb.size() < 12 || glb[0] != 'g' || glb[1] != 'l' || glb[2] != 'T' || glb[3] != 'F')
        return make_error_at(0, "fbx.glb", "not a glb (no \"glTF\" magic)");
    Assimp::Importer importer;
    // No post-processing: drape's meshes are already triangles with their own normals and
    // tangents, and every vertex must stay where the skin weights put it.
    const aiScene* scene = importer.ReadFileFromMemory(glb.data(), glb.size(), 0, "glb");
    if (!scene) return make_error("Assimp cannot read the glb: " + std::string(importer.GetErrorString()), "fbx.import");
    // AI_SCENE_FLAGS_INCOMPLETE is set for a glb without meshes (a skeleton with its clips): fine.
    Assimp::Exporter exporter;
    const aiExportDataBlob* blob = exporter.ExportToBlob(scene, options.ascii ? "fbxa" : "fbx");
    if (!blob) return make_error("Assimp cannot write FBX: " + std::string(exporter.GetErrorString()), "fbx.export");
    // The FBX exporter writes one blob; further blobs would be side files, which FBX has none of.
    const auto* data = static_cast<const uint8_t*>(blob->data);
    std::vector<uint8_t> bytes(data, data + blob->size);
    if (options.ascii) return bytes;
    return repair_fbx(bytes);
}

}  // namespace drape::exporters
