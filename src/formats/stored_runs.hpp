// The runs of a results database, read whole for export and reports.
#pragma once
#include <string>
#include <vector>

#include "formats/exchange.hpp"

namespace hone {

// Every run of an existing database (env_error when the file does not exist: it is never
// created here), each with its records in stored order (the order they were evaluated);
// without_samples leaves the raw samples out (a report needs only their summary).
std::vector<run_records> read_stored_runs(const std::string& db, bool without_samples = false);

// "run 2 (3f2a9c01b2d4): vector_add on NVIDIA H100 (N=16777216), 576 configurations, imported: ..."
std::string describe_run(const run_records& run);

// Whether `selector` names a run ("" names every run): with by_number, its number as `hone show`
// prints it; else the first characters of its identity id. by_number is selector_is_number of
// the database's runs: a number names that run only, never also ids that begin with its digits.
bool run_selected(int64_t run_id, const std::string& id, const std::string& selector,
                  bool by_number);
// Whether `selector` is the number of one of `run_ids`.
bool selector_is_number(const std::string& selector, const std::vector<int64_t>& run_ids);

// The runs `selector` names (run_selected). Throws input_error when it names none, listing the
// runs there are.
std::vector<run_records> select_runs(std::vector<run_records> runs, const std::string& selector,
                                     const std::string& db);

}  // namespace hone
