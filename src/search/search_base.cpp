#include "search/search_base.hpp"

#include <algorithm>

namespace hone {

search_base::search_base(const search_domain& d, const strategy_setup& s)
    : d_(d), rng_(s.seed), budget_(s.budget > 0 ? static_cast<uint64_t>(s.budget) : 0) {
    const strategy_info* info = find_strategy(s.name);
    if (info)
        for (const auto& o : info->options) options_[o.name] = o.fallback;
    for (const auto& [k, v] : s.options) options_[k] = v;
}

double search_base::option(const std::string& name) const {
    const auto it = options_.find(name);
    if (it == options_.end()) throw std::logic_error("strategy option without a default: " + name);
    return it->second;
}

uint64_t search_base::left() const {
    uint64_t n = budget_ > 0 ? (budget_ > seen_.size() ? budget_ - seen_.size() : 0) : UINT64_MAX;
    if (const auto c = d_.count())
        n = std::min<uint64_t>(n, *c > seen_.size() ? *c - seen_.size() : 0);
    return n;
}

std::vector<point> search_base::propose(std::size_t n) {
    std::vector<point> out;
    if (done_) return out;
    const uint64_t room = left();
    if (room == 0) {
        done_ = true;
        return out;
    }
    n = static_cast<std::size_t>(std::min<uint64_t>(n, room));
    if (n == 0) return out;
    next(n, out);
    if (out.size() > n) out.resize(n);  // a strategy that took too many gives the rest back
    if (out.empty() && pending_.empty()) {
        if (auto p = fresh_sample()) {
            take(*p, out);
        } else {
            done_ = true;
        }
    }
    return out;
}

bool search_base::take(const point& p, std::vector<point>& out) {
    if (seen_.count(p) || !d_.contains(p)) return false;
    seen_.insert(p);
    pending_.insert(p);
    out.push_back(p);
    return true;
}

void search_base::observe(const point& p, std::optional<double> objective) {
    const bool ours = pending_.erase(p) > 0;
    const bool foreign = foreign_.erase(p) > 0;
    if (!seen_.insert(p).second && !ours && !foreign) return;  // told twice: the first stands
    std::optional<double> score;
    if (objective && std::isfinite(*objective)) score = log_score(*objective);
    known_[p] = score;
    history_.emplace_back(p, score);
    if (score) {
        if (!best_ || *score < *best_) best_ = score, best_point_ = p;
        if (!worst_ || *score > *worst_) worst_ = score;
    }
    learn(p, score, ours);
}

std::optional<point> search_base::fresh_sample() {
    // Rejection of seen points: with a known count, enough tries that missing an unseen point
    // has a chance of e^-20 where the draws are independent of what was seen, plus one try per
    // seen point. Draws can replay the seen points one after another: a resumed run with the
    // same seed draws again, in order, the configurations its first run stored (hundreds of
    // them in a row where a fixed number of tries once ended the search with nothing proposed).
    const uint64_t seen = seen_.size();
    uint64_t tries = 1000 + seen;
    if (const auto c = d_.count()) {
        if (seen >= *c) return std::nullopt;
        const double expected = static_cast<double>(*c) / static_cast<double>(*c - seen);
        tries = std::max<uint64_t>(100, static_cast<uint64_t>(20 * expected)) + seen;
    }
    for (uint64_t i = 0; i < tries; ++i) {
        auto p = d_.sample(rng_);
        if (!p) return std::nullopt;
        if (!seen_.count(*p)) return p;
    }
    return std::nullopt;
}

namespace {

std::vector<uint32_t> domain_moves(const search_domain& d, const point& p, std::size_t i,
                                   bool adjacent_only, uint32_t any_value_up_to) {
    const uint32_t card = d.cardinality(i);
    const bool adjacent = adjacent_only && card > any_value_up_to;
    std::vector<uint32_t> out;
    for (uint32_t k = 0; k < card; ++k)
        if (k != p[i] && (!adjacent || k + 1 == p[i] || k == p[i] + 1)) out.push_back(k);
    return out;
}

}  // namespace

std::vector<point> domain_neighbours(const search_domain& d, const point& p, bool adjacent_only,
                                     uint32_t any_value_up_to) {
    std::vector<point> out;
    for (std::size_t i = 0; i < p.size(); ++i)
        for (uint32_t k : domain_moves(d, p, i, adjacent_only, any_value_up_to)) {
            point q = p;
            q[i] = k;
            if (d.contains(q)) out.push_back(std::move(q));
        }
    return out;
}

std::vector<point> search_base::neighbours(const point& p, bool adjacent_only,
                                           uint32_t any_value_up_to) const {
    return domain_neighbours(d_, p, adjacent_only, any_value_up_to);
}

std::vector<uint32_t> search_base::moves(const point& p, std::size_t i, bool adjacent_only,
                                         uint32_t any_value_up_to) const {
    return domain_moves(d_, p, i, adjacent_only, any_value_up_to);
}

}  // namespace hone
