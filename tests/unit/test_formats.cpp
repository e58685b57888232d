// The exchange formats: Kernel Tuner's cache and T4 in and out, CSV out, the status mappings,
// every way a file is refused, and what the store does with an imported run.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "damaged_input.hpp"
#include "formats/csv.hpp"
#include "formats/import.hpp"
#include "formats/json_file.hpp"
#include "formats/json_locate.hpp"
#include "formats/kt_cache_writer.hpp"
#include "formats/output_file.hpp"
#include "formats/stored_runs.hpp"
#include "formats/t4.hpp"
#include "hone/error.hpp"
#include "hone/store.hpp"
#include "measure/stats.hpp"
#include "record/params_json.hpp"
#include "run_cli.hpp"
#include "store/flat_json.hpp"
#include "temp_dir.hpp"

using namespace hone;
using json = nlohmann::json;

namespace {

// A cache of our own making in Kernel Tuner's layout: an ok record with every field, a failure
// that still has raw times, the three failure kinds, a record without times.
const char* const small_kt_cache = R"({
"device_name": "NVIDIA GeForce RTX 2080 Ti",
"kernel_name": "vadd",
"problem_size": [1024, 2],
"tune_params_keys": ["block", "vec", "fast", "scale"],
"tune_params": {"block": [32, 64], "vec": [1, 2], "fast": [false, true], "scale": [1e-05, 0.5]},
"objective": "time",
"cache": {
"64,1,False,0.5": {"block": 64, "vec": 1, "fast": false, "scale": 0.5, "time": 1.625, "times": [1.5, 1.625, 1.75, 2.0], "compile_time": 20.5, "verification_time": 1.25, "benchmark_time": 3.5, "framework_time": 0.75, "strategy_time": 0.125, "timestamp": "2024-01-01 10:00:00.123456+00:00", "GFLOP/s": 12.5},
"32,1,False,0.5": {"block": 32, "vec": 1, "fast": false, "scale": 0.5, "time": "RuntimeFailedConfig", "times": [0.25, 0.5], "compile_time": 3.0, "verification_time": 0, "benchmark_time": 0.5, "framework_time": 1.0, "strategy_time": 0},
"32,2,True,0.5": {"block": 32, "vec": 2, "fast": true, "scale": 0.5, "time": "CompilationFailedConfig", "compile_time": 3.0, "verification_time": 0, "benchmark_time": 0, "framework_time": 2.0, "strategy_time": 0},
"64,2,True,1e-05": {"block": 64, "vec": 2, "fast": true, "scale": 1e-05, "time": "InvalidConfig", "compile_time": 0, "verification_time": 0, "benchmark_time": 0, "framework_time": 0.5, "strategy_time": 0},
"32,1,True,1e-05": {"block": 32, "vec": 1, "fast": true, "scale": 1e-05, "time": 0.875, "compile_time": 4.0, "verification_time": 0, "benchmark_time": 2.5, "framework_time": 0.25, "strategy_time": 0, "GB/s": 100.0}
}
})";

run_records import_text(const temp_dir& d, const std::string& name, const std::string& text) {
    d.write(name, text);
    return import_file(d.file(name.c_str()));
}

std::string import_error(const temp_dir& d, const std::string& name, const std::string& text) {
    try {
        import_text(d, name, text);
    } catch (const input_error& e) {
        return e.what();
    }
    return "";
}

const eval_record& by_key(const run_records& run, const std::string& key) {
    for (const auto& r : run.records)
        if (r.key == key) return r;
    FAIL("no record " << key);
    return run.records.front();
}

// A run as hone measures it: every status, every field set.
run_records hone_run() {
    run_records run;
    run_identity& id = run.identity;
    id.config_path = "configs/vector_add.yaml";
    id.kernel_name = "vector_add<{VEC}, {STRIDED}>";
    id.source_hash = "0123";
    id.spec_hash = "4567";
    id.problem = "N=1048576,M=4";
    id.device_name = "NVIDIA H100";
    id.device_uuid = "GPU-1234";
    id.arch = "sm_90";
    id.driver_version = 13000;
    id.nvrtc_version = "13.0";
    id.tool_version = tool_version();
    for (int i = 0; i <= static_cast<int>(status::timeout); ++i) {
        const auto st = static_cast<status>(i);
        eval_record r;
        r.params = {{"BLOCK", int64_t{32 << i}},
                    {"IDX_T", std::string(i % 2 ? "long long" : "int")},
                    {"FAST", i % 3 == 0},
                    {"SCALE", 0.25 * (i + 1)}};
        r.key = key_of(r.params);
        r.st = st;
        r.message = st == status::ok ? "" : fmt::format("what went wrong, \"{}\",\nline 2", i);
        r.compile_log = i == 2 ? "error: expected ';'" : "";
        r.compile_ms = 120.5 + i;
        r.compile_cached = i % 2 == 0;
        r.resources = {30 + i, 4, 8, 16, 1024, 64};
        job_result& g = r.gpu;
        g.st = st;
        g.message = r.message;
        g.output = i == 7 ? "trap output\n" : "";
        g.num_regs = 32 + i;
        g.local_bytes = 12;
        g.static_shared_bytes = 2048;
        g.max_threads_per_block = 768;
        g.active_blocks_per_sm = 3;
        g.occupancy = 0.75;
        if (has_timing(st) || st == status::wrong_result) {
            g.samples_us = {78.8 + i, 78.5 + i, 79.1 + i, 0.1 + 0.2 + 78, 78.65 + i, 78.7};
            g.time_us = summarize(g.samples_us);
            g.sample_mode = "single+flush";
            g.timer = "events";
        }
        g.steps = {0.001 + i, 0.002, 0.003, 0.004, 7 + i};
        g.gpu_busy_s = 0.0125;
        g.wall_s = 0.5;
        r.gbps = has_timing(st) ? 1500.5 - i : 0;
        r.gflops = has_timing(st) ? 12.75 + i : 0;
        r.metrics = {{"energy_J", 0.25 + i}};
        r.dynamic_shared_bytes = 4096;
        r.grid = {1024u + i, 2, 3};
        r.block = {256, 1, 1};
        r.created_at = fmt::format("2025-01-0{}T10:00:00.000Z", i + 1);
        run.records.push_back(std::move(r));
    }
    return run;
}

