// Writing Kernel Tuner's cache format (read by formats/kt_cache.hpp, by Kernel Tuner's
// tune_kernel(cache=...) and its simulation mode, and by its dashboard).
#pragma once
#include <string>

#include "formats/exchange.hpp"

namespace hone {

// The run as a cache (JSON text). Header: device_name, kernel_name, problem_size (the file's own
// for an imported run; for hone's, the problem sizes' values in order), tune_params_keys,
// tune_params (each parameter's values in the order the records first use them, numbers sorted),
// objective. One record per configuration under its Kernel Tuner key ("32,1,True"): the
// parameters, "time" (ms: the imported value, else the median; a failure's Kernel Tuner string),
// "times" (every raw sample, ms), compile_time, verification_time, benchmark_time,
// framework_time, strategy_time (ms), timestamp, and every metric. Throws input_error when the
// records do not share one list of parameter names (not one space).
std::string write_kt_cache(const run_records& run);

}  // namespace hone
