// What a new user trips on, through the CLI as they would meet it: `hone check`'s grouped logs
// and the hint for template parameters replaced by macros, and one rule for --arch without a GPU.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "driver_probe.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

namespace {

std::size_t occurrences(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

// A templated kernel whose template parameter is named like the tuning parameter BLOCK.
const char* template_kernel = R"(template <int BLOCK>
__global__ void fill(float* x) { x[blockIdx.x * BLOCK + threadIdx.x] = 1.0f; }
)";

std::string template_config(const std::string& block_param) {
    return fmt::format(R"(kernel:
  source: fill.cu
  name: "fill<{{BLOCK}}>"
problem:
  N: 4096
params:
  BLOCK: {}
buffers:
  x: {{type: float, count: N, role: out}}
args: [x]
launch:
  grid: ["N / BLOCK"]
  block: [BLOCK]
)",
                       block_param);
}

// A config of a kernel `scale(float* x, int n)` in scale.cu: two block sizes over N = 4096.
const char* scale_config = R"yaml(kernel: {source: scale.cu, name: scale}
problem: {N: 4096}
params: {BLOCK: [64, 128]}
buffers: {x: {type: float, count: N, role: inout}}
args: [x, {value: N, type: int32}]
launch: {grid: ["ceil_div(N, BLOCK)"], block: [BLOCK]}
)yaml";

// scale.cu with `source` beside scale_config, checked for sm_90 (extra: more arguments).
cli_result check_scale(const temp_dir& dir, const std::string& source,
                       const std::string& extra = "") {
    dir.write("scale.yaml", scale_config);
    dir.write("scale.cu", source);
    return run_cli(dir, "check " + dir.file("scale.yaml") + " --arch sm_90" + extra);
}

// scale_config with `from` replaced by `to`, written as `name` beside a scale.cu whose kernel
// does nothing; returns the config's path.
std::string write_scale_variant(const temp_dir& dir, const std::string& name,
                                const std::string& from, const std::string& to) {
    dir.write("scale.cu", "extern \"C\" __global__ void scale(float* x, int n) {}\n");
    std::string text = scale_config;
    text.replace(text.find(from), from.size(), to);
    dir.write(name, text);
    return dir.file(name.c_str());
}

// The kernel scale_config describes.
const std::string scale_kernel =
    "extern \"C\" __global__ void scale(float* x, int n) {\n"
    "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) x[i] *= 2.0f;\n"
    "}\n";

}  // namespace

TEST_CASE(
    "hone check: a template parameter named like a tuning parameter gets a hint, and "
    "the log is printed once for every configuration it failed") {
    temp_dir dir;
    dir.write("fill.cu", template_kernel);
    dir.write("clash.yaml", template_config("[64, 128, 256]"));
    const cli_result r = run_cli(dir, "check " + dir.file("clash.yaml") + " --arch sm_90");
    CHECK(r.rc == 1);
    INFO(r.out);
    CHECK(r.out.find("hint: the kernel's template parameter BLOCK shares the name of a tuning "
                     "parameter") != std::string::npos);
    CHECK(r.out.find("`define: false`") != std::string::npos);
    // One log, printed once, counted for the three configurations.
    CHECK(occurrences(r.out, "log 1:\n") == 1);
    CHECK(occurrences(r.out, "[log 1]") == 3);
    CHECK(r.out.find("log 1: 3 configurations (first BLOCK=") != std::string::npos);
    CHECK(occurrences(r.out, "hint:") == 1);

    // The fix the hint names compiles every configuration.
    dir.write("fixed.yaml", template_config("{values: [64, 128, 256], define: false}"));
    const cli_result fixed = run_cli(dir, "check " + dir.file("fixed.yaml") + " --arch sm_90");
    CHECK(fixed.rc == 0);
    CHECK(fixed.out.find("3 ok, 0 failed") != std::string::npos);

    // A dry run of a size list compiles each size, as its run would.
    const cli_result sizes = run_cli(
        dir, "tune " + dir.file("fixed.yaml") + " --dry-run --set N=4096,8192 --arch sm_90");
    INFO(sizes.err);
    CHECK(sizes.rc == 0);
    CHECK(occurrences(sizes.out, "3 ok, 0 failed") == 2);
    CHECK(sizes.out.find("== N=4096\n") < sizes.out.find("== N=8192\n"));
    CHECK(sizes.out.find("== N=8192\n") != std::string::npos);
}

