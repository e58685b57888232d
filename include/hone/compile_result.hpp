// What compiling one configuration gave: the binary, NVRTC's log and ptxas's resource report.
// Results carry it (eval_record::resources, check_result::results); how a compile is asked for
// is the library's own (src/compile/compile.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace hone {

// What ptxas reported (--ptxas-options=-v); -1 = not reported.
struct resource_usage {
    int registers = -1;
    int spill_store_bytes = 0;
    int spill_load_bytes = 0;
    int stack_bytes = 0;
    int shared_static_bytes = 0;
    int const_bytes = 0;
};

struct compile_result {
    bool ok = false;
    bool timed_out = false;  // cancelled by the compile deadline
    bool crashed = false;    // the compile worker died (NVRTC crash): log names the signal
    bool from_cache = false;
    std::string log;  // NVRTC log (errors, warnings, ptxas info)
    std::vector<uint8_t> cubin;
    std::string lowered_name;  // mangled name to pass to cuModuleGetFunction
    resource_usage resources;
    double compile_ms = 0.0;
};

}  // namespace hone
