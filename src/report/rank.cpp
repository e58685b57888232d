#include <fmt/format.h>

#include <algorithm>

#include "hone/report.hpp"

namespace hone {

rank_by parse_rank_by(const std::string& text, const source_pos& pos) {
    if (text == "time") return rank_by::time;
    if (text == "gbps") return rank_by::gbps;
    if (text == "gflops") return rank_by::gflops;
    throw input_error(pos, fmt::format("expected time, gbps or gflops, not '{}'", text));
}

std::vector<const eval_record*> ranked(const std::vector<eval_record>& records, rank_by by) {
    std::vector<const eval_record*> out;
    for (const auto& r : records) {
        if (has_timing(r.st)) out.push_back(&r);
    }
    // Lower is better: throughputs are negated. A record without the metric (0) sorts last.
    auto score = [by](const eval_record* r) {
        switch (by) {
            case rank_by::gbps:
                return -r->gbps;
            case rank_by::gflops:
                return -r->gflops;
            case rank_by::time:
                break;
        }
        return r->gpu.time_us.median;
    };
    std::sort(out.begin(), out.end(), [&](const eval_record* a, const eval_record* b) {
        const double sa = score(a), sb = score(b);
        return sa != sb ? sa < sb : a->key < b->key;
    });
    return out;
}

}  // namespace hone
