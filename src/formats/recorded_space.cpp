#include "formats/recorded_space.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>
#include <type_traits>
#include <unordered_map>

#include "common/value_key.hpp"
#include "formats/exchange.hpp"
#include "formats/json_file.hpp"
#include "formats/json_locate.hpp"
#include "formats/kt_cache.hpp"
#include "formats/ktt_output.hpp"
#include "formats/t4.hpp"
#include "hone/error.hpp"
#include "hone/store.hpp"

namespace hone {
namespace {

std::string head_bytes(const std::string& path, std::size_t n) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw env_error(fmt::format("{}: cannot be read", path));
    std::string s(n, '\0');
    in.read(s.data(), static_cast<std::streamsize>(n));
    s.resize(static_cast<std::size_t>(in.gcount()));
    return s;
}

std::string kt_record_key(const recorded_space& r, std::size_t k) {
    return kt_key(r.values, r.points[k]);
}

// Whether more is better for an objective of this name, as Kernel Tuner infers it: its
// throughputs and efficiencies are, times, energies and costs are not.
bool higher_is_better(const std::string& name) {
    static const char* const higher[] = {"GFLOP/s",  "TFLOP/s",  "GB/s",    "TB/s",
                                         "GFLOPS/W", "TFLOPS/W", "GFLOP/J", "TFLOP/J",
                                         "fitness",  "gflops",   "gbps"};
    for (const char* h : higher)
        if (name == h) return true;
    return false;
}

// A Kernel Tuner cache's name for hone's throughputs.
std::string kt_field_of(const std::string& name) {
    return name == "gflops" ? "GFLOP/s" : name == "gbps" ? "GB/s" : name;
}

[[noreturn]] void no_such_objective(const std::string& path, const std::string& name,
                                    const std::set<std::string>& fields) {
    throw input_error(
        {"--objective", 0, 0},
        fmt::format("no record of {} holds a number '{}' to rank by; its records "
                    "hold: {}",
                    path, name,
                    fields.empty() ? "none" : fmt::format("{}", fmt::join(fields, ", "))));
}

// The ranked objective's name, direction and words for the summary, set on `r`.
void set_objective(recorded_space& r, const std::string& name, bool higher, const char* why) {
    const auto o = hone_objective_of(name);
    r.objective = o ? *o : name;
    r.unit = name;
    r.ranked_value =
        fmt::format("the file's {} ({}; {} is better)", name, why, higher ? "higher" : "lower");
}

recorded_space from_kt(const std::string& path, std::string text, const objective_choice& choice) {
    recorded_space r;
    kt_cache c;
    // A field other than time to rank by: the one chosen, or the header's objective where it is
    // GFLOP/s or GB/s, as the T4 reader and `hone import` take it (the FAIR hub's hotspot caches
    // rank by GFLOP/s: its configurations do different amounts of work a launch).
    std::optional<std::string> field;
    bool higher = true;
    if (!choice.name.empty() && choice.name != "time") {
        field = kt_field_of(choice.name);
        higher = choice.higher.value_or(higher_is_better(*field));
    }
    std::size_t with_field = 0;
    std::vector<std::optional<double>> by_time;
    std::set<std::string> fields{"time"};
    {
        // The records are taken as they are read (no kt_entry is kept), and the text is freed
        // before the points are indexed.
        std::string own = std::move(text);
        const bool was_open = close_open_cache(own);  // in place: no second copy of the text
        c = scan_kt_cache(
            own, path,
            [&](const kt_cache& h, const std::string&, const nlohmann::json&, kt_entry&& e) {
                if (r.points.empty()) {  // sized once: doubling lists would hold two copies
                    const std::optional<std::string> o = hone_objective_of(h.objective);
                    if (choice.name.empty() && o && *o != "time") field = h.objective;
                    r.points.reserve(h.record_count);
                    r.outcome.reserve(h.record_count);
                    r.cost_s.reserve(h.record_count);
                }
                r.points.push_back(std::move(e.index));
                const bool timed = e.time_ms && std::isfinite(*e.time_ms) && *e.time_ms > 0;
                r.outcome.push_back(timed ? e.time_ms : std::nullopt);
                if (field) {
                    // The names only an error would list: gathered until a record has the field.
                    if (with_field == 0 && fields.size() < 64)
                        for (const auto& [name, v] : e.metrics) fields.insert(name);
                    by_time.push_back(r.outcome.back());
                    const auto m = e.metrics.find(*field);
                    const bool has =
                        timed && m != e.metrics.end() && std::isfinite(m->second) && m->second > 0;
                    r.outcome.back() =
                        has ? std::optional<double>(higher ? -m->second : m->second) : std::nullopt;
                    with_field += has;
                }
                r.cost_s.push_back(
                    (e.compile_time_ms + e.verification_time_ms + e.benchmark_time_ms) / 1000.0);
            });
        c.left_open = c.left_open || was_open;
    }
    r.path = path;
    r.format = c.left_open ? "Kernel Tuner cache, left open: read to its last record"
                           : "Kernel Tuner cache";
    r.kernel = c.kernel_name;
    r.device = c.device_name;
    r.problem = c.problem_size;
    r.objective = "time";
    r.unit = "ms";
    r.ranked_value = "the file's time (Kernel Tuner: the mean of its runs)";
    if (field && with_field > 0) {
        set_objective(r, *field, higher, choice.name.empty() ? "its objective" : "--objective");
    } else if (field && !choice.name.empty()) {
        no_such_objective(path, *field, fields);
    } else if (field) {
        r.outcome = std::move(by_time);
        r.ranked_value =
            fmt::format("the file's time (its objective, {}, is in no record)", *field);
    } else if (choice.name.empty() && !hone_objective_of(c.objective)) {
        r.ranked_value = fmt::format(
            "the file's time (its objective, '{}', is not one hone ranks "
            "by)",
            c.objective);
    }
    r.names = std::move(c.param_names);
    r.values = std::move(c.param_values);
    r.make_key = kt_record_key;  // Kernel Tuner's keys: Python's text of the values
    r.finish();
    return r;
}

std::string describe(const run_identity& id) {
    return fmt::format("{} {} on {} ({}){}", id.id().substr(0, 12), id.kernel_name, id.device_name,
                       id.problem, id.origin.empty() ? "" : ", from " + id.origin);
}

recorded_space from_run(const std::string& path, const char* format, const run_identity& run,
                        const std::vector<eval_record>& records, const objective_choice& choice,
                        bool file_time = false);

recorded_space from_hone(const std::string& path, const std::string& choice,
                         const objective_choice& objective) {
    const source_pos at{path, 0, 0};
    std::vector<run_identity> runs;
    std::vector<eval_record> records;
    run_identity run;
    try {
        results_store store(path, store_access::read_only);
        runs = store.runs();
        if (runs.empty()) throw input_error(at, "the database holds no runs");
        if (choice.empty() && runs.size() > 1) {
            std::string list;
            for (std::size_t i = 0; i < runs.size(); ++i)
                list += fmt::format("\n  {}: {}", i + 1, describe(runs[i]));
            throw input_error(at, fmt::format("the database holds {} runs (kernels, problems or "
                                              "devices); pick one with --identity (its number or "
                                              "id prefix):{}",
                                              runs.size(), list));
        }
        const run_identity* pick = runs.size() == 1 && choice.empty() ? &runs[0] : nullptr;
        if (!pick) {
            std::size_t n = 0;
            const bool numeric = !choice.empty() && choice.size() < 6 &&
                                 std::all_of(choice.begin(), choice.end(), ::isdigit);
            if (numeric) n = std::stoul(choice);
            for (std::size_t i = 0; i < runs.size() && !pick; ++i)
                if ((numeric && n == i + 1) || (!numeric && runs[i].id().rfind(choice, 0) == 0))
                    pick = &runs[i];
            if (!pick)
                throw input_error({"--identity", 0, 0},
                                  fmt::format("no run '{}' in {}: it holds {} run(s), numbered "
                                              "from 1 as `hone show` lists them",
                                              choice, path, runs.size()));
        }
        run = *pick;
        records = store.query({run.id(), "", 0, false});
    } catch (const env_error& e) {
        // A memory limit stays the environment's (exit 3), whatever the file.
        if (std::string_view(e.what()).find("out of memory") != std::string_view::npos) throw;
        // A file that starts like SQLite but is not a usable hone database: bad input here.
        throw input_error(at, e.what());
    }
    return from_run(path, "hone database", run, records, objective);
}

// file_time: rank by each result's own objective value where the file gives one (T4's "time"
// measurement, kept as the metric objective_metric in ms), as a Kernel Tuner cache ranks by its
// `time`: the same space in either format then has the same optimum. Files written by other
// tools rank by it (Kernel Tuner's T4: the mean of runtimes whose first may run cold); hone's
// own T4 writes the median there.
recorded_space from_run(const std::string& path, const char* format, const run_identity& run,
                        const std::vector<eval_record>& records, const objective_choice& choice,
                        bool file_time) {
    const source_pos at{path, 0, 0};
    recorded_space r;
    r.path = path;
    r.format = format;
    r.kernel = run.kernel_name;
    r.device = run.device_name;
    r.problem = run.problem;
    // The run's objective, or the one chosen: time, hone's throughputs, or a metric by name.
    std::string objective = run.objective;
    std::optional<std::string> metric;
    bool higher = objective != "time";
    if (!choice.name.empty()) {
        const auto o = hone_objective_of(kt_field_of(choice.name));
        objective = o ? *o : choice.name;
        if (!o) metric = choice.name;
        higher = choice.higher.value_or(higher_is_better(kt_field_of(choice.name)));
    }
    std::set<std::string> fields{"time", "GFLOP/s", "GB/s"};
    std::size_t chosen = 0;
    r.objective = objective;
    r.unit = objective == "time"     ? "us"
             : objective == "gbps"   ? "GB/s"
             : objective == "gflops" ? "GFLOP/s"
                                     : objective;
    r.ranked_value = metric ? fmt::format(
                                  "each configuration's metric {} (--objective; {} is "
                                  "better)",
                                  *metric, higher ? "higher" : "lower")
                     : objective != "time" ? "each configuration's " + objective
                     : file_time ? "the file's time of each result (its \"time\" measurement; the "
                                   "median of its runtimes where it has none)"
                                 : "the median of each configuration's samples, as hone ranks";
    if (records.empty()) throw input_error(at, "the run has no results");
    for (const auto& [name, v] : records[0].params) r.names.push_back(name);
    r.values.resize(r.names.size());
    // Values found through hash maps: a search of each list made loading quadratic in a
    // parameter's number of values.
    std::vector<std::unordered_map<std::string, uint32_t>> seen(r.names.size());
    for (const auto& rec : records) {
        bool same = rec.params.size() == r.names.size();
        for (std::size_t i = 0; same && i < r.names.size(); ++i)
            same = rec.params[i].first == r.names[i];
        if (!same)
            throw input_error(at, fmt::format("results of one run have different parameters "
                                              "('{}' and '{}'): a damaged database",
                                              records[0].key, rec.key));
        for (std::size_t i = 0; i < r.names.size(); ++i) {
            if (seen[i].emplace(value_key(rec.params[i].second), 0).second)
                r.values[i].push_back(rec.params[i].second);
        }
    }
    sort_values(r.values, seen);
    for (const auto& rec : records) {
        point p;
        for (std::size_t i = 0; i < r.names.size(); ++i)
            p.push_back(seen[i].at(value_key(rec.params[i].second)));
        r.points.push_back(std::move(p));
        r.keys.push_back(rec.key);
        std::optional<double> out;
        if (has_timing(rec.st)) {
            if (objective == "gbps" && rec.gbps > 0) out = -rec.gbps;
            if (objective == "gflops" && rec.gflops > 0) out = -rec.gflops;
            if (objective == "time" && rec.gpu.time_us.median > 0) out = rec.gpu.time_us.median;
            if (const auto m = rec.metrics.find(objective_metric);
                file_time && objective == "time" && m != rec.metrics.end() &&
                std::isfinite(m->second) && m->second > 0)
                out = m->second * 1000;  // ms to us
            if (metric) {
                if (chosen == 0 && fields.size() < 64)  // only an error would list them
                    for (const auto& [name, v] : rec.metrics) fields.insert(name);
                if (const auto m = rec.metrics.find(*metric);
                    m != rec.metrics.end() && std::isfinite(m->second) && m->second > 0)
                    out = higher ? -m->second : m->second;
                else
                    out.reset();
            }
        }
        chosen += out.has_value();
        r.outcome.push_back(out);
        r.cost_s.push_back(rec.compile_ms / 1000.0 + rec.gpu.wall_s);
    }
    if (!choice.name.empty() && chosen == 0) no_such_objective(path, choice.name, fields);
    r.finish();
    return r;
}

}  // namespace

