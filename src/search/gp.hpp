// A small Gaussian process for the model-based strategies: zero mean over standardized
// targets, an isotropic Matern 5/2 kernel on coordinates in [0, 1], its length scale chosen
// from a short list by marginal likelihood. Exact (Cholesky): meant for a few hundred points.
#pragma once
#include <vector>

namespace hone {

class gaussian_process {
  public:
    struct prediction {
        double mean = 0, stddev = 0;
    };
    // x: one row of coordinates a point; y: targets (standardized by the caller).
    void fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y,
             const std::vector<double>& length_scales, double noise);
    prediction predict(const std::vector<double>& x) const;
    // The kernel between two points under the fitted length scale (1 at distance 0).
    double kernel(const std::vector<double>& a, const std::vector<double>& b) const;
    bool fitted() const { return !x_.empty(); }
    double length_scale() const { return length_; }
    double log_likelihood() const { return ll_; }

  private:
    std::vector<std::vector<double>> x_;
    std::vector<double> chol_;   // lower triangle L of K, by columns: L(i, j) at j * n + i
    std::vector<double> alpha_;  // K^-1 y
    double length_ = 0.3;
    double ll_ = 0;
};

// Expected improvement below `best` (smaller is better) of a prediction.
double expected_improvement(const gaussian_process::prediction& p, double best);

// Targets for the model from scores (smaller is better): each score's mid-rank among them as a
// normal score, quantile (rank + 1/2) / n, and none above the normal quantile of `cap`. Ranks
// make the model's task the same on every space, whatever the spread of times; the cap keeps
// it from spending its fit on how slow the slow configurations are.
std::vector<double> normal_scores(const std::vector<double>& scores, double cap);

// Spearman's rank correlation of two equally long lists (mid-ranks for ties): how well one
// orders the other, whatever their scales. 0 for fewer than 3 pairs or a constant list.
double rank_correlation(const std::vector<double>& a, const std::vector<double>& b);

// The score at normal score z among `sorted` scores (ascending, two at least): the inverse of
// normal_scores without the cap, interpolated between ranks and extrapolated below the first.
double score_at_normal(const std::vector<double>& sorted, double z);

}  // namespace hone
