/* The runtime's embedding entry points, used from C on a real cloth (Elden Ring c5000 as drape
 * cloth writes it): the version, the file collidables listed for drawing, stepping through the
 * accumulator, saving and restoring an instance, and stepping many through a host task system. Expected collidable values are the file's
 * as flatc reads it (Kngiht_Mant's first collidable), not the runtime's.
 * Usage: runtime_c_api_use c5000.drcloth */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drape/runtime.h"

static int failures = 0;
#define EXPECT(cond)                                                   \
    do {                                                               \
        if (!(cond)) {                                                 \
            fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond); \
            ++failures;                                                \
        }                                                              \
    } while (0)

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

static uint32_t cloth_named(const drape_cloth_file* file, const char* name) {
    uint32_t c;
    for (c = 0; c < drape_cloth_data_count(file); ++c)
        if (strcmp(drape_cloth_data_name(file, c), name) == 0) return c;
    return UINT32_MAX;
}

/* Sets the rest pose, raised by `lift` metres. */
static void pose(drape_instance* inst, const drape_cloth_file* file, uint32_t cloth, float lift) {
    uint32_t b, n = drape_cloth_transform_count(file, cloth);
    float m[16];
    for (b = 0; b < n; ++b) {
        if (!drape_cloth_transform_rest_pose(file, cloth, b, m)) continue;
        m[13] += lift;
        EXPECT(drape_instance_set_transforms(inst, b, 1, m) == DRAPE_RESULT_OK);
    }
}

static void read_all(const drape_instance* inst, const drape_cloth_file* file, uint32_t cloth, float* out, size_t capacity) {
    uint32_t s;
    size_t at = 0;
    for (s = 0; s < drape_cloth_sim_count(file, cloth); ++s) {
        const size_t n = (size_t)drape_cloth_sim_particle_count(file, cloth, s) * 3;
        EXPECT(at + n <= capacity);
        if (at + n > capacity) return;
        EXPECT(drape_instance_read_particles(inst, s, out + at, capacity - at) == DRAPE_RESULT_OK);
        at += n;
    }
}

static void test_collidables(const drape_cloth_file* file) {
    const uint32_t c = cloth_named(file, "Kngiht_Mant");
    drape_collidable_info info;
    EXPECT(c != UINT32_MAX);
    if (c == UINT32_MAX) return;
    EXPECT(drape_cloth_sim_collidable_count(file, c, 0) == 4);
    EXPECT(drape_cloth_sim_collidable(file, c, 0, 0, &info) == DRAPE_RESULT_OK);
    EXPECT(strcmp(info.name, "Collidable_Ctrl_Horse_Pelvis") == 0);
    EXPECT(info.kind == DRAPE_SHAPE_CAPSULE);
    EXPECT(fabsf(info.a[3] - 0.796528f) < 1e-6f && fabsf(info.a[1] - -0.270106f) < 1e-6f && fabsf(info.b[1] - 0.259566f) < 1e-6f);
    EXPECT(info.transform == 8); /* the transform set's Horse_Pelvis */
    EXPECT(strcmp(drape_cloth_transform_name(file, c, info.transform), "Horse_Pelvis") == 0);
    EXPECT(fabsf(info.rest[13] - 1.861724f) < 1e-6f); /* c3.y of the stored transform */
    EXPECT(drape_cloth_sim_collidable(file, c, 0, 1, &info) == DRAPE_RESULT_OK);
    EXPECT(info.kind == DRAPE_SHAPE_TAPERED_CAPSULE && fabsf(info.a[3] - 0.814703f) < 1e-6f && fabsf(info.b[3] - 0.879879f) < 1e-6f);
    EXPECT(drape_cloth_sim_collidable(file, c, 0, 4, &info) == DRAPE_RESULT_INVALID_ARGUMENT);
    EXPECT(drape_cloth_sim_collidable(file, c, 1, 0, &info) == DRAPE_RESULT_INVALID_ARGUMENT);
    EXPECT(drape_cloth_sim_collidable(file, c, 0, 0, NULL) == DRAPE_RESULT_INVALID_ARGUMENT);
    EXPECT(drape_cloth_sim_collidable_count(file, c, 9) == 0);
    EXPECT(drape_cloth_sim_collidable_count(file, cloth_named(file, "Boar_ACC"), 0) == 0);
}

/* The accumulator: fixed steps of 1/30 s whatever the host's frame time, the same bits as
 * stepping by hand. */
