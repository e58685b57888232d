// The tuning pipeline without a GPU: real compiles (NVRTC in the pool), a scripted GPU session.
// What it checks: every configuration is measured once, in strategy order, one job at a time;
// the next job is handed over before the last result is stored; failed compiles are stored
// without the GPU; a stop abandons the job in flight and leaves none behind.
#include <doctest/doctest.h>

#include <algorithm>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

#include "compile/compile_cache.hpp"
#include "compile/compile_pool.hpp"
#include "hone/device_attrs.hpp"
#include "hone/spec.hpp"
#include "hone/store.hpp"
#include "hone/tuner.hpp"
#include "measure/stats.hpp"
#include "scoped_env.hpp"
#include "search/strategy.hpp"
#include "temp_dir.hpp"
#include "tune/diagnostics.hpp"
#include "tune/internal.hpp"

using namespace hone;

namespace {

const char* pipeline_kernel = R"(
#if FAIL
#error failing on purpose
#endif
extern "C" __global__ void scale(float* x, long long n) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) x[i] *= X;
}
)";

std::string pipeline_config(const std::string& fail_values) {
    return "kernel: {source: scale.cu, name: scale}\n"
           "problem: {N: 4096}\n"
           "params: {X: [1, 2, 3, 4], FAIL: " +
           fail_values +
           "}\n"
           "buffers: {x: {type: float, count: N, role: inout}}\n"
           "args: [x, {value: N, type: int64}]\n"
           "launch: {grid: [\"ceil_div(N, 256)\"], block: [256]}\n"
           "verify: {reference: {X: 1, FAIL: 0}}\n";
}

std::string config_with(const std::string& fail_values, const std::string& extra) {
    return pipeline_config(fail_values) + extra;
}

// Answers each job with a median of X microseconds, checking that the tuner keeps no more jobs
// in flight than it may.
class scripted_session final : public gpu_session {
  public:
    scripted_session() {
        info_.attrs = nominal_device("sm_90").value();  // what `hone check --arch sm_90` uses
        info_.uuid = "GPU-scripted";
    }
    const device_info& device() const override { return info_; }
    bool isolated() const override { return false; }
    prepare_report prepare(const run_plan& plan) override {
        CHECK(plan.reference.has_value());
        ++prepared;
        return {};
    }
    job_result run(const job&) override {
        FAIL("the tuner uses submit and collect");
        return {};
    }
    std::size_t max_in_flight() const override { return depth; }
    void submit(const job& j) override {
        REQUIRE(submitted.size() - static_cast<std::size_t>(collected) < depth);
        CHECK_FALSE(j.launch.cubin.empty());
        CHECK(j.launch.function == "scale");
        submitted.push_back(j.key);
    }
    job_result collect() override {
        REQUIRE(submitted.size() > static_cast<std::size_t>(collected));
        const std::string& key = submitted[static_cast<std::size_t>(collected)];
        ++collected;
        if (on_collect) on_collect(collected);
        const double us = std::stod(key.substr(key.find("X=") + 2));
        job_result r;
        r.samples_us.assign(10, us);
        r.time_us = summarize(r.samples_us);
        r.gpu_busy_s = r.gpu_span_s = 1e-5;
        return r;
    }

    std::vector<std::string> submitted;
    int collected = 0, prepared = 0;
    std::size_t depth = 2;
    std::function<void(int)> on_collect;

  private:
    device_info info_;
};

struct pipeline_fixture {
    temp_dir dir;
    std::shared_ptr<scripted_session> gpu = std::make_shared<scripted_session>();
    tune_options opt;
    pipeline_fixture() {
        dir.write("scale.cu", pipeline_kernel);
        opt.session = gpu;
        opt.jobs = 2;
        opt.cache_dir = dir.file("cache");
        opt.output = dir.file("results.db");
    }
    // Loads the config and compiles its space into the cache (a first run into another
    // database), so that every compile of the runs under test is ready at once: what the
    // tuner hands over when is then the same on every machine.
    spec load_compiled(const std::string& fail_values) {
        dir.write("scale.yaml", pipeline_config(fail_values));
        const spec s = load_spec(dir.file("scale.yaml"));
        tune_options first = opt;
        first.output = dir.file("first.db");
        first.session = std::make_shared<scripted_session>();
        REQUIRE(tune(s, first).evaluated > 0);
        return s;
    }
};

}  // namespace

