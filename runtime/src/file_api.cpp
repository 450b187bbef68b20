// drape runtime: the C API's listing of a loaded cloth file.
#include <cstring>
#include "rt_instance.h"

using namespace drape::rt;

namespace {
const ClothModel* cloth_of(const drape_cloth_file* f, uint32_t c) { return f && c < f->model.cloths.size() ? &f->model.cloths[c] : nullptr; }
}  // namespace

extern "C" {

uint32_t drape_cloth_data_count(const drape_cloth_file* f) { return f ? uint32_t(f->model.cloths.size()) : 0; }
const char* drape_cloth_data_name(const drape_cloth_file* f, uint32_t c) {
    const ClothModel* m = cloth_of(f, c);
    return m ? m->name.c_str() : nullptr;
}
uint32_t drape_cloth_transform_count(const drape_cloth_file* f, uint32_t c) {
    const ClothModel* m = cloth_of(f, c);
    return m ? m->transform_count : 0;
}
const char* drape_cloth_transform_name(const drape_cloth_file* f, uint32_t c, uint32_t t) {
    const ClothModel* m = cloth_of(f, c);
    if (!m || t >= m->transform_count) return nullptr;
    return t < m->bone_names.size() ? m->bone_names[t].c_str() : "";
}
int drape_cloth_transform_rest_pose(const drape_cloth_file* f, uint32_t c, uint32_t t, float* out) {
    const ClothModel* m = cloth_of(f, c);
    if (!m || !out || t >= m->rest_pose.size()) return 0;
    std::memcpy(out, m->rest_pose[t].m, sizeof(float) * 16);
    return 1;
}
uint32_t drape_cloth_buffer_count(const drape_cloth_file* f, uint32_t c) {
    const ClothModel* m = cloth_of(f, c);
    return m ? uint32_t(m->buffers.size()) : 0;
}
const char* drape_cloth_buffer_name(const drape_cloth_file* f, uint32_t c, uint32_t b) {
    const ClothModel* m = cloth_of(f, c);
    return m && b < m->buffers.size() ? m->buffers[b].name.c_str() : nullptr;
}
drape_buffer_kind drape_cloth_buffer_kind(const drape_cloth_file* f, uint32_t c, uint32_t b) {
    const ClothModel* m = cloth_of(f, c);
    return m && b < m->buffers.size() ? drape_buffer_kind(m->buffers[b].kind) : DRAPE_BUFFER_OTHER;
}
uint32_t drape_cloth_buffer_vertex_count(const drape_cloth_file* f, uint32_t c, uint32_t b) {
    const ClothModel* m = cloth_of(f, c);
    return m && b < m->buffers.size() ? m->buffers[b].num_vertices : 0;
}
uint32_t drape_cloth_buffer_triangle_count(const drape_cloth_file* f, uint32_t c, uint32_t b) {
    const ClothModel* m = cloth_of(f, c);
    return m && b < m->buffers.size() ? m->buffers[b].num_triangles : 0;
}
int drape_cloth_buffer_stores_triangles(const drape_cloth_file* f, uint32_t c, uint32_t b) {
    const ClothModel* m = cloth_of(f, c);
    return m && b < m->buffers.size() && !m->buffers[b].triangles.empty() ? 1 : 0;
}
const char* drape_cloth_buffer_mesh_name(const drape_cloth_file* f, uint32_t c, uint32_t b) {
    const ClothModel* m = cloth_of(f, c);
    return m && b < m->buffers.size() ? m->buffers[b].mesh_name.c_str() : nullptr;
}
uint32_t drape_cloth_state_count(const drape_cloth_file* f, uint32_t c) {
    const ClothModel* m = cloth_of(f, c);
    return m ? uint32_t(m->states.size()) : 0;
}
const char* drape_cloth_state_name(const drape_cloth_file* f, uint32_t c, uint32_t s) {
    const ClothModel* m = cloth_of(f, c);
    return m && s < m->states.size() ? m->states[s].name.c_str() : nullptr;
}
uint32_t drape_cloth_sim_count(const drape_cloth_file* f, uint32_t c) {
    const ClothModel* m = cloth_of(f, c);
    return m ? uint32_t(m->sims.size()) : 0;
}
const char* drape_cloth_sim_name(const drape_cloth_file* f, uint32_t c, uint32_t s) {
    const ClothModel* m = cloth_of(f, c);
    return m && s < m->sims.size() ? m->sims[s].name.c_str() : nullptr;
}
uint32_t drape_cloth_sim_particle_count(const drape_cloth_file* f, uint32_t c, uint32_t s) {
    const ClothModel* m = cloth_of(f, c);
    return m && s < m->sims.size() ? m->sims[s].particle_count : 0;
}
uint32_t drape_cloth_driven_bone_count(const drape_cloth_file* f, uint32_t c) {
    const ClothModel* m = cloth_of(f, c);
    return m ? uint32_t(m->driven_bones.size()) : 0;
}
uint32_t drape_cloth_driven_bone(const drape_cloth_file* f, uint32_t c, uint32_t i) {
    const ClothModel* m = cloth_of(f, c);
    return m && i < m->driven_bones.size() ? m->driven_bones[i] : 0;
}

uint32_t drape_cloth_sim_collidable_count(const drape_cloth_file* f, uint32_t c, uint32_t s) {
    const ClothModel* m = cloth_of(f, c);
    return m && s < m->sims.size() ? uint32_t(m->sims[s].collidables.size()) : 0;
}
drape_result drape_cloth_sim_collidable(const drape_cloth_file* f, uint32_t c, uint32_t s, uint32_t k, drape_collidable_info* out) {
    const ClothModel* m = cloth_of(f, c);
    if (!m || !out || s >= m->sims.size() || k >= m->sims[s].collidables.size()) return DRAPE_RESULT_INVALID_ARGUMENT;
    const auto& info = m->sims[s].collidables[k];
    out->name = info.name.c_str();
    out->kind = int(info.kind);
    std::memcpy(out->a, info.a, sizeof out->a);
    std::memcpy(out->b, info.b, sizeof out->b);
    out->transform = info.transform;
    std::memcpy(out->offset, info.offset.m, sizeof out->offset);
    std::memcpy(out->rest, info.rest.m, sizeof out->rest);
    return DRAPE_RESULT_OK;
}

}  // extern "C"
