// Runs in the store: which run of a config is current, which are superseded and why, and what
// `hone show` prints for them.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <array>
#include <cstdio>
#include <memory>
#include <thread>

#include "../run_command.hpp"
#include "hone/store.hpp"
#include "report/report.hpp"
#include "temp_dir.hpp"

using namespace hone;

namespace {

run_identity runs_identity(const std::string& source_hash,
                           const std::string& problem = "N=1048576") {
    run_identity id;
    id.config_path = "configs/reduce.yaml";
    id.kernel_name = "reduce<{BLOCK}, {SHUFFLE}>";
    id.source_hash = source_hash;
    id.spec_hash = "4567";
    id.problem = problem;
    id.device_name = "NVIDIA H100";
    id.device_uuid = "GPU-1234";
    id.arch = "sm_90";
    id.driver_version = 13000;
    id.nvrtc_version = "13.0";
    id.tool_version = tool_version();
    return id;
}

eval_record runs_result(const std::string& key, double median, double gbps) {
    eval_record r;
    r.key = key;
    r.params = {{"BLOCK", int64_t{std::stoi(key.substr(6))}}};
    r.st = status::ok;
    r.gpu.time_us.n = 10;
    r.gpu.time_us.median = median;
    r.gpu.time_us.ci_low = median * 0.99;
    r.gpu.time_us.ci_high = median * 1.01;
    r.gpu.timer = "cupti";
    r.gbps = gbps;
    return r;
}

// last_seen has millisecond resolution: runs begun in the same millisecond would tie.
void tick() {
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
}

std::string run_hone_output(const std::string& args) {
    return run_command(std::string(HONE_BINARY) + " " + args + " 2>&1").output;
}

}  // namespace

TEST_CASE("store: the run tuned last is current; older runs of the same subject are superseded") {
    temp_dir dir;
    results_store s(dir.file("r.db"));
    const int64_t old_run = s.begin_run(runs_identity("before-edit"));
    s.put(old_run, runs_result("BLOCK=64", 10, 100));
    CHECK_FALSE(s.previous_run(runs_identity("before-edit")));  // the same identity resumes
    tick();
    const int64_t other_size = s.begin_run(runs_identity("before-edit", "N=4096"));
    s.put(other_size, runs_result("BLOCK=64", 1, 10));
    tick();
    // The header was edited: a new identity of the same config, problem and device.
    const auto previous = s.previous_run(runs_identity("after-edit"));
    REQUIRE(previous);
    CHECK(previous->run_id == old_run);
    CHECK(describe_change(previous->identity, runs_identity("after-edit")) ==
          "source changed since the stored results: re-measuring");
    const int64_t new_run = s.begin_run(runs_identity("after-edit"));
    const auto runs = s.stored_runs();
    REQUIRE(runs.size() == 3);
    CHECK(runs[0].run_id == old_run);
    CHECK(runs[0].results == 1);
    CHECK(runs[0].superseded_by == new_run);
    CHECK(runs[1].superseded_by == 0);  // another problem size: its own subject
    CHECK(runs[2].superseded_by == 0);
    CHECK(runs[2].results == 0);
    // Reverting the edit makes the old identity current again (it resumes).
    tick();
    s.begin_run(runs_identity("before-edit"));
    const auto reverted = s.stored_runs();
    CHECK(reverted[0].superseded_by == 0);
    CHECK(reverted[2].superseded_by == old_run);
    // A run with no results is never the one a new run replaces.
    const auto back = s.previous_run(runs_identity("third"));
    REQUIRE(back);
    CHECK(back->run_id == old_run);
}

