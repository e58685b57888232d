#include "compile/compile_pool.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <deque>
#include <map>
#include <unordered_set>

#include "compile/compile_json.hpp"
#include "hone/error.hpp"
#include "process/wire.hpp"
#include "process/worker_process.hpp"

namespace hone {
namespace {

using clock_type = std::chrono::steady_clock;

struct task {
    std::string key;
    compile_request req;
    std::vector<uint64_t> tickets;  // every submission of this key while it compiles
    bool unasked = false;           // compiled ahead, not submitted yet
};

struct worker {
    std::unique_ptr<worker_process> proc;
    std::string path;      // its executable, for the error when it does not start
    bool greeted = false;  // its answer to hello has come
    std::optional<task> busy;
    clock_type::time_point kill_at;  // hard deadline of the busy task, its start included
};

double seconds_until(clock_type::time_point t) {
    return std::chrono::duration<double>(t - clock_type::now()).count();
}

// Spawns a worker and sends hello without waiting for the answer: it is read before the first
// result (greet), so that the pool's workers start side by side, each loading NVRTC, rather
// than one after another.
worker start_worker() {
    worker_command cmd = worker_role_command("compile");
    worker w;
    w.proc = std::make_unique<worker_process>(cmd);
    w.path = std::move(cmd.path);
    w.proc->send({{"type", "hello"}, {"version", worker_protocol_version}});
    return w;
}

// The worker's first reply must answer hello; anything else is a worker that did not start
// (env_error, with what it printed: a missing library, a protocol mismatch).
void greet(worker& w, const worker_reply& reply) {
    const auto* msg = std::get_if<nlohmann::json>(&reply);
    if (msg && msg->value("type", "") == "error") rethrow_error(*msg);
    if (!msg || msg->value("type", "") != "hello") {
        const auto* gone = std::get_if<worker_exit>(&reply);
        w.proc->kill();
        const std::string output = w.proc->take_output();  // why, in the worker's own words
        throw env_error(fmt::format("a compile worker ({}) did not start ({}){}{}", w.path,
                                    gone ? gone->reason : "unexpected answer to hello",
                                    output.empty() ? "" : ":\n", output));
    }
    w.greeted = true;
}

compile_result lost_worker(const std::string& what, worker_process& proc) {
    compile_result r;
    r.crashed = true;
    r.log = what;
    const std::string output = proc.take_output();
    if (!output.empty()) r.log += "\n" + output;
    return r;
}

}  // namespace

struct compile_pool::impl {
    impl(int j, compile_cache* c, double t) : jobs(j), cache(c), timeout_s(t) {}

    int jobs;
    compile_cache* cache;
    double timeout_s;
    uint64_t next_ticket = 1;
    std::size_t in_flight = 0;
    compile_pool_counts counts;
    std::deque<std::pair<uint64_t, compile_result>> ready;
    std::deque<task> queue;
    std::vector<worker> workers;  // started on demand, at most `jobs`
    struct remote {
        std::shared_ptr<remote_compiler> rc;
        std::map<uint64_t, task> busy;  // by the id sent with the request
    };
    std::vector<remote> remotes;
    uint64_t next_remote_id = 1;
    std::size_t remote_capacity = 0;
    std::unordered_set<std::string> ahead_keys;  // compiled ahead, not submitted yet

    bool remote_busy() const {
        for (const auto& r : remotes)
            if (!r.busy.empty()) return true;
        return false;
    }

    task* find_task(const std::string& key) {
        for (auto& t : queue) {
            if (t.key == key) return &t;
        }
        for (auto& w : workers) {
            if (w.busy && w.busy->key == key) return &*w.busy;
        }
        for (auto& r : remotes)
            for (auto& [id, t] : r.busy)
                if (t.key == key) return &t;
        return nullptr;
    }

    void finish(const task& t, const compile_result& r) {
        if (cache && r.ok) cache->put(t.key, r);
        for (uint64_t ticket : t.tickets) ready.emplace_back(ticket, r);
    }

    worker* idle_worker() {
        for (auto& w : workers) {
            if (!w.busy) return &w;
        }
        // A compile ahead that nobody has asked for yet does not hold up one that is asked
        // for: it gets a worker of its own.
        if (static_cast<int>(workers.size() - unasked_workers()) >= jobs) return nullptr;
        ++counts.workers_started;
        return &workers.emplace_back(start_worker());
    }

    // A request to a remote compiler with room; false when none has.
    bool dispatch_remote() {
        for (std::size_t i = 0; i < remotes.size();) {
            remote& r = remotes[i];
            if (r.busy.size() >= r.rc->capacity()) {
                ++i;
                continue;
            }
            const uint64_t id = next_remote_id++;
            try {
                r.rc->send(id, queue.front().req, timeout_s);
            } catch (const std::exception&) {
                lose(i);
                continue;
            }
            r.busy.emplace(id, std::move(queue.front()));
            queue.pop_front();
            ++counts.remote;
            return true;
        }
        return false;
    }

