// gp_climb until it stagnates, then neighbourhood sweeps beside it. Until gp_climb's model has
// stopped proposing (`sweep_from`, gp_climb's model_until: from there on its only moves are
// descents and their two-change escapes) and the best has gone without improving for
// `patience` times the evaluations it took to get there (and at least `patience_min`), every
// proposal is gp_climb's, the same as gp_climb alone with the same seed: where the model and its
// descents keep finding faster configurations (SGEMM's large space improves to its 500th
// evaluation) or find the optimum within the model's phase, nothing changes. Once stagnant,
// `share` of the proposals go to `sweep` (every neighbour of the fastest configurations seen,
// one centre after another), the rest to gp_climb, until a proposal of gp_climb's improves the
// best again. A stagnation measured relative to the evaluations spent is the same test on any
// budget and any space: a search that took 300 evaluations to its best and then 300 more
// without a gain is stuck, one that took 600 has earned 600 more. Sweeping earlier, while the
// model still proposes, slows gp_climb by the share wherever it would have recovered alone
// (convolution W6600: a best found after 150-200 evaluations, after a stagnation). The sweep is
// what the descents lack where the optimum stands alone on a plateau of nearly as fast
// configurations (pnpoly on a TITAN RTX: the descents stop at the plateau's first local
// optimum; the optimum is a one-parameter change from a dozen of the plateau's fastest): it
// never stops at a local optimum, and each centre costs one neighbourhood, so a guaranteed share
// reaches the plateau's best points in turn.
//
// Before sweep_from, a stalled best (the same relative test) gets a polish (`polish` 2): its
// untried descent neighbours (any value of a parameter of up to 4 values, the next value up or
// down of a longer list) take the share, once for each best point, and a better one found so
// is polished in turn. gp_climb's best is often a model pick that no descent ever stood at:
// on pnpoly TITAN RTX, design seeds stayed 300 evaluations at the plateau's third fastest
// configuration, one change from the optimum. The cost is bounded by construction (a
// neighbourhood of a best point, none where a descent already stood there), so it does not
// slow gp_climb's recoveries from a stall the way sweeping the whole plateau early did
// (`polish` 1, the fastest configurations' descent neighbours one after another: on convolution
// W6600, 43 of 60 design seeds within 95% by 200 evaluations instead of 48).
//
// Once the polish is done, children (`breed` 20) take the share: children of the `breed`
// fastest configurations seen (uniform crossover and mutation, genetic's defaults), a first
// `breed` of them for each best point (a probe), more while they join the fastest `breed` as
// often as gp_climb's proposals do, both counted from their outcomes since the best last
// improved: the two sources compared on the same data, no threshold of a space's times. Where
// the fast configurations are many and alike (pnpoly on a TITAN RTX: a plateau of a few tile
// sizes and one method, its lone optimum among their block sizes and between-methods),
// recombining them reaches an optimum that neither the model nor a descent points to (Kernel
// Tuner's genetic algorithm, a population recombined and mutated, is ahead of gp_climb there by
// 200 evaluations); where children fall behind gp_climb's proposals, their only cost is the probe
// of each best point.
//
// `pick` (1 by default) draws several children for each one proposed and proposes the one whose
// values are most common among the fastest configurations seen and rarest among the others (a
// Parzen density ratio over independent parameters, from counts): on a plateau where the
// optimum differs from the fastest seen by a value of each of two parameters, one of them far
// along a long list (pnpoly on a TITAN RTX), such values are what the fastest share and the
// slow ones lack. It is not the default: with the earlier stall (`patience` 0.5) that makes it
// pay by 200 evaluations, it lost convolution W6600's goal on held-out seeds.
//
// `gain` 1 (the default) lets only a gain larger than the spread of the `breed` fastest seen
// (the slowest of them against the best) restart the stall clock from sweep_from on; before,
// any gain does, so the first 300 proposals are those of `gain` 0 (any gain restarts it). The
// longest searches on pnpoly TITAN RTX are those whose best creeps up its plateau by under 1%
// after evaluation 300: each such gain restarted the clock, so a gain at 360 kept the sweep out
// until 720. On 200 held-out seeds there, `gain` 0 reached 95% of the optimum by 1,000
// evaluations in 197 and `gain` 1 in all 200 (the last by 706); on the other 11 recorded spaces
// it changed no figure at 200 or 1,000. Its cost: on the recorded SGEMM subset a tiny gain (a
// best 0.9550 to 0.9551 of the optimum) can precede gp_climb's own escape to the optimum, which
// the sweeps' share of the proposals then delays past 500 evaluations (3 seeds of 120 behind,
// mean best 0.9982 instead of 0.9986); on configs/sgemm_large.yaml on an H200, three seeds of
// 500 evaluations found the same as `gain` 0 within 1%. `gain` 2 judges gains so from the
// start: the polish and children begin earlier, which gains on pnpoly TITAN RTX by 200
// evaluations and costs convolution W6600.
//
// `draw` 1 draws breed's children as Kernel Tuner 1.5's genetic algorithm does (parents ranked
// by a Beta(1, 2.5) draw, one parameter mutated with chance 0.1, a child already seen drawn
// again at no cost) instead of genetic's (tournaments, each parameter mutated, harder on each
// retry). A re-implementation of Kernel Tuner's algorithm on pnpoly TITAN RTX reached 95% of
// the optimum by 200 evaluations in 30 of 60 seeds, 31 with the fastest seen as its population,
// but 21 when each generation had to be 26 unseen children: its revisits are free, so its
// population of the fastest is renewed after a few new evaluations, and its children are
// recombinations of them with rare mutation. Here a child is drawn from the fastest seen at
// the time it is proposed, with no harder mutation to force an unseen one.
// `draw` 2 proposes the fastest configurations' recombinations instead (each parameter one of
// the values of the `breed` fastest seen), one after another, never one twice, best-first by
// pick's density ratio (values common among the fastest, rare among the others). On pnpoly
// TITAN RTX the optimum's values are all among the 20 fastest seen when the first child is due
// in most seeds, but it is one of their 89-673 recombinations, which two-parent children drawn
// at random reach slowly: design seeds reached 95% of the optimum by 200 evaluations in 57 of
// 120 instead of 48, level elsewhere. When and how many children are proposed is unchanged;
// no option shifting more proposals to them before evaluation 200 spared convolution W6600
// (bench/strategies-protocol.md). Not the default.
// `arm` 1 or 2 gives such children a share of the proposals beside gp_climb from the start (a
// portfolio), shifted by their record of wins against gp_climb's. Neither is the default: on
// convolution W6600 the arm's share before evaluation 200 costs gp_climb's recoveries there
// (bench/strategies-protocol.md).
//
// `rank` 3 (the default; 0: none) gives, from `rank_from` (100) proposals on, one proposal in 3
// to a model-mean ranking: a ridge regression of log time on the parameters' one-hot main
// effects and all pairwise interactions (kernel form, ridge 5), fitted to every timed outcome,
// ranks every unseen configuration by predicted mean alone (no variance term, unlike the
// expected improvement of `score`, branch s35e, which ranked children by the model's spread),
// and its best four are proposed, then it is refitted. `rank` 1 uses the same ranking instead
// of breed's children once stalled. Where the optimum is a spike on a plateau (pnpoly TITAN
// RTX), no model ranks it first from 100 evaluations, but refitted on its own fastest picks
// this one brings it near the top: design seeds 6741..6860, within 95% by 200 / 400
// evaluations, 85 / 118 of 120 with `rank` 3 against 54 / 100 without; convolution W6600 105 /
// 117 against 107 / 115 (`rank` 2: 87 / 117 and 99 / 117; `rank` 1: 33 and 53 of 60 against
// 28 and 54 by 200). Run once on report seeds 10521..10540 (bench/strategies-protocol.md):
// pnpoly TITAN RTX 13 of 20 by 200 against 8, the other spaces within a seed, 100% by 1,000
// everywhere; on the recorded SGEMM subset the optimum by 500 in 59 of 60 seeds against 51.
//
// `flip` 1 (the default; 0: none) gives every other of rank's slots to the best point's untried
// neighbours in the parameters of up to 4 values (any other value: a method, a flag, a short
// tile list), once for each best point, while the stall rule may keep the polish out for as
// many evaluations again as the best took to find: on pnpoly RTX 3060 Laptop (hub) the seeds
// that missed 95% by 200 evaluations stood from about evaluation 100 at a configuration one
// `between_method` away from the optimum, found by a proposal that was not a descent's. On 240
// design seeds (8161..8400, bench/strategies-protocol.md) it took that space from 209 to 239
// within 95% by 200 evaluations, level elsewhere but convolution A100 (hub), 152 against 157.

