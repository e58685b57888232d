// The page of `hone report`: sections of tables and charts, one column of content that reads
// top to bottom, several runs compared within each section.
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>

#include "common/value_key.hpp"
#include "hone/final_word.hpp"
#include "record/run_labels.hpp"
#include "report/analysis.hpp"
#include "report/html_report.hpp"
#include "report/plots.hpp"
#include "report/report.hpp"
#include "report/svg.hpp"
#include "report/units.hpp"

namespace hone {
namespace {
// A named namespace, so that the using-directive stays in this file when a unity build
// compiles it together with others.
namespace page {
using namespace report_detail;

constexpr const char* css = R"(
body { font: 15px/1.45 "DejaVu Sans", "Segoe UI", Roboto, Helvetica, Arial, sans-serif;
       color: #1b1b1b; margin: 0 auto; max-width: 1500px; padding: 12px 28px 48px; }
h1 { font-size: 26px; margin: 8px 0 4px; }
h2 { font-size: 20px; margin: 34px 0 8px; padding-bottom: 4px; border-bottom: 2px solid #ddd; }
h3 { font-size: 16px; margin: 20px 0 6px; }
p.how { color: #444; font-size: 14px; max-width: 980px; margin: 4px 0 10px; }
.meta { color: #555; font-size: 13px; }
table { border-collapse: collapse; font-size: 13px; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 9px; border-bottom: 1px solid #e6e6e6; text-align: right; vertical-align: top; }
th { background: #f4f4f4; font-weight: 600; border-bottom: 1px solid #ccc; }
td.t, th.t { text-align: left; }
td, th { white-space: nowrap; }
td.wrap { white-space: normal; max-width: 460px; overflow-wrap: anywhere; }
td.msg { text-align: left; white-space: normal; font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12px;
         max-width: 760px; overflow-wrap: anywhere; }
tr.tie td { background: #eef5ff; }
tr.best td { background: #e6f4ea; font-weight: 600; }
.grid { display: flex; flex-wrap: wrap; gap: 14px 22px; align-items: flex-start; }
figure { margin: 0; }
figcaption { font-size: 12px; color: #555; margin-top: 2px; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px; margin-right: 5px;
          vertical-align: -1px; }
.scroll { overflow-x: auto; }
svg { display: block; }
)";

struct run_view {
    const report_run* run = nullptr;
    std::string label, color;
    rank_by by = rank_by::time;
    scored_run scored;
};

std::string esc(const std::string& s) {
    return xml_escape(s);
}

std::string swatch(const std::string& color) {
    return fmt::format(R"(<span class="swatch" style="background:{}"></span>)", color);
}

std::string duration_cell(const summary& t) {
    const auto u = unit_for(t.median);
    std::string out = fmt::format("{} {}", in_unit(t.median, u), u.name);
    if (t.ci_high > t.ci_low)
        out += fmt::format(" [{}, {}]", in_unit(t.ci_low, u), in_unit(t.ci_high, u));
    return out;
}

std::string objective_text(const eval_record& r, rank_by by) {
    if (by == rank_by::gbps) return fmt::format("{:.1f} GB/s", r.gbps);
    if (by == rank_by::gflops) return fmt::format("{:.1f} GFLOP/s", r.gflops);
    return format_duration_us(r.gpu.time_us.median);
}

std::string run_heading(const run_view& v) {
    const run_identity& id = v.run->identity;
    return fmt::format("{}{}: {} on {}", swatch(v.color), esc(v.label), esc(kernel_label(id)),
                       esc(device_label(id)));
}

// "4362<br>4201 ok<br>155 runtime_fault": the total, then each status on its own line.
std::string status_lines(const std::vector<eval_record>& records) {
    std::string out = std::to_string(records.size());
    for (int i = 0; i <= static_cast<int>(status::timeout); ++i) {
        const auto s = static_cast<status>(i);
        const auto n =
            std::count_if(records.begin(), records.end(), [s](const auto& r) { return r.st == s; });
        if (n > 0) out += fmt::format("<br>{} {}", n, status_name(s));
    }
    return out;
}

// A key that may break after its commas.
std::string breakable_key(const std::string& key) {
    std::string out;
    for (char c : esc(key)) {
        out += c;
        if (c == ',') out += "<wbr>";
    }
    return out;
}

std::string runs_table(const std::vector<run_view>& views) {
    std::string out =
        R"(<div class="scroll"><table><tr><th class="t">run</th><th class="t">id</th><th class="t">kernel</th><th class="t">device</th><th class="t">problem</th><th class="t">measured by</th><th class="t">objective</th><th>configurations</th><th class="t">best</th></tr>)";
    for (const auto& v : views) {
        const run_identity& id = v.run->identity;
        const auto best = ranked(v.run->records, v.by);
        out += fmt::format(
            R"(<tr><td class="t">{}{}</td><td class="t"><code>{}</code></td><td class="t">{}</td><td class="t">{}</td><td class="t">{}</td><td class="t wrap">{}</td><td class="t">{}</td><td>{}</td><td class="t wrap">{}</td></tr>)",
            swatch(v.color), esc(v.label), id.id().substr(0, 12), esc(id.kernel_name),
            esc(id.device_name.empty() ? "unknown" : id.device_name), esc(id.problem),
            esc(id.origin.empty() ? fmt::format("hone {} (this tool)", id.tool_version)
                                  : "imported: " + id.origin),
            esc(id.objective), status_lines(v.run->records),
            best.empty() ? "none ranked"
                         : fmt::format("<b>{}</b><br>{}", esc(objective_text(*best[0], v.by)),
                                       breakable_key(best[0]->key)));
    }
    return out + "</table></div>";
}

std::string best_table(const run_view& v, std::size_t top) {
    const auto order = ranked(v.run->records, v.by);
    if (order.empty()) return R"(<p class="how">No configuration of this run has a timing.</p>)";
    const std::size_t rows = top == 0 ? order.size() : std::min(top, order.size());
    // Parameters that are the same in every ranked configuration go in a note, not a column.
    std::vector<std::string> names, fixed;
    for (const auto& p : order.front()->params) {
        const bool same = std::all_of(order.begin(), order.end(), [&](const eval_record* r) {
            for (const auto& q : r->params)
                if (q.first == p.first) return q.second == p.second;
            return false;
        });
        if (same && order.size() > 1) {
            fixed.push_back(fmt::format("{} = {}", p.first, template_text(p.second)));
        } else {
            names.push_back(p.first);
        }
    }
    auto any = [&](auto pred) {
        return std::any_of(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(rows), pred);
    };
    const bool gbps = any([](auto* r) { return r->gbps > 0; });
    const bool gflops = any([](auto* r) { return r->gflops > 0; });
    const bool regs =
        any([](auto* r) { return r->gpu.num_regs >= 0 || r->resources.registers >= 0; });
    const bool occ = any([](auto* r) { return r->gpu.active_blocks_per_sm >= 0; });
    const bool mode = any([](auto* r) { return !r->gpu.sample_mode.empty(); });
    // Measured on several GPUs: which one measured each row, and its state (NVML).
    const int first_gpu = order.front()->device;
    const bool gpu = any([&](auto* r) { return r->device != first_gpu; });
    const bool tele = any([](auto* r) { return r->gpu.telemetry.sm_clock_mhz > 0; });
    std::string out = R"(<div class="scroll"><table><tr><th>#</th>)";
    for (const auto& n : names) out += fmt::format("<th>{}</th>", esc(n));
    out += "<th>median [95% CI]</th><th>n</th>";
    if (mode) out += R"(<th class="t">sample</th>)";
    if (gbps) out += "<th>GB/s</th>";
    if (gflops) out += "<th>GFLOP/s</th>";
    if (regs) out += "<th>regs</th><th>spill B</th><th>smem B</th>";
    if (occ) out += "<th>occ</th>";
    if (gpu) out += "<th>GPU</th>";
    if (tele) out += "<th>SM MHz</th><th>°C</th><th>W</th>";
    out += R"(<th class="t">status</th><th class="t"></th></tr>)";
    const summary& best = order.front()->gpu.time_us;
    for (std::size_t i = 0; i < rows; ++i) {
        const eval_record& r = *order[i];
        const bool tie = i > 0 && overlaps(best, r.gpu.time_us);
        out += fmt::format(R"(<tr{}><td>{}</td>)",
                           i == 0 ? R"( class="best")"
                           : tie  ? R"( class="tie")"
                                  : "",
                           i + 1);
        for (const auto& n : names) {
            std::string cell = "–";
            for (const auto& [pn, pv] : r.params)
                if (pn == n) cell = template_text(pv);
            out += fmt::format("<td>{}</td>", esc(truncate_text(cell, 24)));
        }
        out += fmt::format("<td>{}</td><td>{}</td>", esc(duration_cell(r.gpu.time_us)),
                           r.gpu.time_us.n);
        if (mode) out += fmt::format(R"(<td class="t">{}</td>)", esc(r.gpu.sample_mode));
        if (gbps)
            out += fmt::format("<td>{}</td>", r.gbps > 0 ? fmt::format("{:.1f}", r.gbps) : "–");
        if (gflops)
            out += fmt::format("<td>{}</td>", r.gflops > 0 ? fmt::format("{:.1f}", r.gflops) : "–");
        if (regs) {
            const int n = r.gpu.num_regs >= 0 ? r.gpu.num_regs : r.resources.registers;
            const resource_usage& u = r.resources;
            // Static shared memory as loaded, else as ptxas said; "–" where neither was recorded.
            const int stat = r.gpu.static_shared_bytes >= 0 ? r.gpu.static_shared_bytes
                             : u.registers >= 0             ? u.shared_static_bytes
                                                            : -1;
            out += fmt::format(
                "<td>{}</td><td>{}</td><td>{}</td>", n >= 0 ? std::to_string(n) : "–",
                u.registers >= 0 ? std::to_string(u.spill_store_bytes + u.spill_load_bytes) : "–",
                stat >= 0 ? std::to_string(stat + r.dynamic_shared_bytes) : "–");
        }
        if (occ)
            out += fmt::format("<td>{}</td>", r.gpu.active_blocks_per_sm >= 0
                                                  ? fmt::format("{:.0f}%", r.gpu.occupancy * 100)
                                                  : "–");
        if (gpu) out += fmt::format("<td>{}</td>", r.device >= 0 ? std::to_string(r.device) : "–");
        if (tele) {
            const gpu_telemetry& t = r.gpu.telemetry;
            for (double x : {t.sm_clock_mhz, t.temperature_c, t.power_w})
                out += fmt::format("<td>{}</td>", x >= 0 ? fmt::format("{:.0f}", x) : "–");
        }
        out += fmt::format(R"(<td class="t">{}</td><td class="t">{}</td></tr>)", status_name(r.st),
                           i == 0 ? "best"
                           : tie  ? "tie"
                                  : "");
    }
    out += "</table></div>";
    if (!fixed.empty())
        out += fmt::format(R"(<p class="meta">The same in every ranked configuration: {}.</p>)",
                           esc(fmt::format("{}", fmt::join(fixed, ", "))));
    if (rows < order.size())
        out += fmt::format(
            R"(<p class="meta">{} more ranked configurations (hone show {} --all).</p>)",
            order.size() - rows, esc(v.run->source));
    return out;
}

// Values of one parameter across runs, as axis labels, and where each run's values sit.
struct shared_axis {
    std::vector<value> values;
    std::vector<std::string> labels;
    std::unordered_map<std::string, std::size_t> index;  // value_key -> position in values
};

// A chart of a box per value, and a comparison matrix of a cell per pair of values, show no
// more values than these: beyond, a box is thinner than a pixel and a cell unreadable, and the
// matrix grows as the square (a parameter of 10^6 values, 10^12 cells). Such a parameter is
// named in a note instead; its sensitivity is still reported.
constexpr std::size_t max_plotted_values = 256;
constexpr std::size_t max_compared_values = 64;

shared_axis axis_for(const std::string& param, const std::vector<const run_view*>& views) {
    shared_axis a;
    for (const auto* v : views) {
        const auto& names = v->scored.names;
        const auto it = std::find(names.begin(), names.end(), param);
        if (it == names.end()) continue;
        for (const auto& val : v->scored.values[static_cast<std::size_t>(it - names.begin())])
            if (a.index.emplace(value_key(val), 0).second) a.values.push_back(val);
    }
    if (a.values.size() > max_plotted_values) return a;
    sort_values(a.values);
    for (std::size_t i = 0; i < a.values.size(); ++i) {
        a.index[value_key(a.values[i])] = i;
        a.labels.push_back(template_text(a.values[i]));
    }
    return a;
}

std::string too_many_values_note(const std::vector<std::string>& params, std::size_t limit,
                                 const char* what, const char* mark) {
    if (params.empty()) return "";
    return fmt::format(
        R"(<p class="meta">Parameters with more than {} values (not {}: one {} would not be readable): {}.</p>)",
        limit, what, mark, esc(fmt::format("{}", fmt::join(params, ", "))));
}

std::string parameter_plots(const std::vector<const run_view*>& group) {
    std::vector<std::string> params;
    std::vector<double> all;
    for (const auto* v : group) {
        for (const auto& n : v->scored.names)
            if (std::find(params.begin(), params.end(), n) == params.end()) params.push_back(n);
        all.insert(all.end(), v->scored.score.begin(), v->scored.score.end());
    }
    std::sort(all.begin(), all.end());
    const axis_unit unit =
        objective_unit(group.front()->by, all.empty() ? 1 : quantile_sorted(all, 0.5));
    std::string out = R"(<div class="grid">)";
    std::vector<std::string> fixed, too_many;
    for (const auto& param : params) {
        const shared_axis axis = axis_for(param, group);
        if (axis.values.size() > max_plotted_values) {
            too_many.push_back(fmt::format("{} ({} values)", param, axis.values.size()));
            continue;
        }
        if (axis.values.size() < 2) {
            fixed.push_back(
                fmt::format("{} = {}", param, axis.labels.empty() ? "?" : axis.labels[0]));
            continue;
        }
        std::vector<strip_series> series;
        for (const auto* v : group) {
            strip_series s;
            s.label = v->label;
            s.color = v->color;
            s.by_value.resize(axis.values.size());
            s.failed_by_value.assign(axis.values.size(), 0);
            const auto& names = v->scored.names;
            const auto it = std::find(names.begin(), names.end(), param);
            if (it != names.end()) {
                const auto p = static_cast<std::size_t>(it - names.begin());
                std::vector<std::size_t> to_axis;
                for (const auto& val : v->scored.values[p])
                    to_axis.push_back(axis.index.at(value_key(val)));
                for (std::size_t i = 0; i < v->scored.score.size(); ++i) {
                    const uint32_t vi = v->scored.points[i][p];
                    if (vi < to_axis.size()) s.by_value[to_axis[vi]].push_back(v->scored.score[i]);
                }
                for (const auto& r : v->run->records) {
                    if (has_timing(r.st) && score_of(r, v->by) > 0) continue;
                    for (const auto& [pn, pv] : r.params) {
                        if (pn != param) continue;
                        const auto at = axis.index.find(value_key(pv));
                        if (at != axis.index.end()) ++s.failed_by_value[at->second];
                    }
                }
            }
            series.push_back(std::move(s));
        }
        out += "<figure>" + strip_plot(param, axis.labels, series, unit) + "</figure>";
    }
    out += "</div>";
    if (!fixed.empty())
        out += fmt::format(R"(<p class="meta">Parameters with one value (not plotted): {}.</p>)",
                           esc(fmt::format("{}", fmt::join(fixed, ", "))));
    out += too_many_values_note(too_many, max_plotted_values, "plotted", "box per value");
    return out;
}

std::string comparison_maps(const run_view& v, std::size_t& gradient_ids) {
    std::string out = R"(<div class="grid">)";
    bool any = false;
    std::vector<std::string> too_many;
    for (std::size_t p = 0; p < v.scored.names.size(); ++p) {
        if (v.scored.values[p].size() < 2) continue;
        if (v.scored.values[p].size() > max_compared_values) {
            too_many.push_back(
                fmt::format("{} ({} values)", v.scored.names[p], v.scored.values[p].size()));
            continue;
        }
        std::vector<std::string> labels;
        for (const auto& val : v.scored.values[p]) labels.push_back(template_text(val));
        const comparison c = compare_values(v.scored, p);
        out += "<figure>" + heat_map(v.scored.names[p], labels, c, gradient_ids) + "</figure>";
        any = true;
    }
    out += "</div>";
    const std::string note =
        too_many_values_note(too_many, max_compared_values, "compared", "cell per pair of values");
    if (!any && too_many.empty()) return R"(<p class="how">No parameter has two values.</p>)";
    return (any ? out : "") + note;
}

std::string sensitivity_section(const std::vector<run_view>& views) {
    std::vector<std::string> rows;
    std::vector<std::vector<double>> eta_by_run;
    for (const auto& v : views) eta_by_run.push_back(sensitivity(v.scored));
    for (const auto& v : views)
        for (std::size_t p = 0; p < v.scored.names.size(); ++p)
            if (v.scored.values[p].size() > 1 &&
                std::find(rows.begin(), rows.end(), v.scored.names[p]) == rows.end())
                rows.push_back(v.scored.names[p]);
    if (rows.empty()) return R"(<p class="how">No parameter has two values.</p>)";
    std::vector<std::vector<double>> per_series(views.size(), std::vector<double>(rows.size(), -1));
    for (std::size_t s = 0; s < views.size(); ++s) {
        const auto& names = views[s].scored.names;
        for (std::size_t r = 0; r < rows.size(); ++r) {
            const auto it = std::find(names.begin(), names.end(), rows[r]);
            if (it != names.end())
                per_series[s][r] = eta_by_run[s][static_cast<std::size_t>(it - names.begin())];
        }
    }
    // Most explaining first (by the first run that has the parameter).
    std::vector<std::size_t> order(rows.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto key = [&](std::size_t r) {
        for (const auto& s : per_series)
            if (s[r] >= 0) return s[r];
        return -1.0;
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return key(a) > key(b); });
    std::vector<std::string> sorted_rows;
    std::vector<std::vector<double>> sorted(views.size());
    for (std::size_t i : order) {
        sorted_rows.push_back(rows[i]);
        for (std::size_t s = 0; s < views.size(); ++s) sorted[s].push_back(per_series[s][i]);
    }
    std::vector<std::string> colors;
    for (const auto& v : views) colors.push_back(v.color);
    return "<figure>" + sensitivity_chart(sorted_rows, sorted, colors) + "</figure>";
}

std::string time_section(const std::vector<run_view>& views) {
    const std::vector<std::string> all_names = {"compile",
                                                "module load (setup)",
                                                "first launch + verification",
                                                "warm-up",
                                                "samples (benchmark)",
                                                "framework (imported)",
                                                "strategy (imported)"};
    std::vector<std::vector<double>> parts;
    for (const auto& v : views) {
        const time_parts t = time_spent(v.run->records);
        parts.push_back(
            {t.compile, t.load, t.verify, t.warmup, t.samples, t.framework, t.strategy});
    }
    std::vector<std::size_t> used;
    for (std::size_t p = 0; p < all_names.size(); ++p)
        if (std::any_of(parts.begin(), parts.end(), [p](const auto& x) { return x[p] > 0; }))
            used.push_back(p);
    if (used.empty()) return R"(<p class="how">No time was recorded per configuration.</p>)";
    std::vector<std::string> names;
    for (std::size_t p : used) names.push_back(all_names[p]);
    std::vector<stacked_row> rows;
    std::string table = R"(<table><tr><th class="t">run</th>)";
    for (const auto& n : names) table += fmt::format("<th>{} (s)</th>", esc(n));
    table += "<th>total (s)</th></tr>";
    for (std::size_t i = 0; i < views.size(); ++i) {
        stacked_row row{views[i].label, {}};
        double total = 0;
        table += fmt::format(R"(<tr><td class="t">{}{}</td>)", swatch(views[i].color),
                             esc(views[i].label));
        for (std::size_t p : used) {
            row.parts.push_back(parts[i][p]);
            total += parts[i][p];
        }
        for (double x : row.parts)
            table += fmt::format("<td>{} ({:.0f}%)</td>", three_digits(x),
                                 total > 0 ? 100 * x / total : 0);
        table += fmt::format("<td>{}</td></tr>", three_digits(total));
        rows.push_back(std::move(row));
    }
    table += "</table>";
    return "<figure>" + stacked_bars(rows, names) + "</figure>" + table;
}

// The smallest k at which random search's expected best is within 5% of the best.
std::size_t random_evals_to(std::vector<double> scores, std::size_t n, double target, bool higher) {
    if (higher) {
        std::sort(scores.begin(), scores.end(), std::greater<>());
    } else {
        std::sort(scores.begin(), scores.end());
    }
    auto ok = [&](std::size_t k) {
        const double e = expected_random_best_sorted(scores, n, {k})[0];
        return higher ? e >= target : e <= target;
    };
    if (n == 0 || !ok(n)) return 0;
    std::size_t lo = 1, hi = n;
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (ok(mid)) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

std::string progress_section(const run_view& v) {
    const auto& records = v.run->records;
    const auto best = best_so_far(records, v.by);
    const auto ks = curve_points(records.size());
    const bool higher = v.scored.higher_better;
    const auto random = expected_random_best(v.scored.score, records.size(), ks, higher);
    std::vector<double> sorted = v.scored.score;
    std::sort(sorted.begin(), sorted.end());
    const axis_unit unit = objective_unit(v.by, sorted.empty() ? 1 : quantile_sorted(sorted, 0.5));
    std::string out = "<figure>" + progress_plot(best, ks, random, unit, v.color);
    if (!best.empty() && best.back() > 0) {
        const double target = higher ? best.back() / 1.05 : best.back() * 1.05;
        std::size_t mine = 0;
        for (std::size_t i = 0; i < best.size() && mine == 0; ++i)
            if (best[i] > 0 && (higher ? best[i] >= target : best[i] <= target)) mine = i + 1;
        const std::size_t rnd = random_evals_to(v.scored.score, records.size(), target, higher);
        // An imported file's order is the order its tool wrote the records in (a cache is keyed
        // by configuration), not necessarily the order a search tried them.
        if (!v.run->identity.origin.empty()) {
            out += fmt::format(
                "<figcaption>Imported ({}): the curve follows the file's order, which need not be "
                "the order of a search; reached within 5% of the best at record {}. Random "
                "search's expected best gets there after {} of {}.</figcaption>",
                esc(v.run->identity.origin), mine, rnd, records.size());
        } else {
            out += fmt::format(
                "<figcaption>Within 5% of the best: after {} evaluations in this run's order; "
                "random search's expected best gets there after {} of {}.</figcaption>",
                mine, rnd, records.size());
        }
    }
    return out + "</figure>";
}

std::string failures_section(const run_view& v) {
    struct group {
        std::size_t count = 0;
        std::map<std::string, std::pair<std::size_t, std::string>> messages;  // -> count, a key
    };
    std::map<status, group> by_status;
    for (const auto& r : v.run->records) {
        if (has_timing(r.st)) continue;
        group& g = by_status[r.st];
        ++g.count;
        std::string msg = r.message.substr(0, r.message.find('\n'));
        if (msg.empty() && !r.compile_log.empty())
            msg = r.compile_log.substr(0, r.compile_log.find('\n'));
        auto& m = g.messages[truncate_text(msg.empty() ? "(no message)" : msg, 220)];
        if (m.first++ == 0) m.second = r.key;
    }
    if (by_status.empty()) return R"(<p class="how">Every configuration was measured.</p>)";
    std::string out =
        R"(<table><tr><th class="t">status</th><th>count</th><th class="t">message (first line)</th><th>with it</th><th class="t">for example</th></tr>)";
    for (const auto& [st, g] : by_status) {
        std::vector<std::pair<std::string, std::pair<std::size_t, std::string>>> msgs(
            g.messages.begin(), g.messages.end());
        std::stable_sort(msgs.begin(), msgs.end(), [](const auto& a, const auto& b) {
            return a.second.first > b.second.first;
        });
        const std::size_t shown = std::min<std::size_t>(msgs.size(), 6);
        for (std::size_t i = 0; i < shown; ++i) {
            out += "<tr>";
            if (i == 0)
                out += fmt::format(
                    R"(<td class="t" rowspan="{}"><b>{}</b></td><td rowspan="{}">{}</td>)",
                    shown + (msgs.size() > shown), status_name(st), shown + (msgs.size() > shown),
                    g.count);
            out += fmt::format(
                R"(<td class="msg">{}</td><td>{}</td><td class="t"><code>{}</code></td></tr>)",
                esc(msgs[i].first), msgs[i].second.first,
                esc(truncate_text(msgs[i].second.second, 60)));
        }
        if (msgs.size() > shown)
            out += fmt::format(
                R"(<tr><td class="msg" colspan="3">… {} more distinct messages (hone show {} --where status={})</td></tr>)",
                msgs.size() - shown, esc(v.run->source), status_name(st));
    }
    return out + "</table>";
}

}  // namespace page
}  // namespace

std::string html_report(const std::vector<report_run>& runs, const html_options& opt) {
    using namespace page;
    std::vector<run_view> views;
    views.reserve(runs.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
        run_view v;
        v.run = &runs[i];
        v.label = fmt::format("run {}", i + 1);
        v.color = series_color(i);
        try {
            v.by = parse_rank_by(runs[i].identity.objective);
        } catch (const input_error&) {
            v.by = rank_by::time;  // an objective this hone does not know: rank by time
        }
        v.scored = score_run(runs[i].records, v.by);
        views.push_back(std::move(v));
    }
    const bool several = views.size() > 1;
    std::string sources;
    for (const auto& r : runs)
        if (sources.find(r.source) == std::string::npos)
            sources += (sources.empty() ? "" : ", ") + r.source;
    const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());

    std::string out = R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>hone report</title><style>)";
    out += css;
    out += "</style></head><body>\n";
    out +=
        fmt::format("<h1>hone report: {}</h1>", esc(several ? fmt::format("{} runs", views.size())
                                                    : runs.empty() ? "no runs"
                                                                   : runs[0].identity.kernel_name));
    out +=
        fmt::format(R"(<p class="meta">From {}; written by hone {} on {:%Y-%m-%d %H:%M} UTC.</p>)",
                    esc(sources), tool_version(), now);
    if (views.empty()) return out + "<p>The database holds no runs.</p></body></html>\n";
    out += "<h2>Runs</h2>" + runs_table(views);

    out += R"(<h2>Best configurations</h2><p class="how">Ranked by the run's objective. The
median time of one launch with its distribution-free 95% confidence interval; rows marked
<b>tie</b> have an interval that overlaps the best's: the measurement cannot tell them apart.</p>)";
    for (const auto& v : views) {
        if (several) out += "<h3>" + run_heading(v) + "</h3>";
        out += best_table(v, opt.top);
    }

    bool any_final = false;
    for (const auto& v : views) any_final = any_final || !v.run->final_word.empty();
    if (any_final) {
        out += R"(<h2>Final word</h2><p class="how">Runs measured on several GPUs: their best
configurations (every one whose interval overlaps the best's, at least 3, at most 8) measured
again on the first GPU, in interleaved rounds; the winner and its ties come from these
measurements, not from the search's (taken on whichever GPU was free). The ratio of the same
configuration's median on another GPU to the first GPU's tells how far the cards agree.</p>)";
        for (const auto& v : views) {
            const auto w = final_word_from_json(v.run->final_word);
            if (!w) continue;
            if (several) out += "<h3>" + run_heading(v) + "</h3>";
            out += "<pre>" + esc(final_word_text(*w)) + "</pre>";
        }
    }

    out += R"(<h2>The objective against each parameter</h2><p class="how">Every configuration
that has a timing is a dot (spread sideways at random within its value's band, so that dots do
not hide each other); the box spans the middle half of them (quartiles), the black line is their
median, the whiskers reach the best and the worst. A red ✕ marks a value whose configurations
all failed. Hover a box for its numbers.)";
    out += several ? " Runs are side by side within each value, in their colours.</p>" : "</p>";
    std::map<rank_by, std::vector<const run_view*>> groups;
    for (const auto& v : views) groups[v.by].push_back(&v);
    for (const auto& [by, group] : groups) out += parameter_plots(group);

    out += R"(<h2>Comparison matrices</h2><p class="how">For each pair of values of a
parameter, how many times faster (or, for a throughput objective, better) the row's value is
than the column's, as the median over matched configurations: pairs that differ only in this
parameter, both measured. Blue: the row's value is faster; red: slower. Hover a cell for the
number of matched pairs and the ratio of the two values' best configurations.</p>)";
    std::size_t gradient_ids = 0;
    for (const auto& v : views) {
        if (several) out += "<h3>" + run_heading(v) + "</h3>";
        out += comparison_maps(v, gradient_ids);
    }

    out += R"(<h2>Parameter sensitivity</h2><p class="how">How much of the spread of the
objective (the variance of its logarithm) each parameter explains on its own: the variance
between the groups of configurations that share its value, over the total (η², a one-way
analysis of variance). Parameters that interact can each explain little alone.</p>)";
    out += sensitivity_section(views);

    out += R"(<h2>Where the time went</h2><p class="how">Summed over every configuration from
the times stored with it. hone compiles in worker processes while the GPU measures, so the
parts add up to work done, not to the wall-clock time of the run. Imported runs show the times
their tool recorded (compile, verification, benchmark, framework, strategy).</p>)";
    out += time_section(views);

    out += R"(<h2>Search progress</h2><p class="how">The best objective found after each
evaluation, in the order the run stored its results (for an exhaustive run, the order of the
space; for a search strategy, the order it chose; for an imported file, the file's order), beside the expected best of random search
without replacement over the same configurations, computed exactly from the recorded values
(failures count as evaluations that find nothing). The dotted line is the best of all.</p>)";
    out += R"(<div class="grid">)";
    for (const auto& v : views) {
        if (several) out += "<div><h3>" + run_heading(v) + "</h3>";
        out += progress_section(v);
        if (several) out += "</div>";
    }
    out += "</div>";

    out += R"(<h2>Failures</h2><p class="how">Configurations without a timing, by status, with
their messages (the first line; identical messages counted together).</p>)";
    for (const auto& v : views) {
        if (several) out += "<h3>" + run_heading(v) + "</h3>";
        out += failures_section(v);
    }
    out += "\n</body></html>\n";
    return out;
}

}  // namespace hone
