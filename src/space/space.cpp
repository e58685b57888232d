// The search space over the engine: enumerated (codes in canonical order) or lazy (sampled).
#include "space/space.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "space/engine.hpp"

namespace hone {
namespace {

// Decimal digits of a 128-bit count; its maximum means saturated.
std::string count_text(unsigned __int128 n) {
    if (n == ~static_cast<unsigned __int128>(0))
        return "more than 340282366920938463463374607431768211455 (saturated at 2^128 - 1)";
    std::string digits;
    do {
        digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(n % 10)));
        n /= 10;
    } while (n > 0);
    return digits;
}

std::string total_text(uint64_t total) {
    return total == UINT64_MAX ? std::string("more than 18446744073709551615")
                               : std::to_string(total);
}

}  // namespace

std::string config::key(const spec& s) const {
    std::string out;
    for (std::size_t i = 0; i < values.size() && i < s.params.size(); ++i) {
        const auto* text = std::get_if<std::string>(&values[i]);
        // Quote only strings that would make the key ambiguous.
        const bool quote = text && text->find_first_of(",=\"") != std::string::npos;
        out += fmt::format("{}{}={}", i ? "," : "", s.params[i].name,
                           quote ? display_text(values[i]) : template_text(values[i]));
    }
    return out;
}

bindings config::scope(const spec& s, const bindings& base) const {
    bindings b = base;
    for (std::size_t i = 0; i < values.size() && i < s.params.size(); ++i)
        b[s.params[i].name] = values[i];
    return b;
}

search_space::search_space(const spec& s, bindings base, const space_options& opt)
    : spec_(&s), base_(std::move(base)), opt_(opt) {
    engine_ = std::make_unique<space_detail::engine>(
        s, base_,
        space_detail::engine_limits{opt.max_listed, opt.max_nodes,
                                    std::max<uint64_t>(opt.prefix_cap, 1), opt.seed});
    const space_detail::estimate& first = engine_->first_estimate();
    if (first.exact) {
        const unsigned __int128 n = engine_->exact_valid();
        exact_text_ = count_text(n);
        // Beyond 2^64 the count is known but not a uint64: the space is too large to list and
        // is sampled, with the exact count as its estimate.
        if (n <= UINT64_MAX) {
            exact_ = static_cast<uint64_t>(n);
        } else {
            estimate_ = static_cast<double>(n);
            return;
        }
    }
    const bool affordable = first.valid <= static_cast<double>(opt.max_listed) &&
                            (first.exact || first.nodes <= static_cast<double>(opt.max_nodes));
    if (affordable && engine_->codes_fit()) {
        if (engine_->total() <= (uint64_t{1} << 32)) {
            if (auto codes = engine_->enumerate<uint32_t>()) {
                codes32_ = std::move(*codes);
                enumerated_ = true;
                exact_ = codes32_.size();
                exact_text_ = std::to_string(*exact_);
            }
        } else if (auto codes = engine_->enumerate<uint64_t>()) {
            codes64_ = std::move(*codes);
            enumerated_ = true;
            exact_ = codes64_.size();
            exact_text_ = std::to_string(*exact_);
        }
    }
    if (exact_) {
        estimate_ = static_cast<double>(*exact_);
        return;
    }
    // Too large to list: a finer estimate (4,000 valid draws give about ±3% at 95%).
    const space_detail::estimate e =
        engine_->sample_estimate(std::max<uint64_t>(opt.estimate_draws, 1), 4000, opt.seed + 1);
    estimate_ = e.valid;
    rel_error_ = e.rel_error95;
    draws_ = e.draws;
    accepted_ = e.accepted;
    if (accepted_ == 0) {
        // No draw was valid: the space may be empty. A bounded search settles it.
        bool exhausted = true;
        if (!engine_->find(std::vector<std::optional<uint32_t>>(dims()), opt.max_nodes,
                           &exhausted) &&
            exhausted) {
            exact_ = 0;
            exact_text_ = "0";
            estimate_ = 0;
            rel_error_ = 0;
            draws_ = 0;
        }
    }
}

search_space::~search_space() = default;

uint64_t search_space::total() const {
    return engine_->total();
}
std::optional<uint64_t> search_space::count() const {
    return exact_;
}
const std::string& search_space::exact_count_text() const {
    return exact_text_;
}
double search_space::estimated_count() const {
    return estimate_;
}
double search_space::estimate_rel_error() const {
    return rel_error_;
}
uint64_t search_space::estimate_draws() const {
    return draws_;
}
bool search_space::enumerated() const {
    return enumerated_;
}

std::size_t search_space::store_bytes() const {
    return codes32_.capacity() * sizeof(uint32_t) + codes64_.capacity() * sizeof(uint64_t);
}

point search_space::at(uint64_t i) const {
    if (!enumerated_) throw std::logic_error("search_space::at on a space too large to list");
    if (i >= *exact_)
        throw std::out_of_range("search_space::at: index past the last configuration");
    return engine_->decode(codes64_.empty() ? uint64_t{codes32_[i]} : codes64_[i]);
}

