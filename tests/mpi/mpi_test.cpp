// The MPI message layer on CPUs: run under `mpirun -n 2`. Rank 1 serves two scripted GPU
// sessions and its compile pool; rank 0 connects to them, tunes a small space through the first
// (real compiles, results stored as they arrive) and checks that every result came back from
// rank 1, compiles the space with rank 1's pool helping, and checks that an error on rank 1
// comes back as an error naming the rank. Exit 0 when all holds on both ranks.
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "../worker_env.hpp"
#include "dist/mpi_link.hpp"
#include "dist/remote_session.hpp"
#include "hone/error.hpp"
#include "hone/store.hpp"
#include "hone/tuner.hpp"
#include "measure/stats.hpp"
#include "tune/diagnostics.hpp"

using namespace hone;
namespace fs = std::filesystem;

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
    if (!ok) {
        ++failures;
        fmt::print(stderr, "FAILED: {}\n", what);
    }
}

// Answers each job with a median of X + 1000 * slot microseconds: which slot measured it shows.
class scripted_session final : public gpu_session {
  public:
    explicit scripted_session(int slot, bool fail_prepare) : slot_(slot), fail_(fail_prepare) {
        info_.attrs = nominal_device("sm_90").value();
        info_.ordinal = slot;
        info_.uuid = fmt::format("GPU-rank1-{}", slot);
    }
    const device_info& device() const override { return info_; }
    bool isolated() const override { return true; }
    std::size_t max_in_flight() const override { return 2; }
    prepare_report prepare(const run_plan& plan) override {
        if (fail_) throw env_error("out of memory on purpose");
        if (!plan.reference) throw std::runtime_error("no reference in the plan");
        prepare_report r;
        r.clock_mhz = 1980;
        return r;
    }
    job_result run(const job& j) override {
        if (j.launch.cubin.empty()) throw std::runtime_error("a job without its CUBIN");
        const double x = std::stod(j.key.substr(j.key.find("X=") + 2));
        job_result r;
        r.samples_us.assign(10, x + 1000.0 * slot_);
        r.time_us = summarize(r.samples_us);
        return r;
    }
    void submit(const job& j) override { queue_.push_back(j); }
    job_result collect() override {
        const job j = queue_.front();
        queue_.erase(queue_.begin());
        return run(j);
    }

  private:
    int slot_;
    bool fail_;
    device_info info_;
    std::vector<job> queue_;
};

const char* kernel_source = R"(
extern "C" __global__ void scale(float* x, long long n) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) x[i] *= X;
}
)";

void rank0(const std::shared_ptr<mpi_link>& link) {
    const rank_links links = connect_ranks(link, {}, {});
    const auto& sessions = links.sessions;
    check(links.compilers.size() == 1, "rank 1 offers its compile pool");
    check(sessions.size() == 2, fmt::format("rank 1 serves 2 sessions, got {}", sessions.size()));
    if (sessions.size() != 2) return;
    check(sessions[0]->device().uuid == "GPU-rank1-0", "the first session is rank 1's slot 0");
    check(sessions[1]->device().uuid == "GPU-rank1-1", "the second session is rank 1's slot 1");
    check(sessions[0]->isolated(), "isolated travels");

    const fs::path dir = fs::temp_directory_path() / fmt::format("hone-mpi-test-{}", ::getpid());
    fs::create_directories(dir);
    std::ofstream(dir / "scale.cu") << kernel_source;
    std::ofstream(dir / "scale.yaml") << "kernel: {source: scale.cu, name: scale}\n"
                                         "problem: {N: 4096}\n"
                                         "params: {X: [1, 2, 3, 4, 5, 6, 7, 8]}\n"
                                         "buffers: {x: {type: float, count: N, role: inout}}\n"
                                         "args: [x, {value: N, type: int64}]\n"
                                         "launch: {grid: [\"ceil_div(N, 256)\"], block: [256]}\n"
                                         "verify: {reference: {X: 1}}\n";
    tune_options opt;
    tune_diagnostics diag;
    opt.diagnostics = &diag;
    opt.session = sessions[0];
    opt.jobs = 1;
    opt.cache_dir = (dir / "cache").string();
    opt.output = (dir / "results.db").string();
    const tune_result r = tune(load_spec((dir / "scale.yaml").string()), opt);
    check(r.evaluated == 8,
          fmt::format("8 configurations measured on rank 1, got {}", r.evaluated));
    check(diag.time.prepare.clock_mhz == 1980, "the prepare report travels");
    check(r.device.uuid == "GPU-rank1-0", "the run's device is rank 1's");
    results_store store(opt.output);
    const auto stored = store.query({});
    check(stored.size() == 8, "every result stored by rank 0");
    for (const auto& rec : stored) {
        const double x = std::stod(rec.key.substr(2));
        check(rec.st == status::ok && rec.gpu.time_us.median == x,
              fmt::format("{}: measured by slot 0 as {}, got {}", rec.key, x,
                          rec.gpu.time_us.median));
    }
    // Compiling only (hone tune --dry-run under MPI): what the one local worker cannot take at
    // once goes to rank 1's pool, and comes back compiled.
    check_options copt;
    copt.arch = "sm_90";
    copt.jobs = 1;
    copt.compilers = links.compilers;
    const check_result c = hone::check(load_spec((dir / "scale.yaml").string()), copt);
    check(c.compiled == 8 && c.failed == 0,
          fmt::format("8 compiled, none failed: {} and {}", c.compiled, c.failed));
    check(c.remote >= 2, fmt::format("rank 1 compiled some of them: {}", c.remote));
    try {
        sessions[1]->prepare(run_plan{});
        check(false, "an error on rank 1 comes back");
    } catch (const env_error& e) {
        const std::string m = e.what();
        check(m.find("rank 1") != std::string::npos && m.find("on purpose") != std::string::npos,
              "the error names the rank and says why: " + m);
    }
    fs::remove_all(dir);
}

}  // namespace

int main() {
    use_built_worker();
    std::shared_ptr<mpi_link> link;
    try {
        link = mpi_link::open("the MPI test");
    } catch (const env_error& e) {
        fmt::print(stderr, "{}\n", e.what());
        return 1;
    }
    check(link->size() == 2, fmt::format("run with mpirun -n 2 (size {})", link->size()));
    try {
        if (link->rank() == 0) {
            rank0(link);
            release_ranks(*link);
        } else {
            serve_rank(*link, [] {
                return std::vector<std::shared_ptr<gpu_session>>{
                    std::make_shared<scripted_session>(0, false),
                    std::make_shared<scripted_session>(1, true)};
            });
        }
    } catch (const std::exception& e) {
        check(false, fmt::format("rank {}: {}", link->rank(), e.what()));
        if (link->rank() == 0) release_ranks(*link);
    }
    fmt::print("rank {}: {}\n", link->rank(), failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
