// A .glb or .gltf the project wrote, read back by tinygltf: a reader that is not ours checks
// what our glTF document builder wrote. Tests read accessors, nodes, skins, animations and
// images through it; the document's JSON is kept beside it for what tinygltf does not model
// (extras, the extensions tinygltf passes through as values).
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

// libtinygltf carries stb_image (Debian links it to libstb); only its declarations are needed.
#define TINYGLTF_NO_INCLUDE_STB_IMAGE
#define TINYGLTF_NO_INCLUDE_STB_IMAGE_WRITE
#include <tiny_gltf.h>

namespace drape::test {

struct GltfRead {
    nlohmann::json j;                        // the document's JSON as written
    std::shared_ptr<const tinygltf::Model> model;  // tinygltf's reading of it (images decoded)

    const tinygltf::Model& m() const { return *model; }

    // An accessor's elements as tinygltf reads them (byte offsets and strides applied), packed:
    // `T` must be the accessor's component type (float for FLOAT, uint16_t for UNSIGNED_SHORT...).
    template <class T>
    std::vector<T> accessor(int index) const {
        size_t component_size = 0;
        const std::vector<uint8_t> bytes = packed(index, &component_size);
        if (component_size != sizeof(T)) throw std::runtime_error("accessor " + std::to_string(index) + ": component size differs");
        std::vector<T> out(bytes.size() / sizeof(T));
        if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
        return out;
    }
    // A float accessor, or a normalised integer one scaled to [0, 1] / [-1, 1] as glTF says.
    std::vector<float> floats(int index) const;
    // An integer accessor (indices, joints, _DRAPE_VERTEX) widened.
    std::vector<uint32_t> ints(int index) const;

    int node(const std::string& name) const;       // -1 when absent
    int animation(const std::string& name) const;  // -1 when absent
    // The keys of the channel of animation `anim` on `node` with `path`; empty when none.
    std::vector<float> channel(int anim, int node, const std::string& path, std::vector<float>* times = nullptr) const;
    // An image as tinygltf decodes it (stb_image), RGBA8 rows top first; empty when undecoded.
    std::vector<uint8_t> rgba(int image, int* width = nullptr, int* height = nullptr) const;

private:
    std::vector<uint8_t> packed(int index, size_t* component_size) const;
};

// Reads a .glb (bytes) or a .glb / .gltf file. Throws std::runtime_error with tinygltf's message
// when it refuses the file, so a test fails with the reason.
GltfRead read_gltf(const std::vector<uint8_t>& glb);
GltfRead read_gltf(const std::filesystem::path& file);
// tinygltf's verdict on a file: empty when it reads it, else its error.
std::string tinygltf_refusal(const std::filesystem::path& file);

}  // namespace drape::test
