// Statistics of timing samples: pure functions, no CUDA.
#pragma once
#include <cstddef>
#include <memory>
#include <vector>

#include "common/distributions.hpp"
#include "hone/summary.hpp"

namespace hone {

summary summarize(const std::vector<double>& samples);
// Distribution-free 95% CI of the median: order statistics from the binomial(n, 1/2).
// Returns 0-based indices into the sorted sample; needs n >= 6 for a finite interval (below
// that: the whole range, which covers less). Exact ranks up to n = 100, normal approx above.
void median_ci_ranks(std::size_t n, double confidence, std::size_t& lo, std::size_t& hi);
// The 20%-trimmed mean of the samples and the half-width of its 95% CI relative to it (Tukey and
// McLaughlin: the winsorized standard deviation over (1 - 2g) sqrt(n), Student t on the
// trimmed count less one); infinity below 6 samples or at a mean of 0. Robust to outliers like
// the median, continuous in the share of a bimodal sample's modes like the mean.
double rel_trimmed_mean_ci(const std::vector<double>& samples);

// Pluggable stopping criteria, in the manner of NVBench.
class stopping_criterion {
  public:
    virtual ~stopping_criterion() = default;
    // True when no more samples are needed.
    virtual bool done(const std::vector<double>& samples, double elapsed_s) const = 0;
    // True when done() stopped on a cap (count or time) rather than on precision.
    virtual bool capped(const std::vector<double>& samples, double elapsed_s) const = 0;
};

// Which interval must reach the target. The median's order-statistic interval cannot narrow
// below the gap between the modes of a bimodal sample, and short kernels give one (H100 event
// times cluster ~0.16 us apart around 4.2 us; the range profiler's 2.4 us kernels too), while
// the mean's keeps narrowing as 1/sqrt(n) but widens with every outlier: `either` stops when
// the median's, the mean's or the 20%-trimmed mean's (which does neither) is there.
enum class ci_kind { median, mean, either };

// Stops when the 95% CI (of the median, the mean, or `either`'s three) has half-width <=
// rel_precision times the estimate, after at least min_samples (and never below 6); caps at
// max_samples, and at max_time_s once min_samples are in.
class relative_ci_criterion : public stopping_criterion {
  public:
    relative_ci_criterion(double rel_precision, std::size_t min_samples, std::size_t max_samples,
                          double max_time_s, ci_kind kind = ci_kind::median);
    bool done(const std::vector<double>& samples, double elapsed_s) const override;
    bool capped(const std::vector<double>& samples, double elapsed_s) const override;
    bool converged(const std::vector<double>& samples) const;
    // The sample count at which the interval would reach the target, from its width now and
    // its 1/sqrt(n) narrowing (the narrowest of the intervals under `either`); n when it is
    // there, 0 below the 6 samples an interval needs.
    std::size_t wanted(const std::vector<double>& samples) const;

  private:
    bool at_cap(std::size_t n, double elapsed_s) const;

    double rel_;
    std::size_t min_, max_;
    double max_time_;
    ci_kind kind_;
};

}  // namespace hone
