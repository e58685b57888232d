// The tuning pipeline: the strategy hands out configurations, the compile pool works ahead of
// the GPUs, the GPU sessions measure (each configuration on whichever GPU has room), every
// result is stored as it finishes, by this thread alone. With several GPUs, the best are
// measured again on the first (the final word).
#include "hone/tuner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <map>
#include <set>
#include <stdexcept>
#include <string_view>

#include "common/clock.hpp"
#include "common/trace.hpp"
#include "compile/compile_cache.hpp"
#include "compile/compile_hint.hpp"
#include "compile/compile_pool.hpp"
#include "hone/store.hpp"
#include "measure/stats.hpp"
#include "report/final_word.hpp"
#include "report/report.hpp"
#include "search/strategy.hpp"
#include "tune/diagnostics.hpp"
#include "tune/gpu_pool.hpp"
#include "tune/gpu_share.hpp"
#include "tune/internal.hpp"
#include "tune/sessions.hpp"
#include "tune/shard_domain.hpp"
#include "worker/worker_session.hpp"

namespace hone {
namespace {

struct pending {
    point pt;
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
    job j;             // kept to hand it to another GPU if its own is dropped
    int attempts = 0;  // GPUs it was lost with
};

// A job lost with this many GPUs (each dropped while it ran) is stored as a fault rather than
// handed to yet another: it may be what brings them down.
constexpr int max_attempts = 2;

// What the strategy is told of a result: smaller is better; nullopt when the record has no usable
// objective (a failure, or a run without the metric).
std::optional<double> objective(const spec& s, const eval_record& r) {
    return objective_score(
        r, parse_rank_by(s.metrics.objective.empty() ? "time" : s.metrics.objective));
}

// A kernel that syncs its grid faults when it is not launched cooperatively: said where such a
// source faults (or its reference fails) without launch.cooperative.
std::string cooperative_hint(const spec& s) {
    const std::string& src = s.kernel.source_text;
    if (s.launch.cooperative ||
        (src.find("this_grid") == std::string::npos && src.find("grid_group") == std::string::npos))
        return "";
    return "hint: the source uses cooperative groups' grid (this_grid, grid_group), whose "
           "sync needs every block resident at once: set launch.cooperative: true";
}

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
    // A pool kept for other runs is left with nothing of this one in flight, whatever ended it.
    ~pipeline() {
        if (opt_.share) opt_.share->close();  // before the GPU pool goes
        if (pool_ && opt_.pool) pool_->abandon();
    }
    pipeline(const pipeline&) = delete;
    pipeline& operator=(const pipeline&) = delete;

    tune_result run();

  private:
    void fill_queue();
    void compile_ahead();
    void wait_head();
    void hand_over();
    void submit(in_flight&& f);
    void open_sessions();
    // out_.devices[slot], with the GPUs that joined since (gpu_share) added first.
    const device_info& device_of(std::size_t slot);
    // Results of this run came from more than one GPU, or may: the final word is due.
    bool several_gpus() const { return first_sessions_ > 1 || out_.measured_by.size() > 1; }
    void run_final_word();
    bool stopping() const { return opt_.stop && *opt_.stop; }
    bool out_of_time() const { return time_limit_s_ > 0 && seconds_since(t0_) > time_limit_s_; }
    void make_search();
    std::optional<point> point_of(const config& c) const;
    std::optional<point> point_of_key(const std::string& key) const;
    bool start_eval(const pending& p, const bindings& scope, eval_record& r, job& j);
    void finish_eval(const bindings& scope, eval_record& r, job_result&& g, std::size_t slot);
    void record(const point& p, eval_record&& r);
    void drain();
    void assign(std::pair<uint64_t, compile_result>&& got);
    void report_progress();
    std::string stop_reason() const;

