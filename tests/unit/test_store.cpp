// The results store: every field survives, resume and forget work, the filter language, and
// the file is safe against killed writers, damage and foreign files.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <thread>

#include "hone/error.hpp"
#include "hone/store.hpp"
#include "record/params_json.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using namespace hone;

namespace {

run_identity identity(const std::string& device = "NVIDIA H100") {
    run_identity id;
    id.config_path = "configs/vector_add.yaml";
    id.kernel_name = "vector_add<{VEC}, {STRIDED}>";
    id.source_hash = "0123";
    id.spec_hash = "4567";
    id.problem = "N=1048576";
    id.device_name = device;
    id.device_uuid = "GPU-1234";
    id.arch = "sm_90";
    id.driver_version = 13000;
    id.nvrtc_version = "13.0";
    id.tool_version = tool_version();
    return id;
}

// A record where every field differs from its default and from record i+1's.
eval_record full_record(int i, status st = status::ok) {
    eval_record r;
    r.key = fmt::format("BLOCK={},FAST={},IDX_T=long long,SCALE={}", 32 * (i + 1),
                        i % 2 ? "true" : "false", 0.5 + i);
    r.params = {{"BLOCK", int64_t{32 * (i + 1)}},
                {"FAST", i % 2 == 1},
                {"IDX_T", std::string("long long")},
                {"SCALE", 0.5 + i}};
    r.st = st;
    r.message = fmt::format("message {}", i);
    r.compile_log = "ptxas info: Used 32 registers";
    r.compile_ms = 120.25 + i;
    r.compile_cached = i % 2 == 0;
    r.resources = {30 + i, 4, 8, 16, 1024, 64};
    job_result& g = r.gpu;
    g.st = st;
    g.message = r.message;
    g.output = "printf output\n";
    g.num_regs = 32 + i;
    g.local_bytes = 12;
    g.static_shared_bytes = 2048;
    g.max_threads_per_block = 768;
    g.active_blocks_per_sm = 3;
    g.occupancy = 0.75;
    g.samples_us = {78.8 + i, 78.5 + i, 79.1 + i, 0.1 + 0.2};  // 0.30000000000000004 must survive
    g.time_us = {4, 78.8 + i, 78.9 + i, 0.25, 78.5 + i, 79.1 + i, 78.6 + i, 79.0 + i, 0.125};
    g.sample_mode = "single+flush";
    g.timer = i % 2 ? "cupti" : "events";
    g.steps = {0.001 + i, 0.002, 0.003, 0.004, 7 + i};
    g.gpu_busy_s = 0.0125;
    g.wall_s = 0.5;
    r.gbps = 1500.5 - i;
    r.gflops = 12.75 + i;
    r.metrics = {{"GFLOP/s", 2258.5 + i}, {"energy_J", 0.25}};
    r.dynamic_shared_bytes = 4096;
    r.grid = {1024u + i, 2, 3};
    r.block = {256, 1, 1};
    return r;
}

void check_same(const eval_record& a, const eval_record& b) {
    CHECK(a.key == b.key);
    CHECK(a.params == b.params);
    CHECK(a.st == b.st);
    CHECK(a.message == b.message);
    CHECK(a.compile_log == b.compile_log);
    CHECK(a.compile_ms == b.compile_ms);
    CHECK(a.compile_cached == b.compile_cached);
    const auto ru = [](const resource_usage& u) {
        return std::vector{u.registers,   u.spill_store_bytes,   u.spill_load_bytes,
                           u.stack_bytes, u.shared_static_bytes, u.const_bytes};
    };
    CHECK(ru(a.resources) == ru(b.resources));
    const job_result &g = a.gpu, &h = b.gpu;
    CHECK(g.st == h.st);
    CHECK(g.message == h.message);
    CHECK(g.output == h.output);
    CHECK(std::vector{g.num_regs, g.local_bytes, g.static_shared_bytes, g.max_threads_per_block,
                      g.active_blocks_per_sm} ==
          std::vector{h.num_regs, h.local_bytes, h.static_shared_bytes, h.max_threads_per_block,
                      h.active_blocks_per_sm});
    CHECK(g.occupancy == h.occupancy);
    CHECK(g.samples_us == h.samples_us);
    const auto sv = [](const summary& t) {
        return std::vector{static_cast<double>(t.n),
                           t.median,
                           t.mean,
                           t.stddev,
                           t.min,
                           t.max,
                           t.ci_low,
                           t.ci_high,
                           t.mean_ci_half};
    };
    CHECK(sv(g.time_us) == sv(h.time_us));
    CHECK(g.sample_mode == h.sample_mode);
    CHECK(g.timer == h.timer);
    CHECK(std::vector{g.steps.load_s, g.steps.verify_s, g.steps.warmup_s, g.steps.samples_s,
                      double(g.steps.waits)} == std::vector{h.steps.load_s, h.steps.verify_s,
                                                            h.steps.warmup_s, h.steps.samples_s,
                                                            double(h.steps.waits)});
    CHECK(a.metrics == b.metrics);
    CHECK(g.gpu_busy_s == h.gpu_busy_s);
    CHECK(g.wall_s == h.wall_s);
    CHECK(a.gbps == b.gbps);
    CHECK(a.gflops == b.gflops);
    CHECK(a.dynamic_shared_bytes == b.dynamic_shared_bytes);
    CHECK(a.grid == b.grid);
    CHECK(a.block == b.block);
}

std::string read_bytes(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), {}};
}

