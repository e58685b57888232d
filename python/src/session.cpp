// hone.tune's kept worker and compile pool (session.hpp), and hone.close / hone.session_info.
#include "session.hpp"

#include <unistd.h>

#include <map>
#include <mutex>
#include <set>

#include "common/clock.hpp"
#include "compile/compile_cache.hpp"

namespace hone::py {
namespace {

struct pool_key {
    int jobs = 0;
    std::string cache_dir;  // resolved; "" without a cache
    double timeout_s = 0;
    bool operator==(const pool_key&) const = default;
};

struct registry {
    std::mutex m;
    pid_t pid = ::getpid();
    std::map<int, std::shared_ptr<gpu_session>> gpus;  // by ordinal
    std::set<int> gpus_lent;
    pool_key key;
    std::unique_ptr<compile_cache> cache;  // the pool's; outlives it
    std::shared_ptr<compile_pool> pool;
    bool pool_lent = false;
    uint64_t gpu_started = 0, gpu_reused = 0, pools_started = 0, pools_reused = 0;
    uint64_t workers_of_dropped_pools = 0;

    void drop_pool() {
        if (pool) workers_of_dropped_pools += pool->counts().workers_started;
        pool.reset();
        cache.reset();
    }

    // A forked child holds copies of its parent's workers' handles: it must neither use them
    // nor kill the parent's workers by destroying them. They are let go, unfreed.
    void after_fork() {
        if (pid == ::getpid()) return;
        for (auto& [d, g] : gpus) new std::shared_ptr<gpu_session>(std::move(g));
        gpus.clear();
        gpus_lent.clear();
        if (pool) new std::shared_ptr<compile_pool>(std::move(pool));
        if (cache) (void)cache.release();
        pool_lent = false;
        pid = ::getpid();
    }
};

// Never destroyed: static destructors run after the interpreter is gone; hone.close (at exit)
// ends the workers, and a worker dies with its process anyway.
registry& kept() {
    static registry* r = new registry;
    return *r;
}

void close_all() {
    registry& r = kept();
    std::lock_guard lk(r.m);
    r.after_fork();
    r.gpus.clear();  // lent ones end with their lease
    if (!r.pool_lent) r.drop_pool();
}

nanobind::dict session_info() {
    registry& r = kept();
    std::lock_guard lk(r.m);
    r.after_fork();
    nanobind::dict d;
    nanobind::list open;
    for (const auto& [ordinal, g] : r.gpus) open.append(ordinal);
    d["gpu_workers"] = open;
    d["gpu_workers_started"] = r.gpu_started;
    d["gpu_workers_reused"] = r.gpu_reused;
    d["compile_pool"] = bool(r.pool);
    d["compile_pools_started"] = r.pools_started;
    d["compile_pools_reused"] = r.pools_reused;
    d["compile_workers_started"] =
        r.workers_of_dropped_pools + (r.pool ? r.pool->counts().workers_started : 0);
    return d;
}

}  // namespace

void lend(kept_lease& out, int device, int jobs, const std::string& cache_dir, bool use_cache,
          double compile_timeout_s) {
    registry& r = kept();
    std::lock_guard lk(r.m);
    r.after_fork();
    const auto t0 = steady_clock::now();
    out.device_ = device;
    out.active_ = true;
    if (!r.gpus_lent.count(device)) {
        auto it = r.gpus.find(device);
        if (it != r.gpus.end()) {
            ++r.gpu_reused;
            out.gpu_reused = true;
        } else {
            it = r.gpus.emplace(device, make_worker_session(device)).first;
            ++r.gpu_started;
        }
        out.gpu = it->second;
        r.gpus_lent.insert(device);
    }
    if (!r.pool_lent) {
        pool_key key{jobs > 0 ? jobs : default_jobs(),
                     use_cache ? (cache_dir.empty() ? compile_cache::default_dir() : cache_dir)
                               : std::string(),
                     compile_timeout_s};
        if (r.pool && r.key == key) {
            ++r.pools_reused;
            out.pool_reused = true;
        } else {
            r.drop_pool();
            if (use_cache) r.cache = std::make_unique<compile_cache>(key.cache_dir);
            r.pool = std::make_shared<compile_pool>(key.jobs, r.cache.get(), key.timeout_s);
            r.key = key;
            ++r.pools_started;
        }
        out.pool = r.pool;
        out.workers_before = r.pool->counts().workers_started;
        r.pool_lent = true;
    }
    out.start_s = seconds_since(t0);
}

void kept_lease::give_back() {
    if (!active_) return;
    registry& r = kept();
    std::lock_guard lk(r.m);
    active_ = false;
    if (r.pid != ::getpid()) return;
    if (gpu) r.gpus_lent.erase(device_);
    if (pool) r.pool_lent = false;
}

kept_lease::~kept_lease() {
    if (!active_) return;
    registry& r = kept();
    std::lock_guard lk(r.m);
    if (r.pid != ::getpid()) return;
    if (gpu) {
        r.gpus_lent.erase(device_);
        auto it = r.gpus.find(device_);
        if (it != r.gpus.end() && it->second == gpu) r.gpus.erase(it);
    }
    if (pool) {
        r.pool_lent = false;
        if (r.pool == pool) {
            r.workers_of_dropped_pools += pool->counts().workers_started;
            pool.reset();  // before the cache it points at
            r.pool.reset();
            r.cache.reset();
        }
    }
}

void bind_session(nanobind::module_& m) {
    m.def("close_sessions", &close_all);
    m.def("session_info", &session_info);
}

}  // namespace hone::py