TEST_CASE(
    "without a GPU, hone space and hone check need --arch: exit 3 (the environment lacks what "
    "the command needs) and a message that says to pass it, with no table before it") {
    if (driver_installed()) {
        MESSAGE("a CUDA driver is installed here: --arch is not needed");
        return;
    }
    temp_dir dir;
    // sgemm.yaml's constraints use device attributes; vector_add's compile needs an arch.
    for (const std::string args :
         {fmt::format("space {}/configs/sgemm.yaml", HONE_SOURCE_DIR),
          fmt::format("check {}/configs/vector_add.yaml --sample 1", HONE_SOURCE_DIR)}) {
        CAPTURE(args);
        const cli_result r = run_cli(dir, args);
        CHECK(r.rc == 3);
        CHECK(r.err.find("pass --arch, e.g. --arch sm_90") != std::string::npos);
        CHECK(r.out.find("status") == std::string::npos);
        CHECK(r.err.find("works without one") == std::string::npos);
    }
    // Given --arch, both work.
    CHECK(
        run_cli(dir, fmt::format("space {}/configs/sgemm.yaml --arch sm_90", HONE_SOURCE_DIR)).rc ==
        0);
    // A config whose constraints use no device attribute needs no --arch for `space`.
    CHECK(run_cli(dir, fmt::format("space {}/configs/reduce.yaml", HONE_SOURCE_DIR)).rc == 0);
}

TEST_CASE(
    "hone check: a name the kernel declares that is also a problem size's macro gets a hint, and "
    "the size's define: false compiles") {
    temp_dir dir;
    // `int N` becomes `int 4096` under -DN=4096.
    dir.write("scale.cu",
              "extern \"C\" __global__ void scale(float* x, int N) {\n"
              "    const int i = blockIdx.x * BLOCK + threadIdx.x;\n"
              "    if (i < N) x[i] *= 2.0f;\n"
              "}\n");
    auto config = [](const std::string& size) {
        return fmt::format(R"yaml(kernel: {{source: scale.cu, name: scale}}
problem:
  N: {}
params:
  BLOCK: [64, 128]
buffers:
  x: {{type: float, count: N, role: inout}}
args: [x, {{value: N, type: int32}}]
launch:
  grid: ["ceil_div(N, BLOCK)"]
  block: [BLOCK]
)yaml",
                           size);
    };
    dir.write("clash.yaml", config("4096"));
    const cli_result r = run_cli(dir, "check " + dir.file("clash.yaml") + " --arch sm_90");
    INFO(r.out);
    CHECK(r.rc == 1);
    CHECK(r.out.find("hint: `N` is a problem size, which hone defines as the macro N (4096)") !=
          std::string::npos);
    CHECK(r.out.find("problem: {N: {value: 4096, define: false}}") != std::string::npos);
    CHECK(occurrences(r.out, "hint:") == 1);

    dir.write("fixed.yaml", config("{value: 4096, define: false}"));
    const cli_result fixed = run_cli(dir, "check " + dir.file("fixed.yaml") + " --arch sm_90");
    INFO(fixed.out);
    CHECK(fixed.rc == 0);
    CHECK(fixed.out.find("2 ok, 0 failed") != std::string::npos);
    // A size list in the map form: each size a run, as the plain list.
    dir.write("sizes.yaml", config("{value: [4096, 8192], define: false}"));
    const cli_result sizes =
        run_cli(dir, "tune " + dir.file("sizes.yaml") + " --dry-run --arch sm_90");
    INFO(sizes.err);
    CHECK(sizes.rc == 0);
    CHECK(occurrences(sizes.out, "2 ok, 0 failed") == 2);
}

