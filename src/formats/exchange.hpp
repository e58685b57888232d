// What the exchange formats (T4, Kernel Tuner's cache, CSV) carry of a run, and the mappings
// they share: statuses both ways, keys, Python's text of a value, milliseconds.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "hone/record.hpp"
#include "hone/status.hpp"

namespace hone {

// One run: its identity and its records, in the order they were evaluated.
struct run_records {
    int64_t run_id = 0;  // the store's run number (0: not read from a store)
    run_identity identity;
    std::vector<eval_record> records;
    std::vector<std::string> notes;  // what an import could not keep as given, for the user
};

// Metric names under which an import keeps the tool's own numbers that hone has no field for
// (Kernel Tuner's names, milliseconds), so that an export writes them back unchanged.
inline constexpr const char* objective_metric = "time";  // the tool's objective value
inline constexpr const char* framework_metric = "framework_time";
inline constexpr const char* strategy_metric = "strategy_time";

// Kernel Tuner's failure string for a status; nullptr for ok and not_converged.
//   compile_error, compile_timeout          -> CompilationFailedConfig
//   device_limits                           -> InvalidConfig
//   launch_error, runtime_fault, timeout,
//   wrong_result                            -> RuntimeFailedConfig
const char* kt_failure_of(status s);
// The status hone gives a Kernel Tuner failure; nullopt for another string.
std::optional<status> status_of_kt_failure(const std::string& failure);

// T4's invalidity for a status: correct, compile, constraints, runtime, timeout, correctness.
const char* t4_invalidity_of(status s);
std::optional<status> status_of_t4_invalidity(const std::string& invalidity);

// hone's key for parameters ("A=1,B=true,C=long long"), as config::key writes it.
std::string key_of(const param_list& params);
// Python's str() of a value, as Kernel Tuner joins its cache keys: True, 0.5, 1e-05, 2.0.
std::string python_text(const value& v);
// The tool's string for the objective ("time", "GB/s", "GFLOP/s") and back.
const char* kt_objective_of(const std::string& hone_objective);
std::optional<std::string> hone_objective_of(const std::string& kt_objective);

// v * 10^e (e >= 0) or v / 10^-e: one correctly rounded operation, exact for e = 0.
double times_pow10(double v, int e);
// The same for reading a value in another unit (ms in files, µs and s in hone): of the result
// and the doubles next to it, the one that converts back to exactly `v`, so that an imported
// value is exported with the file's own digits wherever a double allows (on Kernel Tuner's GEMM
// space, 97.7% of the raw times; the rest differ in the last bit, as do some of hone's µs through a
// file's ms and back: doubles in one unit are too few to tell every double of the other apart).
double times_pow10_reversibly(double v, int e);
inline double ms_of_us(double us) {
    return times_pow10(us, -3);
}
inline double us_of_ms(double ms) {
    return times_pow10_reversibly(ms, 3);
}
inline double ms_of_s(double s) {
    return times_pow10(s, 3);
}
inline double s_of_ms(double ms) {
    return times_pow10_reversibly(ms, -3);
}

}  // namespace hone
