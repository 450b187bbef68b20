// drape runtime: the solver's immutable set-ups, one per simulate operator, built at load.
// Without the simulate kernel (no runtime/src/solver/*.cpp yet) there are none, and the
// simulate operator is the no-op simulate_placeholder (instance.cpp).
#if __has_include("drape/schema/verify.h")
#include "drape/schema/verify.h"
#include "rt_instance.h"

namespace fb = drape::cloth_fb;

bool drape_runtime_build_sim_setups(drape_cloth_file& file, const fb::ClothFile& root, char* error, size_t error_size) {
    (void)root, (void)error, (void)error_size;
    for (size_t c = 0; c < file.model.cloths.size(); ++c) file.setups[c].setups.assign(file.model.cloths[c].simulates.size(), nullptr);
    return true;
}
#endif
