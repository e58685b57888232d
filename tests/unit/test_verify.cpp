// Output verification, 16-bit float conversions and input generation.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <stdexcept>
#include <vector>

#include "hone/error.hpp"
#include "measure/inputs.hpp"
#include "temp_dir.hpp"
#include "verify/float16.hpp"
#include "verify/verify.hpp"

using namespace hone;

namespace {

verify_outcome compare_f32(const std::vector<float>& got, const std::vector<float>& ref,
                           double rtol = 0, double atol = 0) {
    return compare_buffers(elem_type::f32, got.data(), ref.data(), got.size(), rtol, atol, "c");
}

template <class T>
std::vector<T> as_vector(const std::vector<uint8_t>& bytes) {
    std::vector<T> v(bytes.size() / sizeof(T));
    std::memcpy(v.data(), bytes.data(), bytes.size());
    return v;
}

buffer_plan plan_of(elem_type t, uint64_t count, init_kind kind, double a, double b,
                    uint64_t seed = 1) {
    buffer_plan p;
    p.name = "x";
    p.type = t;
    p.count = count;
    p.init.kind = kind;
    p.init.a = a;
    p.init.b = b;
    p.init.seed = seed;
    return p;
}

}  // namespace

TEST_CASE("half and bfloat16 conversions") {
    CHECK(float_to_half(1.0f) == 0x3c00);
    CHECK(float_to_half(-2.0f) == 0xc000);
    CHECK(float_to_half(65504.0f) == 0x7bff);
    CHECK(float_to_half(65519.0f) == 0x7bff);
    CHECK(float_to_half(65520.0f) == 0x7c00);  // rounds past the largest half: inf
    CHECK(float_to_half(std::ldexp(1.0f, -24)) == 0x0001);
    CHECK(float_to_half(std::ldexp(1.0f, -25)) == 0x0000);         // tie: to even (zero)
    CHECK(float_to_half(std::ldexp(3.0f, -25)) == 0x0002);         // 1.5 units: to even (2)
    CHECK(float_to_half(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);  // tie: to even
    CHECK(float_to_half(1.0f + std::ldexp(3.0f, -11)) == 0x3c02);  // tie: to even
    CHECK(std::isnan(half_to_float(float_to_half(std::numeric_limits<float>::quiet_NaN()))));
    CHECK(float_to_bf16(1.0f) == 0x3f80);
    CHECK(float_to_bf16(1.0f + std::ldexp(1.0f, -8)) == 0x3f80);  // tie: to even
    CHECK(std::isnan(bf16_to_float(float_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
    // Every non-NaN 16-bit pattern survives a round trip through float.
    int half_mismatch = 0, bf16_mismatch = 0;
    for (uint32_t h = 0; h < 0x10000; ++h) {
        const auto bits = static_cast<uint16_t>(h);
        if (!std::isnan(half_to_float(bits)))
            half_mismatch += float_to_half(half_to_float(bits)) != bits;
        if (!std::isnan(bf16_to_float(bits)))
            bf16_mismatch += float_to_bf16(bf16_to_float(bits)) != bits;
    }
    CHECK(half_mismatch == 0);
    CHECK(bf16_mismatch == 0);
}

TEST_CASE("compare_buffers applies atol + rtol * |ref|") {
    CHECK(compare_f32({1.0f, 2.0f}, {1.0f, 2.0f}).ok);
    CHECK(compare_f32({1.00001f}, {1.0f}, 1e-4, 0).ok);
    CHECK_FALSE(compare_f32({1.001f}, {1.0f}, 1e-4, 0).ok);
    CHECK(compare_f32({0.001f}, {0.0f}, 1e-4, 1e-2).ok);  // atol rescues values near zero
    CHECK(compare_f32({-0.0f}, {0.0f}).ok);
    const verify_outcome v = compare_f32({1, 2, 1.5f, 4}, {1, 2, 2, 4});
    CHECK_FALSE(v.ok);
    CHECK(v.bad == 1);
    CHECK(v.first_bad == 2);
    CHECK(v.max_abs_err == 0.5);
    CHECK(v.max_rel_err == 0.25);
    CHECK(v.message ==
          "buffer c: 1 of 4 elements differ (first at 2: got 1.5, expected 2; max abs err 0.5)");
}

TEST_CASE("NaN and infinity") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    CHECK(compare_f32({nan}, {nan}).ok);
    const verify_outcome v = compare_f32({1, nan, nan}, {1, 2, 3}, 1, 1);
    CHECK(v.bad == 2);
    CHECK(v.nan_count == 2);
    CHECK(v.unwritten == 0);
    CHECK(v.message.find("2 NaN") != std::string::npos);
    CHECK(compare_f32({inf}, {inf}).ok);
    CHECK_FALSE(compare_f32({inf}, {-inf}, 1, 1).ok);
    CHECK_FALSE(compare_f32({inf}, {1e30f}, 1, 1).ok);
}

TEST_CASE("poison left in an output counts as unwritten") {
    std::vector<float> got(8);
    fill_poison(elem_type::f32, got.data(), got.size());
    CHECK(std::isnan(got[0]));
    got[0] = 1, got[1] = 2;
    const std::vector<float> ref{1, 2, 3, 4, 5, 6, 7, 8};
    const verify_outcome v = compare_f32(got, ref);
    CHECK(v.bad == 6);
    CHECK(v.unwritten == 6);
    CHECK(v.nan_count == 0);
    CHECK(v.first_bad == 2);
    CHECK(v.message.find("first at 2: never written, expected 3") != std::string::npos);
    CHECK(v.message.find("6 unwritten") != std::string::npos);
    CHECK(v.message.find("max abs err") == std::string::npos);  // no number was compared
    // Left unwritten by the reference too: consistent, so not an error.
    std::vector<float> ref_poison(8);
    fill_poison(elem_type::f32, ref_poison.data(), ref_poison.size());
    std::vector<float> got_poison = ref_poison;
    CHECK(compare_f32(got_poison, ref_poison).ok);
    for (const elem_type t : {elem_type::f16, elem_type::bf16, elem_type::f64}) {
        std::vector<uint8_t> p(4 * elem_size(t)), r(4 * elem_size(t), 0);
        fill_poison(t, p.data(), 4);
        const verify_outcome pv = compare_buffers(t, p.data(), r.data(), 4, 1, 1, "h");
        CHECK(pv.unwritten == 4);
    }
}

TEST_CASE("integers compare exactly; poison is unwritten only where the reference differs") {
    const std::vector<int32_t> ref{1, -3, 5, static_cast<int32_t>(0xa5a5a5a5)};
    std::vector<int32_t> got(4);
    fill_poison(elem_type::i32, got.data(), got.size());
    CHECK(got[0] == static_cast<int32_t>(0xa5a5a5a5));
    got[0] = 1;
    got[1] = -4;
    const verify_outcome v = compare_buffers(elem_type::i32, got.data(), ref.data(), 4, 1, 1, "n");
    CHECK(v.bad == 2);  // -4 vs -3 (tolerances do not apply), and element 2 still poison
    CHECK(v.unwritten == 1);
    CHECK(v.first_bad == 1);
    CHECK(v.message ==
          "buffer n: 2 of 4 elements differ (first at 1: got -4, expected -3; max abs err 1; "
          "1 unwritten)");
    const std::vector<uint64_t> u{1ull << 63, 7};
    CHECK(compare_buffers(elem_type::u64, u.data(), u.data(), 2, 0, 0, "u").ok);
}

TEST_CASE("half buffers are checked on their decoded values") {
    const std::vector<uint16_t> ref{float_to_half(1.0f), float_to_half(100.0f)};
    const std::vector<uint16_t> got{float_to_half(1.0f), float_to_half(100.1f)};
    CHECK(compare_buffers(elem_type::f16, got.data(), ref.data(), 2, 1e-2, 0, "h").ok);
    const verify_outcome v = compare_buffers(elem_type::f16, got.data(), ref.data(), 2, 0, 0, "h");
    CHECK_FALSE(v.ok);
    CHECK(v.message.find("got 100.125, expected 100") != std::string::npos);
}

TEST_CASE("inputs are deterministic and follow the init spec") {
    const buffer_plan u = plan_of(elem_type::f32, 100000, init_kind::random_uniform, -1, 1, 42);
    const std::vector<uint8_t> first = generate_input(u);
    CHECK(first == generate_input(u));
    buffer_plan other_seed = u;
    other_seed.init.seed = 43;
    CHECK(first != generate_input(other_seed));
    const std::vector<float> values = as_vector<float>(first);
    double sum = 0;
    for (const float x : values) {
        REQUIRE(x >= -1.0f);
        REQUIRE(x < 1.0f);
        sum += x;
    }
    CHECK(std::fabs(sum / values.size()) < 0.01);
    // The generator is part of the spec (the same bytes on every machine, by every version):
    // SplitMix64 seeded with its own first draw from the seed, element i its draw i + 1, 53
    // bits to [0, 1); these values come from an independent implementation.
    CHECK(values[0] == -0.31341615319252014f);
    CHECK(values[1] == 0.9114934802055359f);
    CHECK(values[2] == -0.02730092778801918f);
    CHECK(values[65536] == -0.7147300243377686f);
    CHECK(values[99999] == 0.5071600079536438f);

    const auto normal = as_vector<double>(
        generate_input(plan_of(elem_type::f64, 100000, init_kind::random_normal, 5, 2, 9)));
    double mean = 0, sq = 0;
    for (const double x : normal) mean += x;
    mean /= normal.size();
    for (const double x : normal) sq += (x - mean) * (x - mean);
    CHECK(mean == doctest::Approx(5).epsilon(0.01));
    CHECK(std::sqrt(sq / (normal.size() - 1)) == doctest::Approx(2).epsilon(0.01));
}

TEST_CASE("random inputs are the same bytes whatever the number of threads") {
    // Odd counts, so that the last chunk and the last Box-Muller pair are partial.
    for (const init_kind k : {init_kind::random_uniform, init_kind::random_normal}) {
        const buffer_plan f = plan_of(elem_type::f32, 3 * 65536 + 11, k, -2, 3, 7);
        const std::vector<uint8_t> one = generate_input(f, 1);
        CHECK(one == generate_input(f, 3));
        CHECK(one == generate_input(f, 0));
        const buffer_plan i = plan_of(elem_type::i16, 65536 + 3, k, -5, 5, 8);
        CHECK(generate_input(i, 1) == generate_input(i, 4));
    }
    // Neighbouring chunks are not copies of each other.
    const auto v = as_vector<float>(
        generate_input(plan_of(elem_type::f32, 2 * 65536, init_kind::random_uniform, 0, 1, 1), 2));
    CHECK_FALSE(std::equal(v.begin(), v.begin() + 65536, v.begin() + 65536));
}

TEST_CASE("sequences, constants and integer ranges") {
    CHECK(as_vector<int32_t>(generate_input(plan_of(elem_type::i32, 4, init_kind::sequence, 3,
                                                    2))) == std::vector<int32_t>{3, 5, 7, 9});
    CHECK(as_vector<uint16_t>(generate_input(plan_of(elem_type::f16, 2, init_kind::constant, 1.5,
                                                     0))) == std::vector<uint16_t>{0x3e00, 0x3e00});
    CHECK(
        as_vector<int8_t>(generate_input(plan_of(elem_type::i8, 3, init_kind::sequence, 126, 1))) ==
        std::vector<int8_t>{126, 127, 127});  // saturates
    CHECK(as_vector<float>(generate_input(plan_of(elem_type::f32, 2, init_kind::zeros, 7, 7))) ==
          std::vector<float>{0, 0});
    const auto ints = as_vector<int64_t>(
        generate_input(plan_of(elem_type::i64, 1000, init_kind::random_uniform, 0.5, 3.5)));
    CHECK(std::set<int64_t>(ints.begin(), ints.end()) == std::set<int64_t>{1, 2, 3});
}

TEST_CASE("file inputs must have exactly count * elem_size bytes") {
    const temp_dir dir;  // its own folder: test processes run side by side
    const std::string path = dir.file("input.bin");
    {
        std::ofstream out(path, std::ios::binary);
        const float data[3] = {1, 2, 3};
        out.write(reinterpret_cast<const char*>(data), sizeof data);
    }
    buffer_plan p = plan_of(elem_type::f32, 3, init_kind::file, 0, 0);
    p.init.path = path;
    CHECK(as_vector<float>(generate_input(p)) == std::vector<float>{1, 2, 3});
    p.count = 4;
    CHECK_THROWS_WITH_AS(generate_input(p),
                         doctest::Contains("needs 16 bytes (4 elements of float); the file has 12"),
                         input_error);
    p.count = 2;  // too long counts as well, with the whole length in the message
    CHECK_THROWS_WITH_AS(generate_input(p),
                         doctest::Contains("needs 8 bytes (2 elements of float); the file has 12"),
                         input_error);
    std::remove(path.c_str());
    CHECK_THROWS_AS(generate_input(p), env_error);
}

TEST_CASE("inputs and poison filled in place on several threads match the one-thread fill") {
    for (const elem_type t : {elem_type::f32, elem_type::f64, elem_type::f16, elem_type::i32}) {
        CAPTURE(elem_name(t));
        const buffer_plan p = plan_of(t, 2 * 65536 + 5, init_kind::sequence, 1, 0.5, 0);
        // Not zeroed first: every byte must be written.
        std::vector<uint8_t> one(p.bytes(), 0xAB), many(p.bytes(), 0xCD);
        fill_output_poison(p, one.data(), 1);
        fill_output_poison(p, many.data(), 3);
        CHECK(one == many);
        std::vector<uint8_t> serial(p.bytes());
        fill_poison(t, serial.data(), p.count);
        CHECK(one == serial);
        for (const init_kind k : {init_kind::zeros, init_kind::constant, init_kind::sequence}) {
            const buffer_plan q = plan_of(t, 2 * 65536 + 5, k, 3, 0.25, 0);
            std::fill(many.begin(), many.end(), 0xEE);
            fill_input(q, many.data(), 4);
            CHECK(many == generate_input(q, 1));
        }
    }
    const auto z = generate_input(plan_of(elem_type::f32, 70000, init_kind::zeros, 0, 0, 0), 2);
    CHECK(std::all_of(z.begin(), z.end(), [](uint8_t b) { return b == 0; }));
}

TEST_CASE("an image made part by part is the whole image's bytes") {
    const uint64_t count = 5 * image_part_elems + 7;  // the last part is short and odd
    for (const elem_type t : {elem_type::f32, elem_type::f64, elem_type::i16}) {
        for (const init_kind k : {init_kind::random_uniform, init_kind::random_normal,
                                  init_kind::sequence, init_kind::constant, init_kind::zeros}) {
            CAPTURE(elem_name(t));
            CAPTURE(static_cast<int>(k));
            for (const buffer_role role : {buffer_role::in, buffer_role::out}) {
                buffer_plan p = plan_of(t, count, k, -2, 3, 11);
                p.role = role;
                std::vector<uint8_t> whole(p.bytes());
                if (role == buffer_role::out)
                    fill_output_poison(p, whole.data(), 2);
                else
                    fill_input(p, whole.data(), 2);
                for (const uint64_t step : {image_part_elems, 2 * image_part_elems}) {
                    std::vector<uint8_t> parts(p.bytes(), 0x5A);
                    const std::size_t size = elem_size(t);
                    for (uint64_t first = 0; first < count; first += step) {
                        // Each part through a scratch of its own size, as through the stage.
                        const uint64_t n = std::min(step, count - first);
                        std::vector<uint8_t> scratch(n * size, 0xA5);
                        fill_image_part(p, scratch.data(), first, n, 3);
                        std::copy(scratch.begin(), scratch.end(), parts.begin() + first * size);
                    }
                    CHECK(parts == whole);
                }
            }
        }
    }
    buffer_plan p = plan_of(elem_type::f32, count, init_kind::sequence, 0, 1);
    std::vector<uint8_t> out(p.bytes());
    CHECK_THROWS_AS(fill_image_part(p, out.data(), 1, 10), std::logic_error);  // not a chunk start
    CHECK_THROWS_AS(fill_image_part(p, out.data(), 0, count + 1), std::logic_error);
}

TEST_CASE("the fill's own logarithm, sine and cosine are within a few ulps of the library's") {
    // Box-Muller's functions are computed from + - * / (common/fill_values.hpp) so that the GPU
    // gives the host's bytes; they must still be the functions they stand for.
    double worst_log = 0, worst_sin = 0, worst_cos = 0;
    for (uint64_t i = 0; i < 200000; ++i) {
        const double u = fill::unit_uniform(fill::stream_key(5), i);
        const double x = 1.0 - u;
        const double want = std::log(x);
        const double got = fill::log_pos(x);
        worst_log = std::max(worst_log, want == 0 ? std::fabs(got) : std::fabs(got / want - 1));
        double s = 0, c = 0;
        fill::sincos_turn(u, s, c);
        worst_sin = std::max(worst_sin, std::fabs(s - std::sin(2 * M_PI * u)));
        worst_cos = std::max(worst_cos, std::fabs(c - std::cos(2 * M_PI * u)));
    }
    CHECK(worst_log < 1e-15);
    CHECK(worst_sin < 2e-15);
    CHECK(worst_cos < 2e-15);
    CHECK(fill::log_pos(1.0) == 0.0);
    CHECK(fill::log_pos(0x1.0p-53) == doctest::Approx(-53 * std::log(2.0)).epsilon(1e-15));
    for (const double q : {0.0, 0.125, 0.25, 0.5, 0.75}) {
        double s = 0, c = 0;
        fill::sincos_turn(q, s, c);
        CHECK(s == doctest::Approx(std::sin(2 * M_PI * q)).epsilon(1e-15));
        CHECK(c == doctest::Approx(std::cos(2 * M_PI * q)).epsilon(1e-15));
    }
}
