// Reading KTT's (Kernel Tuning Toolkit 2.x) JSON output as a recorded space for replay: the
// results of one kernel's tuning, one a configuration, as KTT's tuner writes them.
#pragma once
#include <string>
#include <vector>

#include "formats/json_locate.hpp"
#include "search/replay.hpp"

namespace hone {

// Whether a JSON text's top-level `members` (top_level_members) are KTT's output members,
// "Metadata" and "Results".
bool looks_like_ktt_output(const std::vector<json_member>& members);

// The space of `text` (read from `path`): each result's "Configuration" ({Name, Value} pairs,
// the same names in the same order in every result) is a point, ranked by its "TotalDuration"
// (every kernel launch of the configuration) where its "Status" is "Ok", a failure otherwise.
// Structural errors are input_errors at the result's line and column.
recorded_space read_ktt_output(const std::string& text, const std::string& path);

}  // namespace hone
