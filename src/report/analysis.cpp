#include "report/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <unordered_map>

#include "common/value_key.hpp"

namespace hone::report_detail {

double quantile_sorted(const std::vector<double>& sorted, double q) {
    const double at = q * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(at));
    const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - static_cast<double>(lo));
}

double median_of(std::vector<double>& values) {
    // Linear-time selection; the same value as quantile_sorted(sorted, 0.5).
    const std::size_t mid = (values.size() - 1) / 2;
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid),
                     values.end());
    const double lo = values[mid];
    if (values.size() % 2 == 1) return lo;
    const double hi =
        *std::min_element(values.begin() + static_cast<std::ptrdiff_t>(mid) + 1, values.end());
    return lo + (hi - lo) * 0.5;
}

box_stats box_of(std::vector<double> values) {
    box_stats b;
    b.n = values.size();
    if (values.empty()) return b;
    std::sort(values.begin(), values.end());
    b.min = values.front();
    b.max = values.back();
    b.q1 = quantile_sorted(values, 0.25);
    b.median = quantile_sorted(values, 0.5);
    b.q3 = quantile_sorted(values, 0.75);
    return b;
}

void sort_values(std::vector<value>& values) {
    auto key = [](const value& v) -> std::pair<bool, double> {
        if (auto* i = std::get_if<int64_t>(&v)) return {false, static_cast<double>(*i)};
        if (auto* d = std::get_if<double>(&v)) return {false, *d};
        if (auto* b = std::get_if<bool>(&v)) return {false, *b ? 1.0 : 0.0};
        return {true, 0.0};
    };
    std::stable_sort(values.begin(), values.end(),
                     [&](const value& a, const value& b) { return key(a) < key(b); });
}

double score_of(const eval_record& r, rank_by by) {
    switch (by) {
        case rank_by::gbps:
            return r.gbps;
        case rank_by::gflops:
            return r.gflops;
        case rank_by::time:
            break;
    }
    return r.gpu.time_us.median;
}

scored_run score_run(const std::vector<eval_record>& records, rank_by by) {
    scored_run s;
    s.higher_better = by != rank_by::time;
    // Per parameter, each value's index through a hash map: a search of the values seen so
    // far made a parameter of 10^5 values take minutes.
    std::vector<std::unordered_map<std::string, uint32_t>> index;
    auto param_of = [&](const std::string& name) {
        auto it = std::find(s.names.begin(), s.names.end(), name);
        if (it != s.names.end()) return static_cast<std::size_t>(it - s.names.begin());
        s.names.push_back(name);
        s.values.emplace_back();
        index.emplace_back();
        return s.names.size() - 1;
    };
    for (const auto& r : records) {
        for (const auto& [name, v] : r.params) {
            const std::size_t p = param_of(name);
            if (index[p].emplace(value_key(v), 0).second) s.values[p].push_back(v);
        }
    }
    for (std::size_t p = 0; p < s.values.size(); ++p) {
        sort_values(s.values[p]);
        for (std::size_t i = 0; i < s.values[p].size(); ++i)
            index[p][value_key(s.values[p][i])] = static_cast<uint32_t>(i);
    }
    for (const auto& r : records) {
        const double score = score_of(r, by);
        if (!has_timing(r.st) || !(score > 0) || !std::isfinite(score)) continue;
        std::vector<uint32_t> p(s.names.size(), UINT32_MAX);
        for (const auto& [name, v] : r.params) {
            const std::size_t i = param_of(name);
            p[i] = index[i].at(value_key(v));
        }
        s.points.push_back(std::move(p));
        s.score.push_back(score);
        s.records.push_back(&r);
    }
    return s;
}

std::vector<double> sensitivity(const scored_run& s) {
    std::vector<double> out(s.names.size(), 0.0);
    const std::size_t n = s.score.size();
    if (n < 2) return out;
    std::vector<double> y(n);
    for (std::size_t i = 0; i < n; ++i) y[i] = std::log(s.score[i]);
    const double mean = std::accumulate(y.begin(), y.end(), 0.0) / static_cast<double>(n);
    double total = 0;
    for (double v : y) total += (v - mean) * (v - mean);
    if (!(total > 0)) return out;
    for (std::size_t p = 0; p < s.names.size(); ++p) {
        const std::size_t k = s.values[p].size();
        std::vector<double> sum(k, 0.0);
        std::vector<std::size_t> count(k, 0);
        for (std::size_t i = 0; i < n; ++i) {
            const uint32_t v = s.points[i][p];
            if (v >= k) continue;  // a record without this parameter
            sum[v] += y[i];
            ++count[v];
        }
        double between = 0;
        for (std::size_t v = 0; v < k; ++v) {
            if (count[v] == 0) continue;
            const double m = sum[v] / static_cast<double>(count[v]);
            between += static_cast<double>(count[v]) * (m - mean) * (m - mean);
        }
        out[p] = std::clamp(between / total, 0.0, 1.0);
    }
    return out;
}

