// The in-process GPU session: buffers, reference outputs and measurements in this process's
// primary context. Not fault-isolated: after a sticky error it refuses further work.
#pragma once
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.hpp"
#include "driver/gpu.hpp"
#include "driver/resources.hpp"
#include "measure/cupti_timer.hpp"
#include "measure/gpu_compare.hpp"
#include "measure/launch.hpp"
#include "measure/profiler_timer.hpp"
#include "measure/sample_mode.hpp"

namespace hone {

// One plan buffer: its copies in each memory set it is used in.
struct session_buffer {
    buffer_plan plan;
    cu::device_buffer pristine;  // out, inout: the contents each job starts from
    cu::device_buffer device, managed;
    cu::device_buffer reference_dev;  // verified buffers: the reference launch's output
    std::vector<uint8_t> reference;   // the same on the host, fetched at the first mismatch
    const cu::device_buffer& in_set(memory_kind k) const;
};

// What the first launch and the warm-up measured.
struct warm_up_estimate {
    double kernel_us = 0;           // GPU time per launch, back to back
    double host_us_per_launch = 0;  // host time to queue one launch
    double busy_ms = 0;             // GPU time the first launch and the warm-up took
};

// What one round of samples gave.
struct round_result {
    double span_ms = 0;         // GPU time from the round's first flush or spin to its end
    bool timer_failed = false;  // CUPTI did not deliver every launch's record or range
    std::string why;            // and why, where it says
};

enum class timer_kind { events, cupti, profiler };

class in_process_session final : public gpu_session {
  public:
    // reported_ordinal: the GPU's ordinal as the caller numbers it, where this process sees
    // fewer GPUs (a worker narrowed to one; -1: ordinal).
    explicit in_process_session(int ordinal, bool profiler_ahead = false,
                                int reported_ordinal = -1);
    const device_info& device() const override { return info_; }
    prepare_report prepare(const run_plan& plan) override;
    job_result run(const job& j) override;
    bool isolated() const override { return false; }
    void warm_start() override;  // enables the range profiler where asked to ahead
    void release() override;

  private:
    // Setup (session.cpp).
    void allocate_and_fill(prepare_report& report);
    void upload_image(const buffer_plan& p, const cu::device_buffer& dst, cu::pinned_buffer& stage,
                      prepare_report& report);
    double compute_reference();
    // One job (session_run.cpp).
    void reset_outputs(memory_kind k);
    std::vector<CUdeviceptr> pointers(memory_kind k) const;
    // Queues the copy of each buffer that names a module variable into m's variable, ahead of
    // the launches; a variable that is missing, or smaller than its buffer, is a cuda_error
    // naming both.
    void fill_symbols(const cu::module& m, memory_kind k);
    void queue_checks(memory_kind k);
    std::string finish_checks(memory_kind k);
    void run_checked(const job& j, job_result& r);
    // Timing (session_timing.cpp).
    void choose_timer(prepare_report& report);
    void enable_profiler();  // once; a failure is kept in profiler_why_
    double warm_clocks(double& mhz);
    void rewarm_if_idle(job_steps& steps);
    void warm_up(kernel_launch& k, warm_up_estimate& e, job_steps& steps);
    round_result take_round(kernel_launch& k, const sample_mode& mode, std::size_t count,
                            double& cover_us, timer_kind timer, std::vector<double>& out);
    round_result take_profiled_round(kernel_launch& k, const sample_mode& mode, std::size_t count,
                                     std::vector<double>& out);
    void sample(kernel_launch& k, const sample_mode& mode, const warm_up_estimate& warm,
                timer_kind timer, job_result& r);
    void measure(kernel_launch& k, const std::string& function, warm_up_estimate warm,
                 job_result& r);

    int ordinal_;  // in this process, which may differ from info_.ordinal
    device_info info_;
    cu::primary_context ctx_;
    cu::module helpers_;  // hone's own kernels (kernels/helpers.cu)
    cu::stream stream_;
    cu::stream warm_stream_{true};  // the clock's pre-spin, beside the setup's copies
    cu::event start_, stop_, round_;
    std::deque<cu::event> sample_start_, sample_stop_;  // one pair per sample of a round
    cu::stream_gate gate_;                              // holds a round until it is all queued
    spin_kernel spin_;
    run_plan plan_;
    std::vector<session_buffer> buffers_;
    l2_flush flush_;
    gpu_compare compare_;
    cu::pinned_buffer staging_;     // outputs come back through it when the GPU finds a mismatch
    std::string timer_ = "events";  // what times samples: "profiler", "cupti" or "events"
    cupti_timer* cupti_ = nullptr;  // enabled while timer_ is "cupti"
    std::unique_ptr<profiler_timer> profiler_;  // enabled by the first plan that asks for it
    std::optional<std::string> profiler_why_;   // why it could not be, once tried
    bool profiler_ahead_ = false;               // warm_start() enables it
    std::optional<steady_clock::time_point> idle_since_;  // the GPU's last work ended here
    std::string fault_;  // the sticky error that ended this session; empty while usable
};

}  // namespace hone
