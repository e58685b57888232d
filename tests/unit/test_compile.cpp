#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "compile/compile.hpp"
#include "compile/compile_hint.hpp"
#include "compile/source_macros.hpp"
#include "compile/toolkit_include.hpp"
#include "driver/param_sizes.hpp"
#include "hone/spec.hpp"
#include "scoped_env.hpp"
#include "space/space.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using namespace hone;

namespace {

// Captured from NVRTC 13.0 (--gpu-architecture=sm_90 --ptxas-options=-v), two kernels.
const char* two_kernel_log =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function '_Z1kILi4EEvPf' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z1kILi4EEvPf\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 32 registers, used 1 barriers, 512 bytes smem\n"
    "ptxas info    : Compile time = 13.718 ms\n"
    "ptxas info    : Compiling entry function 'plain' for 'sm_90'\n"
    "ptxas info    : Function properties for plain\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 8 registers, used 0 barriers\n"
    "ptxas info    : Compile time = 1.251 ms\n";

// Same source with --maxrregcount=16: ptxas raises the limit to 24 and spills.
const char* spilling_log =
    "ptxas warning : For profile sm_90 adjusting per thread register count of 16 to lower bound of "
    "24\n"
    "ptxas info    : Overriding maximum register limit 256 for '_Z1kILi4EEvPf' with  24 of "
    "maxrregcount option\n"
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function '_Z1kILi4EEvPf' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z1kILi4EEvPf\n"
    "ptxas         .     120 bytes stack frame, 120 bytes spill stores, 120 bytes spill loads\n"
    "ptxas info    : Used 24 registers, used 1 barriers, 120 bytes cumulative stack size, 512 "
    "bytes smem\n"
    "ptxas info    : Compile time = 17.048 ms\n";

const char* template_source = R"(
template <int N, bool SQUARE>
__global__ void scale(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = SQUARE ? x[i] * x[i] * N : x[i] * N;
}
)";

compile_request scale_request(const std::string& name_expression) {
    compile_request r;
    r.source = template_source;
    r.source_name = "scale.cu";
    r.name_expression = name_expression;
    r.options = {"--gpu-architecture=sm_90", "--ptxas-options=-v"};
    return r;
}

// An extern "C" kernel `name` in NAME.cu, compiled as scale_request's are.
compile_request plain_request(const std::string& name, const std::string& source) {
    compile_request req = scale_request("");
    req.plain_name = name;
    req.source = source;
    req.source_name = name + ".cu";
    return req;
}

spec tiny_spec(const fs::path& dir) {
    spec s;
    s.kernel.source_path = (dir / "k.cu").string();
    s.kernel.source_text = "template <int V, bool F> __global__ void k(float* x) { x[0] = V; }\n";
    s.kernel.name = "k<{VEC}, {FAST}>";
    s.kernel.is_template = true;
    s.kernel.include_dirs = {"/opt/inc"};
    s.kernel.options = {"-std=c++17"};
    s.kernel.max_registers = expression::constant(int64_t{32});
    s.kernel.fast_math = expression::constant(true);
    s.problem = {{"N", 1024, {}}};
    s.params = {{"VEC", {int64_t{4}}, {}}, {"FAST", {true}, {}}};
    return s;
}

}  // namespace

TEST_CASE("parse_ptxas_info reads the first entry function, or the one named") {
    const resource_usage first = parse_ptxas_info(two_kernel_log);
    CHECK(first.registers == 32);
    CHECK(first.shared_static_bytes == 512);
    CHECK(first.stack_bytes == 0);
    const resource_usage plain = parse_ptxas_info(two_kernel_log, "plain");
    CHECK(plain.registers == 8);
    CHECK(plain.shared_static_bytes == 0);
    CHECK(parse_ptxas_info(two_kernel_log, "missing").registers == -1);
}

TEST_CASE("parse_ptxas_info reads spills and stack") {
    const resource_usage u = parse_ptxas_info(spilling_log);
    CHECK(u.registers == 24);
    CHECK(u.stack_bytes == 120);
    CHECK(u.spill_store_bytes == 120);
    CHECK(u.spill_load_bytes == 120);
    CHECK(u.shared_static_bytes == 512);
}

