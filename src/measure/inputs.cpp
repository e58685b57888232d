#include "measure/inputs.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <numbers>
#include <random>

#include "hone/error.hpp"
#include "verify/float16.hpp"

namespace hone {
namespace {

template <class T>
void store_int(double v, void* dst) {
    using lim = std::numeric_limits<T>;
    T out = 0;
    if (std::isnan(v))
        out = 0;
    else if (v <= static_cast<double>(lim::min()))
        out = lim::min();
    else if (v >= static_cast<double>(lim::max()))  // max as double rounds up: >= catches it
        out = lim::max();
    else
        out = static_cast<T>(std::round(v));
    std::memcpy(dst, &out, sizeof out);
}

// Uniform in [0, 1) with 53 random bits.
double unit_uniform(std::mt19937_64& gen) {
    return static_cast<double>(gen() >> 11) * 0x1.0p-53;
}

template <class F>
void fill_values(const buffer_plan& b, std::vector<uint8_t>& out, F&& value_at) {
    const std::size_t size = elem_size(b.type);
    for (uint64_t i = 0; i < b.count; ++i) store_value(b.type, value_at(i), &out[i * size]);
}

void fill_uniform(const buffer_plan& b, std::vector<uint8_t>& out) {
    std::mt19937_64 gen(b.init.seed);
    if (is_float(b.type)) {
        const double lo = b.init.a, width = b.init.b - b.init.a;
        fill_values(b, out, [&](uint64_t) { return lo + width * unit_uniform(gen); });
        return;
    }
    // Integers: every value of [ceil(low), floor(high)] equally likely.
    const double lo = std::ceil(b.init.a);
    const double span = std::floor(b.init.b) - lo + 1.0;
    fill_values(b, out, [&](uint64_t) { return lo + std::floor(span * unit_uniform(gen)); });
}

void fill_normal(const buffer_plan& b, std::vector<uint8_t>& out) {
    std::mt19937_64 gen(b.init.seed);
    double spare = 0.0;
    bool has_spare = false;
    // Box-Muller: each pair of uniforms gives two independent normals.
    fill_values(b, out, [&](uint64_t) {
        if (has_spare) {
            has_spare = false;
            return b.init.a + b.init.b * spare;
        }
        const double radius = std::sqrt(-2.0 * std::log(1.0 - unit_uniform(gen)));
        const double angle = 2.0 * std::numbers::pi * unit_uniform(gen);
        spare = radius * std::sin(angle);
        has_spare = true;
        return b.init.a + b.init.b * radius * std::cos(angle);
    });
}

void read_file(const buffer_plan& b, std::vector<uint8_t>& out) {
    std::ifstream in(b.init.path, std::ios::binary);
    if (!in)
        throw env_error(fmt::format("cannot read the input of buffer '{}' from {}: {}", b.name,
                                    b.init.path, std::strerror(errno)));
    std::vector<uint8_t> data{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (data.size() != out.size())
        throw input_error(source_pos{b.init.path, 0, 0},
                          fmt::format("buffer '{}' needs {} bytes ({} elements of {}); the file "
                                      "has {}",
                                      b.name, out.size(), b.count, elem_name(b.type), data.size()));
    out = std::move(data);
}

}  // namespace

void store_value(elem_type t, double v, void* dst) {
    switch (t) {
        case elem_type::f16: {
            const uint16_t h = float_to_half(static_cast<float>(v));
            std::memcpy(dst, &h, sizeof h);
            return;
        }
        case elem_type::bf16: {
            const uint16_t h = float_to_bf16(static_cast<float>(v));
            std::memcpy(dst, &h, sizeof h);
            return;
        }
        case elem_type::f32: {
            const auto f = static_cast<float>(v);
            std::memcpy(dst, &f, sizeof f);
            return;
        }
        case elem_type::f64:
            std::memcpy(dst, &v, sizeof v);
            return;
        case elem_type::i8:
            return store_int<int8_t>(v, dst);
        case elem_type::i16:
            return store_int<int16_t>(v, dst);
        case elem_type::i32:
            return store_int<int32_t>(v, dst);
        case elem_type::i64:
            return store_int<int64_t>(v, dst);
        case elem_type::u8:
            return store_int<uint8_t>(v, dst);
        case elem_type::u16:
            return store_int<uint16_t>(v, dst);
        case elem_type::u32:
            return store_int<uint32_t>(v, dst);
        case elem_type::u64:
            return store_int<uint64_t>(v, dst);
    }
}

std::vector<uint8_t> generate_input(const buffer_plan& b) {
    std::vector<uint8_t> out(b.bytes());
    switch (b.init.kind) {
        case init_kind::zeros:
            break;  // value-initialised: all bits zero is 0 in every type
        case init_kind::constant:
            fill_values(b, out, [&](uint64_t) { return b.init.a; });
            break;
        case init_kind::sequence:
            fill_values(b, out,
                        [&](uint64_t i) { return b.init.a + b.init.b * static_cast<double>(i); });
            break;
        case init_kind::random_uniform:
            fill_uniform(b, out);
            break;
        case init_kind::random_normal:
            fill_normal(b, out);
            break;
        case init_kind::file:
            read_file(b, out);
            break;
    }
    return out;
}

}  // namespace hone
