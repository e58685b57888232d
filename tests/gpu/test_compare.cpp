// The GPU's verification rule must agree with the host's (compare_buffers) element for element
// class: equal, within tolerance, out of tolerance, NaN against number, NaN against NaN,
// infinities, the poison pattern, integer differences.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "driver/devices.hpp"
#include "driver/resources.hpp"
#include "measure/gpu_compare.hpp"
#include "measure/helpers.hpp"
#include "verify/verify.hpp"

using namespace hone;

namespace {

template <typename T>
uint64_t gpu_count(gpu_compare& cmp, const cu::stream& s, elem_type t, const std::vector<T>& got,
                   const std::vector<T>& ref, double rtol, double atol) {
    const uint64_t bytes = got.size() * sizeof(T);
    cu::device_buffer g(bytes, false), r(bytes, false);
    g.upload(got.data());
    r.upload(ref.data());
    cmp.reset(s);
    REQUIRE(cmp.queue(0, t, g.ptr(), r.ptr(), got.size(), rtol, atol, s));
    cmp.fetch(s);
    s.synchronize();
    return cmp.bad(0);
}

template <typename F>
void check_floats(elem_type t, gpu_compare& cmp, const cu::stream& s) {
    const std::size_t n = 1 << 20;
    std::mt19937_64 gen(3);
    std::normal_distribution<F> dist(0, 10);
    std::vector<F> ref(n);
    for (auto& x : ref) x = dist(gen);
    const F nan = std::numeric_limits<F>::quiet_NaN(), inf = std::numeric_limits<F>::infinity();
    ref[10] = nan;
    ref[11] = inf;
    ref[12] = 0;
    std::vector<F> got = ref;
    const double rtol = 1e-4, atol = 1e-6;
    SUBCASE("identical") {}
    SUBCASE("within tolerance everywhere") {
        for (std::size_t i = 13; i < n; ++i) got[i] = ref[i] * F(1 + 5e-5);
        got[12] = F(-0.0);  // -0 against +0
    }
    SUBCASE("a mix of bad elements") {
        got[100] = ref[100] * F(1.01);  // out of tolerance
        got[200] = nan;                 // NaN against a number
        got[10] = F(1);                 // a number against NaN
        got[11] = -inf;                 // the wrong infinity
        got[300] = inf;
        fill_poison(t, &got[400], 5);  // never written
        got[n - 1] = ref[n - 1] + F(1);
    }
    const verify_outcome host = compare_buffers(t, got.data(), ref.data(), n, rtol, atol, "x");
    CHECK(gpu_count(cmp, s, t, got, ref, rtol, atol) == host.bad);
}

}  // namespace

TEST_CASE("GPU and host verification agree" * doctest::test_suite("in_process")) {
    const device_info info = cu::read_device_info(0);
    cu::primary_context ctx(0);
    ctx.make_current();
    cu::stream s;
    const cu::module helpers(helper_kernels_image());
    gpu_compare cmp(helpers, static_cast<int>(info.attrs.sm_count));
    SUBCASE("f32") {
        check_floats<float>(elem_type::f32, cmp, s);
    }
    SUBCASE("f64") {
        check_floats<double>(elem_type::f64, cmp, s);
    }
    SUBCASE("integers, compared as bytes") {
        std::vector<int32_t> ref(100000), got;
        for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = static_cast<int32_t>(i * 7 - 50000);
        got = ref;
        CHECK(gpu_count(cmp, s, elem_type::i32, got, ref, 0.5, 10) == 0);
        got[5] += 1;  // integers are exact whatever the tolerance
        got[99999] = -got[99999];
        CHECK(gpu_count(cmp, s, elem_type::i32, got, ref, 0.5, 10) == 2);
        std::vector<uint8_t> bytes_ref(1001, 7), bytes_got = bytes_ref;
        bytes_got[1000] = 8;
        CHECK(gpu_count(cmp, s, elem_type::u8, bytes_got, bytes_ref, 0, 0) == 1);
    }
    SUBCASE("several buffers in one check, each its own count") {
        std::vector<int32_t> ref(4096, 1), got1 = ref, got2 = ref;
        got1[7] = 2;
        for (int i = 0; i < 3; ++i) got2[100 + i] = 0;
        const uint64_t bytes = ref.size() * sizeof(int32_t);
        cu::device_buffer r(bytes, false), g1(bytes, false), g2(bytes, false);
        r.upload(ref.data());
        g1.upload(got1.data());
        g2.upload(got2.data());
        cmp.reserve(3);
        for (int round = 0; round < 2; ++round) {  // the counts start from zero every check
            cmp.reset(s);
            REQUIRE(cmp.queue(0, elem_type::i32, r.ptr(), r.ptr(), ref.size(), 0, 0, s));
            REQUIRE(cmp.queue(1, elem_type::i32, g1.ptr(), r.ptr(), ref.size(), 0, 0, s));
            REQUIRE(cmp.queue(2, elem_type::i32, g2.ptr(), r.ptr(), ref.size(), 0, 0, s));
            cmp.fetch(s);
            s.synchronize();
            CHECK(cmp.bad(0) == 0);
            CHECK(cmp.bad(1) == 1);
            CHECK(cmp.bad(2) == 3);
        }
    }
    SUBCASE("half precision stays on the host") {
        cu::device_buffer b(64, false);
        CHECK_FALSE(is_gpu_comparable(elem_type::f16));
        CHECK_FALSE(is_gpu_comparable(elem_type::bf16));
        CHECK_FALSE(cmp.queue(0, elem_type::f16, b.ptr(), b.ptr(), 32, 0, 0, s));
    }
}
