// Bit conversions between float and the 16-bit float formats (IEEE half, bfloat16), so that
// inputs can be generated and outputs checked on the host without CUDA headers.
#pragma once
#include <cstdint>

namespace hone {

float half_to_float(uint16_t h);
uint16_t float_to_half(float f);  // round to nearest even; overflow -> inf; NaN stays NaN
float bf16_to_float(uint16_t h);
uint16_t float_to_bf16(float f);  // round to nearest even; NaN stays NaN

}  // namespace hone
