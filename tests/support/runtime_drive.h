// Test support: a .drcloth driven through the runtime's C API the way an engine drives it, for the
// hostile-file regressions and the fuzz target of the step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace drape::test {

// `count` column-major 4x4 matrices (16 floats each, as drape_instance_set_transforms takes them)
// swaying about identity at time `t` seconds: transform i turns about z by a few degrees and
// slides a few centimetres, with a phase per transform.
void sway_transforms(uint32_t count, float t, std::vector<float>& out);

struct RuntimeRun {
    std::string error;       // the first failure (load, create, step), "" when everything succeeded
    uint32_t instances = 0;  // instances created
    uint32_t steps = 0;      // steps that returned DRAPE_RESULT_OK, over all instances
};

// Loads `size` bytes at `data`; then for each cloth data (at most `max_cloths`) creates an
// instance, poses its transforms (sway_transforms at 0), resets, and runs `steps` steps of 1/30 s,
// posing before each; reads every sim cloth's particles and every buffer at the end.
RuntimeRun run_cloth_file(const uint8_t* data, size_t size, uint32_t steps, uint32_t max_cloths = 8);

}  // namespace drape::test
