// Hill climbing with a Gaussian process beside it, after `random_first` random configurations
// (the process's first fit sees the space, not two descents' neighbourhoods). First-improvement
// descents (two, or one for every 8 configurations the tuner asks for; neighbours: any other
// value of a parameter of up to 4 values, the next value up or down of a longer list; tried in
// random order, observed ones for free) find the optima whose basins are large. A descent restarts
// at the latest model proposal that came out much better than the process predicted (a region it
// does not understand yet) and is not next to a point a descent has stood at, else at random.
// Before every round of descent steps, while the model is in use, the process proposes as many
// configurations as the descents have taken (in batches), each the best expected improvement within
// one value of one two-valued parameter, the values taken in turn, so that regions that are bad on
// average still get the model's best guesses. Targets are ranks as normal scores, capped at the 60%
// quantile: the model learns where the fast configurations are, the same way on every space, not
// how slow the slow ones are. Random draws (restarts, the candidates the process scores) are mostly
// (`aligned`) configurations whose integer parameters are powers of two, where GPU kernels are
// usually fastest and which long lists of values (every multiple of 16) leave rare; the rest
// stay uniform, so unaligned optima are still found. A list of up to 4 values is held to powers
// of two only at values seen slow (`aligned_short`). Once the model is done (`model_until`), a
// descent at a local optimum first tries the best point's two-change neighbours, once for each
// best point, before it restarts. A descent passes over a neighbour that sets a parameter to a
// value which, every time a configuration was seen moved to it by one change, made it
// `rule_out` times slower or more: in failing seeds on convolution W6600 about half the
// descents' evaluations came out 1.5 times slower than the descent's point or more, a budget
// that a value known to be bad need not spend again. It tries the rest in the order of the
// process's predicted times (`model_order`; random before the first fit), which gains only
// together with `rule_out`. The model's share of the proposals follows its
// skill, the rank correlation of its predictions with the outcomes (`skill_low`, `skill_high`,
// `share_max`): where it predicts well it proposes up to 30 configurations per descent step,
// without waiting for the descents, and scores 300 random candidates a fit (more pick outliers
// of the process's fit). A random forest (bayes_opt's model) is fitted beside the process at
// every fit and predicts the same proposals; while its rank correlation with the latest outcomes
// exceeds the process's by `forest_margin` (0.3), the forest's expected improvement chooses the
// model's proposals instead. On the heat stencil's space
// (bench/configs/heat_space.yaml: steps per launch that shared memory and the unroll constrain
// together with the tile) the forest ranks the outcomes at 0.6-0.7 where the process ranks them at
// 0.3-0.4, leads in about two fits of three, and its picks reach the optimum that descents beside
// the process miss; on the convolution, GEMM and pnpoly spaces the two rank alike (convolution
// A100: 0.45 and 0.43) and the process keeps most fits (70-95%), as its picks beside the descents
// find a lone optimum that the forest's do not. A margin of 0.2 cost convolution A100 that optimum,
// 0.4 gained less on heat; on configs/sgemm_large.yaml (an H200) it led in none of 316 fits
// (bench/strategies-protocol.md). At every fit the process places each positive integer
// parameter whose values are not a geometric list either by its position in the list or by the
// log of its value, whichever gives the targets the higher marginal likelihood (`by_value`), as
// its length scale is chosen: on the heat space the steps per launch (1-8) and a block width of
// 1-64 then 96-512 act through their ratios, and with the fit by value 98 of 120 design seeds
// came within 95% of the optimum by 200 evaluations, against 74; on pnpoly TITAN RTX, whose
// tile sizes and block widths act through their positions, it keeps those. Designed on recorded
// spaces (Kernel Tuner caches, `hone replay`): descents alone are best where one optimum's basin is
// large, the model where many optima share the good values.
#include <algorithm>
#include <cmath>

#include "search/domain.hpp"
#include "search/forest.hpp"
#include "search/gp.hpp"
#include "search/search_base.hpp"
#include "search/strategies.hpp"

