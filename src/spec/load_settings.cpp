// Timing and search settings.
#include <fmt/format.h>

#include "spec/loader.hpp"

namespace hone::spec_detail {
namespace {

double read_at_least(const doc& d, const entry& e, double lo, bool strict) {
    const double v = read_real(d, e.value);
    if (strict ? v <= lo : v < lo) fail(d, e.value, fmt::format("{} must be {} {}", e.key, strict ? ">" : ">=", lo));
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
        if (item.key == "timer") t.timer = read_choice(d, item.value, {"auto", "cupti", "events"});
        if (item.key == "l2_flush") t.l2_flush = read_bool(d, item.value);
        if (item.key == "sample_mode") t.sample_mode = read_choice(d, item.value, {"auto", "single", "batch"});
        if (item.key == "timeout_s") t.timeout_s = read_at_least(d, item, 0, true);
    }
    if (t.max_samples < t.min_samples)
        fail(d, e->value, fmt::format("timing: max_samples ({}) is below min_samples ({})", t.max_samples, t.min_samples));
}

void load_search(const doc& d, const entry* e, spec& s) {
    if (!e) return;
    const auto m = read_map(d, e->value, "search", {"strategy", "max_evals", "time_limit_s", "seed"});
    search_spec& x = s.search;
    if (const entry* st = find(m, "strategy")) x.strategy = read_choice(d, st->value, {"exhaustive", "random"});
    if (const entry* n = find(m, "max_evals")) {
        x.max_evals = read_int(d, n->value);
        if (x.max_evals < 0) fail(d, n->value, "max_evals must be >= 0 (0 = no limit)");
    }
    if (const entry* t = find(m, "time_limit_s")) x.time_limit_s = read_at_least(d, *t, 0, false);
    if (const entry* seed = find(m, "seed")) {
        const int64_t v = read_int(d, seed->value);
        if (v < 0) fail(d, seed->value, "seed must be >= 0");
        x.seed = static_cast<uint64_t>(v);
    }
}

}  // namespace hone::spec_detail
