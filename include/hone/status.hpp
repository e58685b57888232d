// Result statuses of one evaluated configuration (after KTT's).
#pragma once
#include <optional>
#include <string_view>

namespace hone {

enum class status {
    ok,               // measured, verified, converged
    not_converged,    // measured and verified, but a sample cap was hit before the CI target
    compile_error,    // NVRTC failed (log stored), or its worker process died
    compile_timeout,  // NVRTC exceeded the compile deadline
    device_limits,    // cannot run on this device (block too large for its registers, shared
                      // memory, occupancy 0): never launched
    launch_error,     // launch failed without harming the context (701, invalid value, OOM)
    wrong_result,     // output differs from the reference, has NaN, or was left unwritten
    runtime_fault,    // sticky error (700, 710, 714-719) or the worker died: fresh worker
    timeout,          // the watchdog killed the worker
};

const char* status_name(status s);
std::optional<status> parse_status(std::string_view s);
// ok and not_converged have timings and can be ranked.
inline bool has_timing(status s) {
    return s == status::ok || s == status::not_converged;
}
// Statuses that cost a worker restart; never re-run on resume unless --retry-failed.
inline bool is_fault(status s) {
    return s == status::runtime_fault || s == status::timeout || s == status::compile_timeout;
}

}  // namespace hone
