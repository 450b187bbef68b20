// drape: bake::Cloth over the runtime's C API (bake_runtime.h).
#include <zstd.h>

#include <cstring>
#include <map>

#include "drape/convert/bake_runtime.h"
#include "drape/runtime.h"

namespace drape::bake {

namespace {

class RuntimeCloth final : public Cloth {
public:
    ~RuntimeCloth() override {
        for (auto* i : m_instances) drape_instance_destroy(i);
        drape_cloth_file_destroy(m_file);
    }

    Result<void> load(Bytes bytes, bool depenetrate) {
        std::vector<uint8_t> raw;
        if (bytes.size() >= 4 && bytes[0] == 0x28 && bytes[1] == 0xB5 && bytes[2] == 0x2F && bytes[3] == 0xFD) {
            const unsigned long long n = ZSTD_getFrameContentSize(bytes.data(), bytes.size());
            if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN || n > (1ull << 30))
                return make_error("the .drcloth's zstd frame does not state its size");
            raw.resize(size_t(n));
            const size_t got = ZSTD_decompress(raw.data(), raw.size(), bytes.data(), bytes.size());
            if (ZSTD_isError(got) || got != raw.size()) return make_error("the .drcloth's zstd frame does not decompress");
            bytes = raw;
        }
        drape_error err{};
        if (drape_cloth_file_load(bytes.data(), bytes.size(), &m_file, &err) != DRAPE_RESULT_OK)
            return make_error(std::string("the runtime refuses the cloth file: ") + err.message);
        std::map<std::string, size_t> bone_of;
        for (uint32_t c = 0; c < drape_cloth_data_count(m_file); ++c) {
            drape_instance_def def = drape_default_instance_def();
            def.cloth = c;
            if (depenetrate) def.flags |= DRAPE_INSTANCE_DEPENETRATE;
            drape_instance* inst = nullptr;
            if (drape_instance_create(m_file, &def, &inst, &err) != DRAPE_RESULT_OK)
                return make_error(std::string("the runtime cannot create cloth data ") + std::to_string(c) + ": " + err.message);
            m_instances.push_back(inst);
            std::vector<size_t> map;
            for (uint32_t t = 0; t < drape_cloth_transform_count(m_file, c); ++t) {
                const std::string name = drape_cloth_transform_name(m_file, c, t);
                auto [it, added] = bone_of.emplace(name, m_bones.size());
                if (added) m_bones.push_back(name);
                map.push_back(it->second);
            }
            for (uint32_t i = 0; i < drape_cloth_driven_bone_count(m_file, c); ++i) {
                const uint32_t t = drape_cloth_driven_bone(m_file, c, i);
                if (t < map.size()) m_driven.push_back({c, t, map[t]});
            }
            m_transform_bone.push_back(std::move(map));
            for (uint32_t b = 0; b < drape_cloth_buffer_count(m_file, c); ++b) {
                if (drape_cloth_buffer_kind(m_file, c, b) != DRAPE_BUFFER_DISPLAY) continue;
                const char* mesh = drape_cloth_buffer_mesh_name(m_file, c, b);
                m_buffers.push_back({{drape_cloth_buffer_name(m_file, c, b), mesh ? mesh : "", drape_cloth_buffer_vertex_count(m_file, c, b)}, c, b});
            }
        }
        if (m_instances.empty()) return make_error("the cloth file holds no cloth data");
        return {};
    }

    std::vector<std::string> bone_names() const override { return m_bones; }
    std::vector<DisplayBuffer> display_buffers() const override {
        std::vector<DisplayBuffer> out;
        for (const auto& b : m_buffers) out.push_back(b.info);
        return out;
    }

    Result<void> set_display_triangles(size_t index, std::span<const uint32_t> tris) override {
        const Buffer& b = m_buffers.at(index);
        std::vector<uint16_t> idx;
        for (uint32_t x : tris) {
            if (x > 0xFFFF) return make_error("display buffer " + b.info.name + ": a triangle index above 65535");
            idx.push_back(uint16_t(x));
        }
        const uint32_t n = std::min<uint32_t>(uint32_t(idx.size() / 3), drape_cloth_buffer_triangle_count(m_file, b.cloth, b.buffer));
        // A buffer whose definition stores its own triangles keeps them (the runtime refuses others).
        if (n == 0 || drape_cloth_buffer_stores_triangles(m_file, b.cloth, b.buffer)) return {};
        return check(b.cloth, drape_instance_set_buffer_triangles(m_instances[b.cloth], b.buffer, n, idx.data()));
    }

