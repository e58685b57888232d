// The GPU's clock, temperature and power from NVML, loaded at run time with dlopen as the
// driver is: hone runs where NVML is absent, and only reads (never sets clocks or limits).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "driver/gpu.hpp"

namespace hone::nvml {

// The state of the GPU with this UUID ("GPU-..."), now; -1 for whatever NVML cannot tell (NVML
// absent, the GPU not found, a query not supported). Thread-safe; never throws.
gpu_telemetry read(const std::string& uuid);

// How many GPUs NVML sees (all of the machine's: CUDA_VISIBLE_DEVICES does not apply); 0 when
// NVML is absent or fails. Cheaper than CUDA's start, which it does not need.
int device_count();

// Every GPU NVML sees, in its order (the PCI bus's), by name and memory: enough to tell whether
// a machine's GPUs are of one model without CUDA's start (whose order may differ: only a list
// of one model can stand for CUDA's). Empty when NVML is absent or a query fails.
struct gpu_model {
    std::string name;
    uint64_t total_mem = 0;
};
std::vector<gpu_model> models();

}  // namespace hone::nvml
