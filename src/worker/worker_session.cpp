// GPU work in a supervised worker process: the only way to survive a kernel that hangs or
// leaves its CUDA context unusable (errors 700, 710, 714-719: ../shared/FACTS.md).
#include "worker/worker_session.hpp"

#include <fmt/format.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <utility>

#include "common/clock.hpp"
#include "common/trace.hpp"
#include "hone/error.hpp"
#include "process/resident.hpp"
#include "process/worker_process.hpp"
#include "worker/protocol.hpp"
#include "worker/serve_session.hpp"

namespace hone {
namespace {

constexpr double start_timeout_s = 120.0;  // CUDA initialisation in a fresh process

// Allocation, input fill and the reference run; a hung reference ends here.
double prepare_timeout_s(const run_plan& plan) {
    return std::max(120.0, 10 * plan.timing.timeout_s);
}

nlohmann::json answer(const nlohmann::json& msg, const session_factory& factory,
                      std::unique_ptr<gpu_session>& session, bool& fresh) {
    const std::string type = msg.value("type", "");
    if (type == "hello") {
        if (msg.value("version", 0) != worker_protocol_version) {
            throw env_error("GPU worker: protocol version mismatch");
        }
        fresh = !session;
        if (fresh) session = factory();  // a resident's later clients find it made
        return {
            {"type", "hello"}, {"version", worker_protocol_version}, {"device", session->device()}};
    }
    if (!session) throw env_error("GPU worker: '" + type + "' before hello");
    if (type == "prepare") {
        const prepare_report report = session->prepare(msg.at("plan").get<run_plan>());
        return {{"type", "prepared"}, {"report", report}};
    }
    if (type == "run")
        return {{"type", "result"}, {"result", session->run(msg.at("job").get<job>())}};
    throw env_error("GPU worker: unknown message '" + type + "'");
}

// One client's requests until it closes the socket; false when a sticky CUDA error ended the
// session (nothing more can run in this process).
bool serve_client(int fd, const session_factory& factory, std::unique_ptr<gpu_session>& session) {
    while (const auto msg = read_frame(fd)) {
        nlohmann::json reply;
        bool fresh = false;
        try {
            reply = answer(*msg, factory, session, fresh);
        } catch (const std::exception& e) {
            reply = error_reply(e);
        }
        std::fflush(nullptr);  // kernel printf output reaches the supervisor with the reply
        // Where this reply's output ends: the supervisor may read it while the next job runs.
        const off_t output_end = ::lseek(1, 0, SEEK_CUR);
        if (output_end >= 0) reply["output_end"] = output_end;
        write_frame(fd, reply);
        // The supervisor builds the space and compiles the reference now: set up meanwhile.
        if (session && fresh) {
            try {
                session->warm_start();
            } catch (const std::exception&) {
            }
        }
        // After a sticky CUDA error this process can do no more CUDA work: make way.
        if (reply.value("type", "") == "result" &&
            reply["result"].value("st", status::ok) == status::runtime_fault) {
            return false;
        }
    }
    return true;
}

}  // namespace

void serve_session(int fd, const session_factory& factory) {
    std::unique_ptr<gpu_session> session;
    serve_client(fd, factory, session);
}

void serve_gpu(int fd, int resident_s, const session_factory& factory) {
    if (resident_s > 0)
        serve_resident(fd, resident_s, factory);
    else
        serve_session(fd, factory);
}

void serve_resident(int listen_fd, double idle_s, const session_factory& factory) {
    std::unique_ptr<gpu_session> session;
    for (;;) {
        const int conn = accept_resident_client(listen_fd, idle_s);
        if (conn < 0) return;
        bool usable = true;
        try {
            usable = serve_client(conn, factory, session);
        } catch (const env_error&) {
            // The client went away mid-reply (killed, or ended with a job in flight).
        }
        if (usable && session) {
            try {
                session->release();
            } catch (const std::exception&) {
                usable = false;
            }
        }
        if (!usable) retire_resident(listen_fd);  // before the client sees the end
        end_resident_client(conn);
        if (!usable) return;
    }
}

namespace {

// Up to two jobs in flight: the second crosses the socket and waits in the worker's input while
// the first runs, so the GPU does not wait for the hand-over between jobs. Each job's watchdog
// clock starts when the worker can start it: at its submission, or when the job before it
// came back, whichever is later. A worker lost with jobs queued is replaced and they are sent
// again.
constexpr std::size_t jobs_in_flight = 2;
// Output the worker wrote while jobs were queued behind one another is kept in its file until
// the worker is idle; past this size, one job at a time until it is emptied.
constexpr uint64_t max_held_output = 16u << 20;
// A worker that fails to start or prepare is replaced again this many times in all, this long
// apart, before the failure is the run's (see with_restarts).
constexpr int restart_tries = 3;
constexpr std::chrono::milliseconds restart_pause{200};

// A worker that died of a signal (a crash, not an exit or an error it reported).
struct worker_crashed : env_error {
    using env_error::env_error;
};

class worker_session final : public gpu_session {
  public:
    // With `started` false the worker is spawned and sent its hello, and finish_start() waits
    // for the answer: several GPUs' workers then start CUDA at once.
    explicit worker_session(worker_command cmd, bool started = true)
        : cmd_(std::move(cmd)), wake_{::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)} {
        begin_start();
        if (started) finish_start();
    }

