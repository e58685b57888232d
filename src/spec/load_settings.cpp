// Timing and search settings.
#include <fmt/format.h>

#include <algorithm>

#include "search/strategy.hpp"
#include "spec/loader.hpp"

namespace hone::spec_detail {
namespace {

double read_at_least(const doc& d, const entry& e, double lo, bool strict) {
    const double v = read_real(d, e.value);
    if (strict ? v <= lo : v < lo)
        fail(d, e.value, fmt::format("{} must be {} {}", e.key, strict ? ">" : ">=", lo));
    return v;
}

int read_count(const doc& d, const entry& e) {
    const int64_t v = read_int(d, e.value);
    if (v < 1 || v > 1000000) fail(d, e.value, fmt::format("{} must be in 1 .. 1000000", e.key));
    return static_cast<int>(v);
}

}  // namespace

void load_timing(const doc& d, const entry* e, spec& s) {
    if (!e) return;
    const auto m =
        read_map(d, e->value, "timing",
                 {"rel_precision", "ci", "min_samples", "max_samples", "max_time_s", "warmup",
                  "warmup_ms", "l2_flush", "sample_mode", "timeout_s", "timer"});
    timing_spec& t = s.timing;
    for (const auto& item : m) {
        if (item.key == "rel_precision") t.rel_precision = read_at_least(d, item, 0, true);
        if (item.key == "ci") t.ci = read_choice(d, item.value, {"median", "mean", "either"});
        if (item.key == "min_samples") t.min_samples = read_count(d, item);
        if (item.key == "max_samples") t.max_samples = read_count(d, item);
        if (item.key == "max_time_s") t.max_time_s = read_at_least(d, item, 0, true);
        if (item.key == "warmup") t.warmup = read_choice(d, item.value, {"adaptive", "fixed"});
        if (item.key == "warmup_ms") t.warmup_ms = read_at_least(d, item, 0, false);
        if (item.key == "timer")
            t.timer = read_choice(d, item.value, {"auto", "profiler", "cupti", "events"});
        if (item.key == "l2_flush") t.l2_flush = read_bool(d, item.value);
        if (item.key == "sample_mode")
            t.sample_mode = read_choice(d, item.value, {"auto", "single", "batch"});
        if (item.key == "timeout_s") t.timeout_s = read_at_least(d, item, 0, true);
    }
    if (t.max_samples < t.min_samples)
        fail(d, e->value,
             fmt::format("timing: max_samples ({}) is below min_samples ({})", t.max_samples,
                         t.min_samples));
}

// search: {strategy, max_evals, time_limit_s, seed, <the strategy's options>}.
void load_search(const doc& d, const entry* e, spec& s) {
    if (!e) return;
    const auto m = read_map(d, e->value, "search");
    search_spec& x = s.search;
    const entry* st = find(m, "strategy");
    if (st) {
        x.strategy = read_string(d, st->value, "a strategy name");
        x.strategy_pos = pos_of(d, st->value);
        if (!find_strategy(x.strategy)) {
            const auto names = strategy_names();
            fail(d, st->value,
                 fmt::format("expected one of: {}, got '{}'{}", join(names), x.strategy,
                             suggestion(x.strategy, names)));
        }
    }
    for (const auto& item : m) {
        if (item.key == "strategy") continue;
        if (item.key == "devices") {
            x.devices_pos = pos_of(d, item.value);
            if (!item.value.IsSequence()) {
                if (read_string(d, item.value, "devices") != "all")
                    fail(d, item.value, "expected `all` or a list of GPU ordinals, e.g. [0, 1]");
                x.all_devices = true;
                continue;
            }
            for (const YAML::Node& v : read_list(d, item.value, "GPU ordinals")) {
                const int64_t o = read_int(d, v);
                if (o < 0 || o > 1023) fail(d, v, fmt::format("{} is not a GPU ordinal", o));
                if (std::find(x.devices.begin(), x.devices.end(), o) != x.devices.end())
                    fail(d, v, fmt::format("GPU {} is named twice", o));
                x.devices.push_back(static_cast<int>(o));
            }
            if (x.devices.empty())
                fail(d, item.value, "an empty list of GPUs: give `all` or ordinals");
            continue;
        }
        if (item.key == "max_evals") {
            x.max_evals = read_int(d, item.value);
            x.max_evals_pos = pos_of(d, item.value);
            if (*x.max_evals < 0) fail(d, item.value, "max_evals must be >= 0 (0 = no limit)");
            const strategy_info* info = find_strategy(x.strategy);
            if (*x.max_evals == 0 && info && info->adaptive)
                fail(d, item.value,
                     fmt::format("strategy {} needs a budget: max_evals >= 1 (or "
                                 "leave it out for {} evaluations)",
                                 x.strategy, default_budget));
        } else if (item.key == "time_limit_s") {
            x.time_limit_s = read_at_least(d, item, 0, false);
        } else if (item.key == "seed") {
            const int64_t v = read_int(d, item.value);
            if (v < 0) fail(d, item.value, "seed must be >= 0");
            x.seed = static_cast<uint64_t>(v);
        } else {
            // Anything else is an option of the strategy.
            if (!st) {
                fail(
                    d, item.key_node,
                    fmt::format("unknown key '{}' in search: expected strategy, max_evals, "
                                "time_limit_s, seed, devices, or an option of the strategy named{}",
                                item.key,
                                suggestion(item.key, {"strategy", "max_evals", "time_limit_s",
                                                      "seed", "devices"})));
            }
            const strategy_info* info = find_strategy(x.strategy);
            bool known = false;
            std::vector<std::string> names = {"strategy", "max_evals", "time_limit_s", "seed",
                                              "devices"};
            for (const auto& o : info->options) {
                known = known || o.name == item.key;
                names.push_back(o.name);
            }
            if (!known)
                fail(d, item.key_node,
                     strategy_option_error(x.strategy, item.key, 0) + suggestion(item.key, names));
            const double v = read_real(d, item.value);
            const std::string why = strategy_option_error(x.strategy, item.key, v);
            if (!why.empty()) fail(d, item.value, why);
            x.options.push_back({item.key, v, pos_of(d, item.value)});
        }
    }
}

}  // namespace hone::spec_detail