TEST_CASE("hone show: the current run ranked by its stored objective, older runs listed, --run") {
    temp_dir dir;
    const std::string db = dir.file("r.db");
    run_identity old_id = runs_identity("before-edit");
    run_identity new_id = runs_identity("after-edit");
    new_id.objective = "gbps";
    {
        results_store s(db);
        const int64_t old_run = s.begin_run(old_id);
        s.put(old_run, runs_result("BLOCK=64", 10, 100));
        tick();
        const int64_t new_run = s.begin_run(new_id);
        // By time BLOCK=128 wins; by GB/s (a metric over another byte count) BLOCK=256 does.
        s.put(new_run, runs_result("BLOCK=128", 5, 200));
        s.put(new_run, runs_result("BLOCK=256", 6, 300));
    }
    const std::string out = run_hone_output("show " + db);
    INFO(out);
    CHECK(out.find("run 2 (" + new_id.id().substr(0, 12) + "): reduce<{BLOCK}, {SHUFFLE}>") !=
          std::string::npos);
    CHECK(out.find("ranked by gbps") != std::string::npos);
    CHECK(out.find("\nrun 1 (") == std::string::npos);  // no table of run 1
    CHECK(out.find("  run 1: tuned") != std::string::npos);
    CHECK(out.find("superseded by run 2 (source changed since these results)") !=
          std::string::npos);
    const std::size_t first = out.find("\n1  ");
    REQUIRE(first != std::string::npos);
    CHECK(out.substr(first + 1, out.find('\n', first + 1) - first - 1).find("256") !=
          std::string::npos);
    CHECK(out.find("cupti") != std::string::npos);  // the timer column

    const std::string one = run_hone_output("show " + db + " --run 1");
    INFO(one);
    CHECK(one.find("run 1 (" + old_id.id().substr(0, 12) + "): reduce") != std::string::npos);
    CHECK(one.find("superseded by run 2 (source changed since these results)") !=
          std::string::npos);
    CHECK(one.find("\nrun 2 (") == std::string::npos);
    CHECK(!one.starts_with("run 2 ("));

    const std::string all = run_hone_output("show " + db + " --all-runs");
    CHECK(all.find("run 1 (") != std::string::npos);
    CHECK(all.find("run 2 (") != std::string::npos);
    // --run takes the id prefix as well as the number
    CHECK(run_hone_output("show " + db + " --run " + new_id.id().substr(0, 8)).find("run 2 (") !=
          std::string::npos);

    const std::string missing = run_hone_output("show " + db + " --run 7");
    CHECK(missing.find("has no run 7 (runs: 1 (") != std::string::npos);
}

TEST_CASE("store: query ranks a run's results by its stored objective") {
    temp_dir dir;
    results_store s(dir.file("r.db"));
    auto order = [&](const run_identity& id) {
        std::vector<std::string> keys;
        for (const auto& r : s.query({id.id(), "", 0, false})) keys.push_back(r.key);
        return keys;
    };
    run_identity by_rate = runs_identity("a");
    by_rate.objective = "gbps";
    const int64_t rate_run = s.begin_run(by_rate);
    run_identity by_time = runs_identity("b");
    const int64_t time_run = s.begin_run(by_time);
    for (int64_t run : {rate_run, time_run}) {
        s.put(run, runs_result("BLOCK=64", 5, 100));
        s.put(run, runs_result("BLOCK=128", 6, 300));
        s.put(run, runs_result("BLOCK=256", 4, 0));  // no GB/s: last by rate
    }
    CHECK(order(by_rate) == std::vector<std::string>{"BLOCK=128", "BLOCK=64", "BLOCK=256"});
    CHECK(order(by_time) == std::vector<std::string>{"BLOCK=256", "BLOCK=64", "BLOCK=128"});
    // top takes the best by the same order.
    const auto top = s.query({by_rate.id(), "", 1, false});
    REQUIRE(top.size() == 1);
    CHECK(top[0].key == "BLOCK=128");
}

TEST_CASE("CLI: --timer takes auto, profiler, cupti or events") {
    // Refused before anything runs: no GPU is needed to see the error.
    const std::string bad = run_hone_output(
        "tune " HONE_SOURCE_DIR "/configs/vector_add_192.yaml --timer nsight 2>&1; echo rc=$?");
    INFO(bad);
    CHECK(bad.find("--timer") != std::string::npos);
    CHECK(bad.find("rc=2") != std::string::npos);
}