TEST_CASE("the pipeline measures each configuration once, storing the last while the next runs") {
    pipeline_fixture f;
    std::size_t depth = 1;
    SUBCASE("one job in flight") {
        depth = 1;
    }
    SUBCASE("two jobs in flight") {
        depth = 2;
    }
    f.gpu->depth = depth;
    CAPTURE(depth);
    const spec s = f.load_compiled("[0]");
    std::vector<std::string> stored;
    std::vector<std::size_t> submitted_when_stored;
    f.opt.on_result = [&](const eval_record& r) {
        stored.push_back(r.key);
        submitted_when_stored.push_back(f.gpu->submitted.size());
    };
    std::vector<std::size_t> measuring;  // what the progress display says is on the GPU side
    f.opt.on_progress = [&](const pipeline_state& st) { measuring.push_back(st.measuring); };
    const tune_result r = tune(s, f.opt);
    CHECK_FALSE(r.interrupted);
    CHECK(f.gpu->prepared == 1);
    CHECK(r.evaluated == 4);
    CHECK(r.cache_hits == 4);
    CHECK(f.gpu->collected == 4);
    REQUIRE(stored.size() == 4);
    // Stored in the order the jobs went out; with two in flight, each but the last after the
    // next job was handed over.
    CHECK(stored == f.gpu->submitted);
    REQUIRE(measuring.size() == stored.size());
    for (std::size_t k = 0; k < stored.size(); ++k) {
        CHECK(submitted_when_stored[k] == std::min(k + depth, stored.size()));
        CHECK(measuring[k] == submitted_when_stored[k] - (k + 1));
    }
    for (const auto& rec : r.records) CHECK(rec.st == status::ok);
}

TEST_CASE("the pipeline stores failed compiles without the GPU, and ranks the rest") {
    pipeline_fixture f;
    const spec s = f.load_compiled("[0, 1]");
    const tune_result r = tune(s, f.opt);
    CHECK(r.evaluated == 8);
    REQUIRE(r.records.size() == 8);
    CHECK(f.gpu->submitted.size() == 4);  // FAIL=1 never reaches the GPU
    CHECK(f.gpu->collected == 4);
    int compile_errors = 0;
    for (const auto& rec : r.records) {
        CAPTURE(rec.key);
        const bool failing = rec.key.find("FAIL=1") != std::string::npos;
        CHECK(rec.st == (failing ? status::compile_error : status::ok));
        if (failing) {
            ++compile_errors;
            CHECK(rec.compile_log.find("failing on purpose") != std::string::npos);
        }
    }
    CHECK(compile_errors == 4);
    const auto best =
        std::min_element(r.records.begin(), r.records.end(), [](const auto& a, const auto& b) {
            if (!has_timing(a.st)) return false;
            if (!has_timing(b.st)) return true;
            return a.gpu.time_us.median < b.gpu.time_us.median;
        });
    CHECK(best->key.find("X=1") != std::string::npos);
}

TEST_CASE("two tunes at once from two threads of one process, each with its compile pool") {
    pipeline_fixture f[2];
    spec specs[2];
    for (int i = 0; i < 2; ++i) {
        specs[i] = f[i].load_compiled("[0, 1]");
        f[i].opt.use_cache = false;  // every compile through the two pools' workers
    }
    tune_result results[2];
    std::string errors[2];
    std::vector<std::thread> threads;
    for (int i = 0; i < 2; ++i) {
        threads.emplace_back([&, i] {
            try {
                results[i] = tune(specs[i], f[i].opt);
            } catch (const std::exception& e) {
                errors[i] = e.what();
            }
        });
    }
    for (auto& t : threads) t.join();
    for (int i = 0; i < 2; ++i) {
        CAPTURE(i);
        CHECK(errors[i] == "");
        CHECK(results[i].evaluated == 8);
        CHECK(results[i].compiled == 8);
        int ok = 0;
        for (const auto& rec : results[i].records) ok += rec.st == status::ok;
        CHECK(ok == 4);
    }
}