    const spec& s_;
    const tune_options& opt_;
    tune_result out_;
    time_split time_;
    steady_clock::time_point t0_ = steady_clock::now();
    std::unique_ptr<gpu_pool> gpus_;
    std::size_t first_sessions_ = 0;  // the run's own GPUs, before any joined
    std::unique_ptr<search_space> space_;
    std::unique_ptr<shard_domain> shard_;  // --shard: the part of the space this process owns
    std::unique_ptr<strategy> strategy_;   // may search shard_
    std::string strategy_name_;            // as resolved
    std::unique_ptr<compile_cache> cache_;
    std::shared_ptr<compile_pool> pool_;
    compile_pool_counts counts_at_start_;  // a pool kept across runs counts them all
    std::set<point> ahead_asked_;          // offered to compile_ahead already
    bool ahead_on_ = false;
    std::unique_ptr<results_store> store_;
    int64_t run_id_ = 0;
    std::deque<pending> queue_;
    std::map<uint64_t, in_flight> flight_;  // handed to the GPU side, by tag
    std::deque<in_flight> retry_;           // lost with a dropped GPU: to hand to another
    uint64_t next_tag_ = 0;
    steady_clock::time_point busy_since_;  // when flight_ last became non-empty
    bool exhausted_ = false;
    uint64_t budget_ = 0;  // evaluations in all, resumed ones included; 0 = none
    double time_limit_s_ = 0;
    std::size_t started_ = 0;
    pipeline_state state_;
    std::optional<double> best_obj_;
};

void pipeline::open_sessions() {
    std::vector<std::shared_ptr<gpu_session>> sessions = opt_.sessions;
    if (sessions.empty() && opt_.session) sessions.push_back(opt_.session);
    if (sessions.empty())
        sessions = open_gpu_sessions(
            opt_.devices.empty() ? std::vector<int>{opt_.device} : opt_.devices, opt_.isolated,
            opt_.on_message, timer_wants_profiler(s_.timing.timer));
    check_one_model(sessions);
    for (const auto& g : sessions) out_.devices.push_back(g->device());
    first_sessions_ = sessions.size();
    gpus_ = std::make_unique<gpu_pool>(std::move(sessions), opt_.on_message, opt_.share != nullptr);
}

const device_info& pipeline::device_of(std::size_t slot) {
    while (out_.devices.size() <= slot)
        out_.devices.push_back(gpus_->session(out_.devices.size()).device());
    return out_.devices[slot];
}

tune_result pipeline::run() {
    open_sessions();
    time_.session_start_s = seconds_since(t0_);
    trace_mark("run: sessions open");
    out_.device = out_.devices.front();
    bindings base = s_.problem_bindings();
    out_.device.attrs.add_to(base);
    space_ = std::make_unique<search_space>(s_, base);
    space_->require_nonempty();

    out_.output = opt_.output.empty() ? s_.output : opt_.output;
    store_ = std::make_unique<results_store>(out_.output);
    out_.identity = make_identity(s_, out_.device);
    if (opt_.shard.active()) out_.identity.device_uuid.clear();  // see tune_options::shard
    const std::string id = out_.identity.id();
    if (opt_.fresh) store_->forget(id, false);
    run_id_ = store_->begin_run(out_.identity);
    trace_mark("run: store open");

    time_limit_s_ = opt_.time_limit_s >= 0 ? opt_.time_limit_s : s_.search.time_limit_s;
    make_search();
    if (out_.resumed ==
        0)  // nothing to resume: say why older results of the same config do not count
        if (const auto previous = store_->previous_run(out_.identity))
            out_.remeasure_reason = describe_change(previous->identity, out_.identity);
    if (opt_.pool) {
        pool_ = opt_.pool;
    } else {
        if (opt_.use_cache) {
            cache_ = std::make_unique<compile_cache>(
                opt_.cache_dir.empty() ? compile_cache::default_dir() : opt_.cache_dir);
        }
        const int jobs = opt_.jobs > 0 ? opt_.jobs : default_jobs();
        pool_ =
            std::make_shared<compile_pool>(jobs, cache_.get(), std::max(60.0, s_.timing.timeout_s));
        for (const auto& c : opt_.compilers) pool_->add_remote(c);
    }
    counts_at_start_ = pool_->counts();
    const char* ahead_env = std::getenv("HONE_COMPILE_AHEAD");
    ahead_on_ = opt_.compile_ahead && !(ahead_env && std::string_view(ahead_env) == "0");

    const std::string arch = out_.device.attrs.arch();
    const bool final_word_due =
        gpus_->size() > 1 && (state_.total > 0 || store_->final_word(id).empty());
    if (state_.total > 0 || final_word_due) {
        run_plan plan = make_run_plan(s_, *space_);
        // Through the pool, like every compile: NVRTC never runs in this process, which may be
        // an application's (NVRTC may initialise the driver in its process).
        auto t = steady_clock::now();
        // The first configurations are handed to the pool behind the reference, so that they
        // compile beside it rather than after it.
        plan.reference = make_reference(s_, *space_, arch, [&](const compile_request& req) {
            const uint64_t ticket = pool_->submit(req);
            fill_queue();
            for (;;) {
                auto got = pool_->wait(-1);
                if (!got) throw std::logic_error("compile pool lost the reference compile");
                if (got->first == ticket) return std::move(got->second);
                assign(std::move(*got));
            }
        });
        time_.reference_compile_s = seconds_since(t);
        trace_mark("run: reference compiled");
        fill_queue();  // the first configurations compile while the GPU side prepares
        t = steady_clock::now();
        std::vector<std::optional<prepare_report>> reports;
        try {
            // In this thread: a worker that a failed prepare replaces dies with the thread that
            // started it (PR_SET_PDEATHSIG).
            reports = gpus_->prepare(plan);
        } catch (const env_error& e) {
            const std::string hint = cooperative_hint(s_);
            if (hint.empty()) throw;
            throw env_error(std::string(e.what()) + "\n" + hint);
        }
        for (const auto& r : reports)
            if (r) {
                time_.prepare = *r;  // the first prepared GPU's (the reference's)
                break;
            }
        time_.prepare_s = seconds_since(t);
    }
    time_.setup_s = seconds_since(t0_);
    // New results make an earlier final word stale; a run on several GPUs gives a new one.
    if (state_.total > 0) store_->set_final_word(run_id_, "");
    if (opt_.share && (state_.total > 0 || final_word_due))
        opt_.share->open(*gpus_, state_.total, several_gpus());
    trace_mark("run: prepared");

    // Each result is stored while the next job runs (hand_over).
    fill_queue();
    for (;;) {
        hand_over();
        if (flight_.empty()) {
            out_.interrupted = stopping() && (!queue_.empty() || !retry_.empty());
            break;
        }
        // A GPU with room waits for a compile only: the other GPUs' results are taken as they
        // come meanwhile.
        const bool compile_bound =
            gpus_->room() > 0 && retry_.empty() && !queue_.empty() && !queue_.front().result;
        // A GPU lent to the run gets work as soon as it is prepared, not after the next result.
        std::optional<gpu_done> got = gpus_->wait(compile_bound ? 0.002 : -1.0, true);
        if (!got) continue;
        auto it = flight_.find(got->tag);
        if (it == flight_.end()) throw std::logic_error("a GPU result for no job in flight");
        in_flight done = std::move(it->second);
        flight_.erase(it);
        if (!got->result) {  // lost with its GPU, which was dropped
            if (gpus_->live_count() == 0) {
                gpus_->abandon();
                throw env_error(
                    fmt::format("every GPU of the run was dropped ({}); the {} results "
                                "stored so far are kept: run the same command to resume",
                                fmt::join(gpus_->dropped(), "; "), state_.done));
            }
            if (++done.attempts < max_attempts) {
                retry_.push_back(std::move(done));
                continue;
            }
            job_result lost;
            lost.st = status::runtime_fault;
            lost.message =
                fmt::format("lost with {} GPUs, each dropped while it ran", done.attempts);
            got->result = std::move(lost);
        }
        finish_eval(done.scope, done.r, std::move(*got->result), got->slot);
        // On a stop, the configurations in flight are abandoned, not stored; none is left in
        // the sessions (an application's own session stays usable).
        const bool stop = stopping();  // read once: a signal may set it at any time
        if (stop) {
            gpus_->abandon();
            flight_.clear();
        }
        if (flight_.empty()) time_.gpu_s += seconds_since(busy_since_);
        if (stop) {
            out_.interrupted = true;
            break;
        }
        record(done.p.pt, std::move(done.r));
        fill_queue();
    }
    if (opt_.share) opt_.share->close();  // the GPUs that joined stay for the final word
    trace_mark("run: search ended");
    device_of(gpus_->size() - 1);  // every GPU that joined is in out_.devices, as results name it
    out_.dropped = gpus_->dropped();
    if (!out_.interrupted && !stopping() && several_gpus() &&
        (out_.evaluated > 0 || store_->final_word(id).empty())) {
        const auto t = steady_clock::now();
        run_final_word();
        time_.final_word_s = seconds_since(t);
    } else if (const auto stored = final_word_from_json(store_->final_word(id)))
        out_.final = stored;
    time_.compiled_ahead = pool_->counts().ahead - counts_at_start_.ahead;
    time_.ahead_used = pool_->counts().ahead_used - counts_at_start_.ahead_used;
    time_.wall_s = seconds_since(t0_);
    trace_mark("run: final word given");
    if (opt_.diagnostics) opt_.diagnostics->time = time_;
    out_.records = store_->query({id, "", 0, false});
    if (!out_.interrupted) out_.stop_reason = stop_reason();
    trace_mark("run: results read back");
    return out_;
}

void pipeline::submit(in_flight&& f) {
    if (flight_.empty()) busy_since_ = steady_clock::now();
    const uint64_t tag = next_tag_++;
    gpus_->submit(tag, f.j);
    flight_.emplace(tag, std::move(f));
}

// Why a run that was not interrupted evaluated fewer than its budget; "" when it did not.
std::string pipeline::stop_reason() const {
    const uint64_t done = out_.resumed + out_.evaluated;
    const std::optional<uint64_t> count =
        opt_.only.empty() ? space_->count() : std::optional<uint64_t>(1);
    if (budget_ > 0 && done >= budget_) {
        if (out_.evaluated > 0) return "";
        return fmt::format(
            "nothing to evaluate: the {} stored results meet the budget of {} "
            "(a larger --max-evals goes on from them; --fresh starts over)",
            out_.resumed, budget_);
    }
    if (count && done >= *count) {
        if (budget_ == 0) return "";
        return fmt::format("every valid configuration is evaluated ({} of the budget's {})", done,
                           budget_);
    }
    if (out_of_time())
        return fmt::format("the time limit of {:g} s ended the run after {} evaluations",
                           time_limit_s_, done);
    return fmt::format("strategy {} found no configuration left to propose after {} evaluations{}",
                       strategy_name_, done,
                       budget_ > 0 ? fmt::format(" of the budget's {}", budget_) : "");
}

// Jobs go to the GPU side as soon as it can take them (max_in_flight: the worker holds the
// next one while it measures the current), so that it never waits for the hand-over. Failed
// compiles are stored on the way, without the GPU.
void pipeline::hand_over() {
    while (gpus_->room() > 0 && (!retry_.empty() || !queue_.empty()) && !stopping() &&
           !out_of_time()) {
        if (!retry_.empty()) {
            in_flight again = std::move(retry_.front());
            retry_.pop_front();
            submit(std::move(again));
            continue;
        }
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
            submit(in_flight{std::move(head), std::move(scope), std::move(r), std::move(j)});
        } else {  // a compile or launch-size failure: complete without the GPU
            record(head.pt, std::move(r));
        }
        fill_queue();
    }
}

