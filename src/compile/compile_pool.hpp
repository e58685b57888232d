// Compiles ahead of the GPU in a pool of worker processes (NVRTC does not scale across threads
// of one process: ../shared/FACTS.md). Uses the same worker_process supervision as the GPU
// worker. Deduplicates requests with the same cache key and consults the compile cache first.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compile/compile.hpp"
#include "compile/compile_cache.hpp"
#include "compile/remote_compiler.hpp"

namespace hone {

struct compile_pool_counts {
    uint64_t compiled = 0;      // compiles run (in a worker or in this process)
    uint64_t cache_hits = 0;    // submissions answered by the cache
    uint64_t deduplicated = 0;  // submissions that shared an in-flight compile of the same key
    uint64_t workers_lost = 0;  // workers that died or were killed at the hard deadline
    uint64_t remote = 0;        // compiles run by remote compilers (add_remote)
    uint64_t remotes_lost = 0;  // remote compilers that failed (their requests compiled here)
    uint64_t workers_started =
        0;                    // worker processes spawned (a pool kept across runs: all of them)
    uint64_t ahead = 0;       // compiles run ahead of any submission (compile_ahead)
    uint64_t ahead_used = 0;  // submissions that found one of them done or under way
};

class compile_pool {
  public:
    // jobs = 0: compile in this process, synchronously inside submit(). cache may be null.
    // compile_timeout_s > 0: a compile past it is cancelled (compile_result::timed_out);
    // a worker that crashes yields a failed result with the signal in the log, and is replaced.
    compile_pool(int jobs, compile_cache* cache, double compile_timeout_s);
    ~compile_pool();
    compile_pool(const compile_pool&) = delete;
    compile_pool& operator=(const compile_pool&) = delete;

    // Requests the pool's own workers cannot take at once go to r as it has room (its results
    // go into the cache here, as the workers' do).
    void add_remote(std::shared_ptr<remote_compiler> r);

    uint64_t submit(compile_request req);  // returns a ticket
    // Waits up to timeout_s (< 0: forever) for one finished compile; nullopt on timeout or when
    // nothing is in flight.
    std::optional<std::pair<uint64_t, compile_result>> wait(double timeout_s);
    std::size_t in_flight() const;  // submitted, not yet returned by wait()
    // Workers free for compiles ahead: idle ones, less `spare` kept for submissions, at most
    // half the jobs ahead at once, while no submission waits for a worker and a cache keeps
    // what they compile (0 otherwise).
    std::size_t ahead_room(std::size_t spare);
    // Compiles req into the cache on a free worker before anyone submits it: a configuration
    // the search will probably ask for. It counts the workers as the last ahead_room() left
    // them, without collecting again. It has no ticket (wait() never returns it); a later
    // submit() of the same key shares it or finds it cached. False when the cache holds it,
    // it is under way, or no worker is free.
    bool compile_ahead(compile_request req, std::size_t spare);
    // Forgets every submission not yet returned by wait(), so that a pool kept for another run
    // (tune_options::pool) starts that run empty: queued compiles are dropped, and those under
    // way finish into the cache without a ticket. The workers stay.
    void abandon();
    int jobs() const;  // compiles at once: the workers and the remote compilers' capacity
    const compile_pool_counts& counts() const;

    struct impl;

  private:
    std::unique_ptr<impl> p_;
};

// Default pool size: the number of online cores.
int default_jobs();

}  // namespace hone