TEST_CASE(
    "hone check: a source written for nvcc, with host code, gets a hint, and the guard it names "
    "compiles") {
    temp_dir dir;
    const std::string kernel =
        "#include <cstdio>\n"
        "#include <cuda_runtime.h>\n"
        "__global__ void scale(float* x, int n) {\n"
        "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n) x[i] *= 2.0f;\n"
        "}\n";
    const std::string host =
        "int main() {\n"
        "    float* d;\n"
        "    cudaMalloc(&d, 1024 * sizeof(float));\n"
        "    scale<<<4, 256>>>(d, 1024);\n"
        "    cudaDeviceSynchronize();\n"
        "    printf(\"done\\n\");\n"
        "}\n";
    dir.write("scale.yaml", scale_config);
    dir.write("scale.cu", kernel + host);
    const cli_result r = run_cli(dir, "check " + dir.file("scale.yaml") + " --arch sm_90");
    INFO(r.out);
    CHECK(r.rc == 1);
    CHECK(r.out.find("hint: NVRTC compiles device code only, and this source has host code") !=
          std::string::npos);
    CHECK(occurrences(r.out, "hint:") == 1);

    dir.write("scale.cu", kernel + "#ifndef __CUDACC_RTC__\n" + host + "#endif\n");
    const cli_result fixed = run_cli(dir, "check " + dir.file("scale.yaml") + " --arch sm_90");
    INFO(fixed.out);
    CHECK(fixed.rc == 0);
    CHECK(fixed.out.find("2 ok, 0 failed") != std::string::npos);
}

TEST_CASE("hone tune --strategy and --option override the search section, checked before a GPU") {
    temp_dir dir;
    dir.write("scale.cu",
              "extern \"C\" __global__ void scale(float* x, int n) {\n"
              "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
              "    if (i < n) x[i] *= 2.0f;\n"
              "}\n");
    dir.write("scale.yaml", scale_config);
    const std::string tune = "tune " + dir.file("scale.yaml") + " -o " + dir.file("s.db") + " ";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"--strategy bogus", "--strategy: expected one of: auto, exhaustive, random"},
        {"--strategy random -O x=1", "--option x=1: strategy random takes no options"},
        {"-O population=30", "the config names no strategy for the option to apply to"},
        {"--strategy genetic -O population=1", "population of strategy genetic must be in 2"},
        {"--strategy genetic -O population", "expected NAME=VALUE"},
    };
    for (const auto& [args, expected] : cases) {
        CAPTURE(args);
        const cli_result r = run_cli(dir, tune + args);
        CHECK(r.rc == 2);
        CHECK(r.err.find(expected) != std::string::npos);
    }
    const cli_result ok =
        run_cli(dir, tune + "--strategy genetic -O population=4 --dry-run --arch sm_90");
    INFO(ok.err);
    CHECK(ok.rc == 0);
    CHECK(ok.out.find("2 ok, 0 failed") != std::string::npos);
}

TEST_CASE("hone check: static shared memory beyond 48 KiB gets a hint that names shared_bytes") {
    temp_dir dir;
    dir.write("big.cu",
              "extern \"C\" __global__ void big(float* x) {\n"
              "    __shared__ float s[SIZE];\n"
              "    s[threadIdx.x] = x[threadIdx.x];\n"
              "    __syncthreads();\n"
              "    x[threadIdx.x] = s[(threadIdx.x + 1) % SIZE];\n"
              "}\n");
    dir.write("big.yaml", R"yaml(kernel: {source: big.cu, name: big}
problem: {N: 256}
params: {SIZE: [1024, 20000]}
buffers: {x: {type: float, count: N, role: inout}}
args: [x]
launch: {grid: [1], block: [N]}
)yaml");
    const cli_result r = run_cli(dir, "check " + dir.file("big.yaml") + " --arch sm_90");
    INFO(r.out);
    CHECK(r.rc == 1);
    CHECK(r.out.find("1 ok, 1 failed") != std::string::npos);
    CHECK(r.out.find("hint: static shared memory (__shared__ arrays of a fixed size) is limited "
                     "to 48 KiB") != std::string::npos);
    CHECK(r.out.find('\0') == std::string::npos);
}