    // A worker killed by a signal while it starts CUDA is replaced, restart_tries in all: on a
    // 4x H200 host two fresh workers of one GPU in a row died of SIGSEGV there, once in some
    // hundreds of starts. One that exits or answers with an error (no such GPU, no driver, a
    // library missing) fails at once.
    void finish_start() {
        bool begun = true;  // the first try answers the hello already sent
        with_restarts<worker_crashed>([&] {
            if (!std::exchange(begun, false)) begin_start();
            const nlohmann::json reply = await(start_timeout_s, "start");
            device_ = reply.at("device").get<device_info>();
            fresh_needed_ = false;
        });
    }

    const device_info& device() const override { return device_; }
    bool isolated() const override { return true; }
    std::size_t max_in_flight() const override {
        return proc_ && proc_->output_bytes() > max_held_output ? 1 : jobs_in_flight;
    }

    prepare_report prepare(const run_plan& plan) override {
        if (!pending_.empty())
            throw std::logic_error("worker session: prepare with jobs in flight");
        plan_.reset();
        return with_restarts([&] {
            if (fresh_needed_) start();
            const nlohmann::json reply =
                request({{"type", "prepare"}, {"plan", plan}}, prepare_timeout_s(plan), "prepare");
            plan_ = plan;
            return reply.value("report", prepare_report{});
        });
    }

    job_result run(const job& j) override {
        if (!pending_.empty()) throw std::logic_error("worker session: run with jobs in flight");
        submit(j);
        return collect();
    }

    void submit(const job& j) override {
        if (pending_.size() >= jobs_in_flight)
            throw std::logic_error("worker session: too many jobs in flight");
        ensure_worker();
        proc_->send({{"type", "run"}, {"job", j}});  // a dead worker shows at collect
        pending_.push_back({j, steady_clock::now()});
    }

    bool wait_ready(double timeout_s) override {
        if (pending_.empty() || fresh_needed_ || !proc_) return true;
        const double left = time_left(pending_.front());
        if (left == 0) return true;  // collect() kills it
        const bool ready =
            proc_->wait_readable(left > 0 ? std::min(timeout_s, left) : timeout_s, wake_.fd);
        uint64_t woken = 0;
        if (wake_.fd >= 0 && ::read(wake_.fd, &woken, sizeof woken) < 0) woken = 0;
        return ready;
    }

    void wake() override {
        const uint64_t one = 1;
        if (wake_.fd >= 0 && ::write(wake_.fd, &one, sizeof one) < 0) {
            // A full counter is woken already.
        }
    }

