// libFuzzer: corrupted .drcloth bytes into the runtime's loader and, when they load, into the
// collidable listing, instance creation, reset, a few steps of every cloth data, the accumulator,
// a saved and restored state (the loader's index checks are what keeps step() in bounds: a crash
// here is a missing check).
#include <cstdint>
#include <cstring>
#include <vector>

#include "drape/runtime.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    drape_cloth_file* file = nullptr;
    drape_error error;
    if (drape_cloth_file_load(data, size, &file, &error) != DRAPE_RESULT_OK) return 0;
    for (uint32_t c = 0; c < drape_cloth_data_count(file) && c < 4; ++c) {
        drape_instance_def def = drape_default_instance_def();
        def.cloth = c;
        drape_instance* inst = nullptr;
        if (drape_instance_create(file, &def, &inst, &error) != DRAPE_RESULT_OK) continue;
        const uint32_t nt = drape_cloth_transform_count(file, c);
        std::vector<float> pose(size_t(nt) * 16 + 16, 0.0f);
        for (uint32_t i = 0; i < nt; ++i) pose[i * 16] = pose[i * 16 + 5] = pose[i * 16 + 10] = pose[i * 16 + 15] = 1;
        if (nt) drape_instance_set_transforms(inst, 0, nt, pose.data());
        for (uint32_t s = 0; s < drape_cloth_sim_count(file, c); ++s)
            for (uint32_t k = 0; k < drape_cloth_sim_collidable_count(file, c, s); ++k) {
                drape_collidable_info info;
                if (drape_cloth_sim_collidable(file, c, s, k, &info) == DRAPE_RESULT_OK && info.name) (void)std::strlen(info.name);
            }
        drape_instance_reset(inst);
        std::vector<unsigned char> saved(drape_instance_state_size(inst));
        const bool have_state = drape_instance_save_state(inst, saved.data(), saved.size()) == DRAPE_RESULT_OK;
        uint32_t steps = 0;
        drape_instance_advance(inst, 0.05f, 1.0f, 1.0f / 30, 2, &steps);
        if (have_state) drape_instance_restore_state(inst, saved.data(), saved.size());
        for (uint32_t s = 0; s < drape_cloth_state_count(file, c) && s < 6; ++s) {
            drape_instance_select_state(inst, s);
            for (int k = 0; k < 2; ++k) drape_instance_step(inst, 1.0f / 30);
        }
        for (uint32_t s = 0; s < drape_cloth_sim_count(file, c); ++s) {
            std::vector<float> xyz(size_t(drape_cloth_sim_particle_count(file, c, s)) * 3 + 3);
            drape_instance_read_particles(inst, s, xyz.data(), xyz.size());
        }
        for (uint32_t b = 0; b < drape_cloth_buffer_count(file, c); ++b) {
            std::vector<float> xyz(size_t(drape_cloth_buffer_vertex_count(file, c, b)) * 3 + 3);
            drape_instance_read_buffer(inst, b, DRAPE_STREAM_NORMAL, xyz.data(), xyz.size());
        }
        drape_instance_destroy(inst);
    }
    drape_cloth_file_destroy(file);
    return 0;
}
