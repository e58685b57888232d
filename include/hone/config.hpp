// One configuration of a search space: a value for each parameter of a spec.
#pragma once
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

}  // namespace hone