#include <algorithm>
#include <cmath>
#include <set>

#include "search/search_base.hpp"
#include "search/strategies.hpp"

namespace hone {
namespace {

// The breeding's selection and mutation: genetic's defaults.
constexpr std::size_t tournament = 3;
constexpr double mutation = 0.1;
// Option rank's model and candidates (refit_ranking).
constexpr double rank_ridge = 5;
constexpr std::size_t rank_batch = 4;
constexpr uint64_t rank_enumerate = 2000000;
constexpr std::size_t rank_draws = 20000;

class gp_sweep final : public strategy {
  public:
    gp_sweep(const strategy_setup& s, const search_domain& d)
        : d_(d),
          rng_(s.seed ^ 0xbb67ae8584caa73bull),
          budget_(s.budget > 0 ? static_cast<std::size_t>(s.budget) : 0) {
        auto opt = [&](const std::string& k) {
            if (s.options.count(k)) return s.options.at(k);
            for (const auto& o : find_strategy("gp_sweep")->options)
                if (o.name == k) return o.fallback;
            return 0.0;
        };
        patience_ = opt("patience");
        patience_min_ = static_cast<std::size_t>(opt("patience_min"));
        share_ = opt("share");
        from_ = static_cast<std::size_t>(opt("sweep_from"));
        strategy_setup climb = s, sweep = s;
        climb.name = "gp_climb";  // its own seed: the same proposals as gp_climb alone
        climb.options.clear();
        for (std::string_view k : gp_sweep_climb_options)
            climb.options[std::string(k)] = opt(std::string(k));  // passed on
        sweep.name = "sweep";
        sweep.options.clear();
        sweep.seed = s.seed ^ 0x9e3779b97f4a7c15ull;  // draws independent of gp_climb's
        climb_ = make_base(climb, d);
        sweep_ = make_base(sweep, d);
        polish_mode_ = static_cast<int>(opt("polish"));
        breed_ = static_cast<std::size_t>(opt("breed"));
        generations_ = static_cast<std::size_t>(opt("generations"));
        pick_ = static_cast<std::size_t>(opt("pick"));
        gain_ = static_cast<int>(opt("gain"));
        arm_ = static_cast<int>(opt("arm"));
        draw_ = static_cast<int>(opt("draw"));
        rank_ = static_cast<std::size_t>(opt("rank"));
        rank_from_ = static_cast<std::size_t>(opt("rank_from"));
        flip_ = opt("flip") > 0;
        counts_.resize(d.dims());
        for (std::size_t i = 0; i < d.dims(); ++i) counts_[i].assign(d.cardinality(i), 0);
        if (polish_mode_ == 1) {
            strategy_setup near = sweep;
            near.options["reach"] = 1;
            near.seed = s.seed ^ 0x6a09e667f3bcc909ull;
            polish_ = make_base(near, d);
        }
    }

