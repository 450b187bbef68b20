#include "gltf_read.h"

#include <fstream>
#include <iterator>

namespace drape::test {

namespace {

std::string json_of(const std::vector<uint8_t>& glb) {
    if (glb.size() < 20) return {};
    uint32_t length = 0;
    std::memcpy(&length, glb.data() + 12, 4);
    if (size_t(length) > glb.size() - 20) return {};
    return std::string(reinterpret_cast<const char*>(glb.data()) + 20, length);
}

GltfRead finish(tinygltf::Model&& model, std::string json) {
    GltfRead r;
    r.j = nlohmann::json::parse(json);
    r.model = std::make_shared<const tinygltf::Model>(std::move(model));
    return r;
}

}  // namespace

GltfRead read_gltf(const std::vector<uint8_t>& glb) {
    tinygltf::TinyGLTF loader;
    tinygltf::Model model;
    std::string err, warn;
    if (!loader.LoadBinaryFromMemory(&model, &err, &warn, glb.data(), unsigned(glb.size())))
        throw std::runtime_error("tinygltf refuses the .glb: " + err);
    return finish(std::move(model), json_of(glb));
}

GltfRead read_gltf(const std::filesystem::path& file) {
    std::ifstream f(file, std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    // From the file, so that images and buffers beside it (uris) load too.
    tinygltf::TinyGLTF loader;
    tinygltf::Model model;
    std::string err, warn;
    const bool glb = file.extension() == ".glb";
    const bool ok = glb ? loader.LoadBinaryFromFile(&model, &err, &warn, file.string()) : loader.LoadASCIIFromFile(&model, &err, &warn, file.string());
    if (!ok) throw std::runtime_error("tinygltf refuses " + file.string() + ": " + err);
    return finish(std::move(model), glb ? json_of(bytes) : std::string(bytes.begin(), bytes.end()));
}

std::string tinygltf_refusal(const std::filesystem::path& file) {
    try {
        read_gltf(file);
        return {};
    } catch (const std::exception& e) {
        return e.what();
    }
}

std::vector<uint8_t> GltfRead::packed(int index, size_t* component_size) const {
    const tinygltf::Model& md = *model;
    if (index < 0 || size_t(index) >= md.accessors.size()) throw std::runtime_error("no accessor " + std::to_string(index));
    const tinygltf::Accessor& a = md.accessors[size_t(index)];
    const size_t csize = size_t(tinygltf::GetComponentSizeInBytes(uint32_t(a.componentType)));
    const size_t comps = size_t(tinygltf::GetNumComponentsInType(uint32_t(a.type)));
    *component_size = csize;
    std::vector<uint8_t> out(a.count * comps * csize);
    if (a.bufferView < 0) return out;  // all zeros, as glTF says of an accessor without a view
    const tinygltf::BufferView& v = md.bufferViews[size_t(a.bufferView)];
    const tinygltf::Buffer& b = md.buffers[size_t(v.buffer)];
    const size_t element = comps * csize;
    const size_t stride = v.byteStride ? v.byteStride : element;
    const size_t start = v.byteOffset + a.byteOffset;
    if (a.count && (start + (a.count - 1) * stride + element > b.data.size() || a.byteOffset + (a.count - 1) * stride + element > v.byteLength))
        throw std::runtime_error("accessor " + std::to_string(index) + " runs past its view or buffer");
    for (size_t i = 0; i < a.count; ++i) std::memcpy(out.data() + i * element, b.data.data() + start + i * stride, element);
    return out;
}

std::vector<float> GltfRead::floats(int index) const {
    const tinygltf::Accessor& a = model->accessors.at(size_t(index));
    switch (a.componentType) {
        case TINYGLTF_COMPONENT_TYPE_FLOAT: return accessor<float>(index);
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: {
            std::vector<float> out;
            for (uint8_t x : accessor<uint8_t>(index)) out.push_back(a.normalized ? float(x) / 255.0f : float(x));
            return out;
        }
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
            std::vector<float> out;
            for (uint16_t x : accessor<uint16_t>(index)) out.push_back(a.normalized ? float(x) / 65535.0f : float(x));
            return out;
        }
        case TINYGLTF_COMPONENT_TYPE_BYTE: {
            std::vector<float> out;
            for (int8_t x : accessor<int8_t>(index)) out.push_back(a.normalized ? std::max(float(x) / 127.0f, -1.0f) : float(x));
            return out;
        }
        case TINYGLTF_COMPONENT_TYPE_SHORT: {
            std::vector<float> out;
            for (int16_t x : accessor<int16_t>(index)) out.push_back(a.normalized ? std::max(float(x) / 32767.0f, -1.0f) : float(x));
            return out;
        }
        default: throw std::runtime_error("accessor " + std::to_string(index) + " is not a float or normalised accessor");
    }
}

std::vector<uint32_t> GltfRead::ints(int index) const {
    const tinygltf::Accessor& a = model->accessors.at(size_t(index));
    std::vector<uint32_t> out;
    switch (a.componentType) {
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: for (uint8_t x : accessor<uint8_t>(index)) out.push_back(x); break;
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: for (uint16_t x : accessor<uint16_t>(index)) out.push_back(x); break;
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: out = accessor<uint32_t>(index); break;
        default: throw std::runtime_error("accessor " + std::to_string(index) + " is not an unsigned integer accessor");
    }
    return out;
}

int GltfRead::node(const std::string& name) const {
    for (size_t i = 0; i < model->nodes.size(); ++i)
        if (model->nodes[i].name == name) return int(i);
    return -1;
}

int GltfRead::animation(const std::string& name) const {
    for (size_t i = 0; i < model->animations.size(); ++i)
        if (model->animations[i].name == name) return int(i);
    return -1;
}

std::vector<float> GltfRead::channel(int anim, int node, const std::string& path, std::vector<float>* times) const {
    const tinygltf::Animation& a = model->animations.at(size_t(anim));
    for (const auto& c : a.channels)
        if (c.target_node == node && c.target_path == path) {
            const tinygltf::AnimationSampler& s = a.samplers.at(size_t(c.sampler));
            if (times) *times = floats(s.input);
            return floats(s.output);
        }
    return {};
}

std::vector<uint8_t> GltfRead::rgba(int image, int* width, int* height) const {
    const tinygltf::Image& im = model->images.at(size_t(image));
    if (width) *width = im.width;
    if (height) *height = im.height;
    if (im.component != 4 || im.bits != 8) return {};
    return im.image;
}

}  // namespace drape::test
