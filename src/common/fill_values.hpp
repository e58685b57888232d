// Input values by element index, one source for the host (measure/inputs.cpp) and the GPU
// (measure/kernels/helpers.cu), so that a buffer filled on the GPU holds the host image's bytes.
// Every operation is one IEEE 754 operation rounded once, in the same order on both sides: no fused
// multiply-add (the GPU side uses the _rn intrinsics, the host file is built with
// -ffp-contract=off), and the logarithm, sine and cosine of Box-Muller are computed here from
// + - * / alone, because the libraries' own differ between the host and the GPU in the last bit.
// Compiled by nvcc (helpers.cu) and by the host compiler; plain C++17, no standard library on
// the GPU side.
#pragma once
#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define HONE_FILL_FN __host__ __device__ inline
#else
#include <cmath>
#define HONE_FILL_FN inline
#endif

namespace hone::fill {

// The element types, in hone::elem_type's order (inputs.cpp checks it).
enum type_code : int { f16, bf16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64 };
// What a buffer holds: kind_constant a; kind_sequence a + b i; kind_uniform lo + w u (u uniform
// in [0, 1), floored for integers: lo a, w b); kind_normal mean a, standard deviation b.
enum kind_code : int { kind_constant, kind_sequence, kind_uniform, kind_normal };

struct gen {
    int kind = kind_constant;
    int type = f32;
    double a = 0, b = 0;
    uint64_t key = 0;   // random kinds: stream_key(seed)
    bool ints = false;  // uniform: floored (an integer type)
};

#if defined(__CUDA_ARCH__)
HONE_FILL_FN double add(double x, double y) {
    return __dadd_rn(x, y);
}
HONE_FILL_FN double sub(double x, double y) {
    return __dsub_rn(x, y);
}
HONE_FILL_FN double mul(double x, double y) {
    return __dmul_rn(x, y);
}
HONE_FILL_FN double div(double x, double y) {
    return __ddiv_rn(x, y);
}
HONE_FILL_FN double sqrt_(double x) {
    return __dsqrt_rn(x);
}
HONE_FILL_FN double floor_(double x) {
    return ::floor(x);
}
HONE_FILL_FN double round_(double x) {
    return ::round(x);
}
HONE_FILL_FN bool isnan_(double x) {
    return ::isnan(x);
}
HONE_FILL_FN float to_float(double x) {
    return __double2float_rn(x);
}
HONE_FILL_FN double from_index(uint64_t i) {
    return __ull2double_rn(i);
}
#else
HONE_FILL_FN double add(double x, double y) {
    return x + y;
}
HONE_FILL_FN double sub(double x, double y) {
    return x - y;
}
HONE_FILL_FN double mul(double x, double y) {
    return x * y;
}
HONE_FILL_FN double div(double x, double y) {
    return x / y;
}
HONE_FILL_FN double sqrt_(double x) {
    return std::sqrt(x);
}
HONE_FILL_FN double floor_(double x) {
    return std::floor(x);
}
HONE_FILL_FN double round_(double x) {
    return std::round(x);
}
HONE_FILL_FN bool isnan_(double x) {
    return std::isnan(x);
}
HONE_FILL_FN float to_float(double x) {
    return static_cast<float>(x);
}
HONE_FILL_FN double from_index(uint64_t i) {
    return static_cast<double>(i);
}
#endif

// SplitMix64's output (Steele, Lea and Flood, 2014) number i + 1 from state `key`: each
// element's draw depends on its index alone, so any part of a buffer fills independently.
HONE_FILL_FN uint64_t draw(uint64_t key, uint64_t i) {
    uint64_t z = key + (i + 1) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// The stream's state for a seed: the seed mixed, so that nearby seeds give unrelated streams.
HONE_FILL_FN uint64_t stream_key(uint64_t seed) {
    return draw(seed, 0);
}

// Uniform in [0, 1) with 53 random bits: element i of the stream (both steps exact).
HONE_FILL_FN double unit_uniform(uint64_t key, uint64_t i) {
    return static_cast<double>(draw(key, i) >> 11) * 0x1.0p-53;
}

// ln x for a positive normal x: x = m 2^e with m in [sqrt(1/2), sqrt(2)), ln m = 2 atanh(s) =
// 2 (s + s^3/3 + ...) with s = (m - 1) / (m + 1), |s| < 0.172; eleven terms reach 2^-53.
HONE_FILL_FN double log_pos(double x) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int e = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
    bits = (bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull;
    double m;
    memcpy(&m, &bits, sizeof m);
    if (m > 1.4142135623730951) {
        m = mul(m, 0.5);
        ++e;
    }
    const double s = div(sub(m, 1.0), add(m, 1.0));
    const double s2 = mul(s, s);
    double p = 1.0 / 23;
    for (int k = 21; k >= 3; k -= 2) p = add(mul(p, s2), 1.0 / k);
    p = add(mul(p, s2), 1.0);
    return add(mul(static_cast<double>(e), 0.6931471805599453), mul(mul(2.0, s), p));
}

// sin and cos of 2 pi u for u in [0, 1): the octant from u's top bits (exact), Taylor series to
// 2^-53 on [0, pi/4], the octant's symmetry after.
HONE_FILL_FN void sincos_turn(double u, double& sin_out, double& cos_out) {
    const double t = mul(u, 8.0);  // exact
    const int q = static_cast<int>(floor_(t));
    const double f = sub(t, static_cast<double>(q));  // exact, in [0, 1)
    // The angle is q pi/4 + f pi/4; an odd octant is measured back from its end.
    const double y = mul((q & 1) ? sub(1.0, f) : f, 0.7853981633974483);
    const double y2 = mul(y, y);
    // sin y = y + y^3 S(y^2), cos y = 1 + y^2 C(y^2); S to the y^21 term, C to y^20.
    const double sk[] = {-1.0 / 121645100408832000.0,
                         1.0 / 355687428096000.0,
                         -1.0 / 1307674368000.0,
                         1.0 / 6227020800.0,
                         -1.0 / 39916800.0,
                         1.0 / 362880.0,
                         -1.0 / 5040.0,
                         1.0 / 120.0,
                         -1.0 / 6.0};  // -1/19!, 1/17!, ..., -1/3!
    const double ck[] = {-1.0 / 6402373705728000.0,
                         1.0 / 20922789888000.0,
                         -1.0 / 87178291200.0,
                         1.0 / 479001600.0,
                         -1.0 / 3628800.0,
                         1.0 / 40320.0,
                         -1.0 / 720.0,
                         1.0 / 24.0,
                         -1.0 / 2.0};          // -1/18!, 1/16!, ..., -1/2!
    double sp = 1.0 / 51090942171709440000.0;  // 1/21!
    double cp = 1.0 / 2432902008176640000.0;   // 1/20!
    for (int k = 0; k < 9; ++k) {
        sp = add(mul(sp, y2), sk[k]);
        cp = add(mul(cp, y2), ck[k]);
    }
    const double s = add(y, mul(mul(sp, y2), y));
    const double c = add(1.0, mul(cp, y2));
    // Quarter turns: octants 2k and 2k + 1 turn (s, c) = (sin y, cos y) by k quarters, the odd
    // one as k + 1 quarters less y.
    const int quarter = (q + (q & 1)) / 2 % 4;
    const bool odd = q & 1;
    double sv, cv;  // sin and cos of quarter * pi/2 + (odd ? -y : y)
    const double ys = odd ? -s : s;
    switch (quarter) {
        case 0:
            sv = ys;
            cv = c;
            break;
        case 1:
            sv = c;
            cv = -ys;
            break;
        case 2:
            sv = -ys;
            cv = -c;
            break;
        default:
            sv = -c;
            cv = ys;
            break;
    }
    sin_out = sv;
    cos_out = cv;
}

// Rounds value >> shift to nearest, ties to even.
HONE_FILL_FN uint32_t shift_round_even(uint32_t value, int shift) {
    const uint32_t result = value >> shift;
    const uint32_t rem = value & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    return result + ((rem > half || (rem == half && (result & 1))) ? 1 : 0);
}

// IEEE half of a float's bits: round to nearest even; overflow to infinity; NaN stays NaN.
HONE_FILL_FN uint16_t half_bits(uint32_t x) {
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

// bfloat16 of a float's bits: round to nearest even; NaN stays NaN.
HONE_FILL_FN uint16_t bf16_bits(uint32_t x) {
    if ((x & 0x7fffffff) > 0x7f800000) return static_cast<uint16_t>((x >> 16) | 0x0040);
    return static_cast<uint16_t>(shift_round_even(x, 16));
}

// v rounded to nearest and saturated to [lo, hi] (NaN: 0), as an integer type T.
template <class T>
HONE_FILL_FN T saturate(double v, T lo, T hi) {
    if (isnan_(v)) return 0;
    if (v <= static_cast<double>(lo)) return lo;
    if (v >= static_cast<double>(hi)) return hi;  // hi as a double may round up: >= catches it
    return static_cast<T>(round_(v));
}

// Writes v as type t at dst (elem_size(t) bytes): floats rounded to nearest (even).
HONE_FILL_FN void store(int t, double v, unsigned char* dst) {
    switch (t) {
        case f16:
        case bf16: {
            const float f = to_float(v);
            uint32_t x;
            memcpy(&x, &f, sizeof x);
            const uint16_t h = t == f16 ? half_bits(x) : bf16_bits(x);
            memcpy(dst, &h, sizeof h);
            return;
        }
        case f32: {
            const float f = to_float(v);
            memcpy(dst, &f, sizeof f);
            return;
        }
        case f64:
            memcpy(dst, &v, sizeof v);
            return;
        case i8: {
            const int8_t o = saturate<int8_t>(v, -128, 127);
            memcpy(dst, &o, 1);
            return;
        }
        case i16: {
            const int16_t o = saturate<int16_t>(v, -32768, 32767);
            memcpy(dst, &o, sizeof o);
            return;
        }
        case i32: {
            const int32_t o = saturate<int32_t>(v, -2147483647 - 1, 2147483647);
            memcpy(dst, &o, sizeof o);
            return;
        }
        case i64: {
            const int64_t o =
                saturate<int64_t>(v, -9223372036854775807ll - 1, 9223372036854775807ll);
            memcpy(dst, &o, sizeof o);
            return;
        }
        case u8: {
            const uint8_t o = saturate<uint8_t>(v, 0, 255);
            memcpy(dst, &o, 1);
            return;
        }
        case u16: {
            const uint16_t o = saturate<uint16_t>(v, 0, 65535);
            memcpy(dst, &o, sizeof o);
            return;
        }
        case u32: {
            const uint32_t o = saturate<uint32_t>(v, 0, 4294967295u);
            memcpy(dst, &o, sizeof o);
            return;
        }
        default: {
            const uint64_t o = saturate<uint64_t>(v, 0, 18446744073709551615ull);
            memcpy(dst, &o, sizeof o);
            return;
        }
    }
}

// Element i's value for kind_constant, kind_sequence and kind_uniform.
HONE_FILL_FN double value_at(const gen& g, uint64_t i) {
    switch (g.kind) {
        case kind_sequence:
            return add(g.a, mul(g.b, from_index(i)));
        case kind_uniform: {
            const double u = mul(g.b, unit_uniform(g.key, i));
            return add(g.a, g.ints ? floor_(u) : u);
        }
        default:
            return g.a;
    }
}

// kind_normal: elements i and i + 1 (i even) from one Box-Muller pair of uniforms.
HONE_FILL_FN void normal_pair(const gen& g, uint64_t i, double& x0, double& x1) {
    const double radius = sqrt_(mul(-2.0, log_pos(sub(1.0, unit_uniform(g.key, i)))));
    double s, c;
    sincos_turn(unit_uniform(g.key, i + 1), s, c);
    const double r = mul(g.b, radius);
    x0 = add(g.a, mul(r, c));
    x1 = add(g.a, mul(r, s));
}

}  // namespace hone::fill