TEST_CASE("parse_ptxas_info sums constant banks of older ptxas reports") {
    const resource_usage u = parse_ptxas_info(
        "ptxas info    : Compiling entry function 'k' for 'sm_80'\n"
        "ptxas info    : Used 10 registers, 352 bytes cmem[0], 16 bytes cmem[2]\n");
    CHECK(u.registers == 10);
    CHECK(u.const_bytes == 368);
    CHECK(parse_ptxas_info("").registers == -1);
}

TEST_CASE("compile_nvrtc compiles a templated kernel to a CUBIN without a GPU") {
    const compile_result r = compile_nvrtc(scale_request("scale<4, true>"));
    INFO(r.log);
    REQUIRE(r.ok);
    CHECK_FALSE(r.timed_out);
    REQUIRE(r.cubin.size() > 4);
    CHECK(std::string(r.cubin.begin(), r.cubin.begin() + 4) ==
          "\x7f"
          "ELF");
    CHECK(r.lowered_name == "_Z5scaleILi4ELb1EEvPfi");
    CHECK(r.resources.registers >= 1);
    CHECK(r.compile_ms > 0);
}

TEST_CASE("compile_nvrtc reports a syntax error with its line, without throwing") {
    compile_request req = scale_request("");
    req.plain_name = "broken";
    req.source = "extern \"C\" __global__ void broken(int* x) {\n    x[0] = 1\n}\n";
    req.source_name = "broken.cu";
    const compile_result r = compile_nvrtc(req);
    CHECK_FALSE(r.ok);
    CHECK_FALSE(r.timed_out);
    CHECK(r.cubin.empty());
    CHECK(r.log.find("broken.cu(3): error") != std::string::npos);
}

TEST_CASE("compile_nvrtc refuses a plain name that is a __device__ function, not a kernel") {
    compile_request req = scale_request("");
    req.plain_name = "helper";
    req.source =
        "extern \"C\" __device__ void helper(float* x) { x[0] = 1; }\n"
        "extern \"C\" __global__ void other(float* x) { helper(x); }\n";
    req.source_name = "dev.cu";
    const compile_result r = compile_nvrtc(req);
    CHECK_FALSE(r.ok);
    CHECK(r.log.find("'helper' is not a __global__ function of this source") != std::string::npos);
    CHECK(r.log.find("the source's are: other") != std::string::npos);
    req.plain_name = "other";
    CHECK(compile_nvrtc(req).ok);
}

TEST_CASE("failed logs: ptxas's report of compiled functions left out, grouped up to numbers") {
    const std::string a =
        "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
        "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Used 32 registers, 65536 bytes smem\n"
        "ptxas info    : Compile time = 173.848 ms\n"
        "ptxas error   : Entry function 'k' uses too much shared data (0x10000 bytes, 0xc000 "
        "max)\n";
    std::string b = a;
    b.replace(b.find("65536"), 5, "66048");
    b.replace(b.find("173.848"), 7, "12.5");
    b.replace(b.find("0x10000"), 7, "0x10200");
    CHECK(failure_log(a) ==
          "ptxas error   : Entry function 'k' uses too much shared data (0x10000 bytes, 0xc000 "
          "max)\n");
    CHECK(log_group_key(failure_log(a)) == log_group_key(failure_log(b)));
    CHECK(log_group_key("sm_90 error 12") == "sm_# error #");
    CHECK(log_group_key("k.cu(3): error") != log_group_key("k.cu(3): warning"));
}

TEST_CASE("compile_nvrtc reports ptxas's errors as text, without NVRTC's NUL before them") {
    const compile_result r =
        compile_nvrtc(plain_request("big",
                                    "extern \"C\" __global__ void big(float* x) {\n"
                                    "    __shared__ float s[20000];\n"
                                    "    s[threadIdx.x] = x[threadIdx.x];\n"
                                    "    __syncthreads();\n"
                                    "    x[threadIdx.x] = s[threadIdx.x + 1];\n"
                                    "}\n"));
    CHECK_FALSE(r.ok);
    CHECK(r.log.find("uses too much shared data") != std::string::npos);
    CHECK(r.log.find('\0') == std::string::npos);
}

