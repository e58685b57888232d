// Replay of recorded spaces: Kernel Tuner caches and hone databases read as search domains,
// exact evaluations-to-optimum on constructed cases, the JSON output's shape, and every bad
// input of `hone replay` (exit 2 with a message, never a crash).
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "damaged_input.hpp"
#include "formats/recorded_space.hpp"
#include "formats/t4.hpp"
#include "hone/error.hpp"
#include "hone/store.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using namespace hone;

namespace {

// One parameter x in [1, 2, 3, 4] and a second, y, with one value; times in file order.
std::string cache(const std::string& records) {
    return R"({"device_name": "GPU", "kernel_name": "k", "problem_size": [64],
  "tune_params_keys": ["x", "y"], "tune_params": {"x": [1, 2, 3, 4], "y": [7]},
  "objective": "time", "cache": {)" +
           records + "}}";
}

std::string rec(int x, const std::string& time, double compile_ms = 100) {
    return fmt::format(R"("{0},7": {{"x": {0}, "y": 7, "time": {1}, "compile_time": {2},
      "verification_time": 0, "benchmark_time": 50}})",
                       x, time, compile_ms);
}

const std::string four = cache(rec(1, "4.0") + "," + rec(2, "1.05") + "," +
                               rec(3, "\"InvalidConfig\"", 0) + "," + rec(4, "1.0"));

replay_options exhaustive(int64_t budget) {
    replay_options o;
    o.setup.name = "exhaustive";
    o.setup.budget = budget;
    o.seeds = 1;
    return o;
}

run_identity replay_identity(const std::string& kernel) {
    run_identity id;
    id.config_path = "k.yaml";
    id.kernel_name = kernel;
    id.problem = "N=64";
    id.device_name = "NVIDIA H100";
    id.arch = "sm_90";
    id.tool_version = tool_version();
    return id;
}

eval_record hone_record(int block, bool fast, std::optional<double> us) {
    eval_record r;
    r.key = fmt::format("BLOCK={},FAST={}", block, fast ? "true" : "false");
    r.params = {{"BLOCK", int64_t{block}}, {"FAST", fast}};
    r.st = us ? status::ok : status::compile_error;
    r.gpu.st = r.st;
    if (us) r.gpu.time_us.median = *us;
    r.compile_ms = 500;
    r.gpu.wall_s = us ? 0.25 : 0;
    return r;
}

// KTT 2.x output: parameters B (a list of 3) and M (one value); times in `unit`, one result
// each of `results` ("B,status,TotalDuration").
std::string ktt_result(int b, const std::string& status, double total) {
    return fmt::format(R"({{"KernelName": "k", "Status": "{1}", "TotalDuration": {2},
      "TotalOverhead": 1000, "ComputationResults": [],
      "Configuration": [{{"Name": "B", "Value": {0}, "ValueType": "UnsignedInt"}},
                        {{"Name": "M", "Value": 2.5, "ValueType": "Double"}}]}})",
                       b, status, total);
}

std::string ktt(const std::string& unit, const std::string& results) {
    return R"({"Metadata": {"Device": "GPU", "KttVersion": "2.1.0", "TimeUnit": ")" + unit +
           R"("},
  "Results": [)" +
           results + "]}";
}

}  // namespace

TEST_CASE("replay of KTT output: its results are the space, ranked by TotalDuration") {
    temp_dir dir;
    // B's values come sorted whatever the file's order; the failed one counts as a failure.
    dir.write("ktt.json",
              ktt("Milliseconds", ktt_result(256, "Ok", 2.0) + "," + ktt_result(64, "Ok", 1.0) +
                                      "," + ktt_result(128, "ComputationFailed", 0)));
    const recorded_space space = load_recorded_space(dir.file("ktt.json"));
    CHECK(space.format == "KTT output");
    CHECK(space.device == "GPU");
    CHECK(space.kernel == "k");
    CHECK(space.unit == "us");
    REQUIRE(space.names == std::vector<std::string>{"B", "M"});
    REQUIRE(space.values[0].size() == 3);
    CHECK(std::get<int64_t>(space.values[0][0]) == 64);
    CHECK(std::get<int64_t>(space.values[0][2]) == 256);
    CHECK(std::get<double>(space.values[1][0]) == 2.5);
    CHECK(space.points.size() == 3);
    CHECK(space.key(space.optimum) == "64,2.5");
    CHECK(*space.outcome[space.optimum] == doctest::Approx(1000.0));  // 1 ms in us
    CHECK(!space.outcome[2]);
    CHECK(space.cost_s[1] == doctest::Approx(1.001));  // (1 + 1000) ms
    const replay_seed s = replay_once(space, exhaustive(10), 1);
    CHECK(s.failures == 1);
    CHECK(s.evals_to[2] == 2u);

    // Structural errors name the result, at its line.
    dir.write("renamed.json", ktt("Microseconds", ktt_result(64, "Ok", 1) + ",\n" +
                                                      R"({"Status": "Ok", "TotalDuration": 2,
      "Configuration": [{"Name": "C", "Value": 1}, {"Name": "M", "Value": 2.5}]})"));
    try {
        (void)load_recorded_space(dir.file("renamed.json"));
        FAIL("a renamed parameter was accepted");
    } catch (const input_error& e) {
        CHECK(std::string(e.what()).find("Results[1]: parameter 0 must be 'B'") !=
              std::string::npos);
        CHECK(e.pos().line == 6);  // where the second result opens
    }
}

