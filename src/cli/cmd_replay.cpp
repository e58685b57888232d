// hone replay: run a search strategy against a recorded complete space, no GPU needed.
#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "cli/commands_internal.hpp"
#include "cli/options.hpp"
#include "common/clock.hpp"
#include "formats/recorded_space.hpp"
#include "hone/error.hpp"

namespace hone::cli {
namespace {

struct replay_args {
    std::string space;
    std::string strategy = "auto";
    int64_t max_evals = 1000;
    int seeds = 20;
    uint64_t seed = 1;
    int64_t window = 8;
    std::vector<std::string> options;
    std::string identity;
    std::string objective;
    bool higher = false, lower = false;
    bool json = false;
};

std::string level_name(std::size_t l) {
    return fmt::format("{:.0f}%", replay_levels[l] * 100);
}

strategy_setup read_setup(const replay_args& a) {
    strategy_setup s;
    check_strategy_name(a.strategy);
    s.name = a.strategy;
    s.seed = a.seed;
    if (a.max_evals < 1)
        throw input_error({"--max-evals", 0, 0},
                          "the budget must be at least 1 evaluation (replay needs one)");
    s.budget = a.max_evals;
    for (const auto& [name, v] : parse_strategy_options(a.strategy, a.options)) s.options[name] = v;
    return s;
}

nlohmann::ordered_json opt_json(const std::optional<double>& v) {
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json();
}

nlohmann::ordered_json opt_json(const std::optional<std::size_t>& v) {
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json();
}

std::string text_or_dash(const std::optional<double>& v, const char* fmt_spec) {
    return v ? fmt::format(fmt::runtime(fmt_spec), *v) : "-";
}

// A checkpoint is reported where the budget reached it, or where every seed saw the whole space
// before it (a budget of 200 on a space of 576 says nothing about 1,000 evaluations).
bool checkpoint_reached(std::size_t checkpoint, int64_t max_evals, std::size_t configurations) {
    const auto budget = static_cast<std::size_t>(max_evals);
    return checkpoint <= budget || (configurations <= checkpoint && configurations <= budget);
}

// "BLOCK=128, VEC=4": the configuration at `i` with its parameters' names.
std::string named_key(const recorded_space& space, std::size_t i) {
    std::string out;
    for (std::size_t d = 0; d < space.names.size(); ++d)
        out += fmt::format("{}{}={}", d ? ", " : "", space.names[d],
                           display_text(space.values[d][space.points[i][d]]));
    return out;
}

// Recorded values as `hone show` prints them: times in µs, throughputs as recorded.
struct shown_unit {
    double scale = 1;
    std::string name;
};
shown_unit unit_of(const recorded_space& space) {
    if (space.unit == "ms") return {1000, "µs"};
    if (space.unit == "us") return {1, "µs"};
    return {1, space.unit};
}

// Progress on stderr while the seeds run: a line rewritten in place on a terminal, else a line
// every 10 s (a log), nothing for a replay that ends within 2 s.
std::function<void(int, int)> progress_printer() {
    const bool tty = isatty(STDERR_FILENO) != 0;
    auto start = std::make_shared<steady_clock::time_point>(steady_clock::now());
    auto last = std::make_shared<double>(0.0);
    return [tty, start, last](int done, int total) {
        const double t = seconds_since(*start);
        const bool end = done == total;
        if (t < 2 || (!end && t - *last < (tty ? 0.5 : 10))) {
            if (end && tty && *last > 0) fmt::print(stderr, "\n");
            return;
        }
        *last = t;
        fmt::print(stderr, "{}replay: {} of {} seeds in {:.0f} s{}", tty ? "\r" : "", done, total,
                   t, tty && !end ? "" : "\n");
    };
}

// Far beyond any study (the issue's benchmark uses 20); bounds the memory of the per-seed results.
constexpr int max_seeds = 100000;

int run_replay(const replay_args& a) {
    replay_options o;
    o.setup = read_setup(a);
    if (a.seeds < 1 || a.seeds > max_seeds)
        throw input_error({"--seeds", 0, 0},
                          fmt::format("expected 1 to {} seeds, got {}", max_seeds, a.seeds));
    if (a.window < 1) throw input_error({"--window", 0, 0}, "at least 1");
    o.seeds = a.seeds;
    o.window = static_cast<std::size_t>(a.window);
    objective_choice objective{a.objective, std::nullopt};
    if (a.higher || a.lower) {
        if (a.objective.empty())
            throw input_error({a.higher ? "--higher-is-better" : "--lower-is-better", 0, 0},
                              "says which way --objective NAME is better: give --objective too");
        objective.higher = a.higher;
    }
    const recorded_space space = load_recorded_space(a.space, a.identity, objective);
    o.on_seed = progress_printer();
    const shown_unit unit = unit_of(space);
    std::size_t failed = 0;
    for (const auto& v : space.outcome) failed += v ? 0 : 1;
    const double optimum = space.natural(*space.outcome[space.optimum]);

    if (a.json) {
        // Each seed's history is printed as it completes and then dropped: memory stays that of
        // one seed's, and the summary, known at the end, comes after the seeds.
        o.keep_history = true;
        nlohmann::ordered_json j;
        j["space"] = {{"path", space.path},
                      {"format", space.format},
                      {"kernel", space.kernel},
                      {"device", space.device},
                      {"problem", space.problem},
                      {"objective", space.objective},
                      {"unit", space.unit},
                      {"configurations", space.points.size()},
                      {"failed", failed},
                      {"optimum", {{"key", space.key(space.optimum)}, {"value", optimum}}},
                      {"ranked_by", space.ranked_value}};
        j["strategy"] = resolve_strategy(o.setup.name, static_cast<double>(space.points.size()));
        j["requested"] = a.strategy;
        j["options"] = o.setup.options;
        j["max_evals"] = a.max_evals;
        j["window"] = a.window;
        std::string head = j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
        head.pop_back();  // the closing brace: the seeds and the summary follow
        std::cout << head << ",\"seeds\":[";
        bool first = true;
        const replay_result r = replay(space, o, [&](const replay_seed& s) {
            nlohmann::ordered_json js;
            js["seed"] = s.seed;
            js["evals_to_90"] = opt_json(s.evals_to[0]);
            js["evals_to_95"] = opt_json(s.evals_to[1]);
            js["evals_to_100"] = opt_json(s.evals_to[2]);
            js["evaluations"] = s.evaluations;
            js["failures"] = s.failures;
            js["simulated_s"] = s.simulated_s;
            js["best_key"] = s.best_key;
            nlohmann::ordered_json best = nlohmann::ordered_json::array();
            for (const auto& b : s.best) best.push_back(opt_json(b));
            js["best_so_far"] = std::move(best);
            std::cout << (first ? "" : ",")
                      << js.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
            first = false;
        });
        nlohmann::ordered_json sum;
        for (std::size_t l = 0; l < replay_levels.size(); ++l) {
            const std::string tag = level_name(l).substr(0, level_name(l).size() - 1);
            sum["median_evals_to_" + tag] = opt_json(r.median_evals_to[l]);
            sum["reached_" + tag] = r.reached[l];
            sum["median_time_to_" + tag + "_s"] = opt_json(r.median_time_to_s[l]);
        }
        sum["median_simulated_s"] = r.median_simulated_s;
        nlohmann::ordered_json within = nlohmann::ordered_json::object();
        for (std::size_t c = 0; c < replay_checkpoints.size(); ++c) {
            if (checkpoint_reached(replay_checkpoints[c], a.max_evals, space.points.size()))
                within[std::to_string(replay_checkpoints[c])] = r.within_95_at[c];
        }
        sum["within_95_at"] = within;
        std::cout << "],\"summary\":" << sum.dump() << "}\n";
        return 0;
    }

    // Only what the table prints is kept for each seed.
    o.keep_history = false;
    const replay_result r = replay(space, o);
    // T4 results name neither kernel nor device (a separate metadata file holds them).
    print_text("{} ({}): {} on {}\n", space.path, space.format,
               space.kernel.empty() ? "a kernel the file does not name" : space.kernel,
               space.device.empty() ? "a device it does not name" : space.device);
    print_text("{} configurations, {} failed; optimum {:.6g} {} at {}\n", space.points.size(),
               failed, optimum * unit.scale, unit.name, named_key(space, space.optimum));
    if (!space.ranked_value.empty()) print_text("ranked by {}\n", space.ranked_value);
    fmt::print("strategy {}{}, {} seed(s) from {}, at most {} evaluations, {} proposed ahead\n\n",
               r.strategy, a.strategy == r.strategy ? "" : " (" + a.strategy + ")", o.seeds, a.seed,
               a.max_evals, o.window);
    fmt::print("{:<8} {:>14} {:>14} {:>24}\n", "optimum", "seeds reached", "median evals",
               "median simulated time");
    for (std::size_t l = 0; l < replay_levels.size(); ++l) {
        fmt::print("{:<8} {:>13.0f}% {:>14} {:>22} s\n", level_name(l), 100 * r.reached[l],
                   text_or_dash(r.median_evals_to[l], "{:.1f}"),
                   text_or_dash(r.median_time_to_s[l], "{:.1f}"));
    }
    std::string within;
    for (std::size_t c = 0; c < replay_checkpoints.size(); ++c) {
        if (!checkpoint_reached(replay_checkpoints[c], a.max_evals, space.points.size())) continue;
        within += fmt::format("{}{}: {:.0f}%", within.empty() ? "" : ", ", replay_checkpoints[c],
                              100 * r.within_95_at[c]);
    }
    if (!within.empty())
        fmt::print("\nseeds within 95% of the optimum after N evaluations: {}\n", within);
    fmt::print("median simulated tuning time (compile + measure, all evaluations): {:.1f} s\n\n",
               r.median_simulated_s);
    fmt::print("{:>6} {:>8} {:>8} {:>8} {:>12} {:>9}  {}\n", "seed", "to 90%", "to 95%", "to 100%",
               "best " + unit.name, "failures", "best configuration");
    auto cell = [](const std::optional<std::size_t>& v) {
        return v ? std::to_string(*v) : std::string("-");
    };
    // The seeds' best keys -> their first position; a table of every recorded key would cost
    // more than the space (10^6 records).
    const std::size_t none = space.points.size();
    std::unordered_map<std::string, std::size_t> at;
    for (const auto& s : r.seeds) at.emplace(s.best_key, none);
    for (std::size_t i = 0; i < space.points.size(); ++i) {
        const auto it = at.find(space.key(i));
        if (it != at.end() && it->second == none) it->second = i;
    }
    for (const auto& s : r.seeds) {
        auto found = at.find(s.best_key);
        if (found != at.end() && found->second == none) found = at.end();
        print_text("{:>6} {:>8} {:>8} {:>8} {:>12.6g} {:>9}  {}\n", s.seed, cell(s.evals_to[0]),
                   cell(s.evals_to[1]), cell(s.evals_to[2]),
                   s.final_best.value_or(0.0) * unit.scale, s.failures,
                   found == at.end() ? s.best_key : named_key(space, found->second));
    }
    return 0;
}

std::string strategies_help() {
    std::string out;
    for (const auto& s : strategy_catalogue()) {
        out += fmt::format("  {:<13} {}\n", s.name, s.summary);
        for (const auto& o : s.options)
            out += fmt::format("      {}={:g}  {} ({:g} .. {:g})\n", o.name, o.fallback, o.help,
                               o.lo, o.hi);
    }
    return out;
}

}  // namespace

void register_replay(CLI::App& app, std::function<int()>& action) {
    auto a = std::make_shared<replay_args>();
    CLI::App* c = app.add_subcommand(
        "replay", "Run a search strategy against a recorded complete space, without a GPU");
    c->footer(
        R"(SPACE is a Kernel Tuner cache file (.json or .json.gz: every configuration of a space,
compiled and timed), T4 results (.json or .json.gz), KTT's JSON output (an exhaustive
tuning's "Metadata" and "Results", ranked by each result's TotalDuration) or a hone results
database of an exhaustive run. The recorded configurations are the space: a strategy sees
their parameters, proposes configurations, and gets each one's recorded time back (failed
records, e.g. InvalidConfig, CompilationFailedConfig, RuntimeFailedConfig, KTT's
ComputationFailed or hone's compile_error, count as
evaluations that found nothing). The recorded time is the file's own (a cache's `time`, a T4
result's "time" measurement), so one space in either format replays the same; a hone database
gives the median of the raw times. A file whose objective is GFLOP/s or GB/s (a cache's
"objective", a T4 result's "objectives", a hone run tuned for gflops or gbps) is ranked by that
value, higher first. --objective NAME ranks by another number each record holds (a cache's
field, a T4 measurement, a hone run's metric; time, GFLOP/s and GB/s in any of them), higher
first for the throughputs Kernel Tuner knows (GFLOP/s, GB/s, TFLOP/s, GFLOPS/W, ...), lower
first for anything else unless --higher-is-better says otherwise.

For each seed, replay reports the number of evaluations until the best found is within 90%,
95% and 100% of the optimum (performance = optimum time / best time so far), and the simulated
tuning time (recorded compile and measurement times of the evaluated configurations). Across
seeds: the share of seeds that reached each level, the medians (a dash: half the seeds or more
did not reach it), and the share within 95% after 100, 200, 500 and 1000 evaluations.

--json prints one object: "space", "strategy", "seeds", an array of {seed, evals_to_90,
evals_to_95, evals_to_100 (null where not reached), best_so_far (the best time, or throughput,
after each evaluation; null before the first success), ...}, and "summary", written last: each
seed is printed as it completes, so memory does not grow with the number of seeds.

Strategies and their options (--option NAME=VALUE; the YAML's search section takes the same):
)" + strategies_help() +
        R"(
Examples:
  hone replay gemm_RTX_2080_Ti.json.gz --strategy auto --seeds 20
  hone replay configs/vector_add.db --strategy genetic --option population=30 --json
  hone replay results.db --identity 2 --strategy random --max-evals 200)");
    c->add_option("space", a->space, "Kernel Tuner cache, T4 results, KTT output or hone database")
        ->required()
        ->check(CLI::ExistingFile);
    c->add_option("--strategy", a->strategy, "Strategy (default auto; see below)");
    c->add_option("--max-evals", a->max_evals, "Evaluations per seed (default 1000)")
        ->check(whole_number(1, std::numeric_limits<int64_t>::max()));
    c->add_option("--seeds", a->seeds, "Seeds to run (default 20)")
        ->check(whole_number(1, max_seeds));
    c->add_option("--seed", a->seed, "First seed (default 1): seeds S, S+1, ...")
        ->check(seed_number());
    c->add_option("-O,--option", a->options, "Strategy option NAME=VALUE (repeatable)");
    c->add_option("--window", a->window,
                  "Configurations proposed ahead of their outcomes (default 8, as a tuner with "
                  "2 compile jobs)")
        ->check(whole_number(1, std::numeric_limits<int64_t>::max()));
    c->add_option("--identity", a->identity,
                  "Which run of a database with several: its number (1 = first) or id prefix");
    c->add_option("--objective", a->objective,
                  "Rank by this recorded number instead of the file's objective: time, GFLOP/s, "
                  "GB/s or a field, measurement or metric of the records");
    auto* up = c->add_flag("--higher-is-better", a->higher,
                           "--objective's value is better higher (default for throughputs)");
    auto* down = c->add_flag("--lower-is-better", a->lower,
                             "--objective's value is better lower (default for anything else)");
    up->excludes(down);
    c->add_flag("--json", a->json, "Machine-readable output");
    c->callback([a, &action] { action = [a] { return run_replay(*a); }; });
}

}  // namespace hone::cli
