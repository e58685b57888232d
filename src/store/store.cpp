#include "hone/store.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "hone/error.hpp"
#include "store/codec.hpp"
#include "store/open.hpp"
#include "store/sqlite_util.hpp"
#include "store/where.hpp"

namespace hone {
namespace {

constexpr const char* now_sql = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";
// Results of one identity (?1), or of all when ?1 is empty.
constexpr const char* in_scope =
    "(?1 = '' OR run_id IN (SELECT run_id FROM runs WHERE identity = ?1))";

std::string fault_sql() {
    std::string names;
    // status::timeout is the last status in status.hpp.
    for (int i = 0; i <= static_cast<int>(status::timeout); ++i) {
        const auto s = static_cast<status>(i);
        if (is_fault(s)) names += fmt::format("{}'{}'", names.empty() ? "" : ", ", status_name(s));
    }
    return fmt::format("status IN ({})", names);
}

const char* const column_aliases = "status, median_us, gbps, gflops, regs, occupancy";

// A result's rank within its run, smaller first: as ranked() (report.hpp) sorts, by the
// objective stored with the run; a rate the result lacks sorts last.
constexpr const char* objective_sql = R"(
    CASE (SELECT objective FROM runs WHERE runs.run_id = results.run_id)
        WHEN 'gbps' THEN (CASE WHEN gbps > 0 THEN -gbps ELSE 1e308 END)
        WHEN 'gflops' THEN (CASE WHEN gflops > 0 THEN -gflops ELSE 1e308 END)
        ELSE median END)";

// A misspelt parameter would silently match nothing: name the known ones instead.
void check_params(sqlite3* db, const std::string& path, const std::string& identity,
                  const store_detail::sql_filter& f) {
    if (f.params.empty()) return;
    sql::stmt first(db, path, fmt::format("SELECT params FROM results WHERE {} LIMIT 1", in_scope));
    first.bind(1, identity);
    if (!first.step()) return;  // nothing stored: nothing to check against
    const auto known = nlohmann::ordered_json::parse(first.text(0), nullptr, false);
    for (const auto& p : f.params) {
        sql::stmt s(db, path,
                    fmt::format("SELECT EXISTS (SELECT 1 FROM results WHERE {} AND "
                                "json_type(params, ?2) IS NOT NULL)",
                                in_scope));
        s.bind(1, identity).bind(2, fmt::format("$.\"{}\"", p.name));
        if (s.step() && s.i64(0) != 0) continue;
        std::vector<std::string> names;
        if (known.is_object()) {
            for (const auto& [k, v] : known.items()) names.push_back(k);
        }
        throw input_error(source_pos{"--where", 1, p.column},
                          fmt::format("no parameter or column named {}: parameters are {}; "
                                      "columns are {}",
                                      p.name, fmt::join(names, ", "), column_aliases));
    }
}

// The run's row, created or refreshed; the caller holds the transaction.
int64_t insert_run(sqlite3* db, const std::string& path, const run_identity& id) {
    int64_t run_id = 0;
    sql::stmt s(db, path,
                fmt::format(R"(
            INSERT INTO runs (identity, config_path, kernel_name, source_hash, spec_hash, problem,
                              device_name, device_uuid, arch, driver_version, nvrtc_version,
                              tool_version, first_seen, last_seen, objective, origin)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, {0}, {0}, ?13, ?14)
            ON CONFLICT (identity) DO UPDATE
                SET config_path = excluded.config_path, last_seen = excluded.last_seen,
                    objective = excluded.objective
            RETURNING run_id)",
                            now_sql));
    s.bind(1, id.id());
    int i = 1;
    for (const std::string* v : {&id.config_path, &id.kernel_name, &id.source_hash, &id.spec_hash,
                                 &id.problem, &id.device_name, &id.device_uuid, &id.arch}) {
        s.bind(++i, *v);
    }
    s.bind(++i, id.driver_version);
    s.bind(++i, id.nvrtc_version);
    s.bind(++i, id.tool_version);
    s.bind(++i, id.objective);
    s.bind(++i, id.origin);
    if (s.step()) run_id = s.i64(0);
    s.run();
    return run_id;
}

}  // namespace

results_store::results_store(const std::string& path, store_access access)
    : path_(path),
      tidy_wal_(access == store_access::read_only && store_detail::wal_files_absent(path)),
      db_(access == store_access::read_only ? store_detail::open_read_only(path)
                                            : store_detail::open_checked(path)) {}

results_store::~results_store() {
    sqlite3_close_v2(db_);
    if (tidy_wal_) store_detail::remove_reader_wal_files(path_);
}

int64_t results_store::begin_run(const run_identity& id) {
    sql::transaction t(db_, path_);
    const int64_t run_id = insert_run(db_, path_, id);
    t.commit();
    return run_id;
}

std::map<std::string, status> results_store::done(const std::string& identity_id) {
    sql::stmt s(db_, path_, fmt::format("SELECT key, status FROM results WHERE {}", in_scope));
    s.bind(1, identity_id);
    std::map<std::string, status> out;
    while (s.step()) {
        const std::string st = s.text(1);
        const auto parsed = parse_status(st);
        if (!parsed) throw env_error(fmt::format("{}: unknown status '{}'", path_, st));
        out.emplace(s.text(0), *parsed);
    }
    return out;
}

void results_store::forget(const std::string& identity_id, bool only_faults) {
    sql::transaction t(db_, path_);
    sql::stmt s(db_, path_,
                fmt::format("DELETE FROM results WHERE {}{}", in_scope,
                            only_faults ? " AND " + fault_sql() : ""));
    s.bind(1, identity_id).run();
    t.commit();
}

