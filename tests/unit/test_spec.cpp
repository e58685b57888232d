// Loading valid configs: every section, defaults, generators and overrides.
#include <doctest/doctest.h>

#include <algorithm>

#include "hone/spec.hpp"
#include "spec_test_util.hpp"

using namespace hone;
using spec_test::load;
using spec_test::yaml;

TEST_CASE("vector_add.yaml loads with every section") {
    const spec s = load_spec(HONE_SOURCE_DIR "/configs/vector_add.yaml");
    CHECK(s.kernel.source_path == HONE_SOURCE_DIR "/kernels_src/vector_add.cu");
    CHECK(s.kernel.source_text.find("__global__") != std::string::npos);
    CHECK(s.kernel.name == "vector_add<{VEC}, {STRIDED}>");
    CHECK(s.kernel.is_template);
    CHECK(s.kernel.options == std::vector<std::string>{"-std=c++17"});
    CHECK(s.kernel.max_registers.text() == "MAXREG");
    REQUIRE(s.problem.size() == 1);
    CHECK(s.problem[0].name == "N");
    CHECK(s.problem[0].value == 16777216);
    REQUIRE(s.params.size() == 7);
    CHECK(s.params[0].name == "BLOCK");
    CHECK(s.params[0].values.size() == 6);  // 32 .. 1024
    CHECK(s.params[0].values.back() == value(int64_t{1024}));
    CHECK(s.params[1].values == std::vector<value>{false, true});
    CHECK(s.params[2].values == std::vector<value>{std::string("int"), std::string("long long")});
    CHECK(s.params[4].values == std::vector<value>{std::string("device"), std::string("managed")});
    CHECK(s.find_param("VEC") == &s.params[3]);
    CHECK(s.find_param("NOPE") == nullptr);
    REQUIRE(s.constraints.size() == 1);
    CHECK(s.constraints[0].pos().line == 23);
    REQUIRE(s.buffers.size() == 3);
    CHECK(s.buffers[0].init.kind == init_kind::random_uniform);
    CHECK(s.buffers[0].init.a == -1.0);
    CHECK(s.buffers[1].init.kind == init_kind::random_normal);
    CHECK(s.buffers[1].init.seed == 2);
    CHECK(s.buffers[2].role == buffer_role::out);
    CHECK(s.find_buffer("c") == &s.buffers[2]);
    REQUIRE(s.args.size() == 4);
    CHECK(!s.args[3].is_buffer);
    CHECK(s.args[3].type == elem_type::i64);
    CHECK(s.launch.grid.size() == 1);
    CHECK(s.launch.block[0].text() == "BLOCK");
    CHECK(s.metrics.bytes->eval_int(s.problem_bindings()) == 3 * 16777216LL * 4);
    CHECK(s.verify.ref == reference_kind::config);
    CHECK(s.verify.reference_params.at("IDX_T") == value(std::string("int")));
    CHECK(s.verify.reference_params.at("BLOCK") == value(int64_t{256}));
    CHECK(s.verify.outputs == std::vector<std::string>{"c"});
    CHECK(s.verify.atol == 0.0);
    CHECK(s.timing.max_samples == 100);
    CHECK(s.timing.max_time_s == 0.5);
    CHECK(s.search.strategy == "exhaustive");
    CHECK(s.output == HONE_SOURCE_DIR "/configs/vector_add.db");
}

TEST_CASE("defaults") {
    const spec s = load(yaml());
    CHECK(s.output == HONE_SOURCE_DIR "/configs/inline.db");
    CHECK(s.verify.outputs == std::vector<std::string>{"c"});
    CHECK(s.verify.ref == reference_kind::none);
    CHECK(s.buffers[0].role == buffer_role::in);
    CHECK(s.buffers[0].memory.eval(s.problem_bindings()) == value(std::string("device")));
    CHECK(s.buffers[0].init.kind == init_kind::zeros);
    CHECK(s.launch.shared_bytes.eval_int({}) == 0);
    CHECK(s.kernel.max_registers.eval_int({}) == 0);
    CHECK(!s.kernel.fast_math.eval_bool({}));
    CHECK(s.timing.min_samples == 10);
    CHECK(s.search.seed == 1);
    CHECK(s.search.strategy.empty());  // exhaustive or auto, by the size of the space
    CHECK(!s.search.max_evals);
}

TEST_CASE("problem sizes may be expressions over earlier ones, and overrides apply first") {
    const std::string text = yaml({{"problem", "problem: {N: 1024, M: \"N * 2\", K: 3}"}});
    CHECK(load(text).problem_bindings().at("M") == value(int64_t{2048}));
    const spec s = load(text, {{"N", 10}, {"K", 5}});
    CHECK(s.problem_bindings() ==
          bindings{{"N", int64_t{10}}, {"M", int64_t{20}}, {"K", int64_t{5}}});
}

