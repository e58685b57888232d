// Iterated local search: from the current point, unseen neighbours (one parameter changed) are
// evaluated `batch` at a time in random order; after each batch the search moves to the best
// neighbour if it beats the current point. When every neighbour has been seen and none is
// better, the point is a local optimum: the search restarts from the best point found with
// `perturbation` parameters changed at random.
#include <algorithm>

#include "search/search_base.hpp"
#include "search/strategies.hpp"

namespace hone {
namespace {

class local_search final : public search_base {
  public:
    local_search(const search_domain& d, const strategy_setup& s) : search_base(d, s) {
        batch_ = static_cast<std::size_t>(option("batch"));
        kick_ = static_cast<std::size_t>(option("perturbation"));
        adjacent_ = option("adjacent") != 0;
    }

  private:
    void next(std::size_t n, std::vector<point>& out) override {
        if (!pending_.empty()) return;  // decide after the batch's outcomes
        if (candidate_ && (!current_ || candidate_score_ < current_score_)) {
            current_ = candidate_, current_score_ = candidate_score_;
            todo_.clear();
        }
        candidate_.reset();
        if (!current_) {
            start(n, out);
            return;
        }
        if (todo_.empty()) {
            for (auto& q : neighbours(*current_, adjacent_))
                if (!seen(q)) todo_.push_back(std::move(q));
            for (std::size_t i = todo_.size(); i > 1; --i) std::swap(todo_[i - 1], todo_[below(i)]);
            if (todo_.empty()) {  // a local optimum
                current_.reset();
                start(n, out);
                return;
            }
        }
        while (out.size() < std::min(n, batch_) && !todo_.empty()) {
            take(todo_.back(), out);
            todo_.pop_back();
        }
    }

    // The first point, or a perturbed copy of the best after a local optimum; random points
    // until one has an outcome.
    void start(std::size_t n, std::vector<point>& out) {
        if (best_) {
            for (int tries = 0; tries < 64; ++tries) {
                point q = best_point_;
                for (std::size_t k = 0; k < kick_; ++k) {
                    const std::size_t i = below(q.size());
                    const uint32_t card = d_.cardinality(i);
                    if (card > 1) q[i] = draw_other(rng_, q[i], card);
                }
                if (take(q, out)) return;
            }
        }
        if (auto p = fresh_sample()) take(*p, out);
    }

    void learn(const point& p, std::optional<double> score, bool ours) override {
        if (!ours || !score) return;
        if (!current_) {  // a starting point: the first with an outcome becomes current
            if (!candidate_ || *score < candidate_score_) candidate_ = p, candidate_score_ = *score;
            return;
        }
        if (*score < current_score_ && (!candidate_ || *score < candidate_score_))
            candidate_ = p, candidate_score_ = *score;
    }

    std::size_t batch_ = 8, kick_ = 3;
    bool adjacent_ = false;
    std::optional<point> current_, candidate_;
    double current_score_ = 0, candidate_score_ = 0;
    std::vector<point> todo_;
};

}  // namespace

std::unique_ptr<strategy> make_local_search(const strategy_setup& s, const search_domain& d) {
    return std::make_unique<local_search>(d, s);
}

}  // namespace hone
