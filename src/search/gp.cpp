#include "search/gp.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/distributions.hpp"

namespace hone {
namespace {

double matern52(double r, double length) {
    const double s = std::sqrt(5.0) * r / length;
    return (1.0 + s + s * s / 3.0) * std::exp(-s);
}

double distance(const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
    return std::sqrt(s);
}

// The factor L is held by columns: column j (L's entries (i, j), i >= j) at c[j * n + i]. Each
// entry gets the same operations in the same order as in the textbook row-by-row forms (its
// subtractions by ascending k, then its division), so the results are the same to the bit; but
// the subtractions run over contiguous memory and independent entries, four columns of L at a
// time, where the row-by-row forms are chains that wait on each subtraction.

// In-place Cholesky of the n x n matrix c (its lower triangle, by columns; the rest is not
// read); false when it is not positive definite.
bool cholesky(std::vector<double>& c, std::size_t n) {
    for (std::size_t j = 0; j < n; ++j) {
        double* __restrict cj = &c[j * n];
        std::size_t k = 0;
        for (; k + 4 <= j; k += 4) {
            const double* __restrict c0 = &c[k * n];
            const double *c1 = c0 + n, *c2 = c1 + n, *c3 = c2 + n;
            const double f0 = c0[j], f1 = c1[j], f2 = c2[j], f3 = c3[j];
            for (std::size_t i = j; i < n; ++i)
                cj[i] = cj[i] - c0[i] * f0 - c1[i] * f1 - c2[i] * f2 - c3[i] * f3;
        }
        for (; k < j; ++k) {
            const double* __restrict ck = &c[k * n];
            const double f = ck[j];
            for (std::size_t i = j; i < n; ++i) cj[i] -= ck[i] * f;
        }
        if (!(cj[j] > 0)) return false;
        const double d = std::sqrt(cj[j]);
        cj[j] = d;
        for (std::size_t i = j + 1; i < n; ++i) cj[i] /= d;
    }
    return true;
}

// Solves L z = b (forward) in place.
void forward(const std::vector<double>& c, std::size_t n, std::vector<double>& b) {
    double* __restrict z = b.data();
    std::size_t k = 0;
    for (; k + 4 <= n; k += 4) {
        const double* __restrict c0 = &c[k * n];
        const double *c1 = c0 + n, *c2 = c1 + n, *c3 = c2 + n;
        z[k] /= c0[k];
        z[k + 1] = (z[k + 1] - c0[k + 1] * z[k]) / c1[k + 1];
        z[k + 2] = (z[k + 2] - c0[k + 2] * z[k] - c1[k + 2] * z[k + 1]) / c2[k + 2];
        z[k + 3] =
            (z[k + 3] - c0[k + 3] * z[k] - c1[k + 3] * z[k + 1] - c2[k + 3] * z[k + 2]) / c3[k + 3];
        const double f0 = z[k], f1 = z[k + 1], f2 = z[k + 2], f3 = z[k + 3];
        for (std::size_t i = k + 4; i < n; ++i)
            z[i] = z[i] - c0[i] * f0 - c1[i] * f1 - c2[i] * f2 - c3[i] * f3;
    }
    for (; k < n; ++k) {
        const double* __restrict ck = &c[k * n];
        z[k] /= ck[k];
        const double f = z[k];
        for (std::size_t i = k + 1; i < n; ++i) z[i] -= ck[i] * f;
    }
}

// Solves L^T z = b (backward) in place.
void backward(const std::vector<double>& c, std::size_t n, std::vector<double>& b) {
    for (std::size_t i = n; i-- > 0;) {
        const double* ci = &c[i * n];
        double s = b[i];
        for (std::size_t k = i + 1; k < n; ++k) s -= ci[k] * b[k];
        b[i] = s / ci[i];
    }
}

// Each value's mid-rank (0-based) among `v`.
std::vector<double> mid_ranks(const std::vector<double>& v) {
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    std::vector<double> out;
    out.reserve(v.size());
    for (double x : v) {
        const auto lo = std::lower_bound(sorted.begin(), sorted.end(), x) - sorted.begin();
        const auto hi = std::upper_bound(sorted.begin(), sorted.end(), x) - sorted.begin();
        out.push_back(0.5 * static_cast<double>(lo + hi - 1));
    }
    return out;
}

}  // namespace

void gaussian_process::fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y,
                           const std::vector<double>& length_scales, double noise) {
    const std::size_t n = x.size();
    x_.clear();
    if (n == 0) return;
    std::vector<double> dist(n * n);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j <= i; ++j)
            dist[i * n + j] = dist[j * n + i] = distance(x[i], x[j]);
    double best_ll = -std::numeric_limits<double>::infinity();
    for (double length : length_scales) {
        std::vector<double> k(n * n);  // the lower triangle by columns, as cholesky reads it
        for (std::size_t j = 0; j < n; ++j)
            for (std::size_t i = j; i < n; ++i)
                k[j * n + i] = matern52(dist[i * n + j], length) + (i == j ? noise + 1e-6 : 0.0);
        if (!cholesky(k, n)) continue;
        std::vector<double> a = y;
        forward(k, n, a);
        double ll = 0;
        for (std::size_t i = 0; i < n; ++i) ll -= 0.5 * a[i] * a[i] + std::log(k[i * n + i]);
        if (ll <= best_ll) continue;
        best_ll = ll;
        backward(k, n, a);
        chol_ = std::move(k);
        alpha_ = std::move(a);
        length_ = length;
    }
    if (std::isfinite(best_ll)) x_ = x;
    ll_ = best_ll;
}