TEST_CASE("parameter generators expand inclusively") {
    const spec s = load(yaml({{"params",
                               "params: {VEC: [1, 2, 4], BLOCK: [64], R: {range: [1, 10, 4]}, "
                               "D: {range: [3, 1, -1]}, P: {pow2: [3, 64]}, W: {warps: [1, 100]}, "
                               "V: {values: [0.5, true, x, \"7\"]}}"}}));
    const auto values = [&](const char* name) { return s.find_param(name)->values; };
    CHECK(values("R") == std::vector<value>{int64_t{1}, int64_t{5}, int64_t{9}});
    CHECK(values("D") == std::vector<value>{int64_t{3}, int64_t{2}, int64_t{1}});
    CHECK(values("P") ==
          std::vector<value>{int64_t{4}, int64_t{8}, int64_t{16}, int64_t{32}, int64_t{64}});
    CHECK(values("W") == std::vector<value>{int64_t{32}, int64_t{64}, int64_t{96}});
    CHECK(values("V") == std::vector<value>{0.5, true, std::string("x"), std::string("7")});
}

TEST_CASE("buffers: memory, init forms and counts over device attributes") {
    const std::string text =
        yaml({{"params", "params: {VEC: [1], BLOCK: [64], MEM: [device, managed]}"},
              {"buffers",
               "buffers:\n"
               "  a: {type: double, count: sm_count * 4, memory: MEM, init: {constant: 2.5}}\n"
               "  b: {type: int, count: N, memory: managed, init: {sequence: {start: 1}}}\n"
               "  c: {type: f16, count: N, role: inout, init: {random: uniform, low: 2, high: 3}}\n"
               "  d: {type: u8, count: 7, init: {zeros: true}}"}});
    const spec s = load(text);
    CHECK(s.buffers[0].type == elem_type::f64);
    CHECK(s.buffers[0].count.names() == std::vector<std::string>{"sm_count"});
    CHECK(s.buffers[0].memory.text() == "MEM");
    CHECK(s.buffers[0].init.kind == init_kind::constant);
    CHECK(s.buffers[0].init.a == 2.5);
    CHECK(s.buffers[1].type == elem_type::i32);
    CHECK(s.buffers[1].memory.eval({}) == value(std::string("managed")));
    CHECK(s.buffers[1].init.kind == init_kind::sequence);
    CHECK(s.buffers[1].init.a == 1.0);
    CHECK(s.buffers[1].init.b == 1.0);
    CHECK(s.buffers[2].init.b == 3.0);
    CHECK(s.buffers[3].type == elem_type::u8);
    CHECK(s.verify.outputs == std::vector<std::string>{"c"});
}

TEST_CASE("verify with a reference kernel launches like the tuned kernel by default") {
    const spec s = load(yaml(
        {}, "verify: {reference: {kernel: \"vector_add<1, false>\", block: [32]}, rtol: 0.1}\n"));
    CHECK(s.verify.ref == reference_kind::kernel);
    CHECK(s.verify.reference_kernel == "vector_add<1, false>");
    CHECK(s.verify.reference_grid[0].text() == "ceil_div(N, BLOCK)");
    CHECK(s.verify.reference_block[0].text() == "32");
    CHECK(s.verify.rtol == 0.1);
}

TEST_CASE("settings: launch, metrics, timing, search, output, kernel options") {
    const spec s = load(
        yaml({{"kernel",
               "kernel: {source: ../kernels_src/vector_add.cu, name: vector_add, "
               "include_dirs: [../kernels_src], max_registers: 64, fast_math: VEC == 4}"},
              {"launch", "launch: {grid: [N, 2, 1], block: [BLOCK, 1], shared_bytes: BLOCK * 4}"}},
             "metrics: {bytes: N * 8, flops: N, objective: gflops}\n"
             "timing: {rel_precision: 0.05, min_samples: 3, max_samples: 5, warmup_ms: 0, "
             "l2_flush: false, sample_mode: batch, timeout_s: 2}\n"
             "search: {strategy: random, max_evals: 10, time_limit_s: 60, seed: 42}\n"
             "output: /tmp/out.db\n"));
    CHECK(!s.kernel.is_template);
    CHECK(s.kernel.include_dirs == std::vector<std::string>{HONE_SOURCE_DIR "/kernels_src"});
    CHECK(s.kernel.fast_math.text() == "VEC == 4");
    CHECK(s.launch.grid.size() == 3);
    CHECK(s.launch.shared_bytes.text() == "BLOCK * 4");
    CHECK(!s.launch.cooperative);
    CHECK(load(yaml({{"launch", "launch: {grid: [N], block: [BLOCK], cooperative: true}"}}))
              .launch.cooperative);
    CHECK(s.metrics.objective == "gflops");
    CHECK(s.timing.sample_mode == "batch");
    CHECK(!s.timing.l2_flush);
    CHECK(s.search.strategy == "random");
    CHECK(s.search.seed == 42);
    CHECK(s.search.max_evals == 10);
    CHECK(s.search.options.empty());
    const spec g = load(yaml({}, "search: {strategy: genetic, population: 30, mutation: 0.2}\n"));
    CHECK(g.search.strategy == "genetic");
    CHECK(!g.search.max_evals);  // not given: the strategy's default budget
    REQUIRE(g.search.options.size() == 2);
    CHECK(g.search.options[0].name == "population");
    CHECK(g.search.options[0].value == 30);
    CHECK(g.search.options[1].name == "mutation");
    CHECK(g.search.options[1].value == 0.2);
    CHECK(s.output == "/tmp/out.db");
}

TEST_CASE("device attribute names") {
    const auto& names = device_attribute_names();
    for (const char* n : {"sm_count", "max_threads_per_block", "max_shared_per_block_optin",
                          "warp_size", "cc_major", "total_mem", "l2_bytes"})
        CHECK(std::find(names.begin(), names.end(), n) != names.end());
}
