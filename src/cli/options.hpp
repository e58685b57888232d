// Parsing helpers shared by the subcommands.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "spec/lists.hpp"

namespace hone::cli {

using hone::expand_sizes;
using hone::parse_devices;
using hone::parse_set_lists;
using hone::size_runs;

// "N=1048576" pairs from --set; throws input_error for a malformed pair.
std::map<std::string, int64_t> parse_sets(const std::vector<std::string>& sets);
bool stderr_is_tty();

// Checks of numeric options on the text as given, before CLI11 converts it: a negative count
// would wrap, 1e20 would be clamped and nan would pass a range check. The messages say what is
// expected, where CLI11's say "Could not convert" or print a bound of 309 digits.
// A whole number (digits, an optional leading minus) from min to max.
CLI::Validator whole_number(int64_t min, int64_t max);
// A seed: a whole number from 0 to 2^64-1.
CLI::Validator seed_number();
// A finite number of seconds, 0 or more.
CLI::Validator seconds_number();

// --strategy's name, checked against the catalogue; throws input_error naming the choices.
void check_strategy_name(const std::string& name);
// --option NAME=VALUE items, checked against `strategy`'s options and ranges; throws
// input_error at the item.
std::vector<std::pair<std::string, double>> parse_strategy_options(
    const std::string& strategy, const std::vector<std::string>& items);

}  // namespace hone::cli