TEST_CASE("find_toolkit_includes takes the first folder with cuda_fp16.h, and its cccl/") {
    temp_dir t;
    std::filesystem::create_directories(t.path / "bare");
    std::filesystem::create_directories(t.path / "old");
    std::filesystem::create_directories(t.path / "new" / "cccl");
    t.write("old/cuda_fp16.h", "");
    t.write("new/cuda_fp16.h", "");
    const std::string bare = t.file("bare"), old_dir = t.file("old"), new_dir = t.file("new");
    CHECK(find_toolkit_includes({bare, t.file("none")}).empty());
    CHECK(find_toolkit_includes({bare, old_dir, new_dir}) == std::vector<std::string>{old_dir});
    CHECK(find_toolkit_includes({new_dir, old_dir}) ==
          std::vector<std::string>{new_dir, new_dir + "/cccl"});
    scoped_env own("HONE_CUDA_INCLUDE", new_dir);
    CHECK(toolkit_include_candidates().front() == new_dir);
}

// The toolkit that builds hone has cuda_fp16.h; NVRTC alone does not find it.
TEST_CASE("compile_nvrtc finds the toolkit's headers without -I") {
    REQUIRE_FALSE(toolkit_includes().empty());
    compile_request req = scale_request("");
    req.plain_name = "halve";
    req.source =
        "#include <cuda_fp16.h>\n"
        "extern \"C\" __global__ void halve(__half* x) { x[0] = __hmul(x[0], __float2half(0.5f)); "
        "}\n";
    req.source_name = "halve.cu";
    const compile_result r = compile_nvrtc(req);
    INFO(r.log);
    CHECK(r.ok);
}

// Kernels written for nvcc include the C and C++ standard headers, which NVRTC does not have.
TEST_CASE("compile_nvrtc gives NVRTC stand-ins for the standard headers, and a kernel's own win") {
    compile_request req = scale_request("");
    req.plain_name = "k";
    req.source_name = "std.cu";
    req.source = R"(#include <cstdint>
#include <stdint.h>
#include <climits>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cassert>
#include <cstddef>
#include <type_traits>
#include <limits>
#include <utility>
template <typename T> __device__ T twice(T x) {
    static_assert(std::is_floating_point<T>::value, "a real");
    return x * 2;
}
extern "C" __global__ void k(float* x, std::size_t n) {
    const uint32_t i = threadIdx.x;
    const std::uint64_t wide = i;
    assert(wide < 1024);
    if (i == 0) printf("%d\n", INT_MAX);
    const auto p = std::make_pair(FLT_EPSILON, std::numeric_limits<float>::max());
    if (i < n) x[i] = twice(std::sqrt(static_cast<float>(wide))) + p.first + DBL_DIG;
}
)";
    const compile_result r = compile_nvrtc(req);
    INFO(r.log);
    CHECK(r.ok);

    // A folder of the request's that holds a header of the same name keeps its own.
    temp_dir own;
    own.write("cstdint", "#pragma once\n#define OWN_CSTDINT 1\n");
    compile_request mine = scale_request("");
    mine.plain_name = "k";
    mine.source_name = "own.cu";
    mine.include_dirs = {own.path.string()};
    mine.options.push_back("-I" + own.path.string());
    mine.source =
        "#include <cstdint>\n#ifndef OWN_CSTDINT\n#error not the kernel's own cstdint\n#endif\n"
        "extern \"C\" __global__ void k(float* x) { x[0] = OWN_CSTDINT; }\n";
    const compile_result o = compile_nvrtc(mine);
    INFO(o.log);
    CHECK(o.ok);
}

TEST_CASE("compile_nvrtc cancels a compile past its deadline") {
    const compile_result r = compile_nvrtc(scale_request("scale<2, false>"), 1e-9);
    CHECK_FALSE(r.ok);
    CHECK(r.timed_out);
}

TEST_CASE("nvrtc_version is major.minor") {
    CHECK(std::regex_match(nvrtc_version(), std::regex("[0-9]+\\.[0-9]+")));
}

