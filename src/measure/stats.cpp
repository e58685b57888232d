#include "measure/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "common/distributions.hpp"

namespace hone {
namespace {

// Above this many samples the binomial ranks come from the normal approximation, which is
// within one rank of the exact ones there.
constexpr std::size_t exact_rank_limit = 100;

// P(X <= k) for X ~ binomial(n, 1/2).
double binomial_half_cdf(std::size_t k, std::size_t n) {
    if (k >= n) return 1.0;
    return regularized_beta(0.5, static_cast<double>(n - k), static_cast<double>(k) + 1.0);
}

double median_of_sorted(const std::vector<double>& s) {
    const std::size_t n = s.size();
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

// summarize() runs after every sample once min_samples are in (the stopping rule), and its two
// intervals cost ~60 evaluations of the incomplete beta function (~10 us, as long as a host
// round trip of a flushed sample): they depend on n alone, so they are computed once per n.
constexpr double summary_confidence = 0.95;
constexpr std::size_t cached_sizes = 4096;

struct interval_constants {
    std::size_t lo = 0, hi = 0;  // 0-based ranks of the median's interval
    double t = 0;                // Student's t quantile for n - 1 degrees of freedom (n >= 2)
};

interval_constants compute_constants(std::size_t n) {
    interval_constants c;
    median_ci_ranks(n, summary_confidence, c.lo, c.hi);
    if (n >= 2) c.t = student_t_quantile(n - 1, summary_confidence);
    return c;
}

interval_constants constants_for(std::size_t n) {
    if (n >= cached_sizes) return compute_constants(n);
    thread_local std::vector<std::optional<interval_constants>> cache;
    if (cache.size() <= n) cache.resize(n + 1);
    auto& c = cache[n];
    if (!c) c = compute_constants(n);
    return *c;
}

}  // namespace

double summary::rel_ci() const {
    const double half = (ci_high - ci_low) / 2.0;
    if (half == 0.0) return 0.0;
    return median > 0.0 ? half / median : std::numeric_limits<double>::infinity();
}

double summary::rel_mean_ci() const {
    if (mean_ci_half == 0.0) return 0.0;
    return mean > 0.0 ? mean_ci_half / mean : std::numeric_limits<double>::infinity();
}

void median_ci_ranks(std::size_t n, double confidence, std::size_t& lo, std::size_t& hi) {
    if (n == 0) throw std::invalid_argument("median_ci_ranks: no samples");
    const double alpha_half = (1.0 - confidence) / 2.0;
    // k: the 1-based rank of the lower bound, the largest with P(X < k) <= alpha/2; the
    // interval [x_(k), x_(n+1-k)] then covers the median with probability >= confidence.
    std::size_t k = 0;
    if (n > exact_rank_limit) {
        const double z = normal_quantile(1.0 - alpha_half);
        k = static_cast<std::size_t>(std::floor((static_cast<double>(n) + 1.0) / 2.0 -
                                                z * std::sqrt(static_cast<double>(n)) / 2.0));
    } else {
        while (k < n / 2 && binomial_half_cdf(k, n) <= alpha_half) ++k;
    }
    // Too few samples for the confidence (k == 0): the whole range, which covers less.
    k = std::max<std::size_t>(k, 1);
    lo = k - 1;
    hi = n - k;
}

summary summarize(const std::vector<double>& samples) {
    summary s;
    s.n = samples.size();
    if (s.n == 0) return s;
    std::vector<double> sorted = samples;
    std::sort(sorted.begin(), sorted.end());
    s.min = sorted.front();
    s.max = sorted.back();
    s.median = median_of_sorted(sorted);
    s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(s.n);
    const interval_constants c = constants_for(s.n);
    s.ci_low = sorted[c.lo];
    s.ci_high = sorted[c.hi];
    if (s.n < 2) return s;
    double ss = 0.0;
    for (const double x : sorted) ss += (x - s.mean) * (x - s.mean);
    s.stddev = std::sqrt(ss / static_cast<double>(s.n - 1));
    s.mean_ci_half = c.t * s.stddev / std::sqrt(static_cast<double>(s.n));
    return s;
}

double rel_trimmed_mean_ci(const std::vector<double>& samples) {
    constexpr double trim = 0.2;
    const std::size_t n = samples.size();
    if (n < 6) return std::numeric_limits<double>::infinity();
    std::vector<double> s = samples;
    std::sort(s.begin(), s.end());
    const auto k = static_cast<std::size_t>(std::floor(trim * static_cast<double>(n)));
    const std::size_t h = n - 2 * k;
    double sum = 0.0;
    for (std::size_t i = k; i < n - k; ++i) sum += s[i];
    const double tmean = sum / static_cast<double>(h);
    if (!(tmean > 0.0)) return std::numeric_limits<double>::infinity();
    // The winsorized sample: the k lowest set to s[k], the k highest to s[n-k-1].
    double wsum = 0.0;
    for (std::size_t i = 0; i < n; ++i) wsum += s[std::clamp(i, k, n - k - 1)];
    const double wmean = wsum / static_cast<double>(n);
    double ss = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        const double d = s[std::clamp(i, k, n - k - 1)] - wmean;
        ss += d * d;
    }
    const double sw = std::sqrt(ss / static_cast<double>(n - 1));
    const double se = sw / ((1.0 - 2.0 * trim) * std::sqrt(static_cast<double>(n)));
    return student_t_quantile(h - 1, summary_confidence) * se / tmean;
}

bool overlaps(const summary& a, const summary& b) {
    return a.ci_low <= b.ci_high && b.ci_low <= a.ci_high;
}

}  // namespace hone
