#include "drape/exporters/model_meshes.h"

#include "drape/exporters/gltf.h"

namespace drape::exporters {

std::vector<cloth_export::ModelMesh> cloth_model_meshes(const flver::Model& model) {
    std::vector<cloth_export::ModelMesh> out;
    for (size_t mi = 0; mi < model.meshes.size(); ++mi) {
        const auto& m = model.meshes[mi];
        cloth_export::ModelMesh mm;
        mm.gltf_name = gltf_mesh_name(model, mi);
        if (m.default_node >= 0 && size_t(m.default_node) < model.nodes.size())
            mm.default_node_name = model.nodes[size_t(m.default_node)].name;
        mm.vertex_count = uint32_t(m.vertices.positions.size());
        // The buffer's triangle count is the mesh's first face set's, as stored
        // (docs/havok-cloth.md#display-buffers).
        if (!m.face_sets.empty()) mm.first_face_set_triangles = uint32_t(m.face_sets[0].triangles(mm.vertex_count).size());
        for (const auto& p : m.vertices.positions) mm.positions.push_back({p.x, p.y, p.z});
        out.push_back(std::move(mm));
    }
    return out;
}

}  // namespace drape::exporters