TEST_CASE("replay of a Kernel Tuner cache: exact evaluations to each level") {
    temp_dir dir;
    dir.write("four.json", four);
    const recorded_space space = load_recorded_space(dir.file("four.json"));
    CHECK(space.points.size() == 4);
    CHECK(space.format == "Kernel Tuner cache");
    CHECK(space.ranked_value.find("the file's time") != std::string::npos);
    CHECK(space.key(space.optimum) == "4,7");
    CHECK(space.cost_s[0] == doctest::Approx(0.15));
    CHECK(!space.outcome[2]);

    // Exhaustive follows the file: best so far 4.0, 1.05, 1.05 (a failure), 1.0.
    const replay_seed s = replay_once(space, exhaustive(10), 1);
    REQUIRE(s.best.size() == 4);
    CHECK(*s.best[0] == 4.0);
    CHECK(*s.best[2] == 1.05);
    CHECK(*s.best[3] == 1.0);
    CHECK(s.evals_to[0] == 2u);  // 1.0 / 1.05 = 0.952
    CHECK(s.evals_to[1] == 2u);
    CHECK(s.evals_to[2] == 4u);
    CHECK(s.failures == 1);
    CHECK(*s.time_to_s[1] == doctest::Approx(0.15 + 0.15));
    CHECK(s.simulated_s == doctest::Approx(0.15 * 3 + 0.05));

    // Cut short: the optimum is never reached.
    const replay_seed cut = replay_once(space, exhaustive(3), 1);
    CHECK(cut.best.size() == 3);
    CHECK(!cut.evals_to[2]);

    // 1.0 / 1.1 = 0.909: 90% at the second evaluation, 95% only at the fourth.
    dir.write("slower.json", cache(rec(1, "4.0") + "," + rec(2, "1.1") + "," + rec(3, "2.0") + "," +
                                   rec(4, "1.0")));
    const replay_seed t =
        replay_once(load_recorded_space(dir.file("slower.json")), exhaustive(10), 1);
    CHECK(t.evals_to[0] == 2u);
    CHECK(t.evals_to[1] == 4u);
}