void results_store::put(int64_t run_id, const eval_record& r) {
    // The row and the run's last_seen land together or not at all.
    sql::transaction t(db_, path_);
    {
        sql::stmt s(db_, path_, store_detail::insert_record_sql());
        store_detail::bind_record(s, run_id, r);
        s.run();
        sql::stmt seen(db_, path_,
                       fmt::format("UPDATE runs SET last_seen = {} WHERE run_id = ?1", now_sql));
        seen.bind(1, run_id).run();
    }
    t.commit();
}

int64_t results_store::put_run(const run_identity& id, const std::vector<eval_record>& records) {
    return put_run(id, [&](const record_sink& put) {
        for (const auto& r : records) put(r);
    });
}

int64_t results_store::put_run(const run_identity& id,
                               const std::function<void(const record_sink&)>& records) {
    sql::transaction t(db_, path_);
    const int64_t run_id = insert_run(db_, path_, id);
    sql::stmt clear(db_, path_, "DELETE FROM results WHERE run_id = ?1");
    clear.bind(1, run_id).run();
    // Imported records keep their own time, or none: an import is not a measurement.
    sql::stmt s(db_, path_, store_detail::insert_record_sql(true));
    records([&](const eval_record& r) {
        store_detail::bind_record(s, run_id, r);
        s.run();
        s.reset();
    });
    t.commit();
    return run_id;
}

std::vector<eval_record> results_store::query(const store_query& q) {
    const auto f = store_detail::parse_where(q.where, 2);
    check_params(db_, path_, q.identity, f);
    const std::string& timed = store_detail::timed_sql();
    const int limit_arg = 2 + static_cast<int>(f.args.size());
    sql::stmt s(db_, path_,
                fmt::format("SELECT {} FROM results WHERE {}{}{} ORDER BY {} LIMIT ?{}",
                            q.without_samples ? store_detail::record_columns_without_samples()
                                              : store_detail::record_columns(),
                            in_scope, q.only_timed ? " AND " + timed : "", f.sql,
                            q.stored_order
                                ? std::string("rowid")
                                : fmt::format("CASE WHEN {0} THEN 0 ELSE 1 END, CASE WHEN {0} THEN "
                                              "{1} END, key",
                                              timed, objective_sql),
                            limit_arg));
    s.bind(1, q.identity);
    for (std::size_t i = 0; i < f.args.size(); ++i) s.bind(2 + static_cast<int>(i), f.args[i]);
    s.bind(limit_arg, q.top > 0 ? int64_t{q.top} : int64_t{-1});  // -1: no limit
    std::vector<eval_record> out;
    while (s.step()) out.push_back(store_detail::read_record(s, path_));
    return out;
}

void results_store::set_final_word(int64_t run_id, const std::string& json_text) {
    sql::transaction t(db_, path_);
    sql::stmt s(db_, path_, "UPDATE runs SET final_word = ?2 WHERE run_id = ?1");
    s.bind(1, run_id).bind(2, json_text).run();
    t.commit();
}

std::string results_store::final_word(const std::string& identity_id) {
    sql::stmt s(db_, path_, "SELECT final_word FROM runs WHERE identity = ?1");
    s.bind(1, identity_id);
    return s.step() ? s.text(0) : std::string();
}

std::vector<run_identity> results_store::runs() {
    sql::stmt s(db_, path_, R"(
        SELECT config_path, kernel_name, source_hash, spec_hash, problem, device_name,
               device_uuid, arch, driver_version, nvrtc_version, tool_version, objective, origin
        FROM runs ORDER BY run_id)");
    std::vector<run_identity> out;
    while (s.step()) {
        run_identity id;
        int c = 0;
        for (std::string* v : {&id.config_path, &id.kernel_name, &id.source_hash, &id.spec_hash,
                               &id.problem, &id.device_name, &id.device_uuid, &id.arch}) {
            *v = s.text(c++);
        }
        id.driver_version = s.i32(c++);
        id.nvrtc_version = s.text(c++);
        id.tool_version = s.text(c++);
        id.objective = s.text(c++);
        id.origin = s.text(c++);
        out.push_back(std::move(id));
    }
    return out;
}

std::vector<stored_run> results_store::stored_runs() {
    const std::vector<run_identity> ids = runs();  // same order: by run_id
    sql::stmt s(db_, path_, R"(
        SELECT run_id, first_seen, last_seen,
               (SELECT COUNT(*) FROM results WHERE results.run_id = runs.run_id)
        FROM runs ORDER BY run_id)");
    std::vector<stored_run> out;
    for (std::size_t i = 0; s.step() && i < ids.size(); ++i) {
        stored_run r;
        r.run_id = s.i64(0);
        r.first_seen = s.text(1);
        r.last_seen = s.text(2);
        r.results = s.i64(3);
        r.identity = ids[i];
        out.push_back(std::move(r));
    }
    // Each subject's current run is the one tuned last (a reverted edit makes an older
    // identity current again); the others are superseded by it.
    auto later = [](const stored_run& a, const stored_run& b) {
        return a.last_seen != b.last_seen ? a.last_seen > b.last_seen : a.run_id > b.run_id;
    };
    for (auto& r : out) {
        const stored_run* current = &r;
        for (const auto& o : out)
            if (same_subject(o.identity, r.identity) && later(o, *current)) current = &o;
        if (current != &r) r.superseded_by = current->run_id;
    }
    return out;
}

std::optional<stored_run> results_store::previous_run(const run_identity& current) {
    const std::string id = current.id();
    std::optional<stored_run> best;
    for (auto& r : stored_runs()) {
        if (r.results == 0 || !same_subject(r.identity, current) || r.identity.id() == id) continue;
        if (!best || r.last_seen > best->last_seen ||
            (r.last_seen == best->last_seen && r.run_id > best->run_id))
            best = std::move(r);
    }
    return best;
}

}  // namespace hone