namespace hone {
namespace {

constexpr std::size_t model_points = 250;  // observations the model is fitted to, at most
constexpr std::size_t model_best = 100;    // of which the best ones (the rest drawn at random)
constexpr double failure_margin = 0.5;     // a failure scores this much over the worst (log)
constexpr double noise = 1e-3;
const std::vector<double> length_scales = {0.15, 0.3, 0.6, 1.2};
constexpr uint32_t any_value_up_to = descent_any_value_up_to;  // a descent's neighbours
// The skill is measured over the latest proposals, once there are enough to rank.
constexpr std::size_t skill_window = 60;
constexpr std::size_t skill_min = 10;

class gp_climb final : public search_base {
  public:
    gp_climb(const search_domain& d, const strategy_setup& s)
        : search_base(d, s), forest_(d), forest_rng_(s.seed ^ 0x3c6ef372fe94f82bull) {
        batch_ = static_cast<std::size_t>(option("batch"));
        start_ = static_cast<std::size_t>(option("model_from"));
        first_ = static_cast<std::size_t>(option("random_first"));
        until_ = static_cast<std::size_t>(option("model_until"));
        candidates_ = static_cast<std::size_t>(option("candidates"));
        cap_ = option("cap");
        descents_ = static_cast<std::size_t>(option("descents"));
        surprise_ = option("surprise");
        near_ = static_cast<std::size_t>(option("surprise_near"));
        aligned_share_ = option("aligned");
        aligned_short_ = option("aligned_short") > 0;
        model_order_ = option("model_order") > 0;
        share_max_ = option("share_max");
        skill_low_ = option("skill_low");
        skill_high_ = option("skill_high");
        forest_margin_ = option("forest_margin");
        if (const double r = option("rule_out"); r > 0) {
            rule_out_ = std::log(r);
            moves_to_.resize(d.dims());
            for (std::size_t i = 0; i < d.dims(); ++i) moves_to_[i].resize(d.cardinality(i));
        }
        power_of_two_.resize(d.dims());
        log_value_.resize(d.dims());
        for (std::size_t i = 0; i < d.dims(); ++i) {
            const uint32_t card = d.cardinality(i);
            if (card == 2) two_valued_.push_back(i);
            if (card <= 2) continue;
            const auto integers = integer_values(d, i);
            if (!integers) continue;
            for (uint64_t n : *integers) power_of_two_[i].push_back((n & (n - 1)) == 0);
            if (option("by_value") > 0) log_value_[i] = log_scaled(*integers);
            by_value_on_ = by_value_on_ || !log_value_[i].empty();
        }
        value_n_.resize(d.dims());
        value_sum_.resize(d.dims());
        for (std::size_t i = 0; i < d.dims(); ++i) {
            value_n_[i].assign(d.cardinality(i), 0);
            value_sum_[i].assign(d.cardinality(i), 0.0);
        }
    }

  private:
    // A proposal in flight made with a fit: the process's mean for it (and the forest's, once
    // fitted), and for a model pick the score under which it is a surprise.
    struct prediction_record {
        double mean = 0;
        std::optional<double> surprise_below;
        std::optional<double> forest_mean;
    };

    // One descent: a point, its neighbours in the order they are tried, and the step in flight.
    struct descent {
        std::optional<point> at;  // observed
        double score = 0;
        std::vector<point> order;
        std::size_t next = 0;
        std::optional<point> trial;  // waiting for its outcome
    };

