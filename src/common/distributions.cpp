#include "common/distributions.hpp"

#include <cmath>
#include <stdexcept>

namespace hone {
namespace {

// Continued fraction of the incomplete beta function (modified Lentz's method).
double beta_continued_fraction(double x, double a, double b) {
    constexpr double tiny = 1e-300;
    constexpr double eps = 1e-15;
    double c = 1.0;
    double d = 1.0 - (a + b) * x / (a + 1.0);
    if (std::fabs(d) < tiny) d = tiny;
    d = 1.0 / d;
    double h = d;
    for (int m = 1; m <= 10000; ++m) {
        const double m2 = 2.0 * m;
        for (const double num : {m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
                                 -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0))}) {
            d = 1.0 + num * d;
            if (std::fabs(d) < tiny) d = tiny;
            c = 1.0 + num / c;
            if (std::fabs(c) < tiny) c = tiny;
            d = 1.0 / d;
            h *= d * c;
        }
        // The last factor d * c is the relative change of h.
        if (std::fabs(d * c - 1.0) < eps) break;
    }
    return h;
}

}  // namespace

double normal_quantile(double p) {
    if (!(p > 0.0 && p < 1.0)) throw std::invalid_argument("normal_quantile: p outside (0, 1)");
    static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                   -2.759285104469687e+02, 1.383577518672690e+02,
                                   -3.066479806614716e+01, 2.506628277459239e+00};
    static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                   -1.556989798598866e+02, 6.680131188771972e+01,
                                   -1.328068155288572e+01};
    static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                   -2.400758277161838e+00, -2.549732539343734e+00,
                                   4.374664141464968e+00,  2.938163982698783e+00};
    static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                   2.445134137142996e+00, 3.754408661907416e+00};
    constexpr double p_low = 0.02425;
    if (p < p_low || p > 1.0 - p_low) {
        // Tails: symmetric, so compute the lower one.
        const double q = std::sqrt(-2.0 * std::log(p < p_low ? p : 1.0 - p));
        const double x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
                         ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
        return p < p_low ? x : -x;
    }
    const double q = p - 0.5;
    const double r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
}

double regularized_beta(double x, double a, double b) {
    if (x <= 0.0) return 0.0;
    if (x >= 1.0) return 1.0;
    const double log_front =
        std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
    const double front = std::exp(log_front);
    // The continued fraction converges fast only on this side of the mean; use symmetry.
    if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_continued_fraction(x, a, b) / a;
    return 1.0 - front * beta_continued_fraction(1.0 - x, b, a) / b;
}

double student_t_cdf(double t, double dof) {
    const double tail = 0.5 * regularized_beta(dof / (dof + t * t), dof / 2.0, 0.5);
    return t >= 0 ? 1.0 - tail : tail;
}

double student_t_quantile(std::size_t dof, double confidence) {
    if (dof == 0 || !(confidence > 0.0 && confidence < 1.0))
        throw std::invalid_argument("student_t_quantile: needs dof >= 1 and 0 < confidence < 1");
    const double target = 0.5 + confidence / 2.0;
    // Bisection on the CDF: monotone, and the t quantile lies between the normal one and
    // the Cauchy (dof 1) one, which bounds the bracket.
    double lo = normal_quantile(target) * 0.999;
    double hi = std::tan(M_PI * (target - 0.5)) * 1.001 + 1.0;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
        const double mid = 0.5 * (lo + hi);
        (student_t_cdf(mid, static_cast<double>(dof)) < target ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

}  // namespace hone