    // gp_climb's descents and the sweep or polish under way are the predictable part (each
    // told of every point the others propose): theirs in turn.
    std::vector<point> likely(std::size_t n) const override {
        const search_base* aside = sweeping_ ? sweep_.get() : polishing_ ? polish_.get() : nullptr;
        std::vector<point> a = climb_->done() ? std::vector<point>{} : climb_->likely(n);
        std::vector<point> b = aside && !aside->done() ? aside->likely(n) : std::vector<point>{};
        std::vector<point> out;
        point_set taken;
        for (std::size_t k = 0; k < std::max(a.size(), b.size()) && out.size() < n; ++k)
            for (std::vector<point>* v : {&a, &b})
                if (k < v->size() && out.size() < n && taken.insert((*v)[k]).second)
                    out.push_back(std::move((*v)[k]));
        return out;
    }

    std::vector<point> propose(std::size_t n) override {
        // Option rank: from rank_from proposals on, one slot in rank_ goes to the unseen
        // configuration of best predicted mean under the pairs model (ranked()), placed last in
        // the batch, so that none is proposed before rank_from.
        std::size_t slots = 0;
        if (rank_ > 1)
            for (std::size_t k = 0; k < n; ++k) {
                const std::size_t at = seen_.size() + k + 1;
                if (at > rank_from_ &&
                    static_cast<double>(ranked_ + slots) <
                        static_cast<double>(at - rank_from_) / static_cast<double>(rank_))
                    ++slots;
            }
        std::vector<point> out = propose_rest(n - slots);
        for (std::size_t k = 0; k < slots && out.size() < n; ++k) {
            auto p = next_flip();
            if (!p) p = ranked();
            if (!p) {  // nothing timed yet to fit (every outcome failed), or nothing left
                for (auto& q : propose_rest(n - out.size())) out.push_back(std::move(q));
                break;
            }
            ++ranked_;
            set_aside(*p, out);
        }
        return out;
    }

    std::vector<point> propose_rest(std::size_t n) {
        std::vector<point> out;
        if (!sweeping_ && stagnant()) sweeping_ = true, polishing_ = false;
        if (!sweeping_ && !polishing_ && polish_mode_ > 0 && idle_long()) polishing_ = true;
        if (polishing_ && polish_mode_ == 2 && !refill() && !breeding()) polishing_ = false;
        search_base* aside = sweeping_ ? sweep_.get() : polishing_ ? polish_.get() : nullptr;
        if (!aside && !polishing_) {
            // gp_climb alone (the others are told of its points, never propose them), or beside
            // the arm (option arm) with the share its record of gains earns.
            const std::size_t owed = arm_owed(n);
            for (auto& p : climb_->propose(n - owed)) add(p, climb_.get(), out);
            const std::size_t to_arm = arm_slots(out.size(), n - out.size());
            const std::vector<point> pop = to_arm > 0 ? fastest(breed_) : std::vector<point>{};
            for (std::size_t k = 0; k < to_arm; ++k)
                if (auto c = arm_child(pop)) {
                    arm_pending_.insert(*c);
                    set_aside(*c, out);
                }
            // Out of budget or space: the sweep, told every point, finds so too (and is done).
            if (climb_->done())
                for (auto& p : sweep_->propose(n)) add(p, sweep_.get(), out);
            return out;
        }
        // Slots by deficit: the sweep takes the next one while its count is below its share of
        // the proposals made since the stagnation. A member that proposes fewer than its slots
        // (gp_climb waiting for its descents' outcomes) leaves them to the other, so that the
        // compile pool keeps busy.
        std::size_t to_sweep = 0;
        for (std::size_t k = 0; k < n; ++k)
            if (static_cast<double>(swept_ + to_sweep) <
                share_ * static_cast<double>(since_ + k + 1))
                ++to_sweep;
        const std::size_t to_climb = n - to_sweep;
        if (to_climb > 0 && !climb_->done())
            for (auto& p : climb_->propose(to_climb)) add(p, climb_.get(), out);
        if (out.size() < n && !aside) {  // polish 2: the best point's neighbours
            while (out.size() < n && refill()) {
                point p = std::move(todo_.back());
                todo_.pop_back();
                add(p, nullptr, out);
            }
            // Then children of the fastest configurations seen.
            if (out.size() < n && breeding()) {
                const std::vector<point> pop = fastest(breed_);
                const auto ratio = value_ratios(pop);
                while (out.size() < n && breeding()) {
                    auto c = rank_ == 1   ? ranked()
                             : draw_ == 2 ? elite_child(pop, ratio)
                             : draw_ == 1 ? arm_child(pop)
                                          : pick_child(pop, ratio);
                    if (!c) break;
                    children_.insert(*c);
                    add(*c, nullptr, out);
                    ++bred_;
                }
            }
        } else if (out.size() < n && !aside->done()) {
            for (auto& p : aside->propose(n - out.size())) add(p, aside, out);
        }
        if (out.size() < n && !climb_->done())
            for (auto& p : climb_->propose(n - out.size())) add(p, climb_.get(), out);
        // Out of budget or space: the sweep, told every point, finds so too (and is done).
        if (out.size() < n && climb_->done() && !sweep_->done())
            for (auto& p : sweep_->propose(n - out.size())) add(p, sweep_.get(), out);
        return out;
    }