// After the search, with several GPUs: the finalists (finalists()) measured final_rounds times
// on the reference GPU, interleaved, and once on every other GPU at the same time. The winner
// and its ties come from the reference GPU's rounds alone.
void pipeline::run_final_word() {
    const std::size_t ref = gpus_->first_live();
    if (ref >= gpus_->size()) return;
    const rank_by by = stored_rank_by(out_.identity);
    const std::vector<eval_record> records = store_->query({out_.identity.id(), "", 0, false});
    const std::vector<const eval_record*> chosen = finalists(records, by);
    if (chosen.empty()) return;
    // A run that began on one GPU and was lent others meanwhile needs one card's word only where
    // its finalists were measured on several: otherwise their ranking already is one card's, as
    // in a run on one GPU (a GPU lent near the end would add a final word to the critical path).
    if (first_sessions_ == 1 && std::ranges::all_of(chosen, [&](const eval_record* r) {
            return !r->device_uuid.empty() && r->device_uuid == chosen.front()->device_uuid;
        }))
        return;

    // Their jobs, compiled again (from the cache, as a rule).
    struct finalist {
        const eval_record* rec;
        pending p;
        bindings scope;
        eval_record r;
        job j;
    };
    std::vector<finalist> fs;
    for (const eval_record* rec : chosen) {
        std::map<std::string, value> params(rec->params.begin(), rec->params.end());
        std::optional<point> pt;
        try {
            pt = point_of(space_->make_config(params, {}));
        } catch (const input_error&) {
        }
        if (!pt) continue;
        finalist f{rec, {}, {}, {}, {}};
        f.p.cfg = space_->to_config(*pt);
        f.p.key = f.p.cfg.key(s_);
        f.p.pt = *pt;
        f.scope = f.p.cfg.scope(s_, space_->base());
        f.p.ticket =
            pool_->submit(make_compile_request(s_, f.p.cfg, f.scope, out_.device.attrs.arch()));
        fs.push_back(std::move(f));
    }
    for (std::size_t left = fs.size(); left > 0;) {
        auto got = pool_->wait(-1);
        if (!got) throw std::logic_error("compile pool returned nothing with work in flight");
        for (auto& f : fs)
            if (f.p.ticket == got->first && !f.p.result) {
                f.p.result = std::move(got->second);
                --left;
            }
    }
    std::erase_if(fs, [&](finalist& f) { return !start_eval(f.p, f.scope, f.r, f.j); });
    if (fs.empty()) return;
    if (trace_on()) trace_mark(fmt::format("run: final word, {} finalists compiled", fs.size()));

    // Tags: round * n + i on the reference GPU; final_rounds * n + slot * n + i elsewhere.
    const std::size_t n = fs.size();
    std::size_t expected = 0;
    for (int round = 0; round < final_rounds; ++round)
        for (std::size_t k = 0; k < n; ++k) {
            const std::size_t i = round % 2 == 0 ? k : n - 1 - k;
            gpus_->submit_to(ref, static_cast<uint64_t>(round) * n + i, fs[i].j);
            ++expected;
        }
    for (std::size_t g = 0; g < gpus_->size(); ++g) {
        if (g == ref || !gpus_->live(g)) continue;
        for (std::size_t i = 0; i < n; ++i) {
            gpus_->submit_to(g, final_rounds * n + g * n + i, fs[i].j);
            ++expected;
        }
    }
    std::vector<std::vector<double>> samples(n);
    std::vector<status> st(n, status::ok);
    std::vector<gpu_telemetry> tele(n);
    std::vector<std::vector<other_gpu_time>> others(n);
    for (; expected > 0; --expected) {
        const gpu_done d = *gpus_->wait();
        if (!d.result) continue;  // lost with a GPU dropped meanwhile
        const job_result& g = *d.result;
        if (d.tag < final_rounds * n) {
            const std::size_t i = d.tag % n;
            if (!has_timing(g.st)) {
                if (st[i] == status::ok) st[i] = g.st;
                continue;
            }
            samples[i].insert(samples[i].end(), g.samples_us.begin(), g.samples_us.end());
            tele[i] = g.telemetry;
        } else {
            const std::size_t i = (d.tag - final_rounds * n) % n;
            const device_info& dev = out_.devices[d.slot];
            others[i].push_back({dev.ordinal, dev.uuid, has_timing(g.st) ? g.time_us.median : 0.0});
        }
    }

    final_word w;
    w.device = out_.devices[ref].ordinal;
    w.device_uuid = out_.devices[ref].uuid;
    w.devices.push_back(w.device);
    for (std::size_t g = 0; g < out_.devices.size(); ++g)
        if (g != ref) w.devices.push_back(out_.devices[g].ordinal);
    std::vector<double> ratios;
    for (std::size_t i = 0; i < n; ++i) {
        final_entry e;
        e.key = fs[i].p.key;
        e.search_median_us = fs[i].rec->gpu.time_us.median;
        e.st = samples[i].empty() && st[i] == status::ok ? status::runtime_fault : st[i];
        if (!samples[i].empty()) {
            e.st = status::ok;
            job_result g;
            g.st = status::ok;
            g.samples_us = samples[i];
            g.time_us = summarize(samples[i]);
            eval_record r = fs[i].r;
            finish_eval(fs[i].scope, r, std::move(g), ref);
            e.time_us = r.gpu.time_us;
            e.objective = objective_score(r, by).value_or(0.0);
            for (const auto& o : others[i])
                if (o.median_us > 0 && e.time_us.median > 0)
                    ratios.push_back(o.median_us / e.time_us.median);
        }
        e.telemetry = tele[i];
        e.others = std::move(others[i]);
        w.entries.push_back(std::move(e));
    }
    decide(w);
    w.agreement = summarize_agreement(std::move(ratios));
    store_->set_final_word(run_id_, to_json_text(w));
    out_.final = std::move(w);
}

