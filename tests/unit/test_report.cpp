// Reports over known records: ranking, ties, tables, counts, the reproduction snippet, JSON
// and the progress line.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "hone/error.hpp"
#include "report/report.hpp"

using namespace hone;

namespace {

eval_record timed(int64_t block, double median, double lo, double hi, status st = status::ok) {
    eval_record r;
    r.key = "BLOCK=" + std::to_string(block) + ",MEM=device";
    r.params = {{"BLOCK", block}, {"MEM", std::string("device")}};
    r.st = st;
    r.gpu.st = st;
    r.gpu.time_us = {50, median, median, 0.5, lo - 1, hi + 1, lo, hi, 0.1};
    r.gpu.sample_mode = "single+flush";
    r.gpu.timer = "cupti";
    r.gpu.num_regs = 32;
    r.gpu.local_bytes = 0;
    r.gpu.static_shared_bytes = 1024;
    r.gpu.active_blocks_per_sm = 8;
    r.gpu.occupancy = 1.0;
    r.resources.registers = 30;
    r.resources.spill_store_bytes = 8;
    r.resources.spill_load_bytes = 4;
    r.dynamic_shared_bytes = 512;
    r.gbps = 3000.0 / median;
    return r;
}

eval_record failed(int64_t block, status st) {
    eval_record r;
    r.key = "BLOCK=" + std::to_string(block) + ",MEM=device";
    r.params = {{"BLOCK", block}, {"MEM", std::string("device")}};
    r.st = st;
    return r;
}

std::vector<eval_record> sample_run() {
    return {timed(64, 80.0, 79.6, 80.4),   // distinct from the best
            timed(128, 78.8, 78.5, 79.1),  // best
            failed(16, status::compile_error),
            timed(256, 79.0, 78.9, 79.5),                     // overlaps the best: a tie
            timed(8, 10.0, 9.9, 10.1, status::wrong_result),  // fast but wrong: never ranked
            timed(512, 1250.0, 1240.0, 1260.0, status::not_converged)};
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
        out.push_back(text.substr(start, nl - start));
    }
    CHECK(start == text.size());  // every line ends with a newline
    return out;
}

}  // namespace

TEST_CASE("durations take the unit that gives three significant digits") {
    CHECK(format_duration_us(0.812) == "812 ns");
    CHECK(format_duration_us(0.0451) == "45.1 ns");
    CHECK(format_duration_us(5.0) == "5.00 µs");
    CHECK(format_duration_us(78.84) == "78.8 µs");
    CHECK(format_duration_us(1250) == "1.25 ms");
    CHECK(format_duration_us(999000) == "999 ms");
    CHECK(format_duration_us(12.5e6) == "12.5 s");
    CHECK(format_eta(42) == "0:42");
    CHECK(format_eta(725) == "12:05");
    CHECK(format_eta(3723) == "1:02:03");
    CHECK(format_eta(-5) == "0:00");
}

TEST_CASE("display width counts code points; truncation marks the cut") {
    CHECK(display_width("78.8 µs") == 7);
    CHECK(truncate_text("BLOCK=256,VEC=4", 15) == "BLOCK=256,VEC=4");
    CHECK(truncate_text("BLOCK=256,VEC=4", 8) == "BLOCK=2…");
    CHECK(display_width(truncate_text("µµµµµµ", 4)) == 4);
    CHECK(truncate_text("µµµµµµ", 4) == "µµµ…");
    CHECK(truncate_text("abc", 0).empty());
}

TEST_CASE("ranking: timed statuses only, by time or by throughput") {
    const auto records = sample_run();
    auto keys = [](const std::vector<const eval_record*>& order) {
        std::vector<int64_t> blocks;
        for (const auto* r : order) blocks.push_back(std::get<int64_t>(r->params[0].second));
        return blocks;
    };
    CHECK(keys(ranked(records, rank_by::time)) == std::vector<int64_t>{128, 256, 64, 512});
    CHECK(keys(ranked(records, rank_by::gbps)) == std::vector<int64_t>{128, 256, 64, 512});
    std::vector<eval_record> flops = records;
    flops[0].gflops = 5;  // BLOCK=64 is the only one with a FLOP rate
    CHECK(keys(ranked(flops, rank_by::gflops)).front() == 64);
    CHECK(parse_rank_by("gflops") == rank_by::gflops);
    CHECK_THROWS_AS(parse_rank_by("speed", {"a.yaml", 3, 14}), input_error);
}

