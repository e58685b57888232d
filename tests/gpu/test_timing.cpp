// Issue 12 on a real GPU: the timer each result names, warm-up modes, a kernel whose template
// parameters carry the tuning parameters' names, and an edited header measured again.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "driver/cupti_api.hpp"
#include "gpu_test_util.hpp"
#include "hone/spec.hpp"
#include "hone/store.hpp"
#include "hone/tuner.hpp"
#include "report/report.hpp"
#include "tune/diagnostics.hpp"

namespace fs = std::filesystem;
using namespace hone;

namespace {

std::string read_text(const fs::path& p) {
    std::ifstream in(p);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// configs/reduce.yaml with its kernel and header, copied so that the header can be edited.
struct reduce_copy {
    fs::path root;
    reduce_copy() {
        root = fs::temp_directory_path() / "hone_gpu_reduce";
        fs::remove_all(root);
        fs::create_directories(root / "configs");
        fs::create_directories(root / "kernels_src" / "include");
        const fs::path src = source_dir();
        fs::copy_file(src / "configs/reduce.yaml", root / "configs/reduce.yaml");
        fs::copy_file(src / "kernels_src/reduce.cu", root / "kernels_src/reduce.cu");
        fs::copy_file(src / "kernels_src/include/reduce_ops.cuh",
                      root / "kernels_src/include/reduce_ops.cuh");
    }
    ~reduce_copy() { fs::remove_all(root); }
    // Four configurations (BLOCK 256, both methods, ITEMS 1 and 2) at 2^20, the reference among
    // them, stored in the copy's folder.
    spec load() const {
        spec s = load_spec((root / "configs/reduce.yaml").string(), {{"N", 1 << 20}});
        s.params[0].values = {int64_t{256}};
        s.params[2].values = {int64_t{1}, int64_t{2}};
        s.output = (root / "reduce.db").string();
        return s;
    }
    tune_options options() const {
        tune_options opt;
        opt.cache_dir = (root / "cache").string();
        return opt;
    }
};

}  // namespace

TEST_CASE("every timed result names its timer; timer: events, cupti and profiler are honoured") {
    spec s = small_spec("/tmp/hone_gpu_timer.db");
    tune_options opt;
    opt.use_cache = false;
    tune_diagnostics diag;  // of the latest tune() call
    opt.diagnostics = &diag;
    const tune_result any = tune(s, opt);
    const std::string timer = diag.time.prepare.timer;
    MESSAGE("timer auto chose ", timer,
            std::string(diag.time.prepare.timer_note.empty() ? "" : ": "),
            diag.time.prepare.timer_note, "; clock ", diag.time.prepare.clock_mhz, " MHz after ",
            diag.time.prepare.clock_s, " s");
    // auto: the profiler where the counters can be read, else events with the reason.
    CHECK((timer == "profiler" || timer == "events"));
    if (timer == "events")
        CHECK(diag.time.prepare.timer_note.find("auto times with CUDA events: ") == 0);
    if (const char* e = std::getenv("HONE_EXPECT_PROFILER"); e && std::string(e) == "1")
        CHECK(timer == "profiler");
    CHECK(diag.time.prepare.clock_mhz > 0);
    REQUIRE(any.records.size() == 8);
    for (const auto& rec : any.records) {
        CAPTURE(rec.key);
        CHECK(has_timing(rec.st));
        CHECK(rec.gpu.timer == timer);
        CHECK(rec.gpu.steps.warmup_s > 0);  // adaptive warm-up ran batches
    }
    // The timer stored with each result reads back.
    results_store store(s.output);
    for (const auto& rec : store.query({any.identity.id(), "", 0, false}))
        CHECK(rec.gpu.timer == timer);

    spec events = small_spec("/tmp/hone_gpu_timer_events.db");
    events.timing.timer = "events";
    events.timing.warmup = "fixed";  // the old warm-up, kept as an option
    const tune_result e = tune(events, opt);
    CHECK(diag.time.prepare.timer == "events");
    for (const auto& rec : e.records) {
        CAPTURE(rec.key);
        CHECK(has_timing(rec.st));
        CHECK(rec.gpu.timer == "events");
    }

    spec cupti = small_spec("/tmp/hone_gpu_timer_cupti.db");
    cupti.timing.timer = "cupti";
    std::string why_not;
    if (cu::cupti(why_not)) {  // loadable here (only loaded, not enabled, in this process)
        const tune_result c = tune(cupti, opt);
        // A configuration whose CUPTI records did not all come (twice) is timed with events,
        // and says so; a record that does not come is rare, so most must be CUPTI's.
        std::size_t by_cupti = 0;
        for (const auto& rec : c.records) {
            CAPTURE(rec.key);
            CHECK(has_timing(rec.st));
            CHECK((rec.gpu.timer == "cupti" || rec.gpu.timer == "events"));
            by_cupti += rec.gpu.timer == "cupti";
        }
        MESSAGE("timer: cupti: ", by_cupti, " of ", c.records.size(),
                " configurations timed by CUPTI");
        CHECK(2 * by_cupti > c.records.size());
    } else {
        MESSAGE("CUPTI cannot be loaded here: ", why_not);
        CHECK_THROWS_AS(tune(cupti, opt), env_error);  // asked for, not there: say so
    }

    // timer: profiler: every configuration by the profiler (its ranges come with the round:
    // nothing to wait for), or, where the GPU's counters cannot be read, an error that says why.
    // HONE_EXPECT_PROFILER=1 (scripts/device_session.sh, where Nsight Compute reads them) makes
    // the error a failure.
    spec prof = small_spec("/tmp/hone_gpu_timer_profiler.db");
    prof.timing.timer = "profiler";
    const char* expect = std::getenv("HONE_EXPECT_PROFILER");
    try {
        const tune_result p = tune(prof, opt);
        CHECK(diag.time.prepare.timer == "profiler");
        REQUIRE(p.records.size() == 8);
        for (const auto& rec : p.records) {
            CAPTURE(rec.key);
            CAPTURE(rec.message);
            CHECK(has_timing(rec.st));
            CHECK(rec.gpu.timer == "profiler");
            CHECK(rec.gpu.time_us.median > 0);
        }
    } catch (const env_error& e) {
        MESSAGE("timer: profiler refused: ", e.what());
        CHECK(std::string(e.what()).find("range profiler") != std::string::npos);
        CHECK_FALSE((expect && std::string(expect) == "1"));
    }
}

TEST_CASE("a kernel whose template parameters are named like the tuning parameters tunes") {
    spec s = load_spec(source_dir() + "/configs/reduce.yaml", {{"N", 1 << 20}});
    s.output = "/tmp/hone_gpu_reduce.db";
    std::remove(s.output.c_str());
    tune_options opt;
    opt.use_cache = false;
    const tune_result r = tune(s, opt);
    REQUIRE(r.records.size() == 48);
    for (const auto& rec : r.records) {
        CAPTURE(rec.key);
        CAPTURE(rec.message);
        CHECK(has_timing(rec.st));  // compiled (no -DBLOCK over the template), verified, timed
        CHECK(rec.gbps > 0);
    }
    CHECK(r.identity.objective == "gbps");
    const auto best = ranked(r.records, stored_rank_by(r.identity));
    REQUIRE_FALSE(best.empty());
    for (const auto* rec : best) CHECK(rec->gbps <= best.front()->gbps);
}

TEST_CASE("an edited header makes the next run measure again, and says why") {
    const reduce_copy copy;
    const tune_result first = tune(copy.load(), copy.options());
    CHECK(first.evaluated == 4);
    CHECK(first.remeasure_reason.empty());
    const tune_result same = tune(copy.load(), copy.options());
    CHECK(same.resumed == 4);
    CHECK(same.evaluated == 0);
    CHECK(same.remeasure_reason.empty());

    // The kernel now sums squares: other code, so the stored results are not its results.
    const fs::path header = copy.root / "kernels_src/include/reduce_ops.cuh";
    std::string text = read_text(header);
    const std::string value = "return static_cast<unsigned long long>(static_cast<long long>(x));";
    REQUIRE(text.find(value) != std::string::npos);
    text.replace(text.find(value), value.size(),
                 "return static_cast<unsigned long long>(static_cast<long long>(x) * x);");
    std::ofstream(header) << text;

    const tune_result edited = tune(copy.load(), copy.options());
    CHECK(edited.resumed == 0);
    CHECK(edited.evaluated == 4);
    // The compile cache saw the header too: every binary is built again, as in the first run
    // (where the reference configuration's binary serves its own configuration as well).
    CHECK(edited.compiled + edited.cache_hits == 4);
    CHECK(edited.compiled == first.compiled);
    CHECK(edited.cache_hits == first.cache_hits);
    CHECK(edited.remeasure_reason == "source changed since the stored results: re-measuring");
    CHECK(edited.identity.source_hash != first.identity.source_hash);
    for (const auto& rec : edited.records) CHECK(has_timing(rec.st));

    // The old results stay readable, marked as superseded by the new run.
    results_store store(copy.load().output);
    const auto runs = store.stored_runs();
    REQUIRE(runs.size() == 2);
    CHECK(runs[0].results == 4);
    CHECK(runs[0].superseded_by == runs[1].run_id);
    CHECK(store.query({runs[0].identity.id(), "", 0, false}).size() == 4);
}