comparison compare_values(const scored_run& s, std::size_t param) {
    comparison c;
    c.k = s.values[param].size();
    const std::size_t k = c.k;
    c.speedup.assign(k * k, 0.0);
    c.best_speedup.assign(k * k, 0.0);
    c.pairs.assign(k * k, 0);
    const std::size_t n = s.score.size();
    // Sort the scored records by everything but this parameter: matched ones become neighbours.
    // The other parameters' value indices as one mixed-radix number when it fits in 64 bits.
    std::vector<uint64_t> rest(n, 0);
    bool coded = true;
    {
        unsigned __int128 radix = 1;
        for (std::size_t i = 0; i < s.names.size() && coded; ++i) {
            if (i == param) continue;
            radix *= s.values[i].size() + 1;  // + 1: a record without this parameter
            coded = radix < (unsigned __int128)1 << 63;
        }
        if (coded) {
            for (std::size_t r = 0; r < n; ++r) {
                uint64_t code = 0;
                for (std::size_t i = 0; i < s.names.size(); ++i) {
                    if (i == param) continue;
                    const uint64_t v = s.points[r][i];
                    code = code * (s.values[i].size() + 1) + (v < s.values[i].size() ? v + 1 : 0);
                }
                rest[r] = code;
            }
        }
    }
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    auto rest_less = [&](std::size_t a, std::size_t b) {
        if (coded) {
            if (rest[a] != rest[b]) return rest[a] < rest[b];
            return s.points[a][param] < s.points[b][param];
        }
        const auto& pa = s.points[a];
        const auto& pb = s.points[b];
        for (std::size_t i = 0; i < pa.size(); ++i) {
            if (i == param || pa[i] == pb[i]) continue;
            return pa[i] < pb[i];
        }
        return pa[param] < pb[param];
    };
    std::sort(order.begin(), order.end(), rest_less);
    auto same_rest = [&](std::size_t a, std::size_t b) {
        if (coded) return rest[a] == rest[b];
        for (std::size_t i = 0; i < s.points[a].size(); ++i)
            if (i != param && s.points[a][i] != s.points[b][i]) return false;
        return true;
    };
    // log(speedup of a over b) per matched configuration.
    std::vector<std::vector<double>> logs(k * k);
    std::vector<double> log_score(n);
    for (std::size_t i = 0; i < n; ++i) log_score[i] = std::log(s.score[i]);
    const double sign = s.higher_better ? 1.0 : -1.0;
    for (std::size_t start = 0; start < n;) {
        std::size_t end = start + 1;
        while (end < n && same_rest(order[start], order[end])) ++end;
        for (std::size_t i = start; i < end; ++i) {
            for (std::size_t j = start; j < end; ++j) {
                const uint32_t a = s.points[order[i]][param], b = s.points[order[j]][param];
                if (a == b || a >= k || b >= k) continue;
                logs[a * k + b].push_back(sign * (log_score[order[i]] - log_score[order[j]]));
            }
        }
        start = end;
    }
    std::vector<double> best(k, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        const uint32_t v = s.points[i][param];
        if (v >= k) continue;
        const double x = s.score[i];
        if (best[v] == 0 || (s.higher_better ? x > best[v] : x < best[v])) best[v] = x;
    }
    for (std::size_t a = 0; a < k; ++a) {
        for (std::size_t b = 0; b < k; ++b) {
            if (a == b) continue;
            auto& l = logs[a * k + b];
            c.pairs[a * k + b] = l.size();
            if (!l.empty()) c.speedup[a * k + b] = std::exp(median_of(l));
            if (best[a] > 0 && best[b] > 0)
                c.best_speedup[a * k + b] = s.higher_better ? best[a] / best[b] : best[b] / best[a];
        }
    }
    return c;
}

std::vector<double> expected_random_best(std::vector<double> scores, std::size_t n_total,
                                         const std::vector<std::size_t>& ks, bool higher_better) {
    if (higher_better) {
        std::sort(scores.begin(), scores.end(), std::greater<>());
    } else {
        std::sort(scores.begin(), scores.end());
    }
    return expected_random_best_sorted(scores, n_total, ks);
}

std::vector<double> expected_random_best_sorted(const std::vector<double>& scores,
                                                std::size_t n_total,
                                                const std::vector<std::size_t>& ks) {
    const std::size_t m = scores.size();
    const auto N = static_cast<double>(n_total);
    std::vector<double> out;
    out.reserve(ks.size());
    for (const std::size_t k : ks) {
        // P(the best drawn is the i-th best) = C(N - i, k - 1) / C(N, k), i = 1..m, from
        // P_1 = k / N and P_{i+1} / P_i = (N - i - k + 1) / (N - i).
        double p = static_cast<double>(k) / N, mass = 0, sum = 0;
        for (std::size_t i = 1; i <= m && p > 0; ++i) {
            mass += p;
            sum += p * scores[i - 1];
            if (p < 1e-18 * mass) break;  // the rest cannot move the mean
            const double num = N - static_cast<double>(i) - static_cast<double>(k) + 1;
            p = num <= 0 ? 0 : p * num / (N - static_cast<double>(i));
        }
        out.push_back(mass > 0 ? sum / mass : 0);
    }
    return out;
}

std::vector<double> best_so_far(const std::vector<eval_record>& records, rank_by by) {
    std::vector<double> out;
    out.reserve(records.size());
    const bool higher = by != rank_by::time;
    double best = 0;
    for (const auto& r : records) {
        const double x = score_of(r, by);
        if (has_timing(r.st) && x > 0 && std::isfinite(x) &&
            (best == 0 || (higher ? x > best : x < best)))
            best = x;
        out.push_back(best);
    }
    return out;
}

time_parts time_spent(const std::vector<eval_record>& records) {
    time_parts t;
    for (const auto& r : records) {
        if (!r.compile_cached) t.compile += r.compile_ms / 1000;  // a cache hit cost no compile
        const job_steps& s = r.gpu.steps;
        t.load += s.load_s;
        t.verify += s.verify_s;
        t.warmup += s.warmup_s;
        t.samples += s.samples_s;
        if (auto it = r.metrics.find("framework_time"); it != r.metrics.end())
            t.framework += it->second / 1000;
        if (auto it = r.metrics.find("strategy_time"); it != r.metrics.end())
            t.strategy += it->second / 1000;
    }
    return t;
}

}  // namespace hone::report_detail
