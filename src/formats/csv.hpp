// CSV for spreadsheets and pandas (RFC 4180: CRLF line ends; a field with a comma, quote, CR or
// LF is quoted, quotes doubled). One header line, then one row per configuration.
#pragma once
#include <string>
#include <vector>

#include "formats/exchange.hpp"

namespace hone {

// Columns: run, kernel, device, origin (only when there are several runs); every parameter of
// any run; status; median_us, ci_low_us, ci_high_us (95% CI of the median), mean_us, stddev_us,
// min_us, max_us, n; gbps, gflops; registers, spill_bytes, shared_bytes, occupancy;
// compile_ms, sample_mode, timer; one column per metric (named as the metric, "metric:NAME" if
// that name is taken); message; created_at. An empty field is a value the record does not have.
std::string write_csv(const std::vector<const run_records*>& runs);

// One field as RFC 4180 wants it.
std::string csv_field(const std::string& text);

}  // namespace hone
