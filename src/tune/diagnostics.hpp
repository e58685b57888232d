// Where a tuning run's time went: for `hone tune`'s closing summary and JSON, and the
// benchmarks. Not part of the installed API (tune_options::diagnostics points here).
#pragma once
#include "driver/gpu.hpp"
#include "hone/tuner.hpp"

namespace hone {

// Where the run's wall time went, for the benchmark and the closing summary.
struct time_split {
    double wall_s = 0;
    double setup_s = 0;              // spec, worker start, inputs, reference; of which:
    double session_start_s = 0;      // starting the GPU session (worker, CUDA init)
    double reference_compile_s = 0;  // compiling the verify reference
    double prepare_s = 0;            // gpu_session::prepare, as the tuner waited for it
    prepare_report prepare;          // and inside it, as the GPU side timed it
    double compile_wait_s = 0;       // the GPU side waiting for the compiler
    double compile_cpu_s = 0;        // sum of compile times (across workers)
    double gpu_s = 0;                // while the GPU side had jobs: load, verify, warm-up, samples,
                       // hand-over (results are stored and compiles handed out meanwhile)
    double worker_s = 0;      // of which the GPU session's own time on its jobs
    job_steps gpu_steps;      // and its parts
    double gpu_busy_s = 0;    // the kernel's GPU time in warm-ups and samples
    double gpu_span_s = 0;    // the GPU time warm-ups and samples occupied (with flushes, spins)
    double store_s = 0;       // writing results (while the next job runs, but for the last)
    double final_word_s = 0;  // several GPUs: the top configurations measured again on one
    uint64_t compiled_ahead = 0;  // compiles run ahead of the strategy's proposals
    uint64_t ahead_used = 0;      // of those, the ones it then proposed
};

struct tune_diagnostics {
    time_split time;
};

}  // namespace hone