TEST_CASE(
    "hone check: a reference that does not compile is reported after every configuration's "
    "errors, exit 1") {
    temp_dir dir;
    // The parameter is BLOCK_SIZE; the kernel still says BLOCK.
    dir.write("scale.cu",
              "extern \"C\" __global__ void scale(float* x, int n) {\n"
              "    const int i = blockIdx.x * BLOCK + threadIdx.x;\n"
              "    if (i < n) x[i] *= 2.0f;\n"
              "}\n");
    dir.write("undef.yaml", R"yaml(kernel: {source: scale.cu, name: scale}
problem: {N: 4096}
params: {BLOCK_SIZE: [64, 128]}
buffers: {x: {type: float, count: N, role: inout}}
args: [x, {value: N, type: int32}]
launch: {grid: ["ceil_div(N, BLOCK_SIZE)"], block: [BLOCK_SIZE]}
verify: {reference: {BLOCK_SIZE: 64}}
)yaml");
    const cli_result r = run_cli(dir, "check " + dir.file("undef.yaml") + " --arch sm_90");
    INFO(r.out, r.err);
    CHECK(r.rc == 1);
    CHECK(occurrences(r.out, "compile_error") == 2);
    CHECK(r.out.find("log 1: 2 configurations") != std::string::npos);
    CHECK(r.out.find("error: " + dir.file("undef.yaml") + ":7:") != std::string::npos);
    CHECK(r.out.find("the verify reference (BLOCK_SIZE=64) does not compile") != std::string::npos);
}

TEST_CASE("hone check: values a kernel cannot take are refused with their line and column") {
    temp_dir dir;
    dir.write("scale.cu", scale_kernel);
    auto config = [&](const std::string& name, const std::string& from, const std::string& to) {
        std::string text = scale_config;
        text.replace(text.find(from), from.size(), to);
        dir.write(name.c_str(), text);
        return run_cli(dir, "check " + dir.file(name.c_str()) + " --arch sm_90");
    };
    // An int32 argument of 10^10 would reach the kernel as 1410065408.
    cli_result r =
        config("big.yaml", "{value: N, type: int32}", "{value: N * 2441407, type: int32}");
    CHECK(r.rc == 2);
    CHECK(r.err.find("big.yaml:5:19: in configuration BLOCK=64: 10000003072 does not fit an "
                     "argument of type int32 (-2147483648 .. 2147483647)") != std::string::npos);
    r = config("neg.yaml", "{value: N, type: int32}", "{value: -1, type: uint32}");
    CHECK(r.rc == 2);
    CHECK(r.err.find("-1 does not fit an argument of type uint32 (0 .. 4294967295)") !=
          std::string::npos);
    // A parameter named like a keyword would be a macro replacing it.
    r = config("kw.yaml", "params: {BLOCK: [64, 128]}", "params: {BLOCK: [64, 128], int: [1]}");
    CHECK(r.rc == 2);
    CHECK(r.err.find("kw.yaml:3:28: 'int' is a C++ keyword or CUDA built-in") != std::string::npos);
    // A word that is no choice and no name of the config.
    r = config("mem.yaml", "role: inout}", "role: inout, memory: pinned}");
    CHECK(r.rc == 2);
    CHECK(r.err.find("memory is 'pinned': expected device or managed") != std::string::npos);
    // A metric that would stop a run at its first result.
    r = config("met.yaml", "launch:", "metrics: {bytes: 8 * N / (BLOCK - 64)}\nlaunch:");
    CHECK(r.rc == 2);
    CHECK(r.err.find("in configuration BLOCK=64: division by zero in '8 * N / (BLOCK - 64)'") !=
          std::string::npos);
}