recorded_space load_recorded_space(const std::string& path, const std::string& identity,
                                   const objective_choice& objective) {
    if (objective.higher && objective.name == "time" && *objective.higher)
        throw input_error({"--objective", 0, 0}, "time is better lower, not higher");
    if (objective.higher && !*objective.higher && hone_objective_of(kt_field_of(objective.name)) &&
        objective.name != "time")
        throw input_error(
            {"--objective", 0, 0},
            fmt::format("{} is a throughput: better higher, not lower", objective.name));
    const std::string head = head_bytes(path, 16);
    if (head.rfind(std::string("SQLite format 3\0", 16), 0) == 0)
        return from_hone(path, identity, objective);
    if (!identity.empty())
        throw input_error(
            {"--identity", 0, 0},
            fmt::format("{} is a Kernel Tuner cache, T4 or KTT file: it holds one run, "
                        "--identity is for hone databases",
                        path));
    const std::size_t first = head.find_first_not_of(" \t\r\n");
    const bool gz = head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
                    static_cast<unsigned char>(head[1]) == 0x8b;
    if (!gz && (first == std::string::npos || head[first] != '{'))
        throw input_error({path, 0, 0},
                          "neither a Kernel Tuner cache, T4 results or KTT output (JSON, or "
                          "gzip'd JSON) nor a hone results database (SQLite)");
    std::string text = read_maybe_gzip(path);
    // T4 results and KTT output are told by their top-level names (one scan of the text);
    // anything else is read as a cache, whose reader says what such a text lacks.
    bool t4 = false, ktt = false, results = false, version = false;
    if (const auto members = top_level_members(text)) {
        for (const json_member& m : *members) {
            results = results || m.name == "results";
            version = version || m.name == "schema_version";
        }
        t4 = results && version;
        ktt = !t4 && looks_like_ktt_output(*members);
    }
    if (ktt) {
        if (!objective.name.empty() && objective.name != "time")
            throw input_error({"--objective", 0, 0},
                              fmt::format("{} is KTT output, ranked by each result's "
                                          "TotalDuration: --objective takes only time there",
                                          path));
        return read_ktt_output(text, path);
    }
    if (!t4) return from_kt(path, std::move(text), objective);
    const run_records run = read_t4_text(text, path);
    return from_run(path, "T4 results", run.identity, run.records, objective, true);
}

}  // namespace hone
