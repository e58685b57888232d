// The compiled form of a spec's parameters and constraints over one base scope (problem sizes,
// device attributes): what the enumeration, the sampler and the membership test share.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "expr/compiled.hpp"
#include "hone/spec.hpp"
#include "search/search_domain.hpp"

namespace hone::space_detail {

enum class verdict : uint8_t { pass, fail, error };

class constraint_model {
  public:
    constraint_model(const spec& s, const bindings& base);
    constraint_model(const constraint_model&) = delete;  // the compiled constraints point into it
    constraint_model& operator=(const constraint_model&) = delete;

    const spec& source() const { return *spec_; }
    const bindings& base() const { return base_; }
    std::size_t dims() const { return cards_.size(); }
    uint32_t card(std::size_t d) const { return cards_[d]; }
    // The slot value of parameter `d`'s value `index`.
    const slot_value& value_slot(std::size_t d, uint32_t index) const { return values_[d][index]; }
    std::size_t constraints() const { return compiled_.size(); }
    const std::vector<uint32_t>& params_of(std::size_t c) const {
        return compiled_[c].slots_used();
    }

    // Constraint `c` on `slots` (only the parameters it uses need to be set). An evaluation
    // error is not thrown here: the caller decides whether another constraint excludes the
    // configuration first.
    verdict check(std::size_t c, const slot_value* slots) const {
        try {
            return compiled_[c].eval_bool(slots) ? verdict::pass : verdict::fail;
        } catch (const input_error&) {
            return verdict::error;
        }
    }
    // The same, where `p` holds the value indices of the constraint's parameters and `slots`
    // their values: a constraint over few combinations of values is a table lookup.
    verdict check(std::size_t c, const point& p, const slot_value* slots) const {
        const table& t = tables_[c];
        if (t.verdicts.empty()) return check(c, slots);
        uint32_t at = 0;
        for (std::size_t k = 0; k < t.params.size(); ++k) at += p[t.params[k]] * t.strides[k];
        return static_cast<verdict>(t.verdicts[at]);
    }
    // Every constraint on a whole point: false when one is false; true when all hold. When none
    // is false but one fails to evaluate, throws that error (the first in spec order), naming
    // the configuration.
    bool admits(const point& p) const;
    [[noreturn]] void raise(const point& p) const;

  private:
    // Every verdict of a constraint, indexed by its parameters' value indices in mixed radix;
    // empty when the combinations are too many to tabulate.
    struct table {
        std::vector<uint32_t> params, strides;
        std::vector<uint8_t> verdicts;
    };
    void tabulate(std::size_t c);

    const spec* spec_;
    bindings base_;
    std::vector<uint32_t> cards_;
    string_table strings_;
    std::vector<std::vector<slot_value>> values_;
    std::vector<compiled_expression> compiled_;
    std::vector<table> tables_;
};

// The order in which the enumeration binds parameters, and which constraints it checks once
// each is bound: a constraint as soon as the last parameter it uses is.
struct search_plan {
    std::vector<uint32_t> order;                // constrained parameters, in binding order
    std::vector<std::vector<uint32_t>> checks;  // per level of `order`, in spec order
    std::vector<uint32_t> always;               // constraints that use no parameter
    std::vector<uint32_t> free;                 // parameters no constraint uses, spec order
};

search_plan make_plan(const constraint_model& m);

}  // namespace hone::space_detail
