#include <algorithm>
#include <cmath>

#include "common/clock.hpp"
#include "hone/stats.hpp"
#include "measure/session.hpp"

namespace hone {
namespace {

// The spin before a sample must outlast the host's queueing of the start event, the launches
// and the stop event; it lasts twice what that took in the last round, and at least this long.
constexpr double min_cover_us = 20.0;
// Upper bound on launches in one warm-up batch.
constexpr int max_warmup_batch = 1 << 14;
// A warm-up batch is at most this many times the previous one. The first launch (cold
// instruction cache, launch latency) overestimates a short kernel, so a batch sized from it
// falls short and the next one finishes; the cap bounds a batch sized from an underestimate.
constexpr int warmup_growth = 64;

}  // namespace

// Runs the kernel until it has run for timing.warmup_ms (clocks and caches settle), the
// first launch included, in back-to-back batches sized from the time per launch to fill what
// is left; e holds the first launch's figures and ends with the last batch's.
void in_process_session::warm_up(kernel_launch& k, warm_up_estimate& e, job_steps& steps) {
    for (int n = 1; e.busy_ms < plan_.timing.warmup_ms;) {
        const double left_us = (plan_.timing.warmup_ms - e.busy_ms) * 1000.0;
        const double fill =
            e.kernel_us > 0 ? std::ceil(left_us / e.kernel_us) : double{warmup_growth} * n;
        const int most = std::min(warmup_growth * n, max_warmup_batch);
        n = static_cast<int>(std::clamp(fill, 1.0, static_cast<double>(most)));
        const auto t0 = steady_clock::now();
        start_.record(stream_);
        for (int i = 0; i < n; ++i) k.enqueue(stream_);
        stop_.record(stream_);
        e.host_us_per_launch = seconds_since(t0) * 1e6 / n;
        const double ms = cu::event::elapsed_ms(start_, stop_);
        ++steps.waits;
        e.busy_ms += ms;
        e.kernel_us = ms * 1000.0 / n;
    }
}

// Queues `count` samples, then waits once. In single+flush mode a round is one sample (see
// measure()) behind its flush memset, which outlasts the queueing of the events and the launch
// (~17 us on an H100 against ~5 us). Otherwise the round is queued behind a gate, released when
// all of it is queued, and the samples run back to back after one spin, so that no command is
// submitted while a sample runs; where the driver has no gate, a spin before each sample covers
// its queueing (cover_us: the spin's length, updated from how long queueing took). (A gate
// before a flushed sample cost ~11 us of host time a sample and moved no percentile:
// bench/probe_flush.cu.) Appends each sample's time per launch (us) to `out`; returns the GPU
// time from the round's first flush or spin to its last sample (ms).
double in_process_session::take_round(kernel_launch& k, const sample_mode& mode,
                                      std::size_t count, double& cover_us,
                                      std::vector<double>& out) {
    while (sample_start_.size() < count) {
        sample_start_.emplace_back();
        sample_stop_.emplace_back();
    }
    const cu::api& a = cu::driver();
    const bool flush = mode.kind == sample_kind::single_flush;
    double queue_s = 0;
    {
        const bool gated = !flush && gate_.hold(stream_);
        struct release_at_exit {  // all queued, or a throw: a gate left shut holds the stream
            cu::stream_gate& g;
            ~release_at_exit() { g.release(); }
        } open_gate{gate_};
        round_.record(stream_);
        if (gated) spin_.enqueue(stream_, static_cast<uint64_t>(min_cover_us * 1000.0));
        for (std::size_t i = 0; i < count; ++i) {
            if (flush)
                cu::check(a.cuMemsetD32Async(flush_.ptr(), 0, flush_.bytes() / 4, stream_.get()),
                          "cuMemsetD32Async");
            else if (!gated)  // no gate in this driver
                spin_.enqueue(stream_, static_cast<uint64_t>(cover_us * 1000.0));
            const auto t0 = steady_clock::now();
            sample_start_[i].record(stream_);
            for (int b = 0; b < mode.batch; ++b) k.enqueue(stream_);
            sample_stop_[i].record(stream_);
            queue_s = std::max(queue_s, seconds_since(t0));
        }
    }
    const double span_ms = cu::event::elapsed_ms(round_, sample_stop_[count - 1]);
    for (std::size_t i = 0; i < count; ++i)
        out.push_back(cu::event::elapsed_ms(sample_start_[i], sample_stop_[i]) * 1000.0 /
                      mode.batch);
    cover_us = std::max(min_cover_us, 2e6 * queue_s);
    return span_ms;
}

// Flushed samples are taken one a round: queued behind one another, every sample but a round's
// last read ~0.4 us long on an H100 (bench/probe_flush.cu; bench/RESULTS.md), 10% of a 4 us
// kernel. Other modes queue rounds that grow with the samples taken.
void in_process_session::measure(kernel_launch& k, warm_up_estimate warm, job_result& r) {
    const timing_spec& t = plan_.timing;
    auto step = steady_clock::now();
    warm_up(k, warm, r.steps);
    r.steps.warmup_s = seconds_since(step);
    step = steady_clock::now();
    const sample_mode mode = choose_sample_mode(t, warm.kernel_us);
    r.sample_mode = mode.name();
    double cover_us = std::max(min_cover_us, 2.0 * mode.batch * warm.host_us_per_launch);
    const ci_kind kind = t.ci == "median" ? ci_kind::median
                         : t.ci == "mean" ? ci_kind::mean
                                          : ci_kind::either;
    const auto min_n = static_cast<std::size_t>(t.min_samples);
    const auto max_n = static_cast<std::size_t>(t.max_samples);
    const relative_ci_criterion criterion(t.rel_precision, min_n, max_n, t.max_time_s, kind);
    const bool one_a_round = mode.kind == sample_kind::single_flush;
    double span_ms = warm.busy_ms;  // the first launch and the warm-up's batches
    for (;;) {
        std::size_t count = next_round(r.samples_us.size(), min_n, max_n);
        if (one_a_round) count = std::min<std::size_t>(count, 1);
        if (count == 0) break;
        span_ms += take_round(k, mode, count, cover_us, r.samples_us);
        ++r.steps.waits;
        if (criterion.done(r.samples_us, seconds_since(step))) break;
    }
    r.steps.samples_s = seconds_since(step);
    double busy_ms = warm.busy_ms;
    for (double us : r.samples_us) busy_ms += us * mode.batch / 1000.0;
    r.time_us = summarize(r.samples_us);
    r.st = criterion.converged(r.samples_us) ? status::ok : status::not_converged;
    r.gpu_busy_s = busy_ms / 1000.0;
    r.gpu_span_s = span_ms / 1000.0;
}

}  // namespace hone
