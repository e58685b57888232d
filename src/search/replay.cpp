#include "search/replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <stdexcept>
#include <unordered_map>

#include "common/value_key.hpp"
#include "hone/error.hpp"
#include "search/rng.hpp"

namespace hone {

std::optional<double> as_number(const value& v) {
    if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
    if (const auto* d = std::get_if<double>(&v)) return *d;
    if (const auto* b = std::get_if<bool>(&v)) return *b ? 1.0 : 0.0;
    return std::nullopt;
}

void sort_values(std::vector<std::vector<value>>& values,
                 std::vector<std::unordered_map<std::string, uint32_t>>& positions) {
    const auto less = [](const value& a, const value& b) {
        const auto x = as_number(a), y = as_number(b);
        if (x && y) return *x < *y || (*x == *y && a.index() < b.index());
        if (x || y) return x.has_value();
        return std::get<std::string>(a) < std::get<std::string>(b);
    };
    positions.resize(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        std::stable_sort(values[i].begin(), values[i].end(), less);
        for (std::size_t k = 0; k < values[i].size(); ++k)
            positions[i][value_key(values[i][k])] = static_cast<uint32_t>(k);
    }
}

void recorded_space::finish() {
    const source_pos at{path, 0, 0};
    index_.clear();
    bool any = false;
    for (std::size_t k = 0; k < points.size(); ++k) {
        if (!index_.emplace(encode(*this, points[k]), k).second)
            throw input_error(at, fmt::format("configuration {} is recorded twice", key(k)));
        if (outcome[k] && (!any || *outcome[k] < *outcome[optimum])) optimum = k, any = true;
    }
    if (!any)
        throw input_error(at, fmt::format("no successful record among {}: every configuration "
                                          "failed, nothing to search for",
                                          points.size()));
}

std::optional<std::size_t> recorded_space::find(const point& p) const {
    if (p.size() != dims()) return std::nullopt;
    for (std::size_t i = 0; i < p.size(); ++i)
        if (p[i] >= cardinality(i)) return std::nullopt;
    const auto it = index_.find(encode(*this, p));
    if (it == index_.end()) return std::nullopt;
    return it->second;
}

double recorded_space::relative(double v) const {
    const double opt = *outcome[optimum];
    return v > 0 ? opt / v : v / opt;
}

double recorded_space::coordinate(std::size_t dim, uint32_t index) const {
    const auto n = as_number(values[dim][index]);
    return n ? *n : static_cast<double>(index);
}

std::optional<point> recorded_space::sample(std::mt19937_64& rng) const {
    if (points.empty()) return std::nullopt;
    return points[draw_below(rng, points.size())];
}

replay_seed replay_once(const recorded_space& space, const replay_options& o, uint64_t seed) {
    strategy_setup setup = o.setup;
    setup.seed = seed;
    auto st = make_strategy(setup, space, [&](uint64_t i) { return space.points[i]; });
    const std::size_t budget =
        setup.budget > 0 ? static_cast<std::size_t>(setup.budget) : space.points.size();
    replay_seed out;
    out.seed = seed;
    std::deque<point> queue;
    std::vector<bool> used(space.points.size(), false);
    std::optional<double> best;
    const std::size_t window = std::max<std::size_t>(1, o.window);
    while (out.evaluations < budget) {
        if (queue.size() < window && !st->done()) {
            for (auto& p : st->propose(window - queue.size())) {
                // A strategy that breaks its contract is a bug, not bad input.
                const auto at = space.find(p);
                if (!at)
                    throw std::logic_error(
                        fmt::format("{} proposed a point outside the space", setup.name));
                if (used[*at])
                    throw std::logic_error(
                        fmt::format("{} proposed {} twice", setup.name, space.key(*at)));
                used[*at] = true;
                queue.push_back(std::move(p));
            }
        }
        if (queue.empty()) break;
        const point p = std::move(queue.front());
        queue.pop_front();
        const std::size_t k = *space.find(p);
        out.simulated_s += space.cost_s[k];
        const auto& v = space.outcome[k];
        if (!v) ++out.failures;
        if (v && (!best || *v < *best)) {
            best = v;
            out.best_key = space.key(k);
        }
        ++out.evaluations;
        out.final_best = best ? std::optional(space.natural(*best)) : std::nullopt;
        if (o.keep_history) out.best.push_back(out.final_best);
        const double rel = best ? space.relative(*best) : 0.0;
        for (std::size_t c = 0; c < replay_checkpoints.size(); ++c)
            if (out.evaluations <= replay_checkpoints[c]) out.relative_at[c] = rel;
        for (std::size_t l = 0; l < replay_levels.size(); ++l) {
            // 1e-12: the optimum itself reaches 100% whatever the rounding.
            if (!out.evals_to[l] && rel >= replay_levels[l] - 1e-12) {
                out.evals_to[l] = out.evaluations;
                out.time_to_s[l] = out.simulated_s;
            }
        }
        st->observe(p, v);
    }
    return out;
}

namespace {

// The median with unreached (nullopt) counted as infinite; nullopt when it is infinite.
std::optional<double> median_of(std::vector<std::optional<double>> xs) {
    if (xs.empty()) return std::nullopt;
    const double inf = INFINITY;
    std::vector<double> v;
    for (const auto& x : xs) v.push_back(x ? *x : inf);
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    const double m = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    if (!std::isfinite(m)) return std::nullopt;
    return m;
}

}  // namespace

replay_result replay(const recorded_space& space, const replay_options& o,
                     const std::function<void(const replay_seed&)>& each) {
    replay_result r;
    r.strategy = resolve_strategy(o.setup.name, static_cast<double>(space.points.size()));
    for (int i = 0; i < o.seeds; ++i) {
        r.seeds.push_back(replay_once(space, o, o.setup.seed + static_cast<uint64_t>(i)));
        if (each) {
            each(r.seeds.back());
            r.seeds.back().best = {};  // handed over: memory stays that of one seed's history
        }
        if (o.on_seed) o.on_seed(i + 1, o.seeds);
    }
    const double n = static_cast<double>(r.seeds.size());
    for (std::size_t l = 0; l < replay_levels.size(); ++l) {
        std::vector<std::optional<double>> evals, times;
        std::size_t reached = 0;
        for (const auto& s : r.seeds) {
            evals.push_back(s.evals_to[l] ? std::optional(static_cast<double>(*s.evals_to[l]))
                                          : std::nullopt);
            times.push_back(s.time_to_s[l]);
            reached += s.evals_to[l] ? 1 : 0;
        }
        r.reached[l] = static_cast<double>(reached) / n;  // counted, then divided: exact shares
        r.median_evals_to[l] = median_of(evals);
        r.median_time_to_s[l] = median_of(times);
    }
    std::vector<std::optional<double>> sims;
    for (const auto& s : r.seeds) sims.push_back(s.simulated_s);
    r.median_simulated_s = median_of(sims).value_or(0);
    for (std::size_t c = 0; c < replay_checkpoints.size(); ++c) {
        std::size_t within = 0;
        for (const auto& s : r.seeds) {
            if (s.evaluations == 0) continue;
            within += s.relative_at[c] >= 0.95 - 1e-12 ? 1 : 0;
        }
        r.within_95_at[c] = static_cast<double>(within) / n;
    }
    return r;
}

}  // namespace hone
