#include "verify/float16.hpp"

#include <bit>
#include <cmath>

#include "common/fill_values.hpp"

namespace hone {

float half_to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
    const uint32_t exp = (h >> 10) & 0x1f;
    const uint32_t mant = h & 0x3ff;
    if (exp == 0) {  // zero or subnormal: mant * 2^-24
        const float f = std::ldexp(static_cast<float>(mant), -24);
        return sign ? -f : f;
    }
    if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000 | (mant << 13));
    return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t float_to_half(float f) {
    return fill::half_bits(std::bit_cast<uint32_t>(f));
}

float bf16_to_float(uint16_t h) {
    return std::bit_cast<float>(static_cast<uint32_t>(h) << 16);
}

uint16_t float_to_bf16(float f) {
    return fill::bf16_bits(std::bit_cast<uint32_t>(f));
}

}  // namespace hone
