// Kernel Tuner's cache file (the de-facto raw format of its runs; the FAIR benchmark hub
// publishes brute-forced spaces in it): a header naming the device, kernel and parameters, and
// one record per evaluated configuration, keyed by its comma-joined values.
#pragma once
#include <functional>
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
    std::vector<uint32_t> index;    // value index of each parameter, in kt_cache::param_names order
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
    std::string objective = "time";                // the header's objective, when given
    std::string problem_size;                      // as JSON text ("[4096, 4096]")
    std::string schema_version;                    // newer caches carry one; "" when absent
    std::vector<std::string> param_names;          // tune_params_keys
    std::vector<std::vector<value>> param_values;  // tune_params, same order
    std::vector<kt_entry> entries;                 // in file order
    std::size_t record_count = 0;  // records in the file, known before the first is read
    bool left_open = false;        // read as closed after its last record (closed_open_cache)

    // "16,16,32": Kernel Tuner's key for a configuration.
    std::string key(const kt_entry& e) const;
    value value_of(const kt_entry& e, std::size_t param) const {
        return param_values[param][e.index[param]];
    }
};

// Kernel Tuner's key of the values at `index` of each parameter ("16,16,32", True/False, reals
// as Python's repr): kt_cache::key.
std::string kt_key(const std::vector<std::vector<value>>& values,
                   const std::vector<uint32_t>& index);

// Kernel Tuner appends each record and a comma as it measures, and writes the closing braces
// only when its run ends: the cache of a run that stopped early, or is still running, ends
// inside "cache". Kernel Tuner reads such a file as if closed after its last record, and so do
// the readers below (kt_cache::left_open says so). Returns `text` closed so, or nullopt where it
// does not end inside the object of records of a top-level object (a closed file, or one cut
// inside a record, which stays a syntax error).
std::optional<std::string> closed_open_cache(const std::string& text);
// The same in place, for a reader that owns the text (no copy): whether it was open.
bool close_open_cache(std::string& text);

// Reads a cache (.json, or gzip'd .json.gz). Throws input_error for a file that is not a Kernel
// Tuner cache, a damaged or truncated one, a record whose parameters do not match the header,
// or a time string other than the three failure kinds; env_error when it cannot be read.
kt_cache read_kt_cache(const std::string& path);
kt_cache parse_kt_cache(const std::string& text, const std::string& path);

// Called with each record of a cache as it is read: the header (no entries), the record's key,
// its JSON object and what the reader made of it.
using kt_record_fn = std::function<void(const kt_cache& header, const std::string& key,
                                        const nlohmann::json& record, kt_entry&& entry)>;
// Reads the header of `text`, then each record in file order, passing it to `each` and keeping
// none: memory is that of the text, the header and one record, whatever the number of records
// (a document of the whole cache costs some 25 times the text). Returns the header; the same
// checks and errors as parse_kt_cache.
kt_cache scan_kt_cache(const std::string& text, const std::string& path, const kt_record_fn& each);
// The records of a text that scan_kt_cache has read whole before, with the header it returned,
// read again in one pass (the header and the checks of the whole text are not repeated).
void scan_kt_records(const std::string& text, const std::string& path, const kt_cache& header,
                     const kt_record_fn& each);

}  // namespace hone
