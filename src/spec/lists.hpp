// Lists on hone tune's command line: problem sizes (--set N=V1,V2) and GPUs (--devices).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hone {

// --set of hone tune, where a size may be a list: "N=65536,1048576" gives N -> {65536, 1048576}.
// input_error for a malformed pair, an empty or repeated value, or a name given twice.
std::vector<std::pair<std::string, std::vector<int64_t>>> parse_set_lists(
    const std::vector<std::string>& sets);
// Every combination of the lists (the first list varies slowest), each a set of overrides.
std::vector<std::map<std::string, int64_t>> expand_sizes(
    const std::vector<std::pair<std::string, std::vector<int64_t>>>& lists);
// The problem sizes one hone tune covers: each --set list, and each list of the config's
// problem section (spec::problem_lists) that --set does not give; one set of overrides per
// combination, in order. A single value everywhere gives one run.
std::vector<std::map<std::string, int64_t>> size_runs(
    std::vector<std::pair<std::string, std::vector<int64_t>>> set_lists,
    const std::vector<std::pair<std::string, std::vector<int64_t>>>& config_lists);
// --devices: "all" (nullopt) or comma-separated ordinals; input_error for an empty list, a
// value that is not an ordinal, or one named twice.
std::optional<std::vector<int>> parse_devices(const std::string& text);

}  // namespace hone
