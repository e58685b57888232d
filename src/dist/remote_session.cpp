#include "dist/remote_session.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "common/clock.hpp"
#include "common/trace.hpp"
#include "compile/compile_cache.hpp"
#include "compile/compile_pool.hpp"
#include "hone/error.hpp"
#include "worker/protocol.hpp"

namespace hone {
namespace {
// A named namespace, so that this file's `json` (nlohmann::json) stays apart from the
// ordered_json that other files call json when a unity build compiles them together.
namespace remote {

using nlohmann::json;

// Rank 0's mailboxes: a message read while waiting for another rank's or slot's is kept for
// whoever waits for it (sessions may be used from several threads).
class hub {
  public:
    explicit hub(std::shared_ptr<mpi_link> link) : link_(std::move(link)) {}
    mpi_link& link() { return *link_; }

    // The next message from rank `rank` for `slot` (-1: not for a slot); env_error after
    // timeout_s, naming `what` was awaited.
    json await(int rank, int slot, double timeout_s, const std::string& what) {
        if (auto j = poll(rank, slot, timeout_s)) return std::move(*j);
        throw env_error(
            fmt::format("MPI rank {} has not answered {} in {:.0f} s: its host or "
                        "GPU may be gone",
                        rank, what, timeout_s));
    }

    // True when a message from `rank` for `slot` is waiting (it stays), else false after wait_s.
    bool has(int rank, int slot, double wait_s) {
        const auto t0 = steady_clock::now();
        for (;;) {
            {
                std::lock_guard lock(m_);
                if (!mail_[{rank, slot}].empty()) return true;
            }
            const double left = wait_s - seconds_since(t0);
            if (auto got = link_->receive(-1, std::clamp(left, 0.0, 0.05))) {
                std::lock_guard lock(m_);
                mail_[{got->first, got->second.value("slot", -1)}].push_back(
                    std::move(got->second));
                continue;
            }
            if (seconds_since(t0) >= wait_s) return false;
        }
    }

    // The same, nullopt after wait_s.
    std::optional<json> poll(int rank, int slot, double wait_s) {
        if (!has(rank, slot, wait_s)) return std::nullopt;
        std::lock_guard lock(m_);  // one thread waits for each (rank, slot)
        auto& box = mail_[{rank, slot}];
        json j = std::move(box.front());
        box.pop_front();
        return j;
    }

  private:
    std::shared_ptr<mpi_link> link_;
    std::mutex m_;
    std::map<std::pair<int, int>, std::deque<json>> mail_;
};

[[noreturn]] void rethrow_from(int rank, const std::string& host, json reply) {
    reply["message"] = fmt::format("rank {} ({}): {}", rank, host, reply.value("message", "error"));
    rethrow_error(reply);
}

class remote_session final : public gpu_session {
  public:
    remote_session(std::shared_ptr<hub> h, int rank, int slot, std::string host, device_info info,
                   bool isolated)
        : hub_(std::move(h)),
          rank_(rank),
          slot_(slot),
          host_(std::move(host)),
          info_(std::move(info)),
          isolated_(isolated) {}

    const device_info& device() const override { return info_; }
    bool isolated() const override { return isolated_; }
    // One measuring in the rank's worker, one waiting in that worker, and one on its way: a
    // result travels to rank 0 and the next job back while the worker measures.
    std::size_t max_in_flight() const override { return 3; }

    prepare_report prepare(const run_plan& plan) override {
        hub_->link().send(rank_, {{"type", "prepare"}, {"slot", slot_}, {"plan", plan}});
        const json r = answer(prepare_timeout_s, "prepare");
        if (r.value("type", "") != "prepared") rethrow_from(rank_, host_, r);
        return r.at("report").get<prepare_report>();
    }

    job_result run(const job& j) override {
        submit(j);
        return collect();
    }

    void submit(const job& j) override {
        hub_->link().send(rank_, {{"type", "job"}, {"slot", slot_}, {"job", j}});
        deadlines_.push_back(j.deadline_s);
    }

