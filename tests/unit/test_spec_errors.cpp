// Every way a config can be refused, with the line and column the error points at.
#include <doctest/doctest.h>

#include "spec_test_util.hpp"

using spec_test::check_error;
using spec_test::yaml;

TEST_CASE("malformed YAML and tabs") {
    check_error("kernel: {source: a\nargs: [a, c\n", 2, 5,
                "malformed YAML: end of map flow not found");
    check_error(yaml({}, "timing:\n\tmin_samples: 3\n"), 8, 1, "tab character in indentation");
    check_error("", 1, 1, "the file is empty");
    check_error("- 1\n- 2\n", 1, 1, "expected a map for the config, got a list");
    check_error("a: " + std::string(3000, '[') + "\n", 2, 1, "malformed YAML: nested too deeply");
}

TEST_CASE("unknown keys suggest the closest") {
    check_error(yaml({}, "lanch: {}\n"), 7, 1,
                "unknown key 'lanch' in the config (expected one of: kernel");
    check_error(yaml({}, "lanch: {}\n"), 7, 1, "did you mean 'launch'?");
    check_error(yaml({{"launch", "launch: {grid: [1], blok: 64}"}}), 6, 21,
                "unknown key 'blok' in launch (expected one of: grid, block, shared_bytes, "
                "cooperative); did you mean 'block'?");
    check_error(yaml({}, "timing: {min_sample: 3}\n"), 7, 10, "did you mean 'min_samples'?");
    check_error(yaml({}, "search: {strategy: exhaustve}\n"), 7, 20,
                "got 'exhaustve'; did you mean 'exhaustive'?");
    check_error(yaml({}, "search: {strategy: exhaustve}\n"), 7, 20,
                "expected one of: auto, exhaustive, random, annealing, genetic, local_search, "
                "diff_evo, bayes_opt");
    check_error(
        yaml({{"buffers",
               "buffers: {a: {type: float, count: N, rol: in}, c: {type: float, count: N}}"}}),
        4, 38, "unknown key 'rol' in buffers.a");
}

TEST_CASE("wrong types") {
    check_error(yaml({}, "timing: {min_samples: abc}\n"), 7, 23, "expected an integer, got 'abc'");
    check_error(yaml({}, "timing: {max_time_s: [1]}\n"), 7, 22, "expected a number, got a list");
    check_error(yaml({}, "timing: {l2_flush: maybe}\n"), 7, 20,
                "expected true or false, got 'maybe'");
    check_error(yaml({}, "timing: {min_samples: 99999999999999999999}\n"), 7, 23,
                "is out of range");
    check_error(yaml({{"params", "params: [1, 2]"}}), 3, 9,
                "expected a map for params, got a list");
    check_error(yaml({{"params", "params: {VEC: 4}"}}), 3, 15,
                "expected a list of values or a generator");
    check_error(
        yaml({{"buffers", "buffers: {a: {type: flaot, count: N}, c: {type: float, count: N}}"}}), 4,
        21, "unknown element type 'flaot' (expected one of: half, bfloat16, float");
    check_error(yaml({{"args", "args: [a, c, {value: N, type: hlf}]"}}), 5, 31,
                "unknown scalar type 'hlf' (expected one of: half, bfloat16, float");
    check_error(yaml({{"args", "args: [a, c, {value: 1.5, type: int}]"}}), 5, 14,
                "the type int32 needs an integer");
    check_error(yaml({}, "timing: {min_samples: 5, max_samples: 3}\n"), 7, 9,
                "max_samples (3) is below min_samples (5)");
}

