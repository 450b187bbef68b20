/* hello_cloth: load a .drcloth, step its first cloth data for one second at 30 Hz, print particles.
 * Usage: hello_cloth FILE.drcloth
 * The runtime's C API only (runtime/include/drape/runtime.h). The engine's side is left out: the
 * bones stay at the identity here, where a game would set its skeleton's world matrices each frame. */
#include <stdio.h>
#include <stdlib.h>

#include "drape/runtime.h"

static unsigned char* read_file(const char* path, size_t* size) {
    FILE* f = fopen(path, "rb");
    unsigned char* bytes;
    long n;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    bytes = (unsigned char*)malloc((size_t)n + 1);
    if (bytes && fread(bytes, 1, (size_t)n, f) != (size_t)n) {
        free(bytes);
        bytes = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return bytes;
}

int main(int argc, char** argv) {
    size_t size = 0;
    unsigned char* bytes;
    drape_cloth_file* file = NULL;
    drape_instance* cloth = NULL;
    drape_instance_def def;
    drape_error error;
    float* xyz;
    uint32_t frame, i, sim, count;

    if (argc != 2) {
        fprintf(stderr, "usage: hello_cloth FILE.drcloth\n");
        return 2;
    }
    bytes = read_file(argv[1], &size);
    if (!bytes) {
        fprintf(stderr, "hello_cloth: cannot read %s\n", argv[1]);
        return 1;
    }
    if (drape_cloth_file_load(bytes, size, &file, &error) != DRAPE_RESULT_OK) {
        fprintf(stderr, "hello_cloth: %s: %s\n", argv[1], error.message);
        free(bytes);
        return 1;
    }
    free(bytes); /* the file keeps its own copy */
    printf("%u cloth data(s); the first, '%s': %u bones, %u buffers, %u states, %u sim cloth(s)\n",
           drape_cloth_data_count(file), drape_cloth_data_name(file, 0), drape_cloth_transform_count(file, 0),
           drape_cloth_buffer_count(file, 0), drape_cloth_state_count(file, 0), drape_cloth_sim_count(file, 0));

    def = drape_default_instance_def();
    def.cloth = 0;
    if (drape_instance_create(file, &def, &cloth, &error) != DRAPE_RESULT_OK) {
        fprintf(stderr, "hello_cloth: %s\n", error.message);
        drape_cloth_file_destroy(file);
        return 1;
    }
    drape_instance_reset(cloth);
    for (frame = 0; frame < 30; ++frame) {
        /* A game sets drape_instance_set_transforms(cloth, 0, bone_count, world_matrices) here. */
        if (drape_instance_step(cloth, 1.0f / 30.0f) != DRAPE_RESULT_OK) {
            fprintf(stderr, "hello_cloth: step: %s\n", drape_instance_error_message(cloth));
            return 1;
        }
    }
    for (sim = 0; sim < drape_cloth_sim_count(file, 0); ++sim) {
        count = drape_cloth_sim_particle_count(file, 0, sim);
        xyz = (float*)malloc(sizeof(float) * 3 * (count ? count : 1));
        if (!xyz || drape_instance_read_particles(cloth, sim, xyz, (size_t)count * 3) != DRAPE_RESULT_OK) return 1;
        printf("sim cloth %u '%s', %u particles after 1 s:\n", sim, drape_cloth_sim_name(file, 0, sim), count);
        for (i = 0; i < count && i < 4; ++i) printf("  particle %u: %.4f %.4f %.4f\n", i, xyz[i * 3], xyz[i * 3 + 1], xyz[i * 3 + 2]);
        free(xyz);
    }
    drape_instance_destroy(cloth);
    drape_cloth_file_destroy(file);
    return 0;
}