    void next(std::size_t n, std::vector<point>& out) override {
        // Two descents, or one for every 8 configurations the tuner asks for when it asks for
        // more (16 compile jobs ask for 36): fewer leave the compile pool idle, more are too
        // shallow by 200 evaluations.
        window_ = std::max(window_, n);
        const std::size_t evaluated = history_.size() + pending_.size();
        // The first configurations are random (aligned), for the process's first fit to see the
        // space rather than two descents' neighbourhoods (+9 and +21 of 600 seeds within 95% at
        // 200 evaluations on convolution W6600 and GEMM RTX 2080 Ti).
        if (evaluated < first_) {
            while (out.size() < n && evaluated + out.size() < first_) {
                const auto p = aligned_sample();
                if (!p || !take(*p, out)) break;
            }
            return;
        }
        const std::size_t want = descents_ > 0 ? descents_ : std::max<std::size_t>(2, window_ / 8);
        if (climbs_.size() < want) climbs_.resize(want);
        std::vector<point> steps;
        std::vector<descent*> stepping;
        for (auto& c : climbs_) {
            if (c.trial) continue;
            const std::optional<point> step = descent_step(c);
            if (!step) continue;
            c.trial = step;  // in flight already (for the model or another descent): wait for it
            if (seen(*step)) continue;
            steps.push_back(*step);
            stepping.push_back(&c);
        }
        const bool model_on = evaluated >= start_ && evaluated < until_;
        const double share = model_share();
        // The model's turn: the room the steps leave, or, asked for fewer than the steps ready
        // (a window of one), the one slot, the steps waiting for the next call. With a share
        // over one it does not wait for a descent's step either.
        const auto wanted = static_cast<std::size_t>(std::ceil(share * steps.size()));
        const std::size_t room =
            n > steps.size() ? std::min(n - steps.size(), std::max(batch_, wanted)) : 1;
        if (model_on && !steps.empty() && model_count_ < share * climb_count_)
            propose_from_model(room, out);
        else if (model_on && steps.empty() && share > 1 &&
                 model_count_ < share * (climb_count_ + 1))
            propose_from_model(n, out);
        for (std::size_t i = 0; i < steps.size(); ++i) {
            if (out.size() < n && take(steps[i], out)) {
                if (gp_.fitted()) in_flight_[steps[i]] = predicted(steps[i]);
                ++climb_count_;
            } else if (!seen(steps[i])) {
                stepping[i]->trial.reset();  // no room: try again at the next call
                if (stepping[i]->at) --stepping[i]->next;
            }
        }
    }

    // What each descent tries next, both ways its step in flight can go: its next untried
    // neighbour if the step is slower, the step's fastest predicted neighbour if it moves there
    // (a restart always does); descent after descent. Only the next: a descent moves often,
    // and of the points named so 50-73% were proposed later (replays of the SGEMM subset).
    std::vector<point> likely(std::size_t n) const override {
        std::vector<point> out;
        point_set taken;
        const auto add = [&](const point& q) {
            if (out.size() < n && !seen(q) && taken.insert(q).second) out.push_back(q);
        };
        for (const auto& c : climbs_) {
            for (std::size_t k = c.next; c.at && k < c.order.size(); ++k)
                if (!ruled_out(*c.at, c.order[k]) && !seen(c.order[k])) {
                    add(c.order[k]);
                    break;
                }
            if (!c.trial) continue;
            std::vector<point> moved = neighbours(*c.trial, true, any_value_up_to);
            if (model_order_) fastest_first(moved);
            for (const point& q : moved)
                if (!ruled_out(*c.trial, q) && !seen(q)) {
                    add(q);
                    break;
                }
        }
        return out;
    }

    // The descent's next configuration to evaluate: a restart, or the next untried neighbour
    // (moving for free to an observed better one); nullopt when the space offers none.
    std::optional<point> descent_step(descent& c) {
        for (;;) {
            if (!c.at && !surprises_.empty()) {
                const point q = surprises_.back();
                surprises_.pop_back();
                if (near_stood(q)) continue;  // a descent has been there: nothing new
                const auto it = known_.find(q);
                if (it != known_.end() && it->second) move_to(c, q, *it->second);
                continue;
            }
            if (!c.at) {
                auto p = aligned_sample();
                if (!p) return std::nullopt;
                c.next = 0;
                c.order.clear();
                return p;
            }
            if (c.next >= c.order.size()) {
                // A local optimum. Once the model is done, a best point not yet escaped from
                // gets its two-change neighbours first, those the process ranks best first: on
                // GEMM 2080 Ti a seed ended 1,000 evaluations at 0.94 of the optimum, two
                // changes from the optimum's basin, which random restarts did not find.
                if (best_ && history_.size() + pending_.size() >= until_ &&
                    escaped_.insert(best_point_).second) {
                    c.at = best_point_;
                    c.score = *best_;
                    c.order = two_changes(best_point_);
                    c.next = 0;
                    continue;
                }
                c.at.reset();
                continue;
            }
            point q = c.order[c.next++];
            const auto it = known_.find(q);
            if (it == known_.end() && ruled_out(*c.at, q)) continue;
            if (it == known_.end()) return q;
            if (it->second && *it->second < c.score) move_to(c, q, *it->second);
        }
    }

