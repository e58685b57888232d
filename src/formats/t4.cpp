#include "formats/t4.hpp"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "formats/json_file.hpp"
#include "formats/json_locate.hpp"
#include "measure/stats.hpp"
#include "record/json_members.hpp"
#include "record/params_json.hpp"
#include "report/report.hpp"

namespace hone {
namespace {

using json = nlohmann::ordered_json;

// ---- writing ----

// What T4 has no field for; read back by hone_extension() below.
json hone_json(const eval_record& r) {
    const job_result& g = r.gpu;
    return json_members(17)
        .add("key", r.key)
        .add("status", status_name(r.st))
        .add("message", r.message)
        .add("output", g.output)
        .add("compile_log", r.compile_log)
        .add("compile_cached", r.compile_cached)
        .add("sample_mode", g.sample_mode)
        .add("timer", g.timer)
        .add("gpu_busy_s", g.gpu_busy_s)
        .add("wall_s", g.wall_s)
        .add("steps", steps_json(g.steps))
        .add("resources", resources_json(r.resources, unknown_count::minus_one))
        .add("function", function_json(g, unknown_count::minus_one))
        .add("launch", json_members(3)
                           .add("grid", r.grid)
                           .add("block", r.block)
                           .add("dynamic_shared_bytes", r.dynamic_shared_bytes)
                           .done())
        .add("gbps", r.gbps)
        .add("gflops", r.gflops)
        .add("metrics", r.metrics)
        .done();
}

double metric_or(const eval_record& r, const char* name, double fallback) {
    const auto it = r.metrics.find(name);
    return it == r.metrics.end() ? fallback : it->second;
}

json measurement(const std::string& name, const json& v, const std::string& unit) {
    return {{"name", name}, {"value", v}, {"unit", unit}};
}

json result_json(const eval_record& r, const std::string& objective) {
    json out;
    if (!r.created_at.empty()) out["timestamp"] = r.created_at;
    out["configuration"] = params_to_json(r.params);
    out["objectives"] = json::array({objective});
    const job_steps& s = r.gpu.steps;
    json runtimes = json::array();
    for (double us : r.gpu.samples_us) runtimes.push_back(ms_of_us(us));
    out["times"] = {{"compilation_time", r.compile_ms},
                    {"runtimes", std::move(runtimes)},
                    {"framework", metric_or(r, framework_metric, ms_of_s(s.load_s))},
                    {"search_algorithm", metric_or(r, strategy_metric, 0)},
                    {"validation", ms_of_s(s.verify_s)},
                    {"benchmark", ms_of_s(s.warmup_s + s.samples_s)}};
    out["invalidity"] = t4_invalidity_of(r.st);
    out["correctness"] = r.st == status::wrong_result ? 0 : 1;
    json m = json::array();
    if (has_timing(r.st)) {
        const double time_ms = metric_or(r, objective_metric, ms_of_us(r.gpu.time_us.median));
        m.push_back(measurement("time", time_ms, "ms"));
        if (r.gbps > 0 && !r.metrics.count("GB/s"))
            m.push_back(measurement("GB/s", r.gbps, "GB/s"));
        if (r.gflops > 0 && !r.metrics.count("GFLOP/s"))
            m.push_back(measurement("GFLOP/s", r.gflops, "GFLOP/s"));
    }
    for (const auto& [name, v] : r.metrics) {
        if (name == objective_metric || name == framework_metric || name == strategy_metric)
            continue;
        m.push_back(measurement(name, v, name == "GB/s" || name == "GFLOP/s" ? name : ""));
    }
    const int regs = r.gpu.num_regs >= 0 ? r.gpu.num_regs : r.resources.registers;
    if (regs >= 0) m.push_back(measurement("registers", regs, ""));
    out["measurements"] = std::move(m);
    out["hone"] = hone_json(r);
    return out;
}

// ---- reading ----

struct t4_reader {
    const std::string& text;
    const std::string& path;
    std::vector<std::size_t> offsets;  // of each result

    [[noreturn]] void fail(std::size_t i, const std::string& message) const {
        throw_at_element(text, path, offsets, i, "results", message);
    }

