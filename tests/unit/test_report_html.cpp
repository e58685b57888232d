// The pure parts of `hone report`: statistics, the comparison matrix on a constructed space,
// random search's exact expectation, scales and ticks; and the page's promises (no script, no
// network, escaped text, every section).
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "measure/stats.hpp"
#include "report/analysis.hpp"
#include "report/html_report.hpp"
#include "report/plots.hpp"
#include "report/svg.hpp"

using namespace hone;
using namespace hone::report_detail;

namespace {

eval_record timed_params(param_list params, double median_us, status st = status::ok) {
    eval_record r;
    r.params = std::move(params);
    for (const auto& [n, v] : r.params)
        r.key += fmt::format("{}{}={}", r.key.empty() ? "" : ",", n, template_text(v));
    r.st = st;
    r.gpu.st = st;
    if (has_timing(st)) {
        r.gpu.samples_us = {median_us * 0.99, median_us, median_us * 1.01};
        r.gpu.time_us = summarize(r.gpu.samples_us);
    }
    return r;
}

// time = base[A] * factor[B] * (C ? 1 : 1): A and B matter, C does not.
std::vector<eval_record> constructed_space() {
    const std::vector<double> a_time = {100, 50, 25};
    const std::vector<double> b_factor = {1, 2};
    std::vector<eval_record> out;
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 2; ++b)
            for (int c = 0; c < 2; ++c)
                out.push_back(timed_params(
                    {{"A", int64_t{a}}, {"B", std::string(b ? "float4" : "float")}, {"C", c == 1}},
                    a_time[a] * b_factor[b]));
    return out;
}

bool near(double a, double b, double rel = 1e-12) {
    return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b));
}

}  // namespace

TEST_CASE("report: quantiles and boxes") {
    CHECK(quantile_sorted({1, 2, 3, 4}, 0.5) == 2.5);
    CHECK(quantile_sorted({1, 2, 3, 4}, 0.25) == 1.75);
    CHECK(quantile_sorted({7}, 0.9) == 7);
    const box_stats b = box_of({5, 1, 4, 2, 3});
    CHECK(b.n == 5);
    CHECK(b.min == 1);
    CHECK(b.q1 == 2);
    CHECK(b.median == 3);
    CHECK(b.q3 == 4);
    CHECK(b.max == 5);
    CHECK(box_of({}).n == 0);
    std::vector<value> v = {std::string("b"), int64_t{4}, 2.5, std::string("a"), false, int64_t{1}};
    sort_values(v);
    CHECK(v == std::vector<value>{false, int64_t{1}, 2.5, int64_t{4}, std::string("b"),
                                  std::string("a")});
}

TEST_CASE("report: scoring a run keeps every value on the axes and only timed records") {
    auto records = constructed_space();
    records.push_back(timed_params({{"A", int64_t{3}}, {"B", std::string("float")}, {"C", false}},
                                   0, status::compile_error));
    const scored_run s = score_run(records, rank_by::time);
    CHECK(s.names == std::vector<std::string>{"A", "B", "C"});
    CHECK(s.values[0].size() == 4);  // A=3 only failed, but is a value of the axis
    CHECK(s.score.size() == 12);
    CHECK(s.points[0] == std::vector<uint32_t>{0, 0, 0});
    CHECK(score_of(records[0], rank_by::gbps) == 0);
}

TEST_CASE("report: sensitivity is the share of variance of log time each parameter explains") {
    const scored_run s = score_run(constructed_space(), rank_by::time);
    const auto eta = sensitivity(s);
    // log t = log a + log b, independent and balanced: the shares are those of the two sums.
    const double va = (std::pow(std::log(2.0), 2) * 2) / 3;  // variance of log a over {0, -l, -2l}
    const double vb = std::pow(std::log(2.0), 2) / 4;        // variance of log b over {0, l}
    CHECK(near(eta[0], va / (va + vb)));
    CHECK(near(eta[1], vb / (va + vb)));
    CHECK(eta[2] < 1e-12);
    // No spread at all: nothing to explain.
    std::vector<eval_record> flat = {timed_params({{"A", int64_t{1}}}, 5),
                                     timed_params({{"A", int64_t{2}}}, 5)};
    CHECK(sensitivity(score_run(flat, rank_by::time))[0] == 0);
}

TEST_CASE("report: the comparison matrix of a constructed space gives its exact ratios") {
    auto records = constructed_space();
    // Remove one configuration: its partners lose a match, nothing else changes.
    records.erase(records.begin());  // A=0, B=float, C=false
    const scored_run s = score_run(records, rank_by::time);
    const comparison a = compare_values(s, 0);
    REQUIRE(a.k == 3);
    // A=2 is twice as fast as A=1 and four times A=0, in every matched pair.
    CHECK(near(a.speedup[2 * 3 + 1], 2));
    CHECK(near(a.speedup[2 * 3 + 0], 4));
    CHECK(near(a.speedup[0 * 3 + 2], 0.25));
    CHECK(a.pairs[2 * 3 + 1] == 4);
    CHECK(a.pairs[2 * 3 + 0] == 3);  // the removed configuration had one partner here
    CHECK(a.speedup[0] == 0);        // diagonal
    CHECK(near(a.best_speedup[2 * 3 + 0], 4));
    const comparison b = compare_values(s, 1);
    CHECK(near(b.speedup[0 * 2 + 1], 2));  // float over float4
    CHECK(b.pairs[1] == 5);
    const comparison c = compare_values(s, 2);
    CHECK(near(c.speedup[1], 1));
    // A throughput objective: higher is better, the same matrix.
    for (auto& r : records) r.gbps = 1e6 / r.gpu.time_us.median;
    const comparison g = compare_values(score_run(records, rank_by::gbps), 0);
    CHECK(near(g.speedup[2 * 3 + 1], 2, 1e-9));
}