config search_space::to_config(const point& p) const {
    if (p.size() != dims())
        throw std::logic_error("search_space::to_config: a point of the wrong size");
    config c;
    for (std::size_t d = 0; d < p.size(); ++d) c.values.push_back(spec_->params[d].values.at(p[d]));
    return c;
}

point search_space::to_point(const config& c) const {
    if (c.values.size() != dims())
        throw input_error({spec_->path, 0, 0},
                          fmt::format("a configuration of {} values for a space of {} parameters",
                                      c.values.size(), dims()));
    point p(dims());
    for (std::size_t d = 0; d < dims(); ++d) {
        const auto& values = spec_->params[d].values;
        const auto it = std::find(values.begin(), values.end(), c.values[d]);
        if (it == values.end())
            throw input_error(spec_->params[d].pos,
                              fmt::format("{} is not a value of parameter '{}'",
                                          display_text(c.values[d]), spec_->params[d].name));
        p[d] = static_cast<uint32_t>(it - values.begin());
    }
    return p;
}

std::size_t search_space::dims() const {
    return spec_->params.size();
}
uint32_t search_space::cardinality(std::size_t dim) const {
    return static_cast<uint32_t>(spec_->params.at(dim).values.size());
}

double search_space::coordinate(std::size_t dim, uint32_t index) const {
    const value& v = spec_->params.at(dim).values.at(index);
    if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
    if (const auto* d = std::get_if<double>(&v)) return *d;
    if (const auto* b = std::get_if<bool>(&v)) return *b ? 1.0 : 0.0;
    return index;
}

bool search_space::contains(const point& p) const {
    if (p.size() != dims()) return false;
    for (std::size_t d = 0; d < p.size(); ++d)
        if (p[d] >= cardinality(d)) return false;
    if (!enumerated_) return engine_->model().admits(p);
    const uint64_t code = engine_->encode(p);
    if (!codes64_.empty()) return std::binary_search(codes64_.begin(), codes64_.end(), code);
    return code <= UINT32_MAX &&
           std::binary_search(codes32_.begin(), codes32_.end(), static_cast<uint32_t>(code));
}

std::optional<point> search_space::sample(std::mt19937_64& rng) const {
    if (exact_ && *exact_ == 0) return std::nullopt;
    if (enumerated_) return at(space_detail::draw_below(rng, *exact_));
    // Rejection takes about draws / accepted tries a point; give up a hundred times beyond.
    const double per_point =
        accepted_ > 0 ? static_cast<double>(draws_) / static_cast<double>(accepted_) : 1e4;
    return engine_->draw(rng, static_cast<uint64_t>(std::clamp(100 * per_point, 1e5, 1e8)));
}

std::vector<point> search_space::neighbours(const point& p, bool adjacent_only) const {
    std::vector<point> out;
    if (p.size() != dims()) return out;
    point q = p;
    for (std::size_t d = 0; d < dims(); ++d) {
        const uint32_t card = cardinality(d);
        for (uint32_t v = 0; v < card; ++v) {
            if (v == p[d]) continue;
            if (adjacent_only && v + 1 != p[d] && v != p[d] + 1) continue;
            q[d] = v;
            if (contains(q)) out.push_back(q);
        }
        q[d] = p[d];
    }
    return out;
}

std::optional<point> search_space::find(const std::vector<std::optional<uint32_t>>& fixed) const {
    if (fixed.size() != dims())
        throw std::logic_error("search_space::find: wrong number of parameters");
    bool exhausted = true;
    return engine_->find(fixed, opt_.max_nodes, &exhausted);
}

void search_space::require_nonempty() const {
    const source_pos pos = spec_->constraints.empty() ? source_pos{spec_->path, 0, 0}
                                                      : spec_->constraints.front().pos();
    if (exact_) {
        if (*exact_ > 0) return;
        throw input_error(pos, fmt::format("0 of {} configurations satisfy the constraints",
                                           total_text(total())));
    }
    if (estimate_ > 0) return;
    bool exhausted = true;
    if (engine_->find(std::vector<std::optional<uint32_t>>(dims()), opt_.max_nodes, &exhausted))
        return;
    if (exhausted)
        throw input_error(pos, fmt::format("0 of {} configurations satisfy the constraints",
                                           total_text(total())));
    throw input_error(
        pos,
        fmt::format(
            "no configuration of {} found that satisfies the constraints ({} random draws and a "
            "search of {} partial configurations); loosen them or add parameters' values "
            "that satisfy them",
            total_text(total()), draws_, opt_.max_nodes));
}

config search_space::make_config(const std::map<std::string, value>& params,
                                 const source_pos& pos) const {
    for (const auto& [name, v] : params)
        if (!spec_->find_param(name))
            throw input_error(pos, fmt::format("no parameter named '{}'", name));
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
            throw input_error(pos, fmt::format("{} is not a value of parameter '{}'",
                                               display_text(it->second), p.name));
        c.values.push_back(it->second);
    }
    return c;
}

}  // namespace hone
