// hone merge: idempotent joins by run identity and key, conflicts reported with the documented
// rule, unknown columns carried, and every bad input refused before anything is written.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <sqlite3.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>

#include "hone/error.hpp"
#include "hone/store.hpp"
#include "store/merge.hpp"
#include "temp_dir.hpp"

using namespace hone;
namespace fs = std::filesystem;

namespace {

run_identity merge_identity(const std::string& kernel = "scale") {
    run_identity id;
    id.config_path = "scale.yaml";
    id.kernel_name = kernel;
    id.source_hash = "s";
    id.spec_hash = "p";
    id.problem = "N=4096";
    id.device_name = "NVIDIA H100";
    id.arch = "sm_90";
    id.driver_version = 13000;
    id.nvrtc_version = "13.0";
    id.tool_version = tool_version();
    return id;
}

eval_record result(const std::string& key, double median, status st = status::ok) {
    eval_record r;
    r.key = key;
    r.params = {{"X", int64_t{std::stoi(key.substr(2))}}};
    r.st = st;
    if (has_timing(st)) {
        r.gpu.time_us.n = 10;
        r.gpu.time_us.median = median;
    } else {
        r.message = "fault";
    }
    return r;
}

void fill(const std::string& path, const std::vector<eval_record>& records,
          const std::string& kernel = "scale") {
    results_store s(path);
    const int64_t run = s.begin_run(merge_identity(kernel));
    for (const auto& r : records) s.put(run, r);
}

void exec(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    char* err = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    CHECK_MESSAGE(rc == SQLITE_OK, (err ? err : ""));
    sqlite3_free(err);
    sqlite3_close(db);
}

std::string merge_refusal(const std::vector<std::string>& in, const std::string& out,
                          merge_options opt = {}) {
    try {
        merge_databases(in, out, opt);
    } catch (const input_error& e) {
        return e.what();
    }
    FAIL("merged without an error");
    return "";
}

}  // namespace

TEST_CASE("merge: results of one identity join one run; merging again changes nothing") {
    temp_dir d;
    const std::string a = d.file("a.db"), b = d.file("b.db"), out = d.file("all.db");
    fill(a, {result("X=1", 10), result("X=2", 20)});
    fill(b, {result("X=3", 30)});
    merge_report r = merge_databases({a, b}, out);
    // The inputs, read, are left as they were: no -wal or -shm file beside them.
    for (const std::string& in : {a, b})
        CHECK_FALSE((fs::exists(in + "-wal") || fs::exists(in + "-shm")));
    CHECK(r.runs == 1);
    CHECK(r.added == 3);
    CHECK(r.identical == 0);
    CHECK(r.conflicts.empty());
    {
        results_store s(out);
        CHECK(s.runs().size() == 1);
        CHECK(s.query({}).size() == 3);
    }
    r = merge_databases({a, b}, out);  // into the same output: idempotent
    CHECK(r.added == 0);
    CHECK(r.identical == 3);
    CHECK(r.conflicts.empty());
    results_store s(out);
    CHECK(s.query({}).size() == 3);
    CHECK(s.query({}).front().gpu.time_us.median == 10);
}

TEST_CASE("merge: a configuration measured twice differently is a conflict, kept by the rule") {
    temp_dir d;
    const std::string a = d.file("a.db"), b = d.file("b.db"), out = d.file("all.db");
    fill(a, {result("X=1", 10), result("X=2", 0, status::runtime_fault)});
    fill(b, {result("X=1", 11), result("X=2", 25)});
    const merge_report r = merge_databases({a, b}, out);
    REQUIRE(r.conflicts.size() == 2);
    // X=1: both timed, the first met stands.
    CHECK(r.conflicts[0].key == "X=1");
    CHECK(r.conflicts[0].kept_from == a);
    CHECK(r.conflicts[0].kept_median_us == 10);
    CHECK(r.conflicts[0].dropped_median_us == 11);
    // X=2: a timing beats a failure.
    CHECK(r.conflicts[1].key == "X=2");
    CHECK(r.conflicts[1].kept_from == b);
    CHECK(r.conflicts[1].dropped_status == "runtime_fault");
    results_store s(out);
    const auto all = s.query({"", "", 0, false, true});
    REQUIRE(all.size() == 2);
    CHECK(all[0].gpu.time_us.median == 10);
    CHECK(all[1].st == status::ok);
    CHECK(all[1].gpu.time_us.median == 25);
}