double gaussian_process::kernel(const std::vector<double>& a, const std::vector<double>& b) const {
    return matern52(distance(a, b), length_);
}

gaussian_process::prediction gaussian_process::predict(const std::vector<double>& x) const {
    const std::size_t n = x_.size();
    if (n == 0) return {0.0, 1.0};
    std::vector<double> k(n);
    double mean = 0;
    for (std::size_t i = 0; i < n; ++i) {
        k[i] = kernel(x, x_[i]);
        mean += k[i] * alpha_[i];
    }
    forward(chol_, n, k);
    double var = 1.0;
    for (double v : k) var -= v * v;
    return {mean, std::sqrt(std::max(var, 1e-12))};
}

double expected_improvement(const gaussian_process::prediction& p, double best) {
    const double gap = best - p.mean;
    if (!(p.stddev > 0)) return std::max(gap, 0.0);
    const double z = gap / p.stddev;
    const double cdf = 0.5 * std::erfc(-z / std::sqrt(2.0));
    const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2.0 * M_PI);
    return gap * cdf + p.stddev * pdf;
}

std::vector<double> normal_scores(const std::vector<double>& scores, double cap) {
    const double n = static_cast<double>(scores.size());
    const double top = cap < 1 ? normal_quantile(cap) : std::numeric_limits<double>::infinity();
    std::vector<double> out;
    out.reserve(scores.size());
    // Ties share their mid-rank: equal scores get equal targets.
    for (double rank : mid_ranks(scores))
        out.push_back(std::min(normal_quantile((rank + 0.5) / n), top));
    return out;
}

double rank_correlation(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size() || a.size() < 3) return 0;
    const std::vector<double> ra = mid_ranks(a), rb = mid_ranks(b);
    const double mean = 0.5 * static_cast<double>(a.size() - 1);
    double sab = 0, saa = 0, sbb = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        sab += (ra[i] - mean) * (rb[i] - mean);
        saa += (ra[i] - mean) * (ra[i] - mean);
        sbb += (rb[i] - mean) * (rb[i] - mean);
    }
    return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0;
}

double score_at_normal(const std::vector<double>& sorted, double z) {
    const double pos =
        0.5 * std::erfc(-z / std::sqrt(2.0)) * static_cast<double>(sorted.size()) - 0.5;
    if (pos <= 0) return sorted[0] + pos * (sorted[1] - sorted[0]);
    const auto k = static_cast<std::size_t>(pos);
    if (k + 1 >= sorted.size()) return sorted.back();
    return sorted[k] + (pos - static_cast<double>(k)) * (sorted[k + 1] - sorted[k]);
}

}  // namespace hone
