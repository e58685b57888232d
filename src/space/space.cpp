// The search space: every combination of parameter values (the last parameter varies
// fastest), kept when all constraints hold.
#include "hone/space.hpp"

#include <fmt/format.h>

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
        if (satisfies(s, c, scope)) valid_.push_back(c);
        // Odometer step: the last parameter turns fastest.
        for (std::size_t i = s.params.size(); i-- > 0;) {
            at[i] = (at[i] + 1) % s.params[i].values.size();
            c.values[i] = s.params[i].values[at[i]];
            scope[s.params[i].name] = c.values[i];
            if (at[i] != 0) break;
        }
    }
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
