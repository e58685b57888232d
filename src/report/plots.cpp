#include "report/plots.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "report/svg.hpp"

namespace hone::report_detail {
namespace {

constexpr double tick_px = 12, title_px = 14;

// Width of text in pixels at `px`: about 0.6 em a character in the sans-serif fonts used.
double text_width(const std::string& s, double px) {
    std::size_t chars = 0;
    for (unsigned char c : s) chars += (c & 0xc0) != 0x80;
    return 0.6 * px * static_cast<double>(chars);
}

std::string num(double v) {
    return fmt::format("{:.1f}", v);
}

std::string svg_open(double w, double h, const std::string& label) {
    return fmt::format(
        R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" role="img" aria-label="{2}">)",
        num(w), num(h), xml_escape(label));
}

std::string text(double x, double y, const std::string& s, const std::string& attrs = "") {
    return fmt::format(R"(<text x="{}" y="{}"{}>{}</text>)", num(x), num(y),
                       attrs.empty() ? "" : " " + attrs, xml_escape(s));
}

std::string line(double x1, double y1, double x2, double y2, const std::string& attrs) {
    return fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" {}/>)", num(x1), num(y1), num(x2),
                       num(y2), attrs);
}

uint64_t mix(uint64_t x) {  // splitmix64: a fixed jitter, so that reports are reproducible
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

double unit_random(uint64_t seed) {
    return static_cast<double>(mix(seed) >> 11) * (1.0 / 9007199254740992.0);
}

// The ticks of a scale that lie on it (a rounder step can reach past the domain's ends).
std::vector<double> ticks_in(const scale& s, int target) {
    const auto all = s.log ? log_ticks(s.d0, s.d1) : linear_ticks(s.d0, s.d1, target);
    const double lo = std::min(s.d0, s.d1), hi = std::max(s.d0, s.d1);
    const double eps = (hi - lo) * 1e-9;
    std::vector<double> out;
    for (double t : all)
        if (t >= lo - eps && t <= hi + eps) out.push_back(t);
    return out;
}

// The y axis: gridlines, tick labels and the rotated title.
std::string y_axis(const scale& y, double x0, double x1, const std::string& title) {
    std::string out;
    for (double t : ticks_in(y, 5)) {
        const double py = y(t);
        out += line(x0, py, x1, py, R"(stroke="#e3e3e3")");
        out +=
            text(x0 - 6, py + 4, tick_text(t), R"(text-anchor="end" font-size="12" fill="#333")");
    }
    const double mid = (y.r0 + y.r1) / 2;
    out += text(
        14, mid, title,
        fmt::format(
            R"s(text-anchor="middle" font-size="13" fill="#222" transform="rotate(-90 14 {})")s",
            num(mid)));
    return out;
}

std::string x_axis_ticks(const scale& x, double y0, const std::string& title, double width_px) {
    std::string out;
    for (double t : ticks_in(x, 6)) {
        const double px = x(t);
        out += line(px, y0, px, y0 + 5, R"(stroke="#555")");
        out +=
            text(px, y0 + 18, tick_text(t), R"(text-anchor="middle" font-size="12" fill="#333")");
    }
    out += text(x.r0 + width_px / 2, y0 + 36, title,
                R"(text-anchor="middle" font-size="13" fill="#222")");
    return out;
}

// Values shown on an axis: finite and, for a log axis, positive.
void span_of(const std::vector<double>& v, double factor, double& lo, double& hi) {
    for (double x : v) {
        const double d = x * factor;
        if (!std::isfinite(d) || d <= 0) continue;
        lo = std::min(lo, d);
        hi = std::max(hi, d);
    }
}

std::string legend(double x, double y,
                   const std::vector<std::pair<std::string, std::string>>& items,
                   bool dashed_second = false) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const double ly = y + 16 * static_cast<double>(i);
        const bool dash = dashed_second && i == 1;
        out += line(x, ly - 4, x + 22, ly - 4,
                    fmt::format(R"(stroke="{}" stroke-width="{}"{})", items[i].second, dash ? 2 : 3,
                                dash ? R"( stroke-dasharray="5 3")" : ""));
        out += text(x + 28, ly, items[i].first, R"(font-size="12" fill="#222")");
    }
    return out;
}

}  // namespace

axis_unit objective_unit(rank_by by, double typical) {
    if (by == rank_by::gbps) return {"GB/s (higher is better)", "GB/s", "GB/s", 1};
    if (by == rank_by::gflops) return {"GFLOP/s (higher is better)", "GFLOP/s", "GFLOP/s", 1};
    axis_unit u{"", "", "µs", 1};
    if (typical < 1) {
        u = {"", "", "ns", 1e3};
    } else if (typical >= 1e6) {
        u = {"", "", "s", 1e-6};
    } else if (typical >= 1e3) {
        u = {"", "", "ms", 1e-3};
    }
    u.label = fmt::format("median time per launch ({})", u.unit);
    u.short_label = fmt::format("median time ({})", u.unit);
    return u;
}

std::string strip_plot(const std::string& param, const std::vector<std::string>& value_labels,
                       const std::vector<strip_series>& series, const axis_unit& unit) {
    const std::size_t k = std::max<std::size_t>(value_labels.size(), 1);
    // Room above the plot for the runs' legend, one line each.
    const double ml = 66, mr = 12, ph = 230;
    const double mt = 30 + (series.size() > 1 ? 16.0 * static_cast<double>(series.size() - 1) : 0);
    const double pw = std::clamp(46.0 * static_cast<double>(k) *
                                     static_cast<double>(std::max<std::size_t>(series.size(), 1)),
                                 230.0, 720.0);
    const double band = pw / static_cast<double>(k);
    double label_w = 0;
    for (const auto& l : value_labels) label_w = std::max(label_w, text_width(l, tick_px));
    const bool rotate = label_w > band - 4;
    const std::size_t every =
        rotate && band < 15 ? static_cast<std::size_t>(std::ceil(15 / band)) : 1;
    const double mb = rotate ? std::min(label_w, 110.0) * 0.72 + 22 : 30;
    const double W = ml + pw + mr, H = mt + ph + mb;

    double lo = INFINITY, hi = 0;
    for (const auto& s : series)
        for (const auto& v : s.by_value) span_of(v, unit.factor, lo, hi);
    if (!(hi > 0)) lo = hi = 1;
    const bool log = hi / lo > 8;
    const scale y = nice_scale(log ? lo : std::min(lo, lo - (hi - lo) * 0.05),
                               log ? hi : hi + (hi - lo) * 0.05, mt + ph, mt, log);

    std::string out = svg_open(W, H, fmt::format("{} against {}", unit.label, param));
    out += text(ml, 18, param, R"(font-size="14" font-weight="600" fill="#111")");
    // Every other value's band shaded, under the gridlines.
    for (std::size_t v = 1; v < value_labels.size(); v += 2)
        out += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="#f5f5f5"/>)",
                           num(ml + band * static_cast<double>(v)), num(mt), num(band), num(ph));
    out += y_axis(y, ml, ml + pw, unit.label);
    out += line(ml, mt + ph, ml + pw, mt + ph, R"(stroke="#555")");
    for (std::size_t v = 0; v < value_labels.size(); v += every) {
        const double cx = ml + band * (static_cast<double>(v) + 0.5);
        if (rotate) {
            const double ty = mt + ph + 14;
            out += text(
                cx + 4, ty, truncate_text(value_labels[v], 18),
                fmt::format(
                    R"s(text-anchor="end" font-size="12" fill="#333" transform="rotate(-40 {} {})")s",
                    num(cx + 4), num(ty)));
        } else {
            out += text(cx, mt + ph + 17, value_labels[v],
                        R"(text-anchor="middle" font-size="12" fill="#333")");
        }
    }
    const double ns = static_cast<double>(std::max<std::size_t>(series.size(), 1));
    const double sub = band / ns;
    const double jitter = std::min(sub * 0.36, 18.0), box_w = std::min(sub * 0.5, 24.0);
    for (std::size_t si = 0; si < series.size(); ++si) {
        const strip_series& s = series[si];
        // Dots binned to whole pixels: a space of 10^5 configurations stays a small picture.
        std::unordered_set<uint64_t> seen;
        std::string dots;
        for (std::size_t v = 0; v < s.by_value.size(); ++v) {
            const double cx =
                ml + band * static_cast<double>(v) + sub * (static_cast<double>(si) + 0.5);
            for (std::size_t i = 0; i < s.by_value[v].size(); ++i) {
                const double d = s.by_value[v][i] * unit.factor;
                if (!std::isfinite(d) || d <= 0) continue;
                const double jx = cx + (unit_random((si << 48) ^ (v << 32) ^ i) - 0.5) * 2 * jitter;
                const auto px = static_cast<int64_t>(std::lround(jx));
                const auto py = static_cast<int64_t>(std::lround(y(d)));
                if (!seen.insert(static_cast<uint64_t>(px) << 32 | static_cast<uint32_t>(py))
                         .second)
                    continue;
                dots += fmt::format("M{} {}h0", px, py);
            }
        }
        if (!dots.empty())
            out += fmt::format(
                R"(<path d="{}" stroke="{}" stroke-width="4" stroke-linecap="round" stroke-opacity=".4" fill="none"/>)",
                dots, s.color);
        for (std::size_t v = 0; v < s.by_value.size(); ++v) {
            const double cx =
                ml + band * static_cast<double>(v) + sub * (static_cast<double>(si) + 0.5);
            const std::size_t failed = v < s.failed_by_value.size() ? s.failed_by_value[v] : 0;
            const std::string who = fmt::format("{}={}{}", param, value_labels[v],
                                                series.size() > 1 ? " (" + s.label + ")" : "");
            const box_stats b = box_of(s.by_value[v]);
            if (b.n == 0) {
                if (failed > 0)
                    out +=
                        fmt::format(R"(<g><title>{}: all {} configurations failed</title>{}</g>)",
                                    xml_escape(who), failed,
                                    text(cx, mt + ph - 6, "✕",
                                         R"(text-anchor="middle" font-size="13" fill="#b2182b")"));
                continue;
            }
            const double f = unit.factor;
            const std::string tip = fmt::format(
                "{}: {} configuration{}{}; median {} {}; quartiles {} – {}; min {}, max {}", who,
                b.n, b.n == 1 ? "" : "s", failed ? fmt::format(" ({} failed)", failed) : "",
                three_digits(b.median * f), unit.unit, three_digits(b.q1 * f),
                three_digits(b.q3 * f), three_digits(b.min * f), three_digits(b.max * f));
            out += fmt::format("<g><title>{}</title>", xml_escape(tip));
            out += line(cx, y(b.min * f), cx, y(b.max * f), R"(stroke="#333" stroke-width="1")");
            for (double w : {b.min, b.max})
                out += line(cx - box_w / 4, y(w * f), cx + box_w / 4, y(w * f), R"(stroke="#333")");
            const double top = y(b.q3 * f), bottom = y(b.q1 * f);
            // Dark outline, no fill: the dots stay visible through the box; the median is black
            // on a white halo, readable over dense dots.
            out += fmt::format(
                R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#222" stroke-width="1.3"/>)",
                num(cx - box_w / 2), num(std::min(top, bottom)), num(box_w),
                num(std::max(1.0, std::abs(bottom - top))));
            out += line(cx - box_w / 2 - 1, y(b.median * f), cx + box_w / 2 + 1, y(b.median * f),
                        R"(stroke="#fff" stroke-width="5")");
            out += line(cx - box_w / 2, y(b.median * f), cx + box_w / 2, y(b.median * f),
                        R"(stroke="#111" stroke-width="2.4")");
            out += "</g>";
        }
    }
    if (series.size() > 1) {
        std::vector<std::pair<std::string, std::string>> items;
        for (const auto& s : series) items.emplace_back(s.label, s.color);
        double widest = 0;
        for (const auto& s : series) widest = std::max(widest, text_width(s.label, 12));
        out += legend(W - mr - widest - 34, 16, items);
    }
    out += "</svg>";
    return out;
}

std::string heat_map(const std::string& param, const std::vector<std::string>& value_labels,
                     const comparison& c, std::size_t& gradient_ids) {
    const std::size_t k = c.k;
    const double cell = std::clamp(std::floor(320.0 / static_cast<double>(k)), 12.0, 56.0);
    double label_w = 0;
    std::vector<std::string> labels;
    for (const auto& l : value_labels) {
        labels.push_back(truncate_text(l, 16));
        label_w = std::max(label_w, text_width(labels.back(), tick_px));
    }
    const bool rotate = label_w > cell - 4;
    const std::size_t every = cell < 15 ? static_cast<std::size_t>(std::ceil(15 / cell)) : 1;
    const double ml = label_w + 14;
    const double mt = 30 + (rotate ? label_w * 0.72 + 8 : 18);
    const double side = cell * static_cast<double>(k);
    const std::string title = fmt::format("{}: row value against column value", param);
    // Rotated column labels reach right of the last column by about 0.65 of their width.
    const double W = std::max({ml + side + 16 + (rotate ? label_w * 0.65 : 0), 300.0,
                               text_width(title, title_px) + 12}),
                 H = mt + side + 62;
    // The colour range: the largest ratio shown, at least 1.1x and at most 4x.
    double range = std::log2(1.1);
    for (std::size_t i = 0; i < k * k; ++i)
        if (c.speedup[i] > 0) range = std::max(range, std::abs(std::log2(c.speedup[i])));
    range = std::min(range, 2.0);

    std::string out = svg_open(W, H, fmt::format("comparison matrix of {}", param));
    out += text(4, 18, title, R"(font-size="14" font-weight="600" fill="#111")");
    for (std::size_t i = 0; i < k; ++i) {
        const double p = static_cast<double>(i) * cell + cell / 2;
        if (i % every != 0) continue;
        out +=
            text(ml - 6, mt + p + 4, labels[i], R"(text-anchor="end" font-size="12" fill="#333")");
        if (rotate) {
            const double tx = ml + p + 4, ty = mt - 6;
            out += text(tx, ty, labels[i],
                        fmt::format(R"s(font-size="12" fill="#333" transform="rotate(-50 {} {})")s",
                                    num(tx), num(ty)));
        } else {
            out += text(ml + p, mt - 6, labels[i],
                        R"(text-anchor="middle" font-size="12" fill="#333")");
        }
    }
    for (std::size_t a = 0; a < k; ++a) {
        for (std::size_t b = 0; b < k; ++b) {
            const double x = ml + static_cast<double>(b) * cell,
                         y = mt + static_cast<double>(a) * cell;
            const std::size_t i = a * k + b;
            std::string fill = "#ececec", tip, label;
            if (a == b) {
                tip = fmt::format("{}={}", param, value_labels[a]);
            } else if (c.pairs[i] == 0) {
                fill = "#f6f6f6";
                tip = fmt::format("{}={} vs {}: no matched configurations", param, value_labels[a],
                                  value_labels[b]);
                if (c.best_speedup[i] > 0)
                    tip += fmt::format("; best vs best {}×", three_digits(c.best_speedup[i]));
            } else {
                const double s = c.speedup[i];
                fill = diverging_color(std::log2(s) / range);
                tip = fmt::format(
                    "{}={} vs {}={}: {} {}× (median over {} matched configurations; best vs best "
                    "{}×)",
                    param, value_labels[a], param, value_labels[b],
                    s >= 1 ? "faster by" : "slower: speed", three_digits(s), c.pairs[i],
                    three_digits(c.best_speedup[i]));
                label = s >= 9.995 ? three_digits(s) : fmt::format("{:.2f}", s);
            }
            out += fmt::format(
                R"(<g><title>{}</title><rect x="{}" y="{}" width="{}" height="{}" fill="{}" stroke="#fff" stroke-width="1"/>)",
                xml_escape(tip), num(x), num(y), num(cell), num(cell), fill);
            if (!label.empty() && cell >= 34) {
                const bool dark = std::abs(std::log2(c.speedup[i])) / range > 0.6;
                out += text(x + cell / 2, y + cell / 2 + 4, label,
                            fmt::format(R"(text-anchor="middle" font-size="11" fill="{}")",
                                        dark ? "#fff" : "#111"));
            }
            out += "</g>";
        }
    }
    // Legend: the colour of a ratio, slower on the left.
    const std::string id = fmt::format("hm{}", gradient_ids++);
    const double lw = std::max(side, 280.0), lx = std::min(ml, W - lw - 8), ly = mt + side + 16;
    out += fmt::format(
        R"(<defs><linearGradient id="{}"><stop offset="0" stop-color="{}"/><stop offset=".5" stop-color="#ffffff"/><stop offset="1" stop-color="{}"/></linearGradient></defs>)",
        id, diverging_color(-1), diverging_color(1));
    out += fmt::format(
        R"s(<rect x="{}" y="{}" width="{}" height="10" fill="url(#{})" stroke="#bbb"/>)s", num(lx),
        num(ly), num(lw), id);
    const double r = std::exp2(range);
    out += text(lx, ly + 24, fmt::format("{:.2f}× (row slower)", 1 / r),
                R"(font-size="12" fill="#333")");
    out += text(lx + lw, ly + 24, fmt::format("{:.2f}× (row faster)", r),
                R"(text-anchor="end" font-size="12" fill="#333")");
    out += text(lx + lw / 2, ly + 40, "1×", R"(text-anchor="middle" font-size="12" fill="#333")");
    out += "</svg>";
    return out;
}

std::string sensitivity_chart(const std::vector<std::string>& rows,
                              const std::vector<std::vector<double>>& per_series,
                              const std::vector<std::string>& colors) {
    double label_w = 0;
    for (const auto& r : rows) label_w = std::max(label_w, text_width(r, tick_px));
    const double ml = label_w + 16, mr = 48, mt = 26;
    const double bw = 360;
    const std::size_t ns = std::max<std::size_t>(per_series.size(), 1);
    const double bar = 11, row_h = 8 + bar * static_cast<double>(ns);
    const double W = ml + bw + mr, H = mt + row_h * static_cast<double>(rows.size()) + 44;
    const scale x{0, 1, ml, ml + bw, false};
    std::string out = svg_open(W, H, "parameter sensitivity");
    for (double t : {0.0, 0.25, 0.5, 0.75, 1.0}) {
        out += line(x(t), mt - 4, x(t), H - 40, R"(stroke="#e3e3e3")");
        out += text(x(t), H - 24, fmt::format("{:.0f}%", t * 100),
                    R"(text-anchor="middle" font-size="12" fill="#333")");
    }
    out += text(ml + bw / 2, H - 6, "share of the variance of log(objective) it explains (η²)",
                R"(text-anchor="middle" font-size="13" fill="#222")");
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const double y0 = mt + row_h * static_cast<double>(r);
        out += text(ml - 8, y0 + row_h / 2 + 3, rows[r],
                    R"(text-anchor="end" font-size="12" fill="#222")");
        for (std::size_t s = 0; s < per_series.size(); ++s) {
            if (r >= per_series[s].size() || per_series[s][r] < 0) continue;
            const double v = per_series[s][r];
            const double y = y0 + 4 + bar * static_cast<double>(s);
            out += fmt::format(
                R"(<g><title>{}: {:.1f}% of the variance</title><rect x="{}" y="{}" width="{}" height="{}" fill="{}"/></g>)",
                xml_escape(rows[r]), v * 100, num(ml), num(y), num(std::max(0.5, x(v) - ml)),
                num(bar - 2), colors[s % colors.size()]);
            out += text(x(v) + 4, y + bar - 3, fmt::format("{:.0f}%", v * 100),
                        R"(font-size="11" fill="#333")");
        }
    }
    out += "</svg>";
    return out;
}

std::string stacked_bars(const std::vector<stacked_row>& rows,
                         const std::vector<std::string>& part_names) {
    static constexpr const char* part_colors[] = {"#4C72B0", "#DD8452", "#55A868", "#C44E52",
                                                  "#8172B3", "#937860", "#DA8BC3", "#8C8C8C"};
    double label_w = 0, most = 0;
    for (const auto& r : rows) {
        label_w = std::max(label_w, text_width(r.label, tick_px));
        double sum = 0;
        for (double p : r.parts) sum += p;
        most = std::max(most, sum);
    }
    // Seconds, minutes or hours, whichever reads best.
    double per = 1;
    std::string unit = "s";
    if (most >= 7200) {
        per = 3600;
        unit = "h";
    } else if (most >= 120) {
        per = 60;
        unit = "min";
    }
    const double ml = label_w + 16, mr = 24, mt = 12, bw = 520, bar = 24;
    const double legend_rows = std::ceil(static_cast<double>(part_names.size()) / 3);
    const double plot_h = (bar + 12) * static_cast<double>(rows.size());
    const double W = ml + bw + mr, H = mt + plot_h + 48 + 18 * legend_rows;
    const scale x = nice_scale(0, std::max(most / per, 1e-9), ml, ml + bw, false, 6);
    std::string out = svg_open(W, H, "where the time went");
    for (double t : linear_ticks(x.d0, x.d1, 6)) {
        out += line(x(t), mt - 4, x(t), mt + plot_h, R"(stroke="#e3e3e3")");
        out += text(x(t), mt + plot_h + 16, tick_text(t),
                    R"(text-anchor="middle" font-size="12" fill="#333")");
    }
    out += text(ml + bw / 2, mt + plot_h + 34,
                fmt::format("time summed over configurations ({})", unit),
                R"(text-anchor="middle" font-size="13" fill="#222")");
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const double y = mt + (bar + 12) * static_cast<double>(r) + 6;
        out += text(ml - 8, y + bar / 2 + 4, rows[r].label,
                    R"(text-anchor="end" font-size="12" fill="#222")");
        double at = 0, total = 0;
        for (double p : rows[r].parts) total += p;
        for (std::size_t p = 0; p < rows[r].parts.size(); ++p) {
            const double v = rows[r].parts[p];
            if (v <= 0) continue;
            const double x0 = x(at / per), x1 = x((at + v) / per);
            out += fmt::format(
                R"(<g><title>{}: {} {} ({:.1f}%)</title><rect x="{}" y="{}" width="{}" height="{}" fill="{}"/></g>)",
                xml_escape(part_names[p]), three_digits(v / per), unit, 100 * v / total, num(x0),
                num(y), num(std::max(0.5, x1 - x0)), num(bar), part_colors[p % 8]);
            at += v;
        }
    }
    for (std::size_t p = 0; p < part_names.size(); ++p) {
        const double lx = ml + 180 * static_cast<double>(p % 3);
        const double ly = mt + plot_h + 54 + 18 * std::floor(static_cast<double>(p) / 3);
        out += fmt::format(R"(<rect x="{}" y="{}" width="12" height="12" fill="{}"/>)", num(lx),
                           num(ly - 10), part_colors[p % 8]);
        out += text(lx + 17, ly, part_names[p], R"(font-size="12" fill="#222")");
    }
    out += "</svg>";
    return out;
}

std::vector<std::size_t> curve_points(std::size_t n) {
    std::vector<std::size_t> ks;
    if (n <= 200) {
        for (std::size_t k = 1; k <= n; ++k) ks.push_back(k);
        return ks;
    }
    for (int i = 0; i <= 150; ++i) {
        const auto k = static_cast<std::size_t>(
            std::llround(std::pow(static_cast<double>(n), static_cast<double>(i) / 150)));
        if (ks.empty() || k > ks.back()) ks.push_back(std::min(k, n));
    }
    if (ks.back() != n) ks.push_back(n);
    return ks;
}

std::string progress_plot(const std::vector<double>& best_so_far,
                          const std::vector<std::size_t>& random_ks,
                          const std::vector<double>& random_best, const axis_unit& unit,
                          const std::string& color) {
    const double ml = 66, mr = 16, mt = 44, pw = 440, ph = 250, mb = 46;
    const double W = ml + pw + mr, H = mt + ph + mb;
    const std::size_t n = best_so_far.size();
    double lo = INFINITY, hi = 0;
    span_of(best_so_far, unit.factor, lo, hi);
    span_of(random_best, unit.factor, lo, hi);
    std::string out = svg_open(W, H, "best so far against evaluations");
    if (!(hi > 0) || n == 0) {
        out += text(ml, mt + 20, "no configuration has a score", R"(font-size="13")");
        return out + "</svg>";
    }
    const bool ylog = hi / lo > 8;
    const scale y = nice_scale(ylog ? lo : lo - (hi - lo) * 0.05, ylog ? hi : hi + (hi - lo) * 0.05,
                               mt + ph, mt, ylog);
    const bool xlog = n > 100;
    const scale x = xlog ? nice_scale(1, static_cast<double>(n), ml, ml + pw, true)
                         : nice_scale(0, static_cast<double>(n), ml, ml + pw, false, 6);
    out += y_axis(y, ml, ml + pw, "best so far: " + unit.short_label);
    out += line(ml, mt + ph, ml + pw, mt + ph, R"(stroke="#555")");
    out += x_axis_ticks(x, mt + ph, "evaluations (configurations tried)", pw);
    // The overall best, for reference.
    const double best = best_so_far.back() * unit.factor;
    out += line(ml, y(best), ml + pw, y(best), R"(stroke="#999" stroke-dasharray="2 3")");
    // Random search: the exact expectation at the chosen counts.
    std::string d;
    for (std::size_t i = 0; i < random_ks.size() && i < random_best.size(); ++i) {
        if (!(random_best[i] > 0)) continue;
        d +=
            fmt::format("{}{} {}", d.empty() ? "M" : "L", num(x(static_cast<double>(random_ks[i]))),
                        num(y(random_best[i] * unit.factor)));
    }
    if (!d.empty())
        out += fmt::format(
            R"(<path d="{}" fill="none" stroke="#666" stroke-width="2" stroke-dasharray="6 4"/>)",
            d);
    // This run: a step at each improvement.
    d.clear();
    for (std::size_t i = 0; i < n; ++i) {
        if (!(best_so_far[i] > 0)) continue;
        const double px = x(static_cast<double>(i + 1)), py = y(best_so_far[i] * unit.factor);
        if (d.empty()) {
            d = fmt::format("M{} {}", num(px), num(py));
        } else if (best_so_far[i] != best_so_far[i - 1]) {
            d += fmt::format("H{}V{}", num(px), num(py));
        }
    }
    if (!d.empty()) {
        d += fmt::format("H{}", num(x(static_cast<double>(n))));
        out +=
            fmt::format(R"(<path d="{}" fill="none" stroke="{}" stroke-width="2.5"/>)", d, color);
    }
    out += legend(ml + 8, 16,
                  {{"this run, in the order it evaluated", color},
                   {"random search over the same configurations (expected)", "#666"}},
                  true);
    out += "</svg>";
    return out;
}

}  // namespace hone::report_detail