    // Remote compiler i failed: what it held is compiled here, and it gets no more.
    void lose(std::size_t i) {
        for (auto& [id, t] : remotes[i].busy) queue.push_front(std::move(t));
        remote_capacity -= remotes[i].rc->capacity();
        ++counts.remotes_lost;
        remotes.erase(remotes.begin() + static_cast<std::ptrdiff_t>(i));
    }

    void dispatch() {
        while (!queue.empty()) {
            worker* w = idle_worker();
            if (!w) {
                if (dispatch_remote()) continue;
                return;
            }
            start(*w, std::move(queue.front()));
            queue.pop_front();
        }
    }

    void start(worker& w, task&& t) {
        w.busy = std::move(t);
        ++counts.compiled;
        // The worker cancels at the deadline itself; the kill is for a compile stuck where
        // NVRTC does not poll its flow callback.
        w.kill_at = clock_type::now() + std::chrono::duration_cast<clock_type::duration>(
                                            std::chrono::duration<double>(2 * timeout_s));
        // A worker gone before the send is reported by the next receive().
        w.proc->send({{"type", "compile"}, {"request", w.busy->req}, {"timeout_s", timeout_s}});
    }

    std::size_t unasked_workers() const {
        return static_cast<std::size_t>(
            std::count_if(workers.begin(), workers.end(),
                          [](const worker& w) { return w.busy && w.busy->unasked; }));
    }

    // ahead_room() without collecting what finished.
    std::size_t room_ahead(std::size_t spare) const {
        const std::size_t used = busy_workers() + spare;
        const auto n = static_cast<std::size_t>(jobs);
        // At most half the jobs ahead at once: with the workers that asked-for compiles may
        // start beside them, never more than 1.5 times `jobs` processes.
        const std::size_t unasked = unasked_workers(), cap = n / 2;
        return used < n && unasked < cap ? std::min(n - used, cap - unasked) : 0;
    }

    std::size_t busy_workers() const {
        return static_cast<std::size_t>(std::count_if(
            workers.begin(), workers.end(), [](const worker& w) { return bool(w.busy); }));
    }

    // Handles what worker w has to say; false when the worker is gone.
    bool collect(worker& w, double wait_s) {
        worker_reply reply = w.proc->receive(wait_s);
        if (!w.greeted && !std::holds_alternative<worker_timeout>(reply)) {
            greet(w, reply);
            reply = w.proc->receive(0);  // the result, if it came with the hello
        }
        if (const auto* msg = std::get_if<nlohmann::json>(&reply)) {
            if (msg->value("type", "") == "error") rethrow_error(*msg);
            compile_result r = msg->at("result").get<compile_result>();
            // What the worker printed belongs to this compile: NVRTC may send ptxas's report
            // there instead of the program log.
            const std::string printed = w.proc->take_output();
            if (!printed.empty()) {
                r.log += (r.log.empty() || r.log.back() == '\n' ? "" : "\n") + printed;
                if (r.ok && r.resources.registers < 0)
                    r.resources = parse_ptxas_info(r.log, r.lowered_name);
            }
            finish(*w.busy, std::move(r));
            w.busy.reset();
            return true;
        }
        if (const auto* gone = std::get_if<worker_exit>(&reply)) {
            finish(*w.busy, lost_worker("NVRTC worker died: " + gone->reason, *w.proc));
            return false;
        }
        if (timeout_s > 0 && seconds_until(w.kill_at) <= 0) {
            w.proc->kill();
            compile_result r = lost_worker(
                fmt::format("NVRTC worker killed after {:g} s (compile deadline {:g} s)",
                            2 * timeout_s, timeout_s),
                *w.proc);
            r.timed_out = true;
            finish(*w.busy, r);
            return false;
        }
        return true;
    }

    // Takes what the remote compilers finished, waiting up to wait_s for the first of them.
    void poll_remotes(double wait_s) {
        for (std::size_t i = 0; i < remotes.size();) {
            remote& r = remotes[i];
            bool lost = false;
            while (!r.busy.empty()) {
                std::optional<std::pair<uint64_t, compile_result>> got;
                try {
                    got = r.rc->receive(wait_s);
                } catch (const std::exception&) {
                    lose(i);
                    lost = true;
                    break;
                }
                wait_s = 0;
                if (!got) break;
                const auto it = r.busy.find(got->first);
                if (it == r.busy.end()) continue;  // an answer to nothing asked: ignored
                finish(it->second, got->second);
                r.busy.erase(it);
            }
            if (!lost) ++i;
        }
    }

    // Waits up to wait_s (< 0: no limit) for busy workers, up to the nearest hard deadline.
    // With remote compilers busy, local workers are polled in short slices between them.
    void poll_workers(double wait_s) {
        if (remote_busy()) {
            constexpr double slice_s = 0.002;
            const bool local_busy = std::any_of(workers.begin(), workers.end(),
                                                [](const worker& w) { return bool(w.busy); });
            const double slice = wait_s < 0 ? slice_s : std::min(wait_s, slice_s);
            poll_local(local_busy ? slice : 0);
            poll_remotes(local_busy ? 0 : slice);
            return;
        }
        poll_local(wait_s);
    }

