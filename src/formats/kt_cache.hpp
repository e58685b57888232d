// Kernel Tuner's cache file (the de-facto raw format of its runs; the FAIR benchmark hub
// publishes brute-forced spaces in it): a header naming the device, kernel and parameters, and
// one record per evaluated configuration, keyed by its comma-joined values.
#pragma once
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hone/value.hpp"

namespace hone {

// The three failure kinds Kernel Tuner writes in place of a time.
inline constexpr const char* kt_failures[] = {"InvalidConfig", "CompilationFailedConfig",
                                              "RuntimeFailedConfig"};

struct kt_entry {
    std::vector<uint32_t> index;   // value index of each parameter, in kt_cache::param_names order
    std::optional<double> time_ms;  // the objective time; nullopt for a failure
    std::string failure;            // one of kt_failures when time_ms is empty
    std::vector<double> times_ms;   // raw samples, when recorded
    double compile_time_ms = 0, verification_time_ms = 0, benchmark_time_ms = 0;
    double framework_time_ms = 0, strategy_time_ms = 0;
    std::string timestamp;                  // as written ("2023-10-19 13:27:52.123456+00:00")
    std::map<std::string, double> metrics;  // every other numeric field ("GFLOP/s", ...)
};

struct kt_cache {
    std::string path;
    std::string device_name, kernel_name;
    std::string objective = "time";  // the header's objective, when given
    std::string problem_size;        // as JSON text ("[4096, 4096]")
    std::string schema_version;      // newer caches carry one; "" when absent
    std::vector<std::string> param_names;        // tune_params_keys
    std::vector<std::vector<value>> param_values;  // tune_params, same order
    std::vector<kt_entry> entries;                 // in file order

    // "16,16,32": Kernel Tuner's key for a configuration.
    std::string key(const kt_entry& e) const;
    value value_of(const kt_entry& e, std::size_t param) const {
        return param_values[param][e.index[param]];
    }
};

// Reads a cache (.json, or gzip'd .json.gz). Throws input_error for a file that is not a Kernel
// Tuner cache, a damaged or truncated one, a record whose parameters do not match the header,
// or a time string other than the three failure kinds; env_error when it cannot be read.
kt_cache read_kt_cache(const std::string& path);
kt_cache parse_kt_cache(const std::string& text, const std::string& path);
// The same from the document already parsed from `text` (parse_json_unordered): an import that
// looked at it first parses the file once.
kt_cache kt_cache_from_json(const nlohmann::json& doc, const std::string& text,
                            const std::string& path);

}  // namespace hone