    job_result collect() override {
        if (pending_.empty())
            throw std::logic_error("worker session: collect without a job in flight");
        ensure_worker();
        const sent_job front = std::move(pending_.front());
        pending_.pop_front();
        const auto t0 = std::max(front.sent, last_reply_);
        const double deadline_s = front.j.deadline_s;
        const double left = time_left(front);
        worker_reply reply = proc_->receive(left);
        last_reply_ = steady_clock::now();
        job_result r;
        bool lost_worker = false;
        if (const auto* msg = std::get_if<nlohmann::json>(&reply)) {
            if (msg->value("type", "") == "error") rethrow_error(*msg);
            r = msg->at("result").get<job_result>();
            lost_worker = r.st == status::runtime_fault;
            const uint64_t end = msg->value("output_end", proc_->output_bytes());
            r.output += proc_->take_output_until(end, pending_.empty() && !lost_worker);
        } else {
            if (std::holds_alternative<worker_timeout>(reply)) {
                r.st = status::timeout;
                r.message = fmt::format("killed after {:g} s", deadline_s);
            } else {
                r.st = status::runtime_fault;
                r.message = "worker died: " + std::get<worker_exit>(reply).reason;
            }
            lost_worker = true;
        }
        if (lost_worker) {
            replace_worker();
            r.output += proc_->take_output();
            // Restart now, so that the time this configuration cost (wall_s) includes bringing a
            // fresh worker back to where the old one was. A failure here is left to the next
            // submit or collect.
            try {
                ensure_worker();
            } catch (const std::exception&) {
            }
            r.wall_s = seconds_since(t0);
        }
        return r;
    }

  private:
    struct sent_job {
        job j;
        steady_clock::time_point sent;
    };

    // Seconds left of a job's deadline, counted from when the worker could start it (its
    // hand-over, or the reply before it); -1 for a job without one.
    double time_left(const sent_job& s) const {
        if (s.j.deadline_s <= 0) return -1.0;
        return std::max(0.0, s.j.deadline_s - seconds_since(std::max(s.sent, last_reply_)));
    }

    void begin_start() {
        proc_.reset();  // a resident's lock goes with it: the next connection may be to it
        if (cmd_.keep_s > 0) {
            try {
                proc_ = connect_resident(cmd_, cmd_.keep_s);
            } catch (const env_error&) {
                // No resident here: a worker of this process's own serves as well.
            }
        }
        if (!proc_) proc_ = std::make_unique<worker_process>(cmd_);
        proc_->send({{"type", "hello"}, {"version", worker_protocol_version}});
    }

    void start() {
        begin_start();
        finish_start();
    }

    // With other processes faulting on the same GPU, a fresh worker's start or prepare has been
    // seen to fail with a fault's error it did not cause (cuMemGetInfo: CUDA_ERROR_LAUNCH_FAILED;
    // two tuners running the fault config in one application on an H200: 6 of 7 runs failed
    // without these retries, 0 of 7 with them). `step` (a start and prepare) is tried again with
    // a fresh worker, restart_tries in all, before its failure is the run's. Failure: the
    // errors that earn a fresh worker (finish_start: a crash only).
    template <typename Failure = env_error, typename Step>
    std::invoke_result_t<Step> with_restarts(Step step) {
        for (int attempt = 1;; ++attempt) {
            try {
                return step();
            } catch (const Failure&) {
                if (attempt >= restart_tries) throw;
                if (proc_) proc_->kill();
                fresh_needed_ = true;
                std::this_thread::sleep_for(restart_pause);
            }
        }
    }

    // After a lost worker: a fresh one, prepared as the old one was, given the jobs it lost.
    void ensure_worker() {
        if (fresh_needed_) with_restarts([&] { restart_worker(); });
    }

    void restart_worker() {
        start();
        fresh_needed_ = true;  // until prepared: a failure below leaves it to be replaced again
        if (plan_) {
            request({{"type", "prepare"}, {"plan", *plan_}}, prepare_timeout_s(*plan_), "prepare");
        }
        fresh_needed_ = false;
        for (auto& p : pending_) {
            proc_->send({{"type", "run"}, {"job", p.j}});
            p.sent = steady_clock::now();
        }
        last_reply_ = {};
    }

    // The worker is done for: killed now (it may be hanging), replaced before the next job.
    void replace_worker() {
        proc_->kill();
        fresh_needed_ = true;
    }

