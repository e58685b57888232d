#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/clock.hpp"
#include "common/trace.hpp"
#include "measure/session.hpp"
#include "measure/stats.hpp"
#include "measure/warm_up.hpp"

namespace hone {
namespace {

// The spin before a sample must outlast the host's queueing of the start event, the launches
// and the stop event; it lasts twice what that took in the last round, and at least this long.
constexpr double min_cover_us = 20.0;
// A fixed warm-up batch is at most this many times the previous one. The first launch (cold
// instruction cache, launch latency) overestimates a short kernel, so a batch sized from it
// falls short and the next one finishes; the cap bounds a batch sized from an underestimate.
constexpr int warmup_growth = 64;

}  // namespace

// In a worker, while the supervisor builds the space and compiles the reference: the range
// profiler (what timer: auto uses) takes ~0.2 s to enable, most of it reading the GPU's counter
// availability; a worker whose plans time otherwise is not asked to. Enabled, not started, it
// times nothing; a failure is kept for prepare to report.
void in_process_session::warm_start() {
    if (profiler_ahead_) enable_profiler();
}

void in_process_session::enable_profiler() {
    if (profiler_ || profiler_why_) return;
    std::string failed;
    if (trace_on()) trace_mark(fmt::format("GPU {}: profiler enable begins", info_.ordinal));
    profiler_ = profiler_timer::enable(ctx_.get(), ordinal_, failed);
    if (!profiler_) {
        profiler_why_ = failed;
        return;
    }
    if (trace_on()) trace_mark(fmt::format("GPU {}: profiler enabled", info_.ordinal));
    // A first round, of two launches of the spin kernel, whose figures are dropped: the
    // profiler's first round in a process costs ~0.3 s (its first cuptiRangeProfilerStart, on an
    // H100 or H200), which otherwise lands in the first configuration's samples: that
    // configuration took 0.35-0.44 s and, on several GPUs at once, 0.75-0.99 s, where it ended
    // not_converged. A failure here is the real rounds' to report.
    std::string ignored;
    if (profiler_->begin(2, ignored)) {
        spin_.enqueue(stream_, 0);
        spin_.enqueue(stream_, 0);
        stream_.synchronize();
        (void)profiler_->finish(ignored);
    }
    if (trace_on()) trace_mark(fmt::format("GPU {}: profiler's first round", info_.ordinal));
}

// timing.timer against what this process has. The range profiler is enabled once, by the first
// plan that asks for it (auto does); a failure to enable it is kept, and auto then uses events.
// CUPTI's activity records are loaded and enabled once, by the first plan that asks for them, and
// paused while a plan times otherwise: event figures must not include CUPTI's own work at each
// launch.
void in_process_session::choose_timer(prepare_report& report) {
    const auto t0 = steady_clock::now();
    const std::string& asked = plan_.timing.timer;
    std::string why;
    bool usable = false;
    cupti_timer* c = cupti_timer::loaded();
    if (asked == "cupti") {
        c = cupti_timer::enable(why);
        usable = c != nullptr;
    } else if (timer_wants_profiler(asked)) {
        enable_profiler();
        usable = profiler_ != nullptr;
        if (!usable) why = *profiler_why_;
    }
    timer_ = hone::choose_timer(asked, usable, why);
    cupti_ = timer_ == "cupti" ? c : nullptr;
    if (cupti_)
        cupti_->resume();
    else if (c)
        c->pause();
    report.timer = timer_;
    if (asked == "auto")
        report.timer_note = timer_ == "profiler" ? "timer: auto times with the range profiler"
                                                 : "timer: auto times with CUDA events: " + why;
    report.timer_s = seconds_since(t0);
}

// Spins of a fixed number of cycles, timed, until the clock they show settles
// (clock_settled), for at most clock_warmup_cap_ms of GPU time. Waits first for the pre-spin
// the constructor queued. Returns the seconds it took; `mhz` the clock reached.
double in_process_session::warm_clocks(double& mhz) {
    const auto t0 = steady_clock::now();
    warm_stream_.synchronize();
    const double peak_mhz = static_cast<double>(info_.attrs.clock_khz) / 1000.0;
    const auto cycles = static_cast<uint64_t>((peak_mhz > 0 ? peak_mhz : 1000.0) * clock_chunk_us);
    std::vector<double> seen;
    for (double busy_ms = 0; busy_ms < clock_warmup_cap_ms;) {
        start_.record(stream_);
        spin_.enqueue_cycles(stream_, cycles);
        stop_.record(stream_);
        const double ms = cu::event::elapsed_ms(start_, stop_);
        busy_ms += ms;
        seen.push_back(static_cast<double>(cycles) / (ms * 1000.0));  // cycles a us: MHz
        if (clock_settled(seen, peak_mhz)) break;
    }
    mhz = seen.empty() ? 0 : seen.back();
    idle_since_ = steady_clock::now();
    return seconds_since(t0);
}

// The clock drops while the GPU idles (the tuner waiting for the compiler, an application
// between tuning calls): warm it again before a job that follows a long gap.
void in_process_session::rewarm_if_idle(job_steps& steps) {
    if (idle_since_ && seconds_since(*idle_since_) <= idle_rewarm_s) return;
    double mhz = 0;
    steps.warmup_s += warm_clocks(mhz);
    ++steps.waits;
}

// adaptive: batches of about warmup_batch_target_us until two in a row agree
// (warmup_settled), while the GPU time so far (the first launch included) is under
// timing.warmup_ms. fixed: batches sized from the time per launch to fill timing.warmup_ms.
// e holds the first launch's figures and ends with the last batch's.
void in_process_session::warm_up(kernel_launch& k, warm_up_estimate& e, job_steps& steps) {
    const double cap_ms = plan_.timing.warmup_ms;
    const bool adaptive = plan_.timing.warmup != "fixed";
    std::vector<double> batch_us;
    for (int n = 1; e.busy_ms < cap_ms;) {
        if (adaptive) {
            n = warmup_batch(e.kernel_us);
        } else {
            const double left_us = (cap_ms - e.busy_ms) * 1000.0;
            const double fill =
                e.kernel_us > 0 ? std::ceil(left_us / e.kernel_us) : double{warmup_growth} * n;
            const int most = std::min(warmup_growth * n, max_warmup_batch);
            n = static_cast<int>(std::clamp(fill, 1.0, static_cast<double>(most)));
        }
        const auto t0 = steady_clock::now();
        start_.record(stream_);
        for (int i = 0; i < n; ++i) k.enqueue(stream_);
        stop_.record(stream_);
        e.host_us_per_launch = seconds_since(t0) * 1e6 / n;
        const double ms = cu::event::elapsed_ms(start_, stop_);
        ++steps.waits;
        e.busy_ms += ms;
        e.kernel_us = ms * 1000.0 / n;
        batch_us.push_back(e.kernel_us);
        if (adaptive && warmup_settled(batch_us)) break;
    }
}

// Queues `count` samples, then waits once. Events bracket each sample; with `cupti` the sample is
// the launches' own durations from CUPTI's records instead (the events still give the round's
// span). With events, flushed samples come one a round (see sample()) behind their L2 flush (a read
// of L2's size), which outlasts the queueing of the events and the launch (a 50 MB read: >= 15 us
// on an H100, against ~5 us of queueing). Otherwise the round is queued behind a gate, released
// when all of it is queued, and the samples run back to back after one spin, so that no command is
// submitted while a sample runs; where the driver has no gate, a spin before each sample covers its
// queueing (cover_us: the spin's length, updated from how long queueing took). (A gate before a
// flushed sample cost ~11 us of host time a sample and moved no percentile on an H100.)
// Appends each sample's time per launch (us) to `out`.
round_result in_process_session::take_round(kernel_launch& k, const sample_mode& mode,
                                            std::size_t count, double& cover_us, timer_kind timer,
                                            std::vector<double>& out) {
    if (timer == timer_kind::profiler) return take_profiled_round(k, mode, count, out);
    const bool cupti = timer == timer_kind::cupti;
    while (sample_start_.size() < count) {
        sample_start_.emplace_back();
        sample_stop_.emplace_back();
    }
    const bool flush = mode.kind == sample_kind::single_flush;
    const uint64_t since = cupti ? cupti_->now() : 0;
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
                flush_.enqueue(stream_);
            else if (!gated)  // no gate in this driver
                spin_.enqueue(stream_, static_cast<uint64_t>(cover_us * 1000.0));
            const auto t0 = steady_clock::now();
            sample_start_[i].record(stream_);
            for (int b = 0; b < mode.batch; ++b) k.enqueue(stream_);
            sample_stop_[i].record(stream_);
            queue_s = std::max(queue_s, seconds_since(t0));
        }
    }
    round_result r;
    r.span_ms = cu::event::elapsed_ms(round_, sample_stop_[count - 1]);
    cover_us = std::max(min_cover_us, 2e6 * queue_s);
    if (cupti) {
        const auto d = cupti_->take(since, count * static_cast<std::size_t>(mode.batch));
        if (!d) {
            r.timer_failed = true;
            r.why = "CUPTI's records of the round did not all come";
            return r;
        }
        const std::vector<double> s = samples_from_durations(*d, mode.batch);
        out.insert(out.end(), s.begin(), s.end());
        return r;
    }
    for (std::size_t i = 0; i < count; ++i)
        out.push_back(cu::event::elapsed_ms(sample_start_[i], sample_stop_[i]) * 1000.0 /
                      mode.batch);
    return r;
}

