// Standard headers for NVRTC, which has none of its own: a kernel written for nvcc includes
// <cstdint>, <cstdio>, <cmath>, <cassert> or <type_traits>. Each stand-in includes CCCL's
// cuda/std counterpart from the toolkit and makes its names visible in namespace std; <cmath>
// adds NVRTC's own math functions to std, <cfloat> defines IEEE 754's constants.
#pragma once
#include <string>
#include <vector>

namespace hone {

struct std_shim {
    std::string name;  // as included: "cstdint", "stdint.h"
    std::string text;
};

// The stand-ins whose cuda/std header is found under `toolkit_dirs` (and those that need none:
// <cstdio>, <cfloat>, <cmath>), for nvrtcCreateProgram's in-memory headers. A kernel's own folder
// or -I folder holding a header of the same name keeps it (the stand-in is then left out).
std::vector<std_shim> std_shims(const std::vector<std::string>& toolkit_dirs);
// A digest of every stand-in's text: part of the compile cache's key.
const std::string& std_shims_version();

}  // namespace hone