static void test_advance(const drape_cloth_file* file, uint32_t cloth, float* a, float* b, size_t capacity) {
    drape_instance_def def = drape_default_instance_def();
    drape_instance *by_hand = NULL, *advanced = NULL;
    drape_error err;
    uint32_t steps = 99, total = 0, i;
    const float step = 1.0f / 30.0f;
    def.cloth = cloth;
    EXPECT(drape_instance_create(file, &def, &by_hand, &err) == DRAPE_RESULT_OK);
    EXPECT(drape_instance_create(file, &def, &advanced, &err) == DRAPE_RESULT_OK);
    if (!by_hand || !advanced) return;
    pose(by_hand, file, cloth, 0.0f);
    pose(advanced, file, cloth, 0.0f);
    drape_instance_reset(by_hand);
    drape_instance_reset(advanced);
    /* 60 Hz host frames: a step every second frame. */
    for (i = 0; i < 20; ++i) {
        EXPECT(drape_instance_advance(advanced, 1.0f / 60.0f, 1.0f, step, 4, &steps) == DRAPE_RESULT_OK);
        total += steps;
    }
    EXPECT(total == 9 || total == 10); /* 20 x (1/60) in float sums to 1/3 s, give or take an ulp */
    for (i = 0; i < total; ++i) EXPECT(drape_instance_step(by_hand, step) == DRAPE_RESULT_OK);
    read_all(by_hand, file, cloth, a, capacity);
    read_all(advanced, file, cloth, b, capacity);
    EXPECT(memcmp(a, b, capacity * sizeof(float)) == 0);
    /* time_scale 0 pauses; a stalled host gets at most max_steps and drops the rest. */
    EXPECT(drape_instance_advance(advanced, 1.0f, 0.0f, step, 4, &steps) == DRAPE_RESULT_OK && steps == 0);
    EXPECT(drape_instance_advance(advanced, 1.0f, 1.0f, step, 4, &steps) == DRAPE_RESULT_OK && steps == 4);
    EXPECT(drape_instance_advance(advanced, 0.0f, 1.0f, step, 4, &steps) == DRAPE_RESULT_OK && steps == 0);
    /* half speed: two 1/30 s host frames make one step */
    EXPECT(drape_instance_reset(advanced) == DRAPE_RESULT_OK);
    EXPECT(drape_instance_advance(advanced, step, 0.5f, step, 4, &steps) == DRAPE_RESULT_OK && steps == 0);
    EXPECT(drape_instance_advance(advanced, step, 0.5f, step, 4, &steps) == DRAPE_RESULT_OK && steps == 1);
    EXPECT(drape_instance_advance(advanced, -1.0f, 1.0f, step, 4, &steps) == DRAPE_RESULT_INVALID_ARGUMENT && steps == 0);
    EXPECT(drape_instance_advance(advanced, 1.0f, 1.0f, 0.0f, 4, NULL) == DRAPE_RESULT_INVALID_ARGUMENT);
    EXPECT(strstr(drape_instance_error_message(advanced), "advance") != NULL);
    EXPECT(drape_instance_advance(NULL, 1.0f, 1.0f, step, 4, &steps) == DRAPE_RESULT_INVALID_ARGUMENT);
    drape_instance_destroy(by_hand);
    drape_instance_destroy(advanced);
}

/* Save after 10 steps, step 10 more under a lifted pose, restore, step the same 10 again: the
 * same bits. A state restores only into the instance that saved it. */
static void test_save_restore(const drape_cloth_file* file, uint32_t cloth, float* a, float* b, size_t capacity) {
    drape_instance_def def = drape_default_instance_def();
    drape_instance *inst = NULL, *other = NULL;
    drape_error err;
    size_t size;
    unsigned char* saved;
    uint32_t i;
    def.cloth = cloth;
    EXPECT(drape_instance_create(file, &def, &inst, &err) == DRAPE_RESULT_OK);
    EXPECT(drape_instance_create(file, &def, &other, &err) == DRAPE_RESULT_OK);
    if (!inst || !other) return;
    pose(inst, file, cloth, 0.0f);
    drape_instance_reset(inst);
    for (i = 0; i < 10; ++i) drape_instance_step(inst, 1.0f / 30.0f);
    size = drape_instance_state_size(inst);
    EXPECT(size > 0 && drape_instance_state_size(NULL) == 0);
    saved = (unsigned char*)malloc(size);
    if (!saved) return;
    EXPECT(drape_instance_save_state(inst, saved, size - 1) == DRAPE_RESULT_BUFFER_TOO_SMALL);
    EXPECT(drape_instance_save_state(inst, saved, size) == DRAPE_RESULT_OK);
    for (i = 0; i < 10; ++i) {
        pose(inst, file, cloth, 0.05f * (float)(i + 1));
        drape_instance_step(inst, 1.0f / 30.0f);
    }
    read_all(inst, file, cloth, a, capacity);
    EXPECT(drape_instance_restore_state(inst, saved, size) == DRAPE_RESULT_OK);
    for (i = 0; i < 10; ++i) {
        pose(inst, file, cloth, 0.05f * (float)(i + 1));
        drape_instance_step(inst, 1.0f / 30.0f);
    }
    read_all(inst, file, cloth, b, capacity);
    EXPECT(memcmp(a, b, capacity * sizeof(float)) == 0);
    EXPECT(drape_instance_restore_state(other, saved, size) == DRAPE_RESULT_INVALID_ARGUMENT);
    EXPECT(strstr(drape_instance_error_message(other), "not a state this instance saved") != NULL);
    EXPECT(drape_instance_restore_state(inst, saved, size - 1) == DRAPE_RESULT_INVALID_ARGUMENT);
    saved[0] ^= 0xFF;
    EXPECT(drape_instance_restore_state(inst, saved, size) == DRAPE_RESULT_INVALID_ARGUMENT);
    EXPECT(drape_instance_save_state(NULL, saved, size) == DRAPE_RESULT_INVALID_ARGUMENT);
    EXPECT(drape_instance_restore_state(inst, NULL, size) == DRAPE_RESULT_INVALID_ARGUMENT);
    free(saved);
    drape_instance_destroy(inst);
    drape_instance_destroy(other);
}

