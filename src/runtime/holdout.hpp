// How well selection does at sizes nobody tuned, measured on tuned sizes: hold every other
// tuned size out, select for it from the rest, and read the chosen configuration's time from
// the held-out size's own (exhaustive) run. For hone's rule and for "nearest volume".
#pragma once
#include <string>
#include <vector>

#include "hone/spec.hpp"
#include "hone/wisdom.hpp"

namespace hone::runtime {

struct holdout_row {
    std::string device, problem;
    std::string best_key;  // the held-out size's own optimum
    double best_value = 0;
    std::string hone_key, hone_tier, hone_from;
    double hone_fraction =
        0;  // optimum's time / chosen's time (objective-wise); 0: not ranked there
    std::string volume_key, volume_from;
    double volume_fraction = 0;
};

struct holdout_summary {
    std::size_t n = 0, within_95 = 0;
    double median = 0, worst = 0;
};

struct holdout_report {
    std::string kernel;
    std::size_t tuned = 0, held_out = 0, stale = 0;
    std::vector<holdout_row> rows;
    holdout_summary hone, volume;
};

// The split: per device, the distinct tuned sizes ranked per dimension; a size whose ranks sum
// to an odd number is held out (in one dimension: every other size, the smallest kept). The
// device attributes that validity needs come from nominal_device(arch), or `arch` when given.
holdout_report evaluate_holdout(const spec& s, const std::vector<tuned_entry>& entries,
                                const std::string& arch = "");
std::string holdout_markdown(const holdout_report& r);

}  // namespace hone::runtime
