// What measuring one configuration on a GPU gave: status, function attributes, timing and where
// the time went. Results carry it (eval_record::gpu).
#pragma once
#include <string>
#include <vector>

#include "hone/status.hpp"
#include "hone/summary.hpp"

namespace hone {

// Where a job's time went inside the GPU session, as its host saw it (seconds).
struct job_steps {
    double load_s = 0;     // module load, function attributes, occupancy
    double verify_s = 0;   // output reset, the first launch and its check (one wait)
    double warmup_s = 0;   // warm-up batches after the first launch (and the clock's, after
                           // the GPU idled)
    double samples_s = 0;  // the rounds of samples
    int waits = 0;         // times the host waited for the GPU
    job_steps& operator+=(const job_steps& o) {
        load_s += o.load_s;
        verify_s += o.verify_s;
        warmup_s += o.warmup_s;
        samples_s += o.samples_s;
        waits += o.waits;
        return *this;
    }
};

// The GPU's state while a job was measured, read from NVML after its samples (read-only
// queries; -1 where NVML is absent or does not report it). Explains a disagreement between
// runs or cards: a lower SM clock, a hotter card, a power cap reached.
struct gpu_telemetry {
    double sm_clock_mhz = -1;
    double temperature_c = -1;
    double power_w = -1;
};

struct job_result {
    status st = status::ok;
    std::string message;  // CUDA error name + text, verify summary, or watchdog note
    std::string output;   // the kernel's printf / trap output captured (isolated sessions)
    // Function attributes and occupancy (filled whenever the module loaded).
    int num_regs = -1, local_bytes = -1, static_shared_bytes = -1, max_threads_per_block = -1;
    int active_blocks_per_sm = -1;
    double occupancy = 0;  // active warps per SM / max warps per SM
    // Timing (has_timing(st)).
    summary time_us;
    std::vector<double> samples_us;
    std::string sample_mode;  // "single+flush", "single+spin", "batch:K"
    std::string timer;        // what timed the samples: "profiler", "cupti" or "events"
    double gpu_busy_s = 0;    // GPU time of the kernel in warm-up and samples
    // GPU time the warm-up and samples occupied: gpu_busy_s plus what the sample method queues
    // between samples (L2 flushes, spins). Not stored per result; summed per run.
    double gpu_span_s = 0;
    double wall_s = 0;  // wall time of the job inside the session
    job_steps steps;    // and its parts
    gpu_telemetry telemetry;
};

}  // namespace hone
