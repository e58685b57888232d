#include <algorithm>

#include "measure/stats.hpp"

namespace hone {
namespace {

// The smallest sample whose order-statistic interval reaches 95% (n = 6: 96.9%).
constexpr std::size_t min_ci_samples = 6;

}  // namespace

relative_ci_criterion::relative_ci_criterion(double rel_precision, std::size_t min_samples,
                                             std::size_t max_samples, double max_time_s,
                                             ci_kind kind)
    : rel_(rel_precision),
      min_(min_samples),
      max_(std::max(max_samples, min_samples)),
      max_time_(max_time_s),
      kind_(kind) {}

bool relative_ci_criterion::converged(const std::vector<double>& samples) const {
    if (samples.size() < std::max(min_, min_ci_samples)) return false;
    const summary s = summarize(samples);
    const bool median_ok = s.rel_ci() <= rel_;
    const bool mean_ok = s.rel_mean_ci() <= rel_;
    switch (kind_) {
        case ci_kind::median:
            return median_ok;
        case ci_kind::mean:
            return mean_ok;
        case ci_kind::either:
            return median_ok || mean_ok;
    }
    return median_ok;
}

bool relative_ci_criterion::at_cap(std::size_t n, double elapsed_s) const {
    // The time cap applies only once min_samples are in: a slow kernel still gets a summary.
    return n >= max_ || (n >= min_ && elapsed_s >= max_time_);
}

bool relative_ci_criterion::capped(const std::vector<double>& samples, double elapsed_s) const {
    return at_cap(samples.size(), elapsed_s) && !converged(samples);
}

bool relative_ci_criterion::done(const std::vector<double>& samples, double elapsed_s) const {
    return at_cap(samples.size(), elapsed_s) || converged(samples);
}

}  // namespace hone
