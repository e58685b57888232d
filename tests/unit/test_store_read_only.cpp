// Read-only commands open the results database read-only: the file is left byte for byte as it
// was, and what is not a hone database is refused with exit code 2 instead of becoming one.
#include <doctest/doctest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "hone/error.hpp"
#include "hone/store.hpp"
#include "temp_dir.hpp"

using namespace hone;
namespace fs = std::filesystem;

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

TEST_CASE("read-only store: a WAL database's reader leaves no -wal or -shm file behind") {
    temp_dir t;
    const std::string path = t.file("r.db");
    make_db(path);  // WAL, as hone writes it; its writer closed, so neither file is there
    const auto files = [&] { return fs::exists(path + "-wal") || fs::exists(path + "-shm"); };
    REQUIRE_FALSE(files());
    const std::string before = slurp(path);
    {
        results_store s(path, store_access::read_only);
        REQUIRE(s.runs().size() == 1);
        CHECK(files());  // SQLite's reader makes them
    }
    CHECK_FALSE(files());
    CHECK(slurp(path) == before);

    SUBCASE("a writer open meanwhile keeps them, and removes them when it closes") {
        sqlite3* writer = nullptr;
        REQUIRE(sqlite3_open(path.c_str(), &writer) == SQLITE_OK);
        CHECK(sqlite3_exec(writer, "SELECT count(*) FROM results", nullptr, nullptr, nullptr) ==
              SQLITE_OK);
        REQUIRE(files());
        { results_store s(path, store_access::read_only); }
        CHECK(files());
        CHECK(sqlite3_exec(writer, "UPDATE meta SET value = value", nullptr, nullptr, nullptr) ==
              SQLITE_OK);
        sqlite3_close(writer);
        CHECK_FALSE(files());
    }
    SUBCASE("nor does a refused one") {
        exec_sql(path, "PRAGMA application_id = 7");
        CHECK(read_only_refusal(path).find("another application") != std::string::npos);
        CHECK_FALSE(files());
    }
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
    CHECK_THROWS_AS(results_store(t.file("absent.db"), store_access::read_only), input_error);
    CHECK_FALSE(std::filesystem::exists(t.file("absent.db")));
}

TEST_CASE("read-write store: a device or folder is refused with exit code 2's error") {
    temp_dir t;
    CHECK_THROWS_AS(results_store("/dev/null"), input_error);
    CHECK(std::filesystem::is_character_file("/dev/null"));
    CHECK_THROWS_AS(results_store(t.path.string()), input_error);
}

TEST_CASE("read-only store: a database in a folder no one may write is read, nothing made there") {
    temp_dir t;
    fs::permissions(t.path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                fs::perms::others_read | fs::perms::others_exec);
    fs::create_directories(t.path / "ro");
    const std::string path = (t.path / "ro" / "r.db").string();
    make_db(path);  // WAL mode, as hone leaves its databases
    for (const char* side : {"-wal", "-shm"}) fs::remove(path + side);
    fs::permissions(path, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    fs::permissions(t.path / "ro", fs::perms::owner_read | fs::perms::owner_exec |
                                       fs::perms::group_read | fs::perms::group_exec |
                                       fs::perms::others_read | fs::perms::others_exec);
    // Root may write anywhere: the reader runs as nobody then.
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(3);
        try {
            results_store s(path, store_access::read_only);
            ::_exit(s.runs().size() == 1 ? 0 : 1);
        } catch (...) {
            ::_exit(2);
        }
    }
    int st = 0;
    REQUIRE(::waitpid(pid, &st, 0) == pid);
    REQUIRE(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == 0);
    CHECK_FALSE(fs::exists(path + "-shm"));
    fs::permissions(t.path / "ro", fs::perms::owner_all);  // so that the folder can be removed
}
