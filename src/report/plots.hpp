// The charts of `hone report`, each a self-contained inline <svg> with its axes labelled, its
// units named and native tooltips (<title>): no script is needed to read them.
#pragma once
#include <string>
#include <vector>

#include "report/analysis.hpp"

namespace hone::report_detail {

// How an objective is shown on an axis: display value = raw * factor.
struct axis_unit {
    std::string label;        // "median time per launch (ms)"
    std::string short_label;  // "median time (ms)"
    std::string unit;         // "ms"
    double factor = 1;
};
// Time in µs shown in ns, µs, ms or s, whichever suits `typical_us`; GB/s, GFLOP/s as they are.
axis_unit objective_unit(rank_by by, double typical);

// A strip plot: for each value of one parameter, every configuration's objective as a jittered
// dot, with a box (quartiles, median line, whiskers to min and max); one series per run, side
// by side within each value's band.
struct strip_series {
    std::string label, color;
    std::vector<std::vector<double>> by_value;  // raw objective values per value index
    std::vector<std::size_t> failed_by_value;   // configurations without a score
};
std::string strip_plot(const std::string& param, const std::vector<std::string>& value_labels,
                       const std::vector<strip_series>& series, const axis_unit& unit);

// The comparison matrix of one parameter as a heat map: blue where the row value is faster
// (better) than the column value, red where slower; the median ratio written in each cell when
// it fits, and in every cell's tooltip with the number of matched pairs and the best-vs-best
// ratio.
std::string heat_map(const std::string& param, const std::vector<std::string>& value_labels,
                     const comparison& c, std::size_t& gradient_ids);

// Horizontal bars, one group per row label, one bar per series (values in [0, 1], shown as %).
std::string sensitivity_chart(const std::vector<std::string>& rows,
                              const std::vector<std::vector<double>>& per_series,
                              const std::vector<std::string>& colors);

// One stacked bar per run: seconds spent in each part.
struct stacked_row {
    std::string label;
    std::vector<double> parts;  // seconds, one per part name
};
std::string stacked_bars(const std::vector<stacked_row>& rows,
                         const std::vector<std::string>& part_names);

// Best objective so far against evaluations in stored order, beside the exact expectation of
// random search over the same records; both in raw objective units.
std::string progress_plot(const std::vector<double>& best_so_far,
                          const std::vector<std::size_t>& random_ks,
                          const std::vector<double>& random_best, const axis_unit& unit,
                          const std::string& color);

// Evaluation counts at which to draw the random-search curve: every count up to 200, else
// about 150 spread logarithmically (the last is n).
std::vector<std::size_t> curve_points(std::size_t n);

}  // namespace hone::report_detail
