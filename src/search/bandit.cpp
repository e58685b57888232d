// A bandit over unlike searches: gp_climb (descents beside a Gaussian process), sweep (the
// neighbourhoods of the fastest configurations, one after another) and genetic (crossover of
// the fastest). Each is told every outcome; each proposal slot goes to a member in proportion
// to its share, which rises with the improvements of the best its own proposals made lately.
// Every member keeps a floor share whatever the credits, so a search whose kind of move the
// space rewards late (a lone optimum on a plateau, a basin the model undervalues) is never
// starved; the budget follows the member that is finding improvements the rest of the time.
#include <algorithm>
#include <cmath>

#include "search/search_base.hpp"
#include "search/strategies.hpp"

namespace hone {
namespace {

class bandit final : public strategy {
  public:
    bandit(const strategy_setup& s, const search_domain& d) {
        auto opt = [&](const char* k, double fallback) {
            return s.options.count(k) ? s.options.at(k) : fallback;
        };
        floor_ = opt("floor", 0.1);
        decay_ = std::pow(0.5, 1.0 / opt("half_life", 100));
        const double lead = opt("lead", 4);
        const char* names[] = {"gp_climb", "sweep", "genetic"};
        for (std::size_t i = 0; i < 3; ++i) {
            strategy_setup m = s;
            m.name = names[i];
            m.options.clear();
            m.seed = s.seed ^ (0x9e3779b97f4a7c15ull * i);  // the members draw independently
            members_.push_back({make_base(m, d), i == 0 ? lead : 1.0, 0.0, 0.0});
        }
        // Members beyond the floors' total share what is left.
        floor_ = std::min(floor_, 1.0 / static_cast<double>(members_.size()));
    }

    std::vector<point> propose(std::size_t n) override {
        std::vector<point> out;
        // Slots by deficit: each member is owed its share of every slot, and the one owed most
        // takes the next. Each member is then asked once for its slots (a model fits once a
        // call); the slots of one that waits for outcomes go to the others, most owed first, so
        // that the compile pool keeps busy.
        const std::vector<double> shares = this->shares();
        std::vector<double> owed;
        for (const auto& m : members_) owed.push_back(m.owed);
        std::vector<std::size_t> quota(members_.size(), 0), order(members_.size());
        for (std::size_t k = 0; k < n; ++k) {
            std::size_t pick = members_.size();
            for (std::size_t i = 0; i < members_.size(); ++i) {
                owed[i] += shares[i];
                if (members_[i].base->done()) continue;
                if (pick == members_.size() || owed[i] > owed[pick]) pick = i;
            }
            if (pick == members_.size()) break;
            owed[pick] -= 1;
            ++quota[pick];
        }
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return quota[a] > quota[b]; });
        for (int round = 0; round < 2 && out.size() < n; ++round) {
            for (std::size_t i : order) {
                const std::size_t ask = round == 0 ? quota[i] : n - out.size();
                if (ask == 0 || members_[i].base->done()) continue;
                for (auto& p : members_[i].base->propose(ask)) {
                    for (auto& m : members_)
                        if (&m != &members_[i]) m.base->exclude(p);
                    for (std::size_t j = 0; j < members_.size(); ++j) members_[j].owed += shares[j];
                    members_[i].owed -= 1;
                    owner_[p] = i;
                    out.push_back(std::move(p));
                }
                if (out.size() >= n) break;
            }
        }
        // What a waiting member is owed is bounded by a window, so that it does not take every
        // slot for a long while once it proposes again.
        const double bound = static_cast<double>(std::max<std::size_t>(n, 1));
        for (auto& m : members_) m.owed = std::clamp(m.owed, -bound, bound);
        return out;
    }

    void observe(const point& p, std::optional<double> objective) override {
        for (auto& m : members_) {
            m.credit *= decay_;
            m.base->observe(p, objective);
        }
        const auto it = owner_.find(p);
        if (objective && std::isfinite(*objective) && (!best_ || *objective < *best_)) {
            if (best_ && it != owner_.end()) members_[it->second].credit += 1;
            best_ = objective;
        }
        if (it != owner_.end()) owner_.erase(it);
    }

    bool done() const override {
        return std::all_of(members_.begin(), members_.end(),
                           [](const auto& m) { return m.base->done(); });
    }

  private:
    struct member {
        std::unique_ptr<search_base> base;
        double prior;   // weight before any credit
        double credit;  // improvements of the best, each halving over half_life evaluations
        double owed;    // slots owed (its shares of the slots handed out, minus those it took)
    };

    std::vector<double> shares() const {
        double total = 0;
        for (const auto& m : members_) total += m.prior + m.credit;
        const double rest = 1.0 - floor_ * static_cast<double>(members_.size());
        std::vector<double> out;
        for (const auto& m : members_) out.push_back(floor_ + rest * (m.prior + m.credit) / total);
        return out;
    }

    static std::unique_ptr<search_base> make_base(const strategy_setup& s, const search_domain& d) {
        auto st = make_strategy(s, d);
        return std::unique_ptr<search_base>(static_cast<search_base*>(st.release()));
    }

    std::vector<member> members_;
    double floor_ = 0.1, decay_ = 1;
    std::optional<double> best_;
    point_map<std::size_t> owner_;  // proposed, not observed yet: by which member
};

}  // namespace

std::unique_ptr<strategy> make_bandit(const strategy_setup& s, const search_domain& d) {
    return std::make_unique<bandit>(s, d);
}

}  // namespace hone
