// Inputs generated on the GPU (kernels/helpers.cu's hone_fill), with the bytes of the host's
// image (measure/inputs.hpp, common/fill_values.hpp): a large input never crosses the host
// link, and several GPUs of one host do not share its cores to make theirs.
#pragma once
#include "driver/gpu.hpp"
#include "driver/resources.hpp"

namespace hone {

// Queues on s the fill of b (p.bytes() bytes) with p's input values; false, with nothing
// queued, for a buffer whose image only the host makes (a file, an output's poison).
bool fill_input_on_gpu(const cu::module& helpers, const buffer_plan& p, const cu::device_buffer& b,
                       int sm_count, CUstream s);

}  // namespace hone
