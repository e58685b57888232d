// How the space finds its valid configurations: backtracking over the parameters in the plan's
// order (each constraint checked as soon as its parameters are bound), seeded by a table of
// valid partial configurations; the same table makes rejection sampling cheap when the space is
// too large to list.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "space/model.hpp"

namespace hone::space_detail {

struct engine_limits {
    uint64_t max_listed;  // valid configurations an enumeration may hold
    uint64_t max_nodes;   // partial configurations an enumeration may visit
    uint64_t prefix_cap;  // partial configurations in the prefix table
    uint64_t seed;        // of the draws behind estimates
};

// The number of valid configurations and of enumeration steps, exact or from random draws.
struct estimate {
    bool exact = false;
    double valid = 0;
    double rel_error95 = 0;  // half-width of the 95% interval over `valid`; 0 when exact
    double nodes = 0;        // partial configurations an enumeration would visit
    uint64_t draws = 0, accepted = 0;
};

class engine {
  public:
    engine(const spec& s, const bindings& base, const engine_limits& lim);

    const constraint_model& model() const { return *model_; }
    const search_plan& plan() const { return plan_; }
    uint64_t total() const { return total_; }      // saturated at UINT64_MAX
    bool codes_fit() const { return codes_fit_; }  // every point has a uint64 code
    uint64_t stride(std::size_t d) const { return stride_[d]; }
    const estimate& first_estimate() const { return first_; }
    // The number of valid configurations in 128 bits when first_estimate() is exact (a double
    // holds integers exactly only to 2^53, a uint64 only to 2^64); saturated at its maximum.
    unsigned __int128 exact_valid() const { return exact_valid_; }

    // Every valid configuration's code, in canonical order (ascending codes); nullopt when the
    // limits are exceeded on the way. Requires codes_fit().
    template <class Code>
    std::optional<std::vector<Code>> enumerate() const;

    // A uniformly drawn valid point, or nullopt after `max_tries` rejected draws.
    std::optional<point> draw(std::mt19937_64& rng, uint64_t max_tries) const;
    // Draws until `accepted_goal` are accepted or `max_draws` are made.
    estimate sample_estimate(uint64_t max_draws, uint64_t accepted_goal, uint64_t seed) const;
    // A valid point whose parameter d takes fixed[d] where set; nullopt when there is none or
    // when `node_budget` partial configurations were visited without finding one (then
    // `*exhausted` is false).
    std::optional<point> find(const std::vector<std::optional<uint32_t>>& fixed,
                              uint64_t node_budget, bool* exhausted) const;

    point decode(uint64_t code) const;
    uint64_t encode(const point& p) const;

  private:
    void build_prefixes();
    // Sets `p` and `slots` for the prefix `i` of the table; returns its pending-error count.
    // With a cursor, prefixes read in table order into the same `p` and `slots` cost a division
    // only for the digits that changed since the last one (the table is walked millions of
    // times a second; a full decode was a fifth of the time).
    struct cursor {
        std::vector<uint64_t> quotient;  // per level, what was left of the last code there
    };
    cursor make_cursor() const { return cursor{std::vector<uint64_t>(prefix_depth_, UINT64_MAX)}; }
    int load_prefix(std::size_t i, point& p, slot_value* slots, cursor* cur = nullptr) const;
    // One draw: a uniform prefix, then uniform values level by level, rejected at the first
    // false constraint. `reach[l]` counts draws that got to level l.
    bool trial(std::mt19937_64& rng, point& p, slot_value* slots,
               std::vector<uint64_t>* reach) const;
    // The constraints decided at level l, on p: false at the first that fails; those that
    // could not be evaluated (reported once the configuration is whole) add to *pending.
    bool passes(std::size_t l, const point& p, const slot_value* slots, int* pending) const {
        for (uint32_t c : plan_.checks[l]) {
            const verdict r = model_->check(c, p, slots);
            if (r == verdict::fail) return false;
            *pending += r == verdict::error;
        }
        return true;
    }

    engine_limits lim_;
    std::unique_ptr<constraint_model> model_;
    search_plan plan_;
    uint64_t total_ = 1;
    bool codes_fit_ = true;
    std::vector<uint64_t> stride_;
    // Valid partial configurations over plan_.order[0 .. prefix_depth_), coded in mixed radix
    // over those levels; a nonzero pending count marks a constraint that failed to evaluate.
    std::size_t prefix_depth_ = 0;
    std::vector<uint64_t> prefixes_;
    std::vector<uint8_t> prefix_pending_;
    bool root_rejected_ = false;  // a constraint without parameters is false
    double free_product_ = 1;     // configurations of the free parameters
    estimate first_;
    unsigned __int128 exact_valid_ = 0;
};

// A uniform draw from [0, n) by rejection, the same on every standard library.
uint64_t draw_below(std::mt19937_64& rng, uint64_t n);

}  // namespace hone::space_detail
