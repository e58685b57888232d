// Differential evolution (DE/best/1/bin) over value positions: for each member x, a challenger
// takes, per parameter with chance cr (and for one parameter always), the position
// best + f * (b - c), with b and c two other random members, rounded and clipped; the rest
// from x. A
// challenger that is invalid or seen is drawn again with other members and a jitter, then
// replaced by a random point. It replaces x when it is faster. One generation (a challenger per
// member) is proposed at a time.
#include <algorithm>
#include <cmath>

#include "search/search_base.hpp"
#include "search/strategies.hpp"

namespace hone {
namespace {

class diff_evo final : public search_base {
  public:
    diff_evo(const search_domain& d, const strategy_setup& s) : search_base(d, s) {
        size_ = static_cast<std::size_t>(option("population"));
        f_ = option("f");
        cr_ = option("cr");
    }

  private:
    struct member {
        point p;
        double score;  // failure_score() at the time for failures
    };

    void next(std::size_t n, std::vector<point>& out) override {
        if (queue_.empty() && pending_.empty()) generation();
        while (out.size() < n && !queue_.empty()) {
            take(queue_.back().first, out);
            queue_.pop_back();
        }
    }

    void learn(const point& p, std::optional<double> score, bool) override {
        const double s = score ? *score : failure_score() + 1;
        const auto it = target_.find(p);
        if (it == target_.end()) {  // a starting member (or a point from the store)
            if (pop_.size() < size_) pop_.push_back({p, s});
            return;
        }
        member& x = pop_[it->second];
        if (s < x.score) x = {p, s};
        target_.erase(it);
    }

    void generation() {
        target_.clear();
        std::vector<std::pair<point, std::size_t>> gen;
        auto fresh = [&](const point& p) {
            for (const auto& g : gen)
                if (g.first == p) return false;
            return !seen(p) && d_.contains(p);
        };
        if (pop_.size() < std::max<std::size_t>(size_, 4)) {  // fill the population first
            for (std::size_t i = pop_.size(); i < size_; ++i)
                if (auto p = fresh_sample(); p && fresh(*p)) gen.push_back({*p, SIZE_MAX});
        } else {
            for (std::size_t x = 0; x < pop_.size(); ++x) {
                std::optional<point> trial;
                for (int tries = 0; tries < 16 && !trial; ++tries) {
                    point t = challenger(x, tries);
                    if (fresh(t)) trial = std::move(t);
                }
                if (!trial) {
                    auto p = fresh_sample();
                    if (p && fresh(*p)) trial = std::move(p);
                }
                if (trial) gen.push_back({std::move(*trial), x});
            }
        }
        for (const auto& [p, x] : gen)
            if (x != SIZE_MAX) target_[p] = x;
        queue_.assign(gen.rbegin(), gen.rend());
    }

    point challenger(std::size_t x, int tries) {
        const std::size_t n = pop_.size();
        std::size_t a = 0, b, c;
        do b = below(n);
        while (b == x);
        do c = below(n);
        while (c == x || c == b);
        // best/1: the mutant starts at the best member (rand/1 measured worse on recorded
        // spaces: it converges too slowly for budgets of a few hundred).
        for (std::size_t k = 0; k < n; ++k)
            if (pop_[k].score < pop_[a].score) a = k;
        const point& px = pop_[x].p;
        point t = px;
        const std::size_t forced = below(t.size());
        // Retries jitter the mutant, so that a collapsed population still moves.
        const double jitter = tries > 0 ? 0.5 * tries : 0.0;
        for (std::size_t i = 0; i < t.size(); ++i) {
            if (i != forced && unit() >= cr_) continue;
            double v = pop_[a].p[i] + f_ * (static_cast<double>(pop_[b].p[i]) - pop_[c].p[i]);
            if (jitter > 0) v += jitter * (2 * unit() - 1);
            const double hi = d_.cardinality(i) - 1;
            t[i] = static_cast<uint32_t>(std::lround(std::clamp(v, 0.0, hi)));
        }
        return t;
    }

    std::size_t size_ = 20;
    double f_ = 0.8, cr_ = 0.9;
    std::vector<member> pop_;
    point_map<std::size_t> target_;  // a pending challenger -> the member it challenges
    std::vector<std::pair<point, std::size_t>> queue_;
};

}  // namespace

std::unique_ptr<strategy> make_diff_evo(const strategy_setup& s, const search_domain& d) {
    return std::make_unique<diff_evo>(d, s);
}

}  // namespace hone
