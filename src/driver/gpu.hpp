// The GPU-work boundary. Everything that touches CUDA (context, modules, buffers, reference
// outputs, launches, timing, verification) happens behind gpu_session, whose inputs and outputs
// are plain data so that they can cross a pipe to a supervised worker process.
#pragma once
#include <array>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "hone/device_info.hpp"
#include "hone/job_result.hpp"
#include "hone/spec.hpp"

namespace hone {

// One buffer of the run, with its size resolved.
struct buffer_plan {
    std::string name;
    elem_type type = elem_type::f32;
    uint64_t count = 0;
    buffer_role role = buffer_role::in;
    init_spec init;
    bool verify = false;        // compared against the reference after a verified launch
    bool need_device = true;    // some configuration uses it in device memory
    bool need_managed = false;  // some configuration uses it in managed memory
    // A module variable (__constant__ or __device__) this buffer fills before every module's
    // launches, the reference's included ("" = none).
    std::string symbol;
    uint64_t bytes() const { return count * elem_size(type); }
};

struct kernel_arg {
    int buffer = -1;  // index into run_plan::buffers, or -1 for a scalar
    elem_type type = elem_type::i32;
    uint64_t bits = 0;  // scalar, little-endian, elem_size(type) bytes used
};

struct launch_desc {
    std::vector<uint8_t> cubin;
    std::string function;  // lowered (mangled) name or extern "C" name
    std::array<uint32_t, 3> grid{1, 1, 1};
    std::array<uint32_t, 3> block{1, 1, 1};
    uint32_t shared_bytes = 0;
    bool cooperative = false;  // cuLaunchCooperativeKernel: every block resident at once
    std::vector<kernel_arg> args;
    memory_kind memory = memory_kind::device;  // which buffer set the pointers come from
};

struct run_plan {
    std::vector<buffer_plan> buffers;
    std::optional<launch_desc> reference;  // computed once; absent = no verification
    timing_spec timing;
    double rtol = 1e-5, atol = 1e-6;
};

struct job {
    std::string key;  // configuration key, for messages
    launch_desc launch;
    bool verify = true;
    double deadline_s = 10.0;  // the watchdog's limit for this job (isolated sessions)
};

// What prepare() did and found; the times are the worker's own.
struct prepare_report {
    double reference_us = 0;  // one launch of the verify reference (0: no reference)
    double inputs_s = 0;      // generating the inputs (on the GPU, or host images of files)
    double upload_s = 0;      // allocating, uploading and copying them into every set
    double reference_s = 0;   // loading, running and keeping the reference
    std::string timer;        // what will time the samples: "profiler", "cupti" or "events"
    std::string timer_note;   // why timing.timer auto fell back to events ("" when it did not)
    double timer_s = 0;       // loading and enabling CUPTI's profiler or activity records
    double clock_s = 0;       // bringing the GPU to its working clock (warm_up.hpp)
    double clock_mhz = 0;     // the SM clock it reached
};

class gpu_session {
  public:
    virtual ~gpu_session() = default;
    virtual const device_info& device() const = 0;
    // Allocates buffers (refusing with env_error if they exceed free memory), fills inputs
    // once, runs the reference and keeps its outputs. May be called again after a restart.
    virtual prepare_report prepare(const run_plan& plan) = 0;
    virtual job_result run(const job& j) = 0;
    // run() in two halves, so that the caller can work while the GPU side measures: submit()
    // hands a job over, collect() waits for the oldest one's result. Up to max_in_flight() jobs
    // may be handed over before collecting (it may change between calls). A session that works
    // in the caller's thread takes one at a time and runs it in collect().
    virtual std::size_t max_in_flight() const { return 1; }
    virtual void submit(const job& j) {
        if (submitted_) throw std::logic_error("gpu_session::submit with a job in flight");
        submitted_ = j;
    }
    virtual job_result collect() {
        if (!submitted_) throw std::logic_error("gpu_session::collect without submit");
        const job j = std::move(*submitted_);
        submitted_.reset();
        return run(j);
    }
    // True when collect() would not wait for the GPU (its oldest job is done, or past its
    // deadline), else false after up to timeout_s: a caller that drives the session from a
    // thread of its own can then hand over a job that came meanwhile instead of sitting in
    // collect() with room left. A session that cannot tell answers true at once.
    virtual bool wait_ready(double /*timeout_s*/) { return true; }
    // Ends another thread's wait_ready early, or the next one's at once, with false: a job came
    // for that thread to hand over. Safe from any thread. One that cannot be woken waits its span.
    virtual void wake() {}
    // The span such a thread waits before it looks for a new job again.
    static constexpr double ready_poll_s = 0.002;
    // True when a faulting or hanging kernel costs one job, not the session.
    virtual bool isolated() const = 0;
    // Setup that can run while the caller prepares its side (a worker calls it after answering
    // hello, before it reads the plan): it only saves prepare() time, and its failures are
    // prepare()'s to report.
    virtual void warm_start() {}
    // Frees what the last plan holds on the GPU (a resident worker between commands); the next
    // prepare() starts afresh.
    virtual void release() {}

  private:
    std::optional<job> submitted_;
};

// CUDA driver in this process: the application's context is used (primary context of the
// device). Not fault-isolated: a sticky error ends the session.
// profiler_ahead: warm_start() enables CUPTI's range profiler (for a worker whose plans will
// time with it).
// reported_ordinal: see in_process_session (-1: ordinal).
std::unique_ptr<gpu_session> make_in_process_session(int ordinal, bool profiler_ahead = false,
                                                     int reported_ordinal = -1);
// A supervised worker process runs the in-process session; watchdog, restart and replay of
// prepare() are handled here (see docs/worker-protocol.md).
// profiler_ahead: the worker enables CUPTI's range profiler (~0.2 s) while the caller prepares
// (timer_wants_profiler of the plans it will get); a plan that times otherwise pays nothing.
std::unique_ptr<gpu_session> make_worker_session(int ordinal, bool profiler_ahead = true);
// Workers for several GPUs, started at once (CUDA's start, ~1 s on a 4-GPU host, overlaps):
// out[i] for ordinals[i], or nullptr with errors[i] why it did not start. `meanwhile` runs once
// the processes are spawned, before their starts are awaited (other start-up work overlaps).
std::vector<std::unique_ptr<gpu_session>> make_worker_sessions(
    const std::vector<int>& ordinals, std::vector<std::exception_ptr>& errors,
    bool profiler_ahead = true, const std::function<void()>& meanwhile = {});
// Whether timing.timer `timer` times with the range profiler where it can (auto does).
inline bool timer_wants_profiler(const std::string& timer) {
    return timer == "auto" || timer == "profiler";
}

}  // namespace hone
