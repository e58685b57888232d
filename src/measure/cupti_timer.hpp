// Kernel durations from CUPTI's activity records: the GPU's own start and end timestamps of each
// launch (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), which leave out what an event pair around a
// launch also counts (the launch's fixed cost, ~1.3 us on an H100 for a 4 us kernel).
//
// CUPTI is per process: this is the process's one collector. It keeps only records of the
// kernel it watches; a round of samples reads its launches back after the stream has
// synchronised (take), in launch order.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hone {

// Which timer a session uses, from timing.timer and whether what it asks for could be enabled
// (usable; why_not: why it could not): "cupti", CUPTI's activity records; "profiler", CUPTI's
// range profiler (profiler_timer.hpp); "auto" and "events", CUDA events. "cupti" or "profiler"
// without theirs is an env_error.
std::string choose_timer(const std::string& requested, bool usable, const std::string& why_not);

class cupti_timer {
  public:
    // Loads libcupti and enables kernel records; nullptr, with `why`, when it cannot. The
    // outcome of the first call is kept.
    static cupti_timer* enable(std::string& why);
    // The timer if enable() succeeded before, else nullptr; loads nothing.
    static cupti_timer* loaded();
    // Stops (and resumes) collecting: a session timed with events pays nothing for CUPTI.
    void pause();
    void resume();
    // From now on, records of this function (the name cuModuleGetFunction took) are kept, and
    // those of any other dropped; call before its first launch.
    void watch(const std::string& function);
    // CUPTI's clock, the one records are stamped with (ns).
    uint64_t now() const;
    // After the stream has synchronised: the durations (end - start, ns) of the watched kernel's
    // launches that started at or after `since`, in launch order, once `expected` of them have
    // come in. nullopt when they do not all come in within a wait, or one lacks its timestamps.
    // Everything kept so far is dropped. CUPTI is only ever asked for buffers whose records are
    // complete (cuptiActivityFlushAll(0)): a forced flush hands over records of launches whose
    // timestamps CUPTI has not yet read back, stamped 0, and forcing after 60 us of waiting made
    // a third of a 576-configuration run on an H100 fall back to events.
    std::optional<std::vector<uint64_t>> take(uint64_t since, std::size_t expected);

  private:
    cupti_timer() = default;
    bool enabled_ = false;
};

// The mean duration of each sample of `batch` launches, in us: the launches' own durations
// summed, divided by `batch`; the gaps between launches are not counted (an event pair around
// the batch counts them). durations_ns.size() must be a multiple of batch.
std::vector<double> samples_from_durations(const std::vector<uint64_t>& durations_ns, int batch);

}  // namespace hone