bool close(double a, double b) {
    return a == b || std::abs(a - b) <= 2e-16 * std::max(std::abs(a), std::abs(b));
}

void check_samples(const std::vector<double>& got, const std::vector<double>& want) {
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) CHECK(close(got[i], want[i]));
}

}  // namespace

TEST_CASE("formats: statuses map both ways as the issue lists them") {
    CHECK(std::string(kt_failure_of(status::compile_error)) == "CompilationFailedConfig");
    CHECK(std::string(kt_failure_of(status::compile_timeout)) == "CompilationFailedConfig");
    CHECK(std::string(kt_failure_of(status::device_limits)) == "InvalidConfig");
    for (status s :
         {status::runtime_fault, status::launch_error, status::timeout, status::wrong_result})
        CHECK(std::string(kt_failure_of(s)) == "RuntimeFailedConfig");
    CHECK(kt_failure_of(status::ok) == nullptr);
    CHECK(kt_failure_of(status::not_converged) == nullptr);
    CHECK(status_of_kt_failure("CompilationFailedConfig") == status::compile_error);
    CHECK(status_of_kt_failure("RuntimeFailedConfig") == status::runtime_fault);
    CHECK(status_of_kt_failure("InvalidConfig") == status::device_limits);
    CHECK_FALSE(status_of_kt_failure("ErrorConfig"));

    CHECK(std::string(t4_invalidity_of(status::ok)) == "correct");
    CHECK(std::string(t4_invalidity_of(status::compile_error)) == "compile");
    CHECK(std::string(t4_invalidity_of(status::runtime_fault)) == "runtime");
    CHECK(std::string(t4_invalidity_of(status::launch_error)) == "runtime");
    CHECK(std::string(t4_invalidity_of(status::timeout)) == "timeout");
    CHECK(std::string(t4_invalidity_of(status::device_limits)) == "constraints");
    CHECK(std::string(t4_invalidity_of(status::wrong_result)) == "correctness");
    // Every status maps to a kind whose way back keeps the kind.
    for (int i = 0; i <= static_cast<int>(status::timeout); ++i) {
        const auto s = static_cast<status>(i);
        CHECK(std::string(t4_invalidity_of(*status_of_t4_invalidity(t4_invalidity_of(s)))) ==
              t4_invalidity_of(s));
        if (const char* f = kt_failure_of(s))
            CHECK(std::string(kt_failure_of(*status_of_kt_failure(f))) == f);
    }
    CHECK_FALSE(status_of_t4_invalidity("broken"));
}

TEST_CASE("formats: Python's text of a value, as Kernel Tuner keys its cache") {
    CHECK(python_text(1.0) == "1.0");
    CHECK(python_text(0.5) == "0.5");
    CHECK(python_text(1e-05) == "1e-05");
    CHECK(python_text(1.5e-07) == "1.5e-07");
    CHECK(python_text(1e16) == "1e+16");
    CHECK(python_text(2.5e20) == "2.5e+20");
    CHECK(python_text(1e15) == "1000000000000000.0");
    CHECK(python_text(123456789.0) == "123456789.0");
    CHECK(python_text(0.0001) == "0.0001");
    CHECK(python_text(-2.5) == "-2.5");
    CHECK(python_text(0.1 + 0.2) == "0.30000000000000004");
    CHECK(python_text(-0.0) == "-0.0");
    CHECK(python_text(true) == "True");
    CHECK(python_text(int64_t{-3}) == "-3");
    CHECK(python_text(std::string("float4")) == "float4");
}

TEST_CASE("formats: times in another unit keep their digits where a double can") {
    CHECK(us_of_ms(0.4940800070762634) == 494.0800070762634);
    CHECK(ms_of_us(us_of_ms(0.4940800070762634)) == 0.4940800070762634);
    CHECK(ms_of_us(us_of_ms(60.598496)) == 60.598496);
    CHECK(s_of_ms(243.53425414301455) * 1000 == 243.53425414301455);
    CHECK(times_pow10(7.25, 0) == 7.25);
    CHECK(times_pow10(7.25, -6) == 7.25e-6);
}

