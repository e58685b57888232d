// Tuned results as an application reads them: per (kernel identity, device, problem sizes) the
// ranked configurations, from a wisdom file (small, diffable JSON written by `hone export
// --wisdom`) or straight from a results database. No third-party type in this header.
#pragma once
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hone/value.hpp"

namespace hone {

// One configuration of a tuned problem, with how it ranked there.
struct tuned_config {
    std::vector<std::pair<std::string, value>> params;  // in the spec's parameter order
    double time_us = 0;                                 // median time of one launch
    double objective = 0;  // the objective's value: time_us, GB/s or GFLOP/s
    double rel = 1;        // relative cost against the best of its problem: >= 1, 1 = the best
    std::string key;       // config_key(params), filled when read
};

// "A=1,B=true,C=\"long long\"" with the parameters sorted by name: a configuration's identity
// across sizes and files, whatever the order of its parameters.
std::string config_key(const std::vector<std::pair<std::string, value>>& params);

// The tuned configurations of one kernel on one device at one set of problem sizes.
struct tuned_entry {
    // The identity it was tuned under (a run's identity in the store).
    std::string kernel;       // the spec's kernel name, "vector_add<{VEC}, {STRIDED}>"
    std::string config;       // the config file it was tuned with, as given then
    std::string source_hash;  // kernel_source_hash() of the source then
    std::string spec_hash;
    std::string device_name, device_uuid, arch;
    int driver_version = 0;
    std::string nvrtc_version, tool_version;
    std::string origin;  // "" = measured by hone; else the tool it was imported from
    std::vector<std::pair<std::string, int64_t>> problem;  // in the spec's order
    std::string objective = "time";                        // time | gbps | gflops
    std::string tuned_at;  // ISO 8601: when its newest result was stored
    // Best first. A database gives every ranked configuration; a wisdom file the best few.
    std::vector<tuned_config> configs;
    std::size_t ranked = 0;  // configurations the run ranked (configs.size() when all kept)
    // A run measured on several GPUs: "final word of GPU 0 (2 interleaved rounds, 5 finalists)"
    // when its best and ties come from the reference GPU's last measurements; "" otherwise.
    std::string decided_by;

    std::string problem_text() const;  // "M=1024,N=512"
};

// The entries of a wisdom file or of a results database (told apart by content). A wisdom file
// that is damaged, of another tool or of another version is an input_error naming the file
// (line:column for JSON syntax); a database that is foreign or damaged is refused by the store
// (env_error). A path that does not exist is an input_error.
std::vector<tuned_entry> read_tuned(const std::string& path);
// Every run of a results database with at least one ranked configuration, all of them kept.
std::vector<tuned_entry> tuned_from_db(const std::string& db_path);
// The same for the runs whose identity ids are in `run_ids` only (hone export --wisdom --run).
std::vector<tuned_entry> tuned_from_db(const std::string& db_path,
                                       const std::set<std::string>& run_ids);
// Parses wisdom text; `path` names it in errors.
std::vector<tuned_entry> parse_wisdom(const std::string& text, const std::string& path);

// Wisdom text: entries sorted by kernel, device, problem; each keeps its best configuration
// and up to `keep - 1` runners-up (keep 0 = all); one configuration a line, so that a re-tune
// shows as a small diff.
std::string format_wisdom(std::vector<tuned_entry> entries, std::size_t keep = 16);
// Writes atomically (a temporary file renamed over `path`). env_error when it cannot.
void write_wisdom(const std::string& path, const std::vector<tuned_entry>& entries,
                  std::size_t keep = 16);

}  // namespace hone
