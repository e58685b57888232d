// The final word of a run measured on several GPUs. GPUs of one model rank close
// configurations differently (a 0.1-2% gap is within card-to-card spread), so the search's
// best configurations are measured again, interleaved, on one reference GPU, and the winner
// and its ties come from those measurements alone. The same configurations measured once on
// every other GPU give the run's card-to-card agreement.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "hone/job_result.hpp"
#include "hone/status.hpp"
#include "hone/summary.hpp"

namespace hone {

// The finalists: every timed configuration whose interval overlaps the best's, at least
// final_min (when the run has that many), at most final_max, best first.
inline constexpr std::size_t final_min = 3;
inline constexpr std::size_t final_max = 8;
// Rounds on the reference GPU: each round measures every finalist once, forward, then in reverse
// (A B C, C B A): each finalist's two places sum to the same, so a drift of the card (clock,
// temperature) that is linear over the final word adds the same to every finalist's pooled time.
inline constexpr int final_rounds = 2;

struct other_gpu_time {
    int device = -1;
    std::string device_uuid;
    double median_us = 0;  // 0: no timing (a fault on that GPU)
};

struct final_entry {
    std::string key;
    status st = status::ok;       // of the reference GPU's rounds (the first non-ok one)
    summary time_us;              // the rounds' samples pooled
    double objective = 0;         // what ranks it, as objective_score (smaller is better)
    double search_median_us = 0;  // what the search measured (on whichever GPU)
    bool tie = false;             // its interval overlaps the winner's
    gpu_telemetry telemetry;      // the reference GPU's state in the last round
    std::vector<other_gpu_time> others;
};

// How far two GPUs read one configuration apart: other GPU's median over the reference's.
struct gpu_agreement {
    std::size_t pairs = 0;  // configuration x other GPU pairs with both timed
    double median_ratio = 0, p10 = 0, p90 = 0, min = 0, max = 0;
};

struct final_word {
    int device = -1;  // the reference GPU
    std::string device_uuid;
    std::vector<int> devices;  // every GPU of the run, reference first
    int rounds = final_rounds;
    std::vector<final_entry> entries;  // ranked: the winner first, then its ties, then the rest
    gpu_agreement agreement;
    // The winner's key; "" when no finalist was timed on the reference GPU.
    std::string winner() const;
};

// Ranks entries by objective (untimed last) and marks the ties with the winner.
void decide(final_word& w);
// Median, 10th and 90th percentile, min and max of the ratios.
gpu_agreement summarize_agreement(std::vector<double> ratios);

std::string to_json_text(const final_word& w);
// nullopt for "" (a run without a final word); env_error when the text does not decode.
std::optional<final_word> final_word_from_json(const std::string& text);

// Several lines for `hone show` and the tune summary: the reference GPU, the finalists with
// their times and ties, and the agreement between GPUs.
std::string final_word_text(const final_word& w);

}  // namespace hone