TEST_CASE("kt cache: an import keeps parameters, statuses, raw times, compile times and metrics") {
    temp_dir d;
    const run_records run = import_text(d, "small.json", small_kt_cache);
    const run_identity& id = run.identity;
    CHECK(id.kernel_name == "vadd");
    CHECK(id.device_name == "NVIDIA GeForce RTX 2080 Ti");
    CHECK(id.problem == "[1024,2]");
    CHECK(id.origin == "kernel_tuner cache (small.json)");
    CHECK(id.objective == "time");
    REQUIRE(run.records.size() == 5);
    // File order is kept: it is the order Kernel Tuner evaluated them in.
    CHECK(run.records[0].key == "block=64,vec=1,fast=false,scale=0.5");
    CHECK(run.records[4].key == "block=32,vec=1,fast=true,scale=1e-05");

    const eval_record& ok = run.records[0];
    CHECK(ok.st == status::ok);
    CHECK(ok.params ==
          param_list{{"block", int64_t{64}}, {"vec", int64_t{1}}, {"fast", false}, {"scale", 0.5}});
    CHECK(ok.gpu.samples_us == std::vector<double>{1500, 1625, 1750, 2000});
    CHECK(ok.gpu.time_us.n == 4);
    CHECK(ok.gpu.time_us.median == 1687.5);
    CHECK(ok.compile_ms == 20.5);
    CHECK(ok.gpu.steps.verify_s == 0.00125);
    CHECK(ok.gpu.steps.samples_s == 0.0035);
    CHECK(ok.metrics == std::map<std::string, double>{{"GFLOP/s", 12.5},
                                                      {"time", 1.625},
                                                      {"framework_time", 0.75},
                                                      {"strategy_time", 0.125}});
    // At the median (1.6875 ms) rather than the file's time (1.625 ms), as hone's own rates.
    CHECK(ok.gflops == doctest::Approx(12.5 * 1.625 / 1.6875));
    CHECK(ok.created_at == "2024-01-01 10:00:00.123456+00:00");

    const eval_record& failed = run.records[1];
    CHECK(failed.st == status::runtime_fault);
    CHECK(failed.message == "Kernel Tuner: RuntimeFailedConfig");
    CHECK(failed.gpu.samples_us == std::vector<double>{250, 500});  // kept though it failed
    CHECK(run.records[2].st == status::compile_error);
    CHECK(run.records[3].st == status::device_limits);

    // No raw times: the file's time is the median, alone.
    const eval_record& lone = run.records[4];
    CHECK(lone.gpu.samples_us.empty());
    CHECK(lone.gpu.time_us.n == 1);
    CHECK(lone.gpu.time_us.median == 875);
    CHECK(lone.gpu.time_us.ci_low == 875);
    CHECK(lone.gbps == 100.0);
}

TEST_CASE("kt cache: import then export gives Kernel Tuner's file back") {
    temp_dir d;
    const run_records run = import_text(d, "small.json", small_kt_cache);
    const json original = json::parse(small_kt_cache);
    const json back = json::parse(write_kt_cache(run));
    for (const char* k : {"device_name", "kernel_name", "problem_size", "tune_params_keys",
                          "tune_params", "objective"})
        CHECK_MESSAGE(back[k] == original[k], k);
    // Records, by key, field by field (order of records: as in the file).
    REQUIRE(back["cache"].size() == original["cache"].size());
    for (const auto& [key, rec] : original["cache"].items()) {
        REQUIRE_MESSAGE(back["cache"].contains(key), key);
        CHECK_MESSAGE(back["cache"][key] == rec, key << "\n" << back["cache"][key].dump());
    }
    const std::string text = write_kt_cache(run);
    CHECK(object_member_keys(text, "cache") == object_member_keys(small_kt_cache, "cache"));
}

TEST_CASE("kt cache: a hone run written as a cache reads back with the statuses mapped") {
    const run_records run = hone_run();
    const std::string text = write_kt_cache(run);
    const json doc = json::parse(text);
    CHECK(doc["problem_size"] == json::array({1048576, 4}));
    CHECK(doc["tune_params_keys"] == json::array({"BLOCK", "IDX_T", "FAST", "SCALE"}));
    CHECK(doc["tune_params"]["FAST"] == json::array({false, true}));
    CHECK(doc["tune_params"]["IDX_T"] == json::array({"int", "long long"}));
    const json& ok = doc["cache"]["32,int,True,0.25"];
    CHECK(ok["time"] == ms_of_us(run.records[0].gpu.time_us.median));
    CHECK(ok["compile_time"] == 120.5);
    CHECK(ok["energy_J"] == 0.25);
    CHECK(ok["GB/s"] == 1500.5);
    CHECK(ok["timestamp"] == "2025-01-01T10:00:00.000Z");

    const kt_cache c = parse_kt_cache(text, "hone.json");
    const run_records back = from_kt_cache(c, "hone.json");
    REQUIRE(back.records.size() == run.records.size());
    for (std::size_t i = 0; i < run.records.size(); ++i) {
        const eval_record& a = run.records[i];
        const eval_record& b = back.records[i];
        CHECK(b.key == a.key);
        CHECK(b.params == a.params);
        auto kind = [](status st) {
            return std::string(kt_failure_of(st) ? kt_failure_of(st) : "ok");
        };
        CHECK(kind(b.st) == kind(a.st));
        check_samples(b.gpu.samples_us, a.gpu.samples_us);
        CHECK(b.compile_ms == a.compile_ms);
        CHECK(b.metrics.at("energy_J") == a.metrics.at("energy_J"));
    }
}