TEST_CASE("report: random search's expected best equals enumeration over every draw") {
    // 7 evaluations, 2 of them failures (they find nothing).
    const std::vector<double> scores = {5, 3, 9, 4, 7};
    const std::size_t n = 7;
    std::vector<std::size_t> ks(n);
    std::iota(ks.begin(), ks.end(), 1);
    const auto got = expected_random_best(scores, n, ks, false);
    const auto got_high = expected_random_best(scores, n, ks, true);
    for (std::size_t k = 1; k <= n; ++k) {
        // Every subset of k of the 7 items (5 scored, 2 failed) equally likely.
        double sum = 0, sum_high = 0;
        int counted = 0;
        for (unsigned mask = 0; mask < (1u << n); ++mask) {
            if (static_cast<std::size_t>(__builtin_popcount(mask)) != k) continue;
            double best = INFINITY, best_high = -INFINITY;
            for (std::size_t i = 0; i < scores.size(); ++i)
                if (mask >> i & 1) {
                    best = std::min(best, scores[i]);
                    best_high = std::max(best_high, scores[i]);
                }
            if (!std::isfinite(best)) continue;  // only failures drawn: conditioned away
            sum += best;
            sum_high += best_high;
            ++counted;
        }
        CAPTURE(k);
        CHECK(near(got[k - 1], sum / counted, 1e-12));
        CHECK(near(got_high[k - 1], sum_high / counted, 1e-12));
    }
    CHECK(got.back() == 3);
    const std::vector<double> sorted = {3, 4, 5, 7, 9};
    CHECK(expected_random_best_sorted(sorted, n, {3})[0] == got[2]);
}

TEST_CASE("report: best so far follows the stored order; time spent sums the steps") {
    std::vector<eval_record> records = {timed_params({{"A", int64_t{1}}}, 0, status::compile_error),
                                        timed_params({{"A", int64_t{2}}}, 9),
                                        timed_params({{"A", int64_t{3}}}, 12),
                                        timed_params({{"A", int64_t{4}}}, 4)};
    CHECK(best_so_far(records, rank_by::time) == std::vector<double>{0, 9, 9, 4});
    records[1].compile_ms = 1500;
    records[1].gpu.steps = {0.5, 0.25, 0.125, 2, 3};
    records[2].metrics = {{"framework_time", 250.0}, {"strategy_time", 500.0}};
    const time_parts t = time_spent(records);
    CHECK(t.compile == 1.5);
    CHECK(t.load == 0.5);
    CHECK(t.verify == 0.25);
    CHECK(t.warmup == 0.125);
    CHECK(t.samples == 2);
    CHECK(t.framework == 0.25);
    CHECK(t.strategy == 0.5);
    CHECK(t.total() == 5.125);
    CHECK(curve_points(5) == std::vector<std::size_t>{1, 2, 3, 4, 5});
    const auto many = curve_points(100000);
    CHECK(many.front() == 1);
    CHECK(many.back() == 100000);
    CHECK(std::is_sorted(many.begin(), many.end()));
    CHECK(many.size() < 160);
}

TEST_CASE("report: scales map data to pixels with 1-2-5 ticks") {
    CHECK(linear_ticks(0, 9.3, 5) == std::vector<double>{0, 2, 4, 6, 8, 10});
    CHECK(linear_ticks(0.5, 0.9, 4) == std::vector<double>{0.5, 0.6, 0.7, 0.8, 0.9});
    CHECK(log_ticks(3, 700) == std::vector<double>{5, 10, 20, 50, 100, 200, 500});
    CHECK(log_ticks(1, 1e5) == std::vector<double>{1, 10, 100, 1000, 10000, 100000});
    const scale lin = nice_scale(3, 97, 300, 20, false);
    CHECK(lin.d0 == 0);
    CHECK(lin.d1 == 100);
    CHECK(lin(0) == 300);
    CHECK(lin(100) == 20);
    CHECK(lin(50) == 160);
    const scale lg = nice_scale(13, 480, 0, 300, true);
    CHECK(lg.d0 == 10);
    CHECK(lg.d1 == 500);
    CHECK(near(lg(100), 300 * std::log10(10) / std::log10(50)));
    CHECK(tick_text(0) == "0");
    CHECK(tick_text(2.5) == "2.5");
    CHECK(tick_text(120) == "120");
    CHECK(tick_text(15000) == "15k");
    CHECK(tick_text(2e6) == "2M");
    CHECK(tick_text(0.002) == "0.002");
    CHECK(three_digits(71.6349) == "71.6");
    CHECK(three_digits(1.25) == "1.25");
    CHECK(three_digits(12500) == "12500");
    CHECK(xml_escape("<a & \"b\">'") == "&lt;a &amp; &quot;b&quot;&gt;&#39;");
    CHECK(diverging_color(0) == "#ffffff");
    CHECK(diverging_color(1) == "#2166ac");
    CHECK(diverging_color(-5) == "#b2182b");
    CHECK(objective_unit(rank_by::time, 70).unit == "µs");
    CHECK(objective_unit(rank_by::time, 52000).unit == "ms");
    CHECK(objective_unit(rank_by::time, 0.5).factor == 1000);
}

