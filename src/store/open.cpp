#include "store/open.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "hone/error.hpp"
#include "store/schema.hpp"
#include "store/sqlite_util.hpp"

namespace hone::store_detail {
namespace {

constexpr const char* move_it = "use another --output or move the file";

struct closer {
    void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using db_ptr = std::unique_ptr<sqlite3, closer>;

// A file a command was to write to is an environment problem (exit 3) with a way out; one it
// was given to read is bad input (exit 2).
[[noreturn]] void refuse(const std::string& path, const std::string& why, bool read_only = false) {
    if (read_only) throw input_error({path, 0, 0}, why);
    throw env_error(fmt::format("{} {}; it was left unchanged: {}", path, why, move_it));
}

// SQLite would happily treat an empty file as a new database, but would refuse any other
// file only on first read; checking the magic first gives a clear message without touching it.
void check_magic(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return;  // absent: SQLite creates it (or explains why it cannot)
    char head[16] = {};
    f.read(head, sizeof head);
    if (f.gcount() == 0) return;
    if (f.gcount() < 16 || std::memcmp(head, "SQLite format 3", 16) != 0) {
        refuse(path, "is not a hone results database (not an SQLite file)");
    }
}

bool is_damage(sqlite3* db) {
    const int rc = sqlite3_errcode(db) & 0xff;
    return rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB;
}

[[noreturn]] void refuse_corrupted(const std::string& path, const std::string& detail) {
    throw env_error(
        fmt::format("{} is corrupted ({}); it was left unchanged: restore it from a backup, or "
                    "write results elsewhere (tune and import: --output; merge: -o)",
                    path, detail));
}

// Runs a check query; damage found while reading is reported as corruption.
template <typename F>
auto reading(sqlite3* db, const std::string& path, F&& f) {
    try {
        return f();
    } catch (const env_error&) {
        if (is_damage(db)) refuse_corrupted(path, sqlite3_errmsg(db));
        throw;
    }
}

int64_t scalar(sqlite3* db, const std::string& path, const char* query) {
    return reading(db, path, [&] {
        sql::stmt s(db, path, query);
        return s.step() ? s.i64(0) : int64_t{0};
    });
}

void quick_check(sqlite3* db, const std::string& path) {
    std::string problems = reading(db, path, [&] {
        sql::stmt s(db, path, "PRAGMA quick_check(3)");
        std::string out;
        // A row may hold several lines, headed "*** in database main ***": keep the findings.
        while (s.step()) {
            std::istringstream lines(s.text(0));
            for (std::string line; std::getline(lines, line);) {
                if (line != "ok" && !line.starts_with("***"))
                    out += (out.empty() ? "" : "; ") + line;
            }
        }
        return out;
    });
    // A page SQLite could not read for want of memory (SQLITE_NOMEM, error code 7) is listed as
    // a finding: that is a memory limit (exit 3), not a damaged file.
    if (problems.find("error code=7") != std::string::npos)
        throw env_error(fmt::format(
            "out of memory: {}: SQLite could not read its pages within the process's memory "
            "limit (docs/limits.md)",
            path));
    if (!problems.empty()) refuse_corrupted(path, "quick_check: " + problems);
}

// application_id and user_version live in the file header, readable even when pages are not.
// Returns the file's schema version: this hone's, or an older one it can upgrade.
int64_t check_identity(sqlite3* db, const std::string& path, bool read_only = false) {
    const int64_t app = scalar(db, path, "PRAGMA application_id");
    const int64_t version = scalar(db, path, "PRAGMA user_version");
    if (app != application_id) {
        refuse(path,
               fmt::format("is an SQLite database of another application "
                           "(application_id {:#x}, not hone's)",
                           app),
               read_only);
    }
    if (version >= oldest_upgradable_schema && version < schema_version) return version;
    if (version != schema_version) {
        throw env_error(fmt::format("{} was written by hone schema {}; this hone reads schema {}{}",
                                    path, version, schema_version,
                                    read_only ? "" : std::string(": ") + move_it));
    }
    return version;
}

void check_meta(sqlite3* db, const std::string& path, bool read_only = false) {
    const std::string format = reading(db, path, [&] {
        sql::stmt s(db, path, "SELECT value FROM meta WHERE key = 'format'");
        return s.step() ? s.text(0) : std::string();
    });
    if (format != meta_format)
        refuse(path, "is not a hone results database (no hone meta row)", read_only);
}

bool is_blank(sqlite3* db, const std::string& path) {
    return scalar(db, path, "PRAGMA application_id") == 0 &&
           scalar(db, path, "PRAGMA user_version") == 0 &&
           scalar(db, path, "SELECT count(*) FROM sqlite_schema") == 0;
}

// Connections that open a new file at once (the sizes of a run tuned side by side) each ask to
// switch it from the rollback journal to WAL, which takes the file's exclusive lock. Two that hold
// the shared lock and both ask for it would deadlock, so SQLite answers one of them SQLITE_BUSY
// at once, without its busy handler: that one tries again, and once another has switched the
// file the pragma needs no lock.
void enable_wal(sqlite3* db, const std::string& path) {
    constexpr int sleep_us = 2000, limit_us = 10'000'000;
    for (int waited_us = 0;; waited_us += sleep_us) {
        const int rc = sqlite3_exec(db, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
        if (rc == SQLITE_OK) return;
        if (rc != SQLITE_BUSY || waited_us >= limit_us)
            sql::fail(db, path, "`PRAGMA journal_mode=WAL`");
        ::usleep(sleep_us);
    }
}

}  // namespace

sqlite3* open_checked(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        throw input_error({path, 0, 0},
                          "is not a regular file (a device, a folder or a fifo): a results "
                          "database is a regular file; it was left unchanged");
    check_magic(path);
    sqlite3* raw = nullptr;
    const int rc =
        sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    db_ptr db(raw);
    if (rc != SQLITE_OK) {
        throw env_error(fmt::format("cannot open results database {}: {}", path,
                                    raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
    }
    // Two hone processes may share a database (tune and report): wait for the writer.
    sql::wait_when_busy(db.get());
    if (is_blank(db.get(), path)) {
        create_schema(db.get(), path);
    } else {
        const int64_t version = check_identity(db.get(), path);
        quick_check(db.get(), path);
        check_meta(db.get(), path);
        // Only a file that passed every check is written to.
        if (version < schema_version) upgrade_schema(db.get(), path, static_cast<int>(version));
    }
    // WAL: a killed writer loses only its open transaction; NORMAL sync is durable across
    // process crashes in WAL mode, which is the failure this store is built for.
    enable_wal(db.get(), path);
    sql::exec(db.get(), path, "PRAGMA synchronous=NORMAL");
    return db.release();
}

sqlite3* open_read_only(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw input_error({path, 0, 0}, "no such results database");
    if (!S_ISREG(st.st_mode))
        throw input_error({path, 0, 0},
                          "is not a regular file (a device, a folder or a fifo): expected a hone "
                          "results database");
    if (st.st_size == 0)
        throw input_error({path, 0, 0}, "is empty (0 bytes): expected a hone results database");
    if (!sql::has_sqlite_header(path))
        throw input_error({path, 0, 0}, "is not a hone results database (not an SQLite file)");
    // A reader of a database in WAL mode makes its -shm file beside it; in a folder it cannot
    // write, with none there, SQLite refuses to read at all. Nothing else can write there
    // either, so the file is opened as immutable.
    const std::filesystem::path file(path);
    const std::string dir = file.has_parent_path() ? file.parent_path().string() : ".";
    struct stat shm {};
    const bool immutable =
        ::access(dir.c_str(), W_OK) != 0 && ::stat((path + "-shm").c_str(), &shm) != 0;
    std::string name = path;
    int flags = SQLITE_OPEN_READONLY;
    if (immutable) {
        name = "file:";
        for (const char c : std::filesystem::absolute(file).string()) {
            if (c == '%' || c == '?' || c == '#')
                name += fmt::format("%{:02X}", static_cast<unsigned char>(c));
            else
                name += c;
        }
        name += "?immutable=1";
        flags |= SQLITE_OPEN_URI;
    }
    // A refusal below leaves no -wal or -shm file behind either.
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(name.c_str(), &raw, flags, nullptr);
    reader_ptr db(raw, reader_closer{path, wal_files_absent(path)});
    if (rc != SQLITE_OK) {
        throw env_error(fmt::format("cannot open results database {}: {}", path,
                                    raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
    }
    sql::wait_when_busy(db.get());
    if (is_blank(db.get(), path))
        throw input_error({path, 0, 0}, "is an empty SQLite file, not a hone results database");
    const int64_t version = check_identity(db.get(), path, true);
    quick_check(db.get(), path);
    check_meta(db.get(), path, true);
    if (version == schema_version) return db.release();
    // An older schema is read through a copy in memory, upgraded there: the file stays as the
    // hone that wrote it left it.
    sqlite3* mem_raw = nullptr;
    if (sqlite3_open_v2(":memory:", &mem_raw, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
        sqlite3_close_v2(mem_raw);
        throw env_error(fmt::format("{}: cannot open a database in memory", path));
    }
    db_ptr mem(mem_raw);
    sqlite3_backup* b = sqlite3_backup_init(mem.get(), "main", db.get(), "main");
    if (!b) throw env_error(fmt::format("cannot read {}: {}", path, sqlite3_errmsg(mem.get())));
    const int step = sqlite3_backup_step(b, -1);
    sqlite3_backup_finish(b);
    if (step != SQLITE_DONE)
        throw env_error(fmt::format("cannot read {}: {}", path, sqlite3_errstr(step)));
    upgrade_schema(mem.get(), path, static_cast<int>(version));
    return mem.release();
}

bool wal_files_absent(const std::string& path) {
    struct stat st {};
    return ::stat((path + "-wal").c_str(), &st) != 0 && ::stat((path + "-shm").c_str(), &st) != 0;
}

void remove_reader_wal_files(const std::string& path) {
    if (wal_files_absent(path)) return;  // none made: not in WAL mode, or opened as immutable
    sqlite3* raw = nullptr;
    if (sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK) {
        sqlite3_busy_timeout(raw, 100);
        // A read opens the log; a connection that never read would not look at it on closing.
        sqlite3_exec(raw, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
    }
    sqlite3_close_v2(raw);
}

void reader_closer::operator()(sqlite3* db) const {
    sqlite3_close_v2(db);
    if (tidy) remove_reader_wal_files(path);
}

}  // namespace hone::store_detail