TEST_CASE("t4: a hone run exported and imported is the same run") {
    const run_records run = hone_run();
    const std::string text = write_t4(run);
    const json doc = json::parse(text);
    CHECK(doc["schema_version"] == "1.0.0");
    CHECK(doc["metadata"]["timeunit"] == "milliseconds");
    REQUIRE(doc["results"].size() == run.records.size());
    const json& first = doc["results"][0];
    CHECK(first["invalidity"] == "correct");
    CHECK(first["correctness"] == 1);
    CHECK(first["times"]["compilation_time"] == 120.5);
    CHECK(first["times"]["runtimes"].size() == 6);
    CHECK(doc["results"][static_cast<int>(status::wrong_result)]["correctness"] == 0);
    CHECK(doc["results"][static_cast<int>(status::timeout)]["invalidity"] == "timeout");

    const run_records back = read_t4_text(text, "dir/run.t4.json");
    CHECK(back.identity.kernel_name == run.identity.kernel_name);
    CHECK(back.identity.source_hash == "0123");
    CHECK(back.identity.device_uuid == "GPU-1234");
    CHECK(back.identity.problem == run.identity.problem);
    CHECK(back.identity.origin == fmt::format("hone {} T4 (run.t4.json)", tool_version()));
    CHECK(back.identity.id() != run.identity.id());  // imported: never the measured run
    REQUIRE(back.records.size() == run.records.size());
    for (std::size_t i = 0; i < run.records.size(); ++i) {
        const eval_record& a = run.records[i];
        const eval_record& b = back.records[i];
        CAPTURE(a.key);
        CHECK(b.key == a.key);
        CHECK(b.params == a.params);
        CHECK(b.st == a.st);
        CHECK(b.message == a.message);
        CHECK(b.compile_log == a.compile_log);
        CHECK(b.compile_ms == a.compile_ms);
        CHECK(b.compile_cached == a.compile_cached);
        CHECK(b.gpu.output == a.gpu.output);
        check_samples(b.gpu.samples_us, a.gpu.samples_us);
        CHECK(close(b.gpu.time_us.median, a.gpu.time_us.median));
        CHECK(close(b.gpu.time_us.ci_high, a.gpu.time_us.ci_high));
        CHECK(b.gpu.time_us.n == a.gpu.time_us.n);
        CHECK(b.gpu.sample_mode == a.gpu.sample_mode);
        CHECK(b.gpu.timer == a.gpu.timer);
        CHECK(b.gpu.steps.load_s == a.gpu.steps.load_s);
        CHECK(b.gpu.steps.samples_s == a.gpu.steps.samples_s);
        CHECK(b.gpu.steps.waits == a.gpu.steps.waits);
        CHECK(b.resources.registers == a.resources.registers);
        CHECK(b.resources.const_bytes == a.resources.const_bytes);
        CHECK(b.gpu.num_regs == a.gpu.num_regs);
        CHECK(b.gpu.occupancy == a.gpu.occupancy);
        CHECK(b.grid == a.grid);
        CHECK(b.dynamic_shared_bytes == a.dynamic_shared_bytes);
        CHECK(b.gbps == a.gbps);
        CHECK(b.gflops == a.gflops);
        CHECK(b.metrics == a.metrics);
        CHECK(b.created_at == a.created_at);
    }
}

TEST_CASE("t4: a file in Kernel Tuner's layout is read from the schema's fields") {
    const std::string text =
        R"({"schema_version": "1.0.0", "metadata": {"timeunit": "milliseconds"},
"results": [
 {"timestamp": "2024-05-01 10:00:00", "configuration": {"bx": 32, "tile": 2},
  "times": {"compilation": 12.5, "benchmark": 4.0, "framework": 0.5, "search_algorithm": 0.25,
            "validation": 1.0, "runtimes": [1.0, 1.25, 1.5]},
  "invalidity": "correct", "correctness": 1,
  "measurements": [{"name": "time", "value": 1.25, "unit": "ms"}, {"name": "GFLOP/s", "value": 50.5, "unit": ""},
                   {"name": "note", "value": "text is skipped", "unit": ""}],
  "objectives": ["time"]},
 {"configuration": {"bx": 64, "tile": 2}, "times": {"compilation": 3.0, "runtimes": []},
  "invalidity": "compile", "correctness": 1, "measurements": [], "objectives": ["time"]}
]})";
    const run_records run = read_t4_text(text, "kt.json");
    CHECK(run.identity.origin == "T4 (kt.json)");
    CHECK(run.identity.objective == "time");
    REQUIRE(run.records.size() == 2);
    const eval_record& ok = run.records[0];
    CHECK(ok.key == "bx=32,tile=2");
    CHECK(ok.st == status::ok);
    CHECK(ok.gpu.samples_us == std::vector<double>{1000, 1250, 1500});
    CHECK(ok.gpu.time_us.median == 1250);
    CHECK(ok.compile_ms == 12.5);
    CHECK(ok.gpu.steps.verify_s == 0.001);
    CHECK(ok.gpu.steps.samples_s == 0.004);
    CHECK(ok.metrics ==
          std::map<std::string, double>{
              {"time", 1.25}, {"GFLOP/s", 50.5}, {"framework_time", 0.5}, {"strategy_time", 0.25}});
    CHECK(ok.gflops == 50.5);
    CHECK(ok.created_at == "2024-05-01 10:00:00");
    CHECK(run.records[1].st == status::compile_error);
    CHECK(run.records[1].message == "T4 invalidity: compile");

    // Seconds are converted; a correct result with one objective value and no runtimes ranks by it.
    const run_records secs = read_t4_text(
        R"({"schema_version": "1.2.0", "metadata": {"timeunit": "seconds"}, "results": [
        {"configuration": {"a": 1}, "times": {"compilation_time": 0.5},
         "invalidity": "correct", "correctness": 1,
         "measurements": [{"name": "time", "value": 0.002}], "objectives": ["time"]}]})",
        "s.json");
    CHECK(secs.records[0].compile_ms == 500);
    CHECK(secs.records[0].gpu.time_us.n == 1);
    CHECK(secs.records[0].gpu.time_us.median == 2000);

    // The FAIR benchmark hub's T4 files spell the unit "miliseconds"; case and number vary.
    for (const char* unit : {"miliseconds", "Milliseconds", "millisecond", "MS"}) {
        CAPTURE(unit);
        const run_records hub = read_t4_text(
            fmt::format(R"({{"schema_version": "1.0.0", "metadata": {{"timeunit": "{}"}},
            "results": [{{"configuration": {{"a": 1}}, "times": {{"runtimes": [2.5, 3.5]}},
            "invalidity": "correct", "correctness": 1}}]}})",
                        unit),
            "hub.json");
        CHECK(hub.records[0].gpu.time_us.median == 3000);
    }
    const run_records micro = read_t4_text(
        R"({"schema_version": "1.0.0", "metadata": {"timeunit": "Microsecond"}, "results": [
        {"configuration": {"a": 1}, "times": {"runtimes": [4]}, "invalidity": "correct",
         "correctness": 1}]})",
        "us.json");
    CHECK(micro.records[0].gpu.time_us.median == 4);
}

