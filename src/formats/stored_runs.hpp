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

// "3f2a9c01b2d4  vector_add on NVIDIA H100 (N=16777216), 576 configurations, imported: ..."
std::string describe_run(const run_records& run);

// The runs whose identity id starts with `prefix` ("" selects all). Throws input_error when
// the prefix selects none, listing the runs there are.
std::vector<run_records> select_runs(std::vector<run_records> runs, const std::string& prefix,
                                     const std::string& db);

}  // namespace hone