TEST_CASE("merge: columns this hone does not know travel with their values") {
    temp_dir d;
    const std::string a = d.file("a.db"), out = d.file("all.db");
    fill(a, {result("X=1", 10)});
    exec(a,
         "ALTER TABLE results ADD COLUMN future_col INTEGER NOT NULL DEFAULT -1; "
         "UPDATE results SET future_col = 3; ALTER TABLE runs ADD COLUMN note TEXT DEFAULT 'x'");
    CHECK(merge_databases({a}, out).added == 1);
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(out.c_str(), &db) == SQLITE_OK);
    sqlite3_stmt* s = nullptr;
    REQUIRE(sqlite3_prepare_v2(db, "SELECT future_col FROM results", -1, &s, nullptr) == SQLITE_OK);
    REQUIRE(sqlite3_step(s) == SQLITE_ROW);
    CHECK(sqlite3_column_int(s, 0) == 3);
    sqlite3_finalize(s);
    sqlite3_close(db);
    CHECK(results_store(out).query({}).size() == 1);  // still a database this hone reads
}

TEST_CASE("merge: databases of different kernels are refused, or kept apart when asked") {
    temp_dir d;
    const std::string a = d.file("a.db"), b = d.file("b.db"), out = d.file("all.db");
    fill(a, {result("X=1", 10)});
    fill(b, {result("X=1", 12)}, "other");
    const std::string why = merge_refusal({a, b}, out);
    CHECK(why.find("kernel other") != std::string::npos);
    CHECK(why.find("--mixed-kernels") != std::string::npos);
    CHECK_FALSE(fs::exists(out));
    merge_options mixed;
    mixed.mixed_kernels = true;
    const merge_report r = merge_databases({a, b}, out, mixed);
    CHECK(r.runs == 2);
    CHECK(r.conflicts.empty());
    CHECK(results_store(out).runs().size() == 2);
}

TEST_CASE("merge: missing, foreign, damaged inputs and -o naming an input are refused") {
    temp_dir d;
    const std::string a = d.file("a.db"), out = d.file("all.db");
    fill(a, {result("X=1", 10), result("X=2", 20)});
    CHECK(merge_refusal({a, d.file("none.db")}, out).find("no such file") != std::string::npos);
    d.write("text.db", "not a database at all, but long enough");
    CHECK(merge_refusal({a, d.file("text.db")}, out).find("not an SQLite file") !=
          std::string::npos);
    exec(d.file("other.db"), "CREATE TABLE t (x)");
    CHECK(merge_refusal({a, d.file("other.db")}, out).find("another application") !=
          std::string::npos);
    CHECK(merge_refusal({a}, a).find("one of the inputs") != std::string::npos);
    CHECK_FALSE(fs::exists(out));

    // A copy with its pages overwritten past the header: damaged.
    const std::string bad = d.file("bad.db");
    fs::copy_file(a, bad);
    {
        std::fstream f(bad, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(100);
        const std::string junk(8000, '\x5a');
        f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
    }
    const std::string why = merge_refusal({a, bad}, out);
    CHECK(why.find("bad.db") != std::string::npos);
    CHECK(why.find("damaged") != std::string::npos);
    CHECK(why.find("nothing was merged") != std::string::npos);
    CHECK_FALSE(fs::exists(out));

    // An existing output is left exactly as it was.
    fill(out, {result("X=9", 90)});
    const auto before = fs::file_size(out);
    merge_refusal({a, bad}, out);
    CHECK(fs::file_size(out) == before);
    CHECK(results_store(out).query({}).size() == 1);
}

namespace {

int run_hone(const std::string& args, const temp_dir& d) {
    const int status =
        std::system(fmt::format("{} {} >{} 2>&1", HONE_BINARY, args, d.file("cli.txt")).c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string cli_text(const temp_dir& d) {
    std::ifstream f(d.file("cli.txt"));
    return std::string(std::istreambuf_iterator<char>(f), {});
}

}  // namespace

TEST_CASE("hone merge and hone tune --shard: bad input exits 2 and writes nothing") {
    temp_dir d;
    const std::string a = d.file("a.db"), out = d.file("all.db");
    fill(a, {result("X=1", 10)});
    d.write("text.db", "not a database at all, but long enough");
    CHECK(run_hone(fmt::format("merge {} {} -o {}", a, d.file("text.db"), out), d) == 2);
    CHECK(cli_text(d).find("not an SQLite file") != std::string::npos);
    CHECK_FALSE(fs::exists(out));
    CHECK(run_hone(fmt::format("merge {} -o {}", a, a), d) == 2);
    CHECK(run_hone(fmt::format("merge {} -o {}", a, out), d) == 0);
    CHECK(cli_text(d).find("1 result added") != std::string::npos);

    const std::string config = std::string(HONE_SOURCE_DIR) + "/configs/vector_add.yaml";
    for (const std::string bad : {"3/2", "0/0", "x", "2/2", "1/"}) {
        CAPTURE(bad);
        CHECK(run_hone(fmt::format("tune {} --shard {} -o {}", config, bad, d.file("t.db")), d) ==
              2);
        CHECK(cli_text(d).find("--shard") != std::string::npos);
        CHECK_FALSE(fs::exists(d.file("t.db")));
    }
}
