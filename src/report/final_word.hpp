// Choosing the final word's finalists from a run's records (include/hone/final_word.hpp).
#pragma once
#include <vector>

#include "hone/final_word.hpp"
#include "report/report.hpp"

namespace hone {

// Every timed record whose interval overlaps the best's (by the run's objective), at least
// final_min and at most final_max of them, best first.
std::vector<const eval_record*> finalists(const std::vector<eval_record>& records, rank_by by);

}  // namespace hone
