// Statistics of timing samples: summaries, confidence intervals, the stopping rule.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "common/distributions.hpp"
#include "measure/stats.hpp"

using namespace hone;

namespace {

std::vector<double> normal_sample(std::size_t n, double mean, double sd, uint64_t seed) {
    std::mt19937_64 gen(seed);
    std::normal_distribution<double> dist(mean, sd);
    std::vector<double> v(n);
    for (auto& x : v) x = dist(gen);
    return v;
}

// Feeds samples one at a time, as a measurement loop does; returns how many were taken.
std::size_t samples_until_done(const relative_ci_criterion& c, const std::vector<double>& pool) {
    std::vector<double> taken;
    for (const double x : pool) {
        taken.push_back(x);
        if (c.done(taken, 0.0)) break;
    }
    return taken.size();
}

}  // namespace

TEST_CASE("summarize computes the usual statistics") {
    const summary s = summarize({5, 2, 4, 4, 9, 4, 5, 7});
    CHECK(s.n == 8);
    CHECK(s.median == 4.5);
    CHECK(s.mean == 5.0);
    CHECK(s.stddev == doctest::Approx(std::sqrt(32.0 / 7.0)));
    CHECK(s.min == 2);
    CHECK(s.max == 9);
    // n = 8: ranks 1 and 8 (1-based) are the 95% interval.
    CHECK(s.ci_low == 2);
    CHECK(s.ci_high == 9);
    CHECK(s.mean_ci_half == doctest::Approx(2.365 * s.stddev / std::sqrt(8.0)).epsilon(1e-3));
    CHECK(summarize({}).n == 0);
    CHECK(summarize({3}).median == 3);
}

TEST_CASE("summarize's intervals match their formulas at every size, first call and repeated") {
    // summarize keeps the interval constants of each n; a constant kept under the wrong n
    // would show here (sizes visited in an order that is neither rising nor falling).
    for (int pass = 0; pass < 2; ++pass) {
        for (std::size_t n : {2u, 150u, 7u, 6u, 99u, 100u, 101u, 3u, 5000u, 31u, 1u}) {
            std::vector<double> v(n);
            for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<double>((i * 37) % n);
            const summary s = summarize(v);
            std::size_t lo = 0, hi = 0;
            median_ci_ranks(n, 0.95, lo, hi);
            CHECK(s.ci_low == static_cast<double>(lo));  // v holds 0..n-1
            CHECK(s.ci_high == static_cast<double>(hi));
            if (n >= 2)
                CHECK(s.mean_ci_half == doctest::Approx(student_t_quantile(n - 1, 0.95) * s.stddev /
                                                        std::sqrt(double(n))));
        }
    }
}

TEST_CASE("median CI ranks match the exact binomial values") {
    std::size_t lo = 0, hi = 0;
    median_ci_ranks(10, 0.95, lo, hi);  // P(X <= 1) = 11/1024 <= 0.025 < P(X <= 2) = 56/1024
    CHECK(lo == 1);
    CHECK(hi == 8);
    median_ci_ranks(20, 0.95, lo, hi);  // P(X <= 5) = 0.0207 <= 0.025 < P(X <= 6) = 0.0577
    CHECK(lo == 5);
    CHECK(hi == 14);
    median_ci_ranks(6, 0.95, lo, hi);  // P(X = 0) = 1/64: the smallest n with a 95% interval
    CHECK(lo == 0);
    CHECK(hi == 5);
    median_ci_ranks(5, 0.95, lo, hi);  // too few: the whole range
    CHECK(lo == 0);
    CHECK(hi == 4);
    median_ci_ranks(100, 0.95, lo, hi);  // P(X <= 39) = 0.0176 <= 0.025 < P(X <= 40) = 0.0284
    CHECK(lo == 39);
    CHECK(hi == 60);
    // Past the exact range the normal approximation continues smoothly.
    median_ci_ranks(101, 0.95, lo, hi);
    CHECK(lo == 40);
    CHECK(hi == 60);
    median_ci_ranks(10000, 0.95, lo, hi);
    CHECK(lo == 4901);
    CHECK(hi == 5098);
}

