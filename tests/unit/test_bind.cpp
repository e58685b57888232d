// Binding an application's arguments to the spec's args, and the handle's input errors, which
// all come before the driver is touched (this machine has none: an env_error would mean the
// check came too late).
#include <doctest/doctest.h>

#include <cstring>

#include "hone/kernel.hpp"
#include "runtime/bind.hpp"
#include "runtime_test_util.hpp"
#include "temp_dir.hpp"

using namespace hone;
using namespace rt_test;

namespace {

// [a, b, c, {value: N, type: int64}] with float buffers.
runtime::arg_layout va_layout() {
    return runtime::arg_layout::of(load_synthetic(spec_1d()));
}

std::string bind_error(const runtime::arg_layout& l, std::vector<arg> args) {
    uint64_t slots[16] = {};
    try {
        runtime::bind_args(l, args, slots);
    } catch (const input_error& e) {
        return e.what();
    }
    return "";
}

bool has(const std::string& text, const std::string& part) {
    INFO(text);
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("binding: pointers and scalars land in 8-byte slots in args order") {
    const runtime::arg_layout l = va_layout();
    REQUIRE(l.slots.size() == 4);
    CHECK(l.buffers == 3);
    float* a = reinterpret_cast<float*>(0x1000);
    const float* b = reinterpret_cast<const float*>(0x2000);
    void* c = reinterpret_cast<void*>(0x3000);
    uint64_t slots[4] = {};
    const std::vector<arg> all = {a, b, c, int64_t{1} << 40};
    CHECK_FALSE(runtime::bind_args(l, all, slots));
    CHECK(slots[0] == 0x1000);
    CHECK(slots[1] == 0x2000);
    CHECK(slots[2] == 0x3000);
    CHECK(slots[3] == uint64_t{1} << 40);
    // Only the buffers: the scalar's slot is left for the sizes.
    slots[3] = 99;
    const std::vector<arg> buffers = {a, b, arg::device_ptr(0x4000)};
    CHECK(runtime::bind_args(l, buffers, slots));
    CHECK(slots[2] == 0x4000);
    CHECK(slots[3] == 0);
    // A narrower integer is widened; an int for a float parameter converts as C does.
    const std::vector<arg> small = {a, b, c, 7};
    runtime::bind_args(l, small, slots);
    CHECK(slots[3] == 7);
}

TEST_CASE("binding: float and double scalars") {
    const spec s =
        load_spec_text(fmt::format(R"y(kernel: {{source: {}, name: "vector_add<1, false>"}}
problem: {{N: 16}}
params: {{B: [32]}}
buffers: {{x: {{type: double, count: N}}}}
args: [x, {{value: 1.5, type: float}}, {{value: 2.5, type: double}}, {{value: N, type: uint32}}]
launch: {{grid: [1], block: [B]}}
)y",
                                   vector_add_source),
                       HONE_SOURCE_DIR "/configs/s.yaml");
    const runtime::arg_layout l = runtime::arg_layout::of(s);
    double* x = reinterpret_cast<double*>(0x100);
    uint64_t slots[4] = {};
    const std::vector<arg> given = {x, 0.25, 2, 5u};  // a double for float, an int for double
    runtime::bind_args(l, given, slots);
    float f = 0;
    std::memcpy(&f, &slots[1], sizeof f);
    CHECK(f == 0.25f);
    double d = 0;
    std::memcpy(&d, &slots[2], sizeof d);
    CHECK(d == 2.0);
    CHECK(slots[3] == 5);
    CHECK(has(bind_error(l, {x, 0.25, 2.0, -1}), "argument 4 (N): -1 does not fit uint32"));
    CHECK(has(bind_error(l, {x, 0.25, 2.0, uint64_t{1} << 32}), "4294967296 does not fit uint32"));
    CHECK(has(bind_error(l, {x, 0.25, int64_t{1} << 60, 1u}),
              "argument 3 (2.5): expected a double, got an integer that it cannot hold exactly"));
    CHECK(has(bind_error(l, {x, x, 2.0, 1u}),
              "argument 2 (1.5): expected a float scalar, got a pointer to double"));
    CHECK(has(bind_error(l, {reinterpret_cast<float*>(0x100), 1.0f, 2.0, 1u}),
              "argument 1 (x): expected a pointer to double (the buffer's type), got a pointer to "
              "float"));
}

TEST_CASE("binding errors name the kernel, the argument and what was expected") {
    const runtime::arg_layout l = va_layout();
    float* p = reinterpret_cast<float*>(0x1000);
    const std::string count = bind_error(l, {p, p});
    CHECK(has(count,
              "vector_add<{VEC}, false>: 2 arguments given; expected 4 (a, b, c, N), or the 3 "
              "buffers (a, b, c) "
              "with the scalars evaluated from the sizes"));
    CHECK(has(bind_error(l, {p, p, p, int64_t{1}, int64_t{2}}), "5 arguments given"));
    CHECK(has(bind_error(l, {}), "0 arguments given"));
    const std::string deviceptr = bind_error(l, {p, (unsigned long long)0x2000, p, 1});
    CHECK(has(deviceptr, "argument 2 (b): expected a device pointer to the float buffer"));
    CHECK(has(deviceptr, "wrap a CUdeviceptr in hone::device_ptr()"));
    CHECK(has(bind_error(l, {p, p, reinterpret_cast<double*>(0x1), 1}),
              "argument 3 (c): expected a pointer to float (the buffer's type), got a pointer to "
              "double"));
    CHECK(has(bind_error(l, {p, p, p, 3.5}),
              "argument 4 (N): expected an integer (int64), got a double (3.5)"));
    CHECK(has(bind_error(l, {p, p, p, p}),
              "argument 4 (N): expected a int64 scalar, got a pointer to float"));
    CHECK(
        has(bind_error(l, {p, p, p, uint64_t{1} << 63}), "9223372036854775808 does not fit int64"));
    // A typed device_ptr is checked like a typed pointer.
    CHECK(has(bind_error(l, {arg::device_ptr(1, elem_type::i32), p, p}), "got a pointer to int32"));
    // The error points at the argument in the config.
    uint64_t slots[4];
    try {
        runtime::bind_args(l, std::vector<arg>{p, p, p, 3.5}, slots);
    } catch (const input_error& e) {
        CHECK(e.pos().line == 6);
    }
}

TEST_CASE("the handle refuses bad sizes and arguments before touching the driver") {
    temp_dir t;
    t.write("va.yaml", spec_1d());
    kernel k = kernel::open(t.file("va.yaml"));
    CHECK(k.name() == "vector_add<{VEC}, false>");
    CHECK(k.tuned_entries() == 0);
    float* p = nullptr;
    CHECK_THROWS_WITH_AS(k.launch(nullptr, {{"N", 1024}}, p, p),
                         doctest::Contains("2 arguments given"), input_error);
    CHECK_THROWS_WITH_AS(k.launch(nullptr, {}, p, p, p),
                         doctest::Contains("does not give the problem size 'N'"), input_error);
    CHECK_THROWS_WITH_AS(
        k.launch(nullptr, {{"N", 1}, {"M", 2}}, p, p, p),
        doctest::Contains("names the problem size 'M', which the spec does not have"), input_error);
    CHECK_THROWS_WITH_AS(k.launch(nullptr, {{"N", 1}, {"N", 2}}, p, p, p),
                         doctest::Contains("gives the problem size 'N' twice"), input_error);
    CHECK_THROWS_WITH_AS(k.launch(nullptr, {{"N", ~uint64_t{0}}}, p, p, p),
                         doctest::Contains("above 2^63-1"), input_error);
    CHECK_THROWS_WITH_AS(k.selection({{"X", 1}}, h100()), doctest::Contains("'X'"), input_error);
    const std::vector<size_value> sizes = {{"N", 4096}};
    CHECK(k.selection(sizes, h100()).problem == "N=4096");
}

TEST_CASE("kernel::open: a bad config or tuned-results file is an input_error") {
    temp_dir t;
    t.write("va.yaml", spec_1d());
    CHECK_THROWS_AS(kernel::open(t.file("missing.yaml")), input_error);
    t.write("bad.yaml", "kernel: [\n");
    CHECK_THROWS_AS(kernel::open(t.file("bad.yaml")), input_error);
    t.write("w.json",
            "{\"format\": \"hone-wisdom\", \"version\": 1, \"entries\": [\n  {\"kernel\": 1}]}");
    CHECK_THROWS_WITH_AS(kernel::open(t.file("va.yaml"), t.file("w.json")),
                         doctest::Contains("entries[0].kernel"), input_error);
    CHECK_THROWS_WITH_AS(kernel::open(t.file("va.yaml"), t.file("none.json")),
                         doctest::Contains("no such file"), input_error);
    // A config error surfaces as the loader reports it.
    std::string half = spec_1d();
    half.replace(half.find("type: int64"), 11, "type: halv");
    t.write("half.yaml", half);
    CHECK_THROWS_WITH_AS(kernel::open(t.file("half.yaml")),
                         doctest::Contains("half.yaml:6:34: unknown scalar type 'halv'"),
                         input_error);
}

TEST_CASE("kernel::open counts stale entries and other kernels' entries are ignored") {
    temp_dir t;
    t.write("va.yaml", spec_1d());
    const spec s = load_spec(t.file("va.yaml"));
    std::vector<tuned_entry> e = {
        entry(s, "NVIDIA H100 80GB HBM3", {{"N", 1024}}, {{va(64, 2), 1.0}}),
        entry(s, "NVIDIA H100 80GB HBM3", {{"N", 4096}}, {{va(128, 4), 1.0}}),
        entry(s, "NVIDIA H100 80GB HBM3", {{"N", 4096}}, {{va(128, 4), 1.0}})};
    e[0].source_hash = "older";
    e[2].kernel = "another";
    write_wisdom(t.file("w.json"), e);
    kernel k = kernel::open(t.file("va.yaml"), t.file("w.json"));
    CHECK(k.tuned_entries() == 2);
    CHECK(k.stale_entries() == 1);
    const kernel_selection sel = k.selection({{"N", 1024}}, h100());
    CHECK(sel.tier == selection_tier::nearest);
    CHECK(sel.key == "BLOCK=128,VEC=4");
    CHECK(sel.notes[0].find("1 stale entry skipped") != std::string::npos);
    CHECK(k.selection({{"N", 4096}}, h100()).tier == selection_tier::exact);
}
