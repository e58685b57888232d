#include "formats/import.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_set>

#include "formats/json_file.hpp"
#include "formats/json_locate.hpp"
#include "formats/t1_import.hpp"
#include "formats/t4.hpp"
#include "measure/stats.hpp"

namespace hone {
namespace {

using sorted_json =
    nlohmann::json;  // sorted maps: linear parse of big objects (formats/json_file.hpp)

std::string base_name(const std::string& path) {
    return std::filesystem::path(path).filename().string();
}

[[noreturn]] void fail_near(const std::string& text, const std::string& path,
                            const std::string& quoted_key, const std::string& message) {
    source_pos pos{path, 0, 0};
    const std::size_t at = text.find(quoted_key);
    if (at != std::string::npos) pos = position_in(text, at, path);
    throw input_error(pos, message);
}

// What the cache reader lets pass but an import must not guess about: a record whose key names
// other values than its fields, or a field that is neither a parameter, a known field nor a
// number (a parameter of another space, a misspelt name).
void check_kt_record(const kt_cache& c, const std::string& key, const sorted_json& rec,
                     const std::string& text, const std::string& path) {
    const std::vector<std::string>& names = c.param_names;
    static const std::set<std::string> known = {"time", "times", "timestamp"};
    const std::string where = sorted_json(key).dump();
    std::string expected;
    for (const auto& n : names) {
        const sorted_json& v = rec[n];  // the reader checked that it is there and listed
        value val;
        if (v.is_boolean()) {
            val = v.get<bool>();
        } else if (v.is_number_integer()) {
            val = v.get<int64_t>();
        } else if (v.is_number_float()) {
            val = v.get<double>();
        } else if (v.is_string()) {
            val = v.get<std::string>();
        } else {
            break;
        }
        expected += (expected.empty() ? "" : ",") + python_text(val);
    }
    if (expected != key)
        fail_near(text, path, where,
                  fmt::format("record {}: its key does not name its parameters' values "
                              "(expected \"{}\" from the fields {})",
                              where, expected, fmt::join(names, ", ")));
    for (const auto& [field, v] : rec.items()) {
        if (v.is_number() || known.count(field) ||
            std::find(names.begin(), names.end(), field) != names.end())
            continue;
        fail_near(text, path, where,
                  fmt::format("record {}: unknown parameter '{}' = {}; expected one of the "
                              "parameters {} (tune_params_keys), time, times, timestamp or a "
                              "numeric metric",
                              where, field, v.dump(), fmt::join(names, ", ")));
    }
}

// A key given twice in "cache" (JSON lets an object repeat a member) would store one of the two
// records and drop the other without a word. Found by the keys' hashes (8 bytes a record, not
// a set of every key); equal hashes are confirmed on the keys themselves in one more pass.
void check_kt_keys_unique(std::vector<std::size_t> hashes, const std::string& text,
                          const std::string& path) {
    std::sort(hashes.begin(), hashes.end());
    std::unordered_set<std::size_t> twice;
    for (std::size_t i = 1; i < hashes.size(); ++i)
        if (hashes[i] == hashes[i - 1]) twice.insert(hashes[i]);
    if (twice.empty()) return;
    hashes = {};
    std::unordered_set<std::string> seen;
    std::string repeated;
    scan_kt_cache(text, path,
                  [&](const kt_cache&, const std::string& key, const sorted_json&, kt_entry&&) {
                      if (!repeated.empty() || !twice.count(std::hash<std::string>{}(key))) return;
                      if (!seen.insert(key).second) repeated = key;
                  });
    if (!repeated.empty()) {
        const std::string where = sorted_json(repeated).dump();
        fail_near(text, path, where,
                  fmt::format("record {} appears twice in \"cache\"; each configuration is "
                              "recorded once",
                              where));
    }
}

// What a conversion could not keep as given, counted over the records.
struct kt_counts {
    std::size_t outside = 0, rescaled = 0;
};

run_identity kt_identity(const kt_cache& c, const std::string& path) {
    run_identity id;
    // Absolute: two files of one name in different folders are told apart (hone import).
    id.config_path = std::filesystem::absolute(path).lexically_normal().string();
    id.kernel_name = c.kernel_name;
    id.device_name = c.device_name;
    id.problem = c.problem_size;
    id.origin =
        fmt::format("kernel_tuner cache{} ({})",
                    c.schema_version.empty() ? "" : " " + c.schema_version, base_name(path));
    id.objective = hone_objective_of(c.objective).value_or("time");
    return id;
}

std::vector<std::string> kt_notes(const kt_cache& c, const kt_counts& n) {
    std::vector<std::string> notes;
    if (c.left_open)
        notes.push_back(fmt::format(
            "the cache was left open (Kernel Tuner writes its closing braces when a run ends): "
            "read, as Kernel Tuner reads it, to its last complete record ({} records)",
            c.record_count));
    if (!hone_objective_of(c.objective))
        notes.push_back(
            fmt::format("the file's objective '{}' is not one hone ranks by; its "
                        "records are ranked by time",
                        c.objective));
    if (n.rescaled > 0)
        notes.push_back(fmt::format(
            "{} record{}: GB/s and GFLOP/s are shown at the median of the raw times, as hone "
            "computes its own; the file's values (at its time) are kept as metrics",
            n.rescaled, n.rescaled == 1 ? "" : "s"));
    if (n.outside > 0)
        notes.push_back(fmt::format(
            "{} record{}: the file's time lies outside the range of its raw times; hone ranks by "
            "the median of the raw times and keeps the file's value as the metric 'time' (ms)",
            n.outside, n.outside == 1 ? "" : "s"));
    return notes;
}

// One record of the cache as hone's record.
eval_record kt_record(const kt_cache& c, const kt_entry& e, kt_counts& n) {
    eval_record r;
    for (std::size_t i = 0; i < c.param_names.size(); ++i)
        r.params.emplace_back(c.param_names[i], c.value_of(e, i));
    r.key = key_of(r.params);
    job_result& g = r.gpu;
    // A failure can have raw times too (measured, then found failing): they are kept.
    for (double ms : e.times_ms) g.samples_us.push_back(us_of_ms(ms));
    if (!g.samples_us.empty()) g.time_us = summarize(g.samples_us);
    if (e.time_ms) {
        r.st = status::ok;
        if (g.samples_us.empty()) {
            // One number and no samples: it is the median, with no interval.
            summary& t = g.time_us;
            t.n = 1;
            t.median = t.mean = t.min = t.max = t.ci_low = t.ci_high = us_of_ms(*e.time_ms);
        } else {
            const double us = us_of_ms(*e.time_ms);
            if (us < g.time_us.min * (1 - 1e-9) || us > g.time_us.max * (1 + 1e-9)) ++n.outside;
        }
        r.metrics[objective_metric] = *e.time_ms;
    } else {
        r.st = *status_of_kt_failure(e.failure);  // the reader admits only the three kinds
        r.message = "Kernel Tuner: " + e.failure;
    }
    g.st = r.st;
    g.message = r.message;
    r.compile_ms = e.compile_time_ms;
    g.steps.verify_s = s_of_ms(e.verification_time_ms);
    g.steps.samples_s = s_of_ms(e.benchmark_time_ms);
    for (const auto& [name, v] : e.metrics) r.metrics[name] = v;
    if (e.framework_time_ms != 0) r.metrics[framework_metric] = e.framework_time_ms;
    if (e.strategy_time_ms != 0) r.metrics[strategy_metric] = e.strategy_time_ms;
    if (auto it = r.metrics.find("GB/s"); it != r.metrics.end()) r.gbps = it->second;
    if (auto it = r.metrics.find("GFLOP/s"); it != r.metrics.end()) r.gflops = it->second;
    // Kernel Tuner computes its rates at the file's time (a mean); hone's are at the median,
    // which is what it ranks by: rescaled, the rate columns stay in rank order. The file's
    // values remain as the metrics "GB/s" and "GFLOP/s".
    if (e.time_ms && !g.samples_us.empty() && g.time_us.median > 0) {
        const double factor = us_of_ms(*e.time_ms) / g.time_us.median;
        if (std::abs(factor - 1) > 1e-9) {
            r.gbps *= factor;
            r.gflops *= factor;
            n.rescaled += r.gbps > 0 || r.gflops > 0 ? 1 : 0;
        }
    }
    r.created_at = e.timestamp;
    return r;
}

}  // namespace

run_records from_kt_cache(const kt_cache& c, const std::string& path) {
    run_records out;
    out.identity = kt_identity(c, path);
    kt_counts n;
    out.records.reserve(c.entries.size());
    for (const kt_entry& e : c.entries) out.records.push_back(kt_record(c, e, n));
    out.notes = kt_notes(c, n);
    return out;
}

void checked_import::each_record(const std::function<void(const eval_record&)>& each) const {
    if (text_.empty()) {
        for (const eval_record& r : held_) each(r);
        return;
    }
    // The text and header were checked whole by check_import: the records alone are read again.
    kt_counts n;
    scan_kt_records(text_, path_, header_,
                    [&](const kt_cache& c, const std::string&, const sorted_json&, kt_entry&& e) {
                        each(kt_record(c, e, n));
                    });
}

checked_import check_import(const std::string& path, import_format format) {
    std::string text = read_maybe_gzip(path);
    if (format == import_format::automatic) {
        // The member names from a scan of the bytes (exact for valid JSON; the reader chosen
        // parses the whole text and says what is wrong with any other). A text that names
        // neither format is parsed here, so that a syntax error is reported as such.
        std::optional<std::vector<std::string>> keys;
        if (const auto members = top_level_members(text)) {
            keys.emplace();
            for (const json_member& m : *members) keys->push_back(m.name);
        }
        auto has = [&](const char* k) {
            return keys && std::find(keys->begin(), keys->end(), k) != keys->end();
        };
        auto kt = [&] { return has("tune_params_keys") && has("cache"); };
        auto t4 = [&] { return has("results") && has("schema_version"); };
        if (!kt() && !t4()) keys = top_level_keys(text, path);
        if (is_t1_members(has("ConfigurationSpace"), has("KernelSpecification")))
            throw input_error({path, 0, 0}, std::string("not results but ") + t1_not_results);
        if (!kt() && !t4())
            throw input_error(
                {path, 0, 0},
                "not a file hone imports: expected a Kernel Tuner cache (a JSON object with "
                "\"tune_params_keys\", \"tune_params\" and \"cache\") or T4 results (a JSON object "
                "with \"schema_version\" and \"results\")");
        format = kt() ? import_format::kt_cache : import_format::t4;
    }
    checked_import out;
    out.path_ = path;
    out.by_status.assign(static_cast<std::size_t>(status::timeout) + 1, 0);
    auto count = [&](const eval_record& r) {
        ++out.records;
        ++out.by_status[static_cast<std::size_t>(r.st)];
    };
    if (format == import_format::t4) {
        run_records run = read_t4_text(text, path);
        out.identity = std::move(run.identity);
        out.notes = std::move(run.notes);
        out.held_ = std::move(run.records);
        for (const eval_record& r : out.held_) count(r);
        return out;
    }
    // Every record is checked and converted once here, and made again when it is stored.
    kt_counts n;
    std::vector<std::size_t> hashes;               // of the keys, for records given twice
    const bool was_open = close_open_cache(text);  // in place: the text is kept for the records
    kt_cache c = scan_kt_cache(
        text, path,
        [&](const kt_cache& h, const std::string& key, const sorted_json& rec, kt_entry&& e) {
            if (hashes.empty()) hashes.reserve(h.record_count);
            hashes.push_back(std::hash<std::string>{}(key));
            check_kt_record(h, key, rec, text, path);
            count(kt_record(h, e, n));
        });
    check_kt_keys_unique(std::move(hashes), text, path);
    c.left_open = c.left_open || was_open;
    out.identity = kt_identity(c, path);
    out.notes = kt_notes(c, n);
    out.text_ = std::move(text);
    out.header_ = std::move(c);
    return out;
}

run_records import_file(const std::string& path, import_format format) {
    const checked_import checked = check_import(path, format);
    run_records out;
    out.identity = checked.identity;
    out.notes = checked.notes;
    out.records.reserve(checked.records);
    checked.each_record([&](const eval_record& r) { out.records.push_back(r); });
    return out;
}

}  // namespace hone