TEST_CASE("quantiles of the normal and Student t distributions") {
    CHECK(normal_quantile(0.975) == doctest::Approx(1.959964).epsilon(1e-6));
    CHECK(normal_quantile(0.005) == doctest::Approx(-2.575829).epsilon(1e-6));
    CHECK(student_t_quantile(1, 0.95) == doctest::Approx(12.7062).epsilon(1e-4));
    CHECK(student_t_quantile(2, 0.95) == doctest::Approx(4.3027).epsilon(1e-4));
    CHECK(student_t_quantile(10, 0.95) == doctest::Approx(2.2281).epsilon(1e-4));
    CHECK(student_t_quantile(30, 0.95) == doctest::Approx(2.0423).epsilon(1e-4));
    CHECK(student_t_quantile(1000, 0.95) == doctest::Approx(1.9623).epsilon(1e-4));
    CHECK(student_t_quantile(5, 0.99) == doctest::Approx(4.0321).epsilon(1e-4));
    CHECK(regularized_beta(0.5, 3, 3) == doctest::Approx(0.5));
    CHECK(regularized_beta(0.3, 1, 1) == doctest::Approx(0.3));
}

TEST_CASE("noisier samples need more of them, never fewer than min_samples") {
    const relative_ci_criterion c(0.01, 10, 100000, 1e9);
    const std::size_t quiet = samples_until_done(c, normal_sample(100000, 100, 0.5, 7));
    const std::size_t noisy = samples_until_done(c, normal_sample(100000, 100, 5, 7));
    CHECK(quiet == 10);
    CHECK(noisy > 40);
    CHECK(noisy < 100000);
    CHECK(c.converged(normal_sample(noisy, 100, 5, 7)));
    // A constant sample has a zero-width interval at once, yet still takes min_samples.
    CHECK(samples_until_done(c, std::vector<double>(50, 3.5)) == 10);
}

TEST_CASE("the stopping rule caps on count and time and says so") {
    const relative_ci_criterion c(1e-6, 5, 20, 2.0);
    const std::vector<double> noisy = normal_sample(20, 100, 10, 3);
    CHECK(samples_until_done(c, noisy) == 20);
    CHECK(c.capped(noisy, 0.0));
    const std::vector<double> eight(noisy.begin(), noisy.begin() + 8);
    CHECK_FALSE(c.done(eight, 1.0));
    CHECK(c.done(eight, 2.5));  // out of time
    CHECK(c.capped(eight, 2.5));
    const std::vector<double> three(noisy.begin(), noisy.begin() + 3);
    CHECK_FALSE(c.done(three, 100.0));  // time does not cut below min_samples
    const relative_ci_criterion loose(0.5, 5, 20, 2.0);
    CHECK(loose.done(eight, 0.0));
    CHECK_FALSE(loose.capped(eight, 2.5));  // converged, not capped
}

TEST_CASE("a bimodal sample stops on the mean's CI where the median's cannot narrow") {
    // As the H100's event timer reads a ~4.2 us kernel: two clusters 0.16 us apart, in ticks
    // of 0.032 us, half the samples in each.
    std::vector<double> pool(2000);
    for (std::size_t i = 0; i < pool.size(); ++i)
        pool[i] = (i % 2 ? 4.384 : 4.224) + 0.032 * (static_cast<int>(i / 2 % 3) - 1);
    const relative_ci_criterion median(0.01, 10, 2000, 1e9, ci_kind::median);
    const relative_ci_criterion mean(0.01, 10, 2000, 1e9, ci_kind::mean);
    const relative_ci_criterion either(0.01, 10, 2000, 1e9, ci_kind::either);
    const std::size_t by_median = samples_until_done(median, pool);
    const std::size_t by_mean = samples_until_done(mean, pool);
    CHECK(by_median == 2000);  // the median's interval straddles both modes: capped
    CHECK(by_mean < 100);
    CHECK(samples_until_done(either, pool) == std::min(by_median, by_mean));
    // On a unimodal sample both intervals shrink as 1/sqrt(n); the mean's is the narrower.
    const std::vector<double> normal = normal_sample(100000, 100, 5, 7);
    const std::size_t m = samples_until_done(median, normal);
    const std::size_t e = samples_until_done(either, normal);
    CHECK(e <= m);
    CHECK(e * 3 > m);
}

TEST_CASE("the 20%-trimmed mean's interval: Tukey and McLaughlin's formula") {
    // n = 12, 2 trimmed at each end; the value from the formula in scipy (t on 7 dof).
    const std::vector<double> v{5, 2, 4, 4, 9, 4, 5, 7, 3, 6, 100, 4.5};
    CHECK(rel_trimmed_mean_ci(v) == doctest::Approx(0.29526076784242866).epsilon(1e-6));
    // An outlier moves it no more than any other value past the trimmed ones.
    std::vector<double> w = v;
    w[10] = 1e9;
    CHECK(rel_trimmed_mean_ci(w) == doctest::Approx(rel_trimmed_mean_ci(v)));
    CHECK(std::isinf(rel_trimmed_mean_ci({1, 2, 3, 4, 5})));
    CHECK(rel_trimmed_mean_ci(std::vector<double>(20, 3.0)) == 0.0);
}

