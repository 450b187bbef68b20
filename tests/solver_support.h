// Test helpers for the solver (runtime/src/solver): builds a Setup and a State into vectors.
#pragma once

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "solver/solver.h"

namespace drape::solver::test {

struct Sim {
    std::vector<Float4> setup_memory, state_memory;  // Float4: 16-byte aligned storage
    const Setup* setup = nullptr;
    State* state = nullptr;
    std::string error;

    explicit Sim(const SimClothDesc& desc, StateOptions options = {}) {
        const size_t n = setup_bytes(desc);
        if (n == 0) {
            char buf[256] = {};
            build_setup(desc, nullptr, 0, buf, sizeof buf);
            error = buf;
            return;
        }
        setup_memory.resize(n / sizeof(Float4) + 1);
        char buf[256] = {};
        setup = build_setup(desc, setup_memory.data(), setup_memory.size() * sizeof(Float4), buf, sizeof buf);
        if (!setup) {
            error = buf;
            return;
        }
        const size_t k = state_bytes(*setup, options);
        state_memory.resize(k / sizeof(Float4) + 1);
        state = build_state(*setup, options, state_memory.data(), state_memory.size() * sizeof(Float4));
    }
    Sim(const Sim&) = delete;
    Sim& operator=(const Sim&) = delete;
    bool ok() const { return setup && state; }
    void step(const StepInputs& in) { drape::solver::step(*setup, *state, in); }
    Float4& p(uint32_t i) { return state->positions[i]; }
};

inline bool same_bits(const Float4* a, const Float4* b, uint32_t n) {
    for (uint32_t i = 0; i < n; ++i)
        if (std::memcmp(&a[i].x, &b[i].x, 12) != 0) return false;
    return true;
}

inline float distance(const Float4& a, const Float4& b) {
    const float dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
    return std::sqrt(dx * dx + dy * dy + dz * dz);
}

}  // namespace drape::solver::test
