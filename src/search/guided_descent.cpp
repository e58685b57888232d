// Model-guided descents: several local searches at once, each from its own start, that try the
// neighbours (one parameter changed) of their current point in the order a random forest
// predicts best, moving as soon as one is faster. A descent whose `patience` best-predicted
// neighbours are all slower has found a (likely) local optimum and is replaced by a new one,
// started at the candidate of best expected improvement (random points and the neighbours of
// the best ones). Few descents from well-chosen starts reach the optimum's basin: measured
// spaces have few local optima, and the model spares most of each neighbourhood.
#include <algorithm>
#include <cmath>

#include "search/forest.hpp"
#include "search/search_base.hpp"
#include "search/strategies.hpp"

namespace hone {
namespace {

class guided_descent final : public search_base {
  public:
    guided_descent(const search_domain& d, const strategy_setup& s) : search_base(d, s), model_(d) {
        initial_ = static_cast<std::size_t>(option("initial"));
        threads_.resize(static_cast<std::size_t>(option("descents")));
        step_ = static_cast<std::size_t>(option("step"));
        patience_ = static_cast<std::size_t>(option("patience"));
        candidates_ = static_cast<std::size_t>(option("candidates"));
        forest_.trees = static_cast<int>(option("trees"));
    }

  private:
    struct descent {
        std::optional<point> at;  // current point (observed)
        double score = 0;
        std::optional<point> start;   // proposed start, waiting for its outcome
        point_set trials;             // proposed from `at`, pending
        std::size_t tried = 0;        // neighbours of `at` tried without improvement
        std::optional<point> better;  // best improvement among the trials so far
        double better_score = 0;
    };

    void next(std::size_t n, std::vector<point>& out) override {
        if (history_.size() + pending_.size() < initial_ || !best_) {
            while (out.size() < n &&
                   history_.size() + pending_.size() < std::max<std::size_t>(initial_, 1)) {
                auto p = fresh_sample();
                if (!p) return;
                take(*p, out);
            }
            return;
        }
        bool fitted = false;
        for (auto& t : threads_) {
            if (out.size() >= n) break;
            if (t.start || !t.trials.empty()) continue;  // waiting
            if (!fitted) {
                fit();
                fitted = true;
            }
            if (t.at) propose_step(t, n, out);
            if (!t.at && out.size() < n) propose_start(t, out);
        }
    }

    void fit() {
        std::vector<point> x;
        std::vector<double> y;
        const double fail = failure_score();
        for (const auto& [p, s] : history_) {
            x.push_back(p);
            y.push_back(s ? *s : fail);
        }
        model_.fit(x, y, forest_, rng_);
    }

    // The next `step_` unseen neighbours of t.at, best predicted first; none left: restart.
    void propose_step(descent& t, std::size_t n, std::vector<point>& out) {
        if (t.tried >= patience_) {
            t.at.reset();
            return;
        }
        std::vector<std::pair<double, point>> ranked;
        for (auto& q : neighbours(*t.at, false))
            if (!seen(q)) ranked.emplace_back(model_.predict(q).mean, std::move(q));
        if (ranked.empty()) {
            t.at.reset();
            return;
        }
        std::sort(ranked.begin(), ranked.end());
        for (std::size_t k = 0; k < ranked.size() && k < step_ && out.size() < n; ++k) {
            if (take(ranked[k].second, out)) t.trials.insert(ranked[k].second);
        }
    }

    // A new descent starts at the candidate of highest expected improvement.
    void propose_start(descent& t, std::vector<point>& out) {
        point_set cands;
        for (std::size_t i = 0; i < candidates_; ++i) {
            auto p = fresh_sample();
            if (!p) break;
            cands.insert(std::move(*p));
        }
        for (const auto& u : threads_)
            if (u.at)
                for (auto& q : neighbours(*u.at, false))
                    if (!seen(q)) cands.erase(q);  // leave those to their descent
        std::optional<point> pick;
        double pick_a = 0;
        for (const auto& p : cands) {
            const double a = neg_expected_improvement(model_.predict(p), *best_, xi_);
            if (!pick || a < pick_a || (a == pick_a && p < *pick)) pick = p, pick_a = a;
        }
        if (!pick) return;
        if (take(*pick, out)) t.start = pick;
    }

    void learn(const point& p, std::optional<double> score, bool) override {
        for (auto& t : threads_) {
            if (t.start && *t.start == p) {
                t.start.reset();
                if (score) t.at = p, t.score = *score, t.tried = 0;
                return;
            }
            if (!t.trials.erase(p)) continue;
            ++t.tried;
            if (score && *score < t.score && (!t.better || *score < t.better_score))
                t.better = p, t.better_score = *score;
            if (t.trials.empty() && t.better) {  // move when the step's outcomes are in
                t.at = t.better, t.score = t.better_score, t.tried = 0;
                t.better.reset();
            }
            return;
        }
    }

    random_forest model_;
    forest_options forest_;
    std::vector<descent> threads_;
    std::size_t initial_ = 20, step_ = 2, patience_ = 8, candidates_ = 1000;
    double xi_ = 0.01;
};

}  // namespace

std::unique_ptr<strategy> make_guided_descent(const strategy_setup& s, const search_domain& d) {
    return std::make_unique<guided_descent>(d, s);
}

}  // namespace hone