TEST_CASE("best table: rows in rank order, CI, resources, ties, more-ranked note") {
    table_options opt;
    opt.top = 3;
    const auto lines = lines_of(best_table(sample_run(), opt));
    REQUIRE(lines.size() == 6);
    CHECK(lines[0] ==
          "#  BLOCK  MEM          median [95% CI]   n  sample        timer  GB/s  regs  spill B  "
          "smem B   occ  status");
    CHECK(lines[1] == std::string(lines[0].size() + 5, '-'));
    CHECK(lines[2] ==
          "1    128  device  78.8 µs [78.5, 79.1]  50  single+flush  cupti  38.1    32       12    "
          "1536  100%  ok");
    CHECK(lines[3] ==
          "2    256  device  79.0 µs [78.9, 79.5]  50  single+flush  cupti  38.0    32       12    "
          "1536  100%  ok      "
          "tie");
    CHECK(lines[4] ==
          "3     64  device  80.0 µs [79.6, 80.4]  50  single+flush  cupti  37.5    32       12    "
          "1536  100%  ok");
    CHECK(lines[5] == "(1 more ranked)");
}

TEST_CASE("best table: chosen columns, fallbacks to ptxas, and nothing to rank") {
    auto records = sample_run();
    records[1].gpu.num_regs = -1;  // module never loaded: ptxas's count
    records[1].gpu.active_blocks_per_sm = -1;
    records[1].resources.registers = -1;  // no ptxas report either: local bytes as spill
    records[1].gpu.local_bytes = 40;
    for (auto& r : records) r.gbps = 0;  // no bytes metric: no GB/s column
    table_options opt;
    opt.param_names = {"MEM"};
    opt.top = 1;
    const auto lines = lines_of(best_table(records, opt));
    REQUIRE(lines.size() == 4);
    CHECK(lines[0] ==
          "#  MEM          median [95% CI]   n  sample        timer  regs  spill B  smem B  occ  "
          "status");
    CHECK(
        lines[2] ==
        "1  device  78.8 µs [78.5, 79.1]  50  single+flush  cupti     -       40    1536    -  ok");
    CHECK(lines[3] == "(3 more ranked)");
    // Neither the module nor ptxas said how much static shared memory: "-", as other unknowns.
    records[1].gpu.static_shared_bytes = -1;
    const auto unknown = lines_of(best_table(records, opt));
    CHECK(
        unknown[2] ==
        "1  device  78.8 µs [78.5, 79.1]  50  single+flush  cupti     -       40       -    -  ok");
    CHECK(best_table({failed(1, status::timeout)}, {}) == "no configuration has a timing\n");
}

TEST_CASE("failure table lists the records without a timing, in store order") {
    auto records = sample_run();
    records[2].message = "nvrtc: error: expected a ';'\nline two";
    table_options opt;
    opt.top = 1;
    const auto lines = lines_of(failure_table(records, opt));
    REQUIRE(lines.size() == 5);
    CHECK(lines[0] == "not ranked (no timing): 2");
    CHECK(lines[1] == "BLOCK  MEM     status         message (first line)");
    CHECK(lines[3] == "   16  device  compile_error  nvrtc: error: expected a ';'");
    CHECK(lines[4] == "(1 more: --all lists every one)");
    opt.top = 0;
    const auto all = lines_of(failure_table(records, opt));
    REQUIRE(all.size() == 5);
    CHECK(all[4].find("wrong_result") != std::string::npos);
    records.erase(records.begin() + 4);
    records.erase(records.begin() + 2);
    CHECK(failure_table(records, opt).empty());
}

TEST_CASE("status summary counts in status order") {
    CHECK(status_summary(sample_run()) ==
          "6 configurations: 3 ok, 1 not_converged, 1 compile_error, 1 wrong_result");
    CHECK(status_summary({failed(1, status::timeout)}) == "1 configuration: 1 timeout");
    CHECK(status_summary({}) == "0 configurations");
}

TEST_CASE("reproduce snippet: YAML reference map and a quoted command line") {
    eval_record best = timed(256, 78.8, 78.5, 79.1);
    best.key = "BLOCK=256,IDX_T=long long,SCALE=0.5,FAST=true";
    best.params = {{"BLOCK", int64_t{256}},
                   {"IDX_T", std::string("long long")},
                   {"SCALE", 0.5},
                   {"FAST", true}};
    CHECK(reproduce_snippet(best, "configs/vector_add.yaml", {{"N", 4096}}) ==
          "reference: {BLOCK: 256, IDX_T: \"long long\", SCALE: 0.5, FAST: true}\n"
          "hone tune configs/vector_add.yaml --only 'BLOCK=256,IDX_T=long long,SCALE=0.5,FAST=true'"
          " --set N=4096\n");
    best.key = "BLOCK=256";
    best.params = {{"BLOCK", int64_t{256}}};
    CHECK(reproduce_snippet(best, "my dir/it's.yaml") ==
          "reference: {BLOCK: 256}\nhone tune 'my dir/it'\\''s.yaml' --only BLOCK=256\n");
}

