#include <algorithm>
#include <cmath>

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
            return median_ok || mean_ok || rel_trimmed_mean_ci(samples) <= rel_;
    }
    return median_ok;
}

std::size_t relative_ci_criterion::wanted(const std::vector<double>& samples) const {
    const std::size_t n = samples.size();
    if (n < min_ci_samples) return 0;
    const summary s = summarize(samples);
    const double median_w = s.rel_ci(), mean_w = s.rel_mean_ci();
    const double w = kind_ == ci_kind::median ? median_w
                     : kind_ == ci_kind::mean
                         ? mean_w
                         : std::min({median_w, mean_w, rel_trimmed_mean_ci(samples)});
    if (!(w > rel_)) return n;
    if (!(rel_ > 0) || !std::isfinite(w)) return max_;
    const double want = std::ceil(static_cast<double>(n) * (w / rel_) * (w / rel_));
    return want >= static_cast<double>(max_) ? max_ : static_cast<std::size_t>(want);
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