TEST_CASE("replay of a Kernel Tuner cache ranks by its GFLOP/s or GB/s objective") {
    // Configurations that do more work a launch (hotspot's temporal tiling) are slower and
    // faster at once: the objective decides. x = 4 is the fastest, x = 2 the most GFLOP/s.
    const auto with = [](const std::string& objective, bool metric) {
        std::string text = cache(rec(1, "4.0") + "," + rec(2, "2.0") + "," +
                                 rec(3, "\"InvalidConfig\"", 0) + "," + rec(4, "1.0"));
        text = replaced(text, "\"objective\": \"time\"", "\"objective\": \"" + objective + "\"");
        if (metric) {
            text = replaced(text, "\"time\": 4.0,", "\"time\": 4.0, \"GFLOP/s\": 100,");
            text = replaced(text, "\"time\": 2.0,", "\"time\": 2.0, \"GFLOP/s\": 400,");
            text = replaced(text, "\"time\": 1.0,", "\"time\": 1.0, \"GFLOP/s\": 390,");
        }
        return text;
    };
    temp_dir dir;
    dir.write("gflops.json", with("GFLOP/s", true));
    const recorded_space g = load_recorded_space(dir.file("gflops.json"));
    CHECK(g.objective == "gflops");
    CHECK(g.unit == "GFLOP/s");
    CHECK(g.ranked_value.find("GFLOP/s (its objective; higher is better)") != std::string::npos);
    CHECK(g.key(g.optimum) == "2,7");
    CHECK(g.natural(*g.outcome[g.optimum]) == 400);
    CHECK(!g.outcome[2]);
    const replay_seed s = replay_once(g, exhaustive(10), 1);
    CHECK(s.evals_to[2] == 2u);
    CHECK(g.relative(*g.outcome[3]) == doctest::Approx(390.0 / 400));

    // The header names GFLOP/s but no record holds it, or an objective hone does not rank by:
    // the file's time, and the reason.
    dir.write("no_metric.json", with("GFLOP/s", false));
    const recorded_space n = load_recorded_space(dir.file("no_metric.json"));
    CHECK(n.objective == "time");
    CHECK(n.key(n.optimum) == "4,7");
    CHECK(n.ranked_value.find("GFLOP/s, is in no record") != std::string::npos);
    dir.write("energy.json", with("energy", true));
    const recorded_space e = load_recorded_space(dir.file("energy.json"));
    CHECK(e.key(e.optimum) == "4,7");
    CHECK(e.ranked_value.find("'energy', is not one hone ranks by") != std::string::npos);

    // --objective: another recorded number, in the direction known for it or given.
    const recorded_space t = load_recorded_space(dir.file("gflops.json"), "", {"time", {}});
    CHECK(t.objective == "time");
    CHECK(t.key(t.optimum) == "4,7");
    const recorded_space f = load_recorded_space(dir.file("energy.json"), "", {"GFLOP/s", {}});
    CHECK(f.key(f.optimum) == "2,7");
    CHECK(f.ranked_value.find("--objective; higher is better") != std::string::npos);
    std::string score = with("time", true);
    for (std::size_t at; (at = score.find("\"GFLOP/s\"")) != std::string::npos;)
        score.replace(at, 9, "\"score\"");
    dir.write("score.json", score);
    const recorded_space lower = load_recorded_space(dir.file("score.json"), "", {"score", {}});
    CHECK(lower.key(lower.optimum) == "1,7");  // lower is better unless told: 100 of 100, 400, 390
    const recorded_space higher = load_recorded_space(dir.file("score.json"), "", {"score", true});
    CHECK(higher.key(higher.optimum) == "2,7");
    const auto refusal = [&](const char* file, const objective_choice& o) {
        try {
            (void)load_recorded_space(dir.file(file), "", o);
        } catch (const input_error& err) {
            return std::string(err.what());
        }
        return std::string();
    };
    CHECK(refusal("gflops.json", {"nope", {}}).find("holds a number 'nope'") != std::string::npos);
    CHECK(refusal("gflops.json", {"nope", {}}).find("GFLOP/s, time") != std::string::npos);
    CHECK(refusal("gflops.json", {"time", true}).find("better lower") != std::string::npos);
    CHECK(refusal("gflops.json", {"GFLOP/s", false}).find("better higher") != std::string::npos);
}

TEST_CASE("replay: medians and shares across seeds") {
    temp_dir dir;
    dir.write("four.json", four);
    const recorded_space space = load_recorded_space(dir.file("four.json"));
    replay_options o;
    o.setup.name = "random";
    o.setup.budget = 4;
    o.seeds = 7;
    const replay_result r = replay(space, o);
    REQUIRE(r.seeds.size() == 7);
    CHECK(r.reached[2] == doctest::Approx(1.0));  // 4 evaluations cover the space
    int at_most_two = 0;
    for (const auto& s : r.seeds) {
        CHECK(s.best.size() == 4);
        at_most_two += *s.evals_to[1] <= 2;
    }
    // Random search differs between seeds, and the median follows them.
    CHECK(r.median_evals_to[2].has_value());
    CHECK(at_most_two > 0);
    CHECK(at_most_two < 7);

    // Shares are counts over seeds: ten seeds that all get there make exactly 1, not a sum of
    // ten 0.1s (0.9999999999999999 in the JSON).
    o.seeds = 10;
    const replay_result ten = replay(space, o);
    CHECK(ten.reached[2] == 1.0);
    CHECK(ten.within_95_at[0] == 1.0);
}

