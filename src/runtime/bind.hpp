// Binding an application's arguments to a spec's `args`: pure, so that every error is tested
// without a GPU. Each argument becomes one 8-byte little-endian slot; cuLaunchKernel reads the
// low bytes of a slot for a narrower parameter.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hone/kernel.hpp"
#include "hone/spec.hpp"

namespace hone::runtime {

struct arg_slot {
    bool is_buffer = true;
    std::string name;  // buffer name, or the scalar's expression text
    elem_type type = elem_type::f32;
    source_pos pos;  // of the argument in the config
};

struct arg_layout {
    std::string kernel;  // for messages
    std::string config;  // the config path, for messages
    std::vector<arg_slot> slots;
    std::size_t buffers = 0;
    static arg_layout of(const spec& s);
};

// Checks `given` against the layout and fills out[0 .. slots.size()). Returns true when only
// the buffers were given: the scalars' slots are then left 0 for the caller to fill from the
// sizes. Throws input_error naming the kernel, the argument's position and what was expected.
bool bind_args(const arg_layout& l, std::span<const arg> given, uint64_t* out);

}  // namespace hone::runtime
