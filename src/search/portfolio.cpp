// A portfolio: model-based search (bayes_opt) and annealing walkers take turns proposing, and
// every outcome goes to both. The model exploits what all evaluations taught it; the walkers,
// blind to the model, keep exploring basins it undervalues (spaces where the fastest
// configurations differ from what the good ones have in common).
#include <algorithm>

#include "search/search_base.hpp"
#include "search/strategies.hpp"

namespace hone {
namespace {

class portfolio final : public strategy {
  public:
    portfolio(const strategy_setup& s, const search_domain& d) {
        strategy_setup model = s, walk = s;
        model.name = "bayes_opt";
        model.options = {
            {"batch", s.options.count("model_batch") ? s.options.at("model_batch") : 4}};
        walk.name = "annealing";
        walk.options = {{"walkers", s.options.count("walkers") ? s.options.at("walkers") : 2}};
        walk.seed = s.seed ^ 0x5deece66dull;  // the members draw independently
        members_.push_back(make_base(model, d));
        members_.push_back(make_base(walk, d));
    }

    std::vector<point> propose(std::size_t n) override {
        std::vector<point> out;
        // Each member in turn, starting after the one that went first last time.
        for (std::size_t k = 0; k < members_.size() && out.size() < n; ++k) {
            auto& m = members_[(turn_ + k) % members_.size()];
            if (m->done()) continue;
            for (auto& p : m->propose(n - out.size())) {
                for (auto& other : members_)
                    if (other != m) other->exclude(p);
                out.push_back(std::move(p));
            }
        }
        turn_ = (turn_ + 1) % members_.size();
        return out;
    }

    void observe(const point& p, std::optional<double> objective) override {
        for (auto& m : members_) m->observe(p, objective);
    }

    bool done() const override {
        return std::all_of(members_.begin(), members_.end(),
                           [](const auto& m) { return m->done(); });
    }

  private:
    static std::unique_ptr<search_base> make_base(const strategy_setup& s, const search_domain& d) {
        auto st = make_strategy(s, d);
        return std::unique_ptr<search_base>(static_cast<search_base*>(st.release()));
    }

    std::vector<std::unique_ptr<search_base>> members_;
    std::size_t turn_ = 0;
};

}  // namespace

std::unique_ptr<strategy> make_portfolio(const strategy_setup& s, const search_domain& d) {
    return std::make_unique<portfolio>(s, d);
}

}  // namespace hone
