// A random forest regressor over points: the surrogate model of bayes_opt. Each tree is grown
// on a bootstrap sample, splitting a node on the parameter and threshold (a position in the
// parameter's values, ordered by their coordinates) that most reduce the squared error, among a
// random subset of the parameters. The spread of the trees' predictions is the model's
// uncertainty.
#pragma once
#include <random>
#include <vector>

#include "search/domain.hpp"

namespace hone {

struct forest_options {
    int trees = 32;
    int min_leaf = 2;       // samples per leaf, at least
    double features = 0.5;  // share of the parameters tried at each split
};

class random_forest {
  public:
    // Orders each parameter's values by their coordinates (ties by position).
    explicit random_forest(const search_domain& d);
    void fit(const std::vector<point>& x, const std::vector<double>& y, const forest_options& o,
             std::mt19937_64& rng);
    struct prediction {
        double mean = 0, stddev = 0;
    };
    prediction predict(const point& p) const;
    std::size_t trees() const { return trees_.size(); }
    bool fitted() const { return !trees_.empty(); }

  private:
    // A feature: a parameter's values ranked by something (their coordinates; for integers that
    // are not all powers of two, also by the power of two that divides them, as alignment often
    // matters more than size).
    struct feature {
        std::size_t dim;
        std::vector<uint32_t> rank;  // by value index
    };
    struct node {
        int dim = -1;            // feature; -1: a leaf
        uint32_t threshold = 0;  // rank <= threshold goes left
        int left = 0, right = 0;
        double value = 0;
    };
    using tree = std::vector<node>;

    int grow(tree& t, std::vector<uint32_t>& idx, std::size_t lo, std::size_t hi,
             const forest_options& o, std::mt19937_64& rng);
    double eval(const tree& t, const uint32_t* ranks) const;

    std::vector<feature> features_;
    std::vector<tree> trees_;
    // Training data in ranks (one per feature), for growing.
    std::vector<std::vector<uint32_t>> xr_;
    std::vector<double> y_;
};

// Expected improvement over `best` (lower is better, log scale) by a margin `xi`, negated so
// that the most promising candidate sorts first.
double neg_expected_improvement(const random_forest::prediction& p, double best, double xi);

}  // namespace hone