    // A late rank shows in collect(), which waits as long as the jobs ahead may take.
    bool wait_ready(double timeout_s) override {
        return deadlines_.empty() || hub_->has(rank_, slot_, timeout_s);
    }

    job_result collect() override {
        if (deadlines_.empty()) throw std::logic_error("remote_session::collect without submit");
        // The jobs ahead of it, each within its deadline, plus a worker restart for each.
        double wait = 0;
        for (double d : deadlines_) wait += d + restart_allowance_s;
        deadlines_.pop_front();
        const json r = answer(wait, "a job");
        if (r.value("type", "") != "result") rethrow_from(rank_, host_, r);
        return r.at("result").get<job_result>();
    }

  private:
    json answer(double timeout_s, const char* what) {
        return hub_->await(rank_, slot_, timeout_s,
                           fmt::format("{} on {} GPU {}", what, host_, info_.ordinal));
    }

    static constexpr double prepare_timeout_s = 600;
    static constexpr double restart_allowance_s = 60;
    std::shared_ptr<hub> hub_;
    int rank_, slot_;
    std::string host_;
    device_info info_;
    bool isolated_;
    std::deque<double> deadlines_;
};

// Compile messages travel on a slot of their own, apart from every GPU's.
constexpr int compile_slot = -2;

// Another rank's compile pool, as rank 0's compile_pool sees it.
class rank_compiler final : public remote_compiler {
  public:
    rank_compiler(std::shared_ptr<hub> h, int rank, std::string host, std::size_t capacity)
        : hub_(std::move(h)), rank_(rank), host_(std::move(host)), capacity_(capacity) {}
    std::size_t capacity() const override { return capacity_; }
    std::string name() const override { return fmt::format("rank {} ({})", rank_, host_); }
    void send(uint64_t id, const compile_request& req, double timeout_s) override {
        hub_->link().send(rank_, {{"type", "compile"},
                                  {"slot", compile_slot},
                                  {"id", id},
                                  {"request", req},
                                  {"timeout_s", timeout_s}});
    }
    std::optional<std::pair<uint64_t, compile_result>> receive(double wait_s) override {
        auto j = hub_->poll(rank_, compile_slot, wait_s);
        if (!j) return std::nullopt;
        if (j->value("type", "") != "compiled") rethrow_from(rank_, host_, std::move(*j));
        return std::pair{j->at("id").get<uint64_t>(), j->at("result").get<compile_result>()};
    }

  private:
    std::shared_ptr<hub> hub_;
    int rank_;
    std::string host_;
    std::size_t capacity_;
};

std::string host_name() {
    char buf[256] = {};
    ::gethostname(buf, sizeof buf - 1);
    return buf;
}

// Requests from rank 0 for a server's own thread: pushed by the thread that receives them.
struct request_queue {
    std::mutex m;
    std::condition_variable cv;
    std::deque<json> items;
    bool stop = false;
    void push(json request) {
        {
            std::lock_guard lock(m);
            items.push_back(std::move(request));
        }
        cv.notify_all();
    }
    void close() {
        {
            std::lock_guard lock(m);
            stop = true;
        }
        cv.notify_all();
    }
};

// One local session served to rank 0: its requests in order, on a thread of its own, so that
// the host's GPUs measure at once. Up to the session's max_in_flight jobs are handed over
// before the oldest result is collected.
class slot_server {
  public:
    slot_server(mpi_link& link, int slot, std::shared_ptr<gpu_session> s)
        : link_(link), slot_(slot), s_(std::move(s)), t_([this] { loop(); }) {}
    ~slot_server() {
        q_.close();
        t_.join();
    }
    void push(json request) {
        q_.push(std::move(request));
        s_->wake();  // the thread may be waiting for the GPU with room for a job
    }

