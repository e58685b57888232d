// A kernel's parameters as the launch needs them, and whether a config's args fit them: read
// from the loaded function on a GPU (cuFuncGetParamInfo) or, without one, from the CUBIN that
// NVRTC wrote, so that `hone check` reports args that do not fit before any GPU is used.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "driver/gpu.hpp"

namespace hone {

// Each parameter's size in bytes, in order, from the CUBIN's per-kernel attributes (section
// .nv.info.FUNCTION, its KPARAM_INFO records). nullopt where the image is not a 64-bit ELF
// CUBIN, has no such section or no such record (a kernel without parameters too), or holds
// anything this reader does not know: then nothing is checked.
std::optional<std::vector<std::size_t>> cubin_param_sizes(const std::vector<uint8_t>& cubin,
                                                          const std::string& function);

// Why `args` cannot be passed to a kernel whose parameters have `sizes` (a count or a size
// that differs: the launch would read whatever lies beyond them), "" where they fit. An integer
// value fits any integer parameter of up to 8 bytes: its slot holds the whole 64-bit value.
std::string args_mismatch(const std::vector<std::size_t>& sizes,
                          const std::vector<kernel_arg>& args);

}  // namespace hone