TEST_CASE("cache_key covers included files, recursively") {
    temp_dir dir;
    fs::create_directory(dir.path / "inc");
    dir.write("inc/a.h", "#include \"b.h\"\n");
    dir.write("inc/b.h", "#define B 1\n");
    compile_request req = scale_request("scale<4, true>");
    req.source = std::string("#include <a.h>\n#include <cuda_fp16.h>\n") + template_source;
    req.source_name = (dir.path / "scale.cu").string();
    req.include_dirs = {(dir.path / "inc").string()};
    const std::string key = req.cache_key();
    CHECK(key.size() == 32);
    CHECK(req.cache_key() == key);
    dir.write("inc/b.h", "#define B 2\n");
    const std::string changed = req.cache_key();
    CHECK(changed != key);
    req.options.push_back("-DX=1");
    CHECK(req.cache_key() != changed);
}

TEST_CASE("make_compile_request turns a configuration into NVRTC options") {
    temp_dir dir;
    const spec s = tiny_spec(dir.path);
    config c;
    c.values = {int64_t{4}, true};
    const bindings scope = {{"N", int64_t{1024}}, {"VEC", int64_t{4}}, {"FAST", true}};
    const compile_request r = make_compile_request(s, c, scope, "sm_90");
    CHECK(r.name_expression == "k<4, true>");
    CHECK(r.plain_name.empty());
    const std::vector<std::string> expected = {"--gpu-architecture=sm_90",
                                               "-I/opt/inc",
                                               "-I" + dir.path.string(),
                                               "--maxrregcount=32",
                                               "--use_fast_math",
                                               "--ptxas-options=-v",
                                               "-std=c++17"};
    CHECK(r.options == expected);
    CHECK(r.include_dirs == std::vector<std::string>{"/opt/inc", dir.path.string()});
    // The macros are the source's first lines, then the file from its line 1.
    CHECK(r.source == "#define N 1024\n#define VEC 4\n#define FAST 1\n#line 1 \"" +
                          s.kernel.source_path + "\"\n" + s.kernel.source_text);
    const compile_result built = compile_nvrtc(r);
    INFO(built.log);
    CHECK(built.ok);
}

TEST_CASE("make_reference_request names the reference kernel") {
    temp_dir dir;
    spec s = tiny_spec(dir.path);
    s.kernel.max_registers = expression::constant(int64_t{0});
    s.kernel.fast_math = expression::constant(false);
    s.verify.reference_kernel = "ref_k";
    config c;
    c.values = {int64_t{1}, false};
    const bindings scope = {{"N", int64_t{1024}}, {"VEC", int64_t{1}}, {"FAST", false}};
    s.kernel.source_text = "extern \"C\" __global__ void ref_k(float* x) { x[0] = 1; }\n";
    const compile_request r = make_reference_request(s, c, scope, "sm_90");
    CHECK(r.plain_name == "ref_k");
    CHECK(r.name_expression.empty());
    for (const auto& o : r.options) {
        CHECK(o.find("maxrregcount") == std::string::npos);
        CHECK(o != "--use_fast_math");
    }
}

TEST_CASE("a plain name of C++ linkage resolves through a name expression") {
    temp_dir dir;
    spec s = tiny_spec(dir.path);
    s.kernel.source_text =
        "namespace ns { __global__ void k(float* x) { x[0] = 1; } }\n"
        "__global__ void k(float* x) { x[0] = 2; }\n";
    s.kernel.name = "k";
    s.kernel.is_template = false;
    config c;
    c.values = {int64_t{1}, false};
    const bindings scope = {{"N", int64_t{1024}}, {"VEC", int64_t{1}}, {"FAST", false}};
    compile_request r = make_compile_request(s, c, scope, "sm_90");
    CHECK(r.name_expression == "k");
    CHECK(r.plain_name.empty());
    compile_result built = compile_nvrtc(r);
    INFO(built.log);
    CHECK(built.ok);
    CHECK(built.lowered_name == "_Z1kPf");
    s.kernel.name = "ns::k";  // qualified: always an expression
    r = make_compile_request(s, c, scope, "sm_90");
    CHECK(r.name_expression == "ns::k");
    built = compile_nvrtc(r);
    INFO(built.log);
    CHECK(built.ok);
    CHECK(built.lowered_name == "_ZN2ns1kEPf");
    // A source that declares extern "C" keeps plain names: the symbol is the name.
    s.kernel.source_text = "extern \"C\" __global__ void k(float* x) { x[0] = 1; }\n";
    s.kernel.name = "k";
    r = make_compile_request(s, c, scope, "sm_90");
    CHECK(r.plain_name == "k");
    CHECK(r.name_expression.empty());
}