TEST_CASE("duplicates and empty lists") {
    check_error(yaml({{"params", "params: {VEC: [1, 2, 4], BLOCK: [64], VEC: [2]}"}}), 3, 39,
                "duplicate key 'VEC' in params (first at line 3)");
    check_error(yaml({{"buffers", "buffers: {a: {count: N}, a: {count: N}, c: {count: N}}"}}), 4,
                26, "duplicate key 'a' in buffers");
    check_error(yaml({{"params", "params: {VEC: [1, 2, 4], BLOCK: []}"}}), 3, 33,
                "parameter 'BLOCK' has no values");
    check_error(yaml({{"params", "params: {VEC: [1, 2, 1], BLOCK: [64]}"}}), 3, 15,
                "parameter 'VEC' lists 1 twice");
    check_error(yaml({{"params", "params: {VEC: [1], BLOCK: {pow2: [100, 120]}}"}}), 3, 27,
                "parameter 'BLOCK' has no values");
    check_error(yaml({{"params", "params: {VEC: [1], BLOCK: {range: [1, 5, 0]}}"}}), 3, 35,
                "range step must not be 0");
    check_error(yaml({{"params", "params: {VEC: [1], BLOCK: {range: [1, 1000000]}}"}}), 3, 35,
                "more than 100000 values");
    check_error(yaml({{"params", "params: {VEC: [1], BLOCK: {pow2: [1, 2], range: [1, 2]}}"}}), 3,
                27, "expected exactly one of range, pow2, warps, values");
    check_error(yaml({{"params", "params: {VEC: [1], BLOCK: {pow2: [1]}}"}}), 3, 34,
                "expected [lo, hi], got 1 value");
    check_error(yaml({{"problem", "problem: {N: 1024, VEC: 3}"}}), 3, 10,
                "'VEC' is already a problem size");
    check_error(yaml({{"params", "params: {VEC: [1], BLOCK: [1], sm_count: [1]}"}}), 3, 32,
                "'sm_count' is a device attribute");
    check_error(yaml({{"params", "params: {VEC: [1], BLOCK: [1], 2X: [1]}"}}), 3, 32,
                "'2X' is not a valid name");
}

TEST_CASE("missing sections and files") {
    check_error(yaml({{"kernel", ""}}), 1, 1, "missing required section 'kernel'");
    check_error(yaml({{"args", ""}}), 1, 1, "missing required section 'args'");
    check_error(yaml({{"launch", ""}}), 1, 1, "missing required section 'launch'");
    check_error(yaml({{"kernel", "kernel: {name: vector_add}"}}), 1, 9, "kernel needs 'source'");
    check_error(yaml({{"kernel", "kernel: {source: ../kernels_src/vector_add.cu}"}}), 1, 9,
                "kernel needs 'name'");
    check_error(yaml({{"launch", "launch: {block: [32]}"}}), 6, 9, "launch needs 'grid'");
    check_error(yaml({{"kernel", "kernel: {source: nope.cu, name: vector_add}"}}), 1, 18,
                "kernel source 'nope.cu' not found (looked for " HONE_SOURCE_DIR
                "/configs/nope.cu)");
    check_error(yaml({{"kernel", "kernel: {source: ../kernels_src, name: vector_add}"}}), 1, 18,
                "is not a regular file");
    check_error(
        yaml({{"kernel", "kernel: {source: ../kernels_src/vector_add.cu, name: vector_sub}"}}), 1,
        54,
        "kernel 'vector_sub' not found in " HONE_SOURCE_DIR
        "/kernels_src/vector_add.cu; did you mean 'vector_add'?");
    check_error(
        yaml({{"kernel", "kernel: {source: ../kernels_src/vector_add.cu, name: Vector_Add}"}}), 1,
        54,
        "kernel 'Vector_Add' not found in " HONE_SOURCE_DIR
        "/kernels_src/vector_add.cu; did "
        "you mean 'vector_add'?");
    check_error(
        yaml({{"kernel",
               "kernel: {source: ../kernels_src/vector_add.cu, name: \"vector_add<{VECC}>\"}"}}),
        1, 54,
        "'{VECC}' in kernel name 'vector_add<{VECC}>' names no parameter (known: VEC, BLOCK); did "
        "you mean 'VEC'?");
    check_error(
        yaml({{"kernel",
               "kernel: {source: ../kernels_src/vector_add.cu, name: \"vector_add<{VEC>\"}"}}),
        1, 54, "'{' without '}'");
    check_error(
        yaml(
            {{"kernel",
              "kernel: {source: ../kernels_src/vector_add.cu, name: add, include_dirs: [nodir]}"}}),
        1, 74, "include folder " HONE_SOURCE_DIR "/configs/nodir not found");
    check_error(yaml({{"buffers", "buffers: {a: {count: N, init: {file: x.bin}}, c: {count: N}}"}}),
                4, 38, "init file 'x.bin' not found");
}