// A round timed by the range profiler: every launch from the round's start to its end is a range
// of its own, so the round holds no spin and no gate (each range is timed from its own start:
// the host's queueing between launches does not count). A sample is its kernel launches' mean
// gpu__time_duration. A flushed sample starts with the read flush and the driver's L2 reset
// (l2_flush::enqueue_driver_reset), whose ranges kernel_durations skips. Another kernel in the
// context (an application's, in a tuner embedded in it) would shift the ranges: a count that
// does not fit fails the round. Events still give the round's span.
round_result in_process_session::take_profiled_round(kernel_launch& k, const sample_mode& mode,
                                                     std::size_t count, std::vector<double>& out) {
    while (sample_stop_.size() < count) {
        sample_start_.emplace_back();
        sample_stop_.emplace_back();
    }
    const bool flush = mode.kind == sample_kind::single_flush;
    const auto batch = static_cast<std::size_t>(mode.batch);
    round_result r;
    if (!profiler_->begin(count * (batch + (flush ? 2 : 0)), r.why)) {
        r.timer_failed = true;
        return r;
    }
    round_.record(stream_);
    for (std::size_t i = 0; i < count; ++i) {
        if (flush) {
            flush_.enqueue(stream_);
            l2_flush::enqueue_driver_reset();
        }
        for (std::size_t b = 0; b < batch; ++b) k.enqueue(stream_);
    }
    sample_stop_[count - 1].record(stream_);
    r.span_ms = cu::event::elapsed_ms(round_, sample_stop_[count - 1]);  // waits for the round
    const auto ranges = profiler_->finish(r.why);
    const auto kernel_ns =
        ranges ? kernel_durations(*ranges, count, batch, flush ? 2 : 0, r.why) : std::nullopt;
    if (!kernel_ns) {
        r.timer_failed = true;
        return r;
    }
    const std::vector<double> s = samples_from_durations(*kernel_ns, mode.batch);
    out.insert(out.end(), s.begin(), s.end());
    return r;
}

