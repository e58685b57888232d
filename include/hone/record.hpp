// One evaluated configuration as stored and reported, and the identity of a tuning run.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "hone/compile_result.hpp"
#include "hone/job_result.hpp"
#include "hone/status.hpp"
#include "hone/value.hpp"

namespace hone {

// What makes results comparable. Two runs with the same id() resume each other.
struct run_identity {
    std::string config_path;
    std::string kernel_name;
    std::string source_hash;  // kernel_source_hash(): the source and every file it includes
    std::string spec_hash;    // digest of everything in the spec that changes results
    std::string problem;      // "N=1048576,M=4"
    std::string device_name;
    std::string device_uuid;
    std::string arch;
    int driver_version = 0;
    std::string nvrtc_version;
    std::string tool_version;
    // Who measured: "" for hone itself, else the tool and file the results were imported from
    // ("kernel_tuner 1.0 (gemm_RTX_2080_Ti.json.gz)"). Part of the id, so imported runs never
    // resume or mix with measured ones.
    std::string origin;
    std::string id() const;  // digest of all of the above except config_path
    // What ranks the run's results: time | gbps | gflops (spec.metrics.objective). Stored with
    // the run, not part of the id: the measurements do not depend on it.
    std::string objective = "time";
};

// Whether two runs measured the same thing where it matters to a user: the same config file,
// kernel, problem sizes, device and origin. Such runs with different ids are one subject's
// older and newer results: the newer supersedes the older.
bool same_subject(const run_identity& a, const run_identity& b);
// Why `newer` cannot resume `older` of the same subject, for the user: "source changed since
// the stored results: re-measuring", "source and NVRTC (12.9 -> 13.0) changed ...".
std::string describe_change(const run_identity& older, const run_identity& newer);

struct eval_record {
    std::string key;  // config key
    std::vector<std::pair<std::string, value>> params;
    status st = status::ok;
    std::string message;
    std::string compile_log;  // kept for compile_error / compile_timeout
    double compile_ms = 0;
    bool compile_cached = false;
    resource_usage resources;     // from ptxas
    job_result gpu;               // function attributes, timing, samples
    double gbps = 0, gflops = 0;  // from metrics at the median time; 0 = not defined
    // Further named metrics (imported results: "GFLOP/s", "energy", ...), stored as given.
    std::map<std::string, double> metrics;
    int dynamic_shared_bytes = 0;
    std::array<uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};
    std::string created_at;  // ISO 8601, filled by the store
    // The GPU that measured it (its ordinal in the measuring process and its UUID); -1 and ""
    // where no GPU ran it (a compile failure) or the record predates schema 3.
    int device = -1;
    std::string device_uuid;
};

std::string tool_version();  // "0.1.0"

using param_list = std::vector<std::pair<std::string, value>>;

}  // namespace hone
