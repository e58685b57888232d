#include "formats/csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <set>

namespace hone {
namespace {

std::string num(double v) {
    return fmt::format("{}", v);
}

template <typename T>
void add_unique(std::vector<T>& list, const T& v) {
    if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
}

struct csv_column {
    std::string header;
    std::function<std::string(const run_records&, const eval_record&)> cell;
};

}  // namespace

std::string spreadsheet_safe(const std::string& text) {
    if (text.empty() || std::string_view("=+-@\t\r").find(text.front()) == std::string::npos)
        return text;
    // A number (-1.5, -inf) is data, not a formula: spreadsheets read it as the number.
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec == std::errc() && end == text.data() + text.size()) return text;
    return "'" + text;
}

std::string csv_field(const std::string& raw) {
    const std::string text = spreadsheet_safe(raw);
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string write_csv(const std::vector<const run_records*>& runs) {
    std::vector<std::string> params, metrics;
    for (const auto* run : runs) {
        for (const auto& r : run->records) {
            for (const auto& p : r.params) add_unique(params, p.first);
            for (const auto& m : r.metrics) add_unique(metrics, m.first);
        }
    }
    std::sort(metrics.begin(), metrics.end());
    std::vector<csv_column> cols;
    if (runs.size() > 1) {
        cols.push_back({"run", [](const run_records& run, const eval_record&) {
                            return run.identity.id().substr(0, 12);
                        }});
        cols.push_back({"kernel", [](const run_records& run, const eval_record&) {
                            return run.identity.kernel_name;
                        }});
        cols.push_back({"device", [](const run_records& run, const eval_record&) {
                            return run.identity.device_name;
                        }});
        cols.push_back({"origin", [](const run_records& run, const eval_record&) {
                            return run.identity.origin;
                        }});
    }
    for (const auto& name : params) {
        cols.push_back({name, [name](const run_records&, const eval_record& r) {
                            for (const auto& [n, v] : r.params)
                                if (n == name) return template_text(v);
                            return std::string();
                        }});
    }
    cols.push_back({"status", [](const run_records&, const eval_record& r) {
                        return std::string(status_name(r.st));
                    }});
    using stat = double summary::*;
    for (const auto& [name, field] :
         std::vector<std::pair<const char*, stat>>{{"median_us", &summary::median},
                                                   {"ci_low_us", &summary::ci_low},
                                                   {"ci_high_us", &summary::ci_high},
                                                   {"mean_us", &summary::mean},
                                                   {"stddev_us", &summary::stddev},
                                                   {"min_us", &summary::min},
                                                   {"max_us", &summary::max}}) {
        stat f = field;  // clang 14 cannot capture a structured binding
        cols.push_back({name, [f](const run_records&, const eval_record& r) {
                            return r.gpu.time_us.n > 0 ? num(r.gpu.time_us.*f) : "";
                        }});
    }
    cols.push_back({"n", [](const run_records&, const eval_record& r) {
                        return r.gpu.time_us.n > 0 ? std::to_string(r.gpu.time_us.n) : "";
                    }});
    cols.push_back({"gbps", [](const run_records&, const eval_record& r) {
                        return r.gbps > 0 ? num(r.gbps) : "";
                    }});
    cols.push_back({"gflops", [](const run_records&, const eval_record& r) {
                        return r.gflops > 0 ? num(r.gflops) : "";
                    }});
    cols.push_back({"registers", [](const run_records&, const eval_record& r) {
                        const int regs =
                            r.gpu.num_regs >= 0 ? r.gpu.num_regs : r.resources.registers;
                        return regs >= 0 ? std::to_string(regs) : "";
                    }});
    cols.push_back({"spill_bytes", [](const run_records&, const eval_record& r) {
                        const resource_usage& u = r.resources;
                        return u.registers >= 0
                                   ? std::to_string(u.spill_store_bytes + u.spill_load_bytes)
                                   : "";
                    }});
    cols.push_back({"shared_bytes", [](const run_records&, const eval_record& r) {
                        const int stat = r.gpu.static_shared_bytes >= 0
                                             ? r.gpu.static_shared_bytes
                                             : r.resources.shared_static_bytes;
                        return r.gpu.static_shared_bytes >= 0 || r.resources.registers >= 0
                                   ? std::to_string(stat + r.dynamic_shared_bytes)
                                   : "";
                    }});
    cols.push_back({"occupancy", [](const run_records&, const eval_record& r) {
                        return r.gpu.active_blocks_per_sm >= 0 ? num(r.gpu.occupancy) : "";
                    }});
    cols.push_back(
        {"compile_ms", [](const run_records&, const eval_record& r) { return num(r.compile_ms); }});
    cols.push_back({"sample_mode",
                    [](const run_records&, const eval_record& r) { return r.gpu.sample_mode; }});
    cols.push_back({"timer", [](const run_records&, const eval_record& r) { return r.gpu.timer; }});
    std::set<std::string> taken;
    for (const auto& c : cols) taken.insert(c.header);
    taken.insert({"message", "created_at"});
    for (const auto& name : metrics) {
        cols.push_back({taken.count(name) ? "metric:" + name : name,
                        [name](const run_records&, const eval_record& r) {
                            const auto it = r.metrics.find(name);
                            return it == r.metrics.end() ? std::string() : num(it->second);
                        }});
    }
    cols.push_back({"message", [](const run_records&, const eval_record& r) { return r.message; }});
    cols.push_back(
        {"created_at", [](const run_records&, const eval_record& r) { return r.created_at; }});

    std::string out;
    for (std::size_t i = 0; i < cols.size(); ++i) out += (i ? "," : "") + csv_field(cols[i].header);
    out += "\r\n";
    for (const auto* run : runs) {
        for (const auto& r : run->records) {
            for (std::size_t i = 0; i < cols.size(); ++i)
                out += (i ? "," : "") + csv_field(cols[i].cell(*run, r));
            out += "\r\n";
        }
    }
    return out;
}

}  // namespace hone