void write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

// Raw SQL on a database, outside the store, to inspect or to forge files.
std::string raw_scalar(const std::string& path, const char* sql) {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    sqlite3_stmt* s = nullptr;
    REQUIRE(sqlite3_prepare_v2(db, sql, -1, &s, nullptr) == SQLITE_OK);
    std::string out;
    const int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW && sqlite3_column_text(s, 0)) {
        out = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    }
    CHECK((rc == SQLITE_ROW || rc == SQLITE_DONE));
    sqlite3_finalize(s);
    sqlite3_close(db);
    return out;
}

// A database of one run holding one record (closed again), for the tests to forge with raw SQL.
std::string one_record_db(const temp_dir& dir) {
    const std::string path = dir.file("r.db");
    results_store s(path);
    s.put(s.begin_run(identity()), full_record(0));
    return path;
}

std::string open_error(const std::string& path) {
    try {
        results_store s(path);
    } catch (const env_error& e) {
        return e.what();
    }
    FAIL("opening " << path << " did not fail");
    return "";
}

}  // namespace

TEST_CASE("run identity: config_path is not part of the id, every other field is") {
    const run_identity base = identity();
    run_identity moved = base;
    moved.config_path = "elsewhere.yaml";
    CHECK(moved.id() == base.id());
    CHECK(base.id().size() == 32);
    std::vector<run_identity> changed(11, base);
    changed[0].kernel_name += "x";
    changed[1].source_hash += "x";
    changed[2].spec_hash += "x";
    changed[3].problem += "x";
    changed[4].device_name += "x";
    changed[5].device_uuid += "x";
    changed[6].arch += "x";
    changed[7].driver_version += 1;
    changed[8].nvrtc_version += "x";
    changed[9].tool_version += "x";
    changed[10].problem = "";
    changed.push_back(base);
    changed.back().origin = "kernel_tuner 1.0 (x.json)";
    for (const auto& c : changed) CHECK(c.id() != base.id());
    run_identity ranked_otherwise = base;
    ranked_otherwise.objective = "gflops";
    CHECK(ranked_otherwise.id() == base.id());
    CHECK(tool_version() == HONE_VERSION);
}

TEST_CASE("params JSON keeps order and types") {
    const param_list p{{"Z", int64_t{2}}, {"A", 2.0}, {"B", true}, {"S", std::string("2")}};
    const auto j = params_to_json(p);
    CHECK(j.dump() == R"({"Z":2,"A":2.0,"B":true,"S":"2"})");
    CHECK(params_from_json(nlohmann::ordered_json::parse(j.dump())) == p);
    CHECK_THROWS_AS(params_from_json(nlohmann::ordered_json::parse(R"({"A":[1]})")), env_error);
    CHECK_THROWS_AS(params_from_json(nlohmann::ordered_json::parse("[1]")), env_error);
}

