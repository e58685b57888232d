// The public facade: tune a spec (spec -> space -> compile -> GPU -> store), or check it
// (compile only, no GPU needed). The CLI is a thin layer over these two calls.
#pragma once
#include <csignal>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hone/compile.hpp"
#include "hone/gpu.hpp"
#include "hone/record.hpp"
#include "hone/shard.hpp"
#include "hone/space.hpp"
#include "hone/spec.hpp"

namespace hone {

struct pipeline_state {
    std::size_t done = 0;        // evaluated this run
    std::size_t total = 0;       // to evaluate this run (after resume skips and caps)
    std::size_t failures = 0;    // evaluated with a non-timed status
    std::size_t measuring = 0;       // handed to the GPU side, not back yet
    std::size_t compiled_ahead = 0;  // compiled, waiting for the GPU
    std::size_t compiling = 0;       // in the compile pool
    std::optional<eval_record> best;
    double elapsed_s = 0;
    double eta_s = -1;
};

struct tune_options {
    int device = 0;
    bool isolated = true;       // GPU work in a supervised worker process
    bool fresh = false;         // forget stored results of this identity first
    bool retry_failed = false;  // re-run configurations that faulted or timed out
    int jobs = 0;               // compile worker processes; 0 = default_jobs()
    std::string cache_dir;      // "" = compile_cache::default_dir()
    bool use_cache = true;
    std::string output;         // "" = spec.output
    std::string only;           // a config key: evaluate just this configuration
    int64_t max_evals = -1;     // -1 = spec.search.max_evals
    double time_limit_s = -1;   // -1 = spec.search.time_limit_s
    const volatile std::sig_atomic_t* stop = nullptr;  // set by a signal handler: stop cleanly
    std::function<void(const pipeline_state&)> on_progress;   // after each configuration
    std::function<void(const eval_record&)> on_result;
    // Embedding: use this session instead of creating one (e.g. the application's own).
    std::shared_ptr<gpu_session> session;
    // GPU ordinals to measure on (empty = `device` alone), and sessions to measure on instead of
    // creating them (an MPI run's: local and other ranks' GPUs).
    std::vector<int> devices;
    std::vector<std::shared_ptr<gpu_session>> sessions;
    // This process's part of the run (hone/shard.hpp): the configurations whose key it owns.
    // A sharded run's identity names the device model, not one card (device_uuid ""), so that
    // the shards of one run, measured on several cards, merge into one run.
    shard_spec shard;
};

// Where the run's wall time went, for the benchmark and the closing summary.
struct time_split {
    double wall_s = 0;
    double setup_s = 0;          // spec, worker start, inputs, reference; of which:
    double session_start_s = 0;      // starting the GPU session (worker, CUDA init)
    double reference_compile_s = 0;  // compiling the verify reference
    double prepare_s = 0;            // gpu_session::prepare, as the tuner waited for it
    prepare_report prepare;          // and inside it, as the GPU side timed it
    double compile_wait_s = 0;   // the GPU side waiting for the compiler
    double compile_cpu_s = 0;    // sum of compile times (across workers)
    double gpu_s = 0;            // while the GPU side had jobs: load, verify, warm-up, samples,
                                 // hand-over (results are stored and compiles handed out meanwhile)
    double worker_s = 0;         // of which the GPU session's own time on its jobs
    job_steps gpu_steps;         // and its parts
    double gpu_busy_s = 0;       // the kernel's GPU time in warm-ups and samples
    double gpu_span_s = 0;       // the GPU time warm-ups and samples occupied (with flushes, spins)
    double store_s = 0;          // writing results (while the next job runs, but for the last)
};

struct tune_result {
    run_identity identity;
    std::string output;                // the database
    std::vector<eval_record> records;  // this identity's records: resumed and new
    std::size_t resumed = 0;           // skipped because already stored
    std::size_t evaluated = 0;
    std::size_t compiled = 0, cache_hits = 0;
    bool interrupted = false;
    // Set when this identity had nothing stored but an older run of the same config, problem
    // and device had (an edited header, other options or tools): describe_change(), e.g.
    // "source changed since the stored results: re-measuring".
    std::string remeasure_reason;
    time_split time;
    device_info device;
};

tune_result tune(const spec& s, const tune_options& opt);

struct check_options {
    std::string arch;          // "" = the local GPU's
    int sample = 0;            // 0 = every configuration
    uint64_t seed = 1;
    int jobs = 0;
    std::string cache_dir;
    bool use_cache = false;    // check compiles for real by default
    std::function<void(const config&, const compile_result&)> on_compiled;
};

struct check_result {
    uint64_t total = 0, valid = 0, compiled = 0, failed = 0;
    bool valid_exact = true;  // false: `valid` is an estimate (a space too large to list)
    std::string arch;
    std::vector<std::pair<std::string, compile_result>> results;  // key -> result
    double wall_s = 0;
};

check_result check(const spec& s, const check_options& opt);

}  // namespace hone
