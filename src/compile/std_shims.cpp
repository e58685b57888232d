#include "compile/std_shims.hpp"

#include <filesystem>

#include "common/digest.hpp"

namespace hone {
namespace {

namespace fs = std::filesystem;

// <name> and its cuda/std counterpart ("" where the stand-in needs none).
struct mapping {
    const char* name;
    const char* cuda_std;
};

constexpr mapping mapped[] = {
    {"cstdint", "cstdint"},
    {"stdint.h", "cstdint"},
    {"climits", "climits"},
    {"limits.h", "climits"},
    {"cassert", "cassert"},
    {"assert.h", "cassert"},
    {"cstddef", "cstddef"},
    {"stddef.h", "cstddef"},
    {"cstdlib", "cstdlib"},
    {"stdlib.h", "cstdlib"},
    {"cmath", ""},
    {"math.h", ""},
    {"cstring", "cstring"},
    {"string.h", "cstring"},
    {"type_traits", "type_traits"},
    {"utility", "utility"},
    {"limits", "limits"},
    {"tuple", "tuple"},
    {"array", "array"},
    {"functional", "functional"},
    {"numeric", "numeric"},
    {"complex", "complex"},
    {"bit", "bit"},
    {"span", "span"},
    {"optional", "optional"},
    {"cstdio", ""},
    {"stdio.h", ""},
    {"cfloat", ""},
    {"float.h", ""},
};

// Device code's printf is built into NVRTC; nothing else of stdio runs on a GPU.
constexpr const char* stdio_text =
    "#pragma once\n"
    "// hone's stand-in: NVRTC declares device printf itself.\n";

// NVRTC defines none of <cfloat>'s macros (nor the compiler's __FLT_MAX__); IEEE 754 fixes them.
constexpr const char* cfloat_text = R"(#pragma once
// hone's stand-in for <cfloat> under NVRTC: IEEE 754 single and double precision.
#define FLT_RADIX 2
#define FLT_MANT_DIG 24
#define FLT_DIG 6
#define FLT_MIN_EXP (-125)
#define FLT_MIN_10_EXP (-37)
#define FLT_MAX_EXP 128
#define FLT_MAX_10_EXP 38
#define FLT_MAX 3.40282347e+38F
#define FLT_MIN 1.17549435e-38F
#define FLT_EPSILON 1.19209290e-07F
#define FLT_TRUE_MIN 1.40129846e-45F
#define DBL_MANT_DIG 53
#define DBL_DIG 15
#define DBL_MIN_EXP (-1021)
#define DBL_MIN_10_EXP (-307)
#define DBL_MAX_EXP 1024
#define DBL_MAX_10_EXP 308
#define DBL_MAX 1.7976931348623157e+308
#define DBL_MIN 2.2250738585072014e-308
#define DBL_EPSILON 2.2204460492503131e-16
#define DBL_TRUE_MIN 4.9406564584124654e-324
)";

// NVRTC declares CUDA's math functions (float overloads included) in the global namespace;
// <cmath> adds them to std. CCCL's cuda/std/cmath would take ~1.3 s of every compile.
constexpr const char* math_names[] = {
    "abs",       "fabs",     "sqrt",    "cbrt",  "rsqrt",    "exp",     "exp2",      "expm1",
    "exp10",     "log",      "log2",    "log10", "log1p",    "pow",     "sin",       "cos",
    "tan",       "asin",     "acos",    "atan",  "atan2",    "sinh",    "cosh",      "tanh",
    "asinh",     "acosh",    "atanh",   "floor", "ceil",     "round",   "trunc",     "rint",
    "nearbyint", "lround",   "llround", "lrint", "llrint",   "fmod",    "remainder", "remquo",
    "fma",       "fmin",     "fmax",    "fdim",  "hypot",    "erf",     "erfc",      "tgamma",
    "lgamma",    "frexp",    "ldexp",   "modf",  "scalbn",   "scalbln", "ilogb",     "logb",
    "nextafter", "copysign", "isnan",   "isinf", "isfinite", "signbit"};

std::string cmath_text() {
    std::string text =
        "#pragma once\n// hone's stand-in for <cmath> under NVRTC: CUDA's math functions, also "
        "in std.\nnamespace std {\n";
    for (const char* name : math_names) text += std::string("using ::") + name + ";\n";
    return text + "}\n";
}

std::string mapped_text(const std::string& cuda_std) {
    return "#pragma once\n// hone's stand-in under NVRTC: CCCL's cuda/std/" + cuda_std +
           ", its names also in std.\n#include <cuda/std/" + cuda_std +
           ">\n// Declared here too: a header of macros alone (<climits>) opens no namespace.\n"
           "namespace cuda {\nnamespace std {}\n}\nnamespace std {\nusing namespace "
           "cuda::std;\n}\n";
}

std::string text_of(const mapping& m) {
    const std::string name = m.name;
    if (*m.cuda_std) return mapped_text(m.cuda_std);
    if (name == "cmath" || name == "math.h") return cmath_text();
    return name == "cfloat" || name == "float.h" ? cfloat_text : stdio_text;
}

}  // namespace

std::vector<std_shim> std_shims(const std::vector<std::string>& toolkit_dirs) {
    std::vector<std_shim> out;
    for (const mapping& m : mapped) {
        bool found = !*m.cuda_std;
        for (const auto& dir : toolkit_dirs) {
            std::error_code ec;
            found = found || fs::is_regular_file(fs::path(dir) / "cuda/std" / m.cuda_std, ec);
        }
        if (found) out.push_back({m.name, text_of(m)});
    }
    return out;
}

const std::string& std_shims_version() {
    static const std::string version = [] {
        digest d;
        for (const mapping& m : mapped) d.add(m.name).add(text_of(m));
        return d.hex();
    }();
    return version;
}

}  // namespace hone