    void observe(const point& p, std::optional<double> objective) override {
        seen_.insert(p);
        climb_->observe(p, objective);
        sweep_->observe(p, objective);
        if (polish_) polish_->observe(p, objective);
        ++observed_;
        for (std::size_t i = 0; i < p.size() && i < counts_.size(); ++i) ++counts_[i][p[i]];
        const auto it = by_sweep_.find(p);
        const bool swept = it != by_sweep_.end();
        if (swept) by_sweep_.erase(it);
        const bool timed = objective && std::isfinite(*objective);
        const auto a = arm_pending_.find(p);
        const bool by_arm = a != arm_pending_.end();
        if (by_arm) arm_pending_.erase(a);
        // The spread of the fastest breed_ seen before this outcome: where gain_ applies, a
        // smaller gain of the best does not restart the stall clock.
        const bool judged = gain_ == 2 || (gain_ == 1 && observed_ > from_);
        const double spread =
            judged && best_ && breed_ >= 2 && top_.size() >= breed_ ? top_.back() - *best_ : 0.0;
        if (breed_ >= 2)
            note(p, timed ? std::optional(log_score(*objective)) : std::nullopt, swept);
        if (arm_ > 0 && arm_on_) {
            // The arm's and gp_climb's records since the arm began (other proposals, the
            // polish's, children's and sweep's, are neither).
            const bool gains = timed && best_ && log_score(*objective) < *best_;
            const bool joins = timed && joined_;
            if (by_arm)
                ++arm_seen_, arm_won_ += arm_ == 1 ? gains : joins;
            else if (!swept)
                ++climb_arm_seen_, climb_arm_won_ += arm_ == 1 ? gains : joins;
        }
        if (!timed) return;
        const double score = log_score(*objective);
        if (best_ && score >= *best_) return;
        const bool small = best_ && *best_ - score < spread;
        best_ = score;
        best_point_ = p;
        if (!small) last_gain_ = observed_;
        todo_.clear();  // the new best's neighbours come first
        bred_ = child_seen_ = child_joined_ = climb_seen_ = climb_joined_ = 0;
        // gp_climb found a faster configuration: it is making progress again, and has the
        // proposals to itself until it stagnates anew.
        if (!swept) sweeping_ = polishing_ = false;
    }

    bool done() const override { return climb_->done() && sweep_->done(); }

  private:
    // No improvement of the best for patience times the evaluations it took to reach it.
    bool idle_long() const {
        if (!best_) return false;
        const std::size_t idle = observed_ - last_gain_;
        return idle >= patience_min_ &&
               static_cast<double>(idle) >= patience_ * static_cast<double>(last_gain_);
    }
    // The same from sweep_from on.
    bool stagnant() const { return observed_ >= from_ && idle_long(); }

    // Polish 2: the unseen neighbours (a descent's) of the best point into todo_, once for
    // each best point; false when there are none left.
    bool refill() { return queue_best_neighbours(todo_, polished_, false); }

    // The best point's unseen descent neighbours (only those in parameters of up to
    // descent_any_value_up_to values where `short_lists`) into `todo` in random order, once for
    // each best point (`done`), after the ones left there; false when none is left or the
    // budget is spent.
    bool queue_best_neighbours(std::vector<point>& todo, point_set& done, bool short_lists) {
        if (budget_ > 0 && seen_.size() >= budget_) return false;
        while (!todo.empty() && seen_.count(todo.back())) todo.pop_back();
        if (!todo.empty()) return true;
        if (!best_point_ || !done.insert(*best_point_).second) return false;
        const point& b = *best_point_;
        for (point& q : domain_neighbours(d_, b, true, descent_any_value_up_to)) {
            std::size_t i = 0;  // the parameter q changes
            while (q[i] == b[i]) ++i;
            if ((!short_lists || d_.cardinality(i) <= descent_any_value_up_to) && !seen_.count(q))
                todo.push_back(std::move(q));
        }
        std::shuffle(todo.begin(), todo.end(), rng_);
        return !todo.empty();
    }

    // Whether a child is due: the first `breed` for each best point are (a probe), the next
    // while children join the fastest `breed` configurations seen as often as gp_climb's
    // proposals do, both counted from their outcomes since the best last improved: a
    // comparison of the two sources on the same data, with no threshold of a space's times.
    bool breeding() const {
        if (breed_ < 2) return false;
        if (bred_ < breed_) return true;
        if (generations_ > 0 && bred_ >= breed_ * generations_) return false;
        if (child_seen_ == 0) return false;  // the probe's outcomes first
        if (climb_seen_ == 0) return child_joined_ > 0;
        return static_cast<double>(child_joined_) * static_cast<double>(climb_seen_) >=
               static_cast<double>(climb_joined_) * static_cast<double>(child_seen_);
    }

