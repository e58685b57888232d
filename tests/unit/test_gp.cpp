// The Gaussian process behind gp_climb: it reproduces what it was fitted to, is unsure away
// from it, picks the length scale the data favour, and expected improvement behaves.
#include <doctest/doctest.h>

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

TEST_CASE("expected improvement grows with the predicted gain and with uncertainty") {
    CHECK(expected_improvement({0.0, 0.0}, 1.0) == doctest::Approx(1.0));  // a sure gain
    CHECK(expected_improvement({2.0, 0.0}, 1.0) == 0.0);                   // a sure loss
    CHECK(expected_improvement({0.0, 1.0}, 0.0) == doctest::Approx(1.0 / std::sqrt(2.0 * M_PI)));
    CHECK(expected_improvement({0.0, 1.0}, 1.0) > expected_improvement({0.5, 1.0}, 1.0));
    CHECK(expected_improvement({1.0, 2.0}, 1.0) > expected_improvement({1.0, 1.0}, 1.0));
}