TEST_CASE("arguments") {
    check_error(yaml({{"args", "args: [a, d]"}}), 5, 11, "no buffer named 'd' (buffers: a, c)");
    check_error(yaml({{"args", "args: [a, {type: int}]"}}), 5, 11,
                "a scalar argument needs 'value'");
    check_error(yaml({{"args", "args: {a: 1}"}}), 5, 7, "expected a list of kernel arguments");
}

TEST_CASE("expressions: syntax, names, evaluation at load time") {
    check_error(yaml({{"launch", "launch: {grid: [\"ceil_div(N,, BLOCK)\"], block: BLOCK}"}}), 6,
                29, "expected a number, name, string or '('");
    check_error(yaml({{"launch", "launch: {grid: [N / BLOK], block: BLOCK}"}}), 6, 21,
                "unknown name 'BLOK' (known: N, VEC, BLOCK, arch");
    check_error(yaml({}, "constraints: [\"VEC * BLOCK <= max_thread_per_block\"]\n"), 7, 31,
                "did you mean 'max_threads_per_block'?");
    check_error(yaml({}, "constraints:\n  - VEC > 1 &&\n"), 8, 15,
                "expected a number, name, string or '(', got the end");
    check_error(yaml({{"problem", "problem: {N: \"1024 / (4 - 4)\"}"}}), 2, 15,
                "division by zero in '1024 / (4 - 4)'");
    check_error(yaml({{"problem", "problem: {N: 4611686018427387904, M: N * 2}"}}), 2, 38,
                "integer overflow in 'N * 2'");
    check_error(yaml({{"problem", "problem: {N: 1.5}"}}), 2, 14, "expected an integer");
    check_error(yaml({{"problem", "problem: {M: N, N: 4}"}}), 2, 14,
                "unknown name 'N' (known: none)");
    check_error(yaml({}, "metrics: {bytes: N / 0}\n"), 7, 18, "division by zero");
    check_error(yaml({}, "metrics: {objective: gbps}\n"), 7, 22,
                "objective gbps needs metrics.bytes");
    check_error(
        yaml({{"kernel",
               "kernel: {source: ../kernels_src/vector_add.cu, name: add, max_registers: -1}"}}),
        1, 74, "max_registers must be >= 0");
}

TEST_CASE("buffer counts") {
    check_error(yaml({{"buffers", "buffers: {a: {count: N * BLOCK}, c: {count: N}}"}}), 4, 26,
                "buffer counts cannot use the parameter 'BLOCK'");
    check_error(yaml({{"buffers", "buffers: {a: {count: 0}, c: {count: N}}"}}), 4, 22,
                "buffer 'a': count = 0; expected a positive integer");
    check_error(yaml({{"buffers", "buffers: {a: {count: N - 2048}, c: {count: N}}"}}), 4, 22,
                "count = -1024");
    check_error(yaml({{"buffers",
                       "buffers: {a: {type: double, count: 2305843009213693952}, c: {count: N}}"}}),
                4, 36, "overflow a 64-bit size");
    check_error(yaml({{"buffers", "buffers: {a: {count: N, memory: host}, c: {count: N}}"}}), 4, 33,
                "memory is 'host': expected device or managed, or an expression");
    check_error(yaml({{"buffers", "buffers: {a: {count: N, memory: \"'host'\"}, c: {count: N}}"}}),
                4, 33, "memory is \"host\"; expected \"device\" or \"managed\"");
    check_error(yaml({{"buffers",
                       "buffers: {a: {count: N, init: {random: normal, low: 1}}, c: {count: N}}"}}),
                4, 48,
                "'low' does not apply to random normal (expected one of: mean, stddev, seed)");
    check_error(
        yaml({{"buffers",
               "buffers: {a: {count: N, init: {zeros: true, constant: 1}}, c: {count: N}}"}}),
        4, 45, "'zeros' and 'constant' both given");
}

