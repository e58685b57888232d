// Search strategies: pluggable, one file each (src/search/*.cpp). A strategy proposes points of
// a search_domain, several at a time so that the compile pool stays busy ahead of the GPU, and
// is told every outcome. The tuner and replay drive them alike.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "search/domain.hpp"

namespace hone {

class strategy {
  public:
    virtual ~strategy() = default;
    // Up to n points never proposed or observed before, all valid. Fewer (even none) while the
    // strategy waits for outcomes; none and done() once it has finished.
    virtual std::vector<point> propose(std::size_t n) = 0;
    // The outcome of a point: smaller is better; nullopt = failed (compile error, fault, wrong
    // result), which is information, not an error. Points the strategy did not propose may be
    // observed too (resume: what the store holds), before or between proposals.
    virtual void observe(const point& p, std::optional<double> objective) = 0;
    virtual bool done() const = 0;
    // Up to n points the strategy expects to propose soon, the likeliest first, none proposed
    // yet: a hint (they may never be proposed) for compiling ahead while the compile pool has
    // room. None by default.
    virtual std::vector<point> likely(std::size_t n) const { return {}; }
};

// What a strategy accepts, for the YAML loader, the CLI and their help.
struct strategy_option_info {
    std::string name;
    double fallback = 0;  // the default
    double lo = 0, hi = 0;
    bool integer = false;
    std::string help;
};

struct strategy_info {
    std::string name;
    std::string summary;
    bool adaptive = true;  // needs a budget: max_evals >= 1 (a default one when none is given)
    std::vector<strategy_option_info> options;
};

// Every strategy, "auto" included, in the order of the documentation.
const std::vector<strategy_info>& strategy_catalogue();
const strategy_info* find_strategy(std::string_view name);
std::vector<std::string> strategy_names();
// "" when `value` is acceptable for option `name` of `strategy`; otherwise what is wrong
// (unknown option, with the options it has; out of range; not an integer).
std::string strategy_option_error(std::string_view strategy, std::string_view name, double value);

// Without a strategy named, spaces of more valid configurations than this are searched by
// `auto`, smaller ones exhaustively (at that size exhaustive costs about what auto's default
// budget does, and certainly finds the optimum).
inline constexpr double auto_threshold = 2000;
// The budget of an adaptive strategy given no max_evals.
inline constexpr int64_t default_budget = 1000;
// The strategy `auto` stands for: the one whose worst space is best under the held-out
// protocol of bench/protocol.py (recorded spaces it was not designed on, new seeds).
const char* auto_choice();
// The strategy to run for `name` ("" = not given) on a space of about `count` valid points.
std::string resolve_strategy(std::string_view name, double count);

struct strategy_setup {
    std::string name;  // from the catalogue; "auto" is resolved by make_strategy
    uint64_t seed = 1;
    // Evaluations in all, those observed from a store included; 0 = none (exhaustive and random
    // only). Strategies pace themselves by it (e.g. an annealing schedule).
    int64_t budget = 0;
    std::map<std::string, double> options;  // validated; missing ones take their defaults
};

// `at(i)` lists the domain's valid points in its canonical order (exhaustive needs it; the
// others use the domain alone). Throws std::invalid_argument for a name or option that is not
// in the catalogue (callers validate input first, with positions).
std::unique_ptr<strategy> make_strategy(const strategy_setup& s, const search_domain& d,
                                        std::function<point(uint64_t)> at = {});

// The n points at(0) .. at(n - 1) of d, in order (--only: one point).
std::unique_ptr<strategy> make_list_strategy(const search_domain& d, uint64_t n,
                                             std::function<point(uint64_t)> at);

}  // namespace hone
