// One factory per strategy file (src/search/<name>.cpp); make_strategy picks among them.
#pragma once
#include "search/strategy.hpp"

namespace hone {

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
