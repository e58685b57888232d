// The search space: the cartesian product of parameter values filtered by constraints.
//
// Constraints are compiled once and checked while backtracking over the parameters, each as soon
// as the parameters it uses are bound. A space whose valid configurations fit the limits is
// enumerated and held as one mixed-radix code per configuration (4 or 8 bytes); a larger one is
// lazy: it samples uniform valid configurations, tests membership and lists neighbours without
// listing the space, and its count is an estimate from random draws.
//
// A configuration is valid when every constraint is true. When one constraint is false, the
// configuration is excluded whatever the others do; a constraint that fails to evaluate
// (division by zero, a type error) on a configuration that all the others admit is an
// input_error naming that configuration.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "hone/config.hpp"
#include "hone/spec.hpp"
#include "hone/value.hpp"
#include "search/search_domain.hpp"

namespace hone {

struct space_options {
    // Valid configurations an enumerated space may hold (4 or 8 bytes each); beyond, it is lazy.
    uint64_t max_listed = uint64_t{1} << 24;
    // Partial configurations the enumeration may visit; beyond, the space is lazy.
    uint64_t max_nodes = uint64_t{1} << 30;
    // Seed of the random draws behind the estimates (the results do not depend on it when the
    // space is enumerated).
    uint64_t seed = 1;
    // Valid partial configurations (over the first parameters of the enumeration's order) kept
    // to seed the enumeration and the sampler. Tests make it small to exercise deep searches.
    uint64_t prefix_cap = uint64_t{1} << 18;
    // Random draws at most behind the estimated count of a space too large to list (it stops
    // earlier once 4,000 are valid: about ±3% at 95%).
    uint64_t estimate_draws = 400'000;
};

namespace space_detail {
class engine;
}

class search_space final : public search_domain {
  public:
    // `base` = problem sizes + device attributes. Throws input_error if a constraint fails to
    // evaluate on a configuration the others admit (the message names the configuration).
    search_space(const spec& s, bindings base, const space_options& opt = {});
    ~search_space() override;
    search_space(const search_space&) = delete;
    search_space& operator=(const search_space&) = delete;

    uint64_t total() const;  // before constraints, saturated at UINT64_MAX
    // Valid configurations: exact when counted (always when enumerated) and below 2^64, else
    // nullopt.
    std::optional<uint64_t> count() const override;
    // The exact count in decimal digits, of any size (counted in 128 bits; beyond, a text that
    // says it saturated); "" when the count is only estimated.
    const std::string& exact_count_text() const;
    double estimated_count() const;  // exact when counted, else from random draws
    // Half-width of the estimate's 95% interval, relative to it; 0 when exact, infinite when
    // no draw found a valid configuration.
    double estimate_rel_error() const;
    uint64_t estimate_draws() const;  // random draws behind the estimate (0 when exact)
    bool enumerated() const;
    std::size_t store_bytes() const;  // memory held for the listed configurations

    // The i-th valid point in canonical order (the last parameter varies fastest); enumerated
    // spaces only (std::logic_error otherwise), i < *count().
    point at(uint64_t i) const;
    config to_config(const point& p) const;
    point to_point(const config& c) const;  // input_error for a value not in the lists

    std::size_t dims() const override;
    uint32_t cardinality(std::size_t dim) const override;
    double coordinate(std::size_t dim, uint32_t index) const override;
    // A lazy space evaluates the constraints: it may throw the input_error described above.
    bool contains(const point& p) const override;
    std::optional<point> sample(std::mt19937_64& rng) const override;
    // Valid points that differ from `p` in one parameter: its adjacent values (index -1, +1),
    // or any other value. In parameter order, then value order; never lists the space.
    std::vector<point> neighbours(const point& p, bool adjacent_only) const;
    // A valid point whose parameter d takes fixed[d] where set; nullopt when there is none, or
    // (for a space too large to list) when a bounded search found none.
    std::optional<point> find(const std::vector<std::optional<uint32_t>>& fixed) const;

    // Throws input_error("0 of N configurations satisfy the constraints") when empty.
    void require_nonempty() const;
    const bindings& base() const { return base_; }
    // Finds the configuration matching `params` (missing names take the first value).
    config make_config(const std::map<std::string, value>& params, const source_pos& pos) const;

  private:
    const spec* spec_;
    bindings base_;
    space_options opt_;
    std::unique_ptr<space_detail::engine> engine_;
    bool enumerated_ = false;
    std::vector<uint32_t> codes32_;  // when the cartesian size fits 32 bits
    std::vector<uint64_t> codes64_;
    std::optional<uint64_t> exact_;
    std::string exact_text_;
    double estimate_ = 0, rel_error_ = 0;
    uint64_t draws_ = 0, accepted_ = 0;
};

}  // namespace hone
