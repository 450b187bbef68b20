/* runtime_hash FILE.drcloth STEPS: runs every cloth data of FILE for STEPS steps at 30 Hz under
 * a moving pose made by exact arithmetic only (no libm, so the driver is the same on every
 * compiler) and prints one FNV-1a hash of the bits of every particle and buffer stream after
 * every step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drape/runtime.h"

static uint64_t fnv(uint64_t h, const void* p, size_t n) {
    const unsigned char* b = (const unsigned char*)p;
    size_t i;
    for (i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

int main(int argc, char** argv) {
    FILE* f;
    long n;
    unsigned char* bytes;
    drape_cloth_file* file = 0;
    drape_error err;
    uint64_t h = 1469598103934665603ull;
    uint32_t c, steps, s, i, k;
    if (argc != 3) return 2;
    steps = (uint32_t)atoi(argv[2]);
    f = fopen(argv[1], "rb");
    if (!f) return 1;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    bytes = (unsigned char*)malloc((size_t)n);
    if (!bytes || fread(bytes, 1, (size_t)n, f) != (size_t)n) return 1;
    fclose(f);
    if (drape_cloth_file_load(bytes, (size_t)n, &file, &err) != DRAPE_RESULT_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    for (c = 0; c < drape_cloth_data_count(file); ++c) {
        drape_instance_def def = drape_default_instance_def();
        drape_instance* inst = 0;
        uint32_t nt = drape_cloth_transform_count(file, c);
        float* pose = (float*)calloc((size_t)nt * 16 + 16, sizeof(float));
        float* xyz;
        size_t cap = 3;
        def.cloth = c;
        if (drape_instance_create(file, &def, &inst, &err) != DRAPE_RESULT_OK) return 1;
        for (s = 0; s < drape_cloth_sim_count(file, c); ++s)
            if ((size_t)drape_cloth_sim_particle_count(file, c, s) * 3 > cap) cap = (size_t)drape_cloth_sim_particle_count(file, c, s) * 3;
        for (s = 0; s < drape_cloth_buffer_count(file, c); ++s)
            if ((size_t)drape_cloth_buffer_vertex_count(file, c, s) * 3 > cap) cap = (size_t)drape_cloth_buffer_vertex_count(file, c, s) * 3;
        xyz = (float*)malloc(cap * sizeof(float));
        for (i = 0; i < nt; ++i) pose[i * 16] = pose[i * 16 + 5] = pose[i * 16 + 10] = pose[i * 16 + 15] = 1;
        if (nt) drape_instance_set_transforms(inst, 0, nt, pose);
        drape_instance_reset(inst);
        for (k = 0; k < steps; ++k) {
            /* a triangle wave of the translation and a small shear: exact float arithmetic */
            float phase = (float)(k % 40) / 40.0f, tri = phase < 0.5f ? phase : 1.0f - phase;
            for (i = 0; i < nt; ++i) {
                pose[i * 16 + 12] = 0.3f * tri;
                pose[i * 16 + 14] = 0.1f * tri;
                pose[i * 16 + 4] = 0.05f * tri;
            }
            if (nt) drape_instance_set_transforms(inst, 0, nt, pose);
            if (drape_instance_step(inst, (k % 3) ? 1.0f / 30.0f : 1.0f / 31.0f) != DRAPE_RESULT_OK) return 1;
            for (s = 0; s < drape_cloth_sim_count(file, c); ++s) {
                drape_instance_read_particles(inst, s, xyz, cap);
                h = fnv(h, xyz, sizeof(float) * 3 * drape_cloth_sim_particle_count(file, c, s));
            }
            for (s = 0; s < drape_cloth_buffer_count(file, c); ++s) {
                drape_instance_read_buffer(inst, s, DRAPE_STREAM_POSITION, xyz, cap);
                h = fnv(h, xyz, sizeof(float) * 3 * drape_cloth_buffer_vertex_count(file, c, s));
                drape_instance_read_buffer(inst, s, DRAPE_STREAM_NORMAL, xyz, cap);
                h = fnv(h, xyz, sizeof(float) * 3 * drape_cloth_buffer_vertex_count(file, c, s));
            }
        }
        free(xyz);
        free(pose);
        drape_instance_destroy(inst);
    }
    printf("%016llx runtime %s\n", (unsigned long long)h, drape_runtime_version());
    drape_cloth_file_destroy(file);
    free(bytes);
    return 0;
}