    // Breed's records of an outcome (score nullopt: failed): the timed ones, the fastest
    // breed_ scores, and whether a child's or gp_climb's proposal joined them.
    void note(const point& p, std::optional<double> score, bool swept) {
        bool joins = false;
        joined_ = false;
        if (score) {
            timed_.emplace_back(*score, p);
            joins = top_.size() < breed_ || *score < top_.back();
            joined_ = joins;
            if (joins) {
                top_.insert(std::upper_bound(top_.begin(), top_.end(), *score), *score);
                if (top_.size() > breed_) top_.pop_back();
            }
        }
        if (const auto c = children_.find(p); c != children_.end()) {
            children_.erase(c);
            ++child_seen_;
            child_joined_ += joins;
        } else if (!swept) {
            ++climb_seen_;
            climb_joined_ += joins;
        }
    }

    // The n fastest configurations observed, fastest first (ties: the first observed).
    std::vector<point> fastest(std::size_t n) const {
        std::vector<std::size_t> idx(timed_.size());
        for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
        const std::size_t k = std::min(n, idx.size());
        std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(k), idx.end(),
                          [&](std::size_t a, std::size_t b) {
                              return timed_[a].first < timed_[b].first ||
                                     (timed_[a].first == timed_[b].first && a < b);
                          });
        std::vector<point> out;
        for (std::size_t i = 0; i < k; ++i) out.push_back(timed_[idx[i]].second);
        return out;
    }

    // A child of two parents of `pop` (fastest first), each the fastest of `tournament` drawn
    // at random, by uniform crossover and a mutation of each parameter with chance `mutation`
    // (genetic's defaults), valid and unseen; later tries mutate harder, as the neighbourhood
    // of the parents fills up. nullopt when 32 tries found none (gp_climb takes the slot).
    std::optional<point> child(const std::vector<point>& pop) {
        if (pop.size() < 2 || (budget_ > 0 && seen_.size() >= budget_)) return std::nullopt;
        auto select = [&]() -> const point& {
            std::size_t best = draw_below(rng_, pop.size());
            for (std::size_t k = 1; k < tournament; ++k)
                best = std::min<std::size_t>(best, draw_below(rng_, pop.size()));
            return pop[best];
        };
        for (int tries = 0; tries < 32; ++tries) {
            const point& a = select();
            const point& b = select();
            point c(a.size());
            for (std::size_t i = 0; i < c.size(); ++i) c[i] = draw_unit(rng_) < 0.5 ? a[i] : b[i];
            const double rate = std::min(1.0, mutation * (1 + tries / 4));
            for (std::size_t i = 0; i < c.size(); ++i) {
                const uint32_t card = d_.cardinality(i);
                if (card > 1 && draw_unit(rng_) < rate) c[i] = draw_other(rng_, c[i], card);
            }
            if (!seen_.count(c) && d_.contains(c)) return c;
        }
        return std::nullopt;
    }

    // For each parameter and value, log(l / g): the value's share among `good` (the fastest
    // seen) over its share among every other configuration observed (failures included), each
    // with one pseudo-count a value. A child's sum of them is the density ratio of a
    // tree-structured Parzen estimator with independent parameters (Bergstra et al., 2011):
    // values common among the fastest and rare elsewhere score high.
    std::vector<std::vector<double>> value_ratios(const std::vector<point>& good) const {
        std::vector<std::vector<double>> r(counts_.size());
        if (pick_ < 2 && draw_ != 2) return r;
        const double n_good = static_cast<double>(good.size());
        const double n_rest = static_cast<double>(observed_) - n_good;
        for (std::size_t i = 0; i < counts_.size(); ++i) {
            const std::size_t card = counts_[i].size();
            std::vector<double> g(card, 0);
            for (const point& q : good) g[q[i]] += 1;
            r[i].resize(card);
            for (std::size_t v = 0; v < card; ++v) {
                const double rest = std::max(0.0, static_cast<double>(counts_[i][v]) - g[v]);
                r[i][v] = std::log((g[v] + 1) / (n_good + static_cast<double>(card))) -
                          std::log((rest + 1) / (n_rest + static_cast<double>(card)));
            }
        }
        return r;
    }

    // The child of `pick` candidates (child()) whose values score highest by value_ratios: the
    // fastest configurations' recombinations ordered by which of them resemble the fastest
    // more than the rest. 1: the first candidate.
    std::optional<point> pick_child(const std::vector<point>& pop,
                                    const std::vector<std::vector<double>>& ratio) {
        std::optional<point> best;
        double best_score = 0;
        for (std::size_t k = 0; k < std::max<std::size_t>(1, pick_); ++k) {
            auto c = child(pop);
            if (!c) break;
            if (pick_ < 2) return c;
            double score = 0;
            for (std::size_t i = 0; i < c->size(); ++i) score += ratio[i][(*c)[i]];
            if (!best || score > best_score) best = std::move(c), best_score = score;
        }
        return best;
    }

