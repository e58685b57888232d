// Read-only commands open the results database read-only: the file is left byte for byte as it
// was, and what is not a hone database is refused with exit code 2 instead of becoming one.
#include <doctest/doctest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <filesystem>

#include "hone/error.hpp"
#include "hone/store.hpp"
#include "temp_dir.hpp"

using namespace hone;

namespace {

void exec_sql(const std::string& path, const char* sql) {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
}

run_identity read_only_identity() {
    run_identity id;
    id.kernel_name = "k";
    id.device_name = "GPU";
    id.problem = "N=1";
    id.tool_version = tool_version();
    return id;
}

void make_db(const std::string& path) {
    results_store s(path);
    eval_record r;
    r.key = "BLOCK=32";
    r.params = {{"BLOCK", int64_t{32}}};
    r.st = status::ok;
    r.gpu.st = status::ok;
    r.gpu.time_us.n = 3;
    r.gpu.time_us.median = 10;
    s.put(s.begin_run(read_only_identity()), r);
}

std::string read_only_refusal(const std::string& path) {
    try {
        results_store s(path, store_access::read_only);
    } catch (const input_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("read-only store: reads and leaves the file unchanged, journal mode included") {
    temp_dir t;
    const std::string path = t.file("r.db");
    make_db(path);
    exec_sql(path, "PRAGMA journal_mode=DELETE");  // as another tool might leave it
    const std::string before = slurp(path);
    {
        results_store s(path, store_access::read_only);
        REQUIRE(s.runs().size() == 1);
        CHECK(s.query({read_only_identity().id(), "", 0, false}).size() == 1);
        CHECK_THROWS_AS(s.begin_run(read_only_identity()),
                        env_error);  // read-only: no write gets through
    }
    CHECK(slurp(path) == before);
}

TEST_CASE("read-only store: an older schema is read through a copy, the file unchanged") {
    temp_dir t;
    const std::string path = t.file("r.db");
    make_db(path);
    exec_sql(path,
             "ALTER TABLE results DROP COLUMN timer; ALTER TABLE results DROP COLUMN steps; "
             "ALTER TABLE results DROP COLUMN metrics; ALTER TABLE runs DROP COLUMN objective; "
             "ALTER TABLE runs DROP COLUMN origin; ALTER TABLE runs DROP COLUMN final_word; "
             "ALTER TABLE results DROP COLUMN device; ALTER TABLE results DROP COLUMN device_uuid; "
             "ALTER TABLE results DROP COLUMN telemetry; PRAGMA user_version = 1; "
             "UPDATE meta SET value = '1' WHERE key = 'schema'");
    const std::string before = slurp(path);
    results_store s(path, store_access::read_only);
    REQUIRE(s.runs().size() == 1);
    CHECK(s.query({read_only_identity().id(), "", 0, false}).size() == 1);
    CHECK(slurp(path) == before);
}

TEST_CASE("read-only store: empty, foreign and non-regular files are refused, not created") {
    temp_dir t;
    t.write("empty.db", "");
    CHECK(read_only_refusal(t.file("empty.db")).find("is empty (0 bytes)") != std::string::npos);
    CHECK(slurp(t.file("empty.db")).empty());
    t.write("text.db", "a,b\n1,2\n");
    CHECK(read_only_refusal(t.file("text.db")).find("not a hone results database") !=
          std::string::npos);
    exec_sql(t.file("other.db"), "CREATE TABLE t (x)");
    CHECK(read_only_refusal(t.file("other.db")).find("another application") != std::string::npos);
    CHECK(read_only_refusal("/dev/zero").find("not a regular file") != std::string::npos);
    CHECK(read_only_refusal(t.path.string()).find("not a regular file") != std::string::npos);
    CHECK_THROWS_AS(results_store(t.file("absent.db"), store_access::read_only), env_error);
    CHECK_FALSE(std::filesystem::exists(t.file("absent.db")));
}

TEST_CASE("read-write store: a device or folder is refused with exit code 2's error") {
    temp_dir t;
    CHECK_THROWS_AS(results_store("/dev/null"), input_error);
    CHECK(std::filesystem::is_character_file("/dev/null"));
    CHECK_THROWS_AS(results_store(t.path.string()), input_error);
}
