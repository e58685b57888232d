// Reading device attributes and identity from the driver.
#pragma once
#include "driver/cuda_api.hpp"
#include "driver/gpu.hpp"

namespace hone::cu {

device_attrs read_device_attrs(CUdevice dev);
// Name, uuid, attributes and driver version; free memory is left 0 (it needs a context).
device_info read_device_info(int ordinal);

}  // namespace hone::cu
