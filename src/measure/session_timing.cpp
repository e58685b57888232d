#include <algorithm>
#include <cmath>
#include <chrono>

#include "hone/stats.hpp"
#include "measure/session.hpp"

namespace hone {
namespace {

using wall_clock = std::chrono::steady_clock;

// The spin before a sample must outlast the host's queueing of the start event, the launches
// and the stop event; it lasts twice what that took last time, and at least this long.
constexpr double min_cover_us = 20.0;
// Upper bound on launches in one warm-up batch (the batches double).
constexpr int max_warmup_batch = 1 << 14;

double seconds_since(wall_clock::time_point t0) {
    return std::chrono::duration<double>(wall_clock::now() - t0).count();
}

}  // namespace

// Runs the kernel for at least timing.warmup_ms (clocks and caches settle) in back-to-back
// batches: one launch, then batches sized from the time per launch to fill what is left (at
// most doubling, so a first launch slowed by a cold start does not mislead it); the last batch
// gives the estimates.
warm_up_estimate in_process_session::warm_up(kernel_launch& k) {
    warm_up_estimate e;
    for (int n = 1;;) {
        const auto t0 = wall_clock::now();
        start_.record(stream_);
        for (int i = 0; i < n; ++i) k.enqueue(stream_);
        stop_.record(stream_);
        e.host_us_per_launch = seconds_since(t0) * 1e6 / n;
        const double ms = cu::event::elapsed_ms(start_, stop_);
        e.busy_ms += ms;
        e.kernel_us = ms * 1000.0 / n;
        if (e.busy_ms >= plan_.timing.warmup_ms) return e;
        const double left_us = (plan_.timing.warmup_ms - e.busy_ms) * 1000.0;
        const double fill = e.kernel_us > 0 ? std::ceil(left_us / e.kernel_us) : 2.0 * n;
        n = static_cast<int>(std::clamp(fill, 1.0, static_cast<double>(std::min(2 * n, max_warmup_batch))));
    }
}

// One sample, in microseconds per launch. cover_us: how long the spin before it lasts;
// updated from this sample's queueing time.
double in_process_session::take_sample(kernel_launch& k, const sample_mode& mode,
                                       double& cover_us) {
    // The flush memset (~30 us on an H100) keeps the GPU busy as well as a spin would.
    if (mode.kind == sample_kind::single_flush)
        cu::check(cu::driver().cuMemsetD32Async(flush_.ptr(), 0, flush_.bytes() / 4, stream_.get()),
                  "cuMemsetD32Async");
    else
        spin_.enqueue(stream_, static_cast<uint64_t>(cover_us * 1000.0));
    const auto t0 = wall_clock::now();
    start_.record(stream_);
    for (int i = 0; i < mode.batch; ++i) k.enqueue(stream_);
    stop_.record(stream_);
    cover_us = std::max(min_cover_us, 2e6 * seconds_since(t0));
    return cu::event::elapsed_ms(start_, stop_) * 1000.0 / mode.batch;
}

void in_process_session::measure(kernel_launch& k, job_result& r) {
    const timing_spec& t = plan_.timing;
    const warm_up_estimate warm = warm_up(k);
    double busy_ms = warm.busy_ms;
    const sample_mode mode = choose_sample_mode(t, warm.kernel_us);
    r.sample_mode = mode.name();
    double cover_us = std::max(min_cover_us, 2.0 * mode.batch * warm.host_us_per_launch);
    const ci_kind kind = t.ci == "median" ? ci_kind::median
                         : t.ci == "mean" ? ci_kind::mean
                                          : ci_kind::either;
    const relative_ci_criterion criterion(t.rel_precision, t.min_samples, t.max_samples,
                                          t.max_time_s, kind);
    const auto t0 = wall_clock::now();
    // The criterion sorts the samples: past ~50, ask it only at every 2% more samples.
    const auto cap = static_cast<std::size_t>(std::max(t.max_samples, t.min_samples));
    std::size_t next_check = 1;
    for (;;) {
        r.samples_us.push_back(take_sample(k, mode, cover_us));
        busy_ms += r.samples_us.back() * mode.batch / 1000.0;
        const std::size_t n = r.samples_us.size();
        if (n < next_check) continue;
        next_check = std::min(n + std::max<std::size_t>(1, n / 50), cap);
        if (criterion.done(r.samples_us, seconds_since(t0))) break;
    }
    r.time_us = summarize(r.samples_us);
    r.st = criterion.converged(r.samples_us) ? status::ok : status::not_converged;
    r.gpu_busy_s = busy_ms / 1000.0;
}

}  // namespace hone
