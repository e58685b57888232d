#include <fmt/format.h>

#include <algorithm>

#include "report/report.hpp"
#include "report/units.hpp"

namespace hone {
namespace {

constexpr std::size_t max_value_width = 16;  // a long string parameter must not widen the table

struct text_column {
    text_column(std::string h, bool right_aligned = true)
        : header(std::move(h)), right(right_aligned) {}
    std::string header;
    bool right;
    std::vector<std::string> cells;
};

std::string pad(const std::string& s, std::size_t width, bool right) {
    const std::string fill(width - std::min(width, display_width(s)), ' ');
    return right ? fill + s : s + fill;
}

std::string render(const std::vector<text_column>& cols) {
    std::vector<std::size_t> widths;
    for (const auto& c : cols) {
        std::size_t w = display_width(c.header);
        for (const auto& cell : c.cells) w = std::max(w, display_width(cell));
        widths.push_back(w);
    }
    auto line = [&](auto&& cell_of) {
        std::string out;
        for (std::size_t i = 0; i < cols.size(); ++i) {
            out += (i ? "  " : "") + pad(cell_of(cols[i]), widths[i], cols[i].right);
        }
        out.erase(out.find_last_not_of(' ') + 1);
        return out + "\n";
    };
    std::string body;
    std::size_t rule = 0;
    for (std::size_t row = 0; row < cols.front().cells.size(); ++row) {
        const std::string l = line([row](const text_column& c) { return c.cells[row]; });
        rule = std::max(rule, display_width(l) - 1);
        body += l;
    }
    const std::string header = line([](const text_column& c) { return c.header; });
    rule = std::max(rule, display_width(header) - 1);
    return header + std::string(rule, '-') + "\n" + body;
}

std::string param_cell(const eval_record& r, const std::string& name) {
    for (const auto& [n, v] : r.params) {
        if (n == name) return truncate_text(template_text(v), max_value_width);
    }
    return "-";
}

// Text reads left-aligned, numbers right-aligned.
bool is_text_param(const eval_record& r, const std::string& name) {
    for (const auto& [n, v] : r.params) {
        if (n == name) return std::holds_alternative<std::string>(v);
    }
    return false;
}

std::string median_cell(const summary& t) {
    const auto u = report_detail::unit_for(t.median);
    std::string out = fmt::format("{} {}", report_detail::in_unit(t.median, u), u.name);
    if (t.ci_high > t.ci_low) {
        out += fmt::format(" [{}, {}]", report_detail::in_unit(t.ci_low, u),
                           report_detail::in_unit(t.ci_high, u));
    }
    return out;
}

// The function's own attributes when the module loaded, else what ptxas said; "-" = neither.
std::string regs_cell(const eval_record& r) {
    const int regs = r.gpu.num_regs >= 0 ? r.gpu.num_regs : r.resources.registers;
    return regs >= 0 ? std::to_string(regs) : "-";
}

std::string spill_cell(const eval_record& r) {
    if (r.resources.registers >= 0) {
        return std::to_string(r.resources.spill_store_bytes + r.resources.spill_load_bytes);
    }
    return r.gpu.local_bytes >= 0 ? std::to_string(r.gpu.local_bytes) : "-";
}

// Static shared memory as loaded, else as ptxas said, plus the launch's dynamic bytes; "-" where
// neither was recorded (an imported record, a failed compile).
std::string smem_cell(const eval_record& r) {
    const int stat = r.gpu.static_shared_bytes >= 0 ? r.gpu.static_shared_bytes
                     : r.resources.registers >= 0   ? r.resources.shared_static_bytes
                                                    : -1;
    return stat >= 0 ? std::to_string(stat + r.dynamic_shared_bytes) : "-";
}

std::string rate_cell(double v) {
    return v > 0 ? fmt::format("{:.1f}", v) : "-";
}

std::vector<std::string> names_of(const std::vector<eval_record>& records,
                                  const table_options& opt) {
    if (!opt.param_names.empty() || records.empty()) return opt.param_names;
    std::vector<std::string> names;
    for (const auto& [n, v] : records.front().params) names.push_back(n);
    return names;
}

struct layout {
    std::vector<text_column> cols;
    std::size_t params_end = 0;  // columns [1, params_end) are parameters
    bool gbps = false, gflops = false;
    bool gpu = false;        // measured on several GPUs: which one measured each row
    bool telemetry = false;  // the GPU's clock, temperature and power (NVML) are known
};

layout make_layout(const std::vector<std::string>& names,
                   const std::vector<const eval_record*>& order) {
    layout l;
    l.gbps = std::any_of(order.begin(), order.end(), [](auto* r) { return r->gbps > 0; });
    l.gflops = std::any_of(order.begin(), order.end(), [](auto* r) { return r->gflops > 0; });
    l.cols.push_back({"#"});
    for (const auto& n : names) l.cols.push_back({n, !is_text_param(*order.front(), n)});
    l.params_end = l.cols.size();
    l.cols.push_back({"median [95% CI]"});
    l.cols.push_back({"n"});
    l.cols.push_back({"sample", false});  // how a sample was taken: single+flush, batchN...
    l.cols.push_back({"timer", false});   // what timed it: cupti or events
    if (l.gbps) l.cols.push_back({"GB/s"});
    if (l.gflops) l.cols.push_back({"GFLOP/s"});
    for (const char* h : {"regs", "spill B", "smem B", "occ"}) l.cols.push_back({h});
    l.gpu = std::any_of(order.begin(), order.end(),
                        [&](auto* r) { return r->device != order.front()->device; });
    l.telemetry = std::any_of(order.begin(), order.end(),
                              [](auto* r) { return r->gpu.telemetry.sm_clock_mhz > 0; });
    if (l.gpu) l.cols.push_back({"gpu"});
    if (l.telemetry) l.cols.push_back({"MHz/C/W", false});
    l.cols.push_back({"status", false});
    l.cols.push_back({"", false});
    return l;
}

void add_row(layout& l, std::size_t rank, const eval_record& r, const summary& best) {
    std::size_t c = 0;
    auto put = [&](std::string cell) { l.cols[c++].cells.push_back(std::move(cell)); };
    put(std::to_string(rank));
    while (c < l.params_end) put(param_cell(r, l.cols[c].header));
    put(median_cell(r.gpu.time_us));
    put(std::to_string(r.gpu.time_us.n));
    put(r.gpu.sample_mode.empty() ? "-" : r.gpu.sample_mode);
    put(r.gpu.timer.empty() ? "-" : r.gpu.timer);
    if (l.gbps) put(rate_cell(r.gbps));
    if (l.gflops) put(rate_cell(r.gflops));
    put(regs_cell(r));
    put(spill_cell(r));
    put(smem_cell(r));
    put(r.gpu.active_blocks_per_sm >= 0 ? fmt::format("{:.0f}%", r.gpu.occupancy * 100) : "-");
    if (l.gpu) put(r.device >= 0 ? std::to_string(r.device) : "-");
    if (l.telemetry) {
        const gpu_telemetry& t = r.gpu.telemetry;
        put(t.sm_clock_mhz > 0
                ? fmt::format("{:.0f}/{:.0f}/{:.0f}", t.sm_clock_mhz, t.temperature_c, t.power_w)
                : "-");
    }
    put(status_name(r.st));
    // Within the noise of the best: the measurement cannot tell these apart.
    put(rank > 1 && overlaps(best, r.gpu.time_us) ? "tie" : "");
}

}  // namespace

std::string best_table(const std::vector<eval_record>& records, const table_options& opt) {
    const auto order = ranked(records, opt.by);
    if (order.empty()) return "no configuration has a timing\n";
    const std::size_t rows = opt.top == 0 ? order.size() : std::min(opt.top, order.size());
    layout l = make_layout(names_of(records, opt), order);
    for (std::size_t i = 0; i < rows; ++i) add_row(l, i + 1, *order[i], order.front()->gpu.time_us);
    std::string out = render(l.cols);
    if (rows < order.size()) out += fmt::format("({} more ranked)\n", order.size() - rows);
    return out;
}

std::string failure_table(const std::vector<eval_record>& records, const table_options& opt) {
    std::vector<const eval_record*> failed;
    for (const auto& r : records)
        if (!has_timing(r.st)) failed.push_back(&r);
    if (failed.empty()) return "";
    const std::size_t rows = opt.top == 0 ? failed.size() : std::min(opt.top, failed.size());
    const auto names = names_of(records, opt);
    std::vector<text_column> cols;
    for (const auto& n : names) cols.push_back({n, !is_text_param(*failed.front(), n)});
    cols.push_back({"status", false});
    cols.push_back({"message (first line)", false});
    for (std::size_t i = 0; i < rows; ++i) {
        const eval_record& r = *failed[i];
        std::size_t c = 0;
        for (; c < names.size(); ++c) cols[c].cells.push_back(param_cell(r, cols[c].header));
        cols[c++].cells.push_back(status_name(r.st));
        // One line a row: the first line of the message, shortened to keep the table readable.
        cols[c].cells.push_back(truncate_text(r.message.substr(0, r.message.find('\n')), 100));
    }
    std::string out = fmt::format("not ranked (no timing): {}\n", failed.size()) + render(cols);
    if (rows < failed.size())
        out += fmt::format("({} more: --all lists every one)\n", failed.size() - rows);
    return out;
}

}  // namespace hone