    Result<void> set_skinned_display(size_t index, std::span<const Vec3f> positions) override {
        const Buffer& b = m_buffers.at(index);
        m_scratch.resize(positions.size() * 3);
        for (size_t v = 0; v < positions.size(); ++v)
            for (int k = 0; k < 3; ++k) m_scratch[v * 3 + size_t(k)] = positions[v][size_t(k)];
        return check(b.cloth, drape_instance_set_display_vertices(m_instances[b.cloth], b.buffer, uint32_t(positions.size()), m_scratch.data(), nullptr, nullptr));
    }

    Result<void> start(std::span<const Mat4> bones) override {
        for (uint32_t c = 0; c < m_instances.size(); ++c) {
            if (auto r = set_bones(c, bones); !r) return r;
            if (auto r = check(c, drape_instance_reset(m_instances[c])); !r) return r;
        }
        return {};
    }

    Result<void> step(std::span<const Mat4> bones, float dt) override {
        for (uint32_t c = 0; c < m_instances.size(); ++c) {
            if (auto r = set_bones(c, bones); !r) return r;
            if (auto r = check(c, drape_instance_step(m_instances[c], dt)); !r) return r;
        }
        return {};
    }

    Result<void> display_positions(size_t index, std::span<Vec3f> out) const override {
        const Buffer& b = m_buffers.at(index);
        std::vector<float> xyz(out.size() * 3);
        if (auto r = check(b.cloth, drape_instance_read_buffer(m_instances[b.cloth], b.buffer, DRAPE_STREAM_POSITION, xyz.data(), xyz.size())); !r)
            return r;
        for (size_t v = 0; v < out.size(); ++v) out[v] = {xyz[v * 3], xyz[v * 3 + 1], xyz[v * 3 + 2]};
        return {};
    }

    std::vector<size_t> driven_bones() const override {
        std::vector<size_t> out;
        for (const auto& d : m_driven) out.push_back(d.bone);
        return out;
    }

    Result<void> driven_matrices(std::span<Mat4> out) const override {
        if (out.size() != m_driven.size()) return make_error("driven bone matrices: " + std::to_string(out.size()) + " asked, " + std::to_string(m_driven.size()) + " driven");
        float m[16];
        for (size_t i = 0; i < m_driven.size(); ++i) {
            const Driven& d = m_driven[i];
            if (auto r = check(d.cloth, drape_instance_read_transforms(m_instances[d.cloth], d.transform, 1, m)); !r) return r;
            for (size_t e = 0; e < 16; ++e) out[i][e] = m[e];
        }
        return {};
    }

private:
    struct Driven {
        uint32_t cloth = 0, transform = 0;
        size_t bone = 0;  // index of m_bones
    };
    struct Buffer {
        DisplayBuffer info;
        uint32_t cloth = 0, buffer = 0;
    };

    Result<void> check(uint32_t cloth, drape_result r) const {
        if (r == DRAPE_RESULT_OK) return {};
        return make_error(std::string("runtime (cloth data ") + drape_cloth_data_name(m_file, cloth) + "): " + drape_instance_error_message(m_instances[cloth]));
    }

    Result<void> set_bones(uint32_t c, std::span<const Mat4> bones) {
        const auto& map = m_transform_bone[c];
        m_matrices.resize(map.size() * 16);
        for (size_t t = 0; t < map.size(); ++t) {
            if (map[t] >= bones.size()) return make_error("bone " + std::to_string(map[t]) + " missing");
            for (size_t e = 0; e < 16; ++e) m_matrices[t * 16 + e] = float(bones[map[t]][e]);
        }
        return check(c, drape_instance_set_transforms(m_instances[c], 0, uint32_t(map.size()), m_matrices.data()));
    }

    drape_cloth_file* m_file = nullptr;
    std::vector<drape_instance*> m_instances;
    std::vector<std::string> m_bones;
    std::vector<std::vector<size_t>> m_transform_bone;  // per cloth data: transform -> bone of m_bones
    std::vector<Buffer> m_buffers;
    std::vector<Driven> m_driven;
    std::vector<float> m_matrices, m_scratch;
};

}  // namespace

Result<std::unique_ptr<Cloth>> runtime_cloth(Bytes drcloth, bool depenetrate) {
    auto c = std::make_unique<RuntimeCloth>();
    if (auto r = c->load(drcloth, depenetrate); !r) return r.error();
    return std::unique_ptr<Cloth>(std::move(c));
}

Result<std::vector<uint8_t>> bake_with_runtime(Bytes glb, Bytes drcloth, const BakeOptions& options, BakeReport* report) {
    auto cloth = runtime_cloth(drcloth, options.depenetrate);
    if (!cloth) return std::move(cloth.error().within("the .drcloth"));
    return bake(glb, **cloth, options, report);
}

}  // namespace drape::bake
