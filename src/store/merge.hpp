// Joining results databases (the shards of a batch array, the runs of several hosts) into one.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace hone {

struct merge_options {
    // Databases of different kernels are refused (a batch array's shards are of one kernel, so
    // another kernel means a wrong file); with this, each run is kept as its own run.
    bool mixed_kernels = false;
};

// The same configuration of the same run identity stored twice with different results.
struct merge_conflict {
    std::string kernel, problem, key;
    std::string kept_from, dropped_from;  // database paths
    std::string kept_status, dropped_status;
    double kept_median_us = 0, dropped_median_us = 0;
};

struct merge_report {
    int64_t runs = 0;       // runs in the output that received results
    int64_t added = 0;      // results copied
    int64_t identical = 0;  // results the output held already, identical
    std::vector<merge_conflict> conflicts;
};

// Copies every run and result of `inputs` into `output` (created when absent; an existing
// output's results count as its first input). Results are matched by run identity and
// configuration key; rows are copied column by column by name, so that columns this hone does
// not know travel too. Of two different results of one identity and key, the one with a timing
// is kept over one without, else the one met first (the output's, then the inputs' in order).
// Every input is checked before anything is written (input_error: missing, not a hone
// database, damaged, written by a newer hone, another kernel; `output` naming an input), and
// the output is written in one transaction: on any error it is left as it was.
merge_report merge_databases(const std::vector<std::string>& inputs, const std::string& output,
                             const merge_options& opt = {});

}  // namespace hone
