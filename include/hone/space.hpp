// The search space: the cartesian product of parameter values filtered by constraints.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hone/spec.hpp"
#include "hone/value.hpp"

namespace hone {

// One point of the space: values in the order of spec.params.
struct config {
    std::vector<value> values;
    // Canonical text "A=1,B=true,C=long long", stable across runs: the key in the store.
    std::string key(const spec& s) const;
    // Base scope plus the parameters, for evaluating expressions of this configuration.
    bindings scope(const spec& s, const bindings& base) const;
};

class search_space {
public:
    // `base` = problem sizes + device attributes. Throws input_error if a constraint fails to
    // evaluate (the message names the configuration).
    search_space(const spec& s, bindings base);
    uint64_t total() const { return total_; }  // before constraints
    const std::vector<config>& valid() const { return valid_; }  // after constraints, in order
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
};

}  // namespace hone
