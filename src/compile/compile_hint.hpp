// What to change in the config when NVRTC's log shows a failure that the config causes.
#pragma once
#include <string>
#include <string_view>

#include "hone/spec.hpp"

namespace hone {

// "" or one line starting with "hint: ", for a failed compile's log: a name the kernel or a header
// declares that is also a macro (a tuning parameter or a problem size), so that the macro
// replaces it and NVRTC reports a syntax error there: a template parameter of the kernel named
// like a tuning parameter, or the name under an "expected ..." error's caret; or host code
// (main, cudaMalloc) in a source written for nvcc.
std::string compile_hint(const spec& s, std::string_view log);

// A failed compile's log as shown: without ptxas's report of the functions that did compile
// ("ptxas info" lines and their properties), which only hides the error.
std::string failure_log(std::string_view log);
// Failed logs that differ only in numbers (sizes, compile times, hex values) share this key.
std::string log_group_key(std::string_view log);

}  // namespace hone