    // Draw 2: the unseen recombination of `pop` (each parameter one of the values the fastest
    // seen have) that scores highest by value_ratios, found best-first over the values ranked
    // per parameter (the score is a sum over parameters); an enumeration of the fastest
    // configurations' recombinations that never draws one twice. Kernel Tuner's children
    // (arm_child) once none is left or 4,096 were looked at.
    std::optional<point> elite_child(const std::vector<point>& pop,
                                     const std::vector<std::vector<double>>& ratio) {
        if (pop.size() < 2 || (budget_ > 0 && seen_.size() >= budget_)) return std::nullopt;
        const std::size_t dims = d_.dims();
        std::vector<std::vector<uint32_t>> vals(dims);  // per parameter, best ratio first
        for (std::size_t i = 0; i < dims; ++i) {
            for (const point& q : pop)
                if (std::find(vals[i].begin(), vals[i].end(), q[i]) == vals[i].end())
                    vals[i].push_back(q[i]);
            std::stable_sort(vals[i].begin(), vals[i].end(),
                             [&](uint32_t a, uint32_t b) { return ratio[i][a] > ratio[i][b]; });
        }
        auto score = [&](const std::vector<std::size_t>& at) {
            double v = 0;
            for (std::size_t i = 0; i < dims; ++i) v += ratio[i][vals[i][at[i]]];
            return v;
        };
        using entry = std::pair<double, std::vector<std::size_t>>;
        auto less = [](const entry& a, const entry& b) {
            return a.first < b.first || (a.first == b.first && a.second > b.second);
        };
        std::vector<entry> heap;
        std::set<std::vector<std::size_t>> queued;
        std::vector<std::size_t> start(dims, 0);
        heap.emplace_back(score(start), start);
        queued.insert(start);
        for (std::size_t looked = 0; !heap.empty() && looked < 4096; ++looked) {
            std::pop_heap(heap.begin(), heap.end(), less);
            const std::vector<std::size_t> at = std::move(heap.back().second);
            heap.pop_back();
            point c(dims);
            for (std::size_t i = 0; i < dims; ++i) c[i] = vals[i][at[i]];
            if (!seen_.count(c) && d_.contains(c)) return c;
            for (std::size_t i = 0; i < dims; ++i) {
                if (at[i] + 1 >= vals[i].size()) continue;
                std::vector<std::size_t> next = at;
                ++next[i];
                if (!queued.insert(next).second) continue;
                heap.emplace_back(score(next), std::move(next));
                std::push_heap(heap.begin(), heap.end(), less);
            }
        }
        return arm_child(pop);
    }

    // The slots of n that the arm is owed already (its accrued credit), none before it can
    // breed (breed_ timed outcomes) or once the budget is spent.
    std::size_t arm_owed(std::size_t n) {
        if (arm_ == 0 || breed_ < 2 || timed_.size() < breed_ ||
            (budget_ > 0 && seen_.size() >= budget_))
            return 0;
        arm_on_ = true;
        return std::min(n, static_cast<std::size_t>(arm_credit_));
    }

    // The arm's proposals beside `made` of gp_climb's (at most `free`): its credit grows by its
    // share per proposal of gp_climb's, so that the share is of the proposals made (gp_climb
    // waiting for its descents' outcomes gives the arm no extra slots). The share is `share`
    // scaled by the arm's rate of wins (gains of the best, arm 1; joins of the fastest breed_
    // seen, arm 2) against gp_climb's since the arm began, each with one win and two outcomes
    // of prior, within [share / 4, share].
    std::size_t arm_slots(std::size_t made, std::size_t free) {
        if (!arm_on_) return 0;
        const double arm_rate = (static_cast<double>(arm_won_) + 1) / (arm_seen_ + 2.0);
        const double climb_rate =
            (static_cast<double>(climb_arm_won_) + 1) / (climb_arm_seen_ + 2.0);
        const double s = share_ * std::clamp(arm_rate / (arm_rate + climb_rate), 0.25, 1.0);
        arm_credit_ += static_cast<double>(made) * (s < 1 ? s / (1 - s) : 1e9);
        const std::size_t k = std::min(free, static_cast<std::size_t>(arm_credit_));
        arm_credit_ -= static_cast<double>(k);
        return k;
    }

    // The arm's child (Kernel Tuner's genetic algorithm, its population the fastest breed_
    // seen): two parents ranked by a Beta(1, 2.5) draw, uniform crossover, and with chance
    // `mutation` one parameter set to another value. A child already seen is drawn again at no
    // cost (Kernel Tuner's revisits are free); nullopt after 256 draws.
    std::optional<point> arm_child(const std::vector<point>& pop) {
        if (pop.size() < 2 || (budget_ > 0 && seen_.size() >= budget_)) return std::nullopt;
        auto rank = [&] {
            const double x = 1 - std::pow(1 - draw_unit(rng_), 1 / 2.5);
            return std::min(pop.size() - 1, static_cast<std::size_t>(x * pop.size()));
        };
        for (int tries = 0; tries < 256; ++tries) {
            const std::size_t i = rank();
            std::size_t j = rank();
            while (j == i) j = rank();
            point c(pop[i].size());
            for (std::size_t k = 0; k < c.size(); ++k)
                c[k] = draw_unit(rng_) < 0.5 ? pop[i][k] : pop[j][k];
            if (draw_unit(rng_) < mutation) {
                const std::size_t k = draw_below(rng_, c.size());
                const uint32_t card = d_.cardinality(k);
                if (card > 1) c[k] = draw_other(rng_, c[k], card);
            }
            if (!seen_.count(c) && d_.contains(c)) return c;
        }
        return std::nullopt;
    }

    // Option flip: every other ranking slot, the best point's unseen neighbours in parameters
    // of up to descent_any_value_up_to values (any other value), once for each best point.
    std::optional<point> next_flip() {
        if (!flip_ || (flip_turn_++ % 2) == 1 || !queue_best_neighbours(flip_todo_, flipped_, true))
            return std::nullopt;
        point p = std::move(flip_todo_.back());
        flip_todo_.pop_back();
        return p;
    }

