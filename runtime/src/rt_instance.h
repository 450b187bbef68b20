// drape runtime: an instance of one cloth data (the C API's drape_instance). Every array lives
// in one block allocated at creation; step only reads the asset and writes these arrays.
#pragma once

#include <cstddef>
#include <cstdint>

#include "drape/runtime.h"
#include "rt_model.h"
#include "rt_ops.h"
#include "solver/solver.h"

struct drape_cloth_file {
    drape::rt::FileModel model;
    // Per simulate operator of each cloth data: the solver's immutable set-up (nullptr with the
    // placeholder), indexed like ClothModel::simulates.
    struct SimSetups {
        std::vector<const drape::solver::Setup*> setups;
        std::vector<void*> memory;
    };
    std::vector<SimSetups> setups;  // per cloth data
    ~drape_cloth_file();
};

namespace drape::rt {

struct SimSlot {
    solver::State* state = nullptr;        // the solver's state (nullptr with the placeholder)
    const solver::Setup* setup = nullptr;
    solver::Float4* positions = nullptr;   // state->positions, or the placeholder's own array
    solver::Float4* previous = nullptr;
    uint32_t count = 0;
    // DRAPE_INSTANCE_RECORD_REFERENCE: per particle its reference vertex's position and normal
    // as the simulate operator read them (NaN: none yet); nullptr without the flag.
    solver::Float4* reference = nullptr;
    solver::Float4* reference_normal = nullptr;
};

struct DisplayInput {  // vertices the engine skinned (drape_instance_set_display_vertices)
    float* p = nullptr;
    float* n = nullptr;
    float* t = nullptr;
    bool has_positions = false, has_normals = false, has_tangents = false;
};

}  // namespace drape::rt

struct drape_instance {
    const drape_cloth_file* file = nullptr;
    const drape::rt::ClothModel* cloth = nullptr;
    uint32_t cloth_index = 0;
    uint32_t flags = 0;
    drape_allocator allocator{};
    void* block = nullptr;
    size_t block_size = 0;

    drape::rt::Transforms transforms{};
    drape::rt::BufferData* buffers = nullptr;  // per buffer definition
    drape::rt::DisplayInput* inputs = nullptr;
    uint16_t* triangle_storage = nullptr;      // per display buffer: num_triangles * 3
    drape::rt::SimSlot* sims = nullptr;        // per sim cloth
    drape::rt::Scratch scratch{};
    const drape::solver::Float4** buffer_positions = nullptr;  // StepInputs, per buffer
    const drape::solver::Float4** buffer_normals = nullptr;
    drape::solver::RuntimeCollidable* collidables = nullptr;  // per sim: max_runtime_collidables
    uint8_t* collidable_used = nullptr;
    uint32_t collidable_capacity = 0;
    drape::solver::WindField* winds = nullptr;
    uint32_t wind_capacity = 0;
    drape::solver::WindField* wind_active = nullptr;  // compacted each step
    drape::solver::RuntimeCollidable* collidable_active = nullptr;
    uint32_t state = 0;
    float accumulator = 0;  // drape_instance_advance: time not yet stepped, seconds
    drape_result last_step = DRAPE_RESULT_OK;  // drape_instances_step: this instance's result
    bool stepped = false;                      // drape_instances_step: the host's tasks ran it
    uint32_t batch_slot = UINT32_MAX;          // drape_instances_step: its index while the call checks for repeats
    char error[DRAPE_ERROR_MESSAGE_SIZE] = {};
};

namespace drape::rt {
// Runs the current state's operators (simulate included unless `skip_simulate`), with dt.
void run_state(drape_instance& inst, float dt, bool skip_simulate);
}  // namespace drape::rt
