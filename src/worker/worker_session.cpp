// GPU work in a supervised worker process: the only way to survive a kernel that hangs or
// leaves its CUDA context unusable (errors 700, 710, 714-719: ../shared/FACTS.md).
#include "hone/worker_session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "common/clock.hpp"
#include "hone/error.hpp"
#include "hone/protocol.hpp"
#include "hone/worker_process.hpp"

namespace hone {
namespace {

constexpr double start_timeout_s = 120.0;  // CUDA initialisation in a fresh process

// Allocation, input fill and the reference run; a hung reference ends here.
double prepare_timeout_s(const run_plan& plan) {
    return std::max(120.0, 10 * plan.timing.timeout_s);
}

nlohmann::json answer(const nlohmann::json& msg, const session_factory& factory,
                      std::unique_ptr<gpu_session>& session) {
    const std::string type = msg.value("type", "");
    if (type == "hello") {
        if (msg.value("version", 0) != worker_protocol_version) {
            throw env_error("GPU worker: protocol version mismatch");
        }
        session = factory();
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

// The worker's side of the socket.
void serve_session(int fd, const session_factory& factory) {
    std::unique_ptr<gpu_session> session;
    while (const auto msg = read_frame(fd)) {
        nlohmann::json reply;
        try {
            reply = answer(*msg, factory, session);
        } catch (const std::exception& e) {
            reply = error_reply(e);
        }
        std::fflush(nullptr);  // kernel printf output reaches the supervisor with the reply
        write_frame(fd, reply);
        // After a sticky CUDA error this process can do no more CUDA work: make way.
        if (reply.value("type", "") == "result" &&
            reply["result"].value("st", status::ok) == status::runtime_fault) {
            return;
        }
    }
}

class worker_session final : public gpu_session {
  public:
    explicit worker_session(session_factory factory) : factory_(std::move(factory)) { start(); }

    const device_info& device() const override { return device_; }
    bool isolated() const override { return true; }

    prepare_report prepare(const run_plan& plan) override {
        if (fresh_needed_) start();
        plan_.reset();
        const nlohmann::json reply =
            request({{"type", "prepare"}, {"plan", plan}}, prepare_timeout_s(plan), "prepare");
        plan_ = plan;
        return reply.value("report", prepare_report{});
    }

    job_result run(const job& j) override {
        submit(j);
        return collect();
    }

    void submit(const job& j) override {
        if (in_flight_) throw std::logic_error("worker session: a job is already in flight");
        if (fresh_needed_) restart();
        proc_->send({{"type", "run"}, {"job", j}});
        submitted_at_ = steady_clock::now();
        deadline_s_ = j.deadline_s;
        in_flight_ = true;
    }

    job_result collect() override {
        if (!in_flight_) throw std::logic_error("worker session: collect without a job in flight");
        in_flight_ = false;
        const auto t0 = submitted_at_;  // the deadline counts from the submission
        const double left = deadline_s_ > 0 ? std::max(0.0, deadline_s_ - seconds_since(t0)) : -1.0;
        worker_reply reply = proc_->receive(left);
        job_result r;
        bool lost_worker = false;
        if (const auto* msg = std::get_if<nlohmann::json>(&reply)) {
            if (msg->value("type", "") == "error") rethrow_error(*msg);
            r = msg->at("result").get<job_result>();
            lost_worker = r.st == status::runtime_fault;
        } else {
            if (std::holds_alternative<worker_timeout>(reply)) {
                r.st = status::timeout;
                r.message = fmt::format("killed after {:g} s", deadline_s_);
            } else {
                r.st = status::runtime_fault;
                r.message = "worker died: " + std::get<worker_exit>(reply).reason;
            }
            lost_worker = true;
        }
        r.output += proc_->take_output();
        if (lost_worker) {
            replace_worker();
            // Restart now, so that the time this configuration cost (wall_s) includes bringing a
            // fresh worker back to where the old one was. A failure here is left to the next job.
            try {
                restart();
            } catch (const std::exception&) {
                fresh_needed_ = true;
            }
            r.wall_s = seconds_since(t0);
        }
        return r;
    }

  private:
    void start() {
        proc_ = std::make_unique<worker_process>(
            [factory = factory_](int fd) { serve_session(fd, factory); });
        const nlohmann::json reply = request(
            {{"type", "hello"}, {"version", worker_protocol_version}}, start_timeout_s, "start");
        device_ = reply.at("device").get<device_info>();
        fresh_needed_ = false;
    }

    void restart() {
        start();
        if (plan_) {
            request({{"type", "prepare"}, {"plan", *plan_}}, prepare_timeout_s(*plan_), "prepare");
        }
    }

    // The worker is done for: killed now (it may be hanging), replaced before the next job.
    void replace_worker() {
        proc_->kill();
        fresh_needed_ = true;
    }

    // One exchange that must succeed; any failure leaves the worker to be replaced.
    nlohmann::json request(const nlohmann::json& msg, double timeout_s, const char* what) {
        proc_->send(msg);
        worker_reply reply = proc_->receive(timeout_s);
        if (const auto* answer = std::get_if<nlohmann::json>(&reply)) {
            if (answer->value("type", "") != "error") return *answer;
            replace_worker();
            rethrow_error(*answer);
        }
        replace_worker();
        const std::string why = std::holds_alternative<worker_timeout>(reply)
                                    ? fmt::format("no answer within {:g} s", timeout_s)
                                    : "worker died: " + std::get<worker_exit>(reply).reason;
        const std::string output = proc_->take_output();
        throw env_error(fmt::format("GPU worker failed during {}: {}{}{}", what, why,
                                    output.empty() ? "" : "\n", output));
    }

    session_factory factory_;
    std::unique_ptr<worker_process> proc_;
    device_info device_;
    std::optional<run_plan> plan_;
    bool fresh_needed_ = false;
    bool in_flight_ = false;  // a job submitted and not yet collected
    steady_clock::time_point submitted_at_;
    double deadline_s_ = 0;
};

}  // namespace

double job_deadline_s(const timing_spec& t, double reference_us) {
    const double launches = t.min_samples + 12.0;
    return t.timeout_s + t.warmup_ms / 1000.0 + t.max_time_s +
           launches * watchdog_slowdown * std::max(0.0, reference_us) * 1e-6;
}

std::unique_ptr<gpu_session> make_supervised_session(session_factory factory) {
    return std::make_unique<worker_session>(std::move(factory));
}

std::unique_ptr<gpu_session> make_worker_session(int ordinal) {
    return make_supervised_session([ordinal] { return make_in_process_session(ordinal); });
}

}  // namespace hone
