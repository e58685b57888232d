// Spec keys of issue 12: init: zeros as a plain word, parameters that are template arguments
// only (define: false, kernel.define_placeholders: false), timing.timer and timing.warmup.
#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>

#include "compile/compile.hpp"
#include "space/space.hpp"
#include "spec_test_util.hpp"

using namespace hone;
using spec_test::check_error;
using spec_test::load;
using spec_test::yaml;

namespace {

// The macro names of the first configuration's compile.
std::vector<std::string> defines_of(const spec& s) {
    config c;
    bindings scope = s.problem_bindings();
    for (const auto& p : s.params) {
        c.values.push_back(p.values.front());
        scope[p.name] = p.values.front();
    }
    // The macros are the source's first lines, "#define NAME value".
    const compile_request r = make_compile_request(s, c, scope, "sm_90");
    std::vector<std::string> out;
    std::istringstream lines(r.source);
    for (std::string line; std::getline(lines, line) && line.rfind("#define ", 0) == 0;)
        out.push_back(line.substr(8, line.find(' ', 8) - 8));
    return out;
}

}  // namespace

TEST_CASE("init: zeros is a plain word, as {zeros: true} is") {
    const spec s = load(yaml({{"buffers",
                               "buffers: {a: {type: float, count: N, init: zeros}, "
                               "c: {type: float, count: N, role: out, init: {zeros: true}}}"}}));
    CHECK(s.buffers[0].init.kind == init_kind::zeros);
    CHECK(s.buffers[1].init.kind == init_kind::zeros);
    check_error(yaml({{"buffers",
                       "buffers: {a: {type: float, count: N, init: zero}, c: {type: float, count: "
                       "N, role: out}}"}}),
                4, 44, "expected zeros or a map");
}

TEST_CASE(
    "define: false keeps a parameter out of the -D macros; its value still names the kernel") {
    const spec s = load(
        yaml({{"params", "params: {VEC: {values: [1, 2, 4], define: false}, BLOCK: [64, 128]}"}}));
    CHECK_FALSE(s.params[0].define);
    CHECK(s.params[0].values.size() == 3);
    CHECK(s.params[1].define);
    CHECK(defines_of(s) == std::vector<std::string>{"N", "BLOCK"});
    // Every generator takes it.
    const spec g =
        load(yaml({{"params", "params: {VEC: [1], BLOCK: {pow2: [64, 256], define: true}}"}}));
    CHECK(g.params[1].define);
    CHECK(g.params[1].values.size() == 3);
    check_error(yaml({{"params", "params: {VEC: {values: [1], define: maybe}, BLOCK: [64]}"}}), 3,
                37, "expected true or false");
    check_error(yaml({{"params", "params: {VEC: {define: false}, BLOCK: [64]}"}}), 3, 15,
                "expected exactly one of range, pow2, warps, values");
}

TEST_CASE(
    "kernel.define_placeholders: false makes every {PARAM} of the name a template argument only") {
    const spec s = load(yaml(
        {{"kernel",
          R"(kernel: {source: ../kernels_src/vector_add.cu, name: "vector_add<{VEC}, false>", define_placeholders: false})"}}));
    CHECK_FALSE(s.kernel.define_placeholders);
    CHECK_FALSE(s.params[0].define);  // VEC: in the name
    CHECK(s.params[1].define);        // BLOCK: not in the name
    CHECK(defines_of(s) == std::vector<std::string>{"N", "BLOCK"});
    // A parameter's own define: wins.
    const spec own = load(yaml(
        {{"kernel",
          R"(kernel: {source: ../kernels_src/vector_add.cu, name: "vector_add<{VEC}, false>", define_placeholders: false})"},
         {"params", "params: {VEC: {values: [1, 2], define: true}, BLOCK: [64]}"}}));
    CHECK(own.params[0].define);
    // The default keeps today's behaviour: every parameter is also a macro.
    const spec plain = load(yaml());
    CHECK(plain.kernel.define_placeholders);
    CHECK(defines_of(plain) == std::vector<std::string>{"N", "VEC", "BLOCK"});
}

TEST_CASE("timing: timer and warmup") {
    const spec d = load(yaml());
    CHECK(d.timing.timer == "auto");
    CHECK(d.timing.warmup == "adaptive");
    CHECK(d.timing.warmup_ms == 5.0);
    const spec s = load(yaml({}, "timing: {timer: events, warmup: fixed, warmup_ms: 2}\n"));
    CHECK(s.timing.timer == "events");
    CHECK(s.timing.warmup == "fixed");
    CHECK(s.timing.warmup_ms == 2.0);
    CHECK(load(yaml({}, "timing: {timer: cupti}\n")).timing.timer == "cupti");
    check_error(yaml({}, "timing: {timer: ncu}\n"), 7, 17,
                "expected one of: auto, profiler, cupti, events");
    check_error(yaml({}, "timing: {warmup: long}\n"), 7, 18, "expected one of: adaptive, fixed");
}