TEST_CASE("replay of a hone database, and one with several runs") {
    temp_dir dir;
    const std::string db = dir.file("r.db");
    {
        results_store s(db);
        const int64_t run = s.begin_run(replay_identity("scale"));
        s.put(run, hone_record(64, false, 10.0));
        s.put(run, hone_record(128, false, 8.0));
        s.put(run, hone_record(64, true, std::nullopt));
        s.put(run, hone_record(128, true, 4.0));
    }
    const recorded_space space = load_recorded_space(db);
    CHECK(space.format == "hone database");
    CHECK(space.ranked_value.find("median") != std::string::npos);
    CHECK(space.points.size() == 4);
    CHECK(space.names == std::vector<std::string>{"BLOCK", "FAST"});
    CHECK(space.key(space.optimum) == "BLOCK=128,FAST=true");
    CHECK(space.natural(*space.outcome[space.optimum]) == 4.0);
    CHECK(space.cost_s[space.optimum] == doctest::Approx(0.75));
    // The values in order: 64 before 128, false before true.
    CHECK(space.coordinate(0, 0) == 64);
    CHECK(space.coordinate(1, 1) == 1);
    const replay_seed s = replay_once(space, exhaustive(10), 1);
    CHECK(s.best.size() == 4);
    CHECK(s.evals_to[2].has_value());

    {
        results_store st(db);
        st.put(st.begin_run(replay_identity("other")), hone_record(64, false, 1.0));
    }
    try {
        load_recorded_space(db);
        FAIL("expected an error");
    } catch (const input_error& e) {
        CHECK(std::string(e.what()).find("holds 2 runs") != std::string::npos);
        CHECK(std::string(e.what()).find("--identity") != std::string::npos);
    }
    CHECK(load_recorded_space(db, "1").kernel == "scale");
    CHECK(load_recorded_space(db, "2").kernel == "other");
    CHECK_THROWS_AS(load_recorded_space(db, "3"), input_error);
}

TEST_CASE("replay of T4 results: the same space as the run they were written from") {
    temp_dir dir;
    run_records run;
    run.identity = replay_identity("scale");
    run.records = {hone_record(64, false, 10.0), hone_record(128, false, 8.0),
                   hone_record(64, true, std::nullopt), hone_record(128, true, 4.0)};
    dir.write("r.t4.json", write_t4(run));
    const recorded_space space = load_recorded_space(dir.file("r.t4.json"));
    CHECK(space.format == "T4 results");
    CHECK(space.points.size() == 4);
    CHECK(space.names == std::vector<std::string>{"BLOCK", "FAST"});
    CHECK(space.key(space.optimum) == "BLOCK=128,FAST=true");
    CHECK(space.natural(*space.outcome[space.optimum]) == doctest::Approx(4.0));
    CHECK(!space.outcome[2].has_value());  // the failed configuration finds nothing
    const replay_seed s = replay_once(space, exhaustive(10), 1);
    CHECK(s.best.size() == 4);
    CHECK(s.evals_to[2] == 4);
    // A T4 file holds one run.
    CHECK_THROWS_AS(load_recorded_space(dir.file("r.t4.json"), "1"), input_error);

    // Another tool's T4 ranks by each result's "time" measurement, as its cache ranks by `time`
    // (Kernel Tuner: the mean of runtimes whose first ran cold), not by the runtimes' median;
    // a result without one falls back to the median. The FAIR benchmark hub's unit spelling.
    dir.write("kt.t4.json", R"({"schema_version": "1.0.0", "metadata": {"timeunit": "miliseconds"},
"results": [
 {"configuration": {"a": 1}, "times": {"runtimes": [9, 1, 1]}, "invalidity": "correct",
  "correctness": 1, "measurements": [{"name": "time", "value": 3.67, "unit": "miliseconds"}],
  "objectives": ["time"]},
 {"configuration": {"a": 2}, "times": {"runtimes": [2, 2, 2]}, "invalidity": "correct",
  "correctness": 1, "measurements": [{"name": "time", "value": 2.0, "unit": "miliseconds"}],
  "objectives": ["time"]},
 {"configuration": {"a": 3}, "times": {"runtimes": [2.5, 2.5]}, "invalidity": "correct",
  "correctness": 1, "measurements": [], "objectives": ["time"]}
]})");
    const recorded_space kt = load_recorded_space(dir.file("kt.t4.json"));
    CHECK(kt.ranked_value.find("the file's time") != std::string::npos);
    CHECK(kt.key(kt.optimum) == "a=2");
    CHECK(kt.natural(*kt.outcome[0]) == doctest::Approx(3670));
    CHECK(kt.natural(*kt.outcome[2]) == doctest::Approx(2500));
}