/* A host task system that runs each enqueued task in two ranges on this thread and returns NULL
 * (nothing to wait for). */
static unsigned g_ranges = 0;
static void* inline_enqueue(drape_task_fn* task, uint32_t count, uint32_t min_range, void* context, void* user) {
    (void)min_range, (void)user;
    task(0, count / 2, 0, context);
    task(count / 2, count, 1, context);
    g_ranges += 2;
    return NULL;
}

/* drape_instances_step: the same bits as stepping each instance alone. */
static void test_many(const drape_cloth_file* file, uint32_t cloth, float* a, float* b, size_t capacity) {
    drape_instance_def def = drape_default_instance_def();
    drape_instance* alone[3] = {NULL, NULL, NULL};
    drape_instance* together[3] = {NULL, NULL, NULL};
    drape_task_system tasks;
    drape_error err;
    uint32_t i, step;
    def.cloth = cloth;
    for (i = 0; i < 3; ++i) {
        EXPECT(drape_instance_create(file, &def, &alone[i], &err) == DRAPE_RESULT_OK);
        EXPECT(drape_instance_create(file, &def, &together[i], &err) == DRAPE_RESULT_OK);
        if (!alone[i] || !together[i]) return;
        pose(alone[i], file, cloth, 0.1f * (float)i);
        pose(together[i], file, cloth, 0.1f * (float)i);
        drape_instance_reset(alone[i]);
        drape_instance_reset(together[i]);
    }
    tasks.enqueue = inline_enqueue;
    tasks.finish = NULL;
    tasks.user = NULL;
    tasks.worker_count = 2;
    for (step = 0; step < 10; ++step) {
        for (i = 0; i < 3; ++i) {
            pose(alone[i], file, cloth, 0.1f * (float)i + 0.02f * (float)step);
            pose(together[i], file, cloth, 0.1f * (float)i + 0.02f * (float)step);
            EXPECT(drape_instance_step(alone[i], 1.0f / 30.0f) == DRAPE_RESULT_OK);
        }
        EXPECT(drape_instances_step(together, 3, 1.0f / 30.0f, &tasks) == DRAPE_RESULT_OK);
    }
    EXPECT(g_ranges == 20);
    for (i = 0; i < 3; ++i) {
        read_all(alone[i], file, cloth, a, capacity);
        read_all(together[i], file, cloth, b, capacity);
        EXPECT(memcmp(a, b, capacity * sizeof(float)) == 0);
    }
    EXPECT(drape_instances_step(together, 3, 1.0f / 30.0f, NULL) == DRAPE_RESULT_OK);
    EXPECT(drape_instances_step(NULL, 3, 1.0f / 30.0f, &tasks) == DRAPE_RESULT_INVALID_ARGUMENT);
    for (i = 0; i < 3; ++i) {
        drape_instance_destroy(alone[i]);
        drape_instance_destroy(together[i]);
    }
}

int main(int argc, char** argv) {
    size_t size = 0, capacity = 0;
    unsigned char* bytes;
    drape_cloth_file* file = NULL;
    drape_error err;
    uint32_t cloth, s;
    float *a, *b;
    const char* version = drape_runtime_version();
    if (argc != 2) {
        fprintf(stderr, "usage: runtime_c_api_use c5000.drcloth\n");
        return 2;
    }
    EXPECT(version != NULL && version[0] >= '0' && version[0] <= '9' && strchr(version, '.') != NULL);
    bytes = read_file(argv[1], &size);
    if (!bytes || drape_cloth_file_load(bytes, size, &file, &err) != DRAPE_RESULT_OK) {
        fprintf(stderr, "cannot load %s\n", argv[1]);
        free(bytes);
        return 1;
    }
    free(bytes);
    test_collidables(file);
    cloth = cloth_named(file, "Kngiht_Mant");
    EXPECT(cloth != UINT32_MAX);
    if (cloth != UINT32_MAX) {
        for (s = 0; s < drape_cloth_sim_count(file, cloth); ++s) capacity += (size_t)drape_cloth_sim_particle_count(file, cloth, s) * 3;
        a = (float*)calloc(capacity, sizeof(float));
        b = (float*)calloc(capacity, sizeof(float));
        if (a && b) {
            test_advance(file, cloth, a, b, capacity);
            test_save_restore(file, cloth, a, b, capacity);
            test_many(file, cloth, a, b, capacity);
        }
        free(a);
        free(b);
    }
    drape_cloth_file_destroy(file);
    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("runtime %s: every embedding entry point checked\n", version);
    return 0;
}
