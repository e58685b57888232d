#include "space/model.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "space/space.hpp"

namespace hone::space_detail {

constraint_model::constraint_model(const spec& s, const bindings& base) : spec_(&s), base_(base) {
    std::vector<std::string> names;
    for (const auto& p : s.params) {
        names.push_back(p.name);
        cards_.push_back(static_cast<uint32_t>(p.values.size()));
        std::vector<slot_value> slots;
        for (const auto& v : p.values) slots.push_back(to_slot(v, strings_));
        values_.push_back(std::move(slots));
    }
    // A parameter hides a base name of the same spelling, as in config::scope.
    compiled_.reserve(s.constraints.size());
    for (const auto& c : s.constraints) compiled_.emplace_back(c, names, base_, strings_);
    tables_.resize(compiled_.size());
    for (std::size_t c = 0; c < compiled_.size(); ++c) tabulate(c);
}

void constraint_model::tabulate(std::size_t c) {
    // 64 Ki entries at most: built in well under a millisecond, read in a few nanoseconds.
    constexpr uint64_t max_entries = uint64_t{1} << 16;
    const auto& params = compiled_[c].slots_used();
    uint64_t size = 1;
    for (uint32_t d : params)
        if ((size *= cards_[d]) > max_entries) return;
    table t;
    t.params = params;
    t.strides.assign(params.size(), 1);
    for (std::size_t k = params.size(); k-- > 1;)
        t.strides[k - 1] = t.strides[k] * cards_[params[k]];
    t.verdicts.resize(size);
    std::vector<slot_value> slots(dims());
    std::vector<uint32_t> idx(params.size(), 0);
    for (uint64_t at = 0; at < size; ++at) {
        for (std::size_t k = 0; k < params.size(); ++k)
            slots[params[k]] = values_[params[k]][idx[k]];
        t.verdicts[at] = static_cast<uint8_t>(check(c, slots.data()));
        for (std::size_t k = params.size(); k-- > 0;) {  // the last parameter turns fastest
            if (++idx[k] < cards_[params[k]]) break;
            idx[k] = 0;
        }
    }
    tables_[c] = std::move(t);
}

bool constraint_model::admits(const point& p) const {
    std::vector<slot_value> slots(dims());
    for (std::size_t d = 0; d < dims(); ++d) slots[d] = values_[d][p[d]];
    bool failed = false;
    for (std::size_t c = 0; c < constraints(); ++c) {
        const verdict v = check(c, p, slots.data());
        if (v == verdict::fail) return false;
        failed = failed || v == verdict::error;
    }
    if (failed) raise(p);
    return true;
}

void constraint_model::raise(const point& p) const {
    config cfg;
    for (std::size_t d = 0; d < dims(); ++d) cfg.values.push_back(spec_->params[d].values[p[d]]);
    const bindings scope = cfg.scope(*spec_, base_);
    for (const auto& c : spec_->constraints) {
        try {
            c.eval_bool(scope);
        } catch (const input_error& e) {
            throw input_error(e.pos(),
                              fmt::format("in configuration {}: {}", cfg.key(*spec_), e.message()));
        }
    }
    throw std::logic_error("space: raise() on a configuration whose constraints all evaluate");
}

search_plan make_plan(const constraint_model& m) {
    search_plan plan;
    const std::size_t n = m.dims(), nc = m.constraints();
    std::vector<int> uses(n, 0);
    for (std::size_t c = 0; c < nc; ++c) {
        if (m.params_of(c).empty()) plan.always.push_back(static_cast<uint32_t>(c));
        for (uint32_t d : m.params_of(c)) ++uses[d];
    }
    std::vector<bool> bound(n, false), done(nc, false);
    auto bind = [&](uint32_t d) {
        bound[d] = true;
        plan.order.push_back(d);
        std::vector<uint32_t> level;
        for (std::size_t c = 0; c < nc; ++c) {
            if (done[c] || m.params_of(c).empty()) continue;
            const auto& ps = m.params_of(c);
            if (std::all_of(ps.begin(), ps.end(), [&](uint32_t q) { return bound[q]; })) {
                done[c] = true;
                level.push_back(static_cast<uint32_t>(c));
            }
        }
        plan.checks.push_back(std::move(level));
    };
    // Single values cost no branching: bind them first, so that their constraints prune early.
    for (uint32_t d = 0; d < n; ++d)
        if (uses[d] > 0 && m.card(d) == 1) bind(d);
    // Then greedily: the parameter that completes the most constraints, then the one that takes
    // part in the most unchecked ones, then the one with the fewest values.
    for (;;) {
        int best = -1;
        std::tuple<int, int, int64_t> best_score{};
        for (uint32_t d = 0; d < n; ++d) {
            if (bound[d] || uses[d] == 0) continue;
            int completes = 0, touches = 0;
            for (std::size_t c = 0; c < nc; ++c) {
                const auto& ps = m.params_of(c);
                if (done[c] || std::find(ps.begin(), ps.end(), d) == ps.end()) continue;
                ++touches;
                if (std::all_of(ps.begin(), ps.end(),
                                [&](uint32_t q) { return q == d || bound[q]; }))
                    ++completes;
            }
            const std::tuple<int, int, int64_t> score{completes, touches, -int64_t{m.card(d)}};
            if (best < 0 || score > best_score) {
                best = static_cast<int>(d);
                best_score = score;
            }
        }
        if (best < 0) break;
        bind(static_cast<uint32_t>(best));
    }
    for (uint32_t d = 0; d < n; ++d)
        if (uses[d] == 0) plan.free.push_back(d);
    return plan;
}

}  // namespace hone::space_detail
