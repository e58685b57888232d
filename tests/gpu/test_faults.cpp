// A space mixing healthy and faulty kernels: every configuration gets the right status, the
// run finishes, and the best is a healthy one (isolated sessions only).
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <map>

#include "gpu_test_util.hpp"
#include "hone/spec.hpp"
#include "hone/tuner.hpp"
#include "report/report.hpp"
#include "tune/diagnostics.hpp"

using namespace hone;

namespace {

// Tunes faults_all.yaml with `timer` and checks every configuration's status.
tune_result check_statuses(spec& s, const std::string& timer) {
    s.timing.timer = timer;
    std::remove(s.output.c_str());
    tune_options opt;
    opt.use_cache = false;
    tune_diagnostics diag;
    opt.diagnostics = &diag;
    const tune_result r = tune(s, opt);
    CHECK_FALSE(r.interrupted);
    REQUIRE(r.records.size() == 14);
    MESSAGE("timer: ", diag.time.prepare.timer);

    const std::map<int64_t, status>& expected = fault_statuses();
    for (const auto& rec : r.records) {
        const int64_t mode = std::get<int64_t>(rec.params.at(0).second);
        CAPTURE(rec.key);
        CAPTURE(rec.message);
        const status want = expected.at(mode);
        if (want == status::ok) {
            CHECK(has_timing(rec.st));
            // Faults stay isolated with the timer the session chose (CUPTI where it loads).
            CHECK(rec.gpu.timer == diag.time.prepare.timer);
        } else {
            CHECK(status_name(rec.st) == std::string(status_name(want)));
        }
    }
    const auto best = ranked(r.records, rank_by::time);
    REQUIRE(best.size() == 3);
    CHECK(std::get<int64_t>(best[0]->params.at(0).second) == 0);
    return r;
}

}  // namespace

TEST_CASE("faulting, hanging and wrong kernels cost one configuration each") {
    spec s = load_spec(source_dir() + "/tests/gpu/faults_all.yaml");
    s.output = "/tmp/hone_gpu_faults.db";
    check_statuses(s, "auto");

    // A second run resumes: faulted configurations are not run again...
    tune_options again;
    again.use_cache = false;
    CHECK(tune(s, again).evaluated == 0);
    // ...unless asked.
    again.retry_failed = true;
    const tune_result retried = tune(s, again);
    CHECK(retried.evaluated == 5);  // modes 1 2 3 5 (runtime_fault) and 4 (timeout)
}

// The range profiler is enabled in each worker: a worker that faults takes it down with it, and
// the next one enables it again.
TEST_CASE("faults cost one configuration each under timer: profiler") {
    spec s = load_spec(source_dir() + "/tests/gpu/faults_all.yaml");
    s.output = "/tmp/hone_gpu_faults_profiler.db";
    const char* expect = std::getenv("HONE_EXPECT_PROFILER");
    try {
        check_statuses(s, "profiler");
    } catch (const env_error& e) {
        MESSAGE("timer: profiler refused: ", e.what());
        CHECK_FALSE((expect && std::string(expect) == "1"));
    }
}
