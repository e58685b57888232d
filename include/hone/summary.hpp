// A timing summary as results carry it: median, mean, spread and 95% intervals (microseconds).
#pragma once
#include <cstddef>

namespace hone {

struct summary {
    std::size_t n = 0;
    double median = 0, mean = 0, stddev = 0, min = 0, max = 0;
    double ci_low = 0, ci_high = 0;  // 95% confidence interval of the median (order statistics)
    double mean_ci_half = 0;         // 95% half-width of the mean (Student t)
    double rel_ci() const;           // (ci_high - ci_low) / 2 / median
    double rel_mean_ci() const;      // mean_ci_half / mean
};

// True when two intervals overlap (ties in ranking).
bool overlaps(const summary& a, const summary& b);

}  // namespace hone
