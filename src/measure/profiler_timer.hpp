// Kernel durations from CUPTI's range profiler: the hardware counter gpu__time_duration, the
// figure Nsight Compute reports, one range per kernel launch (auto range, one pass, replayed by
// nobody). CUPTI's activity records (cupti_timer.hpp) span the kernel's execution on the SMs
// only and read 0.52-0.77x of Nsight Compute for kernels under ~15 us on an H100; this counter
// also covers the launch's work in the front end, as Nsight Compute's does (with the L2 reset
// after each flush, within 3% of ncu --cache-control all from 2.8 us to 1 ms on an H100).
//
// The profiler needs the hardware counters: root, or a driver loaded with
// NVreg_RestrictProfilingToAdminUsers=0, and no other profiler in the process.
#pragma once
#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hone {

class profiler_timer {
  public:
    // Enables the range profiler on `ctx` (current on this thread), device `ordinal`; nullptr,
    // with `why`, when it cannot.
    static std::unique_ptr<profiler_timer> enable(CUcontext ctx, int ordinal, std::string& why);
    // Loads CUPTI and initialises its profiler interface (~0.1 s), which needs no context: a GPU
    // worker calls it from a thread of its own while its main thread starts CUDA. enable() does
    // it where nobody has; failures are enable()'s to report. Thread-safe.
    static void initialize_early();
    ~profiler_timer();
    profiler_timer(const profiler_timer&) = delete;
    profiler_timer& operator=(const profiler_timer&) = delete;

    // From here every kernel launched in the context is a range, up to `ranges` of them; false,
    // with `why`, when the profiler would not start.
    bool begin(std::size_t ranges, std::string& why);
    // Once the launches since begin() have completed: each range's gpu__time_duration (ns), in
    // launch order; nullopt, with `why`, when the profiler dropped ranges or failed.
    std::optional<std::vector<uint64_t>> finish(std::string& why);

  private:
    struct state;
    explicit profiler_timer(std::unique_ptr<state> s);
    std::unique_ptr<state> s_;
};

// The kernel launches' durations among a profiled round's ranges: `count` samples, each `lead`
// ranges that are not the kernel's (the flush and the driver's L2 reset) followed by `batch`
// launches. A driver may give the reset no range, so samples of lead - 1 such ranges are
// accepted too. nullopt, with `why`, when the count fits neither (another kernel in the
// context, say).
std::optional<std::vector<uint64_t>> kernel_durations(const std::vector<uint64_t>& ranges_ns,
                                                      std::size_t count, std::size_t batch,
                                                      std::size_t lead, std::string& why);

}  // namespace hone
