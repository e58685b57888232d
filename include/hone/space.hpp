// The search space: the cartesian product of parameter values filtered by constraints.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "hone/spec.hpp"
#include "hone/value.hpp"
#include "search/domain.hpp"

namespace hone {

// One point of the space: values in the order of spec.params.
struct config {
    std::vector<value> values;
    // Canonical text "A=1,B=true,C=long long", stable across runs: the key in the store.
    std::string key(const spec& s) const;
    // Base scope plus the parameters, for evaluating expressions of this configuration.
    bindings scope(const spec& s, const bindings& base) const;
};

// A search_domain over the valid configurations. This version enumerates every configuration
// (valid() below); the space engine replaces it with one that indexes large spaces lazily.
class search_space final : public search_domain {
public:
    // `base` = problem sizes + device attributes. Throws input_error if a constraint fails to
    // evaluate (the message names the configuration).
    search_space(const spec& s, bindings base);
    uint64_t total() const { return total_; }  // before constraints
    const std::vector<config>& valid() const { return valid_; }  // after constraints, in order
    std::optional<uint64_t> count() const override { return valid_.size(); }
    double estimated_count() const { return static_cast<double>(valid_.size()); }
    bool enumerated() const { return true; }
    point at(uint64_t i) const;  // the i-th valid point, in canonical order
    config to_config(const point& p) const;
    point to_point(const config& c) const;
    // Valid points differing from p in one parameter (by one position in its list when
    // adjacent_only).
    std::vector<point> neighbours(const point& p, bool adjacent_only) const;

    std::size_t dims() const override;
    uint32_t cardinality(std::size_t dim) const override;
    double coordinate(std::size_t dim, uint32_t index) const override;
    bool contains(const point& p) const override;
    std::optional<point> sample(std::mt19937_64& rng) const override;
    // Throws input_error("0 of N configurations satisfy the constraints") when empty.
    void require_nonempty() const;
    const bindings& base() const { return base_; }
    // Finds the configuration matching `params` (missing names take the first value).
    config make_config(const std::map<std::string, value>& params, const source_pos& pos) const;

private:
    const spec* spec_;
    bindings base_;
    uint64_t total_ = 0;
    std::vector<config> valid_;
    std::vector<point> points_;              // of valid_, same order
    std::unordered_set<uint64_t> codes_;     // encode() of points_
};

}  // namespace hone
