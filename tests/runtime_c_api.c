/* Compiled as C99 (-std=c99 -pedantic-errors -Wall -Wextra -Werror): the runtime's header is C.
 * Run by the test runtime_c_api_null_safety: every entry point takes NULL without crashing. */
#include "drape/runtime.h"

#include <stdio.h>

int main(void) {
    drape_error error;
    drape_cloth_file* file = 0;
    drape_instance* inst = 0;
    drape_instance_def def = drape_default_instance_def();
    const unsigned char junk[16] = {1, 2, 3};
    float out[3];
    int failures = 0;
    if (drape_cloth_file_load(junk, sizeof junk, &file, &error) == DRAPE_RESULT_OK || file) ++failures;
    if (error.message[0] == 0) ++failures;
    if (drape_instance_create(0, &def, &inst, &error) != DRAPE_RESULT_INVALID_ARGUMENT) ++failures;
    def.flags |= DRAPE_INSTANCE_DEPENETRATE; /* the opt-in depenetration, in C */
    if (DRAPE_DEPENETRATION_ROUNDS < 1 || drape_instance_create(0, &def, &inst, &error) != DRAPE_RESULT_INVALID_ARGUMENT) ++failures;
    if (drape_instance_step(0, 1.0f / 30) != DRAPE_RESULT_INVALID_ARGUMENT) ++failures;
    if (drape_instance_read_particles(0, 0, out, 3) != DRAPE_RESULT_INVALID_ARGUMENT) ++failures;
    {
        float r[6];
        def.flags |= DRAPE_INSTANCE_RECORD_REFERENCE;
        if (drape_instance_read_reference(0, 0, r, 6) != DRAPE_RESULT_INVALID_ARGUMENT) ++failures;
    }
    {
        float m[16];
        if (drape_instance_read_collidable_transform(0, 0, 0, m) != DRAPE_RESULT_INVALID_ARGUMENT) ++failures;
    }
    if (drape_cloth_data_count(0) != 0 || drape_cloth_data_name(0, 0) != 0) ++failures;
    drape_instance_destroy(0);
    drape_cloth_file_destroy(0);
    printf("%d failures\n", failures);
    return failures;
}
