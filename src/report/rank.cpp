#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "report/report.hpp"

namespace hone {

rank_by parse_rank_by(const std::string& text, const source_pos& pos) {
    if (text == "time") return rank_by::time;
    if (text == "gbps") return rank_by::gbps;
    if (text == "gflops") return rank_by::gflops;
    throw input_error(pos, fmt::format("expected time, gbps or gflops, not '{}'", text));
}

rank_by stored_rank_by(const run_identity& id) {
    if (id.objective == "gbps") return rank_by::gbps;
    if (id.objective == "gflops") return rank_by::gflops;
    return rank_by::time;
}

std::optional<double> objective_score(const eval_record& r, rank_by by) {
    if (!has_timing(r.st)) return std::nullopt;
    switch (by) {
        case rank_by::gbps:
            return r.gbps > 0 ? std::optional(-r.gbps) : std::nullopt;
        case rank_by::gflops:
            return r.gflops > 0 ? std::optional(-r.gflops) : std::nullopt;
        case rank_by::time:
            break;
    }
    return r.gpu.time_us.median;
}

std::vector<const eval_record*> ranked(const std::vector<eval_record>& records, rank_by by) {
    std::vector<const eval_record*> out;
    for (const auto& r : records) {
        if (has_timing(r.st)) out.push_back(&r);
    }
    // A record without the metric sorts last.
    auto score = [by](const eval_record* r) {
        return objective_score(*r, by).value_or(std::numeric_limits<double>::infinity());
    };
    std::stable_sort(out.begin(), out.end(), [&](const eval_record* a, const eval_record* b) {
        const double sa = score(a), sb = score(b);
        return sa != sb ? sa < sb : a->key < b->key;
    });
    return out;
}

}  // namespace hone