    // Option rank: the unseen configuration of lowest predicted log time under a ridge
    // regression on one-hot main effects and all pairwise interactions of the parameters,
    // fitted to every timed outcome (failures left out), pure exploitation (no variance term).
    // Two configurations' features share 1 + m + m(m-1)/2, m the parameters they share (kernel
    // ridge regression: a solve the size of the outcomes). Refitted after every rank_batch
    // proposals of it. Candidates: every configuration of the space when its product of
    // cardinalities is at most rank_enumerate, else rank_draws random ones.
    std::optional<point> ranked() {
        if (budget_ > 0 && seen_.size() >= budget_) return std::nullopt;
        while (!rank_queue_.empty() && seen_.count(rank_queue_.back())) rank_queue_.pop_back();
        if (rank_queue_.empty()) refit_ranking();
        while (!rank_queue_.empty() && seen_.count(rank_queue_.back())) rank_queue_.pop_back();
        if (rank_queue_.empty()) return std::nullopt;
        point p = std::move(rank_queue_.back());
        rank_queue_.pop_back();
        return p;
    }

    // The kernel: parameters of one value are left out (they are shared by every pair).
    double rank_kernel(const point& a, const point& b) const {
        double m = 0;
        for (std::size_t i = 0; i < d_.dims(); ++i) m += a[i] == b[i] && d_.cardinality(i) > 1;
        return 1 + m + 0.5 * m * (m - 1);
    }

    // Grows the Cholesky factor of K + ridge I by the outcomes timed since (outcomes are only
    // ever appended): a row each, O(n^2), instead of a new factor, O(n^3), at every refit.
    bool extend_factor() {
        for (std::size_t n = chol_.size(); n < timed_.size(); ++n) {
            std::vector<double> row(n + 1);
            for (std::size_t j = 0; j < n; ++j) {
                double v = rank_kernel(timed_[n].second, timed_[j].second);
                for (std::size_t k = 0; k < j; ++k) v -= row[k] * chol_[j][k];
                row[j] = v / chol_[j][j];
            }
            double diag = rank_kernel(timed_[n].second, timed_[n].second) + rank_ridge;
            for (std::size_t k = 0; k < n; ++k) diag -= row[k] * row[k];
            if (!(diag > 0)) return false;  // not with a positive ridge; kept as a guard
            row[n] = std::sqrt(diag);
            chol_.push_back(std::move(row));
        }
        return true;
    }

    void refit_ranking() {
        const std::size_t n = timed_.size();
        if (n < 2 || !extend_factor()) return;
        if (!rank_pool_ready_) {
            rank_pool_ready_ = true;
            const uint64_t size = cartesian_size(d_);
            if (size <= rank_enumerate) {
                for (uint64_t c = 0; c < size; ++c) {
                    point p = decode(d_, c);
                    if (d_.contains(p)) rank_pool_.push_back(std::move(p));
                }
            } else {
                point_set drawn;
                for (std::size_t k = 0; k < 4 * rank_draws && drawn.size() < rank_draws; ++k)
                    if (auto p = d_.sample(rng_); p && drawn.insert(*p).second)
                        rank_pool_.push_back(std::move(*p));
            }
        }
        // alpha = (K + ridge I)^-1 (y - mean(y)): two triangular solves with the factor.
        double mean = 0;
        for (const auto& t : timed_) mean += t.first;
        mean /= static_cast<double>(n);
        std::vector<double> a(n);
        for (std::size_t i = 0; i < n; ++i) {
            double v = timed_[i].first - mean;
            for (std::size_t k = 0; k < i; ++k) v -= chol_[i][k] * a[k];
            a[i] = v / chol_[i][i];
        }
        for (std::size_t i = n; i-- > 0;) {
            double v = a[i];
            for (std::size_t k = i + 1; k < n; ++k) v -= chol_[k][i] * a[k];
            a[i] = v / chol_[i][i];
        }
        // The prediction sum_i alpha_i k(c, x_i) in primal form: the kernel is 1 plus one term
        // for each shared parameter plus one for each shared pair, so the weights of each value
        // and each pair of values, summed over the outcomes, score a candidate in O(dims^2)
        // instead of O(n dims).
        const std::size_t dims = d_.dims();
        std::vector<std::size_t> used;
        for (std::size_t i = 0; i < dims; ++i)
            if (d_.cardinality(i) > 1) used.push_back(i);
        std::vector<std::vector<double>> mains(dims);
        for (const std::size_t i : used) mains[i].assign(d_.cardinality(i), 0.0);
        std::vector<std::vector<double>> pairs(used.size() * used.size());
        for (std::size_t u = 0; u < used.size(); ++u)
            for (std::size_t v = u + 1; v < used.size(); ++v)
                pairs[u * used.size() + v].assign(d_.cardinality(used[u]) * d_.cardinality(used[v]),
                                                  0.0);
        double total = 0;
        for (std::size_t k = 0; k < n; ++k) {
            const point& x = timed_[k].second;
            total += a[k];
            for (std::size_t u = 0; u < used.size(); ++u) {
                mains[used[u]][x[used[u]]] += a[k];
                for (std::size_t v = u + 1; v < used.size(); ++v)
                    pairs[u * used.size() + v][x[used[u]] * d_.cardinality(used[v]) + x[used[v]]] +=
                        a[k];
            }
        }
        std::vector<std::pair<double, std::size_t>> by;
        for (std::size_t c = 0; c < rank_pool_.size(); ++c) {
            const point& x = rank_pool_[c];
            if (seen_.count(x)) continue;
            double v = total;
            for (std::size_t u = 0; u < used.size(); ++u) {
                v += mains[used[u]][x[used[u]]];
                for (std::size_t w = u + 1; w < used.size(); ++w)
                    v += pairs[u * used.size() + w]
                              [x[used[u]] * d_.cardinality(used[w]) + x[used[w]]];
            }
            by.emplace_back(v, c);
        }
        const std::size_t k = std::min(rank_batch, by.size());
        std::partial_sort(by.begin(), by.begin() + static_cast<std::ptrdiff_t>(k), by.end());
        rank_queue_.clear();
        for (std::size_t i = k; i-- > 0;) rank_queue_.push_back(rank_pool_[by[i].second]);
    }

