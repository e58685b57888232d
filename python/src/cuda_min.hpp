// The few CUDA driver calls the Python launch path makes itself, loaded with dlopen on first use
// (as libhone loads the driver): which device a pointer lives on, and the tensor's device's
// primary context when the thread's current context is another device's.
#pragma once
#include <cstdint>

namespace hone::py::cuda {

using context = void*;

// env_error when the driver cannot be loaded or a call fails.
void init();
int pointer_device(uint64_t address);  // -1: not device memory the driver knows of
int current_device();                  // the current context's device, -1 when none is current
context primary_context(int device);   // retained for the life of the process
void push(context c);
void pop();

}  // namespace hone::py::cuda
