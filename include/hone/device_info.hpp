// A GPU as hone sees it: its attributes, identity and driver, and the GPUs of this machine.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hone/device_attrs.hpp"

namespace hone {

struct device_info {
    int ordinal = 0;
    device_attrs attrs;
    std::string uuid;        // "GPU-xxxxxxxx-..."
    int driver_version = 0;  // cuDriverGetVersion: 13000 = 13.0
    int64_t free_mem = 0;
};

// Devices visible to the driver; throws env_error when no driver or no GPU is found.
std::vector<device_info> list_devices();
// The same without free memory: no context is made on any GPU (cheap; for checking ordinals).
std::vector<device_info> describe_devices();

}  // namespace hone