void pipeline::fill_queue() {
    // Enough to keep the compile workers busy, plus whatever the GPUs beyond the first take at
    // once: with several GPUs the strategy is asked for batches as wide as they can measure.
    const std::size_t extra_gpus = gpus_->capacity() - std::min(gpus_->capacity(), gpus_->depth(0));
    const std::size_t window = static_cast<std::size_t>(2 * pool_->jobs() + 4) + extra_gpus;
    while (!exhausted_ && queue_.size() < window) {
        const uint64_t spent = started_ + out_.resumed;
        if (budget_ > 0 && spent >= budget_) {
            exhausted_ = true;
            break;
        }
        std::size_t want = window - queue_.size();
        if (budget_ > 0) want = static_cast<std::size_t>(std::min<uint64_t>(want, budget_ - spent));
        std::vector<point> points = strategy_->propose(want);
        if (points.empty()) {  // finished, or waiting for outcomes of what is queued
            exhausted_ = strategy_->done();
            break;
        }
        for (auto& pt : points) {
            pending p;
            p.cfg = space_->to_config(pt);
            p.key = p.cfg.key(s_);
            p.pt = std::move(pt);
            const bindings scope = p.cfg.scope(s_, space_->base());
            p.ticket =
                pool_->submit(make_compile_request(s_, p.cfg, scope, out_.device.attrs.arch()));
            queue_.push_back(std::move(p));
            ++started_;
        }
    }
    state_.compiling = pool_->in_flight();
    compile_ahead();
}