TEST_CASE("hone check: a source with a UTF-8 byte order mark compiles; <iostream> gets a hint") {
    temp_dir dir;
    cli_result r = check_scale(dir, "\xEF\xBB\xBF" + scale_kernel);
    INFO(r.out);
    CHECK(r.rc == 0);
    r = check_scale(dir, "#include <iostream>\n" + scale_kernel);
    CHECK(r.rc == 1);
    CHECK(r.out.find("hint: <iostream> is a header of the C++ library's host side") !=
          std::string::npos);
}

TEST_CASE("hone check and space say which values of a size list they use") {
    temp_dir dir;
    write_scale_variant(dir, "list.yaml", "{N: 4096}", "{N: [64, 4096]}");
    const std::string note =
        "problem sizes given as lists (N: 64, 4096): this is for N=64; --set NAME=VALUE";
    CHECK(run_cli(dir, "check " + dir.file("list.yaml") + " --arch sm_90").out.find(note) !=
          std::string::npos);
    CHECK(run_cli(dir, "space " + dir.file("list.yaml")).out.find(note) != std::string::npos);
    CHECK(run_cli(dir, "space " + dir.file("list.yaml") + " --set N=4096")
              .out.find("this is for N=4096") != std::string::npos);
}

TEST_CASE("hone check: a configuration beyond the target's limits is device_limits, not ok") {
    temp_dir dir;
    const std::string big =
        write_scale_variant(dir, "big.yaml", "block: [BLOCK]", "block: [BLOCK * 16]");
    const cli_result r = run_cli(dir, "check " + big + " --arch sm_90");
    INFO(r.out);
    CHECK(r.rc == 0);  // a run records them without launching them: not a failure
    CHECK(r.out.find("BLOCK=128  (2048 threads a block; sm_90 has at most 1024)") !=
          std::string::npos);
    CHECK(r.out.find("1 ok, 0 failed, 1 beyond the device's limits") != std::string::npos);
}

TEST_CASE(
    "hone check --arch: what NVRTC compiles for, suffixes included; what it does not, refused") {
    temp_dir dir;
    dir.write("scale.cu", "extern \"C\" __global__ void scale(float* x, int n) {}\n");
    dir.write("scale.yaml", scale_config);
    for (const char* arch : {"sm_87", "sm_90a", "sm_121"}) {
        CAPTURE(arch);
        const cli_result r =
            run_cli(dir, fmt::format("check {} --arch {}", dir.file("scale.yaml"), arch));
        CHECK(r.rc == 0);
        CHECK(r.out.find(fmt::format("arch {}", arch)) != std::string::npos);
    }
    const cli_result old = run_cli(dir, "check " + dir.file("scale.yaml") + " --arch sm_50");
    CHECK(old.rc == 2);
    CHECK(old.err.find("--arch: unknown architecture 'sm_50'") != std::string::npos);
}

TEST_CASE("hone check: an init file of the wrong size is refused before any GPU is needed") {
    temp_dir dir;
    dir.write("scale.cu", "extern \"C\" __global__ void scale(float* x, int n) {}\n");
    dir.write("x.bin", std::string(4 * 100, '\0'));  // 100 floats; the buffer holds N = 4096
    std::string text = scale_config;
    text.replace(text.find("role: inout}"), 12, "role: inout, init: {file: x.bin}}");
    dir.write("file.yaml", text);
    const cli_result r = run_cli(dir, "check " + dir.file("file.yaml") + " --arch sm_90");
    CHECK(r.rc == 2);
    CHECK(r.err.find("file.yaml:4:") != std::string::npos);
    CHECK(r.err.find("buffer 'x' needs 16384 bytes (4096 elements of float); its init file") !=
          std::string::npos);
    CHECK(r.err.find("has 400") != std::string::npos);
}