TEST_CASE("t4: every way a results file is refused names the result and what was expected") {
    auto error_of = [](const std::string& text) {
        try {
            read_t4_text(text, "r.json");
        } catch (const input_error& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    const std::string good = R"({"schema_version": "1.0.0",
"results": [
  {"configuration": {"a": 1}, "times": {"runtimes": [1]}, "invalidity": "correct", "correctness": 1},
  {"configuration": {"a": 2}, "times": {"runtimes": [2]}, "invalidity": "correct", "correctness": 1}
]})";
    CHECK(error_of(good).empty());
    CHECK(error_of(R"({"results": []})").find("expected \"schema_version\": \"1.x.y\"") !=
          std::string::npos);
    CHECK(error_of(replaced(good, "1.0.0", "2.0.0"))
              .find("T4 schema_version \"2.0.0\": this hone reads T4 results of schema version "
                    "1.x.y") != std::string::npos);
    CHECK(error_of(R"({"schema_version": "1.0.0", "results": {}})").find("must be a list") !=
          std::string::npos);
    // A missing required field: the position of the result, its index, the required fields.
    const std::string missing = replaced(good, R"("invalidity": "correct", "correctness": 1},
  {"configuration": {"a": 2})",
                                         R"("correctness": 1},
  {"configuration": {"a": 2})");
    CHECK(error_of(missing) ==
          "r.json:3:3: results[0]: missing \"invalidity\"; a T4 result requires configuration, "
          "times, invalidity and correctness");
    CHECK(error_of(replaced(good, R"("configuration": {"a": 2}, )", ""))
              .starts_with("r.json:4:3: results[1]: missing \"configuration\""));
    CHECK(error_of(replaced(good, R"(, "correctness": 1}
])",
                            "}\n]"))
              .find("results[1]: missing \"correctness\"") != std::string::npos);
    CHECK(error_of(replaced(good, R"("invalidity": "correct", "correctness": 1}
])",
                            R"("invalidity": "wrong", "correctness": 1}
])"))
              .find("invalidity \"wrong\": expected one of timeout, compile") != std::string::npos);
    CHECK(error_of(replaced(good, R"({"a": 2})", R"({"a": 1})"))
              .find("configuration a=1 appears twice (also results[0])") != std::string::npos);
    CHECK(error_of(replaced(good, R"({"a": 2})", R"({"b": 2})"))
              .find("configuration has parameters b; results[0] has a") != std::string::npos);
    CHECK(error_of(replaced(good, R"("runtimes": [2])", R"("runtimes": ["x"])"))
              .find("times.runtimes: \"x\" is not a number") != std::string::npos);
    CHECK(error_of(replaced(good, R"("runtimes": [2])", R"("runtimes": [])"))
              .find("no times.runtimes and no \"time\" measurement") != std::string::npos);
    CHECK(error_of(replaced(good, R"({"a": 2})", R"({"a": [2]})"))
              .find("parameter 'a' = [2] is not a number") != std::string::npos);
    CHECK(error_of(replaced(good, R"("results")",
                            R"("metadata": {"timeunit": "fortnights"}, "results")"))
              .find("expected seconds, milliseconds") != std::string::npos);
}

TEST_CASE("import: another format, a truncated gzip and a doubtful cache are refused") {
    temp_dir d;
    auto has = [](const std::string& error, const std::string& part) {
        CAPTURE(error);
        CHECK(error.find(part) != std::string::npos);
    };
    has(import_error(d, "t1.json", R"({"General": {}, "ConfigurationSpace": {}})"),
        "t1.json: not a file hone imports: expected a Kernel Tuner cache");
    has(import_error(d, "t1_whole.json",
                     R"({"General": {}, "ConfigurationSpace": {}, "KernelSpecification": {}})"),
        "t1_whole.json: not results but a T1 tuning-input file");
    has(import_error(d, "list.json", "[1, 2]"), "not a file hone imports");
    has(import_error(d, "broken.json", "{\"cache\": "), "broken.json:1:11: not valid JSON");
    write_gzip(d.file("cut.json.gz"), small_kt_cache, 200);
    try {
        import_file(d.file("cut.json.gz"));
        FAIL("a truncated gzip was read");
    } catch (const input_error& e) {
        has(e.what(), "damaged or truncated gzip data");
    }
    write_gzip(d.file("whole.json.gz"), small_kt_cache, 0);
    CHECK(import_file(d.file("whole.json.gz")).records.size() == 5);
    // Kernel Tuner's three failure kinds, nothing else.
    has(import_error(d, "f.json", replaced(small_kt_cache, "\"InvalidConfig\"", "\"ErrorConfig\"")),
        "time is the string \"ErrorConfig\"; expected a number or one of InvalidConfig, "
        "CompilationFailedConfig, RuntimeFailedConfig");
    // A parameter the header does not list.
    has(import_error(d, "p.json",
                     replaced(small_kt_cache, R"("scale": 0.5, "time": 1.625)",
                              R"("scale": 0.5, "tile": "x", "time": 1.625)")),
        "record \"64,1,False,0.5\": unknown parameter 'tile' = \"x\"; expected one of the "
        "parameters block, vec, fast, scale");
    has(import_error(d, "k.json",
                     replaced(small_kt_cache, R"("64,1,False,0.5": {"block": 64)",
                              R"("64,1,False,0.5": {"block": 32)")),
        "its key does not name its parameters' values (expected \"32,1,False,0.5\"");
    has(import_error(
            d, "n.json",
            replaced(small_kt_cache, R"("block": [32, 64])", R"("block": [32, 64], "extra": [1])")),
        "parameter 'extra' of \"tune_params\" is not in \"tune_params_keys\"");
    // Position: the offending record's line.
    const std::string e =
        import_error(d, "pos.json", replaced(small_kt_cache, "\"InvalidConfig\"", "\"Oops\""));
    CHECK_MESSAGE(e.find("pos.json:12:") != std::string::npos, e);
}

