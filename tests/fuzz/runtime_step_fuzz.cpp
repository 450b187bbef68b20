// libFuzzer: a .drcloth through the runtime as an engine runs it: load, an instance of each cloth
// data (at most 4), its transform set posed as a sway about identity, reset, then 30 steps of
// 1/30 s re-posed before each (tests/support/runtime_drive.h). Where runtime_fuzz walks every
// state for two steps, this one lets a state's simulation run long enough for hostile values
// (NaN, huge stiffness, degenerate triangles) to reach every operator and the solver.
#include <cstddef>
#include <cstdint>

#include "runtime_drive.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    (void)drape::test::run_cloth_file(data, size, 30, 4);
    return 0;
}
