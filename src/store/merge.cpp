#include "store/merge.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "hone/error.hpp"
#include "hone/status.hpp"
#include "store/open.hpp"
#include "store/schema.hpp"
#include "store/sqlite_util.hpp"

namespace hone {
namespace {

namespace fs = std::filesystem;

struct closer {
    void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using db_ptr = std::unique_ptr<sqlite3, closer>;

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
    throw input_error({path, 0, 0}, why + "; nothing was merged");
}

bool is_damage(sqlite3* db) {
    const int rc = sqlite3_errcode(db) & 0xff;
    return rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB;
}

int64_t scalar(sqlite3* db, const std::string& path, const char* query) {
    sql::stmt s(db, path, query);
    return s.step() ? s.i64(0) : int64_t{0};
}

// Opens a database to read, after the checks open_checked makes, but refusing as bad input:
// a file given to merge is the user's choice, and merge never writes to it.
store_detail::reader_ptr open_input(const std::string& path) {
    std::error_code ec;
    if (!fs::exists(path, ec)) refuse(path, "no such file");
    if (!fs::is_regular_file(path, ec)) refuse(path, "is not a file");
    if (!sql::has_sqlite_header(path))
        refuse(path, "is not a hone results database (not an SQLite file)");
    const bool tidy = store_detail::wal_files_absent(path);
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
    store_detail::reader_ptr db(raw, store_detail::reader_closer{path, tidy});
    if (rc != SQLITE_OK)
        throw env_error(fmt::format("cannot open {}: {}", path,
                                    raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
    sql::wait_when_busy(db.get());
    try {
        const int64_t app = scalar(db.get(), path, "PRAGMA application_id");
        const int64_t version = scalar(db.get(), path, "PRAGMA user_version");
        if (app != store_detail::application_id)
            refuse(path, fmt::format("is an SQLite database of another application "
                                     "(application_id {:#x}, not hone's)",
                                     app));
        if (version > store_detail::schema_version)
            refuse(path, fmt::format("was written by a newer hone (schema {}; this hone reads "
                                     "schemas {} to {}): merge with that hone",
                                     version, store_detail::oldest_upgradable_schema,
                                     store_detail::schema_version));
        if (version < store_detail::oldest_upgradable_schema)
            refuse(path, fmt::format("has schema {}, which this hone does not read", version));
        std::string problems;
        {
            sql::stmt s(db.get(), path, "PRAGMA quick_check(3)");
            while (s.step()) {
                std::istringstream lines(s.text(0));
                for (std::string line; std::getline(lines, line);)
                    if (line != "ok" && !line.starts_with("***"))
                        problems += (problems.empty() ? "" : "; ") + line;
            }
        }
        // A page not read for want of memory (SQLITE_NOMEM, error code 7) is a memory limit.
        if (problems.find("error code=7") != std::string::npos)
            throw env_error(fmt::format(
                "out of memory: {}: SQLite could not read its pages within the process's memory "
                "limit (docs/limits.md)",
                path));
        if (!problems.empty()) refuse(path, "is damaged (quick_check: " + problems + ")");
        sql::stmt meta(db.get(), path, "SELECT value FROM meta WHERE key = 'format'");
        if (!meta.step() || meta.text(0) != store_detail::meta_format)
            refuse(path, "is not a hone results database (no hone meta row)");
    } catch (const env_error&) {
        if (is_damage(db.get()))
            refuse(path, fmt::format("is damaged ({})", sqlite3_errmsg(db.get())));
        throw;
    }
    return db;
}

// A column as PRAGMA table_info describes it: enough to add it to another table.
struct column {
    std::string name, type, default_sql;  // default_sql "" = none
    bool not_null = false;
};

std::string quoted_identifier(const std::string& name) {
    std::string out = "\"";
    for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::vector<column> table_columns(sqlite3* db, const std::string& path, const char* table) {
    sql::stmt s(db, path, fmt::format("PRAGMA table_info({})", table));
    std::vector<column> out;
    while (s.step()) {
        column c;
        c.name = s.text(1);
        c.type = s.text(2);
        c.not_null = s.i64(3) != 0;
        c.default_sql = s.text(4);
        out.push_back(std::move(c));
    }
    return out;
}

// Columns of `table` in the input that the output lacks (a newer hone's, another build's) are
// added to the output with their type and default: merge carries what it does not know.
std::vector<std::string> shared_columns(sqlite3* out, const std::string& out_path, sqlite3* in,
                                        const std::string& in_path, const char* table) {
    std::set<std::string> have;
    for (const auto& c : table_columns(out, out_path, table)) have.insert(c.name);
    std::vector<std::string> names;
    for (const auto& c : table_columns(in, in_path, table)) {
        if (!have.count(c.name)) {
            std::string def = quoted_identifier(c.name) + " " + c.type;
            if (!c.default_sql.empty())
                def += (c.not_null ? " NOT NULL DEFAULT " : " DEFAULT ") + c.default_sql;
            sql::exec(out, out_path,
                      fmt::format("ALTER TABLE {} ADD COLUMN {}", table, def).c_str());
        }
        if (c.name != "run_id") names.push_back(c.name);
    }
    return names;
}

std::string column_list(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + quoted_identifier(n);
    return out;
}

std::string placeholders(std::size_t n, int first) {
    std::string out;
    for (std::size_t i = 0; i < n; ++i)
        out += fmt::format("{}?{}", i ? ", " : "", first + static_cast<int>(i));
    return out;
}

int index_of(const std::vector<std::string>& names, const char* name) {
    for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i] == name) return static_cast<int>(i);
    return -1;
}

bool timed(const std::string& status_text) {
    const auto st = parse_status(status_text);
    return st && has_timing(*st);
}

struct run_info {
    std::string kernel, problem;
};

// Copies one input into the open output (inside the caller's transaction).
class copier {
  public:
    copier(sqlite3* out, const std::string& out_path, merge_report& rep)
        : out_(out), out_path_(out_path), rep_(rep) {}

    void copy(sqlite3* in, const std::string& in_path) {
        const auto run_cols = shared_columns(out_, out_path_, in, in_path, "runs");
        const auto res_cols = shared_columns(out_, out_path_, in, in_path, "results");
        std::map<int64_t, int64_t> run_of;  // input run_id -> output run_id
        {
            const std::string cols = column_list(run_cols);
            sql::stmt rows(in, in_path, fmt::format("SELECT run_id, {} FROM runs", cols));
            sql::stmt put(out_, out_path_,
                          fmt::format("INSERT INTO runs ({}) VALUES ({}) ON CONFLICT (identity) "
                                      "DO UPDATE SET first_seen = min(first_seen, "
                                      "excluded.first_seen), last_seen = max(last_seen, "
                                      "excluded.last_seen)",
                                      cols, placeholders(run_cols.size(), 1)));
            sql::stmt find(out_, out_path_, "SELECT run_id FROM runs WHERE identity = ?1");
            const int identity = index_of(run_cols, "identity") + 1;
            const int kernel = index_of(run_cols, "kernel_name") + 1;
            const int problem = index_of(run_cols, "problem") + 1;
            while (rows.step()) {
                for (std::size_t i = 0; i < run_cols.size(); ++i)
                    put.bind_value(static_cast<int>(i) + 1, rows.value(static_cast<int>(i) + 1));
                put.run();
                put.reset();
                find.bind(1, rows.text(identity));
                if (!find.step()) throw std::logic_error("merge: a run just written is missing");
                const int64_t id = find.i64(0);
                find.reset();
                run_of[rows.i64(0)] = id;
                runs_[id] = run_info{rows.text(kernel), rows.text(problem)};
            }
        }
        const std::string cols = column_list(res_cols);
        const int key = index_of(res_cols, "key");
        const int status = index_of(res_cols, "status");
        const int median = index_of(res_cols, "median");
        sql::stmt rows(in, in_path,
                       fmt::format("SELECT run_id, {} FROM results ORDER BY rowid", cols));
        sql::stmt find(out_, out_path_,
                       "SELECT status, median FROM results WHERE run_id = ?1 AND key = ?2");
        std::string same_sql = "SELECT EXISTS (SELECT 1 FROM results WHERE run_id = ?1";
        for (std::size_t i = 0; i < res_cols.size(); ++i)
            same_sql += fmt::format(" AND {} IS ?{}", quoted_identifier(res_cols[i]), i + 2);
        sql::stmt same(out_, out_path_, same_sql + ")");
        sql::stmt put(out_, out_path_,
                      fmt::format("INSERT INTO results (run_id, {}) VALUES (?1, {})", cols,
                                  placeholders(res_cols.size(), 2)));
        sql::stmt drop(out_, out_path_, "DELETE FROM results WHERE run_id = ?1 AND key = ?2");
        auto bind_row = [&](sql::stmt& s, int64_t run) {
            s.bind(1, run);
            for (std::size_t i = 0; i < res_cols.size(); ++i)
                s.bind_value(static_cast<int>(i) + 2, rows.value(static_cast<int>(i) + 1));
        };
        while (rows.step()) {
            const auto r = run_of.find(rows.i64(0));
            if (r == run_of.end()) continue;  // a result without its run: nothing to file it under
            const int64_t run = r->second;
            const std::string k = rows.text(key + 1);
            find.bind(1, run).bind(2, k);
            if (!find.step()) {
                find.reset();
                bind_row(put, run);
                put.run();
                put.reset();
                from_[{run, k}] = in_path;
                ++rep_.added;
                continue;
            }
            const std::string old_status = find.text(0);
            const double old_median = find.real(1);
            find.reset();
            bind_row(same, run);
            const bool identical = same.step() && same.i64(0) != 0;
            same.reset();
            if (identical) {
                ++rep_.identical;
                continue;
            }
            merge_conflict c;
            c.kernel = runs_[run].kernel;
            c.problem = runs_[run].problem;
            c.key = k;
            const std::string new_status = rows.text(status + 1);
            const double new_median = rows.real(median + 1);
            const auto earlier = from_.find({run, k});
            const std::string old_from = earlier == from_.end() ? out_path_ : earlier->second;
            // A timing beats a failure (a fault can be the card's or the moment's); otherwise
            // the result met first stands.
            if (!timed(old_status) && timed(new_status)) {
                drop.bind(1, run).bind(2, k);
                drop.run();
                drop.reset();
                bind_row(put, run);
                put.run();
                put.reset();
                from_[{run, k}] = in_path;
                c.kept_from = in_path, c.kept_status = new_status, c.kept_median_us = new_median;
                c.dropped_from = old_from, c.dropped_status = old_status;
                c.dropped_median_us = old_median;
            } else {
                c.kept_from = old_from, c.kept_status = old_status, c.kept_median_us = old_median;
                c.dropped_from = in_path, c.dropped_status = new_status;
                c.dropped_median_us = new_median;
            }
            rep_.conflicts.push_back(std::move(c));
        }
        for (const auto& [in_run, out_run] : run_of) touched_.insert(out_run);
        rep_.runs = static_cast<int64_t>(touched_.size());
    }

  private:
    sqlite3* out_;
    const std::string& out_path_;
    merge_report& rep_;
    std::map<int64_t, run_info> runs_;
    std::map<std::pair<int64_t, std::string>, std::string> from_;  // rows added: their input
    std::set<int64_t> touched_;
};

std::vector<std::pair<std::string, std::string>> kernels_of(sqlite3* db, const std::string& path) {
    sql::stmt s(db, path, "SELECT DISTINCT kernel_name FROM runs ORDER BY kernel_name");
    std::vector<std::pair<std::string, std::string>> out;
    while (s.step()) out.emplace_back(s.text(0), path);
    return out;
}

}  // namespace

merge_report merge_databases(const std::vector<std::string>& inputs, const std::string& output,
                             const merge_options& opt) {
    if (inputs.empty()) throw input_error({"merge", 0, 0}, "no database to merge");
    std::error_code ec;
    // What is there already, a dangling symbolic link included, is not this merge's to remove
    // when it fails: only the names it found absent.
    std::vector<std::string> absent;
    for (const char* tail : {"", "-wal", "-shm"})
        if (!fs::exists(fs::symlink_status(output + tail, ec))) absent.push_back(output + tail);
    const bool existed = fs::exists(output, ec);
    for (const auto& in : inputs)
        if (existed && fs::equivalent(in, output, ec))
            throw input_error({"-o " + output, 0, 0},
                              fmt::format("the output is one of the inputs ({}): merge into a new "
                                          "file, then replace the old one",
                                          in));
    // Every input checked, and read, before the output is touched.
    std::vector<store_detail::reader_ptr> dbs;
    std::vector<std::pair<std::string, std::string>> kernels;  // kernel, file
    if (existed) {
        store_detail::reader_ptr out = open_input(output);
        for (auto& k : kernels_of(out.get(), output)) kernels.push_back(std::move(k));
    }
    for (const auto& in : inputs) {
        dbs.push_back(open_input(in));
        try {
            for (auto& k : kernels_of(dbs.back().get(), in)) kernels.push_back(std::move(k));
        } catch (const env_error&) {
            if (is_damage(dbs.back().get()))
                refuse(in, fmt::format("is damaged ({})", sqlite3_errmsg(dbs.back().get())));
            throw;
        }
    }
    if (!opt.mixed_kernels)
        for (const auto& [kernel, file] : kernels)
            if (kernel != kernels.front().first)
                refuse(file, fmt::format("holds runs of kernel {}, and {} of kernel {}: merge the "
                                         "databases of one kernel, or pass --mixed-kernels to "
                                         "keep each kernel's runs as runs of their own",
                                         kernel, kernels.front().second, kernels.front().first));

    merge_report rep;
    try {
        db_ptr out(store_detail::open_checked(output));
        sql::transaction t(out.get(), output);
        copier c(out.get(), output, rep);
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            try {
                c.copy(dbs[i].get(), inputs[i]);
            } catch (const env_error&) {
                if (is_damage(dbs[i].get()))
                    refuse(inputs[i], fmt::format("is damaged ({})", sqlite3_errmsg(dbs[i].get())));
                throw;
            }
        }
        t.commit();
    } catch (...) {
        if (!existed)  // the output this merge created, and nothing else
            for (const auto& name : absent) fs::remove(name, ec);
        throw;
    }
    return rep;
}

}  // namespace hone
