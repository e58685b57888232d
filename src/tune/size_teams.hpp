// Several problem sizes of one command on several GPUs: the GPUs are dealt into teams, each
// team takes the next size whenever it finishes one, and a team that finds no size left lends
// its GPUs to a run still searching (the one with the fewest GPUs, of equals the heaviest, of
// those it would shorten: worth_lending) until that run ends, so that the last sizes do not
// leave the other GPUs idle.
#pragma once
#include <csignal>
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "driver/gpu.hpp"

namespace hone {

class gpu_share;

using session_list = std::vector<std::shared_ptr<gpu_session>>;

struct size_teams_job {
    std::vector<session_list> teams;
    std::vector<std::size_t> order;  // the sizes, in the order they are taken
    std::vector<double> weight;      // each size's work, for the choice of a run to lend to
    // Runs size i on a team: the run opens `share` while it searches (tune_options::share).
    std::function<void(std::size_t i, const session_list& team, gpu_share& share)> run;
    // After size i's run returned, with the ordinals of every GPU it had (its team's first, then
    // those lent to it); called one at a time.
    std::function<void(std::size_t i, const std::vector<int>& gpus)> ended;
    const volatile std::sig_atomic_t* stop = nullptr;  // set: no further size is started
};

// Runs every size (until stop is set) with one thread a team; the first exception a run throws
// ends the others' taking of sizes and is rethrown once every team is back.
void run_size_teams(const size_teams_job& job);

}  // namespace hone
