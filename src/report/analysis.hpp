// The numbers behind `hone report`'s pictures: pure functions over records, unit-tested.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hone/record.hpp"
#include "report/report.hpp"

namespace hone::report_detail {

// Linear interpolation between order statistics (R's type 7) of a sorted, non-empty list.
double quantile_sorted(const std::vector<double>& sorted, double q);

// The median of a non-empty list, reordering it (selection, not a sort).
double median_of(std::vector<double>& values);

struct box_stats {
    std::size_t n = 0;
    double min = 0, q1 = 0, median = 0, q3 = 0, max = 0;
};
box_stats box_of(std::vector<double> values);  // n = 0 for an empty list

// Numbers (and booleans) ascending, then strings in the order given: the order of an axis.
void sort_values(std::vector<value>& values);

// A run seen through its objective: the records that rank, each as one value index per
// parameter, and the objective's value (µs for time, GB/s, GFLOP/s).
struct scored_run {
    std::vector<std::string> names;             // parameters, in the records' order
    std::vector<std::vector<value>> values;     // per parameter: every value any record has, sorted
    std::vector<std::vector<uint32_t>> points;  // per scored record: value index per parameter
    std::vector<double> score;                  // per scored record
    std::vector<const eval_record*> records;    // per scored record
    bool higher_better = false;                 // gbps, gflops
};
scored_run score_run(const std::vector<eval_record>& records, rank_by by);
// The objective of one record (0 when it has none).
double score_of(const eval_record& r, rank_by by);

// Per parameter: the share of the variance of log(score) that grouping by its value explains
// (eta squared: between-group sum of squares / total). 0 when the scores do not vary.
std::vector<double> sensitivity(const scored_run& s);

// The comparison matrix of one parameter's values. speedup[a * k + b]: how many times better
// value a is than value b, as the median over matched configurations (the same values of every
// other parameter, both scored) of their ratio (time: t_b / t_a; throughput: v_a / v_b).
// 0 where no configuration matches (and on the diagonal). best_speedup: the same for the best
// score with a against the best with b, unmatched.
struct comparison {
    std::size_t k = 0;
    std::vector<double> speedup, best_speedup;
    std::vector<std::size_t> pairs;  // matched configurations per cell
};
comparison compare_values(const scored_run& s, std::size_t param);

// Random search over the same records: the expected best objective after k evaluations drawn
// without replacement from n_total (of which `scores` are the ones with a score; the others
// are evaluations that find nothing), given that at least one draw has a score. Exact, from
// the order statistics; one entry per k in ks (1 <= k <= n_total).
std::vector<double> expected_random_best(std::vector<double> scores, std::size_t n_total,
                                         const std::vector<std::size_t>& ks, bool higher_better);
// The same over scores already sorted best first.
std::vector<double> expected_random_best_sorted(const std::vector<double>& best_first,
                                                std::size_t n_total,
                                                const std::vector<std::size_t>& ks);

// The best objective after each evaluation in stored order (0 before the first with a score).
std::vector<double> best_so_far(const std::vector<eval_record>& records, rank_by by);

// Where the time went, summed over the records (seconds); compile times of binaries that came
// from the compile cache are not counted.
struct time_parts {
    double compile = 0, load = 0, verify = 0, warmup = 0, samples = 0, framework = 0, strategy = 0;
    double total() const {
        return compile + load + verify + warmup + samples + framework + strategy;
    }
};
time_parts time_spent(const std::vector<eval_record>& records);

}  // namespace hone::report_detail
