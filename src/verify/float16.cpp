#include "verify/float16.hpp"

#include <bit>
#include <cmath>

namespace hone {
namespace {

// Rounds `value >> shift` to nearest, ties to even.
uint32_t shift_round_even(uint32_t value, int shift) {
    const uint32_t result = value >> shift;
    const uint32_t rem = value & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    return result + ((rem > half || (rem == half && (result & 1))) ? 1 : 0);
}

}  // namespace

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
    const uint32_t x = std::bit_cast<uint32_t>(f);
    const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000);
    const uint32_t ax = x & 0x7fffffff;
    if (ax > 0x7f800000) return sign | 0x7e00 | ((ax >> 13) & 0x3ff);  // NaN, made quiet
    if (ax >= 0x477ff000) return sign | 0x7c00;  // >= 65520 rounds past 65504: inf
    if (ax >= 0x38800000)                        // normal half: rebias the exponent 127 -> 15
        return sign | static_cast<uint16_t>(shift_round_even(ax - 0x38000000, 13));
    if (ax <= 0x33000000) return sign;  // <= 2^-25 rounds to zero (2^-25 is a tie to even 0)
    // Subnormal half: units of 2^-24.
    const uint32_t mant = (ax & 0x7fffff) | 0x800000;
    const int exp = static_cast<int>(ax >> 23);
    return sign | static_cast<uint16_t>(shift_round_even(mant, 126 - exp));
}

float bf16_to_float(uint16_t h) {
    return std::bit_cast<float>(static_cast<uint32_t>(h) << 16);
}

uint16_t float_to_bf16(float f) {
    const uint32_t x = std::bit_cast<uint32_t>(f);
    if ((x & 0x7fffffff) > 0x7f800000) return static_cast<uint16_t>((x >> 16) | 0x0040);
    return static_cast<uint16_t>(shift_round_even(x, 16));
}

}  // namespace hone
