// Thin RAII over the SQLite C API: prepared statements with typed binds and columns, and
// errors turned into env_error naming the database file.
#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace hone::sql {

using arg = std::variant<int64_t, double, std::string>;

[[noreturn]] void fail(sqlite3* db, const std::string& path, std::string_view doing);

// Whether the file at `path` begins with SQLite's 16-byte header ("SQLite format 3\0"); false
// for a shorter, unreadable or absent file.
bool has_sqlite_header(const std::string& path);

// While another connection holds the write lock: retry after short sleeps, up to ~10 s in all.
// A writer holds it for one result's transaction (well under a millisecond), so SQLite's own
// busy timeout, which sleeps 1, 2, 5, ... 100 ms between tries, left the runs of one process
// that share a database (sizes tuned side by side on several GPUs) idle for milliseconds a
// result.
void wait_when_busy(sqlite3* db);

class stmt {
  public:
    stmt(sqlite3* db, const std::string& path, std::string_view sql);
    ~stmt();
    stmt(const stmt&) = delete;
    stmt& operator=(const stmt&) = delete;

    // Binds are 1-based, as in SQLite.
    stmt& bind(int i, int64_t v);
    stmt& bind(int i, int v) { return bind(i, static_cast<int64_t>(v)); }
    stmt& bind(int i, double v);
    stmt& bind(int i, std::string_view v);
    stmt& bind(int i, const std::string& v) { return bind(i, std::string_view(v)); }
    stmt& bind(int i, const char* v) { return bind(i, std::string_view(v)); }
    stmt& bind(int i, const arg& v);
    // A column of another statement as it is (type and bytes): copies rows between databases.
    stmt& bind_value(int i, const sqlite3_value* v);

    bool step();   // true while a row is available
    void run();    // steps a statement that returns no rows
    void reset();  // ready to bind and step again (bindings are cleared)

    // Columns are 0-based, as in SQLite.
    int64_t i64(int c) const { return sqlite3_column_int64(s_, c); }
    int i32(int c) const { return sqlite3_column_int(s_, c); }
    double real(int c) const { return sqlite3_column_double(s_, c); }
    std::string text(int c) const;
    const sqlite3_value* value(int c) const { return sqlite3_column_value(s_, c); }
    int columns() const { return sqlite3_column_count(s_); }

  private:
    sqlite3* db_;
    const std::string& path_;
    sqlite3_stmt* s_ = nullptr;
};

void exec(sqlite3* db, const std::string& path, const char* sql);

// BEGIN IMMEDIATE ... COMMIT, rolled back when the scope is left by an exception.
class transaction {
  public:
    transaction(sqlite3* db, const std::string& path);
    ~transaction();
    void commit();

  private:
    sqlite3* db_;
    const std::string& path_;
    bool done_ = false;
};

}  // namespace hone::sql
