// The results store: SQLite in WAL mode, one transaction per result, so a run killed at any
// moment loses at most the configuration in flight.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hone/record.hpp"

struct sqlite3;

namespace hone {

struct store_query {
    std::string identity;  // run identity id; empty = all
    std::string where;     // SQL-free filter: "st=ok", "BLOCK>=256", "VEC=4" (params or columns)
    int top = 0;           // 0 = all; ranked by the run's stored objective (as ranked())
    bool only_timed = false;
    bool stored_order = false;     // in evaluation (stored) order, not ranked
    bool without_samples = false;  // leave eval_record::gpu.samples_us empty (faster)
};

// A run as stored, with what `hone show` says about it.
struct stored_run {
    int64_t run_id = 0;
    run_identity identity;
    std::string first_seen, last_seen;  // ISO 8601
    int64_t results = 0;
    // The run of the same subject (same_subject) last tuned, when that is another run: these
    // results were measured on other code, options or tools. 0 = this run is the current one.
    int64_t superseded_by = 0;
};

// read_only: for commands that only read (show, export, report, replay, ...); the file is
// opened with SQLite's read-only flag and never changed, and a missing, empty or foreign file is
// an error instead of a new database.
enum class store_access { read_write, read_only };

class results_store {
  public:
    // Opens or creates. A file that is not a hone database, is corrupted, or has another schema
    // version raises env_error with a clear message; it is never overwritten.
    explicit results_store(const std::string& path, store_access access = store_access::read_write);
    ~results_store();
    results_store(const results_store&) = delete;
    results_store& operator=(const results_store&) = delete;

    // Records the run's identity (idempotent per identity id) and returns the run's row id.
    int64_t begin_run(const run_identity& id);
    // Keys already evaluated for this identity, with their statuses (for resume).
    std::map<std::string, status> done(const std::string& identity_id);
    // Removes the stored results of this identity (--fresh), or only faulted ones.
    void forget(const std::string& identity_id, bool only_faults);
    void put(int64_t run_id, const eval_record& r);
    // A whole run at once (import): the run's row and every record in one transaction, after
    // removing what the identity held before; created_at is stored as given, empty included.
    // Nothing is written when it fails.
    int64_t put_run(const run_identity& id, const std::vector<eval_record>& records);
    // The same with the records made one at a time: `records` calls the function it is given
    // with each (an import of 10^6 records need not hold them all).
    using record_sink = std::function<void(const eval_record&)>;
    int64_t put_run(const run_identity& id, const std::function<void(const record_sink&)>& records);
    std::vector<eval_record> query(const store_query& q);
    // The run's final word (final_word.hpp) as JSON text, "" for none; set replaces it.
    void set_final_word(int64_t run_id, const std::string& json_text);
    std::string final_word(const std::string& identity_id);
    std::vector<run_identity> runs();
    // Every run, oldest first, with its number, times, result count and what supersedes it.
    std::vector<stored_run> stored_runs();
    // The run with results that `current` replaces: of the same subject, another id, the last
    // tuned. nullopt when there is none (a first run, or the same identity resumes).
    std::optional<stored_run> previous_run(const run_identity& current);
    const std::string& path() const { return path_; }

  private:
    std::string path_;
    bool tidy_wal_ = false;  // a reader that removes the -wal and -shm files it made
    sqlite3* db_ = nullptr;
};

}  // namespace hone