TEST_CASE("a stop abandons the jobs in flight, stores what finished, and resumes") {
    pipeline_fixture f;
    const spec s = f.load_compiled("[0]");
    volatile std::sig_atomic_t stop = 0;
    f.opt.stop = &stop;
    f.gpu->on_collect = [&](int n) {
        if (n == 2) stop = 1;  // arrives while the second job runs
    };
    const tune_result first = tune(s, f.opt);
    CHECK(first.interrupted);
    CHECK(first.evaluated == 1);
    CHECK(first.records.size() == 1);
    // The second and third were in flight: both abandoned, and collected.
    CHECK(f.gpu->submitted.size() == 3);
    CHECK(f.gpu->collected == 3);

    stop = 0;
    f.gpu->on_collect = nullptr;
    const tune_result second = tune(s, f.opt);
    CHECK_FALSE(second.interrupted);
    CHECK(second.resumed == 1);
    CHECK(second.evaluated == 3);
    CHECK(second.records.size() == 4);
    CHECK(f.gpu->submitted.size() == 6);  // the abandoned ones again, and one more
}

TEST_CASE(
    "an adaptive strategy: proposals fill the queue, outcomes steer it, the budget and resume "
    "hold") {
    pipeline_fixture f;
    f.dir.write("scale.cu", pipeline_kernel);
    // 4 x 3 = 12 configurations, FAIL=1 failing to compile: information for the strategy.
    f.dir.write("scale.yaml", config_with("[0, 1, 2]",
                                          "search: {strategy: genetic, max_evals: 7, "
                                          "seed: 3, population: 4}\n"));
    const spec s = load_spec(f.dir.file("scale.yaml"));
    std::vector<std::string> stored;
    std::vector<std::size_t> totals;
    f.opt.on_result = [&](const eval_record& r) { stored.push_back(r.key); };
    std::size_t ahead_at_first = 0;
    f.opt.on_progress = [&](const pipeline_state& st) {
        if (totals.empty()) ahead_at_first = st.measuring + st.compiled_ahead + st.compiling;
        totals.push_back(st.total);
    };
    const tune_result first = tune(s, f.opt);
    CHECK(first.evaluated == 7);
    CHECK(first.resumed == 0);
    REQUIRE(stored.size() == 7);
    std::sort(stored.begin(), stored.end());
    CHECK(std::unique(stored.begin(), stored.end()) == stored.end());  // none twice
    for (std::size_t t : totals) CHECK(t == 7);  // the budget, not the 12 of the space
    // The first generation went out at once: others were on their way when the first was stored.
    CHECK(ahead_at_first >= 2);

    // A larger budget resumes: the 7 stored count as evaluated and are never proposed again.
    tune_options more = f.opt;
    more.max_evals = 10;
    std::vector<std::string> again;
    more.on_result = [&](const eval_record& r) { again.push_back(r.key); };
    more.on_progress = nullptr;
    const tune_result second = tune(s, more);
    CHECK(second.resumed == 7);
    CHECK(second.evaluated == 3);
    for (const auto& k : again) CHECK(!std::binary_search(stored.begin(), stored.end(), k));
    CHECK(second.records.size() == 10);

    // The same budget again: nothing left to do.
    more.max_evals = 10;
    CHECK(tune(s, more).evaluated == 0);

    // A strategy that needs a budget refuses none.
    tune_options none = f.opt;
    none.max_evals = 0;
    CHECK_THROWS_WITH_AS(tune(s, none), doctest::Contains("needs a budget"), input_error);
}

