// T4, the autotuning community's results format (JSON Schema in ../shared/formats and in Kernel
// Tuner's schema/T4/1.0.0): one result per configuration with its configuration, times
// (compilation, raw runtimes, validation, ...), invalidity, correctness and measurements.
//
// hone writes times in milliseconds (metadata.timeunit, as Kernel Tuner does), the run's identity
// under metadata.identity, and per result a "hone" object with what T4 has no field for (the
// exact status, message, logs, job steps, resources, metrics), so that a file hone wrote reads
// back into the same records. Files of other tools are read from the schema's fields alone.
#pragma once
#include <string>

#include "formats/exchange.hpp"

namespace hone {

inline constexpr const char* t4_schema_version = "1.0.0";

// The run as a T4 results document (JSON text, ends with a newline).
std::string write_t4(const run_records& run);

// Reads T4 results. Throws input_error (with the position of the offending result) for another
// schema major version, a missing required field (configuration, times, invalidity,
// correctness), a value of the wrong type, an unknown invalidity, or a configuration that lists
// other parameters than the first result's or appears twice.
run_records read_t4_text(const std::string& text, const std::string& path);

}  // namespace hone
