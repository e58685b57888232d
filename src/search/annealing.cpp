// Simulated annealing: several walkers, each with one configuration pending. A walker moves to
// a neighbour (one parameter changed) when it is faster, or slower by a log-ratio delta with
// chance exp(-delta / T); T falls geometrically from t_start to t_end over the budget. A failed
// neighbour is never accepted; a walker whose neighbours are all seen restarts from a random
// point.
#include <cmath>

#include "search/search_base.hpp"
#include "search/strategies.hpp"

namespace hone {
namespace {

class annealing final : public search_base {
  public:
    annealing(const search_domain& d, const strategy_setup& s) : search_base(d, s) {
        walkers_.resize(static_cast<std::size_t>(option("walkers")));
        t_start_ = option("t_start");
        t_end_ = option("t_end");
    }

  private:
    struct walker {
        std::optional<point> at;  // current point, once it has an outcome
        double score = 0;
        std::optional<point> trial;  // pending
    };

    double temperature() const {
        // Without a budget, the schedule spans the space (or 1000 evaluations).
        const double span = budget_ > 0 ? static_cast<double>(budget_)
                                        : static_cast<double>(d_.count().value_or(1000));
        const double progress = std::min(1.0, static_cast<double>(history_.size()) / span);
        return t_start_ * std::pow(t_end_ / t_start_, progress);
    }

    void next(std::size_t n, std::vector<point>& out) override {
        for (auto& w : walkers_) {
            if (out.size() >= n) return;
            if (w.trial) continue;
            std::optional<point> p;
            if (w.at) p = random_neighbour(*w.at);
            if (!p) {  // a new walker, or one with nowhere left to go
                w.at.reset();
                p = fresh_sample();
            }
            if (!p) return;
            take(*p, out);
            w.trial = p;
        }
    }

    // An unseen valid neighbour, drawn uniformly among a random parameter's other values; the
    // full neighbourhood is listed only when the draws keep hitting seen or invalid points.
    std::optional<point> random_neighbour(const point& c) {
        for (int tries = 0; tries < 16; ++tries) {
            const std::size_t i = below(c.size());
            const uint32_t card = d_.cardinality(i);
            if (card < 2) continue;
            point q = c;
            q[i] = draw_other(rng_, c[i], card);
            if (!seen(q) && d_.contains(q)) return q;
        }
        std::vector<point> fresh;
        for (auto& q : neighbours(c, false))
            if (!seen(q)) fresh.push_back(std::move(q));
        if (fresh.empty()) return std::nullopt;
        return fresh[below(fresh.size())];
    }

    void learn(const point& p, std::optional<double> score, bool ours) override {
        for (auto& w : walkers_) {
            if (!w.trial || *w.trial != p) continue;
            w.trial.reset();
            if (!score) return;  // failed: stay
            if (!w.at || *score <= w.score ||
                unit() < std::exp(-(*score - w.score) / temperature())) {
                w.at = p;
                w.score = *score;
            }
            return;
        }
    }

    std::vector<walker> walkers_;
    double t_start_ = 0, t_end_ = 0;
};

}  // namespace

std::unique_ptr<strategy> make_annealing(const strategy_setup& s, const search_domain& d) {
    return std::make_unique<annealing>(d, s);
}

}  // namespace hone
