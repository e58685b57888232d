// The tuning pipeline without a GPU: real compiles (NVRTC in the pool), a scripted GPU session.
// What it checks: every configuration is measured once, in strategy order, one job at a time;
// the next job is handed over before the last result is stored; failed compiles are stored
// without the GPU; a stop abandons the job in flight and leaves none behind.
#include <doctest/doctest.h>

#include <csignal>
#include <string>
#include <vector>

#include "hone/spec.hpp"
#include "hone/store.hpp"
#include "hone/tuner.hpp"
#include "temp_dir.hpp"

using namespace hone;

namespace {

const char* kernel_source = R"(
#if FAIL
#error failing on purpose
#endif
extern "C" __global__ void scale(float* x, long long n) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) x[i] *= X;
}
)";

std::string config(const std::string& fail_values) {
    return "kernel: {source: scale.cu, name: scale}\n"
           "problem: {N: 4096}\n"
           "params: {X: [1, 2, 3, 4], FAIL: " + fail_values + "}\n"
           "buffers: {x: {type: float, count: N, role: inout}}\n"
           "args: [x, {value: N, type: int64}]\n"
           "launch: {grid: [\"ceil_div(N, 256)\"], block: [256]}\n"
           "verify: {reference: {X: 1, FAIL: 0}}\n";
}

// Answers each job with a median of X microseconds, checking that the tuner keeps one job in
// flight at most.
class scripted_session final : public gpu_session {
  public:
    scripted_session() {
        device_attrs& a = info_.attrs;
        a.name = "scripted";
        a.cc_major = 9;
        a.cc_minor = 0;
        a.sm_count = 132;
        a.max_threads_per_block = 1024;
        a.max_threads_per_sm = 2048;
        a.max_shared_per_block = 48 * 1024;
        a.max_shared_per_block_optin = 227 * 1024;
        a.max_shared_per_sm = 228 * 1024;
        a.regs_per_block = a.regs_per_sm = 65536;
        a.warp_size = 32;
        a.l2_bytes = 50 << 20;
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
    void submit(const job& j) override {
        REQUIRE_FALSE(in_flight_);
        CHECK_FALSE(j.launch.cubin.empty());
        CHECK(j.launch.function == "scale");
        in_flight_ = true;
        submitted.push_back(j.key);
    }
    job_result collect() override {
        REQUIRE(in_flight_);
        in_flight_ = false;
        ++collected;
        if (on_collect) on_collect(collected);
        const std::string& key = submitted.back();
        const double us = std::stod(key.substr(key.find("X=") + 2));
        job_result r;
        r.samples_us.assign(10, us);
        r.time_us = summarize(r.samples_us);
        r.gpu_busy_s = r.gpu_span_s = 1e-5;
        return r;
    }

    std::vector<std::string> submitted;
    int collected = 0, prepared = 0;
    std::function<void(int)> on_collect;

  private:
    device_info info_;
    bool in_flight_ = false;
};

struct fixture {
    temp_dir dir;
    std::shared_ptr<scripted_session> gpu = std::make_shared<scripted_session>();
    tune_options opt;
    fixture() {
        dir.write("scale.cu", kernel_source);
        opt.session = gpu;
        opt.use_cache = false;
        opt.jobs = 2;
        opt.output = dir.file("results.db");
    }
    spec load(const std::string& fail_values) {
        dir.write("scale.yaml", config(fail_values));
        return load_spec(dir.file("scale.yaml"));
    }
};

}  // namespace

TEST_CASE("the pipeline measures each configuration once, storing the last while the next runs") {
    fixture f;
    const spec s = f.load("[0, 1]");
    std::vector<std::string> stored;
    std::vector<std::size_t> submitted_when_stored;
    f.opt.on_result = [&](const eval_record& r) {
        stored.push_back(r.key);
        submitted_when_stored.push_back(f.gpu->submitted.size());
    };
    const tune_result r = tune(s, f.opt);
    CHECK_FALSE(r.interrupted);
    CHECK(f.gpu->prepared == 1);
    CHECK(r.evaluated == 8);
    CHECK(r.records.size() == 8);
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
    REQUIRE(stored.size() == 8);
    // The GPU's results are stored in the order the jobs went out, each but the last after the
    // next job was handed over (failed compiles are stored as they come).
    std::vector<std::size_t> gpu_positions;
    for (std::size_t i = 0; i < stored.size(); ++i)
        if (stored[i].find("FAIL=0") != std::string::npos) gpu_positions.push_back(i);
    REQUIRE(gpu_positions.size() == 4);
    for (std::size_t k = 0; k < gpu_positions.size(); ++k) {
        CHECK(stored[gpu_positions[k]] == f.gpu->submitted[k]);
        const std::size_t expected = k + 1 < gpu_positions.size() ? k + 2 : k + 1;
        CHECK(submitted_when_stored[gpu_positions[k]] == expected);
    }
    REQUIRE(r.records.size() == 8);
    const auto best = std::min_element(r.records.begin(), r.records.end(), [](const auto& a, const auto& b) {
        if (!has_timing(a.st)) return false;
        if (!has_timing(b.st)) return true;
        return a.gpu.time_us.median < b.gpu.time_us.median;
    });
    CHECK(best->key.find("X=1") != std::string::npos);
}

TEST_CASE("a stop abandons the job in flight, stores what finished, and resumes") {
    fixture f;
    const spec s = f.load("[0]");
    volatile std::sig_atomic_t stop = 0;
    f.opt.stop = &stop;
    f.gpu->on_collect = [&](int n) {
        if (n == 2) stop = 1;  // arrives while the second job runs
    };
    const tune_result first = tune(s, f.opt);
    CHECK(first.interrupted);
    CHECK(first.evaluated == 1);
    CHECK(first.records.size() == 1);
    CHECK(f.gpu->collected == static_cast<int>(f.gpu->submitted.size()));  // none left in flight
    CHECK(f.gpu->submitted.size() == 2);

    stop = 0;
    f.gpu->on_collect = nullptr;
    const tune_result second = tune(s, f.opt);
    CHECK_FALSE(second.interrupted);
    CHECK(second.resumed == 1);
    CHECK(second.evaluated == 3);
    CHECK(second.records.size() == 4);
    CHECK(f.gpu->submitted.size() == 5);  // the abandoned one again, and two more
}
