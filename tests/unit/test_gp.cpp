// The Gaussian process behind gp_climb: it reproduces what it was fitted to, is unsure away
// from it, picks the length scale the data favour, and expected improvement behaves.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "search/gp.hpp"

using namespace hone;

TEST_CASE("a fitted Gaussian process interpolates its points and is unsure far from them") {
    std::vector<std::vector<double>> x;
    std::vector<double> y;
    for (int i = 0; i <= 10; ++i) {
        const double t = i / 10.0;
        x.push_back({t, 0.5});
        y.push_back(std::sin(6.0 * t));
    }
    gaussian_process gp;
    gp.fit(x, y, {0.15, 0.3, 0.6, 1.2}, 1e-6);
    REQUIRE(gp.fitted());
    for (std::size_t i = 0; i < x.size(); ++i) {
        const auto p = gp.predict(x[i]);
        CHECK(p.mean == doctest::Approx(y[i]).epsilon(1e-3));
        CHECK(p.stddev < 0.01);
    }
    const auto mid = gp.predict({0.55, 0.5});  // between two points: close to the curve
    CHECK(mid.mean == doctest::Approx(std::sin(3.3)).epsilon(0.05));
    const auto far = gp.predict({0.5, 3.0});  // far away: the prior
    CHECK(std::abs(far.mean) < 0.05);
    CHECK(far.stddev > 0.95);
}

TEST_CASE(
    "the length scale follows the data: smooth data take a long one, rough data a short one") {
    std::vector<std::vector<double>> x;
    std::vector<double> smooth, rough;
    for (int i = 0; i < 20; ++i) {
        const double t = i / 19.0;
        x.push_back({t});
        smooth.push_back(t - 0.5);
        rough.push_back(i % 2 ? 1.0 : -1.0);
    }
    gaussian_process a, b;
    a.fit(x, smooth, {0.15, 0.3, 0.6, 1.2}, 1e-3);
    b.fit(x, rough, {0.15, 0.3, 0.6, 1.2}, 1e-3);
    CHECK(a.length_scale() == 1.2);
    CHECK(b.length_scale() == 0.15);
}

TEST_CASE("the marginal likelihood is higher under coordinates that make the data smooth") {
    // gp_climb compares fits by it: the same targets, at points placed two ways.
    std::vector<std::vector<double>> ordered, scrambled;
    std::vector<double> y;
    for (int i = 0; i < 20; ++i) {
        const double t = i / 19.0;
        ordered.push_back({t});
        scrambled.push_back({((i * 7) % 20) / 19.0});
        y.push_back(std::sin(4.0 * t));
    }
    gaussian_process a, b;
    a.fit(ordered, y, {0.15, 0.3, 0.6, 1.2}, 1e-3);
    b.fit(scrambled, y, {0.15, 0.3, 0.6, 1.2}, 1e-3);
    REQUIRE(a.fitted());
    REQUIRE(b.fitted());
    CHECK(a.log_likelihood() > b.log_likelihood() + 10);
}

TEST_CASE("expected improvement grows with the predicted gain and with uncertainty") {
    CHECK(expected_improvement({0.0, 0.0}, 1.0) == doctest::Approx(1.0));  // a sure gain
    CHECK(expected_improvement({2.0, 0.0}, 1.0) == 0.0);                   // a sure loss
    CHECK(expected_improvement({0.0, 1.0}, 0.0) == doctest::Approx(1.0 / std::sqrt(2.0 * M_PI)));
    CHECK(expected_improvement({0.0, 1.0}, 1.0) > expected_improvement({0.5, 1.0}, 1.0));
    CHECK(expected_improvement({1.0, 2.0}, 1.0) > expected_improvement({1.0, 1.0}, 1.0));
}

TEST_CASE(
    "normal scores: ranks as normal quantiles, ties shared, capped; score_at_normal inverts") {
    const std::vector<double> scores = {3.0, 1.0, 2.0, 2.0, 10.0, 5.0, 4.0, 7.0};
    const auto z = normal_scores(scores, 1.0);
    REQUIRE(z.size() == scores.size());
    // 1.0 is the smallest of 8: rank 0, quantile 1/16; the two 2.0 share ranks 1 and 2.
    CHECK(z[1] == doctest::Approx(-1.5341).epsilon(1e-4));
    CHECK(z[2] == z[3]);
    CHECK(z[2] == doctest::Approx(-0.6745).epsilon(1e-4));  // quantile 2/8
    CHECK(z[4] == doctest::Approx(1.5341).epsilon(1e-4));   // the largest: 15/16
    // Order-preserving, and the spread of the scores (10.0 is far out) does not matter.
    CHECK(z[0] < z[6]);
    CHECK(z[6] < z[5]);
    CHECK(z[5] < z[7]);
    CHECK(z[7] < z[4]);
    const auto capped = normal_scores(scores, 0.5);
    for (std::size_t i = 0; i < scores.size(); ++i) CHECK(capped[i] == std::min(z[i], 0.0));
    // The inverse: each distinct score back from its normal score, and between two ranks the
    // interpolated score.
    std::vector<double> sorted = scores;
    std::sort(sorted.begin(), sorted.end());
    CHECK(score_at_normal(sorted, z[1]) == doctest::Approx(1.0));
    CHECK(score_at_normal(sorted, z[6]) == doctest::Approx(4.0));
    CHECK(score_at_normal(sorted, z[4]) == doctest::Approx(10.0));
    CHECK(score_at_normal(sorted, 0.0) == doctest::Approx(3.5));  // the median
    CHECK(score_at_normal(sorted, -3.0) < 1.0);                   // below all: extrapolated
    CHECK(score_at_normal(sorted, 3.0) == 10.0);                  // above all: the largest
}

TEST_CASE("rank correlation: orders, not scales; ties share mid-ranks") {
    const std::vector<double> a = {1, 2, 3, 4, 5, 6};
    CHECK(rank_correlation(a, {10, 20, 30, 40, 50, 60}) == doctest::Approx(1.0));
    CHECK(rank_correlation(a, {1, 4, 9, 16, 1000, 1e6}) == doctest::Approx(1.0));  // monotone
    CHECK(rank_correlation(a, {6, 5, 4, 3, 2, 1}) == doctest::Approx(-1.0));
    // One swap of neighbours among 6: 1 - 6 * 2 / (6 * 35).
    CHECK(rank_correlation(a, {2, 1, 3, 4, 5, 6}) == doctest::Approx(1.0 - 12.0 / 210.0));
    // Ties: {1, 1, 2} ranks 0.5, 0.5, 2 against 0, 1, 2: Pearson of the ranks, sqrt(3) / 2.
    CHECK(rank_correlation({1, 2, 3}, {1, 1, 2}) == doctest::Approx(std::sqrt(3.0) / 2.0));
    CHECK(rank_correlation(a, {7, 7, 7, 7, 7, 7}) == 0.0);  // a constant orders nothing
    CHECK(rank_correlation({1, 2}, {1, 2}) == 0.0);         // too few to rank
    CHECK(rank_correlation({1, 2, 3}, {1, 2}) == 0.0);      // lengths differ
}
