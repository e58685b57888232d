// The GPU sessions of one run, fed by one pipeline. Pull scheduling: a job goes to whichever
// session has room (each takes max_in_flight() jobs), so a slow or faulting GPU never stalls
// the others. Only the gpu_session interface is used (prepare, submit, collect, max_in_flight,
// device), so that a session may be a local worker or another process's GPU.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "driver/gpu.hpp"

namespace hone {

struct gpu_done {
    uint64_t tag = 0;
    std::size_t slot = 0;
    // nullopt: the job was lost with its session, which was dropped (hand it to another).
    std::optional<job_result> result;
};

class gpu_pool {
  public:
    using say_fn = std::function<void(const std::string&)>;
    // `say` receives one line when a session is dropped. A joinable pool drives even one
    // session from a thread of its own, so that others may join it while it runs.
    gpu_pool(std::vector<std::shared_ptr<gpu_session>> sessions, say_fn say, bool joinable = false);
    // Stops the sessions' threads, collecting (and discarding) what they still hold.
    ~gpu_pool();
    gpu_pool(const gpu_pool&) = delete;
    gpu_pool& operator=(const gpu_pool&) = delete;

    std::size_t size() const;
    gpu_session& session(std::size_t slot) const;
    bool live(std::size_t slot) const;
    std::size_t live_count() const;
    // The first live session (the final word's reference GPU); size() when none is.
    std::size_t first_live() const;
    // Why each dropped session was dropped: "GPU 2 (GPU-xxxx): <error>".
    std::vector<std::string> dropped() const;

    // Prepares every live session at once. A session whose prepare throws is dropped; when
    // every one fails, the first one's error is rethrown as it was. Returns each session's
    // report (nullopt for a dropped one).
    std::vector<std::optional<prepare_report>> prepare(const run_plan& plan);

    // Jobs the live sessions can take now, and all they take at once.
    std::size_t room() const;
    std::size_t capacity() const;
    std::size_t depth(std::size_t slot) const;
    // Handed over, results not yet taken by wait().
    std::size_t in_flight() const { return outstanding_; }
    // Hands j to the live session with the most room (of equals the least loaded, then the
    // first); room() > 0. With no session left, j comes back lost from wait().
    void submit(uint64_t tag, job j);
    // Queues j for this session beyond its room (it takes them as it can): the final word's
    // rounds. Only with more than one session; a dropped one gives j back lost.
    void submit_to(std::size_t slot, uint64_t tag, job j);
    // The next result from any session, or a job lost with a dropped one. Waits up to
    // timeout_s (< 0: as long as it takes; one session: always as long as it takes); nullopt
    // when none came. in_flight() > 0. With on_room, also nullopt as soon as a session that
    // joined is prepared, so that the caller hands it work before the next result comes.
    std::optional<gpu_done> wait(double timeout_s = -1, bool on_room = false);
    // Collects and discards everything in flight; jobs not yet handed to a session are taken
    // back at once.
    void abandon();
    // A session joins a joinable pool after prepare() (from any thread): it prepares with the
    // same plan in its own thread and takes jobs once prepared; one whose prepare throws is
    // dropped. It stays until the pool is destroyed. `wanted`, asked once it is prepared: false
    // sets it aside (it takes no job and is neither live nor listed as dropped), for a run that
    // has come too near its end meanwhile.
    void join(std::shared_ptr<gpu_session> s, std::function<bool()> wanted = {});
    // Live sessions that take jobs now (prepared, not set aside).
    std::size_t ready_count() const;

  private:
    struct slot {
        std::shared_ptr<gpu_session> s;
        std::size_t index = 0;
        std::size_t depth = 1;                        // jobs it takes at once
        std::deque<std::pair<uint64_t, job>> inbox;   // given, not yet submitted
        std::deque<std::pair<uint64_t, job>> inside;  // submitted, not yet collected
        std::size_t assigned = 0;                     // inbox + inside
        bool dropped = false;
        bool ready = true;   // prepared: a joined session is not until its prepare returns
        bool aside = false;  // joined, prepared, not wanted (join): dropped without a reason
        // prepare() asks the slot's own thread: a worker that a failed prepare replaces dies
        // with the thread that started it (PR_SET_PDEATHSIG), so not a short-lived one.
        bool prepare_due = false;
        std::optional<prepare_report> prepared;
        std::exception_ptr prepare_error;
        std::string reason;
        std::thread thread;
    };

    bool threaded() const { return threaded_; }
    void serve(slot& sl);  // a session's thread
    // After sl's session threw: every job it held comes back lost; the caller holds m_.
    void drop(slot& sl, const std::string& why);
    std::string describe(const slot& sl) const;

    std::vector<std::unique_ptr<slot>> slots_;  // grows under m_ (join)
    say_fn say_;
    bool threaded_ = false;
    const std::string trace_label_;  // the creating thread's, for the marks of GPUs that join
    std::optional<run_plan> plan_;   // what prepare() was given, for sessions that join
    mutable std::mutex m_;
    std::condition_variable work_;  // a slot has work, or the pool stops
    std::condition_variable done_cv_;
    std::deque<gpu_done> done_;
    std::size_t outstanding_ = 0;  // the caller's count: submitted, not yet returned by wait()
    bool stopping_ = false;
    bool grown_ = false;  // a joined session became ready since wait(on_room) last saw it
};

}  // namespace hone