TEST_CASE("report: one page, every section, no script, no network, text escaped") {
    auto records = constructed_space();
    records[3].params[1].second = std::string("<float&4>");
    records[3].key = "A=1,B=<float&4>,C=true";
    records.push_back(timed_params({{"A", int64_t{9}}, {"B", std::string("float")}, {"C", false}},
                                   0, status::runtime_fault));
    records.back().message = "CUDA_ERROR_ILLEGAL_ADDRESS <700>\nsecond line";
    records[0].compile_ms = 100;
    report_run a{{}, records, "a.db"};
    a.identity.kernel_name = "vector_add<{VEC}>";
    a.identity.device_name = "NVIDIA H100";
    report_run b = a;
    b.identity.device_name = "NVIDIA A100";
    b.identity.origin = "kernel_tuner cache (x.json)";
    const std::string html = html_report({a, b});
    CHECK(html.starts_with("<!DOCTYPE html>"));
    for (const char* section :
         {"Runs", "Best configurations", "The objective against each parameter",
          "Comparison matrices", "Parameter sensitivity", "Where the time went", "Search progress",
          "Failures"})
        CHECK_MESSAGE(html.find(fmt::format("<h2>{}</h2>", section)) != std::string::npos, section);
    CHECK(html.find("<script") == std::string::npos);
    CHECK(html.find("src=") == std::string::npos);
    CHECK(html.find("href=") == std::string::npos);
    CHECK(html.find("<float&4>") == std::string::npos);
    CHECK(html.find("&lt;float&amp;4&gt;") != std::string::npos);
    CHECK(html.find("CUDA_ERROR_ILLEGAL_ADDRESS &lt;700&gt;") != std::string::npos);
    CHECK(html.find("second line") == std::string::npos);  // the first line only
    CHECK(html.find("imported: kernel_tuner cache (x.json)") != std::string::npos);
    CHECK(html.find("run 2") != std::string::npos);
    // The imported run's progress is labelled as the file's order, hone's own as a search's.
    CHECK(html.find("Imported (kernel_tuner cache (x.json)): the curve follows the file's order") !=
          std::string::npos);
    CHECK(html.find("evaluations in this run's order") != std::string::npos);
    // Axes say what they show, with units.
    CHECK(html.find("median time per launch (µs)") != std::string::npos);
    CHECK(html.find("evaluations (configurations tried)") != std::string::npos);
    const auto svgs = [&] {
        std::size_t n = 0;
        for (std::size_t at = html.find("<svg"); at != std::string::npos;
             at = html.find("<svg", at + 1))
            ++n;
        return n;
    }();
    // 3 strip plots, 2 x 3 matrices, sensitivity, time, 2 progress plots.
    CHECK(svgs == 3 + 6 + 1 + 1 + 2);
    CHECK(html_report({}).find("The database holds no runs") != std::string::npos);
}

TEST_CASE("report: a parameter of 100,000 values is scored and noted, not drawn per value") {
    // Values counted through hash maps and no chart of a box or a cell per value: a search of
    // the values seen so far and a 10^5 x 10^5 matrix made this take hours.
    std::vector<eval_record> records;
    const int n = 100'000;
    for (int i = 0; i < n; ++i)
        records.push_back(
            timed_params({{"X", int64_t{n - i}}, {"V", int64_t{i % 3}}}, 1.0 + (i * 7) % 13));
    const scored_run s = score_run(records, rank_by::time);
    REQUIRE(s.values.size() == 2);
    CHECK(s.values[0].size() == static_cast<std::size_t>(n));
    CHECK(s.values[0].front() == value{int64_t{1}});  // sorted, whatever the order stored
    CHECK(s.points[0][0] == static_cast<uint32_t>(n - 1));
    CHECK(s.values[1].size() == 3);
    report_run run{{}, records, "big.db"};
    run.identity.kernel_name = "k";
    const std::string html = html_report({run});
    CHECK(html.find("Parameters with more than 256 values (not plotted") != std::string::npos);
    CHECK(html.find("Parameters with more than 64 values (not compared") != std::string::npos);
    CHECK(html.find("X (100000 values)") != std::string::npos);
    // V is still plotted and compared; the page stays small.
    CHECK(html.find("V: row value against column value") != std::string::npos);
    CHECK(html.size() < 2'000'000);
}
