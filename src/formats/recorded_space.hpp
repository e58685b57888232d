// Reading a recorded space for replay (search/replay.hpp) from a Kernel Tuner cache, T4
// results, KTT output or a hone results database.
#pragma once
#include <optional>
#include <string>

#include "search/replay.hpp"

namespace hone {

// What replay ranks, where the user chooses (`--objective`): "time" (the file's time), or a number
// each record holds by that name (a Kernel Tuner cache's field, a T4 measurement, a hone run's
// metric; "gflops" and "gbps", or "GFLOP/s" and "GB/s", are its throughputs). `higher`: whether
// more is better; unset, the throughputs Kernel Tuner knows (GFLOP/s, GB/s, TFLOP/s, ...) are and
// anything else is not. An empty name: the file's own objective (a cache's or T4 file's GFLOP/s
// or GB/s, else time; a hone run's).
struct objective_choice {
    std::string name;
    std::optional<bool> higher;
};

// Reads a Kernel Tuner cache, T4 results or KTT output (.json, .json.gz) or a hone database. A
// database with several run identities needs `identity` (an id prefix, or the position in `hone
// show` order from 1); without it, the error lists them. Damaged, foreign or empty input is an
// input_error.
recorded_space load_recorded_space(const std::string& path, const std::string& identity = "",
                                   const objective_choice& objective = {});

}  // namespace hone
