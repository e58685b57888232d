// Best-first neighbourhood sweep: every unseen neighbour of the best configuration seen so far
// (one parameter changed, to any other value), in random order; when those are all seen, the
// next best configuration whose neighbours are not; a better configuration, whoever found it,
// becomes the next centre at once. Unlike a descent it never stops at a local optimum: it goes
// on through the neighbourhoods of the fastest configurations in turn, which finds an optimum
// that stands alone on a plateau of nearly as fast ones (pnpoly on a TITAN RTX: one
// configuration within 5% of the optimum, a one-parameter change from dozens within 10-15%),
// where what the fast configurations have in common does not point to it.
#include <algorithm>

#include "search/search_base.hpp"
#include "search/strategies.hpp"

namespace hone {
namespace {

class sweep final : public search_base {
  public:
    sweep(const search_domain& d, const strategy_setup& s)
        : search_base(d, s), near_(option("reach") > 0) {}

    // The current centre's neighbours still to propose, in the order they will be.
    std::vector<point> likely(std::size_t n) const override {
        std::vector<point> out;
        for (auto it = todo_.rbegin(); it != todo_.rend() && out.size() < n; ++it)
            if (!seen(*it)) out.push_back(*it);
        return out;
    }

  private:
    void next(std::size_t n, std::vector<point>& out) override {
        while (out.size() < n) {
            if (todo_.empty() && !refill()) return;
            take(todo_.back(), out);
            todo_.pop_back();
        }
    }

    // The next centre's unseen neighbours into todo_; false when no observed configuration has
    // any left (or none has an outcome yet: the base then draws at random).
    bool refill() {
        while (todo_.empty()) {
            if (centre_ && !refocus_) swept_.insert(*centre_);
            refocus_ = false;
            centre_.reset();
            for (const auto& [p, s] : known_) {
                if (!s || swept_.count(p)) continue;
                if (!centre_ || *s < centre_score_ || (*s == centre_score_ && p < *centre_))
                    centre_ = p, centre_score_ = *s;
            }
            if (!centre_) return false;
            for (auto& q : near_ ? neighbours(*centre_, true, descent_any_value_up_to)
                                 : neighbours(*centre_, false))
                if (!seen(q)) todo_.push_back(std::move(q));
            for (std::size_t i = todo_.size(); i > 1; --i) std::swap(todo_[i - 1], todo_[below(i)]);
        }
        return true;
    }

    void learn(const point& p, std::optional<double> score, bool) override {
        // A new best leaves the current centre unswept: it is taken up again in its turn.
        if (score && centre_ && *score < centre_score_ && p != *centre_) {
            todo_.clear();
            refocus_ = true;
        }
    }

    bool near_ = false;  // reach 1: a descent's neighbours only
    std::optional<point> centre_;
    double centre_score_ = 0;
    bool refocus_ = false;
    point_set swept_;
    std::vector<point> todo_;
};

}  // namespace

std::unique_ptr<strategy> make_sweep(const strategy_setup& s, const search_domain& d) {
    return std::make_unique<sweep>(d, s);
}

}  // namespace hone