    // One exchange that must succeed; any failure leaves the worker to be replaced.
    nlohmann::json request(const nlohmann::json& msg, double timeout_s, const char* what) {
        proc_->send(msg);
        return await(timeout_s, what);
    }

    // The answer to the request sent last, which must come.
    nlohmann::json await(double timeout_s, const char* what) {
        worker_reply reply = proc_->receive(timeout_s);
        if (const auto* answer = std::get_if<nlohmann::json>(&reply)) {
            if (answer->value("type", "") != "error") return *answer;
            replace_worker();
            rethrow_error(*answer);
        }
        replace_worker();
        const auto* died = std::get_if<worker_exit>(&reply);
        const std::string why = died ? "worker died: " + died->reason
                                     : fmt::format("no answer within {:g} s", timeout_s);
        const std::string output = proc_->take_output();
        std::string message = fmt::format("GPU worker ({}) failed during {}: {}{}{}", cmd_.path,
                                          what, why, output.empty() ? "" : "\n", output);
        if (died && died->reason.starts_with("SIG")) throw worker_crashed(std::move(message));
        throw env_error(std::move(message));
    }

    worker_command cmd_;
    fd_guard wake_;  // an eventfd: wake() ends a wait_ready of another thread
    std::unique_ptr<worker_process> proc_;
    device_info device_;
    std::optional<run_plan> plan_;
    bool fresh_needed_ = false;
    std::deque<sent_job> pending_;  // sent, not yet collected, oldest first
    steady_clock::time_point last_reply_;
};

}  // namespace

int keep_workers_s() {
    const char* v = std::getenv("HONE_KEEP_WORKERS");
    if (!v || !*v) return 0;
    int s = 0;
    const auto [end, ec] = std::from_chars(v, v + std::strlen(v), s);
    if (ec != std::errc{} || *end != '\0' || s < 0)
        throw env_error(fmt::format(
            "HONE_KEEP_WORKERS is '{}': it must be whole seconds (0: no resident workers)", v));
    return s;
}

double job_deadline_s(const timing_spec& t, double reference_us) {
    const double launches = t.min_samples + 12.0;
    return t.timeout_s + t.warmup_ms / 1000.0 + t.max_time_s +
           launches * watchdog_slowdown * std::max(0.0, reference_us) * 1e-6;
}

std::unique_ptr<gpu_session> make_supervised_session(worker_command cmd) {
    return std::make_unique<worker_session>(std::move(cmd));
}

namespace {

worker_command gpu_worker_command(int ordinal, bool profiler_ahead) {
    worker_command cmd = worker_role_command(
        "gpu",
        {"--device", std::to_string(ordinal), "--warm-profiler", profiler_ahead ? "1" : "0"});
    cmd.keep_s = keep_workers_s();
    return cmd;
}

}  // namespace

std::unique_ptr<gpu_session> make_worker_session(int ordinal, bool profiler_ahead) {
    return make_supervised_session(gpu_worker_command(ordinal, profiler_ahead));
}

std::vector<std::unique_ptr<gpu_session>> make_worker_sessions(
    const std::vector<int>& ordinals, std::vector<std::exception_ptr>& errors, bool profiler_ahead,
    const std::function<void()>& meanwhile) {
    std::vector<std::unique_ptr<worker_session>> begun(ordinals.size());
    errors.assign(ordinals.size(), nullptr);
    for (std::size_t i = 0; i < ordinals.size(); ++i) {
        try {
            begun[i] = std::make_unique<worker_session>(
                gpu_worker_command(ordinals[i], profiler_ahead), false);
        } catch (...) {
            errors[i] = std::current_exception();
        }
    }
    if (meanwhile) meanwhile();
    std::vector<std::unique_ptr<gpu_session>> out(ordinals.size());
    for (std::size_t i = 0; i < ordinals.size(); ++i) {
        if (!begun[i]) continue;
        try {
            begun[i]->finish_start();
            out[i] = std::move(begun[i]);
            if (trace_on()) trace_mark(fmt::format("GPU {}: worker ready", ordinals[i]));
        } catch (...) {
            errors[i] = std::current_exception();
        }
    }
    return out;
}

}  // namespace hone
