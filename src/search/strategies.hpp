// One factory per strategy file (src/search/<name>.cpp); make_strategy picks among them.
#pragma once
#include <array>
#include <string_view>

#include "search/strategy.hpp"

namespace hone {

// gp_climb's options that gp_sweep takes too and passes on to its gp_climb: the catalogue lists
// them under gp_sweep from gp_climb's entries, so both share one default and range.
inline constexpr std::array<std::string_view, 2> gp_sweep_climb_options = {"forest_margin",
                                                                           "by_value"};

std::unique_ptr<strategy> make_exhaustive(const strategy_setup& s, const search_domain& d,
                                          std::function<point(uint64_t)> at);
std::unique_ptr<strategy> make_random(const strategy_setup& s, const search_domain& d);
std::unique_ptr<strategy> make_annealing(const strategy_setup& s, const search_domain& d);
std::unique_ptr<strategy> make_genetic(const strategy_setup& s, const search_domain& d);
std::unique_ptr<strategy> make_local_search(const strategy_setup& s, const search_domain& d);
std::unique_ptr<strategy> make_diff_evo(const strategy_setup& s, const search_domain& d);
std::unique_ptr<strategy> make_bayes_opt(const strategy_setup& s, const search_domain& d);
std::unique_ptr<strategy> make_portfolio(const strategy_setup& s, const search_domain& d);
std::unique_ptr<strategy> make_guided_descent(const strategy_setup& s, const search_domain& d);
std::unique_ptr<strategy> make_gp_climb(const strategy_setup& s, const search_domain& d);
std::unique_ptr<strategy> make_sweep(const strategy_setup& s, const search_domain& d);
std::unique_ptr<strategy> make_bandit(const strategy_setup& s, const search_domain& d);
std::unique_ptr<strategy> make_gp_sweep(const strategy_setup& s, const search_domain& d);

}  // namespace hone