// Rounds of samples until the stopping rule is met. With events, flushed samples are taken one
// a round: queued behind one another, every one but a round's last read ~0.4 us long on an
// H100 whatever the flush's size or method, 10% of a 4 us kernel. CUPTI's kernel
// timestamps and the profiler's ranges do not see the queueing, so with them flushed rounds grow
// as the others do: min_samples, then what the stopping rule predicts it needs (next_round).
void in_process_session::sample(kernel_launch& k, const sample_mode& mode,
                                const warm_up_estimate& warm, timer_kind timer, job_result& r) {
    const timing_spec& t = plan_.timing;
    const auto t0 = steady_clock::now();
    double cover_us = std::max(min_cover_us, 2.0 * mode.batch * warm.host_us_per_launch);
    const ci_kind kind = t.ci == "median" ? ci_kind::median
                         : t.ci == "mean" ? ci_kind::mean
                                          : ci_kind::either;
    const auto min_n = static_cast<std::size_t>(t.min_samples);
    const auto max_n = static_cast<std::size_t>(t.max_samples);
    const relative_ci_criterion criterion(t.rel_precision, min_n, max_n, t.max_time_s, kind);
    const bool one_a_round = mode.kind == sample_kind::single_flush && timer == timer_kind::events;
    r.timer = timer == timer_kind::profiler ? "profiler"
              : timer == timer_kind::cupti  ? "cupti"
                                            : "events";
    r.samples_us.clear();
    double span_ms = warm.busy_ms;  // the first launch and the warm-up's batches
    bool retried = false;
    for (;;) {
        // One sample a round needs no prediction (it would summarise the samples once more a
        // round, beside the stopping rule's own summary).
        std::size_t count = next_round(r.samples_us.size(), min_n, max_n,
                                       one_a_round ? 0 : criterion.wanted(r.samples_us));
        if (one_a_round) count = std::min<std::size_t>(count, 1);
        if (count == 0) break;
        const round_result round = take_round(k, mode, count, cover_us, timer, r.samples_us);
        span_ms += round.span_ms;
        ++r.steps.waits;
        // A round whose records or ranges did not all come is taken again, once; a second
        // failure and this configuration starts over with events.
        if (round.timer_failed && !retried) {
            retried = true;
            continue;
        }
        if (round.timer_failed) {
            r.gpu_span_s += (span_ms - warm.busy_ms) / 1000.0;
            sample(k, mode, warm, timer_kind::events, r);
            r.message += fmt::format("{}timed with events: {}", r.message.empty() ? "" : "; ",
                                     round.why.empty() ? "the timer failed twice" : round.why);
            return;
        }
        if (criterion.done(r.samples_us, seconds_since(t0))) break;
    }
    double busy_ms = warm.busy_ms;
    for (double us : r.samples_us) busy_ms += us * mode.batch / 1000.0;
    r.time_us = summarize(r.samples_us);
    r.st = criterion.converged(r.samples_us) ? status::ok : status::not_converged;
    r.gpu_busy_s = busy_ms / 1000.0;
    r.gpu_span_s += span_ms / 1000.0;
}

void in_process_session::measure(kernel_launch& k, const std::string& function,
                                 warm_up_estimate warm, job_result& r) {
    auto step = steady_clock::now();
    warm_up(k, warm, r.steps);
    r.steps.warmup_s += seconds_since(step);
    step = steady_clock::now();
    const sample_mode mode = choose_sample_mode(plan_.timing, warm.kernel_us);
    r.sample_mode = mode.name();
    const timer_kind timer = timer_ == "profiler" ? timer_kind::profiler
                             : timer_ == "cupti"  ? timer_kind::cupti
                                                  : timer_kind::events;
    if (timer == timer_kind::cupti) cupti_->watch(function);
    sample(k, mode, warm, timer, r);
    r.steps.samples_s = seconds_since(step);
}

}  // namespace hone