  private:
    void reply(json j) {
        j["slot"] = slot_;
        link_.send(0, j);
    }
    void collect_one() {
        --in_flight_;
        try {
            reply({{"type", "result"}, {"result", s_->collect()}});
        } catch (const std::exception& e) {
            reply(error_reply(e));
        }
    }
    void loop() {
        for (;;) {
            json next;
            {
                std::unique_lock lock(q_.m);
                q_.cv.wait(lock, [&] { return q_.stop || !q_.items.empty() || in_flight_ > 0; });
                if (q_.items.empty() && in_flight_ == 0) return;  // closed
                const bool job_ready = !q_.items.empty() &&
                                       q_.items.front().value("type", "") == "job" &&
                                       in_flight_ < s_->max_in_flight();
                if (!job_ready && in_flight_ > 0) {
                    // With room for another job, wait for the result in short spans, so that a
                    // job that comes meanwhile is handed to the worker at once.
                    const bool room = q_.items.empty() && in_flight_ < s_->max_in_flight();
                    lock.unlock();
                    if (room && !s_->wait_ready(gpu_session::ready_poll_s)) continue;
                    collect_one();
                    continue;
                }
                next = std::move(q_.items.front());
                q_.items.pop_front();
            }
            try {
                if (next.value("type", "") == "prepare") {
                    if (trace_on())
                        trace_mark(
                            fmt::format("MPI rank {} slot {}: prepare asked", link_.rank(), slot_));
                    const prepare_report r = s_->prepare(next.at("plan").get<run_plan>());
                    reply({{"type", "prepared"}, {"report", r}});
                    if (trace_on())
                        trace_mark(
                            fmt::format("MPI rank {} slot {}: prepared", link_.rank(), slot_));
                } else {
                    s_->submit(next.at("job").get<job>());
                    ++in_flight_;
                }
            } catch (const std::exception& e) {
                reply(error_reply(e));
            }
        }
    }

    mpi_link& link_;
    int slot_;
    std::shared_ptr<gpu_session> s_;
    request_queue q_;
    std::size_t in_flight_ = 0;  // touched by the thread alone
    std::thread t_;
};

// This rank's compile pool served to rank 0: requests as they come, answers as compiles end,
// on a thread of its own (a compile_pool is used from one thread).
class compile_server {
  public:
    compile_server(mpi_link& link, const std::string& cache_dir)
        : link_(link),
          cache_(cache_dir.empty() ? compile_cache::default_dir() : cache_dir),
          t_([this] { loop(); }) {}
    ~compile_server() {
        q_.close();
        t_.join();
    }
    void push(json request) { q_.push(std::move(request)); }

  private:
    void loop() {
        compile_pool pool(default_jobs(), &cache_, 60);
        std::map<uint64_t, uint64_t> ids;  // ticket -> rank 0's id
        for (;;) {
            std::deque<json> got;
            {
                std::unique_lock lock(q_.m);
                if (pool.in_flight() == 0)
                    q_.cv.wait(lock, [&] { return q_.stop || !q_.items.empty(); });
                if (q_.stop && q_.items.empty() && pool.in_flight() == 0) return;
                got.swap(q_.items);
            }
            for (auto& m : got) {
                try {
                    const uint64_t ticket = pool.submit(m.at("request").get<compile_request>());
                    ids[ticket] = m.at("id").get<uint64_t>();
                } catch (const std::exception& e) {
                    json j = error_reply(e);
                    j["slot"] = compile_slot;
                    link_.send(0, j);
                }
            }
            try {
                // Short waits: new requests are taken between them.
                while (auto done = pool.wait(0.002)) {
                    link_.send(0, {{"type", "compiled"},
                                   {"slot", compile_slot},
                                   {"id", ids.at(done->first)},
                                   {"result", done->second}});
                    ids.erase(done->first);
                }
            } catch (const std::exception& e) {
                json j = error_reply(e);
                j["slot"] = compile_slot;
                link_.send(0, j);
                return;
            }
        }
    }