TEST_CASE("a run resumed with a larger budget goes on to it, or says why not") {
    pipeline_fixture f;
    // 4 x 66 = 264 configurations; Y, unused by the kernel, makes the space larger.
    std::string ys;
    for (int y = 0; y < 66; ++y) ys += (y ? ", " : "") + std::to_string(y);
    f.dir.write("scale.yaml",
                "kernel: {source: scale.cu, name: scale}\n"
                "problem: {N: 4096}\n"
                "params: {X: [1, 2, 3, 4], FAIL: [0], Y: [" +
                    ys +
                    "]}\n"
                    "buffers: {x: {type: float, count: N, role: inout}}\n"
                    "args: [x, {value: N, type: int64}]\n"
                    "launch: {grid: [\"ceil_div(N, 256)\"], block: [256]}\n"
                    "verify: {reference: {X: 1, FAIL: 0, Y: 0}}\n"
                    "search: {strategy: random, max_evals: 250, seed: 1}\n");
    const spec s = load_spec(f.dir.file("scale.yaml"));
    // What a first run of 250 stores, without its 250 compiles: the configurations random
    // search draws first with seed 1, which the resumed run's generator draws again, in order.
    {
        bindings base = s.problem_bindings();
        f.gpu->device().attrs.add_to(base);
        const search_space space(s, base);
        strategy_setup setup;
        setup.name = "random";
        setup.seed = 1;
        setup.budget = 250;
        auto first = make_strategy(setup, space);
        const std::vector<point> points = first->propose(250);
        REQUIRE(points.size() == 250);
        results_store store(f.opt.output);
        const int64_t run = store.begin_run(make_identity(s, f.gpu->device()));
        for (const point& p : points) {
            const hone::config c = space.to_config(p);
            eval_record r;
            r.key = c.key(s);
            for (std::size_t i = 0; i < s.params.size(); ++i)
                r.params.emplace_back(s.params[i].name, c.values[i]);
            r.gpu.samples_us.assign(10, 5.0);
            r.gpu.time_us = summarize(r.gpu.samples_us);
            store.put(run, r);
        }
    }
    tune_options more = f.opt;
    more.max_evals = 258;
    const tune_result second = tune(s, more);
    CHECK(second.resumed == 250);
    CHECK(second.evaluated == 8);
    CHECK(second.stop_reason == "");
    CHECK(second.records.size() == 258);

    // The same budget again: nothing to evaluate, and the reason.
    const tune_result third = tune(s, more);
    CHECK(third.evaluated == 0);
    CHECK(third.stop_reason.find("the 258 stored results meet the budget of 258") !=
          std::string::npos);

    // A budget beyond the space: every configuration, and that the space ended the run.
    more.max_evals = 300;
    const tune_result fourth = tune(s, more);
    CHECK(fourth.evaluated == 6);
    CHECK(fourth.stop_reason == "every valid configuration is evaluated (264 of the budget's 300)");
}

TEST_CASE("--only evaluates one configuration, whatever the strategy") {
    pipeline_fixture f;
    const spec s = f.load_compiled("[0]");
    f.opt.only = "X=3,FAIL=0";
    const tune_result r = tune(s, f.opt);
    CHECK(r.evaluated == 1);
    REQUIRE(f.gpu->submitted.size() == 1);
    CHECK(f.gpu->submitted[0] == "X=3,FAIL=0");
    CHECK(tune(s, f.opt).evaluated == 0);  // stored: nothing to do
    f.opt.only = "X=5,FAIL=0";
    CHECK_THROWS_WITH_AS(tune(s, f.opt), doctest::Contains("is not a configuration of the space"),
                         input_error);
}