// Compile workers that the queue leaves idle compile what the strategy expects to propose next
// (strategy::likely), so that a descent's next step is compiled while its current one is
// measured: where the strategy keeps few configurations in flight (auto on a space whose
// compiles take a second), the compiles otherwise set the pace. Two workers stay free for what
// the strategy does propose.
void pipeline::compile_ahead() {
    constexpr std::size_t spare = 2;
    if (!ahead_on_ || !strategy_ || exhausted_) return;
    const std::size_t room = pool_->ahead_room(spare);
    if (room == 0) return;
    const std::string arch = out_.device.attrs.arch();
    std::size_t started = 0;
    for (auto& pt : strategy_->likely(2 * room)) {
        if (started == room) break;
        if (!ahead_asked_.insert(pt).second) continue;
        const config cfg = space_->to_config(pt);
        started += pool_->compile_ahead(
            make_compile_request(s_, cfg, cfg.scope(s_, space_->base()), arch), spare);
    }
}

// The strategy (or the one configuration of --only), told what the store holds already; the
// budget and the progress total.
void pipeline::make_search() {
    const double count =
        space_->count() ? static_cast<double>(*space_->count()) : space_->estimated_count();
    strategy_setup setup;
    setup.name = resolve_strategy(s_.search.strategy, count);
    setup.seed = s_.search.seed;
    for (const auto& o : s_.search.options) setup.options[o.name] = o.value;
    const bool adaptive = find_strategy(setup.name)->adaptive;
    const int64_t given = opt_.max_evals >= 0 ? opt_.max_evals : s_.search.max_evals.value_or(-1);
    if (given == 0 && adaptive && opt_.only.empty()) {
        const source_pos at =
            opt_.max_evals >= 0 ? source_pos{"--max-evals", 0, 0} : s_.search.max_evals_pos;
        throw input_error(
            at, fmt::format("strategy {}{} needs a budget: max_evals >= 1{}", setup.name,
                            s_.search.strategy.empty()
                                ? fmt::format(" (the default for {:.0f} configurations)", count)
                                : "",
                            s_.search.strategy.empty() ? ", or strategy: exhaustive" : ""));
    }
    setup.budget = given > 0 ? given : adaptive ? default_budget : 0;
    bool empty_shard = false;
    if (opt_.shard.active()) {
        const source_pos at{"--shard", 0, 0};
        if (!opt_.only.empty())
            throw input_error(
                at, "--shard splits a run; --only evaluates one configuration: give one of them");
        if (setup.name != "exhaustive" && setup.name != "random")
            throw input_error(
                at, fmt::format("--shard splits exhaustive and random runs; strategy {}{} chooses "
                                "each configuration from the results before it, which one shard "
                                "does not see: set search.strategy to exhaustive or random, or "
                                "spread the run over GPUs and hosts instead (docs/distributed.md)",
                                setup.name,
                                s_.search.strategy.empty()
                                    ? fmt::format(" (the default for {:.0f} configurations)", count)
                                    : ""));
        // A budget smaller than the number of shards leaves some shards nothing to do.
        empty_shard =
            setup.budget > 0 && shard_share(static_cast<uint64_t>(setup.budget), opt_.shard) == 0;
        setup.budget =
            static_cast<int64_t>(shard_share(static_cast<uint64_t>(setup.budget), opt_.shard));
        shard_ = std::make_unique<shard_domain>(*space_, s_, opt_.shard);
    }
    budget_ = opt_.only.empty() ? static_cast<uint64_t>(setup.budget) : 0;
    strategy_name_ = opt_.only.empty() ? setup.name : "--only";

    std::optional<point> only;
    if (!opt_.only.empty()) {
        only = point_of_key(opt_.only);
        if (!only) {
            std::mt19937_64 rng(1);
            const auto example = space_->sample(rng);
            throw input_error(
                {"--only", 0, 0},
                fmt::format("'{}' is not a configuration of the space (keys look like '{}')",
                            opt_.only, example ? space_->to_config(*example).key(s_) : ""));
        }
        strategy_ = make_list_strategy(*space_, 1, [p = *only](uint64_t) { return p; });
    } else if (empty_shard) {
        strategy_ = make_list_strategy(*space_, 0, [this](uint64_t i) { return space_->at(i); });
    } else if (shard_ && setup.name == "exhaustive" && shard_->count()) {
        strategy_ = make_list_strategy(*space_, *shard_->count(),
                                       [this](uint64_t i) { return shard_->at(i); });
    } else if (shard_) {
        strategy_ = make_strategy(setup, *shard_);
    } else {
        strategy_ = make_strategy(setup, *space_, [this](uint64_t i) { return space_->at(i); });
    }

    // Stored results count as evaluated: observed, never proposed again.
    for (const auto& rec : store_->query({out_.identity.id(), "", 0, false})) {
        if (opt_.retry_failed && is_fault(rec.st)) continue;
        if (!opt_.shard.owns_key(rec.key)) continue;  // another shard's, in a shared database
        std::map<std::string, value> params(rec.params.begin(), rec.params.end());
        std::optional<point> p;
        try {
            p = point_of(space_->make_config(params, {}));
        } catch (const input_error&) {
            continue;  // a value the space no longer lists
        }
        if (!p || (only && *p != *only)) continue;
        strategy_->observe(*p, objective(s_, rec));
        ++out_.resumed;
    }
    double left = only ? 1.0 : empty_shard ? 0.0 : shard_ ? shard_->estimated_count() : count;
    left = std::max(0.0, left - static_cast<double>(out_.resumed));
    if (budget_ > 0)
        left = std::min(left,
                        static_cast<double>(budget_ - std::min<uint64_t>(budget_, out_.resumed)));
    state_.total = static_cast<std::size_t>(left);
}