TEST_CASE("launch dimensions") {
    check_error(yaml({{"launch", "launch: {grid: [1, 1, 1, 1], block: BLOCK}"}}), 6, 16,
                "grid: expected 1 to 3 dimensions, got 4");
    check_error(yaml({{"launch", "launch: {grid: [], block: BLOCK}"}}), 6, 16,
                "grid: expected 1 to 3 dimensions, got 0");
    check_error(yaml({{"launch", "launch: {grid: [N - 1024], block: BLOCK}"}}), 6, 17,
                "grid[0] = 0: expected 1 .. 2147483647");
    check_error(yaml({{"launch", "launch: {grid: [1], block: 64, shared_bytes: -4}"}}), 6, 46,
                "shared_bytes = -4");
    check_error(yaml({{"launch", "launch: {grid: [1], block: 64, cooperative: sometimes}"}}), 6, 45,
                "expected true or false");
}

TEST_CASE("verify") {
    check_error(yaml({}, "verify: {reference: {VEC: 3}}\n"), 7, 27,
                "3 is not a value of parameter 'VEC' (expected one of: 1, 2, 4)");
    check_error(yaml({}, "verify: {reference: {VECTOR: 1}}\n"), 7, 22,
                "unknown key 'VECTOR' in verify.reference");
    check_error(yaml({}, "verify: {reference: {grid: [1]}}\n"), 7, 22, "'grid' needs 'kernel'");
    check_error(yaml({}, "verify: {reference: {kernel: ref_add}}\n"), 7, 30,
                "kernel 'ref_add' not found");
    check_error(yaml({}, "verify: {outputs: [a]}\n"), 7, 20, "buffer 'a' has role in");
    check_error(yaml({}, "verify: {outputs: [z]}\n"), 7, 20, "no buffer named 'z'");
    check_error(yaml({}, "verify: {rtol: -1}\n"), 7, 16, "rtol must be >= 0");
}

TEST_CASE("command-line overrides") {
    check_error(yaml(), 0, 0, "--set M=4: no problem size named 'M' (known: N)", {{"M", 4}});
    check_error(yaml(), 0, 0, "--set N=0: expected a positive integer", {{"N", 0}});
    try {
        spec_test::load(yaml(), {{"M", 4}});
    } catch (const hone::input_error& e) {
        CHECK(e.pos().str() == "<command line>");
    }
}

TEST_CASE("search: strategy options and budgets") {
    check_error(yaml({}, "search: {strategy: genetic, popsize: 3}\n"), 7, 29,
                "strategy genetic has no option 'popsize': its options are population, mutation, "
                "tournament");
    check_error(yaml({}, "search: {strategy: genetic, populaton: 3}\n"), 7, 29,
                "did you mean 'population'?");
    check_error(yaml({}, "search: {population: 3}\n"), 7, 10,
                "unknown key 'population' in search: expected strategy, max_evals, time_limit_s, "
                "seed, devices, or an option of the strategy named");
    check_error(yaml({}, "search: {strategy: genetic, population: 1}\n"), 7, 41,
                "population of strategy genetic must be in 2 .. 10000");
    check_error(yaml({}, "search: {strategy: genetic, population: 2.5}\n"), 7, 41,
                "population of strategy genetic must be an integer");
    check_error(yaml({}, "search: {strategy: genetic, population: lots}\n"), 7, 41,
                "expected a number, got 'lots'");
    check_error(yaml({}, "search: {strategy: random, population: 3}\n"), 7, 28,
                "strategy random takes no options");
    check_error(yaml({}, "search: {strategy: auto, population: 3}\n"), 7, 26,
                "strategy auto takes no options");
    check_error(yaml({}, "search: {strategy: annealing, max_evals: 0}\n"), 7, 42,
                "strategy annealing needs a budget: max_evals >= 1");
    check_error(yaml({}, "search: {max_evals: -1}\n"), 7, 21, "max_evals must be >= 0");
}