TEST_CASE("expand_name substitutes placeholders and refuses unknown names") {
    const spec s;
    const bindings scope = {{"VEC", int64_t{2}}, {"T", std::string("float")}, {"F", false}};
    const source_pos pos{"t.yaml", 3, 9};
    CHECK(expand_name("k<{VEC}, {T}, {F}>", s, scope, pos) == "k<2, float, false>");
    CHECK(expand_name("plain", s, scope, pos) == "plain");
    CHECK_THROWS_WITH_AS(expand_name("k<{NOPE}>", s, scope, pos), doctest::Contains("'{NOPE}'"),
                         input_error);
    CHECK_THROWS_AS(expand_name("k<{VEC>", s, scope, pos), input_error);
}

TEST_CASE("shield_system_includes keeps the macros out of headers found outside the kernel's own") {
    temp_dir dir;
    dir.write("own.h", "#define OWN_HEADER N\n");
    const std::vector<std::pair<std::string, std::string>> macros = {{"N", "4096"}, {"T", "float"}};
    const std::vector<std::string> own = {dir.path.string()};
    const std::string source =
        "#include \"own.h\"\n"
        "#include <own.h>\n"
        "/* #include <commented.h>\n"
        "*/ #include <cub/cub.cuh>\n"
        "  #  include <cstdint> // a comment\n"
        "#include \"cub/warp/warp_reduce.cuh\"\n"
        "__global__ void k() {}";
    const std::string out = shield_system_includes(source, "dir/k \"1\".cu", macros, own);
    const std::string expected =
        "#include \"own.h\"\n"
        "#include <own.h>\n"
        "/* #include <commented.h>\n"
        "*/ #include <cub/cub.cuh>\n"
        "#undef N\n#undef T\n"
        "#line 5 \"dir/k \\\"1\\\".cu\"\n"
        "  #  include <cstdint> // a comment\n"
        "#define N 4096\n#define T float\n"
        "#line 6 \"dir/k \\\"1\\\".cu\"\n"
        // A quoted include that is not the kernel's own (nvcc users write cub's so) too.
        "#undef N\n#undef T\n"
        "#line 6 \"dir/k \\\"1\\\".cu\"\n"
        "#include \"cub/warp/warp_reduce.cuh\"\n"
        "#define N 4096\n#define T float\n"
        "#line 7 \"dir/k \\\"1\\\".cu\"\n"
        "__global__ void k() {}";
    CHECK(out == expected);
    // Nothing to shield: the same text.
    CHECK(shield_system_includes(source, "k.cu", {}, own) == source);
    CHECK(shield_system_includes("__global__ void k() {}", "k.cu", macros, own) ==
          "__global__ void k() {}");
}