std::optional<point> pipeline::point_of(const config& c) const {
    try {
        point p = space_->to_point(c);
        if (space_->contains(p)) return p;
    } catch (const std::exception&) {
    }
    return std::nullopt;
}

// The configuration whose key is `key`: each parameter's value is the one whose text, in the
// key, is followed by the next parameter's name (or the end).
std::optional<point> pipeline::point_of_key(const std::string& key) const {
    std::vector<config> partial(1);
    for (std::size_t i = 0; i < s_.params.size(); ++i) {
        std::vector<config> next;
        for (const auto& c : partial) {
            for (const auto& v : s_.params[i].values) {
                config d = c;
                d.values.push_back(v);
                const std::string k = d.key(s_);
                const bool last = i + 1 == s_.params.size();
                if (key.compare(0, k.size(), k) == 0 &&
                    (last ? key.size() == k.size() : key.size() > k.size() && key[k.size()] == ','))
                    next.push_back(std::move(d));
            }
        }
        partial = std::move(next);
    }
    for (const auto& c : partial)
        if (auto p = point_of(c)) return p;
    return std::nullopt;
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
    time_.compile_wait_s += seconds_since(t);
}

// Fills what a record needs before the GPU; true when job j must run on it, false when the
// record is complete already (a compile or launch-size failure).
bool pipeline::start_eval(const pending& p, const bindings& scope, eval_record& r, job& j) {
    r.key = p.key;
    for (std::size_t i = 0; i < s_.params.size(); ++i)
        r.params.emplace_back(s_.params[i].name, p.cfg.values[i]);
    const compile_result& cr = *p.result;
    r.compile_ms = cr.compile_ms;
    r.compile_cached = cr.from_cache;
    r.resources = cr.resources;
    // ptxas's report could not be read: keep the log that should have had it.
    if (cr.ok && cr.resources.registers < 0) r.compile_log = cr.log;
    time_.compile_cpu_s += cr.from_cache ? 0.0 : cr.compile_ms / 1000.0;
    (cr.from_cache ? out_.cache_hits : out_.compiled) += 1;
    if (!cr.ok) {
        r.st = cr.timed_out ? status::compile_timeout : status::compile_error;
        r.message = cr.timed_out ? "compile deadline passed"
                    : cr.crashed ? "the compiler process died: " + first_error_line(cr.log)
                                 : first_error_line(cr.log);
        r.compile_log = cr.log;
        if (const std::string hint = compile_hint(s_, cr.log); !hint.empty()) {
            r.message += "; " + hint;
            r.compile_log += "\n" + hint;
        }
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
        j.launch.cooperative = s_.launch.cooperative;
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
    j.deadline_s = job_deadline_s(s_.timing, time_.prepare.reference_us);
    return true;
}

void pipeline::finish_eval(const bindings& scope, eval_record& r, job_result&& g,
                           std::size_t slot) {
    r.gpu = std::move(g);
    r.device = device_of(slot).ordinal;
    r.device_uuid = device_of(slot).uuid;
    time_.worker_s += r.gpu.wall_s;
    time_.gpu_steps += r.gpu.steps;
    time_.gpu_busy_s += r.gpu.gpu_busy_s;
    time_.gpu_span_s += r.gpu.gpu_span_s;
    r.st = r.gpu.st;
    r.message = r.gpu.message;
    if (r.st == status::runtime_fault || r.st == status::launch_error)
        if (const std::string hint = cooperative_hint(s_); !hint.empty()) r.message += "; " + hint;
    if (has_timing(r.st) && r.gpu.time_us.median > 0) {
        const double secs = r.gpu.time_us.median * 1e-6;
        if (s_.metrics.bytes) r.gbps = s_.metrics.bytes->eval_real(scope) / secs / 1e9;
        if (s_.metrics.flops) r.gflops = s_.metrics.flops->eval_real(scope) / secs / 1e9;
    }
}

void pipeline::record(const point& p, eval_record&& r) {
    const auto t = steady_clock::now();
    store_->put(run_id_, r);
    time_.store_s += seconds_since(t);
    ++out_.evaluated;
    ++state_.done;
    if (r.device >= 0) ++out_.measured_by[r.device];
    const std::optional<double> obj = objective_score(r, stored_rank_by(out_.identity));
    if (!obj) ++state_.failures;
    if (obj && (!best_obj_ || *obj < *best_obj_)) {
        best_obj_ = obj;
        state_.best = r;
    }
    strategy_->observe(p, obj);
    if (opt_.share)
        opt_.share->progress(state_.total - std::min(state_.total, state_.done), several_gpus());
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
    const double per = (state_.elapsed_s - time_.setup_s) / static_cast<double>(state_.done);
    state_.eta_s = per * static_cast<double>(state_.total - std::min(state_.total, state_.done));
    if (opt_.on_progress) opt_.on_progress(state_);
}

}  // namespace

