#include "store/sqlite_util.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <type_traits>

#include "hone/error.hpp"

namespace hone::sql {

void fail(sqlite3* db, const std::string& path, std::string_view doing) {
    throw env_error(fmt::format("{}: {} failed: {}", path, doing, sqlite3_errmsg(db)));
}

stmt::stmt(sqlite3* db, const std::string& path, std::string_view sql) : db_(db), path_(path) {
    if (sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &s_, nullptr) !=
        SQLITE_OK) {
        fail(db, path, fmt::format("preparing `{}`", sql));
    }
}

stmt::~stmt() {
    sqlite3_finalize(s_);
}

stmt& stmt::bind(int i, int64_t v) {
    if (sqlite3_bind_int64(s_, i, v) != SQLITE_OK) fail(db_, path_, "binding");
    return *this;
}

stmt& stmt::bind(int i, double v) {
    if (sqlite3_bind_double(s_, i, v) != SQLITE_OK) fail(db_, path_, "binding");
    return *this;
}

stmt& stmt::bind(int i, std::string_view v) {
    if (sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT) !=
        SQLITE_OK) {
        fail(db_, path_, "binding");
    }
    return *this;
}

stmt& stmt::bind(int i, const arg& v) {
    return std::visit(
        [&](const auto& x) -> stmt& {
            if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::string>) {
                return bind(i, std::string_view(x));
            } else {
                return bind(i, x);
            }
        },
        v);
}

stmt& stmt::bind_value(int i, const sqlite3_value* v) {
    if (sqlite3_bind_value(s_, i, v) != SQLITE_OK) fail(db_, path_, "binding");
    return *this;
}

bool stmt::step() {
    const int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(db_, path_, fmt::format("`{}`", sqlite3_sql(s_)));
}

void stmt::run() {
    while (step()) {
    }
}

void stmt::reset() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
}

std::string stmt::text(int c) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_, c));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(s_, c)))
             : std::string();
}

namespace {

int retry_busy(void*, int tries) {
    constexpr int short_tries = 200;  // 200 x 100 us: 20 ms
    constexpr int long_sleep_us = 5000;
    constexpr int limit_us = 10'000'000;
    if (tries < short_tries) {
        ::usleep(100);
        return 1;
    }
    if ((tries - short_tries) * long_sleep_us >= limit_us) return 0;
    ::usleep(long_sleep_us);
    return 1;
}

}  // namespace

bool has_sqlite_header(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    char head[16] = {};
    f.read(head, sizeof head);
    return f.gcount() == 16 && std::memcmp(head, "SQLite format 3", 16) == 0;
}

void wait_when_busy(sqlite3* db) {
    sqlite3_busy_handler(db, retry_busy, nullptr);
}

void exec(sqlite3* db, const std::string& path, const char* sql) {
    if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) {
        fail(db, path, fmt::format("`{}`", sql));
    }
}

transaction::transaction(sqlite3* db, const std::string& path) : db_(db), path_(path) {
    exec(db, path, "BEGIN IMMEDIATE");
}

transaction::~transaction() {
    if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

void transaction::commit() {
    exec(db_, path_, "COMMIT");
    done_ = true;
}

}  // namespace hone::sql
