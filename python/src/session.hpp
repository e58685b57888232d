// The GPU worker and the compile pool that hone.tune keeps between calls in one Python process,
// so that a script or notebook that tunes again starts no worker, CUDA context or compile
// workers. Fault isolation stays the worker's: a kernel that faults costs one configuration and
// its worker is replaced, in this call or a later one.
#pragma once
#include <nanobind/nanobind.h>

#include <cstdint>
#include <memory>
#include <string>

#include "compile/compile_pool.hpp"
#include "driver/gpu.hpp"

namespace hone::py {

// What one call borrows: the kept worker session and pool (null where they are lent already:
// the call then starts its own, as without keeping). give_back() returns them for the next
// call; a lease that ends without it drops them (the call failed: their state is unknown).
class kept_lease {
  public:
    kept_lease() = default;
    kept_lease(const kept_lease&) = delete;
    kept_lease& operator=(const kept_lease&) = delete;
    ~kept_lease();
    void give_back();

    std::shared_ptr<gpu_session> gpu;
    std::shared_ptr<compile_pool> pool;
    double start_s = 0;           // starting what was not kept yet (the worker: CUDA init)
    bool gpu_reused = false;      // the worker was kept from an earlier call
    bool pool_reused = false;     // so was the pool
    uint64_t workers_before = 0;  // the pool's workers_started when lent

  private:
    friend void lend(kept_lease&, int, int, const std::string&, bool, double);
    int device_ = -1;
    bool active_ = false;
};

// Lends the kept worker for `device` and a pool of `jobs` compile workers (0: one per core)
// over the compile cache in cache_dir ("": the default folder; use_cache false: none) with
// this compile timeout, starting them where none are kept. The caller is the main thread: a
// worker dies with the thread that started it.
void lend(kept_lease& out, int device, int jobs, const std::string& cache_dir, bool use_cache,
          double compile_timeout_s);

void bind_session(nanobind::module_& m);

}  // namespace hone::py
