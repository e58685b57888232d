// Draws that give the same numbers on every standard library (std::uniform_int_distribution,
// std::normal_distribution and std::shuffle do not), so that a seed names one search.
#pragma once
#include <cmath>
#include <cstdint>
#include <random>

namespace hone {

// Uniform in [0, n) by rejection; n >= 1.
inline uint64_t draw_below(std::mt19937_64& rng, uint64_t n) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x = rng();
    while (x >= limit) x = rng();
    return x % n;
}

// One of the card - 1 values in [0, card) other than v, uniformly; card >= 2.
inline uint32_t draw_other(std::mt19937_64& rng, uint32_t v, uint32_t card) {
    return static_cast<uint32_t>((v + 1 + draw_below(rng, card - 1)) % card);
}

// Uniform in [0, 1), 53 bits.
inline double draw_unit(std::mt19937_64& rng) {
    return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

// Standard normal (Box-Muller; one of the pair is dropped for simplicity).
inline double draw_normal(std::mt19937_64& rng) {
    const double u = 1.0 - draw_unit(rng);  // (0, 1]
    const double v = draw_unit(rng);
    return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
}

}  // namespace hone