    // Whether `q` is within surprise_near parameter changes of a point a descent stood at.
    bool near_stood(const point& q) const {
        if (near_ == 0) return false;
        for (const auto& st : stood_) {
            std::size_t apart = 0;
            for (std::size_t i = 0; i < q.size() && apart <= near_; ++i) apart += q[i] != st[i];
            if (apart <= near_) return true;
        }
        return false;
    }

    // Whether `to`, one change from `from`, sets a parameter to a value that made every
    // configuration seen moved to it by one change `rule_out` times slower (once seen at least).
    bool ruled_out(const point& from, const point& to) const {
        if (moves_to_.empty()) return false;
        std::optional<std::size_t> changed;
        for (std::size_t i = 0; i < to.size(); ++i) {
            if (to[i] == from[i]) continue;
            if (changed) return false;  // two changes (an escape): not ruled out
            changed = i;
        }
        if (!changed) return false;
        const move_record& m = moves_to_[*changed][to[*changed]];
        return m.seen > 0 && m.slower == m.seen;
    }

    // Records the moves between p and its observed one-change neighbours, both ways.
    void note_moves(const point& p, double score) {
        for (const point& r : neighbours(p, true, any_value_up_to)) {
            const auto it = known_.find(r);
            if (it == known_.end() || !it->second) continue;
            std::size_t i = 0;
            while (p[i] == r[i]) ++i;
            const double gain = score - *it->second;  // r -> p, log time
            move_record& to_p = moves_to_[i][p[i]];
            ++to_p.seen;
            to_p.slower += gain >= rule_out_;
            move_record& to_r = moves_to_[i][r[i]];
            ++to_r.seen;
            to_r.slower += -gain >= rule_out_;
        }
    }

    void move_to(descent& c, const point& p, double score) {
        stood_.push_back(p);
        c.at = p;
        c.score = score;
        c.order = neighbours(p, true, any_value_up_to);
        std::shuffle(c.order.begin(), c.order.end(), rng_);
        if (model_order_) fastest_first(c.order);  // ties keep the random order
        c.next = 0;
    }

