#include "search/forest.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "search/domain.hpp"
#include "search/rng.hpp"

namespace hone {

namespace {

// Ranks of `keys` (ties share a rank): rank[i] = number of distinct keys below keys[i].
std::vector<uint32_t> ranks_of(const std::vector<double>& keys) {
    std::vector<double> sorted = keys;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    std::vector<uint32_t> out;
    for (double k : keys)
        out.push_back(static_cast<uint32_t>(std::lower_bound(sorted.begin(), sorted.end(), k) -
                                            sorted.begin()));
    return out;
}

}  // namespace

random_forest::random_forest(const search_domain& d) {
    for (std::size_t i = 0; i < d.dims(); ++i) {
        const uint32_t card = d.cardinality(i);
        if (card < 2) continue;
        std::vector<double> coord(card), twos(card);
        for (uint32_t k = 0; k < card; ++k) coord[k] = d.coordinate(i, k);
        features_.push_back({i, ranks_of(coord)});
        const auto integers = integer_values(d, i);
        if (!integers) continue;
        for (uint32_t k = 0; k < card; ++k) twos[k] = __builtin_ctzll((*integers)[k]);
        // Only when it orders the values otherwise than their size does.
        auto r = ranks_of(twos);
        if (r != features_.back().rank && *std::max_element(r.begin(), r.end()) > 0)
            features_.push_back({i, std::move(r)});
    }
}

void random_forest::fit(const std::vector<point>& x, const std::vector<double>& y,
                        const forest_options& o, std::mt19937_64& rng) {
    trees_.clear();
    if (x.empty()) return;
    xr_.assign(x.size(), {});
    for (std::size_t k = 0; k < x.size(); ++k) {
        xr_[k].resize(features_.size());
        for (std::size_t f = 0; f < features_.size(); ++f)
            xr_[k][f] = features_[f].rank[x[k][features_[f].dim]];
    }
    y_ = y;
    std::vector<uint32_t> idx(x.size());
    for (int t = 0; t < o.trees; ++t) {
        for (auto& i : idx) i = static_cast<uint32_t>(draw_below(rng, x.size()));  // bootstrap
        tree tr;
        tr.reserve(2 * x.size() / std::max(1, o.min_leaf) + 1);
        grow(tr, idx, 0, idx.size(), o, rng);
        trees_.push_back(std::move(tr));
    }
}

int random_forest::grow(tree& t, std::vector<uint32_t>& idx, std::size_t lo, std::size_t hi,
                        const forest_options& o, std::mt19937_64& rng) {
    const int at = static_cast<int>(t.size());
    t.push_back({});
    double sum = 0;
    for (std::size_t k = lo; k < hi; ++k) sum += y_[idx[k]];
    const double n = static_cast<double>(hi - lo);
    t[at].value = sum / n;
    const std::size_t min_leaf = static_cast<std::size_t>(std::max(1, o.min_leaf));
    if (hi - lo < 2 * min_leaf || features_.empty()) return at;

    // Candidate features: a random subset (partial Fisher-Yates).
    std::vector<uint32_t> dims(features_.size());
    std::iota(dims.begin(), dims.end(), 0u);
    const std::size_t tries = std::max<std::size_t>(
        1, static_cast<std::size_t>(std::ceil(o.features * static_cast<double>(dims.size()))));
    double best_gain = 1e-12 * (1 + std::abs(sum));
    int best_dim = -1;
    uint32_t best_thr = 0;
    std::vector<double> bsum;
    std::vector<std::size_t> bcount;
    for (std::size_t k = 0; k < tries && k < dims.size(); ++k) {
        std::swap(dims[k], dims[k + draw_below(rng, dims.size() - k)]);
        const uint32_t dim = dims[k];
        const std::size_t card = features_[dim].rank.size();
        bsum.assign(card, 0.0);
        bcount.assign(card, 0);
        for (std::size_t j = lo; j < hi; ++j) {
            const uint32_t r = xr_[idx[j]][dim];
            bsum[r] += y_[idx[j]];
            ++bcount[r];
        }
        // Gain in squared error = sl^2/nl + sr^2/nr - s^2/n.
        double sl = 0;
        std::size_t nl = 0;
        for (uint32_t r = 0; r + 1 < card; ++r) {
            sl += bsum[r];
            nl += bcount[r];
            if (bcount[r] == 0) continue;  // same split as the previous threshold
            const std::size_t nr = (hi - lo) - nl;
            if (nl < min_leaf || nr < min_leaf) continue;
            const double sr = sum - sl;
            const double gain = sl * sl / static_cast<double>(nl) +
                                sr * sr / static_cast<double>(nr) - sum * sum / n;
            if (gain > best_gain) best_gain = gain, best_dim = static_cast<int>(dim), best_thr = r;
        }
    }
    if (best_dim < 0) return at;
    const auto mid = std::partition(
        idx.begin() + static_cast<std::ptrdiff_t>(lo),
        idx.begin() + static_cast<std::ptrdiff_t>(hi),
        [&](uint32_t k) { return xr_[k][static_cast<std::size_t>(best_dim)] <= best_thr; });
    const std::size_t m = static_cast<std::size_t>(mid - idx.begin());
    const int left = grow(t, idx, lo, m, o, rng);
    const int right = grow(t, idx, m, hi, o, rng);
    t[at].dim = best_dim;
    t[at].threshold = best_thr;
    t[at].left = left;
    t[at].right = right;
    return at;
}

double random_forest::eval(const tree& t, const uint32_t* ranks) const {
    int at = 0;
    while (t[at].dim >= 0) at = ranks[t[at].dim] <= t[at].threshold ? t[at].left : t[at].right;
    return t[at].value;
}

random_forest::prediction random_forest::predict(const point& p) const {
    prediction out;
    if (trees_.empty()) return out;
    uint32_t ranks[256];
    std::vector<uint32_t> many;
    uint32_t* r = ranks;
    if (features_.size() > 256) {
        many.resize(features_.size());
        r = many.data();
    }
    for (std::size_t f = 0; f < features_.size(); ++f)
        r[f] = features_[f].rank[p[features_[f].dim]];
    double s = 0, s2 = 0;
    for (const auto& t : trees_) {
        const double v = eval(t, r);
        s += v;
        s2 += v * v;
    }
    const double n = static_cast<double>(trees_.size());
    out.mean = s / n;
    out.stddev = std::sqrt(std::max(0.0, s2 / n - out.mean * out.mean));
    return out;
}

double neg_expected_improvement(const random_forest::prediction& p, double best, double xi) {
    const double sd = std::max(p.stddev, 1e-6);
    const double z = (best - p.mean - xi) / sd;
    const double cdf = 0.5 * std::erfc(-z / std::sqrt(2.0));
    const double pdf = 0.3989422804014327 * std::exp(-0.5 * z * z);
    return -sd * (z * cdf + pdf);
}

}  // namespace hone
