/* hello_cloth: load a .drcloth, play each of its cloth datas for one second at the game's 30 Hz
 * under a sway of the character's rest pose, and print what it read and where the cloth went.
 *
 * Usage: hello_cloth FILE.drcloth
 * Build against the installed runtime:
 *   cc -std=c99 hello_cloth.c $(pkg-config --cflags --libs drape-runtime) -lm -o hello_cloth
 *
 * The runtime's C API only (drape/runtime.h). A game sets its skeleton's world matrices where this
 * program sways the rest pose: the whole body turns about the vertical axis, 0.3 rad each way. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "drape/runtime.h"

#define STEPS_PER_SECOND 30

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

/* The transform set at time t: each bone's rest pose (model space) turned by the sway about the
 * vertical (Y) axis through the origin. Bones without a stored rest pose stay at the identity. */
static void sway_pose(const drape_cloth_file* file, uint32_t cloth, uint32_t bones, float t, float* out) {
    const float angle = 0.3f * sinf(6.2831853f * 0.5f * t);
    const float c = cosf(angle), s = sinf(angle);
    uint32_t b;
    int k;
    for (b = 0; b < bones; ++b) {
        float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        float* o = out + (size_t)b * 16;
        drape_cloth_transform_rest_pose(file, cloth, b, m);
        for (k = 0; k < 4; ++k) { /* each column: x' = c x + s z, z' = -s x + c z */
            const float x = m[k * 4 + 0], y = m[k * 4 + 1], z = m[k * 4 + 2];
            o[k * 4 + 0] = c * x + s * z;
            o[k * 4 + 1] = y;
            o[k * 4 + 2] = -s * x + c * z;
            o[k * 4 + 3] = m[k * 4 + 3];
        }
    }
}

/* Plays cloth data `cloth` for one second; 0 on success. */
static int play(const drape_cloth_file* file, uint32_t cloth) {
    const uint32_t bones = drape_cloth_transform_count(file, cloth);
    drape_instance_def def = drape_default_instance_def();
    drape_instance* instance = NULL;
    drape_error error;
    float* pose = (float*)malloc(sizeof(float) * 16 * (bones ? bones : 1));
    uint32_t step, sim, i;
    int status = 0;

    if (!pose) return 1;
    def.cloth = cloth;
    if (drape_instance_create(file, &def, &instance, &error) != DRAPE_RESULT_OK) {
        fprintf(stderr, "hello_cloth: cloth data %u: %s\n", cloth, error.message);
        free(pose);
        return 1;
    }
    printf("cloth data %u '%s': %u bones, %u buffers, %u states (playing '%s'), %u sim cloth(s)\n", cloth,
           drape_cloth_data_name(file, cloth), bones, drape_cloth_buffer_count(file, cloth), drape_cloth_state_count(file, cloth),
           drape_cloth_state_name(file, cloth, drape_instance_state(instance)), drape_cloth_sim_count(file, cloth));
    sway_pose(file, cloth, bones, 0.0f, pose);
    if ((bones && drape_instance_set_transforms(instance, 0, bones, pose) != DRAPE_RESULT_OK) ||
        drape_instance_reset(instance) != DRAPE_RESULT_OK) {
        fprintf(stderr, "hello_cloth: reset: %s\n", drape_instance_error_message(instance));
        status = 1;
    }
    for (step = 1; status == 0 && step <= STEPS_PER_SECOND; ++step) {
        sway_pose(file, cloth, bones, (float)step / STEPS_PER_SECOND, pose);
        if ((bones && drape_instance_set_transforms(instance, 0, bones, pose) != DRAPE_RESULT_OK) ||
            drape_instance_step(instance, 1.0f / STEPS_PER_SECOND) != DRAPE_RESULT_OK) {
            fprintf(stderr, "hello_cloth: step %u: %s\n", step, drape_instance_error_message(instance));
            status = 1;
        }
    }
    for (sim = 0; status == 0 && sim < drape_cloth_sim_count(file, cloth); ++sim) {
        const uint32_t count = drape_cloth_sim_particle_count(file, cloth, sim);
        float* xyz = (float*)malloc(sizeof(float) * 3 * (count ? count : 1));
        float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
        int finite = 1;
        if (!xyz || drape_instance_read_particles(instance, sim, xyz, (size_t)count * 3) != DRAPE_RESULT_OK) {
            fprintf(stderr, "hello_cloth: read particles: %s\n", drape_instance_error_message(instance));
            free(xyz);
            status = 1;
            break;
        }
        for (i = 0; i < count * 3; ++i) {
            const float v = xyz[i];
            if (!(v == v) || v > 1e30f || v < -1e30f) finite = 0;
            if (v < lo[i % 3]) lo[i % 3] = v;
            if (v > hi[i % 3]) hi[i % 3] = v;
        }
        printf("  sim cloth %u '%s', %u particles after 1 s: %s, from (%.3f %.3f %.3f) to (%.3f %.3f %.3f) m\n", sim,
               drape_cloth_sim_name(file, cloth, sim), count, finite ? "finite" : "NOT FINITE", lo[0], lo[1], lo[2], hi[0], hi[1],
               hi[2]);
        if (!finite) status = 1;
        free(xyz);
    }
    drape_instance_destroy(instance);
    free(pose);
    return status;
}

int main(int argc, char** argv) {
    size_t size = 0;
    unsigned char* bytes;
    drape_cloth_file* file = NULL;
    drape_error error;
    uint32_t cloth;
    int status = 0;

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
    printf("drape runtime %s; %s: %u cloth data(s)\n", drape_runtime_version(), argv[1], drape_cloth_data_count(file));
    for (cloth = 0; cloth < drape_cloth_data_count(file) && status == 0; ++cloth) status = play(file, cloth);
    drape_cloth_file_destroy(file);
    if (status == 0) printf("done\n");
    return status;
}
