// The run identity covers every file the kernel includes, as the compile cache sees them, so
// that an edited header makes the next run measure again, and says why.
#include <doctest/doctest.h>

#include <filesystem>

#include "compile/compile.hpp"
#include "hone/record.hpp"
#include "hone/spec.hpp"
#include "hone/tuner.hpp"
#include "temp_dir.hpp"
#include "tune/internal.hpp"

namespace fs = std::filesystem;
using namespace hone;

namespace {

// A kernel that includes "ops.cuh" from an include folder, which includes "detail.cuh" beside
// itself; and a config over it.
void write_kernel(const temp_dir& dir) {
    fs::create_directory(dir.path / "inc");
    dir.write("k.cu",
              "#include \"ops.cuh\"\n"
              "template <int BLOCK> __global__ void k(float* x) { x[0] = op(BLOCK); }\n");
    dir.write("inc/ops.cuh",
              "#include \"detail.cuh\"\n__device__ float op(int v) { return v + D; }\n");
    dir.write("inc/detail.cuh", "#define D 1\n");
    dir.write("unrelated.cuh", "#define U 1\n");
    dir.write("k.yaml",
              "kernel: {source: k.cu, name: \"k<{BLOCK}>\", include_dirs: [inc]}\n"
              "params: {BLOCK: {values: [64, 128], define: false}}\n"
              "buffers: {x: {type: float, count: 1, role: out}}\n"
              "args: [x]\n"
              "launch: {grid: 1, block: BLOCK}\n");
}

device_info h100_info() {
    device_info d;
    d.attrs.name = "NVIDIA H100 80GB HBM3";
    d.attrs.cc_major = 9;
    d.uuid = "GPU-1234";
    d.driver_version = 13000;
    return d;
}

}  // namespace

TEST_CASE("kernel source hash: the source and every file it includes, recursively") {
    temp_dir dir;
    write_kernel(dir);
    const spec s = load_spec(dir.file("k.yaml"));
    const std::string h = kernel_source_hash(s.kernel);
    CHECK(h.size() == 32);
    CHECK(kernel_source_hash(s.kernel) == h);
    CHECK(make_identity(s, h100_info()).source_hash == h);
    // A file nobody includes changes nothing.
    dir.write("unrelated.cuh", "#define U 2\n");
    CHECK(kernel_source_hash(s.kernel) == h);
    // The header two levels down, found beside the header that includes it.
    dir.write("inc/detail.cuh", "#define D 2\n");
    const std::string edited = kernel_source_hash(s.kernel);
    CHECK(edited != h);
    // Reverting the edit gives the old hash back: the old results are current again.
    dir.write("inc/detail.cuh", "#define D 1\n");
    CHECK(kernel_source_hash(s.kernel) == h);
    // The include folders are part of where headers are found: without them, no header.
    kernel_spec bare = s.kernel;
    bare.include_dirs.clear();
    CHECK(kernel_source_hash(bare) != h);
}

TEST_CASE("identity: an edited header changes the id, its source hash and nothing else") {
    temp_dir dir;
    write_kernel(dir);
    const spec s = load_spec(dir.file("k.yaml"));
    const run_identity before = make_identity(s, h100_info());
    dir.write("inc/ops.cuh",
              "#include \"detail.cuh\"\n__device__ float op(int v) { return v * D; }\n");
    const spec again = load_spec(dir.file("k.yaml"));
    const run_identity after = make_identity(again, h100_info());
    CHECK(after.id() != before.id());
    CHECK(after.source_hash != before.source_hash);
    CHECK(after.spec_hash == before.spec_hash);
    CHECK(same_subject(before, after));
    CHECK(describe_change(before, after) ==
          "source changed since the stored results: re-measuring");
}

TEST_CASE("identity: which parameters are -D macros and the timer are part of the spec hash") {
    temp_dir dir;
    write_kernel(dir);
    spec s = load_spec(dir.file("k.yaml"));
    const std::string base = make_identity(s, h100_info()).spec_hash;
    s.params[0].define = true;
    CHECK(make_identity(s, h100_info()).spec_hash != base);
    s.params[0].define = false;
    s.timing.timer = "events";
    CHECK(make_identity(s, h100_info()).spec_hash != base);
    s.timing.timer = "auto";
    s.timing.warmup_ms = 1;  // warm-up does not change what is measured
    CHECK(make_identity(s, h100_info()).spec_hash == base);
}

TEST_CASE("describe_change names what changed, for the user") {
    run_identity a;
    a.config_path = "configs/reduce.yaml";
    a.kernel_name = "reduce<{BLOCK}, {SHUFFLE}>";
    a.source_hash = "s1";
    a.spec_hash = "c1";
    a.problem = "N=1048576";
    a.device_name = "NVIDIA H100";
    a.device_uuid = "GPU-1";
    a.arch = "sm_90";
    a.driver_version = 12080;
    a.nvrtc_version = "12.8";
    a.tool_version = "0.1.0";
    run_identity b = a;
    CHECK(describe_change(a, b) == "identity changed since the stored results: re-measuring");
    b.spec_hash = "c2";
    CHECK(describe_change(a, b) == "config changed since the stored results: re-measuring");
    b.source_hash = "s2";
    CHECK(describe_change(a, b) ==
          "source and config changed since the stored results: re-measuring");
    b.nvrtc_version = "13.0";
    b.tool_version = "0.2.0";
    CHECK(describe_change(a, b) ==
          "source, config, NVRTC (12.8 -> 13.0) and hone (0.1.0 -> 0.2.0) changed since the stored "
          "results: re-measuring");
    // Another problem size, device or config file is another subject, not a change.
    CHECK(same_subject(a, b));
    b.problem = "N=4096";
    CHECK_FALSE(same_subject(a, b));
    b = a;
    b.device_uuid = "GPU-2";
    CHECK_FALSE(same_subject(a, b));
    b = a;
    b.origin = "kernel_tuner 1.0 (x.json)";
    CHECK_FALSE(same_subject(a, b));
}

TEST_CASE("a size kept out of the macros changes the run's identity; half scalars pass 16 bits") {
    temp_dir dir;
    dir.write("k.cu", "extern \"C\" __global__ void k(float* x, __half a, int n) {}\n");
    auto config = [](const std::string& size, const std::string& scalar) {
        return "kernel: {source: k.cu, name: k}\nproblem: {N: " + size +
               "}\nparams: {B: [32]}\nbuffers: {x: {type: float, count: N, role: out}}\n"
               "args: [x, " +
               scalar + ", {value: N, type: int32}]\nlaunch: {grid: 1, block: B}\n";
    };
    dir.write("a.yaml", config("64", "{value: 0.5, type: half}"));
    dir.write("b.yaml", config("{value: 64, define: false}", "{value: -2, type: bfloat16}"));
    const spec a = load_spec(dir.file("a.yaml")), b = load_spec(dir.file("b.yaml"));
    CHECK(make_identity(a, h100_info()).spec_hash != make_identity(b, h100_info()).spec_hash);
    const std::vector<kernel_arg> args_a = eval_args(a, a.problem_bindings());
    const std::vector<kernel_arg> args_b = eval_args(b, b.problem_bindings());
    REQUIRE(args_a.size() == 3);
    CHECK(args_a[1].bits == 0x3800);  // 0.5 as IEEE half
    CHECK(args_b[1].bits == 0xc000);  // -2 as bfloat16
}