TEST_CASE("csv: one row per configuration, quoted as RFC 4180 says") {
    CHECK(csv_field("plain") == "plain");
    CHECK(csv_field("a,b") == "\"a,b\"");
    CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
    CHECK(csv_field("two\nlines") == "\"two\nlines\"");
    CHECK(csv_field("cr\r") == "\"cr\r\"");
    run_records run = hone_run();
    const std::string text = write_csv({&run});
    // Rows end with CRLF; a quoted field may hold a bare LF.
    std::vector<std::string> rows;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t end = text.find("\r\n", at);
        REQUIRE(end != std::string::npos);
        rows.push_back(text.substr(at, end - at));
        at = end + 2;
    }
    REQUIRE(rows.size() == run.records.size() + 1);
    CHECK(
        rows[0].starts_with("BLOCK,IDX_T,FAST,SCALE,status,median_us,ci_low_us,ci_high_us,mean_us,"
                            "stddev_us,min_us,max_us,n,gbps,gflops,registers,spill_bytes,"
                            "shared_bytes,occupancy,compile_ms,sample_mode,timer,energy_J,message,"
                            "created_at"));
    CHECK(rows[1].starts_with("32,int,true,0.25,ok,"));
    CHECK(rows[2].find("\"what went wrong, \"\"1\"\",\nline 2\"") != std::string::npos);
    // Two runs: run columns first, parameters of both.
    run_records other = hone_run();
    other.identity.device_name = "NVIDIA A100";
    other.records.resize(1);
    other.records[0].params.emplace_back("EXTRA", int64_t{7});
    const std::string two = write_csv({&run, &other});
    CHECK(two.starts_with("run,kernel,device,origin,BLOCK,IDX_T,FAST,SCALE,EXTRA,status"));
    CHECK(two.find(",NVIDIA A100,,32,int,true,0.25,7,ok,") != std::string::npos);
}

TEST_CASE("json_locate: elements and member names in the text's order") {
    const std::string text =
        R"({"x": [1, {"a": [2, 3]}, "s,]"], "cache": {"b\"q": 1, "a": {"z": [1]}, "c": "}"}, "results": [ {"k": 1} , 5 ]})";
    const auto offsets = array_element_offsets(text, "results");
    REQUIRE(offsets.size() == 2);
    CHECK(text.substr(offsets[0], 8) == "{\"k\": 1}");
    CHECK(text[offsets[1]] == '5');
    CHECK(array_element_offsets(text, "x").size() == 3);
    CHECK(object_member_keys(text, "cache") == std::vector<std::string>{"b\"q", "a", "c"});
    CHECK(object_member_keys(text, "nothing").empty());
    CHECK(array_element_offsets(text, "cache").empty());
}

TEST_CASE("json_locate: the top-level members as a parser reads them") {
    const std::string text =
        " \n{\"x\": [1, {\"a\": [2, 3]}, \"s,]\\\":\"], \"c\\u0061che\": {\"b\": {\"q\": 1}},"
        " \"\": null, \"r\": \"}\"}";
    const auto members = top_level_members(text);
    REQUIRE(members);
    std::vector<std::string> names;
    for (const auto& m : *members) names.push_back(m.name);
    CHECK(names == std::vector<std::string>{"x", "cache", "", "r"});
    CHECK(names == *top_level_keys(text, "t.json"));
    CHECK(text[(*members)[0].value] == '[');
    CHECK(text.compare((*members)[2].value, 4, "null") == 0);
    // Not an object: none, as top_level_keys says.
    for (const std::string other : {"[{\"cache\": 1}]", "\"cache\"", "", "  7"})
        CHECK_FALSE(top_level_members(other));
    CHECK_FALSE(top_level_keys("[{\"cache\": 1}]", "t.json"));
    // Text after the top-level object is not read as its members.
    const auto after = top_level_members("{\"a\": 1} {\"cache\": 2}");
    REQUIRE(after);
    CHECK(after->size() == 1);
    // Every shipped or test cache and T4 file: the same names as the parser's.
    for (const auto& entry : std::filesystem::recursive_directory_iterator(
             std::filesystem::path(HONE_SOURCE_DIR) / "tests")) {
        if (entry.path().extension() != ".json") continue;
        const std::string file = read_maybe_gzip(entry.path().string());
        std::optional<std::vector<std::string>> parsed;
        try {
            parsed = top_level_keys(file, entry.path().string());
        } catch (const input_error&) {
            continue;  // not valid JSON: a parser's to report
        }
        const auto scanned = top_level_members(file);
        CHECK(scanned.has_value() == parsed.has_value());
        if (!scanned || !parsed) continue;
        std::vector<std::string> scanned_names;
        for (const auto& m : *scanned) scanned_names.push_back(m.name);
        CHECK_MESSAGE(scanned_names == *parsed, entry.path().string());
    }
}