    void poll_local(double wait_s) {
        std::vector<pollfd> fds;
        for (const auto& w : workers) {
            if (!w.busy) continue;
            fds.push_back({w.proc->fd(), POLLIN, 0});
            if (timeout_s > 0) {
                const double left = std::max(0.0, seconds_until(w.kill_at));
                wait_s = wait_s < 0 ? left : std::min(wait_s, left);
            }
        }
        if (fds.empty()) return;
        const int wait_ms = wait_s < 0 ? -1 : static_cast<int>(std::ceil(wait_s * 1000));
        if (::poll(fds.data(), fds.size(), wait_ms) < 0 && errno != EINTR) {
            throw env_error("waiting for compile workers failed");
        }
        for (std::size_t i = 0; i < workers.size();) {
            if (workers[i].busy && !collect(workers[i], 0)) {
                ++counts.workers_lost;
                workers.erase(workers.begin() + static_cast<std::ptrdiff_t>(i));
            } else {
                ++i;
            }
        }
    }
};

compile_pool::compile_pool(int jobs, compile_cache* cache, double compile_timeout_s)
    : p_(std::make_unique<impl>(std::max(0, jobs), cache, compile_timeout_s)) {}

compile_pool::~compile_pool() = default;

void compile_pool::add_remote(std::shared_ptr<remote_compiler> r) {
    if (!r || r->capacity() == 0) return;
    p_->remote_capacity += r->capacity();
    p_->remotes.push_back({std::move(r), {}});
}

uint64_t compile_pool::submit(compile_request req) {
    const uint64_t ticket = p_->next_ticket++;
    ++p_->in_flight;
    task t{req.cache_key(), std::move(req), {ticket}};
    const bool ahead = p_->ahead_keys.erase(t.key) > 0;
    if (p_->cache) {
        if (auto hit = p_->cache->get(t.key)) {
            ++p_->counts.cache_hits;
            p_->counts.ahead_used += ahead;
            p_->ready.emplace_back(ticket, std::move(*hit));
            return ticket;
        }
    }
    if (task* same = p_->find_task(t.key)) {
        ++p_->counts.deduplicated;
        p_->counts.ahead_used += ahead;
        same->tickets.push_back(ticket);
        same->unasked = false;
        return ticket;
    }
    if (p_->jobs == 0) {
        ++p_->counts.compiled;
        p_->finish(t, compile_nvrtc(t.req, p_->timeout_s));
        return ticket;
    }
    p_->queue.push_back(std::move(t));
    return ticket;
}

std::optional<std::pair<uint64_t, compile_result>> compile_pool::wait(double timeout_s) {
    const auto deadline =
        clock_type::now() + std::chrono::duration_cast<clock_type::duration>(
                                std::chrono::duration<double>(std::max(0.0, timeout_s)));
    for (;;) {
        if (!p_->ready.empty()) {
            auto done = std::move(p_->ready.front());
            p_->ready.pop_front();
            --p_->in_flight;
            return done;
        }
        if (p_->in_flight == 0) return std::nullopt;
        p_->dispatch();
        const double left = timeout_s < 0 ? -1.0 : std::max(0.0, seconds_until(deadline));
        p_->poll_workers(left);
        if (p_->ready.empty() && timeout_s >= 0 && seconds_until(deadline) <= 0)
            return std::nullopt;
    }
}

std::size_t compile_pool::ahead_room(std::size_t spare) {
    if (!p_->cache || p_->jobs == 0 || !p_->queue.empty()) return 0;
    p_->poll_local(0);  // what finished frees its worker (a result without a ticket: cached)
    return p_->room_ahead(spare);
}

bool compile_pool::compile_ahead(compile_request req, std::size_t spare) {
    // The workers as the last ahead_room() found them, less what was started since.
    if (!p_->cache || p_->jobs == 0 || !p_->queue.empty() || p_->room_ahead(spare) == 0)
        return false;
    task t{req.cache_key(), std::move(req), {}, true};
    if (p_->cache->contains(t.key) || p_->find_task(t.key)) return false;
    worker* w = p_->idle_worker();
    if (!w) return false;
    p_->ahead_keys.insert(t.key);
    ++p_->counts.ahead;
    p_->start(*w, std::move(t));
    return true;
}

void compile_pool::abandon() {
    p_->queue.clear();
    p_->ready.clear();
    for (auto& w : p_->workers)
        if (w.busy) w.busy->tickets.clear();
    for (auto& r : p_->remotes)
        for (auto& [id, t] : r.busy) t.tickets.clear();
    p_->in_flight = 0;
}

std::size_t compile_pool::in_flight() const {
    return p_->in_flight;
}
int compile_pool::jobs() const {
    return p_->jobs + static_cast<int>(p_->remote_capacity);
}
const compile_pool_counts& compile_pool::counts() const {
    return p_->counts;
}

int default_jobs() {
    const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? static_cast<int>(n) : 1;
}

}  // namespace hone