TEST_CASE("store: every field of a record survives a round trip") {
    temp_dir dir;
    const std::string path = dir.file("r.db");
    const eval_record in = full_record(3);
    {
        results_store s(path);
        s.put(s.begin_run(identity()), in);
    }
    results_store s(path);
    const auto out = s.query({identity().id(), "", 0, false});
    REQUIRE(out.size() == 1);
    check_same(out[0], in);
    CHECK(std::regex_match(out[0].created_at,
                           std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)")));
}

TEST_CASE("store: a record's own created_at (imported results) is kept") {
    temp_dir dir;
    results_store s(dir.file("r.db"));
    eval_record in = full_record(1);
    in.created_at = "2024-05-01T10:00:00.000Z";
    s.put(s.begin_run(identity()), in);
    const auto out = s.query({identity().id(), "", 0, false});
    REQUIRE(out.size() == 1);
    CHECK(out[0].created_at == in.created_at);
}

TEST_CASE("store: a schema 1 database is upgraded in place, its rows kept") {
    temp_dir dir;
    const std::string path = one_record_db(dir);
    // Back to schema 1's layout: the columns schemas 2 and 3 added are dropped.
    for (const char* sql :
         {"ALTER TABLE results DROP COLUMN device", "ALTER TABLE results DROP COLUMN device_uuid",
          "ALTER TABLE results DROP COLUMN telemetry", "ALTER TABLE runs DROP COLUMN final_word",
          "ALTER TABLE results DROP COLUMN timer", "ALTER TABLE results DROP COLUMN steps",
          "ALTER TABLE results DROP COLUMN metrics", "ALTER TABLE runs DROP COLUMN objective",
          "ALTER TABLE runs DROP COLUMN origin", "PRAGMA user_version = 1",
          "UPDATE meta SET value = '1' WHERE key = 'schema'"}) {
        raw_scalar(path, sql);
    }
    results_store s(path);
    CHECK(raw_scalar(path, "PRAGMA user_version") == "3");
    CHECK(raw_scalar(path, "SELECT value FROM meta WHERE key = 'schema'") == "3");
    const auto out = s.query({identity().id(), "", 0, false});
    REQUIRE(out.size() == 1);
    CHECK(out[0].key == full_record(0).key);
    CHECK(out[0].gpu.timer.empty());
    CHECK(out[0].device == -1);
    CHECK(out[0].metrics.empty());
    REQUIRE(s.runs().size() == 1);
    CHECK(s.runs()[0].objective == "time");
    CHECK(s.runs()[0].origin.empty());
}

TEST_CASE(
    "store: a schema 2 database is upgraded in place: no device, no telemetry, no final word") {
    temp_dir dir;
    const std::string path = one_record_db(dir);
    for (const char* sql :
         {"ALTER TABLE results DROP COLUMN device", "ALTER TABLE results DROP COLUMN device_uuid",
          "ALTER TABLE results DROP COLUMN telemetry", "ALTER TABLE runs DROP COLUMN final_word",
          "PRAGMA user_version = 2", "UPDATE meta SET value = '2' WHERE key = 'schema'"}) {
        raw_scalar(path, sql);
    }
    results_store s(path);
    CHECK(raw_scalar(path, "PRAGMA user_version") == "3");
    const auto out = s.query({identity().id(), "", 0, false});
    REQUIRE(out.size() == 1);
    CHECK(out[0].key == full_record(0).key);
    CHECK(out[0].gpu.time_us.median == full_record(0).gpu.time_us.median);
    CHECK(out[0].device == -1);
    CHECK(out[0].device_uuid.empty());
    CHECK(out[0].gpu.telemetry.sm_clock_mhz == -1);
    CHECK(s.final_word(identity().id()).empty());
    // And it takes the new fields from now on.
    eval_record r = full_record(1);
    r.device = 3;
    r.device_uuid = "GPU-three";
    r.gpu.telemetry = {1755, 41, 312.5};
    const int64_t run = s.begin_run(identity());
    s.put(run, r);
    s.set_final_word(run, "{\"device\": 3}");
    CHECK(s.final_word(identity().id()) == "{\"device\": 3}");
    for (const auto& got : s.query({identity().id(), "", 0, false})) {
        if (got.key != r.key) continue;
        CHECK(got.device == 3);
        CHECK(got.device_uuid == "GPU-three");
        CHECK(got.gpu.telemetry.sm_clock_mhz == 1755);
        CHECK(got.gpu.telemetry.temperature_c == 41);
        CHECK(got.gpu.telemetry.power_w == 312.5);
    }
}

TEST_CASE("store: WAL journal, application id, schema version and meta are set") {
    temp_dir dir;
    const std::string path = dir.file("r.db");
    results_store s(path);
    CHECK(s.path() == path);
    CHECK(raw_scalar(path, "PRAGMA journal_mode") == "wal");
    CHECK(raw_scalar(path, "PRAGMA application_id") == std::to_string(0x686f6e65));
    CHECK(raw_scalar(path, "PRAGMA user_version") == "3");
    CHECK(raw_scalar(path, "SELECT value FROM meta WHERE key = 'format'") == "hone-results");
    CHECK(raw_scalar(path, "SELECT value FROM meta WHERE key = 'schema'") == "3");
}

TEST_CASE("store: begin_run is idempotent per identity and runs() lists identities") {
    temp_dir dir;
    results_store s(dir.file("r.db"));
    const int64_t a = s.begin_run(identity());
    run_identity moved = identity();
    moved.config_path = "moved.yaml";
    CHECK(s.begin_run(moved) == a);
    const int64_t b = s.begin_run(identity("NVIDIA H200"));
    CHECK(b != a);
    const auto runs = s.runs();
    REQUIRE(runs.size() == 2);
    CHECK(runs[0].id() == identity().id());
    CHECK(runs[0].config_path == "moved.yaml");  // the latest path the run was started from
    CHECK(runs[0].driver_version == 13000);
    CHECK(runs[0].nvrtc_version == "13.0");
    CHECK(runs[1].device_name == "NVIDIA H200");
    CHECK(runs[0].objective == "time");
    run_identity by_flops = identity();
    by_flops.objective = "gflops";
    by_flops.origin = "";
    CHECK(s.begin_run(by_flops) == a);  // same run, now ranked by GFLOP/s
    CHECK(s.runs()[0].objective == "gflops");
}

TEST_CASE("store: resume sees the keys and statuses stored before, per identity") {
    temp_dir dir;
    const std::string path = dir.file("r.db");
    {
        results_store s(path);
        const int64_t run = s.begin_run(identity());
        s.put(run, full_record(0));
        s.put(run, full_record(1, status::compile_error));
        s.put(run, full_record(2, status::timeout));
        s.put(s.begin_run(identity("other")), full_record(3));
    }
    results_store s(path);
    const auto done = s.done(identity().id());
    REQUIRE(done.size() == 3);
    CHECK(done.at(full_record(0).key) == status::ok);
    CHECK(done.at(full_record(1).key) == status::compile_error);
    CHECK(done.at(full_record(2).key) == status::timeout);
    CHECK(s.done(identity("other").id()).size() == 1);
    CHECK(s.done("no such identity").empty());
}

TEST_CASE("store: a second put of a key replaces the first (retry of a failure)") {
    temp_dir dir;
    results_store s(dir.file("r.db"));
    const int64_t run = s.begin_run(identity());
    s.put(run, full_record(0, status::runtime_fault));
    s.put(run, full_record(0, status::ok));
    const auto all = s.query({identity().id(), "", 0, false});
    REQUIRE(all.size() == 1);
    CHECK(all[0].st == status::ok);
}

TEST_CASE("store: forget removes one identity's results, or only its faults") {
    temp_dir dir;
    results_store s(dir.file("r.db"));
    const int64_t run = s.begin_run(identity());
    const int64_t other = s.begin_run(identity("other"));
    const status all[] = {status::ok,
                          status::not_converged,
                          status::compile_error,
                          status::compile_timeout,
                          status::device_limits,
                          status::launch_error,
                          status::wrong_result,
                          status::runtime_fault,
                          status::timeout};
    for (int i = 0; i < 9; ++i) {
        s.put(run, full_record(i, all[i]));
        s.put(other, full_record(i, all[i]));
    }
    s.forget(identity().id(), true);
    const auto left = s.done(identity().id());
    CHECK(left.size() == 6);
    for (const auto& [key, st] : left) CHECK_FALSE(is_fault(st));
    s.forget(identity().id(), false);
    CHECK(s.done(identity().id()).empty());
    CHECK(s.done(identity("other").id()).size() == 9);
}

TEST_CASE("store: query ranks timed results by median, then the rest; top; only_timed") {
    temp_dir dir;
    results_store s(dir.file("r.db"));
    const int64_t run = s.begin_run(identity());
    auto timed = [](int i, double median, status st) {
        eval_record r = full_record(i, st);
        r.gpu.time_us.median = median;
        return r;
    };
    s.put(run, timed(0, 90, status::ok));
    s.put(run, timed(1, 10, status::wrong_result));  // fast but wrong: never ranked first
    s.put(run, timed(2, 70, status::not_converged));
    s.put(run, timed(3, 80, status::ok));
    s.put(run, full_record(4, status::compile_error));
    std::vector<std::string> keys;
    for (const auto& r : s.query({identity().id(), "", 0, false})) keys.push_back(r.key);
    CHECK(keys == std::vector{full_record(2).key, full_record(3).key, full_record(0).key,
                              full_record(4).key, full_record(1).key});
    const auto top2 = s.query({identity().id(), "", 2, false});
    REQUIRE(top2.size() == 2);
    CHECK(top2[1].key == full_record(3).key);
    CHECK(s.query({identity().id(), "", 0, true}).size() == 3);
    CHECK(s.query({"", "", 0, false}).size() == 5);  // empty identity: all runs
}

TEST_CASE("store: where filters on parameters and column aliases") {
    temp_dir dir;
    results_store s(dir.file("r.db"));
    const int64_t run = s.begin_run(identity());
    for (int i = 0; i < 8; ++i)
        s.put(run, full_record(i, i == 7 ? status::wrong_result : status::ok));
    auto count = [&](const std::string& where) {
        return s.query({identity().id(), where, 0, false}).size();
    };
    CHECK(count("BLOCK>=128") == 5);                   // 128..256
    CHECK(count("BLOCK==128") == count("BLOCK=128"));  // the expressions' ==
    CHECK(count("BLOCK==128") == 1);
    CHECK(count("BLOCK >= 128 , BLOCK<256") == 4);
    CHECK(count("FAST=true") == 4);
    CHECK(count("FAST!=true") == 4);
    CHECK(count("IDX_T=long long") == 8);  // unquoted text keeps inner spaces
    CHECK(count("IDX_T='long long'") == 8);
    CHECK(count("IDX_T=\"int\"") == 0);
    CHECK(count("SCALE=2.5") == 1);
    CHECK(count("SCALE>3") == 5);
    CHECK(count("status=ok") == 7);
    CHECK(count("st!=ok") == 1);
    CHECK(count("median_us<80.8") == 2);  // 78.8, 79.8
    CHECK(count("median_us>0") == 7);     // the wrong result has no median
    CHECK(count("gbps>1496") == 5);       // 1500.5 .. 1496.5
    CHECK(count("regs<=34") == 3);        // 32, 33, 34
    CHECK(count("occupancy>=0.75,BLOCK=32") == 1);
    CHECK(count("") == 8);
    CHECK(count("   ") == 8);
}

TEST_CASE("store: an invalid filter is an input error at the bad term's column") {
    temp_dir dir;
    results_store s(dir.file("r.db"));
    s.put(s.begin_run(identity()), full_record(0));
    struct bad {
        const char* where;
        int column;
        const char* says;
    };
    for (const bad& b :
         {bad{"BLOCK", 1, "operator"}, bad{"BLOCK=1,,FAST=true", 9, "empty"},
          bad{"BLOCK=1,", 9, "empty"}, bad{"BLOCK=1, =2", 10, "name"}, bad{"BLOCK=", 1, "value"},
          bad{"IDX_T='int' FAST=true", 1, "separate"}, bad{"status=okay", 1, "unknown status"},
          bad{"status<ok", 1, "= or !="}, bad{"BLOCK=1,median_us<fast", 9, "number"},
          bad{"IDX_T='int", 1, "unterminated"}, bad{"BLOCK=>128", 1, "'=>' is not an operator"},
          bad{"BLOCK===128", 1, "'===' is not an operator"},
          bad{"FAST=true, BLOK=32", 12, "BLOCK, FAST, IDX_T, SCALE"}}) {
        CAPTURE(b.where);
        try {
            s.query({identity().id(), b.where, 0, false});
            FAIL("accepted");
        } catch (const input_error& e) {
            CHECK(e.pos().file == "--where");
            CHECK(e.pos().line == 1);
            CHECK(e.pos().column == b.column);
            CHECK(e.message().find(b.says) != std::string::npos);
        }
    }
}

TEST_CASE("store: a writer killed at a random moment leaves a consistent database") {
    temp_dir dir;
    const std::string path = dir.file("r.db");
    std::mt19937 rng(std::random_device{}());
    for (int round = 0; round < 4; ++round) {
        int ack[2];
        REQUIRE(pipe(ack) == 0);
        const pid_t child = fork();
        REQUIRE(child >= 0);
        if (child == 0) {  // the writer: puts forever, acknowledging each committed record
            close(ack[0]);
            try {
                results_store s(path);
                const int64_t run = s.begin_run(identity());
                const int start = static_cast<int>(s.done(identity().id()).size());
                for (int i = start; i < start + 100000; ++i) {
                    s.put(run, full_record(i));
                    if (write(ack[1], "x", 1) != 1) _exit(3);
                }
            } catch (...) {
                _exit(2);
            }
            _exit(1);
        }
        close(ack[1]);
        const int acked = std::uniform_int_distribution(1, 40)(rng);
        char c;
        for (int i = 0; i < acked; ++i) REQUIRE(read(ack[0], &c, 1) == 1);
        usleep(std::uniform_int_distribution(0, 3000)(rng));  // land anywhere in a put
        kill(child, SIGKILL);
        int wst = 0;
        waitpid(child, &wst, 0);
        close(ack[0]);
        CHECK(WIFSIGNALED(wst));

        results_store s(path);  // runs quick_check
        const auto records = s.query({identity().id(), "", 0, false});
        const auto done = s.done(identity().id());
        CHECK(done.size() == records.size());
        for (std::size_t i = 0; i < done.size(); ++i) {
            REQUIRE(done.count(full_record(static_cast<int>(i)).key) == 1);  // no gaps
        }
        for (const auto& r : records) {
            CHECK(r.gpu.samples_us.size() == 4);  // no half-written row
        }
        CHECK(records.front().key == full_record(0).key);
        CHECK(records.size() >= static_cast<std::size_t>(acked));
    }
}

TEST_CASE("store: a damaged database is refused and left unchanged") {
    temp_dir dir;
    const std::string path = dir.file("r.db");
    {
        results_store s(path);
        const int64_t run = s.begin_run(identity());
        for (int i = 0; i < 300; ++i) {
            eval_record r = full_record(i);
            r.gpu.samples_us.assign(200, 1.0 / (i + 1));
            s.put(run, r);
        }
    }
    const std::string good = read_bytes(path);
    REQUIRE(good.size() > 64 * 1024);

    SUBCASE("garbage in the middle") {
        std::string bad = good;
        for (std::size_t i = bad.size() / 2; i < bad.size() / 2 + 3 * 4096; ++i) bad[i] = '\xa5';
        write_bytes(path, bad);
        CHECK(open_error(path).find("is corrupted") != std::string::npos);
        CHECK(read_bytes(path) == bad);
    }
    SUBCASE("truncated") {
        const std::string bad = good.substr(0, good.size() / 2);
        write_bytes(path, bad);
        const std::string msg = open_error(path);
        CHECK(msg.find(path) != std::string::npos);
        CHECK(msg.find("is corrupted") != std::string::npos);
        CHECK(read_bytes(path) == bad);
    }
    SUBCASE("header only") {
        const std::string bad = good.substr(0, 50);
        write_bytes(path, bad);
        CHECK(open_error(path).find("is corrupted") != std::string::npos);
        CHECK(read_bytes(path) == bad);
    }
}

TEST_CASE("store: a file that is not SQLite is refused and left unchanged") {
    temp_dir dir;
    const std::string path = dir.file("notes.db");
    const std::string text = "these are my notes, not a database\n";
    write_bytes(path, text);
    const std::string msg = open_error(path);
    CHECK(msg.find(path) != std::string::npos);
    CHECK(msg.find("not an SQLite file") != std::string::npos);
    CHECK(msg.find("use another --output or move the file") != std::string::npos);
    CHECK(read_bytes(path) == text);
    CHECK_FALSE(fs::exists(path + "-wal"));
}

TEST_CASE("store: another application's SQLite database is refused and left unchanged") {
    temp_dir dir;
    const std::string path = dir.file("app.db");
    raw_scalar(path, "CREATE TABLE results (x INTEGER)");
    const std::string before = read_bytes(path);
    CHECK(open_error(path).find("another application") != std::string::npos);
    CHECK(read_bytes(path) == before);
}

TEST_CASE("store: another schema version is refused and left unchanged") {
    temp_dir dir;
    const std::string path = one_record_db(dir);
    raw_scalar(path, "PRAGMA user_version = 4");
    const std::string before = read_bytes(path);
    CHECK(open_error(path) == path +
                                  " was written by hone schema 4; this hone reads schema 3: "
                                  "use another --output or move the file");
    CHECK(read_bytes(path) == before);
}

TEST_CASE("store: an empty file becomes a new database") {
    temp_dir dir;
    const std::string path = dir.file("r.db");
    write_bytes(path, "");
    results_store s(path);
    CHECK(s.runs().empty());
}

TEST_CASE("store: connections of one process writing one database at once each store all") {
    // The runs of a size list tuned side by side on several GPUs each write through a store of
    // their own: a connection that finds the write lock taken waits, none fails.
    temp_dir dir;
    const std::string path = dir.file("r.db");
    results_store(path).begin_run(identity());  // the schema, before the writers race
    constexpr int writers = 4, each = 150;
    std::vector<std::thread> threads;
    std::atomic<int> failed{0};
    for (int w = 0; w < writers; ++w) {
        threads.emplace_back([&, w] {
            try {
                results_store s(path);
                const int64_t run = s.begin_run(identity(fmt::format("GPU model {}", w)));
                for (int i = 0; i < each; ++i) s.put(run, full_record(i));
            } catch (const std::exception& e) {
                ++failed;
                MESSAGE(e.what());
            }
        });
    }
    for (auto& t : threads) t.join();
    CHECK(failed == 0);
    results_store s(path);
    for (int w = 0; w < writers; ++w)
        CHECK(s.done(identity(fmt::format("GPU model {}", w)).id()).size() == each);
}

TEST_CASE("store: connections of one process creating one new database at once all open it") {
    // Sizes tuned side by side open the run's database at the same moment, before it exists:
    // each makes the schema (idempotent) and switches the file to WAL, and none may fail.
    constexpr int rounds = 20, openers = 6;
    int failed = 0;
    for (int round = 0; round < rounds; ++round) {
        temp_dir dir;
        const std::string path = dir.file("new.db");
        std::vector<std::thread> threads;
        std::atomic<int> errors{0};
        for (int k = 0; k < openers; ++k)
            threads.emplace_back([&, k] {
                try {
                    results_store s(path);
                    s.begin_run(identity(fmt::format("GPU model {}", k)));
                } catch (const std::exception& e) {
                    ++errors;
                    MESSAGE(std::string(e.what()));
                }
            });
        for (auto& t : threads) t.join();
        failed += errors;
        CHECK(results_store(path).runs().size() == openers);
    }
    CHECK(failed == 0);
}
