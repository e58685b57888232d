// Replay: a strategy run against a recorded complete space, without a GPU. The recorded space
// (a Kernel Tuner cache, or a hone database of an exhaustive run, read by
// formats/recorded_space.hpp) is a search_domain whose valid points are the recorded
// configurations; "evaluating" one looks up its recorded outcome and the time it took to
// compile and measure.
#pragma once
#include <array>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "hone/value.hpp"
#include "search/strategy.hpp"

namespace hone {

class recorded_space final : public search_domain {
  public:
    std::string path;
    std::string format;  // "Kernel Tuner cache" | "hone database"
    std::string kernel, device, problem;
    std::string objective = "time";  // what is ranked: time | gbps | gflops
    std::string unit = "ms";         // of the recorded objective values
    // Which recorded value is ranked, for the reader ("the file's time: Kernel Tuner's mean
    // of its runs"): a space read from another container of the same results may rank another.
    std::string ranked_value;
    std::vector<std::string> names;
    std::vector<std::vector<value>> values;  // per parameter, in coordinate order where numeric
    std::vector<point> points;               // the recorded configurations
    // The configurations' keys as recorded; empty where the reader makes them from the values
    // when asked (make_key: a Kernel Tuner cache, 32 bytes a record saved of 10^6).
    std::vector<std::string> keys;
    std::string (*make_key)(const recorded_space&, std::size_t) = nullptr;
    std::string key(std::size_t k) const { return make_key ? make_key(*this, k) : keys[k]; }
    // The outcome as strategies see it (smaller is better: time, or throughput negated);
    // nullopt for a failed configuration.
    std::vector<std::optional<double>> outcome;
    std::vector<double> cost_s;  // compile + measurement time of the configuration
    std::size_t optimum = 0;     // position of the best outcome

    // Indexes the points; throws input_error when there is no successful record.
    void finish();
    std::optional<std::size_t> find(const point& p) const;
    // The recorded value of an outcome (time, or throughput as a positive number).
    double natural(double outcome) const { return outcome < 0 ? -outcome : outcome; }
    // Performance relative to the optimum: 1 at the optimum, below elsewhere.
    double relative(double outcome) const;

    std::size_t dims() const override { return names.size(); }
    uint32_t cardinality(std::size_t dim) const override {
        return static_cast<uint32_t>(values[dim].size());
    }
    double coordinate(std::size_t dim, uint32_t index) const override;
    bool contains(const point& p) const override { return find(p).has_value(); }
    std::optional<point> sample(std::mt19937_64& rng) const override;
    std::optional<uint64_t> count() const override { return points.size(); }

  private:
    std::unordered_map<uint64_t, std::size_t> index_;
};

// A value as a number for coordinates and ordering: integers and reals as themselves, booleans
// as 0/1; nullopt for a string.
std::optional<double> as_number(const value& v);
// Sorts each parameter's recorded values (numbers before strings, numbers by value, strings
// by text) and sets positions[i][value_key(v)] to each value's place: the coordinates readers
// give their records' points.
void sort_values(std::vector<std::vector<value>>& values,
                 std::vector<std::unordered_map<std::string, uint32_t>>& positions);

struct replay_options {
    strategy_setup setup;  // name, options, budget (max evaluations); seed = the first seed
    int seeds = 20;
    // Points proposed ahead of their outcomes, as the tuner's compile queue asks for them.
    std::size_t window = 8;
    // Called after each seed's run (done of total): long replays report progress through it.
    std::function<void(int done, int total)> on_seed;
    // Whether each seed keeps its best so far after every evaluation (replay_seed::best):
    // budget x seeds values; what is printed without it needs a few numbers a seed.
    bool keep_history = true;
};

inline constexpr std::array<double, 3> replay_levels = {0.90, 0.95, 1.00};
inline constexpr std::array<std::size_t, 4> replay_checkpoints = {100, 200, 500, 1000};

struct replay_seed {
    uint64_t seed = 0;
    std::size_t evaluations = 0;
    std::optional<double> final_best;  // recorded value of the best found; nullopt: none
    // Recorded value of the best so far, per evaluation (empty without keep_history).
    std::vector<std::optional<double>> best;
    // Best so far / optimum after each of replay_checkpoints evaluations (or all of them when
    // fewer were made); 0 where nothing succeeded.
    std::array<double, 4> relative_at{};
    std::array<std::optional<std::size_t>, 3> evals_to;  // per replay_levels
    std::array<std::optional<double>, 3> time_to_s;      // simulated time to reach them
    double simulated_s = 0;                              // of all evaluations
    std::size_t failures = 0;
    std::string best_key;
};

struct replay_result {
    std::string strategy;  // as resolved (auto names its choice)
    std::vector<replay_seed> seeds;
    // Across seeds: median evaluations to each level (nullopt when at least half did not get
    // there), the share of seeds that did, median simulated time to it.
    std::array<std::optional<double>, 3> median_evals_to;
    std::array<double, 3> reached{};
    std::array<std::optional<double>, 3> median_time_to_s;
    double median_simulated_s = 0;
    // Share of seeds within 95% of the optimum after 100, 200, 500 and 1000 evaluations.
    std::array<double, 4> within_95_at{};
};

replay_seed replay_once(const recorded_space& space, const replay_options& o, uint64_t seed);
// Every seed in turn. `each`, when given, sees each seed as it completes, history included;
// the result's seeds then keep everything but the history.
replay_result replay(const recorded_space& space, const replay_options& o,
                     const std::function<void(const replay_seed&)>& each = {});

}  // namespace hone
