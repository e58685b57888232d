// CSV for spreadsheets and pandas (RFC 4180: CRLF line ends; a field with a comma, quote, CR or
// LF is quoted, quotes doubled; a text field that would be read as a formula starts with ').
// One header line, then one row per configuration.
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

// A text cell that a spreadsheet would evaluate as a formula (it starts with =, +, -, @, tab or
// carriage return, and is not a number such as -1.5) gets a leading apostrophe, which
// spreadsheets show as text (OWASP's rule against CSV injection); anything else is unchanged.
std::string spreadsheet_safe(const std::string& text);

// One field as RFC 4180 wants it, made spreadsheet_safe first.
std::string csv_field(const std::string& text);

}  // namespace hone
