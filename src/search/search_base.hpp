// What the strategies share: the points already proposed or observed (a point is never proposed
// twice), the budget, the seeded generator, outcomes on a log scale, and the neighbours of a
// point. A strategy adds its own proposals in next() and learns in learn().
#pragma once
#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <unordered_map>
#include <unordered_set>

#include "search/rng.hpp"
#include "search/strategy.hpp"

namespace hone {

struct point_hash {
    std::size_t operator()(const point& p) const noexcept {
        uint64_t h = 0x9e3779b97f4a7c15ull;
        for (uint32_t v : p) h = (h ^ v) * 0x100000001b3ull + (h >> 29);
        return static_cast<std::size_t>(h);
    }
};
using point_set = std::unordered_set<point, point_hash>;
template <class V>
using point_map = std::unordered_map<point, V, point_hash>;

// Valid points of `d` that differ from p in one parameter: any other value, or only the values
// next to it in its list; with adjacent_only, a parameter of at most any_value_up_to values
// still takes any other value. In parameter order, then value order.
std::vector<point> domain_neighbours(const search_domain& d, const point& p, bool adjacent_only,
                                     uint32_t any_value_up_to = 0);
// A descent's neighbours (gp_climb's, sweep's reach 1, gp_sweep's polish): any other value of a
// parameter of up to this many values, the next value up or down of a longer list.
constexpr uint32_t descent_any_value_up_to = 4;

// Outcomes as the strategies compare them: log of the time (or of 1/throughput, as the tuner
// passes throughput negated), so that ratios, not differences, matter.
inline double log_score(double objective) {
    return objective > 0 ? std::log(objective) : -std::log(-objective);
}

class search_base : public strategy {
  public:
    std::vector<point> propose(std::size_t n) final;
    void observe(const point& p, std::optional<double> objective) final;
    bool done() const final { return done_; }
    // A point another strategy proposed (in a portfolio): never propose it; its outcome will
    // be observed.
    void exclude(const point& p) {
        if (seen_.insert(p).second) foreign_.insert(p);
    }
    std::size_t pending() const { return pending_.size(); }

  protected:
    search_base(const search_domain& d, const strategy_setup& s);

    // Appends up to n points through take(). Returning none while points are pending means
    // "waiting for outcomes"; with none pending, the base proposes a random point instead.
    virtual void next(std::size_t n, std::vector<point>& out) = 0;
    // An outcome (log_score; nullopt = failed). `ours`: this strategy proposed it.
    virtual void learn(const point& p, std::optional<double> score, bool ours) {}

    // Adds p to `out` when it is valid and new; false otherwise.
    bool take(const point& p, std::vector<point>& out);
    bool seen(const point& p) const { return seen_.count(p) > 0; }
    // A valid point not seen yet, drawn uniformly; nullopt when none is left (or none found).
    std::optional<point> fresh_sample();
    // Valid points that differ from p in one parameter: any other value, or only the values
    // next to it in its list; with adjacent_only, a parameter of at most any_value_up_to values
    // still takes any other value.
    std::vector<point> neighbours(const point& p, bool adjacent_only,
                                  uint32_t any_value_up_to = 0) const;
    // The values parameter i of p can move to in such a neighbour (valid or not), in order.
    std::vector<uint32_t> moves(const point& p, std::size_t i, bool adjacent_only,
                                uint32_t any_value_up_to = 0) const;
    double option(const std::string& name) const;
    uint64_t below(uint64_t n) { return draw_below(rng_, n); }
    double unit() { return draw_unit(rng_); }
    // Evaluations left in the budget, counting those proposed and not yet observed (UINT64_MAX
    // without a budget).
    uint64_t left() const;
    // A score for failed points where a number is needed: worse than every outcome seen.
    double failure_score() const { return worst_ ? *worst_ + 1.0 : 1.0; }

    const search_domain& d_;
    std::mt19937_64 rng_;
    uint64_t budget_ = 0;  // 0 = none
    std::map<std::string, double> options_;
    point_map<std::optional<double>> known_;  // observed outcomes (log scores)
    std::vector<std::pair<point, std::optional<double>>> history_;  // in observation order
    point_set pending_;                                             // proposed, not observed
    std::optional<double> best_, worst_;
    point best_point_;

  private:
    point_set seen_;     // proposed, excluded or observed
    point_set foreign_;  // excluded, not observed yet
    bool done_ = false;
};

}  // namespace hone