TEST_CASE("output files are whole or absent, gzip'd on request") {
    temp_dir d;
    write_file_atomically(d.file("a.txt"), "hello\n");
    CHECK(read_maybe_gzip(d.file("a.txt")) == "hello\n");
    write_file_atomically(d.file("a.json.gz"), small_kt_cache, true);
    CHECK(read_maybe_gzip(d.file("a.json.gz")) == small_kt_cache);
    CHECK_THROWS_AS(write_file_atomically(d.file("no/such/dir/x"), "x"), env_error);
    // Nothing is left behind: no temporary files.
    int files = 0;
    for (const auto& e : std::filesystem::directory_iterator(d.path)) files += e.is_regular_file();
    CHECK(files == 2);
}

TEST_CASE("store: an imported run is stored whole, in order, apart from measured runs") {
    temp_dir d;
    const std::string db = d.file("r.db");
    run_records measured = hone_run();
    run_records imported = import_text(d, "small.json", small_kt_cache);
    // The same identity but for the origin: still another run.
    run_records lookalike = hone_run();
    lookalike.identity.origin = "kernel_tuner cache (x.json)";
    CHECK(lookalike.identity.id() != measured.identity.id());
    {
        results_store s(db);
        const int64_t run_id = s.begin_run(measured.identity);
        for (const auto& r : measured.records) s.put(run_id, r);
        s.put_run(imported.identity, imported.records);
        s.put_run(lookalike.identity, lookalike.records);
        // What `hone tune` resumes from: only its own records.
        CHECK(s.done(measured.identity.id()).size() == measured.records.size());
        CHECK(s.done(imported.identity.id()).size() == imported.records.size());
        // Importing again replaces, never duplicates or mixes.
        imported.records.pop_back();
        s.put_run(imported.identity, imported.records);
        CHECK(s.done(imported.identity.id()).size() == 4);
    }
    const auto runs = read_stored_runs(db);
    REQUIRE(runs.size() == 3);
    CHECK(runs[0].identity.origin.empty());
    CHECK(runs[1].identity.origin == "kernel_tuner cache (small.json)");
    REQUIRE(runs[1].records.size() == 4);
    // Stored order is file order; a record without a timestamp keeps none.
    for (std::size_t i = 0; i < 4; ++i) CHECK(runs[1].records[i].key == imported.records[i].key);
    CHECK(runs[1].records[0].created_at == "2024-01-01 10:00:00.123456+00:00");
    CHECK(runs[1].records[1].created_at.empty());
    CHECK(runs[1].records[0].gpu.samples_us == imported.records[0].gpu.samples_us);
    CHECK(read_stored_runs(db, true)[1].records[0].gpu.samples_us.empty());
    // Selecting a run by the start of its id.
    const auto one = select_runs(read_stored_runs(db), runs[1].identity.id().substr(0, 6), db);
    REQUIRE(one.size() == 1);
    CHECK(one[0].identity.origin == runs[1].identity.origin);
    try {
        select_runs(read_stored_runs(db), "zzzz", db);
        FAIL("no error");
    } catch (const input_error& e) {
        CHECK(std::string(e.what()).find("no run of " + db +
                                         " is numbered 'zzzz' or has an id starting with it") !=
              std::string::npos);
        CHECK(std::string(e.what()).find("imported: kernel_tuner cache (small.json)") !=
              std::string::npos);
    }
    CHECK_THROWS_AS(read_stored_runs(d.file("absent.db")), input_error);
    CHECK_FALSE(std::filesystem::exists(d.file("absent.db")));
}

TEST_CASE("kt cache: the shared brute-forced spaces import and export back unchanged") {
    std::string dir;
    for (const char* up : {"/../shared/spaces", "/../../shared/spaces"})
        if (std::filesystem::exists(std::string(HONE_SOURCE_DIR) + up))
            dir = std::string(HONE_SOURCE_DIR) + up;
    if (dir.empty()) {
        MESSAGE("skipped: ../shared/spaces is not on this machine");
        return;
    }
    // These two round-trip to the last bit (GEMM's raw times do not all: see exchange.hpp).
    for (const char* name : {"pnpoly_RTX_2080_Ti.json.gz", "convolution_A4000.json.gz"}) {
        CAPTURE(name);
        const std::string path = dir + "/" + name;
        const run_records run = import_file(path);
        CHECK(run.identity.origin == fmt::format("kernel_tuner cache ({})", name));
        const json original = json::parse(read_maybe_gzip(path));
        const json back = json::parse(write_kt_cache(run));
        REQUIRE(back["cache"].size() == original["cache"].size());
        CHECK(back["tune_params"] == original["tune_params"]);
        std::size_t differing = 0;
        for (const auto& [key, rec] : original["cache"].items())
            differing += back["cache"][key] != rec;
        CHECK(differing == 0);
    }
}