TEST_CASE("a compile pool kept across runs serves each of them, a cut-short run leaving it empty") {
    pipeline_fixture f;
    f.dir.write("scale.yaml", config_with("[0, 1]", ""));
    const spec s = load_spec(f.dir.file("scale.yaml"));
    compile_cache cache(f.opt.cache_dir);
    f.opt.pool = std::make_shared<compile_pool>(2, &cache, 60.0);
    // A budget of 1 of 8 configurations: the run ends with the rest of its window handed to
    // the pool, compiling or queued.
    tune_options first = f.opt;
    first.max_evals = 1;
    first.output = f.dir.file("first.db");
    const tune_result a = tune(s, first);
    CHECK(a.evaluated == 1);
    CHECK(f.opt.pool->in_flight() == 0);
    const uint64_t started = f.opt.pool->counts().workers_started;
    CHECK(started >= 1);
    CHECK(started <= 2);
    // The next run on the same pool and session: every configuration once, nothing of the
    // first run's window answered in its place.
    const tune_result b = tune(s, f.opt);
    CHECK(b.evaluated == 8);
    CHECK(f.gpu->prepared == 2);
    std::vector<std::string> keys;
    for (const auto& r : b.records) keys.push_back(r.key);
    std::sort(keys.begin(), keys.end());
    CHECK(std::unique(keys.begin(), keys.end()) == keys.end());
    std::size_t timed = 0, failed = 0;
    for (const auto& r : b.records) (has_timing(r.st) ? timed : failed) += 1;
    CHECK(timed == 4);
    CHECK(failed == 4);  // FAIL=1 does not compile
    CHECK(f.opt.pool->in_flight() == 0);
    CHECK(f.opt.pool->counts().workers_started <= 2);  // the pool's own, never more than jobs
}

TEST_CASE("idle compile workers compile the descents' next steps ahead, which the run then uses") {
    // gp_climb without its model: random draws, then descents, whose next steps the pool's
    // free workers (6 jobs, 2 kept spare) compile while the current ones are measured.
    pipeline_fixture f;
    f.dir.write("scale.cu", pipeline_kernel);
    f.dir.write("scale.yaml",
                "kernel: {source: scale.cu, name: scale}\n"
                "problem: {N: 4096}\n"
                "params: {X: [1, 2, 3, 4, 5, 6, 7, 8], Y: [0, 1, 2, 3, 4, 5, 6, 7], FAIL: [0]}\n"
                "buffers: {x: {type: float, count: N, role: inout}}\n"
                "args: [x, {value: N, type: int64}]\n"
                "launch: {grid: [\"ceil_div(N, 256)\"], block: [256]}\n"
                "verify: {reference: {X: 1, Y: 0, FAIL: 0}}\n"
                "search: {strategy: gp_climb, max_evals: 24, seed: 5,\n"
                "         model_from: 1000, random_first: 4}\n");
    const spec s = load_spec(f.dir.file("scale.yaml"));
    f.opt.jobs = 6;
    tune_diagnostics diag;
    f.opt.diagnostics = &diag;
    const tune_result r = tune(s, f.opt);
    CHECK(r.evaluated == 24);
    MESSAGE(diag.time.compiled_ahead << " compiled ahead, " << diag.time.ahead_used << " used");
    CHECK(diag.time.compiled_ahead > 0);
    CHECK(diag.time.ahead_used > 0);
    CHECK(diag.time.ahead_used <= diag.time.compiled_ahead);
    // Off: nothing compiled ahead.
    tune_options off = f.opt;
    off.compile_ahead = false;
    off.fresh = true;
    off.cache_dir = f.dir.file("cache-off");
    const tune_result o = tune(s, off);
    CHECK(o.evaluated == 24);
    CHECK(diag.time.compiled_ahead == 0);
    // Off from the environment too.
    const scoped_env env("HONE_COMPILE_AHEAD", "0");
    tune_options by_env = f.opt;
    by_env.fresh = true;
    by_env.cache_dir = f.dir.file("cache-env");
    CHECK(tune(s, by_env).evaluated == 24);
    CHECK(diag.time.compiled_ahead == 0);
}
