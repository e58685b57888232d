// End-to-end tuning on a real GPU: measured, verified, stored, resumed.
#include <doctest/doctest.h>

#include <csignal>
#include <cstdio>
#include <set>

#include "gpu_test_util.hpp"
#include "hone/spec.hpp"
#include "hone/store.hpp"
#include "hone/tuner.hpp"

using namespace hone;

namespace {

void check_small_tune(bool isolated) {
    const spec s = small_spec("/tmp/hone_gpu_e2e.db");
    tune_options opt;
    opt.isolated = isolated;
    opt.use_cache = false;
    const tune_result r = tune(s, opt);
    CHECK(r.evaluated == 8);
    REQUIRE(r.records.size() == 8);
    for (const auto& rec : r.records) {
        CAPTURE(rec.key);
        CAPTURE(rec.message);
        CHECK(has_timing(rec.st));
        CHECK(rec.gpu.time_us.n >= 10);
        CHECK(rec.gpu.time_us.ci_low <= rec.gpu.time_us.median);
        CHECK(rec.gpu.time_us.median <= rec.gpu.time_us.ci_high);
        CHECK(rec.gbps > 0);
        CHECK(rec.gpu.num_regs > 0);
        // ptxas's report, which a hit in NVRTC's own cache would drop (the second of these
        // tests compiles the same kernels again).
        CHECK(rec.resources.registers == rec.gpu.num_regs);
        CHECK(rec.gpu.occupancy > 0);
    }
    // Stored as it finished: a fresh store object sees every result.
    results_store store(s.output);
    CHECK(store.query({r.identity.id(), "", 0, false}).size() == 8);
}

}  // namespace

TEST_CASE("tune a small vector_add space end to end in a worker process") {
    check_small_tune(true);
}

// Initialises CUDA in this process (suite "in_process": the tests that use CUDA here).
TEST_CASE("tune a small vector_add space end to end in-process" *
          doctest::test_suite("in_process")) {
    check_small_tune(false);
}

TEST_CASE("an interrupted run resumes without measuring again") {
    const spec s = small_spec("/tmp/hone_gpu_resume.db");
    volatile std::sig_atomic_t stop = 0;
    tune_options opt;
    opt.stop = &stop;
    int seen = 0;
    opt.on_result = [&](const eval_record&) {
        if (++seen == 3) stop = 1;  // as a Ctrl-C after the third result
    };
    const tune_result first = tune(s, opt);
    CHECK(first.interrupted);
    CHECK(first.evaluated == 3);

    tune_options again;
    const tune_result second = tune(s, again);
    CHECK_FALSE(second.interrupted);
    CHECK(second.resumed == 3);
    CHECK(second.evaluated == 5);
    CHECK(second.records.size() == 8);

    const tune_result third = tune(s, again);
    CHECK(third.evaluated == 0);
    CHECK(third.resumed == 8);

    tune_options fresh;
    fresh.fresh = true;
    fresh.max_evals = 2;
    const tune_result fourth = tune(s, fresh);
    CHECK(fourth.evaluated == 2);
    CHECK(fourth.records.size() == 2);
}
