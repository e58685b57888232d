// Quantiles and distribution functions behind the confidence intervals in stats.cpp.
#pragma once
#include <cstddef>

namespace hone {

// Inverse of the standard normal CDF, for 0 < p < 1 (Acklam's rational approximation,
// relative error below 1.2e-9).
double normal_quantile(double p);
// Regularized incomplete beta function I_x(a, b), for a, b > 0 and 0 <= x <= 1.
double regularized_beta(double x, double a, double b);
// CDF of Student's t distribution with `dof` degrees of freedom.
double student_t_cdf(double t, double dof);
// Two-sided quantile of Student's t, e.g. confidence 0.95.
double student_t_quantile(std::size_t dof, double confidence);

}  // namespace hone