    mpi_link& link_;
    compile_cache cache_;
    request_queue q_;
    std::thread t_;
};

}  // namespace remote
}  // namespace

rank_links connect_ranks(const std::shared_ptr<mpi_link>& link, const rank_hello& hello_opts,
                         const std::function<void()>& meanwhile) {
    using namespace remote;
    using remote::json;  // not the json of files compiled with this one
    auto h = std::make_shared<hub>(link);
    for (int r = 1; r < link->size(); ++r)
        link->send(r, {{"type", "hello"},
                       {"gpus", hello_opts.gpus},
                       {"compile", hello_opts.compile},
                       {"cache_dir", hello_opts.cache_dir}});
    if (meanwhile) meanwhile();
    rank_links out;
    for (int r = 1; r < link->size(); ++r) {
        // Opening a rank's GPUs starts a worker and CUDA on each.
        const json hello = h->await(r, -1, 600, "hello");
        const std::string host = hello.value("host", "?");
        if (hello.value("type", "") != "hello") rethrow_from(r, host, hello);
        int slot = 0;
        for (const auto& d : hello.at("devices"))
            out.sessions.push_back(std::make_shared<remote_session>(
                h, r, slot++, host, d.at("info").get<device_info>(), d.value("isolated", true)));
        const auto jobs = hello.value("compile_jobs", 0);
        if (jobs > 0)
            out.compilers.push_back(
                std::make_shared<rank_compiler>(h, r, host, static_cast<std::size_t>(jobs)));
    }
    return out;
}

void release_ranks(mpi_link& link) {
    for (int r = 1; r < link.size(); ++r) link.send(r, {{"type", "bye"}});
}

void serve_rank(mpi_link& link, const session_list_factory& open) {
    using namespace remote;
    using remote::json;  // not the json of files compiled with this one
    std::vector<std::unique_ptr<slot_server>> slots;
    std::unique_ptr<compile_server> compiler;
    // The GPUs are opened before rank 0's hello comes (it comes as soon as rank 0 has started
    // MPI): every rank's CUDA starts at once, and not one after another behind the hello. A run
    // that asks for no GPUs (--dry-run) closes them at the hello; an error waits for the hello.
    std::optional<std::vector<std::shared_ptr<gpu_session>>> early;
    std::exception_ptr early_error;
    try {
        early = open();
    } catch (...) {
        early_error = std::current_exception();
    }
    if (trace_on()) trace_mark(fmt::format("MPI rank {}: GPUs opened", link.rank()));
    for (;;) {
        auto got = link.receive(0, -1);
        const json& m = got->second;
        const std::string type = m.value("type", "");
        if (type == "bye") break;
        if (type == "hello") {
            try {
                json devices = json::array();
                slots.clear();
                compiler.reset();
                int slot = 0;
                auto opened = [&] {
                    if (early_error) std::rethrow_exception(std::exchange(early_error, nullptr));
                    if (early) return *std::exchange(early, std::nullopt);
                    return open();
                };
                if (m.value("gpus", true))
                    for (auto& s : opened()) {
                        devices.push_back({{"info", s->device()}, {"isolated", s->isolated()}});
                        slots.push_back(std::make_unique<slot_server>(link, slot++, std::move(s)));
                    }
                early.reset();  // not asked for: closed
                early_error = nullptr;
                int jobs = 0;
                if (m.value("compile", false)) {
                    compiler = std::make_unique<compile_server>(link, m.value("cache_dir", ""));
                    jobs = default_jobs();
                }
                link.send(0, {{"type", "hello"},
                              {"host", host_name()},
                              {"devices", devices},
                              {"compile_jobs", jobs}});
                if (trace_on()) trace_mark(fmt::format("MPI rank {}: hello answered", link.rank()));
            } catch (const std::exception& e) {
                json j = error_reply(e);
                j["host"] = host_name();
                link.send(0, j);
            }
            continue;
        }
        const int slot = m.value("slot", -1);
        if (type == "compile" && compiler) {
            compiler->push(m);
            continue;
        }
        if (slot < 0 || slot >= static_cast<int>(slots.size())) {
            json j = error_reply(std::runtime_error(fmt::format("no GPU slot {} here", slot)));
            j["slot"] = slot;
            link.send(0, j);
            continue;
        }
        slots[static_cast<std::size_t>(slot)]->push(m);
    }
    slots.clear();  // each finishes what it holds first
    compiler.reset();
}

}  // namespace hone