    // A proposal of none of the members (the arm's child, a ranked one): every member is told of
    // it, and its outcome is not gp_climb's; unlike add(), it takes no slot of the sweep's share.
    void set_aside(point& p, std::vector<point>& out) {
        seen_.insert(p);
        for (search_base* m : {climb_.get(), sweep_.get(), polish_.get()})
            if (m) m->exclude(p);
        by_sweep_.insert(p);
        out.push_back(std::move(p));
    }

    // A proposal of member `from` (nullptr: the polish's own), gp_climb's or set aside.
    void add(point& p, search_base* from, std::vector<point>& out) {
        seen_.insert(p);
        for (search_base* m : {climb_.get(), sweep_.get(), polish_.get()})
            if (m && m != from) m->exclude(p);
        if (sweeping_ || polishing_) ++since_;
        if (from != climb_.get()) {
            ++swept_;
            by_sweep_.insert(p);
        }
        out.push_back(std::move(p));
    }

    static std::unique_ptr<search_base> make_base(const strategy_setup& s, const search_domain& d) {
        auto st = make_strategy(s, d);
        return std::unique_ptr<search_base>(static_cast<search_base*>(st.release()));
    }

    const search_domain& d_;
    std::mt19937_64 rng_;
    std::size_t budget_;  // 0: none
    std::unique_ptr<search_base> climb_, sweep_, polish_;
    int polish_mode_ = 0;
    std::size_t breed_ = 0;         // population bred from once the polish is done; 0: none
    std::size_t generations_ = 0;   // children for each best point, at most this times breed_
    std::size_t pick_ = 1;          // candidates for each child (pick_child)
    int gain_ = 0;                  // which gains of the best restart the stall clock (option gain)
    int draw_ = 0;                  // how children are drawn (option draw)
    std::size_t rank_ = 0;          // option rank: one proposal in rank_ ranked; 0: none
    std::size_t rank_from_ = 100;   // proposals before the first ranked one
    std::size_t ranked_ = 0;        // ranked proposals made
    bool flip_ = false;             // option flip: half the ranking's slots to next_flip()
    std::size_t flip_turn_ = 0;     // ranking slots offered to next_flip()
    std::vector<point> flip_todo_;  // the flipped best point's unseen neighbours, next last
    point_set flipped_;             // best points whose neighbours were queued so
    bool rank_pool_ready_ = false;
    std::vector<point> rank_pool_;           // the candidates ranked (refit_ranking)
    std::vector<point> rank_queue_;          // the current ranking's next ones, best last
    std::vector<std::vector<double>> chol_;  // rows of the factor of K + ridge I (extend_factor)
    int arm_ = 0;            // the genetic arm beside gp_climb (option arm); 0: none
    bool arm_on_ = false;    // the arm has begun
    bool joined_ = false;    // the latest outcome joined the fastest breed_ (note)
    double arm_credit_ = 0;  // the arm's share of slots, accrued (arm_slots)
    point_set arm_pending_;  // the arm's proposals not observed yet
    // Since the arm began: its outcomes and gp_climb's, and their wins (arm_slots).
    std::size_t arm_seen_ = 0, arm_won_ = 0, climb_arm_seen_ = 0, climb_arm_won_ = 0;
    std::vector<std::vector<std::size_t>> counts_;  // per parameter and value: observed points
    std::size_t bred_ = 0;     // children proposed since the best last improved
    std::vector<double> top_;  // the fastest breed_ scores seen, ascending
    point_set children_;       // children not observed yet
    // Since the best last improved: children and gp_climb's proposals observed, and of them
    // those that joined the fastest breed_.
    std::size_t child_seen_ = 0, child_joined_ = 0, climb_seen_ = 0, climb_joined_ = 0;
    std::vector<std::pair<double, point>> timed_;  // every timed outcome (log score)
    point_set seen_, polished_;
    std::vector<point> todo_;
    std::optional<point> best_point_;
    double patience_ = 1, share_ = 0.5;
    std::size_t patience_min_ = 50, from_ = 300;
    bool sweeping_ = false, polishing_ = false;
    std::size_t since_ = 0;      // proposals made while sweeping (all stagnations)
    std::size_t swept_ = 0;      // of which the sweep's
    std::size_t observed_ = 0;   // outcomes seen, stored ones (resume) included
    std::size_t last_gain_ = 0;  // observed_ when the best last improved
    std::optional<double> best_;
    point_set by_sweep_;  // the sweep's proposals not observed yet
};

}  // namespace

std::unique_ptr<strategy> make_gp_sweep(const strategy_setup& s, const search_domain& d) {
    return std::make_unique<gp_sweep>(s, d);
}

}  // namespace hone
