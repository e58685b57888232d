// Reading a recorded space for replay (search/replay.hpp) from a Kernel Tuner cache, T4
// results, KTT output or a hone results database.
#pragma once
#include <string>

#include "search/replay.hpp"

namespace hone {

// Reads a Kernel Tuner cache, T4 results or KTT output (.json, .json.gz) or a hone database. A
// database with several run identities needs `identity` (an id prefix, or the position in `hone
// show` order from 1); without it, the error lists them. Damaged, foreign or empty input is an
// input_error.
recorded_space load_recorded_space(const std::string& path, const std::string& identity = "");

}  // namespace hone
