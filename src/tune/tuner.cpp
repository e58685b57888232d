// The tuning pipeline: the strategy hands out configurations, the compile pool works ahead of
// the GPU, the GPU session measures in strategy order, every result is stored as it finishes.
#include "hone/tuner.hpp"

#include <fmt/format.h>

#include <deque>
#include <map>
#include <stdexcept>

#include "common/clock.hpp"
#include "hone/compile_cache.hpp"
#include "hone/compile_pool.hpp"
#include "hone/report.hpp"
#include "hone/store.hpp"
#include "hone/strategy.hpp"
#include "hone/worker_session.hpp"
#include "tune/internal.hpp"

namespace hone {
namespace {

struct pending {
    config cfg;
    std::string key;
    uint64_t ticket = 0;
    std::optional<compile_result> result;
};

// A configuration handed to the GPU side, its record waiting for the result.
struct in_flight {
    pending p;
    bindings scope;
    eval_record r;
};

std::string first_error_line(const std::string& log) {
    std::size_t at = log.find("error");
    if (at == std::string::npos) at = 0;
    const std::size_t start = log.rfind('\n', at);
    const std::size_t begin = start == std::string::npos ? 0 : start + 1;
    const std::size_t end = log.find('\n', at);
    return log.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

class pipeline {
public:
    pipeline(const spec& s, const tune_options& opt) : s_(s), opt_(opt) {}

    tune_result run();

private:
    void fill_queue();
    void wait_head();
    void hand_over();
    bool stopping() const { return opt_.stop && *opt_.stop; }
    bool out_of_time() const { return time_limit_s_ > 0 && seconds_since(t0_) > time_limit_s_; }
    bool start_eval(const pending& p, const bindings& scope, eval_record& r, job& j);
    void finish_eval(const bindings& scope, eval_record& r, job_result&& g);
    void record(const config& c, eval_record&& r);
    void drain();
    void assign(std::pair<uint64_t, compile_result>&& got);
    void report_progress();

    const spec& s_;
    const tune_options& opt_;
    tune_result out_;
    steady_clock::time_point t0_ = steady_clock::now();
    std::shared_ptr<gpu_session> session_;
    std::unique_ptr<search_space> space_;
    std::unique_ptr<strategy> strategy_;
    std::unique_ptr<compile_cache> cache_;
    std::unique_ptr<compile_pool> pool_;
    std::unique_ptr<results_store> store_;
    int64_t run_id_ = 0;
    std::map<std::string, status> done_;
    std::deque<pending> queue_;
    std::deque<in_flight> flight_;  // handed to the GPU side, oldest first
    steady_clock::time_point busy_since_;  // when flight_ last became non-empty
    bool exhausted_ = false;
    int64_t max_evals_ = 0;
    double time_limit_s_ = 0;
    std::size_t started_ = 0;
    pipeline_state state_;
    std::optional<double> best_obj_;
};

tune_result pipeline::run() {
    session_ = opt_.session;
    if (!session_) {
        session_ = opt_.isolated ? std::shared_ptr<gpu_session>(make_worker_session(opt_.device))
                                 : std::shared_ptr<gpu_session>(make_in_process_session(opt_.device));
    }
    out_.time.session_start_s = seconds_since(t0_);
    out_.device = session_->device();
    bindings base = s_.problem_bindings();
    out_.device.attrs.add_to(base);
    space_ = std::make_unique<search_space>(s_, base);
    space_->require_nonempty();
    strategy_ = make_strategy(s_.search, *space_);

    out_.output = opt_.output.empty() ? s_.output : opt_.output;
    store_ = std::make_unique<results_store>(out_.output);
    out_.identity = make_identity(s_, out_.device);
    const std::string id = out_.identity.id();
    if (opt_.fresh) store_->forget(id, false);
    run_id_ = store_->begin_run(out_.identity);
    done_ = store_->done(id);
    if (done_.empty())  // nothing to resume: say why older results of the same config do not count
        if (const auto previous = store_->previous_run(out_.identity))
            out_.remeasure_reason = describe_change(previous->identity, out_.identity);

    max_evals_ = opt_.max_evals >= 0 ? opt_.max_evals : s_.search.max_evals;
    time_limit_s_ = opt_.time_limit_s >= 0 ? opt_.time_limit_s : s_.search.time_limit_s;
    if (!space_->enumerated())
        throw input_error({s_.path, 0, 0},
                          fmt::format("the space is too large to list (about {:.3g} valid "
                                      "configurations): tuning it needs a search strategy",
                                      space_->estimated_count()));
    for (uint64_t i = 0; i < *space_->count(); ++i) {
        const std::string key = space_->to_config(space_->at(i)).key(s_);
        if (!opt_.only.empty() && key != opt_.only) continue;
        const auto it = done_.find(key);
        const bool stored = it != done_.end() && !(opt_.retry_failed && is_fault(it->second));
        if (!stored) ++state_.total;
    }
    if (max_evals_ > 0) state_.total = std::min<std::size_t>(state_.total, max_evals_);
    if (!opt_.only.empty() && state_.total == 0 && done_.count(opt_.only) == 0) {
        throw input_error({"--only", 0, 0},
                          fmt::format("'{}' is not a configuration of the "
                                      "space (keys look like '{}')",
                                      opt_.only, space_->to_config(space_->at(0)).key(s_)));
    }

    if (opt_.use_cache) {
        cache_ = std::make_unique<compile_cache>(opt_.cache_dir.empty() ? compile_cache::default_dir()
                                                                        : opt_.cache_dir);
    }
    const int jobs = opt_.jobs > 0 ? opt_.jobs : default_jobs();
    pool_ = std::make_unique<compile_pool>(jobs, cache_.get(), std::max(60.0, s_.timing.timeout_s));

    const std::string arch = out_.device.attrs.arch();
    if (state_.total > 0) {
        run_plan plan = make_run_plan(s_, *space_);
        // Through the pool, like every compile: NVRTC never runs in this process, which may be
        // an application's (NVRTC may initialise the driver in its process).
        auto t = steady_clock::now();
        plan.reference = make_reference(s_, *space_, arch, [&](const compile_request& req) {
            const uint64_t ticket = pool_->submit(req);
            for (;;) {
                auto got = pool_->wait(-1);
                if (!got) throw std::logic_error("compile pool lost the reference compile");
                if (got->first == ticket) return std::move(got->second);
            }
        });
        out_.time.reference_compile_s = seconds_since(t);
        fill_queue();  // the first configurations compile while the GPU side prepares
        t = steady_clock::now();
        out_.time.prepare = session_->prepare(plan);
        out_.time.prepare_s = seconds_since(t);
    }
    out_.time.setup_s = seconds_since(t0_);

    // Each result is stored while the next job runs (hand_over).
    fill_queue();
    for (;;) {
        hand_over();
        if (flight_.empty()) {
            out_.interrupted = stopping() && !queue_.empty();
            break;
        }
        in_flight done = std::move(flight_.front());
        flight_.pop_front();
        finish_eval(done.scope, done.r, session_->collect());
        // On a stop, the configurations in flight are abandoned, not stored; none is left in
        // the session (an application's own session stays usable).
        const bool stop = stopping();  // read once: a signal may set it at any time
        if (stop)
            for (; !flight_.empty(); flight_.pop_front()) session_->collect();
        if (flight_.empty()) out_.time.gpu_s += seconds_since(busy_since_);
        if (stop) {
            out_.interrupted = true;
            break;
        }
        record(done.p.cfg, std::move(done.r));
        fill_queue();
    }
    out_.time.wall_s = seconds_since(t0_);
    out_.records = store_->query({id, "", 0, false});
    return out_;
}

// Jobs go to the GPU side as soon as it can take them (max_in_flight: the worker holds the
// next one while it measures the current), so that it never waits for the hand-over. Failed
// compiles are stored on the way, without the GPU.
void pipeline::hand_over() {
    while (flight_.size() < session_->max_in_flight() && !queue_.empty() && !stopping() &&
           !out_of_time()) {
        // With a job in flight, wait for no compile: the next one can go over later.
        if (!flight_.empty() && !queue_.front().result) {
            drain();
            if (!queue_.front().result) return;
        }
        wait_head();
        pending head = std::move(queue_.front());
        queue_.pop_front();
        bindings scope = head.cfg.scope(s_, space_->base());
        eval_record r;
        job j;
        if (start_eval(head, scope, r, j)) {
            if (flight_.empty()) busy_since_ = steady_clock::now();
            session_->submit(j);
            flight_.push_back(in_flight{std::move(head), std::move(scope), std::move(r)});
        } else {  // a compile or launch-size failure: complete without the GPU
            record(head.cfg, std::move(r));
        }
        fill_queue();
    }
}

void pipeline::fill_queue() {
    const std::size_t window = static_cast<std::size_t>(2 * pool_->jobs() + 4);
    while (!exhausted_ && queue_.size() < window) {
        if (max_evals_ > 0 && started_ >= static_cast<std::size_t>(max_evals_)) {
            exhausted_ = true;
            break;
        }
        std::optional<config> c = strategy_->next();
        if (!c) {
            exhausted_ = true;
            break;
        }
        pending p;
        p.key = c->key(s_);
        if (!opt_.only.empty() && p.key != opt_.only) continue;
        const auto it = done_.find(p.key);
        if (it != done_.end() && !(opt_.retry_failed && is_fault(it->second))) {
            ++out_.resumed;
            continue;
        }
        const bindings scope = c->scope(s_, space_->base());
        p.ticket = pool_->submit(make_compile_request(s_, *c, scope, out_.device.attrs.arch()));
        p.cfg = std::move(*c);
        queue_.push_back(std::move(p));
        ++started_;
    }
    state_.compiling = pool_->in_flight();
}

void pipeline::assign(std::pair<uint64_t, compile_result>&& got) {
    for (auto& p : queue_) {
        if (p.ticket == got.first) {
            p.result = std::move(got.second);
            return;
        }
    }
}

void pipeline::drain() {
    while (pool_->in_flight() > 0) {
        auto got = pool_->wait(0);
        if (!got) break;
        assign(std::move(*got));
    }
}

void pipeline::wait_head() {
    const auto t = steady_clock::now();
    while (!queue_.front().result) {
        auto got = pool_->wait(-1);
        if (!got) throw std::logic_error("compile pool returned nothing with work in flight");
        assign(std::move(*got));
    }
    out_.time.compile_wait_s += seconds_since(t);
}

// Fills what a record needs before the GPU; true when job j must run on it, false when the
// record is complete already (a compile or launch-size failure).
bool pipeline::start_eval(const pending& p, const bindings& scope, eval_record& r, job& j) {
    r.key = p.key;
    for (std::size_t i = 0; i < s_.params.size(); ++i) r.params.emplace_back(s_.params[i].name, p.cfg.values[i]);
    const compile_result& cr = *p.result;
    r.compile_ms = cr.compile_ms;
    r.compile_cached = cr.from_cache;
    r.resources = cr.resources;
    // ptxas's report could not be read: keep the log that should have had it.
    if (cr.ok && cr.resources.registers < 0) r.compile_log = cr.log;
    out_.time.compile_cpu_s += cr.from_cache ? 0.0 : cr.compile_ms / 1000.0;
    (cr.from_cache ? out_.cache_hits : out_.compiled) += 1;
    if (!cr.ok) {
        r.st = cr.timed_out ? status::compile_timeout : status::compile_error;
        r.message = cr.timed_out ? "compile deadline passed"
                    : cr.crashed ? "the compiler process died: " + first_error_line(cr.log)
                                 : first_error_line(cr.log);
        r.compile_log = cr.log;
        return false;
    }
    j.key = p.key;
    try {
        const launch_dims d = eval_launch(s_, s_.launch.grid, s_.launch.block, scope);
        r.grid = d.grid;
        r.block = d.block;
        r.dynamic_shared_bytes = static_cast<int>(d.shared_bytes);
        j.launch.grid = d.grid;
        j.launch.block = d.block;
        j.launch.shared_bytes = d.shared_bytes;
        j.launch.args = eval_args(s_, scope);
        j.launch.memory = eval_memory(s_, scope);
    } catch (const input_error& e) {
        r.st = status::launch_error;
        r.message = e.what();
        return false;
    }
    j.launch.cubin = cr.cubin;
    j.launch.function = cr.lowered_name;
    j.verify = s_.verify.ref != reference_kind::none;
    j.deadline_s = job_deadline_s(s_.timing, out_.time.prepare.reference_us);
    return true;
}

void pipeline::finish_eval(const bindings& scope, eval_record& r, job_result&& g) {
    r.gpu = std::move(g);
    out_.time.worker_s += r.gpu.wall_s;
    out_.time.gpu_steps += r.gpu.steps;
    out_.time.gpu_busy_s += r.gpu.gpu_busy_s;
    out_.time.gpu_span_s += r.gpu.gpu_span_s;
    r.st = r.gpu.st;
    r.message = r.gpu.message;
    if (has_timing(r.st) && r.gpu.time_us.median > 0) {
        const double secs = r.gpu.time_us.median * 1e-6;
        if (s_.metrics.bytes) r.gbps = s_.metrics.bytes->eval_real(scope) / secs / 1e9;
        if (s_.metrics.flops) r.gflops = s_.metrics.flops->eval_real(scope) / secs / 1e9;
    }
}

void pipeline::record(const config& c, eval_record&& r) {
    const auto t = steady_clock::now();
    store_->put(run_id_, r);
    out_.time.store_s += seconds_since(t);
    ++out_.evaluated;
    ++state_.done;
    const std::optional<double> obj = objective_score(r, stored_rank_by(out_.identity));
    if (!obj) ++state_.failures;
    if (obj && (!best_obj_ || *obj < *best_obj_)) {
        best_obj_ = obj;
        state_.best = r;
    }
    strategy_->report(c, obj);
    if (opt_.on_result) opt_.on_result(r);
    report_progress();
}

void pipeline::report_progress() {
    state_.elapsed_s = seconds_since(t0_);
    drain();
    state_.compiling = pool_->in_flight();
    state_.measuring = flight_.size();
    state_.compiled_ahead = 0;
    for (const auto& p : queue_) state_.compiled_ahead += p.result ? 1 : 0;
    const double per = (state_.elapsed_s - out_.time.setup_s) / static_cast<double>(state_.done);
    state_.eta_s = per * static_cast<double>(state_.total - std::min(state_.total, state_.done));
    if (opt_.on_progress) opt_.on_progress(state_);
}

}  // namespace

tune_result tune(const spec& s, const tune_options& opt) { return pipeline(s, opt).run(); }

}  // namespace hone