    const json& need(std::size_t i, const json& res, const char* field, const char* what,
                     bool (json::*is)() const noexcept) const {
        if (!res.contains(field))
            fail(i, fmt::format("missing \"{}\"; a T4 result requires configuration, times, "
                                "invalidity and correctness",
                                field));
        const json& v = res[field];
        if (!(v.*is)()) fail(i, fmt::format("\"{}\" must be {}, not {}", field, what, v.dump()));
        return v;
    }

    double number(std::size_t i, const json& obj, const char* field, double fallback) const {
        if (!obj.contains(field)) return fallback;
        if (!obj[field].is_number())
            fail(i, fmt::format("\"{}\" must be a number, not {}", field, obj[field].dump()));
        return obj[field].get<double>();
    }
};

// The power of ten that turns a unit into milliseconds, for the names T4 files use, in any
// case and singular or plural. Kernel Tuner 1.5 writes "milliseconds"; the FAIR benchmark hub's
// published T4 files (converted by an earlier Kernel Tuner) write "miliseconds", so that
// spelling is milliseconds too.
std::optional<int> ms_exponent(const std::string& unit) {
    static const std::map<std::string, int> units = {
        {"s", 3},   {"second", 3}, {"ms", 0},           {"millisecond", 0}, {"milisecond", 0},
        {"us", -3}, {"µs", -3},    {"microsecond", -3}, {"ns", -6},         {"nanosecond", -6}};
    std::string u;
    for (const char c : unit) u += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (u.size() > 2 && u.back() == 's' && units.count(u.substr(0, u.size() - 1))) u.pop_back();
    const auto it = units.find(u);
    if (it == units.end()) return std::nullopt;
    return it->second;
}

param_list configuration_of(const t4_reader& rd, std::size_t i, const json& conf) {
    param_list out;
    for (const auto& [name, v] : conf.items()) {
        if (v.is_boolean()) {
            out.emplace_back(name, v.get<bool>());
        } else if (v.is_number_integer()) {
            out.emplace_back(name, v.get<int64_t>());
        } else if (v.is_number_float()) {
            out.emplace_back(name, v.get<double>());
        } else if (v.is_string()) {
            out.emplace_back(name, v.get<std::string>());
        } else {
            rd.fail(i, fmt::format("configuration: parameter '{}' = {} is not a number, boolean or "
                                   "string",
                                   name, v.dump()));
        }
    }
    if (out.empty()) rd.fail(i, "configuration: expected at least one parameter");
    return out;
}

// Restores what hone wrote under "hone"; throws for a malformed one.
void hone_extension(const t4_reader& rd, std::size_t i, const json& h, eval_record& r) {
    try {
        const auto st = parse_status(h.at("status").get<std::string>());
        if (!st) rd.fail(i, fmt::format("hone.status: unknown status {}", h.at("status").dump()));
        r.st = *st;
        r.message = h.value("message", "");
        r.gpu.output = h.value("output", "");
        r.compile_log = h.value("compile_log", "");
        r.compile_cached = h.value("compile_cached", false);
        job_result& g = r.gpu;
        g.sample_mode = h.value("sample_mode", "");
        g.timer = h.value("timer", "");
        g.gpu_busy_s = h.value("gpu_busy_s", 0.0);
        g.wall_s = h.value("wall_s", 0.0);
        const json& s = h.at("steps");
        g.steps.load_s = s.value("load_s", 0.0);
        g.steps.verify_s = s.value("verify_s", 0.0);
        g.steps.warmup_s = s.value("warmup_s", 0.0);
        g.steps.samples_s = s.value("samples_s", 0.0);
        g.steps.waits = s.value("waits", 0);
        const json& u = h.at("resources");
        r.resources.registers = u.value("registers", -1);
        r.resources.spill_store_bytes = u.value("spill_store_bytes", 0);
        r.resources.spill_load_bytes = u.value("spill_load_bytes", 0);
        r.resources.stack_bytes = u.value("stack_bytes", 0);
        r.resources.shared_static_bytes = u.value("shared_static_bytes", 0);
        r.resources.const_bytes = u.value("const_bytes", 0);
        const json& f = h.at("function");
        g.num_regs = f.value("num_regs", -1);
        g.local_bytes = f.value("local_bytes", -1);
        g.static_shared_bytes = f.value("static_shared_bytes", -1);
        g.max_threads_per_block = f.value("max_threads_per_block", -1);
        g.active_blocks_per_sm = f.value("active_blocks_per_sm", -1);
        g.occupancy = f.value("occupancy", 0.0);
        const json& l = h.at("launch");
        r.grid = l.at("grid").get<std::array<uint32_t, 3>>();
        r.block = l.at("block").get<std::array<uint32_t, 3>>();
        r.dynamic_shared_bytes = l.value("dynamic_shared_bytes", 0);
        r.gbps = h.value("gbps", 0.0);
        r.gflops = h.value("gflops", 0.0);
        r.metrics = h.at("metrics").get<std::map<std::string, double>>();
    } catch (const json::exception& e) {
        rd.fail(i, fmt::format("the \"hone\" object hone writes is malformed: {}", e.what()));
    }
}

run_identity identity_from(const json& j) {
    run_identity id;
    auto text = [&](const char* k) {
        return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string();
    };
    id.config_path = text("config_path");
    id.kernel_name = text("kernel_name");
    id.source_hash = text("source_hash");
    id.spec_hash = text("spec_hash");
    id.problem = text("problem");
    id.device_name = text("device_name");
    id.device_uuid = text("device_uuid");
    id.arch = text("arch");
    id.driver_version = j.contains("driver_version") && j["driver_version"].is_number_integer()
                            ? j["driver_version"].get<int>()
                            : 0;
    id.nvrtc_version = text("nvrtc_version");
    id.tool_version = text("tool_version");
    id.origin = text("origin");
    id.objective = text("objective");
    if (id.objective.empty()) id.objective = "time";
    return id;
}

}  // namespace

std::string write_t4(const run_records& run) {
    const std::string objective = kt_objective_of(run.identity.objective);
    json doc;
    doc["schema_version"] = t4_schema_version;
    doc["metadata"] = {{"timeunit", "milliseconds"},
                       {"tool", "hone"},
                       {"tool_version", tool_version()},
                       {"kernel_name", run.identity.kernel_name},
                       {"device_name", run.identity.device_name},
                       {"identity", to_json(run.identity)}};
    // The header indented, one result a line: readable, and a tenth of the size of indenting all.
    // Text that is not UTF-8 (a database written by another tool) is written as U+FFFD.
    std::string out = doc.dump(1, ' ', false, json::error_handler_t::replace);
    out.erase(out.find_last_of('}'));  // the document's closing brace: results follow
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    out += ",\n \"results\": [";
    // Each result dumped as it is made: the whole array as JSON values would take ten times the
    // memory of its text.
    for (std::size_t i = 0; i < run.records.size(); ++i)
        out += (i ? ",\n  " : "\n  ") + result_json(run.records[i], objective)
                                            .dump(-1, ' ', false, json::error_handler_t::replace);
    out += "\n ]\n}\n";
    return out;
}

run_records read_t4_text(const std::string& text, const std::string& path) {
    // Checked whole without building it (a positioned error comes from parsing it on failure
    // only); then the header and each result are parsed apart: 10^5 results as one document
    // took ten times the memory of the file.
    check_json_depth(text, path);
    if (!json::accept(text)) parse_json(text, path);
    const array_items span = array_items_of(text, "results");
    const bool split = span.close != std::string::npos;
    const json doc = parse_json(
        split ? text.substr(0, span.open) + "[]" + text.substr(span.close + 1) : text, path);
    auto result_at = [&](std::size_t i) {
        return split ? json::parse(array_item_text(text, span, i)) : doc["results"][i];
    };
    const std::size_t n_results =
        split ? span.items.size()
              : (doc.contains("results") && doc["results"].is_array() ? doc["results"].size() : 0);
    const std::string base = std::filesystem::path(path).filename().string();
    const source_pos file{path, 0, 0};
    if (!doc.is_object() || !doc.contains("results"))
        throw input_error(file,
                          "not T4 results: expected a JSON object with \"schema_version\" "
                          "and \"results\"");
    if (!doc.contains("schema_version") || !doc["schema_version"].is_string())
        throw input_error(file, "not T4 results: expected \"schema_version\": \"1.x.y\"");
    const std::string version = doc["schema_version"].get<std::string>();
    static const std::regex semver(R"(^1\.[0-9]+\.[0-9]+$)");
    if (!std::regex_match(version, semver))
        throw input_error(file, fmt::format("T4 schema_version \"{}\": this hone reads T4 results "
                                            "of schema version 1.x.y",
                                            version));
    if (!doc["results"].is_array())
        throw input_error(file, "T4 \"results\" must be a list of results");

    run_records out;
    const json meta =
        doc.contains("metadata") && doc["metadata"].is_object() ? doc["metadata"] : json::object();
    auto meta_text = [&](const char* k) {
        return meta.contains(k) && meta[k].is_string() ? meta[k].get<std::string>() : "";
    };
    int unit_exp = 0;  // the file's times, as a power of ten of milliseconds
    if (meta.contains("timeunit")) {
        const auto u = ms_exponent(meta_text("timeunit"));
        if (!u)
            throw input_error(file, fmt::format("metadata.timeunit {}: expected seconds, "
                                                "milliseconds, microseconds or nanoseconds",
                                                meta["timeunit"].dump()));
        unit_exp = *u;
    }
    const bool by_hone =
        meta_text("tool") == "hone" && meta.contains("identity") && meta["identity"].is_object();
    run_identity& id = out.identity;
    if (by_hone) {
        id = identity_from(meta["identity"]);
        const std::string tool = "hone " + meta_text("tool_version");
        id.origin = fmt::format("{}{} T4 ({})", id.origin,
                                id.origin.empty() ? tool : ", via " + tool, base);
    } else {
        id.kernel_name = meta_text("kernel_name");
        id.device_name = meta_text("device_name");
        const std::string tool = meta_text("tool");
        id.origin = fmt::format("{}T4 ({})", tool.empty() ? "" : tool + " ", base);
        if (id.device_name.empty())
            out.notes.push_back(
                "the file names no device (T4 keeps it in a separate metadata file)");
    }
    id.config_path = std::filesystem::absolute(path).lexically_normal().string();

    const t4_reader rd{text, path, span.items};
    std::map<std::string, std::size_t> seen;
    std::vector<std::string> names;
    std::string first_objective = "time";
    out.records.reserve(n_results);
    for (std::size_t i = 0; i < n_results; ++i) {
        const json res = result_at(i);
        if (!res.is_object()) rd.fail(i, "a result must be an object");
        eval_record r;
        r.params = configuration_of(
            rd, i, rd.need(i, res, "configuration", "an object", &json::is_object));
        const json& times = rd.need(i, res, "times", "an object", &json::is_object);
        const std::string inv =
            rd.need(i, res, "invalidity", "a string", &json::is_string).get<std::string>();
        rd.need(i, res, "correctness", "a number", &json::is_number);
        const auto st = status_of_t4_invalidity(inv);
        if (!st)
            rd.fail(i, fmt::format("invalidity \"{}\": expected one of timeout, compile, runtime, "
                                   "correctness, constraints, correct",
                                   inv));
        r.st = *st;
        std::vector<std::string> these;
        for (const auto& p : r.params) these.push_back(p.first);
        if (i == 0) names = these;
        if (these != names)
            rd.fail(i, fmt::format("configuration has parameters {}; results[0] has {}",
                                   fmt::join(these, ", "), fmt::join(names, ", ")));
        r.key = key_of(r.params);
        if (const auto [it, fresh] = seen.emplace(r.key, i); !fresh)
            rd.fail(i, fmt::format("configuration {} appears twice (also results[{}])", r.key,
                                   it->second));
        if (res.contains("timestamp")) {
            if (!res["timestamp"].is_string()) rd.fail(i, "\"timestamp\" must be a string");
            r.created_at = res["timestamp"].get<std::string>();
        }
        if (times.contains("runtimes")) {
            if (!times["runtimes"].is_array())
                rd.fail(i, "times.runtimes must be a list of numbers");
            for (const auto& x : times["runtimes"]) {
                if (!x.is_number())
                    rd.fail(i, fmt::format("times.runtimes: {} is not a number", x.dump()));
                if (!(x.get<double>() >= 0))
                    rd.fail(i, fmt::format("times.runtimes: {} is negative", x.dump()));
                r.gpu.samples_us.push_back(
                    us_of_ms(times_pow10_reversibly(x.get<double>(), unit_exp)));
            }
        }
        // Kernel Tuner's writer says "compilation", the schema "compilation_time".
        auto ms = [&](const char* field, double fallback) {
            return times_pow10_reversibly(rd.number(i, times, field, fallback), unit_exp);
        };
        r.compile_ms = ms("compilation_time", rd.number(i, times, "compilation", 0));
        const double framework = ms("framework", 0);
        const double search = ms("search_algorithm", 0);
        const double validation = ms("validation", 0);
        const double benchmark = ms("benchmark", 0);
        // Measurements: numbers are metrics; the objective's value is kept under its name.
        std::string objective = "time";
        if (res.contains("objectives") && res["objectives"].is_array() &&
            !res["objectives"].empty() && res["objectives"][0].is_string())
            objective = res["objectives"][0].get<std::string>();
        if (i == 0) first_objective = objective;
        std::optional<double> objective_ms;
        std::map<std::string, double> measured;
        if (res.contains("measurements")) {
            if (!res["measurements"].is_array()) rd.fail(i, "\"measurements\" must be a list");
            for (const auto& m : res["measurements"]) {
                if (!m.is_object() || !m.contains("name") || !m["name"].is_string())
                    rd.fail(i, fmt::format("measurement {} has no \"name\"", m.dump()));
                if (!m.contains("value") || !m["value"].is_number()) continue;  // text, lists
                const std::string name = m["name"].get<std::string>();
                const double v = m["value"].get<double>();
                measured[name] = v;
                if (name == objective) {
                    const std::string unit = m.contains("unit") && m["unit"].is_string()
                                                 ? m["unit"].get<std::string>()
                                                 : "";
                    if (const auto e = ms_exponent(unit)) {
                        objective_ms = times_pow10_reversibly(v, *e);
                    } else if (unit.empty()) {
                        objective_ms = times_pow10_reversibly(v, unit_exp);
                    }
                }
            }
        }
        if (res.contains("hone") && by_hone) {
            hone_extension(rd, i, res["hone"], r);
        } else {
            r.metrics = measured;
            if (objective == "time" && objective_ms) r.metrics[objective_metric] = *objective_ms;
            r.gpu.steps.verify_s = s_of_ms(validation);
            r.gpu.steps.samples_s = s_of_ms(benchmark);
            if (framework != 0) r.metrics[framework_metric] = framework;
            if (search != 0) r.metrics[strategy_metric] = search;
            if (auto it = r.metrics.find("GB/s"); it != r.metrics.end()) r.gbps = it->second;
            if (auto it = r.metrics.find("GFLOP/s"); it != r.metrics.end()) r.gflops = it->second;
            if (!has_timing(r.st)) r.message = "T4 invalidity: " + inv;
        }
        job_result& g = r.gpu;
        g.st = r.st;
        g.message = r.message;
        if (!g.samples_us.empty()) {
            g.time_us = summarize(g.samples_us);
        } else if (has_timing(r.st)) {
            if (!objective_ms || objective != "time")
                rd.fail(i, fmt::format("invalidity \"correct\" but no times.runtimes and no "
                                       "\"time\" measurement: nothing to rank it by"));
            summary& t = g.time_us;
            t.n = 1;
            t.median = t.mean = t.min = t.max = t.ci_low = t.ci_high = us_of_ms(*objective_ms);
        }
        out.records.push_back(std::move(r));
    }
    if (!by_hone) {
        const std::string objective = first_objective;
        const auto o = hone_objective_of(objective);
        id.objective = o.value_or("time");
        if (!o)
            out.notes.push_back(
                fmt::format("the file's objective '{}' is not one hone ranks by; "
                            "its records are ranked by time",
                            objective));
    }
    return out;
}

}  // namespace hone
