#include "runtime_drive.h"

#include <cmath>

#include "drape/runtime.h"

namespace drape::test {

void sway_transforms(uint32_t count, float t, std::vector<float>& out) {
    out.assign(size_t(count) * 16, 0.0f);
    for (uint32_t i = 0; i < count; ++i) {
        const float phase = 6.2831853f * 0.7f * t + 0.3f * float(i);
        const float angle = 0.08f * std::sin(phase);
        const float c = std::cos(angle), s = std::sin(angle);
        float* m = &out[size_t(i) * 16];
        m[0] = c, m[1] = s, m[4] = -s, m[5] = c, m[10] = 1, m[15] = 1;
        m[12] = 0.04f * std::sin(phase * 0.5f);
        m[13] = 0.01f * std::cos(phase);
    }
}

RuntimeRun run_cloth_file(const uint8_t* data, size_t size, uint32_t steps, uint32_t max_cloths) {
    RuntimeRun run;
    drape_error error{};
    drape_cloth_file* file = nullptr;
    if (drape_cloth_file_load(data, size, &file, &error) != DRAPE_RESULT_OK) {
        run.error = error.message;
        return run;
    }
    auto note = [&](const char* message) {
        if (run.error.empty()) run.error = message;
    };
    std::vector<float> pose, xyz;
    for (uint32_t c = 0; c < drape_cloth_data_count(file) && c < max_cloths; ++c) {
        drape_instance_def def = drape_default_instance_def();
        def.cloth = c;
        drape_instance* inst = nullptr;
        if (drape_instance_create(file, &def, &inst, &error) != DRAPE_RESULT_OK) {
            note(error.message);
            continue;
        }
        ++run.instances;
        const uint32_t transforms = drape_cloth_transform_count(file, c);
        auto pose_at = [&](float t) {
            sway_transforms(transforms, t, pose);
            if (transforms && drape_instance_set_transforms(inst, 0, transforms, pose.data()) != DRAPE_RESULT_OK)
                note(drape_instance_error_message(inst));
        };
        pose_at(0);
        if (drape_instance_reset(inst) != DRAPE_RESULT_OK) note(drape_instance_error_message(inst));
        for (uint32_t k = 1; k <= steps; ++k) {
            pose_at(float(k) / 30);
            if (drape_instance_step(inst, 1.0f / 30) == DRAPE_RESULT_OK) ++run.steps;
            else note(drape_instance_error_message(inst));
        }
        for (uint32_t s = 0; s < drape_cloth_sim_count(file, c); ++s) {
            xyz.resize(size_t(drape_cloth_sim_particle_count(file, c, s)) * 3 + 3);  // never empty: data() is never null
            if (drape_instance_read_particles(inst, s, xyz.data(), xyz.size()) != DRAPE_RESULT_OK) note("read_particles failed");
        }
        for (uint32_t b = 0; b < drape_cloth_buffer_count(file, c); ++b) {
            xyz.resize(size_t(drape_cloth_buffer_vertex_count(file, c, b)) * 3 + 3);
            if (drape_instance_read_buffer(inst, b, DRAPE_STREAM_POSITION, xyz.data(), xyz.size()) != DRAPE_RESULT_OK) note("read_buffer failed");
        }
        drape_instance_destroy(inst);
    }
    drape_cloth_file_destroy(file);
    return run;
}

}  // namespace drape::test
