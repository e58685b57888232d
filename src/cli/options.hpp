// Parsing helpers shared by the subcommands.
#pragma once
#include <cstdint>
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

}  // namespace hone::cli