TEST_CASE("JSON: every field, typed parameters, nulls for what is not reported") {
    auto records = sample_run();
    records[1].gpu.samples_us = {78.8, 78.5, 0.1 + 0.2};
    records[1].gpu.sample_mode = "batch:4";
    records[1].gpu.output = "hello\n";
    records[1].created_at = "2025-01-01T00:00:00.000Z";
    records[1].grid = {4096, 1, 1};
    records[2].compile_log = "error: expected ;";
    records[2].compile_ms = 12.5;
    const auto j = nlohmann::json::parse(to_json(records).dump());
    REQUIRE(j.is_array());
    REQUIRE(j.size() == records.size());
    const auto& best = j[1];
    CHECK(best["key"] == "BLOCK=128,MEM=device");
    CHECK(best["params"]["BLOCK"].is_number_integer());
    CHECK(best["params"]["MEM"] == "device");
    CHECK(best["status"] == "ok");
    CHECK(best["output"] == "hello\n");
    CHECK(best["timing"]["sample_mode"] == "batch:4");
    CHECK(best["timing"]["n"] == 50);
    CHECK(best["timing"]["median_us"] == 78.8);
    CHECK(best["timing"]["ci_low_us"] == 78.5);
    CHECK(best["timing"]["samples_us"].get<std::vector<double>>() == records[1].gpu.samples_us);
    CHECK(best["function"]["num_regs"] == 32);
    CHECK(best["function"]["occupancy"] == 1.0);
    CHECK(best["compile"]["ptxas"]["spill_store_bytes"] == 8);
    CHECK(best["launch"]["grid"] == nlohmann::json::array({4096, 1, 1}));
    CHECK(best["launch"]["dynamic_shared_bytes"] == 512);
    CHECK(best["gbps"] == 3000.0 / 78.8);
    CHECK(best["gflops"].is_null());
    CHECK(best["created_at"] == "2025-01-01T00:00:00.000Z");
    const auto& broken = j[2];
    CHECK(broken["status"] == "compile_error");
    CHECK(broken["timing"].is_null());
    CHECK(broken["compile"]["log"] == "error: expected ;");
    CHECK(broken["compile"]["ms"] == 12.5);
    CHECK(broken["compile"]["ptxas"]["registers"].is_null());
    CHECK(broken["function"]["num_regs"].is_null());
    CHECK(broken["function"]["occupancy"].is_null());

    run_identity id;
    id.kernel_name = "k";
    id.driver_version = 13000;
    const auto ij = nlohmann::json::parse(to_json(id).dump());
    CHECK(ij["id"] == id.id());
    CHECK(ij["driver_version"] == 13000);
    CHECK(ij["kernel_name"] == "k");
}

TEST_CASE("progress line: counts, best, ETA and pipeline; the key shrinks to fit") {
    progress_info p;
    p.done = 123;
    p.total = 576;
    p.failures = 3;
    p.best_median_us = 78.8;
    p.best_key = "BLOCK=256,STRIDED=false,IDX_T=int,VEC=4,MEM=device,MAXREG=0,FAST=false";
    p.eta_s = 42;
    p.measuring = 2;
    p.compiled_ahead = 8;
    p.compiling = 2;
    p.width = 200;
    CHECK(progress_line(p) == "[123/576]  21% | 3 failed | best 78.8 µs (" + p.best_key +
                                  ") | ETA 0:42 | measuring 2, compiled ahead 8, compiling 2");
    p.width = 110;
    const std::string narrow = progress_line(p);
    CHECK(display_width(narrow) == 110);
    CHECK(narrow.find("(BLOCK=256,") != std::string::npos);
    CHECK(narrow.find("…)") != std::string::npos);
    p.width = 100;  // no room for a useful key: it goes
    CHECK(progress_line(p) ==
          "[123/576]  21% | 3 failed | best 78.8 µs | ETA 0:42 | measuring 2, compiled "
          "ahead 8, compiling 2");
    p.measuring = 0;  // the GPU side idle: compiling is what it waits for
    p.compiled_ahead = 0;
    p.best_median_us.reset();
    CHECK(progress_line(p) ==
          "[123/576]  21% | 3 failed | ETA 0:42 | compiled ahead 0, compiling 2");

    progress_info start;
    start.done = 0;
    start.total = 12;
    CHECK(progress_line(start) == "[ 0/12]   0%");
}

TEST_CASE("runs' JSON rendered one by one joins into the array's dump(2)") {
    nlohmann::ordered_json a = {
        {"run", 1},
        {"text", "two\nlines"},
        {"results", {{{"key", "X=1"}, {"t", 1.5}}, nlohmann::ordered_json::object()}},
        {"none", nlohmann::ordered_json::array()}};
    nlohmann::ordered_json b = {{"run", 2}, {"best", nullptr}};
    const nlohmann::ordered_json all = nlohmann::ordered_json::array({a, b, 3});
    CHECK(json_array_text({json_array_element(a), json_array_element(b), json_array_element(3)}) ==
          all.dump(2));
    // A run that never started has no element.
    CHECK(json_array_text({json_array_element(a), "", json_array_element(b)}) ==
          nlohmann::ordered_json::array({a, b}).dump(2));
    CHECK(json_array_text({}) == nlohmann::ordered_json::array().dump(2));
    CHECK(json_array_text({"", ""}) == "[]");
}
