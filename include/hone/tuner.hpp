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

#include "hone/compile_result.hpp"
#include "hone/config.hpp"
#include "hone/device_info.hpp"
#include "hone/final_word.hpp"
#include "hone/record.hpp"
#include "hone/shard.hpp"
#include "hone/spec.hpp"

namespace hone {

// The GPU side of a run and compilers beyond this process (src/driver/gpu.hpp,
// src/compile/remote_compiler.hpp): libhone's interfaces, named here only.
class gpu_session;
class remote_compiler;
class compile_pool;
class gpu_share;
struct tune_diagnostics;

struct pipeline_state {
    std::size_t done = 0;            // evaluated this run
    std::size_t total = 0;           // to evaluate this run (after resume skips and caps)
    std::size_t failures = 0;        // evaluated with a non-timed status
    std::size_t measuring = 0;       // handed to the GPU side, not back yet
    std::size_t compiled_ahead = 0;  // compiled, waiting for the GPU
    std::size_t compiling = 0;       // in the compile pool
    std::optional<eval_record> best;
    double elapsed_s = 0;
    double eta_s = -1;
};

struct tune_options {
    int device = 0;
    // Several GPUs of one model in one run (docs/multi-gpu.md): ordinals, each measured by its
    // own session; empty = `device` alone. The first is the final word's reference GPU.
    std::vector<int> devices;
    bool isolated = true;       // GPU work in a supervised worker process
    bool fresh = false;         // forget stored results of this identity first
    bool retry_failed = false;  // re-run configurations that faulted or timed out
    int jobs = 0;               // compile worker processes; 0 = default_jobs()
    std::string cache_dir;      // "" = compile_cache::default_dir()
    bool use_cache = true;
    // Idle compile workers, two left free, compile what the strategy expects to propose next
    // (into the cache); off also with HONE_COMPILE_AHEAD=0.
    bool compile_ahead = true;
    std::string output;        // "" = spec.output
    std::string only;          // a config key: evaluate just this configuration
    int64_t max_evals = -1;    // -1 = spec.search.max_evals
    double time_limit_s = -1;  // -1 = spec.search.time_limit_s
    const volatile std::sig_atomic_t* stop = nullptr;  // set by a signal handler: stop cleanly
    std::function<void(const pipeline_state&)> on_progress;  // after each configuration
    std::function<void(const eval_record&)> on_result;
    // Use this session instead of creating one. gpu_session is libhone's own interface (not
    // installed): `hone tune` sets it (its GPUs, the MPI ranks' GPUs), and tests; an application
    // leaves it empty and picks `device`, `devices` and `isolated`.
    std::shared_ptr<gpu_session> session;
    // When non-empty, the run measures on exactly these sessions (session alone means a list of
    // one); the first is the reference GPU: local workers, or another process's GPU.
    std::vector<std::shared_ptr<gpu_session>> sessions;
    // Compilers beyond this process's pool (other MPI ranks' pools): they take what the local
    // compile workers cannot take at once.
    std::vector<std::shared_ptr<remote_compiler>> compilers;
    // Use this compile pool (libhone's own interface, src/compile/compile_pool.hpp) instead of
    // starting one: a process that tunes again keeps its compile workers (the Python package
    // does). The pool's own jobs and cache then stand for `jobs`, `cache_dir` and `use_cache`,
    // and `compilers` are not added to it. The run leaves it empty (compile_pool::abandon).
    std::shared_ptr<compile_pool> pool;
    // One line for the user: a GPU dropped from the run, a GPU that failed to start.
    std::function<void(const std::string&)> on_message;
    // Where the run's time went, filled in when set: hone's own summary and benchmarks
    // (src/tune/diagnostics.hpp); an application has no use for it.
    tune_diagnostics* diagnostics = nullptr;
    // GPUs of the same command that have run out of work join this run through it while it
    // searches (src/tune/gpu_share.hpp: `hone tune` over several sizes); an application leaves
    // it null.
    gpu_share* share = nullptr;
    // This process's part of the run (hone/shard.hpp): the configurations whose key it owns.
    // A sharded run's identity names the device model, not one card (device_uuid ""), so that
    // the shards of one run, measured on several cards, merge into one run.
    shard_spec shard;
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
    // Why the run ended before its budget (or, without one, before the space's end) when it
    // was not interrupted: the budget spent by stored results, every configuration evaluated,
    // the time limit, or a strategy with nothing left to propose. Empty otherwise.
    std::string stop_reason;
    device_info device;                // the reference GPU (the first of several)
    std::vector<device_info> devices;  // every GPU of the run, reference first
    std::vector<std::string> dropped;  // GPUs dropped during the run, with why
    // Several GPUs: the top configurations measured again on the reference GPU. Absent with one
    // GPU, or when the run was interrupted.
    std::optional<hone::final_word> final;
    std::map<int, std::size_t> measured_by;  // results of this run per GPU ordinal
};

tune_result tune(const spec& s, const tune_options& opt);

struct check_options {
    std::string arch;  // "" = the local GPU's
    int sample = 0;    // 0 = every configuration
    uint64_t seed = 1;
    int jobs = 0;
    std::string cache_dir;
    bool use_cache = false;  // check compiles for real by default
    // Each compiled configuration; over_limits: why it could not launch on the target (more
    // threads, shared memory or registers a block than it has), "" where it could;
    // launch_error: why its args do not fit the kernel's parameters, "" where they do.
    std::function<void(const config&, const compile_result&, const std::string& over_limits,
                       const std::string& launch_error)>
        on_compiled;
    std::vector<std::shared_ptr<remote_compiler>> compilers;  // as tune_options::compilers
};

struct check_result {
    uint64_t total = 0, valid = 0, compiled = 0, failed = 0;
    uint64_t remote = 0;      // of `compiled`, those compiled by other MPI ranks
    bool valid_exact = true;  // false: `valid` is an estimate (a space too large to list)
    // The valid count as text: exact digits of any size, or "about ... (estimated)". `valid`
    // saturates at UINT64_MAX.
    std::string valid_text;
    std::string arch;
    std::vector<std::pair<std::string, compile_result>> results;  // key -> result
    // For each result: why it could not launch on the target ("" where it could); a run would
    // record it as device_limits without launching it.
    std::vector<std::string> over_limits;
    // For each result: why its args do not fit the kernel's parameters as the CUBIN lists them
    // ("" where they do, or where the CUBIN does not say); a run would record it as
    // launch_error. `hone check` fails (exit 1) on any.
    std::vector<std::string> launch_errors;
    // Why verify's reference does not compile ("FILE:LINE:COL: ..."); empty when it does or
    // there is none. A run could verify nothing: `hone check` fails (exit 1).
    std::string reference_error;
    double wall_s = 0;
};

check_result check(const spec& s, const check_options& opt);

}  // namespace hone
