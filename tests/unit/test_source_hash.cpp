// kernel_source_hash: the source and what it includes, so that a header edit makes tuned
// results stale; a self-contained source keeps the hash stores have always recorded.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include "common/digest.hpp"
#include "compile/compile.hpp"
#include "hone/spec.hpp"
#include "hone/tuner.hpp"
#include "temp_dir.hpp"
#include "tune/internal.hpp"

using namespace hone;

namespace {

spec kernel_in(const temp_dir& t) {
    t.write("k.yaml", R"y(kernel: {source: k.cu, name: k, include_dirs: [inc]}
problem: {N: 4}
params: {B: [32]}
buffers: {c: {type: float, count: N, role: out}}
args: [c]
launch: {grid: [1], block: [B]}
)y");
    return load_spec(t.file("k.yaml"));
}

}  // namespace

TEST_CASE("the kernel's source hash covers included files, found as the compile cache finds them") {
    temp_dir t;
    std::filesystem::create_directory(t.path / "inc");
    t.write("k.cu",
            "#include \"ops.cuh\"\n#include <cuda_fp16.h>\nextern \"C\" __global__ void k(float* "
            "c) {}\n");
    t.write("inc/ops.cuh", "#include \"deep.cuh\"\n#define OP(a, b) ((a) + (b))\n");
    t.write("inc/deep.cuh", "#define DEEP 1\n");
    const std::string first = kernel_source_hash(kernel_in(t));
    CHECK(first != digest_hex(kernel_in(t).kernel.source_text));
    t.write("inc/deep.cuh", "#define DEEP 2\n");  // two levels down
    const std::string second = kernel_source_hash(kernel_in(t));
    CHECK(second != first);
    t.write("inc/deep.cuh", "#define DEEP 1\n");
    CHECK(kernel_source_hash(kernel_in(t)) == first);
    // The run identity uses the same function.
    CHECK(make_identity(kernel_in(t), device_info{}).source_hash == first);
    // Without a local include (NVRTC's own headers only) the headers beside it do not count.
    t.write("k.cu", "#include <cuda_fp16.h>\nextern \"C\" __global__ void k(float* c) {}\n");
    const std::string plain = kernel_source_hash(kernel_in(t));
    t.write("inc/deep.cuh", "#define DEEP 3\n");
    CHECK(kernel_source_hash(kernel_in(t)) == plain);
}
