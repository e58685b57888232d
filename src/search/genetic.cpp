// Genetic algorithm: a generation of `population` children at a time, each bred from two
// parents picked by tournament (the fastest of `tournament` random members), by uniform
// crossover and per-parameter mutation. A child that is invalid or seen is bred again (then
// mutated harder, then replaced by a random point). The next population is the best of parents
// and children; failed configurations rank below every timed one.
#include <algorithm>

#include "search/search_base.hpp"
#include "search/strategies.hpp"

namespace hone {
namespace {

class genetic final : public search_base {
  public:
    genetic(const search_domain& d, const strategy_setup& s) : search_base(d, s) {
        size_ = static_cast<std::size_t>(option("population"));
        mutation_ = option("mutation");
        tournament_ = static_cast<std::size_t>(option("tournament"));
    }

  private:
    struct member {
        point p;
        double fitness;  // log score; failures: failure_score() when ranked
    };

    void next(std::size_t n, std::vector<point>& out) override {
        if (queue_.empty() && pending_.empty()) breed();
        while (out.size() < n && !queue_.empty()) {
            take(queue_.back(), out);
            queue_.pop_back();
        }
    }

    void learn(const point& p, std::optional<double> score, bool) override {
        children_.push_back({p, score ? *score : failure_score()});
    }

    // The survivors of the last generation, then a new one in queue_.
    void breed() {
        for (auto& c : children_) pop_.push_back(std::move(c));
        children_.clear();
        // Rank with failures last (their stored fitness may predate a worse time).
        auto key = [&](const member& m) {
            const auto it = known_.find(m.p);
            return it != known_.end() && it->second ? *it->second : failure_score() + 1;
        };
        std::stable_sort(pop_.begin(), pop_.end(),
                         [&](const member& a, const member& b) { return key(a) < key(b); });
        if (pop_.size() > size_) pop_.resize(size_);
        std::vector<point> gen;
        if (pop_.size() < 2) {
            for (std::size_t i = 0; i < size_; ++i)
                if (auto p = fresh_sample(); p && !contains(gen, *p)) gen.push_back(*p);
        } else {
            for (std::size_t i = 0; i < size_; ++i)
                if (auto c = child(gen)) gen.push_back(std::move(*c));
        }
        // Handed out from the back: keep breeding order.
        queue_.assign(gen.rbegin(), gen.rend());
    }

    static bool contains(const std::vector<point>& v, const point& p) {
        return std::find(v.begin(), v.end(), p) != v.end();
    }

    const point& select() {
        std::size_t best = below(pop_.size());
        for (std::size_t k = 1; k < tournament_; ++k)
            best = std::min<std::size_t>(best, below(pop_.size()));
        return pop_[best].p;  // pop_ is sorted: the lowest index is the fastest
    }

    std::optional<point> child(const std::vector<point>& gen) {
        for (int tries = 0; tries < 32; ++tries) {
            const point& a = select();
            const point& b = select();
            point c(a.size());
            for (std::size_t i = 0; i < c.size(); ++i) c[i] = unit() < 0.5 ? a[i] : b[i];
            // Later tries mutate harder: the neighbourhood of good parents fills up.
            const double rate = std::min(1.0, mutation_ * (1 + tries / 4));
            for (std::size_t i = 0; i < c.size(); ++i) {
                const uint32_t card = d_.cardinality(i);
                if (card > 1 && unit() < rate) c[i] = draw_other(rng_, c[i], card);
            }
            if (!seen(c) && !contains(gen, c) && d_.contains(c)) return c;
        }
        auto p = fresh_sample();
        if (p && !contains(gen, *p)) return p;
        return std::nullopt;
    }

    std::size_t size_ = 20, tournament_ = 3;
    double mutation_ = 0.1;
    std::vector<member> pop_, children_;
    std::vector<point> queue_;
};

}  // namespace

std::unique_ptr<strategy> make_genetic(const strategy_setup& s, const search_domain& d) {
    return std::make_unique<genetic>(d, s);
}

}  // namespace hone
