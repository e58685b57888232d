#include "store/schema.hpp"

#include <fmt/format.h>

#include "hone/record.hpp"
#include "store/open.hpp"
#include "store/sqlite_util.hpp"

namespace hone::store_detail {
namespace {

// One row per run identity: tuning again with the same identity resumes, and reuses the row.
constexpr const char* runs_table = R"(
CREATE TABLE IF NOT EXISTS runs (
    run_id INTEGER PRIMARY KEY,
    identity TEXT NOT NULL UNIQUE,
    config_path TEXT NOT NULL,
    kernel_name TEXT NOT NULL,
    source_hash TEXT NOT NULL,
    spec_hash TEXT NOT NULL,
    problem TEXT NOT NULL,
    device_name TEXT NOT NULL,
    device_uuid TEXT NOT NULL,
    arch TEXT NOT NULL,
    driver_version INTEGER NOT NULL,
    nvrtc_version TEXT NOT NULL,
    tool_version TEXT NOT NULL,
    first_seen TEXT NOT NULL,
    last_seen TEXT NOT NULL,
    objective TEXT NOT NULL DEFAULT 'time',
    origin TEXT NOT NULL DEFAULT '',
    final_word TEXT NOT NULL DEFAULT ''
))";

// Times are in microseconds; -1 means "not reported" as in resource_usage and job_result.
constexpr const char* results_table = R"(
CREATE TABLE IF NOT EXISTS results (
    run_id INTEGER NOT NULL REFERENCES runs(run_id),
    key TEXT NOT NULL,
    params TEXT NOT NULL,
    status TEXT NOT NULL,
    message TEXT NOT NULL,
    output TEXT NOT NULL,
    compile_log TEXT NOT NULL,
    compile_ms REAL NOT NULL,
    compile_cached INTEGER NOT NULL,
    ptx_regs INTEGER NOT NULL,
    spill_store INTEGER NOT NULL,
    spill_load INTEGER NOT NULL,
    stack_bytes INTEGER NOT NULL,
    ptx_shared_static INTEGER NOT NULL,
    const_bytes INTEGER NOT NULL,
    num_regs INTEGER NOT NULL,
    local_bytes INTEGER NOT NULL,
    static_shared INTEGER NOT NULL,
    max_threads_per_block INTEGER NOT NULL,
    active_blocks_per_sm INTEGER NOT NULL,
    occupancy REAL NOT NULL,
    sample_mode TEXT NOT NULL,
    n INTEGER NOT NULL,
    median REAL NOT NULL,
    mean REAL NOT NULL,
    stddev REAL NOT NULL,
    min REAL NOT NULL,
    max REAL NOT NULL,
    ci_low REAL NOT NULL,
    ci_high REAL NOT NULL,
    mean_ci_half REAL NOT NULL,
    gpu_busy_s REAL NOT NULL,
    wall_s REAL NOT NULL,
    gbps REAL NOT NULL,
    gflops REAL NOT NULL,
    grid_x INTEGER NOT NULL, grid_y INTEGER NOT NULL, grid_z INTEGER NOT NULL,
    block_x INTEGER NOT NULL, block_y INTEGER NOT NULL, block_z INTEGER NOT NULL,
    dynamic_shared INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    samples TEXT NOT NULL,
    timer TEXT NOT NULL DEFAULT '',
    steps TEXT NOT NULL DEFAULT '{}',
    metrics TEXT NOT NULL DEFAULT '{}',
    device INTEGER NOT NULL DEFAULT -1,
    device_uuid TEXT NOT NULL DEFAULT '',
    telemetry TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (run_id, key)
))";

// Schema 1 lacked the run's objective and origin, and each result's timer, job steps and
// extra metrics: the columns are added with their defaults.
constexpr const char* from_schema_1[] = {
    "ALTER TABLE runs ADD COLUMN objective TEXT NOT NULL DEFAULT 'time'",
    "ALTER TABLE runs ADD COLUMN origin TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE results ADD COLUMN timer TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE results ADD COLUMN steps TEXT NOT NULL DEFAULT '{}'",
    "ALTER TABLE results ADD COLUMN metrics TEXT NOT NULL DEFAULT '{}'",
};

// Schema 2 lacked each result's GPU (a run may measure on several) and its state while
// measured, and the run's final word (final_word.hpp).
constexpr const char* from_schema_2[] = {
    "ALTER TABLE runs ADD COLUMN final_word TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE results ADD COLUMN device INTEGER NOT NULL DEFAULT -1",
    "ALTER TABLE results ADD COLUMN device_uuid TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE results ADD COLUMN telemetry TEXT NOT NULL DEFAULT '{}'",
};

}  // namespace

void create_schema(sqlite3* db, const std::string& path) {
    sql::transaction t(db, path);
    // Pragmas cannot be bound: the values are this file's own constants.
    sql::exec(db, path, fmt::format("PRAGMA application_id = {}", application_id).c_str());
    sql::exec(db, path, fmt::format("PRAGMA user_version = {}", schema_version).c_str());
    sql::exec(db, path,
              "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    sql::exec(db, path, runs_table);
    sql::exec(db, path, results_table);
    const std::string version = std::to_string(schema_version);
    for (const auto& [k, v] : {std::pair<const char*, std::string>{"format", meta_format},
                               {"schema", version},
                               {"created_by", "hone " + tool_version()}}) {
        sql::stmt s(db, path, "INSERT OR IGNORE INTO meta (key, value) VALUES (?1, ?2)");
        s.bind(1, k).bind(2, v).run();
    }
    t.commit();
}

void upgrade_schema(sqlite3* db, const std::string& path, int from_version) {
    sql::transaction t(db, path);
    if (from_version <= 1)
        for (const char* step : from_schema_1) sql::exec(db, path, step);
    if (from_version <= 2)
        for (const char* step : from_schema_2) sql::exec(db, path, step);
    sql::exec(db, path, fmt::format("PRAGMA user_version = {}", schema_version).c_str());
    sql::stmt s(db, path, "UPDATE meta SET value = ?1 WHERE key = 'schema'");
    s.bind(1, std::to_string(schema_version)).run();
    t.commit();
}

}  // namespace hone::store_detail