    // Sorts `points` by the process's predicted time, fastest first, stably; as they are
    // without a fit.
    void fastest_first(std::vector<point>& points) const {
        if (!gp_.fitted()) return;
        std::vector<std::pair<double, std::size_t>> by;
        for (std::size_t i = 0; i < points.size(); ++i)
            by.emplace_back(gp_.predict(coordinates(points[i])).mean, i);
        std::stable_sort(by.begin(), by.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        std::vector<point> sorted;
        for (const auto& [m, i] : by) sorted.push_back(std::move(points[i]));
        points = std::move(sorted);
    }

    // The process's skill: the rank correlation of its predicted means (when each was proposed,
    // model pick or descent step) with the outcomes, over the latest `skill_window`.
    double skill() const {
        return outcomes_.size() < skill_min ? 0 : rank_correlation(predicted_means_, outcomes_);
    }

    // The process's and the forest's predictions of a proposal (the forest's once it is fitted).
    prediction_record predicted(const point& p) const {
        prediction_record r;
        r.mean = gp_.predict(coordinates(p)).mean;
        if (forest_.fitted()) r.forest_mean = forest_.predict(p).mean;
        return r;
    }

    // Both models' predictions of an outcome, the latest skill_window kept.
    void note_forest(const prediction_record& r, double score) {
        forest_means_.push_back(*r.forest_mean);
        gp_means_.push_back(r.mean);
        forest_outcomes_.push_back(score);
        if (forest_outcomes_.size() > skill_window) {
            forest_means_.erase(forest_means_.begin());
            gp_means_.erase(gp_means_.begin());
            forest_outcomes_.erase(forest_outcomes_.begin());
        }
    }

    // Whether the forest predicts the latest outcomes better than the process by forest_margin
    // (both ranked against the same outcomes); the process until the forest has predicted
    // skill_min: a forest's picks among the first fits cost convolution A100 (hub) its lone
    // optimum (design seeds 8161..8220 within 95% by 200: 32 of 60 with turns, 45 without).
    bool forest_leads() {
        if (forest_outcomes_.size() < skill_min) return false;
        return rank_correlation(forest_means_, forest_outcomes_) >
               rank_correlation(gp_means_, forest_outcomes_) + forest_margin_;
    }

    // Model proposals per descent step: one while the process predicts no better than chance
    // (skill up to skill_low: convolution W6600, whose optimum only descents find), rising to
    // share_max at skill_high (GEMM 2080 Ti, whose seeds succeed through the model's picks).
    double model_share() const {
        if (share_max_ <= 1) return 1;
        const double r = skill();
        if (r <= skill_low_) return 1;
        if (r >= skill_high_) return share_max_;
        return 1 + (share_max_ - 1) * (r - skill_low_) / (skill_high_ - skill_low_);
    }

    void learn(const point& p, std::optional<double> score, bool) override {
        if (const auto it = in_flight_.find(p); it != in_flight_.end()) {
            const prediction_record r = it->second;
            in_flight_.erase(it);
            if (score && r.forest_mean) note_forest(r, *score);
            if (score) {
                predicted_means_.push_back(r.mean);
                outcomes_.push_back(*score);
                if (outcomes_.size() > skill_window) {  // 60 at most: erasing the first is cheap
                    predicted_means_.erase(predicted_means_.begin());
                    outcomes_.erase(outcomes_.begin());
                }
            }
            // A model proposal `surprise` standard deviations better than predicted: the next
            // descent starts there (on convolution A4000 and W6600, the model's near misses of
            // an optimum it cannot see from afar).
            if (score && r.surprise_below && *score < *r.surprise_below) surprises_.push_back(p);
        }
        if (score && !moves_to_.empty()) note_moves(p, *score);
        if (score)
            for (std::size_t i = 0; i < p.size(); ++i) {
                ++value_n_[i][p[i]];
                value_sum_[i][p[i]] += *score;
            }
        for (auto& c : climbs_) {
            if (!c.trial || *c.trial != p) continue;
            c.trial.reset();
            if (!c.at) {
                if (score) move_to(c, p, *score);  // a restart that failed restarts again
            } else if (score && *score < c.score) {
                move_to(c, p, *score);
            }
        }
    }

    // A random valid configuration, aligned (see aligned()) with chance `aligned`, where
    // aligned ones can be found in 100 draws (and, given `redraws`, in the redraws left there,
    // each spent).
    std::optional<point> aligned_sample(std::size_t* redraws = nullptr) {
        auto p = fresh_sample();
        if (p && aligned_share_ > 0 && unit() < aligned_share_)
            for (int k = 0; k < 100 && (!redraws || *redraws > 0) && p && !aligned(*p); ++k) {
                if (redraws) --*redraws;
                p = fresh_sample();
            }
        return p;
    }

    // The valid, unseen points two parameter changes (each a descent's step, valid alone or
    // not) from `p`, those the process predicts fastest first (in random order without a fit).
    std::vector<point> two_changes(const point& p) {
        std::vector<point> out;
        for (std::size_t i = 0; i < p.size(); ++i)
            for (uint32_t a : moves(p, i, true, any_value_up_to))
                for (std::size_t j = i + 1; j < p.size(); ++j)
                    for (uint32_t b : moves(p, j, true, any_value_up_to)) {
                        point r = p;
                        r[i] = a;
                        r[j] = b;
                        if (d_.contains(r) && !seen(r)) out.push_back(std::move(r));
                    }
        std::shuffle(out.begin(), out.end(), rng_);
        fastest_first(out);
        return out;
    }

    // Every parameter of more than two positive integer values at a power of two, but for a
    // short list's values not seen to be slow (`aligned_short`). Powers of two are rare in a long
    // list (every multiple of 16), which the prior concentrates on; in a short one every value is
    // a descent's move away, and the prior only hides values: on convolution A100 (hub) the
    // optimum and 5 of the 7 next fastest have tile_size_y 3 of 1-4, never drawn with it (design
    // seeds 7321..7440, within 95% by 200: 88 of 120 without it, 44 with). On convolution W6600,
    // a tile of 3 runs at 0.01 of the optimum where its block sizes are not powers of two, and
    // the draws there keep avoiding it once seen slow (96 against 95 of 120).
    bool aligned(const point& p) const {
        for (std::size_t i = 0; i < p.size(); ++i) {
            if (power_of_two_[i].empty() || power_of_two_[i][p[i]]) continue;
            if (aligned_short_ && d_.cardinality(i) <= any_value_up_to && !seen_slow(i, p[i]))
                continue;
            return false;
        }
        return true;
    }

    // Value v of parameter i, timed twice or more, came out slower on average (log time) than
    // the parameter's powers of two.
    bool seen_slow(std::size_t i, uint32_t v) const {
        if (value_n_[i][v] < 2) return false;
        double sum = 0;
        std::size_t n = 0;
        for (std::size_t u = 0; u < value_n_[i].size(); ++u)
            if (power_of_two_[i][u]) {
                sum += value_sum_[i][u];
                n += value_n_[i][u];
            }
        return n > 0 && value_sum_[i][v] / static_cast<double>(value_n_[i][v]) >
                            sum / static_cast<double>(n);
    }

    // The coordinates of p in [0, 1] of the process in use.
    std::vector<double> coordinates(const point& p) const { return coordinates(p, by_value_); }

    // Each parameter's position in its list, or, by value, the log of a positive integer
    // parameter's value (where log_value_ has it).
    std::vector<double> coordinates(const point& p, bool by_value) const {
        std::vector<double> x;
        for (std::size_t i = 0; i < p.size(); ++i) {
            const uint32_t card = d_.cardinality(i);
            if (by_value && !log_value_[i].empty())
                x.push_back(log_value_[i][p[i]]);
            else if (card > 1)
                x.push_back(static_cast<double>(p[i]) / (card - 1));
        }
        return x;
    }

    // Values' logs scaled to [0, 1]; none where they are the positions (a geometric list, as
    // powers of two ascending), which leaves nothing to choose.
    static std::vector<double> log_scaled(const std::vector<uint64_t>& values) {
        const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
        if (*lo == *hi) return {};
        const double a = std::log(static_cast<double>(*lo)), b = std::log(static_cast<double>(*hi));
        std::vector<double> out;
        bool positions = true;
        for (uint64_t n : values) {
            out.push_back((std::log(static_cast<double>(n)) - a) / (b - a));
            const double at = static_cast<double>(out.size() - 1) / (values.size() - 1);
            positions = positions && std::abs(out.back() - at) < 1e-9;
        }
        return positions ? std::vector<double>{} : out;
    }

    // Up to min(batch, room) configurations of best expected improvement, one stratum each.
    void propose_from_model(std::size_t room, std::vector<point>& out) {
        double worst = 0;
        std::size_t successes = 0;
        for (const auto& [p, s] : history_)
            if (s) worst = successes++ ? std::max(worst, *s) : *s;
        if (successes < 2) return;
        // scored: failures a margin over the worst; y: the model's targets (standardized).
        std::vector<double> scored(history_.size());
        for (std::size_t i = 0; i < history_.size(); ++i)
            scored[i] = history_[i].second ? *history_[i].second : worst + failure_margin;
        std::vector<double> y = normal_scores(scored, cap_);
        double mean = 0, var = 0;
        for (double v : y) mean += v;
        mean /= static_cast<double>(y.size());
        for (double v : y) var += (v - mean) * (v - mean);
        const double sd = var > 0 ? std::sqrt(var / static_cast<double>(y.size())) : 1.0;
        for (double& v : y) v = (v - mean) / sd;
        std::vector<double> sorted = scored;
        std::sort(sorted.begin(), sorted.end());
        // The score a proposal must beat to be a surprise, from its standardized target.
        auto score_at = [&](double t) { return score_at_normal(sorted, t * sd + mean); };

        // The points the model is fitted to: all, or the best and a random rest.
        std::vector<std::size_t> use(history_.size());
        for (std::size_t i = 0; i < use.size(); ++i) use[i] = i;
        if (use.size() > model_points) {
            std::sort(use.begin(), use.end(), [&](std::size_t a, std::size_t b) {
                return scored[a] < scored[b] || (scored[a] == scored[b] && a < b);
            });
            std::shuffle(use.begin() + model_best, use.end(), rng_);
            use.resize(model_points);
        }
        std::vector<double> t;
        for (std::size_t i : use) t.push_back(y[i]);
        const auto fit = [&](bool by_value) {
            std::vector<std::vector<double>> x;
            for (std::size_t i : use) x.push_back(coordinates(history_[i].first, by_value));
            gaussian_process g;
            g.fit(x, t, length_scales, noise);
            return g;
        };
        // By position or by value, whichever explains the outcomes better (as the length scale
        // is chosen); position on a tie.
        gp_ = fit(false);
        by_value_ = false;
        if (by_value_on_) {
            gaussian_process v = fit(true);
            if (v.fitted() && (!gp_.fitted() || v.log_likelihood() > gp_.log_likelihood())) {
                gp_ = std::move(v);
                by_value_ = true;
            }
        }
        if (!gp_.fitted()) return;

        std::vector<point> cands;
        point_set drawn;
        // Draws spent looking for aligned candidates, at most 10 a candidate in all: where they
        // are rare, the pool stays mostly uniform rather than costly to draw.
        std::size_t redraws = 10 * candidates_;
        for (std::size_t i = 0; i < candidates_; ++i) {
            auto p = aligned_sample(&redraws);
            if (!p) break;
            if (drawn.insert(*p).second) cands.push_back(std::move(*p));
        }
        // The forest, on the same targets (every outcome, failures a margin over the worst).
        bool by_forest = false;
        if (forest_margin_ < 2) {
            std::vector<point> fx;
            for (const auto& h : history_) fx.push_back(h.first);
            forest_.fit(fx, y, forest_options{}, forest_rng_);
            by_forest = forest_.fitted() && forest_leads();
        }
        std::vector<std::vector<double>> cx;
        std::vector<gaussian_process::prediction> pred;
        for (const auto& p : cands) {
            cx.push_back(coordinates(p));
            if (by_forest) {
                const random_forest::prediction f = forest_.predict(p);
                pred.push_back({f.mean, f.stddev});
            } else {
                pred.push_back(gp_.predict(cx.back()));
            }
        }
        std::vector<bool> picked(cands.size(), false);
        std::vector<std::size_t> picks;
        const std::size_t want = std::min(batch_, room);
        for (std::size_t k = 0; k < want; ++k) {
            std::optional<std::size_t> best;
            double best_ei = -1;
            if (!two_valued_.empty()) {
                if (strata_.empty()) {
                    for (std::size_t dim : two_valued_)
                        for (uint32_t v = 0; v < 2; ++v) strata_.emplace_back(dim, v);
                    std::shuffle(strata_.begin(), strata_.end(), rng_);
                }
                const auto [dim, v] = strata_.back();
                strata_.pop_back();
                std::optional<double> inc;  // the stratum's best observed target
                for (std::size_t i = 0; i < history_.size(); ++i)
                    if (history_[i].first[dim] == v && (!inc || y[i] < *inc)) inc = y[i];
                if (!inc)
                    for (std::size_t c = 0; c < cands.size(); ++c)
                        if (cands[c][dim] == v && (!inc || pred[c].mean < *inc)) inc = pred[c].mean;
                for (std::size_t c = 0; c < cands.size(); ++c) {
                    if (picked[c] || cands[c][dim] != v) continue;
                    const double ei = expected_improvement(pred[c], *inc);
                    if (ei > best_ei) best_ei = ei, best = c;
                }
            } else {  // no strata: the best overall, each pick damping its surroundings
                const double inc = *std::min_element(y.begin(), y.end());
                for (std::size_t c = 0; c < cands.size(); ++c) {
                    if (picked[c]) continue;
                    double ei = expected_improvement(pred[c], inc);
                    for (std::size_t q : picks) ei *= 1.0 - gp_.kernel(cx[c], cx[q]);
                    if (ei > best_ei) best_ei = ei, best = c;
                }
            }
            if (!best) continue;
            picked[*best] = true;
            picks.push_back(*best);
            if (take(cands[*best], out)) {
                prediction_record& r = in_flight_[cands[*best]];
                r = predicted(cands[*best]);
                if (surprise_ > 0)
                    r.surprise_below = score_at(pred[*best].mean - surprise_ * pred[*best].stddev);
                ++model_count_;
            }
        }
    }

    struct move_record {
        uint32_t seen = 0, slower = 0;  // one-change moves to a value; those rule_out slower
    };
    std::vector<std::vector<move_record>> moves_to_;  // [parameter][value]; empty: rule_out 0
    double rule_out_ = 0;                             // log of the option
    point_map<prediction_record> in_flight_;
    std::vector<double> predicted_means_, outcomes_;  // the latest skill_window, for skill()
    random_forest forest_;
    std::mt19937_64 forest_rng_;  // the forest's own draws: the process's stay as without it
    double forest_margin_ = 0.3;
    // The latest skill_window outcomes both models predicted, and their predictions.
    std::vector<double> forest_means_, gp_means_, forest_outcomes_;
    double share_max_ = 30, skill_low_ = 0.2, skill_high_ = 0.4;
    bool model_order_ = true;
    gaussian_process gp_;
    // Per parameter: its values' coordinates by log value (by_value), or none; whether any has
    // them, and whether the process in use was fitted by them.
    std::vector<std::vector<double>> log_value_;
    bool by_value_on_ = false, by_value_ = false;
    std::vector<std::size_t> two_valued_;
    std::vector<std::vector<bool>> power_of_two_;  // per value; empty: not a list of integers
    // Per parameter and value: the timed outcomes with it, and the sum of their log scores.
    std::vector<std::vector<std::size_t>> value_n_;
    std::vector<std::vector<double>> value_sum_;
    bool aligned_short_ = true;
    std::vector<std::pair<std::size_t, uint32_t>> strata_;  // (parameter, value), in turn
    std::vector<descent> climbs_;
    std::vector<point> surprises_;  // where descents restart, the latest last
    point_set escaped_;         // best points whose two-change neighbours a descent has been given
    std::vector<point> stood_;  // every point a descent has stood at
    std::size_t near_ = 1;      // surprise_near
    std::size_t climb_count_ = 0, model_count_ = 0, window_ = 1;
    std::size_t batch_ = 4, start_ = 10, first_ = 10, until_ = 300, candidates_ = 300,
                descents_ = 0;
    double cap_ = 0.6, surprise_ = 1, aligned_share_ = 0.9;
};

}  // namespace

std::unique_ptr<strategy> make_gp_climb(const strategy_setup& s, const search_domain& d) {
    return std::make_unique<gp_climb>(d, s);
}

}  // namespace hone