TEST_CASE("hone replay --json: one object with the summary and a seeds array") {
    temp_dir dir;
    dir.write("four.json", four);
    const auto r = run_cli(dir, "replay " + dir.file("four.json") +
                                    " --strategy exhaustive --seeds 2 --max-evals 3 --json");
    REQUIRE(r.rc == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["strategy"] == "exhaustive");
    CHECK(j["space"]["configurations"] == 4);
    CHECK(j["space"]["optimum"]["value"] == 1.0);
    REQUIRE(j["seeds"].size() == 2);
    const auto& s = j["seeds"][0];
    CHECK(s["seed"] == 1);
    CHECK(s["evals_to_90"] == 2);
    CHECK(s["evals_to_95"] == 2);
    CHECK(s["evals_to_100"].is_null());
    CHECK(s["best_so_far"] == nlohmann::json::parse("[4.0, 1.05, 1.05]"));
    CHECK(j["seeds"][1]["seed"] == 2);
    CHECK(j["summary"]["reached_95"] == 1.0);
    CHECK(j["summary"]["reached_100"] == 0.0);
    CHECK(j["summary"]["median_evals_to_95"] == 2.0);
    CHECK(j["summary"]["median_evals_to_100"].is_null());

    // A failed first evaluation: null before any success.
    dir.write("fail_first.json", cache(rec(1, "\"RuntimeFailedConfig\"") + "," + rec(2, "2.0")));
    const auto f = run_cli(
        dir, "replay " + dir.file("fail_first.json") + " --strategy exhaustive --seeds 1 --json");
    REQUIRE(f.rc == 0);
    const auto jf = nlohmann::json::parse(f.out);
    CHECK(jf["seeds"][0]["best_so_far"] == nlohmann::json::parse("[null, 2.0]"));

    // A checkpoint is reported where the budget reached it, or where the budget covered the whole
    // space before it: 3 evaluations of a 4-configuration space say nothing about 100.
    CHECK(j["summary"]["within_95_at"].empty());
    const auto whole = run_cli(dir, "replay " + dir.file("four.json") +
                                        " --strategy exhaustive --seeds 1 --max-evals 4 --json");
    REQUIRE(whole.rc == 0);
    CHECK(nlohmann::json::parse(whole.out)["summary"]["within_95_at"] ==
          nlohmann::json::parse(R"({"100": 1.0, "200": 1.0, "500": 1.0, "1000": 1.0})"));

    const auto text =
        run_cli(dir, "replay " + dir.file("four.json") + " --strategy genetic --seeds 3");
    CHECK(text.rc == 0);
    CHECK(text.out.find("seeds within 95%") != std::string::npos);
    // The optimum by parameter names, in µs as `hone show` prints times (the cache holds ms).
    CHECK(text.out.find("optimum 1000 µs at x=4, y=7") != std::string::npos);
    CHECK(text.out.find("best µs") != std::string::npos);
    // The optimum's line and each of the three seeds' best configuration end with names.
    std::size_t named = 0;
    for (std::size_t at = text.out.find(", y=7\n"); at != std::string::npos;
         at = text.out.find(", y=7\n", at + 1))
        ++named;
    CHECK(named == 4);
    // A short replay prints no progress.
    CHECK(text.err.empty());
}

TEST_CASE("replay reports each seed's end to on_seed") {
    temp_dir dir;
    dir.write("four.json", four);
    replay_options o = exhaustive(4);
    o.seeds = 3;
    std::vector<std::pair<int, int>> calls;
    o.on_seed = [&](int done, int total) { calls.emplace_back(done, total); };
    replay(load_recorded_space(dir.file("four.json")), o);
    CHECK(calls == std::vector<std::pair<int, int>>{{1, 3}, {2, 3}, {3, 3}});
}