tune_result tune(const spec& s, const tune_options& opt) {
    return pipeline(s, opt).run();
}

std::vector<std::shared_ptr<gpu_session>> open_gpu_sessions(
    const std::vector<int>& devices, bool isolated,
    const std::function<void(const std::string&)>& say, bool profiler_ahead,
    const std::function<void()>& meanwhile) {
    if (devices.empty()) throw input_error({"--devices", 0, 0}, "no GPU given");
    std::set<int> seen;
    for (int d : devices) {
        if (d < 0)
            throw input_error(
                {"--devices", 0, 0},
                fmt::format("{} is not a GPU ordinal (0, 1, ...: see `hone devices`)", d));
        if (!seen.insert(d).second)
            throw input_error({"--devices", 0, 0}, fmt::format("GPU {} is named twice", d));
    }
    std::vector<std::shared_ptr<gpu_session>> out(devices.size());
    std::vector<std::exception_ptr> errors(devices.size());
    if (isolated) {
        // Spawned in the calling thread: a worker dies with the thread that started it
        // (PR_SET_PDEATHSIG), so a worker started from a short-lived thread would be killed
        // when that thread ends. Their CUDA starts overlap.
        auto begun = make_worker_sessions(devices, errors, profiler_ahead, meanwhile);
        for (std::size_t i = 0; i < devices.size(); ++i) out[i] = std::move(begun[i]);
    } else {
        if (meanwhile) meanwhile();
        for (std::size_t i = 0; i < devices.size(); ++i) {
            try {
                out[i] = make_in_process_session(devices[i]);
            } catch (...) {
                errors[i] = std::current_exception();
            }
        }
    }
    std::vector<std::shared_ptr<gpu_session>> started;
    std::exception_ptr first;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        if (out[i]) {
            started.push_back(std::move(out[i]));
            continue;
        }
        if (!first) first = errors[i];
        if (say && devices.size() > 1) {
            try {
                std::rethrow_exception(errors[i]);
            } catch (const std::exception& e) {
                say(fmt::format("GPU {} left out of the run: it did not start: {}", devices[i],
                                e.what()));
            }
        }
    }
    if (started.empty()) std::rethrow_exception(first);
    return started;
}

