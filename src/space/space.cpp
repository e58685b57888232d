// The search space: every combination of parameter values (the last parameter varies
// fastest), kept when all constraints hold.
#include "hone/space.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "search/rng.hpp"

namespace hone {
namespace {

// Every configuration is enumerated and stored, so the product must stay in memory's reach;
// constraints cannot help, they run on each enumerated configuration.
constexpr uint64_t max_total = 10'000'000;

uint64_t product_of(const spec& s) {
    uint64_t total = 1;
    for (const auto& p : s.params) {
        if (__builtin_mul_overflow(total, static_cast<uint64_t>(p.values.size()), &total) || total > max_total)
            throw input_error(p.pos, fmt::format("the search space exceeds {} configurations at parameter '{}': "
                                                 "use fewer values", max_total, p.name));
    }
    return total;
}

bool satisfies(const spec& s, const config& c, const bindings& scope) {
    for (const auto& constraint : s.constraints) {
        try {
            if (!constraint.eval_bool(scope)) return false;
        } catch (const input_error& e) {
            throw input_error(e.pos(), fmt::format("in configuration {}: {}", c.key(s), e.message()));
        }
    }
    return true;
}

}  // namespace

std::string config::key(const spec& s) const {
    std::string out;
    for (std::size_t i = 0; i < values.size() && i < s.params.size(); ++i) {
        const auto* text = std::get_if<std::string>(&values[i]);
        // Quote only strings that would make the key ambiguous.
        const bool quote = text && text->find_first_of(",=\"") != std::string::npos;
        out += fmt::format("{}{}={}", i ? "," : "", s.params[i].name, quote ? display_text(values[i]) : template_text(values[i]));
    }
    return out;
}

bindings config::scope(const spec& s, const bindings& base) const {
    bindings b = base;
    for (std::size_t i = 0; i < values.size() && i < s.params.size(); ++i) b[s.params[i].name] = values[i];
    return b;
}

search_space::search_space(const spec& s, bindings base) : spec_(&s), base_(std::move(base)), total_(product_of(s)) {
    std::vector<std::size_t> at(s.params.size(), 0);
    config c;
    for (const auto& p : s.params) c.values.push_back(p.values.front());
    bindings scope = c.scope(s, base_);
    for (uint64_t n = 0; n < total_; ++n) {
        if (satisfies(s, c, scope)) {
            valid_.push_back(c);
            points_.emplace_back(at.begin(), at.end());
        }
        // Odometer step: the last parameter turns fastest.
        for (std::size_t i = s.params.size(); i-- > 0;) {
            at[i] = (at[i] + 1) % s.params[i].values.size();
            c.values[i] = s.params[i].values[at[i]];
            scope[s.params[i].name] = c.values[i];
            if (at[i] != 0) break;
        }
    }
    for (const auto& p : points_) codes_.insert(encode(*this, p));
}

std::size_t search_space::dims() const { return spec_->params.size(); }

uint32_t search_space::cardinality(std::size_t dim) const {
    return static_cast<uint32_t>(spec_->params[dim].values.size());
}

double search_space::coordinate(std::size_t dim, uint32_t index) const {
    const value& v = spec_->params[dim].values[index];
    if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
    if (const auto* d = std::get_if<double>(&v)) return *d;
    if (const auto* b = std::get_if<bool>(&v)) return *b ? 1.0 : 0.0;
    return index;
}

bool search_space::contains(const point& p) const {
    if (p.size() != dims()) return false;
    for (std::size_t i = 0; i < p.size(); ++i)
        if (p[i] >= cardinality(i)) return false;
    return codes_.count(encode(*this, p)) > 0;
}

std::optional<point> search_space::sample(std::mt19937_64& rng) const {
    if (points_.empty()) return std::nullopt;
    return points_[draw_below(rng, points_.size())];
}

point search_space::at(uint64_t i) const {
    if (i >= points_.size()) throw std::out_of_range("search_space::at");
    return points_[i];
}

config search_space::to_config(const point& p) const {
    config c;
    for (std::size_t i = 0; i < p.size(); ++i) c.values.push_back(spec_->params[i].values.at(p[i]));
    return c;
}

point search_space::to_point(const config& c) const {
    point p;
    for (std::size_t i = 0; i < c.values.size() && i < dims(); ++i) {
        const auto& vs = spec_->params[i].values;
        uint32_t k = 0;
        while (k < vs.size() && !(vs[k] == c.values[i])) ++k;
        if (k == vs.size()) throw std::invalid_argument("search_space::to_point: value not listed");
        p.push_back(k);
    }
    return p;
}

std::vector<point> search_space::neighbours(const point& p, bool adjacent_only) const {
    std::vector<point> out;
    for (std::size_t i = 0; i < p.size(); ++i) {
        for (uint32_t k = 0; k < cardinality(i); ++k) {
            if (k == p[i] || (adjacent_only && k + 1 != p[i] && k != p[i] + 1)) continue;
            point q = p;
            q[i] = k;
            if (contains(q)) out.push_back(std::move(q));
        }
    }
    return out;
}

void search_space::require_nonempty() const {
    if (!valid_.empty()) return;
    const source_pos pos = spec_->constraints.empty() ? source_pos{spec_->path, 0, 0} : spec_->constraints.front().pos();
    throw input_error(pos, fmt::format("0 of {} configurations satisfy the constraints", total_));
}

config search_space::make_config(const std::map<std::string, value>& params, const source_pos& pos) const {
    for (const auto& [name, v] : params)
        if (!spec_->find_param(name)) throw input_error(pos, fmt::format("no parameter named '{}'", name));
    config c;
    for (const auto& p : spec_->params) {
        const auto it = params.find(p.name);
        if (it == params.end()) {
            c.values.push_back(p.values.front());
            continue;
        }
        bool listed = false;
        for (const auto& v : p.values) listed = listed || v == it->second;
        if (!listed)
            throw input_error(pos, fmt::format("{} is not a value of parameter '{}'", display_text(it->second), p.name));
        c.values.push_back(it->second);
    }
    return c;
}

}  // namespace hone