TEST_CASE("hone replay refuses bad input with exit code 2 and says why") {
    temp_dir dir;
    dir.write("four.json", four);
    const std::string ok = dir.file("four.json");
    dir.write("damaged.json", four.substr(0, four.size() / 2));
    dir.write("all_failed.json",
              cache(rec(1, "\"CompilationFailedConfig\"") + "," + rec(2, "\"InvalidConfig\"")));
    dir.write("garbage.bin", "\x01\x02 not json");
    dir.write("foreign.json", R"({"results": []})");
    dir.write("t1.json", R"({"General": {}, "ConfigurationSpace": {}, "KernelSpecification": {}})");
    dir.write("bad.db", std::string("SQLite format 3\0", 16) + std::string(200, 'x'));
    dir.write("ktt_unit.json", ktt("Fortnights", ktt_result(64, "Ok", 1)));
    dir.write("ktt_status.json", ktt("Microseconds", R"({"TotalDuration": 1,
      "Configuration": [{"Name": "B", "Value": 64}]})"));
    dir.write("ktt_value.json", ktt("Microseconds", R"({"Status": "Ok", "TotalDuration": 1,
      "Configuration": [{"Name": "B", "Value": [64]}]})"));
    dir.write("ktt_results.json", R"({"Metadata": {"TimeUnit": "Microseconds"}, "Results": 3})");
    dir.write("ktt_failed.json", ktt("Microseconds", ktt_result(64, "CompilationFailed", 0)));
    dir.write("ktt_twice.json",
              ktt("Microseconds", ktt_result(64, "Ok", 1) + "," + ktt_result(64, "Ok", 2)));
    {
        results_store s(dir.file("two.db"));
        s.put(s.begin_run(replay_identity("a")), hone_record(64, false, 1.0));
        s.put(s.begin_run(replay_identity("b")), hone_record(64, false, 1.0));
    }
    const std::pair<std::string, std::string> cases[] = {
        {ok + " --strategy anealing", "expected one of: auto, exhaustive, random"},
        {ok + " --strategy genetic --option popsize=3", "has no option 'popsize'"},
        {ok + " --strategy genetic --option population=1", "must be in 2 .. 10000"},
        {ok + " --strategy gp_climb --option aligned_short=2",
         "aligned_short of strategy gp_climb must be in 0 .. 1"},
        {ok + " --strategy gp_climb --option aligned_short=0.5",
         "aligned_short of strategy gp_climb must be an integer"},
        {ok + " --strategy genetic --option population", "expected NAME=VALUE"},
        {ok + " --strategy genetic --option population=x", "expected a number"},
        {ok + " --strategy random --option x=1", "takes no options"},
        {ok + " --strategy auto --option patience=2",
         "it is gp_sweep with its defaults; for "
         "options name it (--strategy gp_sweep)"},
        {ok + " --strategy genetic -O population=30 -O population=40",
         "population is given twice (first 30)"},
        {ok + " --higher-is-better", "give --objective too"},
        {ok + " --objective GFLOP/s", "holds a number 'GFLOP/s' to rank by"},
        {ok + " --objective time --higher-is-better", "time is better lower"},
        {dir.file("ktt_failed.json") + " --objective GFLOP/s", "--objective takes only time"},
        {ok + " --max-evals 0", "--max-evals: expected a whole number 1 or more, got '0'"},
        {ok + " --seeds 0", "--seeds: expected a whole number from 1 to 100000, got '0'"},
        {ok + " --seeds 100001", "expected a whole number from 1 to 100000, got '100001'"},
        {ok + " --window 0", "--window: expected a whole number 1 or more, got '0'"},
        {ok + " --identity 2", "is a Kernel Tuner cache"},
        {dir.file("damaged.json"), "damaged.json"},
        {dir.file("all_failed.json"), "no successful record"},
        {dir.file("garbage.bin"), "neither a Kernel Tuner cache"},
        {dir.file("foreign.json"), "not a Kernel Tuner cache"},
        {dir.file("t1.json"), "T1 tuning-input file (parameters and kernel, no measured results)"},
        {dir.file("bad.db"), "bad.db"},
        {dir.file("two.db"), "pick one with --identity"},
        {dir.file("two.db") + " --identity 9", "no run '9'"},
        {dir.file("missing.json"), "missing.json"},
        {dir.file("ktt_unit.json"), "\"TimeUnit\" must be Nanoseconds, Microseconds"},
        {dir.file("ktt_status.json"), "Results[0]: \"Status\" must be a string"},
        {dir.file("ktt_value.json"), "Results[0]: parameter B's \"Value\" must be a number"},
        {dir.file("ktt_results.json"), "\"Results\" must be an array"},
        {dir.file("ktt_failed.json"), "no successful record"},
        {dir.file("ktt_twice.json"), "recorded twice"},
    };
    for (const auto& [args, expected] : cases) {
        CAPTURE(args);
        const auto r = run_cli(dir, "replay " + args);
        CHECK(r.rc == 2);
        CHECK(r.err.find(expected) != std::string::npos);
        CHECK(r.err.find("internal error") == std::string::npos);
    }
}