TEST_CASE("hone check: <cub/cub.cuh> gets the hint to include cub's block-level headers") {
    temp_dir dir;
    const std::string body =
        "extern \"C\" __global__ void scale(float* x, int n) {\n"
        "    using reduce = cub::BlockReduce<float, 64>;\n"
        "    __shared__ typename reduce::TempStorage t;\n"
        "    const float s = reduce(t).Sum(x[threadIdx.x]);\n"
        "    if (threadIdx.x == 0) x[0] = s;\n"
        "}\n";
    cli_result r = check_scale(dir, "#include <cub/cub.cuh>\n" + body, " --sample 1");
    INFO(r.out);
    CHECK(r.rc == 1);
    CHECK(r.out.find("hint: <cub/cub.cuh> includes cub's device-wide algorithms") !=
          std::string::npos);
    CHECK(check_scale(dir, "#include <cub/block/block_reduce.cuh>\n" + body).rc == 0);
}

TEST_CASE("hone check: an overloaded kernel name gets a hint; a misspelt one a suggestion") {
    temp_dir dir;
    cli_result r = check_scale(dir,
                               "__global__ void scale(float* x, int n) { x[0] = n; }\n"
                               "__global__ void scale(double* x, int n) { x[0] = n; }\n");
    INFO(r.out);
    CHECK(r.rc == 1);
    CHECK(r.out.find("hint: kernel.name 'scale' names several overloads") != std::string::npos);
    r = check_scale(dir, "__global__ void Scale(float* x, int n) {}\n");
    CHECK(r.rc == 2);
    CHECK(r.err.find("kernel 'scale' not found in") != std::string::npos);
    CHECK(r.err.find("did you mean 'Scale'?") != std::string::npos);
}

TEST_CASE("hone space: constraints that leave no configuration say so, exit 1") {
    temp_dir dir;
    dir.write("scale.cu", "extern \"C\" __global__ void scale(float* x, int n) {}\n");
    std::string text = scale_config;
    text.replace(text.find("buffers:"), 8, "constraints: [\"BLOCK > 10000\"]\nbuffers:");
    dir.write("zero.yaml", text);
    const cli_result r = run_cli(dir, "space " + dir.file("zero.yaml"));
    CHECK(r.rc == 1);
    CHECK(r.out.find("no configuration satisfies the constraints") != std::string::npos);
    CHECK(run_cli(dir, "space " + dir.file("zero.yaml") + " --json").rc == 1);
}

TEST_CASE("hone check: args that do not fit the kernel's parameters are a launch_error, exit 1") {
    temp_dir dir;
    // One parameter more than scale_config's args give.
    const cli_result more = check_scale(
        dir, "extern \"C\" __global__ void scale(float* x, int n, float s) { x[0] = n * s; }\n");
    INFO(more.out);
    CHECK(more.rc == 1);
    CHECK(occurrences(more.out, "launch_error") == 3);  // two configurations and the summary
    CHECK(more.out.find("the kernel takes 3 parameters (8, 4, 4 bytes) and args gives 2 (8, 4 "
                        "bytes)") != std::string::npos);
    CHECK(more.out.find("0 ok, 0 failed, 2 whose args do not fit the kernel's parameters") !=
          std::string::npos);
    // A 16-byte struct where args gives an int32 (an integer fits any integer parameter of up
    // to 8 bytes: the CUBIN gives sizes, not types).
    const cli_result wide = check_scale(dir,
                                        "struct pair { double a, b; };\n"
                                        "extern \"C\" __global__ void scale(float* x, pair p) { "
                                        "x[0] = p.a; }\n");
    CHECK(wide.rc == 1);
    CHECK(wide.out.find("the kernel's parameter 2 is 16 bytes, and args gives it int32 (4 "
                        "bytes)") != std::string::npos);
    // The kernel the config describes fits.
    const cli_result fits = check_scale(dir, scale_kernel);
    CHECK(fits.rc == 0);
    CHECK(fits.out.find("launch_error") == std::string::npos);
}