TEST_CASE("a bimodal sample with outliers stops on the trimmed mean's CI under either") {
    // As the range profiler reads a ~2.4 us kernel: two modes 0.16 us apart in ticks of 0.032
    // us, half the samples in each, and one in 25 a launch 50% long.
    std::vector<double> pool(2000);
    for (std::size_t i = 0; i < pool.size(); ++i)
        pool[i] = i % 25 == 24
                      ? 3.648
                      : (i % 2 ? 2.496 : 2.336) + 0.032 * (static_cast<int>(i / 2 % 3) - 1);
    const relative_ci_criterion median(0.01, 10, 2000, 1e9, ci_kind::median);
    const relative_ci_criterion mean(0.01, 10, 2000, 1e9, ci_kind::mean);
    const relative_ci_criterion either(0.01, 10, 2000, 1e9, ci_kind::either);
    const std::size_t by_median = samples_until_done(median, pool);
    const std::size_t by_mean = samples_until_done(mean, pool);
    const std::size_t by_either = samples_until_done(either, pool);
    CHECK(by_median == 2000);  // the median's interval straddles both modes: capped
    CHECK(by_mean > 150);      // the outliers widen the mean's
    CHECK(by_either < 100);
    CHECK(by_either * 2 < by_mean);
    CHECK(either.wanted(std::vector<double>(pool.begin(), pool.begin() + 20)) < by_mean);
}

TEST_CASE("the stopping rule predicts the samples its interval needs") {
    const relative_ci_criterion c(0.01, 10, 100000, 1e9, ci_kind::mean);
    const std::vector<double> noisy = normal_sample(100000, 100, 5, 7);
    const std::vector<double> first(noisy.begin(), noisy.begin() + 10);
    const std::size_t want = c.wanted(first);
    // The mean's half-width shrinks as 1/sqrt(n): about (1.96 * 5 / 1)^2 = 96 samples.
    CHECK(want > 40);
    CHECK(want < 400);
    const std::size_t needed = samples_until_done(c, noisy);
    CHECK(want > needed / 3);
    CHECK(want < needed * 3);
    // Converged: no more; too few for an interval: no prediction; never past max_samples.
    CHECK(c.wanted(std::vector<double>(12, 2.0)) == 12);
    CHECK(c.wanted(std::vector<double>(first.begin(), first.begin() + 5)) == 0);
    const relative_ci_criterion capped(1e-6, 10, 50, 1e9);
    CHECK(capped.wanted(first) == 50);
}

TEST_CASE("one huge outlier leaves the median CI alone") {
    std::vector<double> v = normal_sample(50, 10, 1, 11);
    const summary clean = summarize(v);
    *std::max_element(v.begin(), v.end()) = 1e6;
    const summary dirty = summarize(v);
    CHECK(dirty.median == clean.median);
    CHECK(dirty.ci_low == clean.ci_low);
    CHECK(dirty.ci_high == clean.ci_high);
    CHECK(dirty.mean > 100 * clean.mean);
}

TEST_CASE("the median CI covers the true median about 95% of the time") {
    // n = 30: ranks 10 and 21, exact coverage 1 - 2 P(X <= 9) = 0.957.
    std::mt19937_64 gen(2024);
    std::normal_distribution<double> dist(10.0, 1.0);
    int covered = 0;
    constexpr int trials = 2000;
    for (int t = 0; t < trials; ++t) {
        std::vector<double> v(30);
        for (auto& x : v) x = dist(gen);
        const summary s = summarize(v);
        covered += s.ci_low <= 10.0 && 10.0 <= s.ci_high;
    }
    CHECK(static_cast<double>(covered) / trials == doctest::Approx(0.957).epsilon(0.02));
}

TEST_CASE("overlap and relative CI width") {
    summary a, b;
    a.median = 10, a.ci_low = 9, a.ci_high = 11;
    b.median = 12, b.ci_low = 11, b.ci_high = 13;
    CHECK(overlaps(a, b));
    CHECK(overlaps(b, a));
    b.ci_low = 11.5;
    CHECK_FALSE(overlaps(a, b));
    CHECK(a.rel_ci() == doctest::Approx(0.1));
    summary zero;
    CHECK(zero.rel_ci() == 0);
    zero.ci_high = 1;
    CHECK(std::isinf(zero.rel_ci()));
}