void check_one_model(const std::vector<std::shared_ptr<gpu_session>>& sessions) {
    if (sessions.empty()) throw input_error({"--devices", 0, 0}, "no GPU session given");
    const device_info& a = sessions.front()->device();
    std::set<std::string> uuids;
    for (const auto& g : sessions) {
        const device_info& b = g->device();
        if (!b.uuid.empty() && !uuids.insert(b.uuid).second)
            throw input_error({"--devices", 0, 0},
                              fmt::format("GPU {} ({}) is in the run twice", b.ordinal, b.uuid));
        if (b.attrs.name != a.attrs.name || b.attrs.sm_count != a.attrs.sm_count ||
            b.attrs.total_mem != a.attrs.total_mem)
            throw input_error(
                {"--devices", 0, 0},
                fmt::format(
                    "GPUs of different models in one run: GPU {} is {} ({} SMs, {} MiB) and "
                    "GPU {} is {} ({} SMs, {} MiB); results of different models do not "
                    "rank together: name GPUs of one model, or add --per-model for one run "
                    "per model",
                    a.ordinal, a.attrs.name, a.attrs.sm_count, a.attrs.total_mem >> 20, b.ordinal,
                    b.attrs.name, b.attrs.sm_count, b.attrs.total_mem >> 20));
    }
}

}  // namespace hone
