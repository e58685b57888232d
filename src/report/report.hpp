// What the user reads about a run: ranked tables, status counts, the winner's reproduction
// snippet, JSON for machines and the one-line progress display. Pure functions over records,
// returning text, so that the CLI only prints.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hone/error.hpp"
#include "hone/record.hpp"

namespace hone {

// What "best" means (spec.metrics.objective): lowest time, or highest GB/s or GFLOP/s.
enum class rank_by { time, gbps, gflops };
// Throws input_error at `pos` for anything but time, gbps, gflops.
rank_by parse_rank_by(const std::string& text, const source_pos& pos = {});

// The objective a run was tuned for, as stored with it (time where none is stored).
rank_by stored_rank_by(const run_identity& id);
// What ranks a record, smaller is better: the median time, or the negated GB/s or GFLOP/s.
// nullopt when the record has no timing or no such metric.
std::optional<double> objective_score(const eval_record& r, rank_by by);

// The records that can be ranked (has_timing), best first (objective_score; records without
// the metric last); equal scores in key order.
std::vector<const eval_record*> ranked(const std::vector<eval_record>& records, rank_by by);

struct table_options {
    std::vector<std::string> param_names;  // one column each, in this order; empty = the
                                           // names of the first record's params
    std::size_t top = 10;                  // rows; 0 = every ranked record
    rank_by by = rank_by::time;            // the run's objective: stored_rank_by(identity)
};

// Columns: rank, params, median [CI], n, sample, timer, GB/s, GFLOP/s (when any row has them),
// regs, spill, smem, occupancy, status, and "tie" on rows whose CI overlaps the best's. Ends with a
// newline; "no configuration has a timing\n" when nothing ranks.
std::string best_table(const std::vector<eval_record>& records, const table_options& opt);

// The records without a timing (failures), in store order: params, status and the first line of
// the message, at most opt.top rows (0 = all). "" when every record has a timing.
std::string failure_table(const std::vector<eval_record>& records, const table_options& opt);

// "576 configurations: 560 ok, 8 not_converged, 8 compile_error" (statuses in enum order).
std::string status_summary(const std::vector<eval_record>& records);
// The same from counts: records of each status, indexed by status.
std::string status_summary(std::size_t records, const std::vector<std::size_t>& by_status);

// The winner as a `reference:` YAML line and the command that measures it alone, e.g.
//   reference: {BLOCK: 256, IDX_T: "int"}
//   hone tune configs/a.yaml --only 'BLOCK=256,IDX_T=int' --set N=4096
// `overrides` are the run's --set values, so that the command measures the same problem.
std::string reproduce_snippet(const eval_record& best, const std::string& config_path,
                              const std::map<std::string, int64_t>& overrides = {});

// Every field of the records (times in µs; metrics null where undefined), in store order.
nlohmann::ordered_json to_json(const std::vector<eval_record>& records);
nlohmann::ordered_json to_json(const eval_record& record);  // one element of that list
nlohmann::ordered_json to_json(const run_identity& id);
// j as an element of a JSON array printed with dump(2): its own dump(2) indented one level, so
// that elements rendered one by one (each run's as it ends) join into the array's bytes.
std::string json_array_element(const nlohmann::ordered_json& j);
// "[", the elements (json_array_element's; empty ones skipped) separated by ",", "]": what
// dump(2) of the array prints.
std::string json_array_text(const std::vector<std::string>& elements);

struct progress_info {
    std::size_t done = 0, total = 0, failures = 0;
    std::optional<double> best_median_us;
    std::string best_value;  // the best's figure when the objective is a rate: "2819 GB/s"
    std::string best_key;
    double eta_s = -1;               // < 0: unknown
    std::size_t measuring = 0;       // handed to the GPU side, not back yet
    std::size_t compiled_ahead = 0;  // compiled, waiting for the GPU
    std::size_t compiling = 0;       // in the compile pool
    std::size_t width = 100;         // terminal columns: the best key is shortened to fit
};

// "[ 123/576]  21% | 3 failed | best 78.8 µs (BLOCK=256,...) | ETA 0:42 | measuring 2,
// compiled ahead 8, compiling 2": the pipeline from the GPU back, to tell which end waits.
std::string progress_line(const progress_info& p);

// Adaptive units with three significant digits: "812 ns", "78.8 µs", "1.25 ms", "12.5 s".
std::string format_duration_us(double us);
// "0:42", "12:05", "1:02:03".
std::string format_eta(double seconds);
// Columns a UTF-8 string takes on a terminal (one per code point: no wide characters here).
std::size_t display_width(const std::string& s);
// Shortens to at most `width` columns, ending with "…" when cut.
std::string truncate_text(const std::string& s, std::size_t width);

}  // namespace hone
