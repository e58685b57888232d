// hone's own GPU kernels (kernels/helpers.cu), built into libhone as a fatbin.
#pragma once

namespace hone {

// The fatbin image, for cu::module.
const void* helper_kernels_image();

}  // namespace hone
