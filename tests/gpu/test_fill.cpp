// Inputs filled on the GPU must hold the host image's bytes, for every element type and every
// kind the GPU fills, at counts whose last block and last Box-Muller pair are partial.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "driver/devices.hpp"
#include "driver/resources.hpp"
#include "measure/gpu_fill.hpp"
#include "measure/helpers.hpp"
#include "measure/inputs.hpp"

using namespace hone;

TEST_CASE("inputs filled on the GPU are the host image's bytes" *
          doctest::test_suite("in_process")) {
    const device_info info = cu::read_device_info(0);
    cu::primary_context ctx(0);
    ctx.make_current();
    cu::stream s;
    const cu::module helpers(helper_kernels_image());
    const int sms = static_cast<int>(info.attrs.sm_count);
    struct init_case {
        init_kind kind;
        double a, b;
    };
    // Ranges that reach past the small integers' limits (saturation) and floats' rounding.
    const init_case inits[] = {{init_kind::random_uniform, -1, 1},
                               {init_kind::random_uniform, -300.5, 70000.25},
                               {init_kind::random_normal, 0, 1},
                               {init_kind::random_normal, 5, 2000},
                               {init_kind::sequence, -3, 0.37},
                               {init_kind::constant, 1.5, 0},
                               {init_kind::zeros, 0, 0}};
    for (int t = 0; t <= static_cast<int>(elem_type::u64); ++t) {
        for (const init_case& c : inits) {
            for (const uint64_t count : {uint64_t{1}, uint64_t{7}, uint64_t{3 * 65536 + 11}}) {
                buffer_plan p;
                p.name = "x";
                p.type = static_cast<elem_type>(t);
                p.count = count;
                p.role = buffer_role::in;
                p.init.kind = c.kind;
                p.init.a = c.a;
                p.init.b = c.b;
                p.init.seed = 11 + static_cast<uint64_t>(t);
                CAPTURE(elem_name(p.type));
                CAPTURE(static_cast<int>(c.kind));
                CAPTURE(c.b);
                CAPTURE(count);
                const std::vector<uint8_t> host = generate_input(p);
                cu::device_buffer d(p.bytes(), false);
                REQUIRE(fill_input_on_gpu(helpers, p, d, sms, s.get()));
                s.synchronize();
                std::vector<uint8_t> got(p.bytes());
                d.download(got.data());
                CHECK(got == host);
            }
        }
    }
    // Outputs (poison) and files are the host's to make.
    buffer_plan out;
    out.type = elem_type::f32;
    out.count = 4;
    out.role = buffer_role::out;
    cu::device_buffer d(out.bytes(), false);
    CHECK_FALSE(fill_input_on_gpu(helpers, out, d, sms, s.get()));
    out.role = buffer_role::in;
    out.init.kind = init_kind::file;
    CHECK_FALSE(fill_input_on_gpu(helpers, out, d, sms, s.get()));
}