TEST_CASE(
    "a problem size N and a parameter T, both macros, compile with CCCL and cuRAND headers that "
    "name template parameters N and T; the kernel's own header still reads them") {
    temp_dir dir;
    dir.write("own.h", "constexpr int own_n = N;\n");
    spec s;
    s.kernel.source_path = (dir.path / "k.cu").string();
    s.kernel.source_text =
        "#include <cub/block/block_reduce.cuh>\n"
        "#include <curand_kernel.h>\n"
        "#include <own.h>\n"
        "__global__ void k(float* x) {\n"
        "    using reduce = cub::BlockReduce<float, T>;\n"
        "    __shared__ typename reduce::TempStorage t;\n"
        "    curandStatePhilox4_32_10_t r;\n"
        "    curand_init(1, threadIdx.x, 0, &r);\n"
        "    const float v = reduce(t).Sum(curand_uniform(&r));\n"
        "    if (threadIdx.x == 0) x[0] = v + N + own_n;\n"
        "    undefined_name;\n"
        "}\n";
    s.kernel.name = "k";
    s.problem = {{"N", 4096, {}}};
    s.params = {{"T", {int64_t{128}}, {}}};
    config c;
    c.values = {int64_t{128}};
    const bindings scope = {{"N", int64_t{4096}}, {"T", int64_t{128}}};
    const compile_result r = compile_nvrtc(make_compile_request(s, c, scope, "sm_90"));
    INFO(r.log);
    // The one error is the kernel's own, on its own line of its own file.
    CHECK(!r.ok);
    CHECK(r.log.find("k.cu(11): error: identifier \"undefined_name\" is undefined") !=
          std::string::npos);
    CHECK(r.log.find("1 error detected") != std::string::npos);
    s.kernel.source_text.erase(s.kernel.source_text.find("    undefined_name;\n"), 20);
    const compile_result fixed = compile_nvrtc(make_compile_request(s, c, scope, "sm_90"));
    INFO(fixed.log);
    CHECK(fixed.ok);
}

TEST_CASE("a header included before the source (--pre-include) still reads the macros") {
    temp_dir dir;
    dir.write("pre.h", "constexpr int pre_n = N;\n");
    spec s = tiny_spec(dir.path);
    s.kernel.include_dirs = {};
    s.kernel.options = {"--pre-include=pre.h"};
    s.kernel.source_text =
        "template <int V, bool F> __global__ void k(float* x) { x[0] = V + pre_n; }\n";
    config c;
    c.values = {int64_t{4}, true};
    const bindings scope = {{"N", int64_t{1024}}, {"VEC", int64_t{4}}, {"FAST", true}};
    const compile_request r = make_compile_request(s, c, scope, "sm_90");
    CHECK(std::find(r.options.begin(), r.options.end(), "-DN=1024") != r.options.end());
    const compile_result built = compile_nvrtc(r);
    INFO(built.log);
    CHECK(built.ok);
}

TEST_CASE("cubin_param_sizes reads a kernel's parameters from NVRTC's CUBIN; args_mismatch") {
    const compile_result r = compile_nvrtc(
        plain_request("k",
                      "extern \"C\" __global__ void k(const float* a, float* b, int n, double s, "
                      "char c, short h) { if (n) b[0] = a[0] * s + c + h; }\n"
                      "extern \"C\" __global__ void none() {}\n"));
    REQUIRE(r.ok);
    const auto sizes = cubin_param_sizes(r.cubin, r.lowered_name);
    REQUIRE(sizes.has_value());
    CHECK(*sizes == std::vector<std::size_t>{8, 8, 4, 8, 1, 2});
    CHECK_FALSE(cubin_param_sizes(r.cubin, "missing").has_value());
    CHECK_FALSE(cubin_param_sizes(r.cubin, "none").has_value());  // no parameters: not checked
    CHECK_FALSE(cubin_param_sizes({0x7f, 'E', 'L', 'F'}, "k").has_value());
    std::vector<uint8_t> cut(r.cubin.begin(), r.cubin.begin() + r.cubin.size() / 2);
    (void)cubin_param_sizes(cut, "k");  // a truncated image: no crash, whatever it finds

    auto value = [](elem_type t) { return kernel_arg{-1, t, 0}; };
    const kernel_arg buffer{0, elem_type::f32, 0};
    std::vector<kernel_arg> args{buffer,
                                 buffer,
                                 value(elem_type::i32),
                                 value(elem_type::f64),
                                 value(elem_type::i8),
                                 value(elem_type::i16)};
    CHECK(args_mismatch(*sizes, args).empty());
    args[2] = value(elem_type::i64);  // an integer fits any integer parameter of up to 8 bytes
    CHECK(args_mismatch(*sizes, args).empty());
    args[3] = value(elem_type::f32);
    CHECK(args_mismatch(*sizes, args) ==
          "the kernel's parameter 4 is 8 bytes, and args gives it float (4 bytes)");
    args.pop_back();
    CHECK(args_mismatch(*sizes, args)
              .find("the kernel takes 6 parameters (8, 8, 4, 8, 1, 2 "
                    "bytes) and args gives 5") == 0);
}