TEST_CASE("store: the fast readers of the store's JSON agree with the general parser") {
    using namespace store_detail;
    std::vector<double> xs;
    CHECK(read_number_array("[1.5, 2, -3e-05, 0.30000000000000004]", xs));
    CHECK(xs == std::vector<double>{1.5, 2, -3e-05, 0.1 + 0.2});
    CHECK(read_number_array("[]", xs));
    CHECK(xs.empty());
    CHECK_FALSE(read_number_array("[1, null]", xs));
    CHECK_FALSE(read_number_array("[1,]", xs));
    CHECK_FALSE(read_number_array("[1] x", xs));
    std::map<std::string, double> m;
    CHECK(read_number_object(R"({"GFLOP/s":2258.5,"waits":7})", m));
    CHECK(m == std::map<std::string, double>{{"GFLOP/s", 2258.5}, {"waits", 7}});
    CHECK_FALSE(read_number_object(R"({"a\"b":1})", m));  // escapes: the general parser's
    CHECK_FALSE(read_number_object(R"({"a":{"b":1}})", m));
    param_list p;
    const std::string text =
        R"({"BLOCK":256,"FAST":true,"IDX_T":"long long","SCALE":0.5,"BIG":1e300,"NEG":-4})";
    CHECK(read_scalar_object(text, p));
    CHECK(p == params_from_json(nlohmann::ordered_json::parse(text)));
    CHECK(std::holds_alternative<int64_t>(p[0].second));
    CHECK(std::holds_alternative<double>(p[3].second));
    CHECK_FALSE(read_scalar_object(R"({"A":99999999999999999999})", p));  // beyond int64
    CHECK_FALSE(read_scalar_object(R"({"A":"x\ny"})", p));
    CHECK_FALSE(read_scalar_object(R"({"A":null})", p));
    CHECK_FALSE(read_scalar_object(R"({"A":1,"A":2})", p));
    // What the store writes reads back through the fast path exactly.
    const run_records run = hone_run();
    for (const auto& r : run.records) {
        CHECK(read_scalar_object(params_to_json(r.params).dump(), p));
        CHECK(p == r.params);
        CHECK(read_number_array(json(r.gpu.samples_us).dump(), xs));
        CHECK(xs == r.gpu.samples_us);
    }
}

TEST_CASE("store: the fast writers of the store's JSON give nlohmann's bytes") {
    using namespace store_detail;
    // Reals of every magnitude and layout (integral, tiny, huge, negative zero, the shortest
    // round trip of random bits), and the non-finite ones nlohmann writes as null.
    std::vector<double> reals = {0.0,     -0.0,   1.0,  -2.5,     1e-5,     1e-4,   123456.0,
                                 1e15,    1e16,   1e17, 1e300,    -1e-300,  5e-324, 0.1 + 0.2,
                                 1.0 / 3, 2258.5, NAN,  INFINITY, -INFINITY};
    uint64_t bits = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 2000; ++i) {
        bits ^= bits << 13;
        bits ^= bits >> 7;
        bits ^= bits << 17;
        double d = 0;
        std::memcpy(&d, &bits, sizeof d);
        reals.push_back(d);
        reals.push_back(static_cast<double>(bits % 100000) / 1000);  // times as files hold them
    }
    CHECK(number_array_text(reals) == json(reals).dump());
    CHECK(number_array_text({}) == json(std::vector<double>{}).dump());
    std::map<std::string, double> metrics = {{"GFLOP/s", 2258.5}, {"time", 0.125}, {"n", 3}};
    CHECK(number_object_text(metrics) == json(metrics).dump());
    CHECK(number_object_text({}) == json(std::map<std::string, double>{}).dump());
    metrics["a\"quote"] = 1;  // escaped by nlohmann
    metrics["r\xc3\xa9sum\xc3\xa9"] = 2;
    CHECK(number_object_text(metrics) == json(metrics).dump());
    CHECK(named_numbers_text({{"warmup_s", 1e-7}, {"load_s", 0.5}, {"waits", int64_t{7}}}) ==
          json{{"warmup_s", 1e-7}, {"load_s", 0.5}, {"waits", 7}}.dump());
    const param_list params = {{"BLOCK", int64_t{256}}, {"FAST", true}, {"IDX_T", "long long"},
                               {"SCALE", 0.5},          {"BIG", 1e300}, {"NEG", int64_t{-4}},
                               {"MIN", INT64_MIN},      {"OFF", false}};
    CHECK(scalar_object_text(params) == params_to_json(params).dump());
    CHECK(scalar_object_text({}) == params_to_json({}).dump());
    // Escapes, UTF-8 and a repeated name are nlohmann's to write.
    for (const param_list& odd :
         {param_list{{"S", "a\tb"}}, param_list{{"S", "caf\xc3\xa9"}},
          param_list{{"A\\B", int64_t{1}}}, param_list{{"A", int64_t{1}}, {"A", int64_t{2}}}})
        CHECK(scalar_object_text(odd) == params_to_json(odd).dump());
    // Text that is not UTF-8 is refused as before (nlohmann's strict dump).
    CHECK_THROWS_AS(scalar_object_text({{"S", std::string("\xff")}}), json::exception);
    // What the writers give reads back through the fast readers exactly.
    std::vector<double> finite, back;
    for (double d : reals)
        if (std::isfinite(d)) finite.push_back(d);
    CHECK(read_number_array(number_array_text(finite), back));
    CHECK(back == finite);
}

TEST_CASE("hone import: a file of the same name from another folder does not replace a run") {
    temp_dir d;
    fs::create_directories(d.path / "a");
    fs::create_directories(d.path / "b");
    d.write("a/cache.json", small_kt_cache);
    std::string other = small_kt_cache;
    other.replace(other.find("\"time\": 1.625"), 13, "\"time\": 1.7");
    d.write("b/cache.json", other);
    const std::string db = d.file("r.db");
    CHECK(run_cli(d, "import " + d.file("a/cache.json") + " -o " + db).rc == 0);
    const cli_result r = run_cli(d, "import " + d.file("b/cache.json") + " -o " + db);
    CHECK(r.rc == 2);
    CHECK(r.err.find("holds a run imported from " + d.file("a/cache.json") +
                     ", another file of the same name") != std::string::npos);
    // The same file again replaces its run, as documented.
    const cli_result again = run_cli(d, "import " + d.file("a/cache.json") + " -o " + db);
    CHECK(again.rc == 0);
    CHECK(again.out.find("it replaces the 5 configurations imported before") != std::string::npos);
}
