#include "formats/kt_cache_writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "common/input_limits.hpp"
#include "hone/error.hpp"

namespace hone {
namespace {

using json = nlohmann::ordered_json;

json value_json(const value& v) {
    json j;
    std::visit([&](const auto& x) { j = x; }, v);
    return j;
}

// "N=16777216,M=4" (hone) -> [16777216, 4]; an imported run's own text ("[4096, 4096]", "20000000")
// is given back as it was.
json problem_json(const std::string& problem) {
    if (problem.empty()) return json::array();
    // Written back as JSON only when it is shallow: a stored text nested deeper than hone reads
    // would be printed recursively.
    const json parsed = json_too_deep(problem) == std::string::npos
                            ? json::parse(problem, nullptr, false)
                            : json(json::value_t::discarded);
    if (!parsed.is_discarded() && (parsed.is_array() || parsed.is_number())) return parsed;
    json out = json::array();
    std::size_t at = 0;
    while (at < problem.size()) {
        const std::size_t comma = std::min(problem.find(',', at), problem.size());
        const std::string part = problem.substr(at, comma - at);
        const std::size_t eq = part.find('=');
        const std::string num = eq == std::string::npos ? part : part.substr(eq + 1);
        try {
            out.push_back(std::stoll(num));
        } catch (const std::exception&) {
            return problem;  // not sizes: keep the text
        }
        at = comma + 1;
    }
    return out;
}

// Numbers (and booleans) ascending, before strings, which keep their order.
bool number_first_less(const value& a, const value& b) {
    auto num = [](const value& v) -> std::pair<bool, double> {
        if (auto* i = std::get_if<int64_t>(&v)) return {false, static_cast<double>(*i)};
        if (auto* d = std::get_if<double>(&v)) return {false, *d};
        if (auto* b = std::get_if<bool>(&v)) return {false, *b ? 1.0 : 0.0};
        return {true, 0.0};
    };
    return num(a) < num(b);
}

}  // namespace

std::string write_kt_cache(const run_records& run) {
    std::vector<std::string> names;
    if (!run.records.empty())
        for (const auto& p : run.records.front().params) names.push_back(p.first);
    // Each parameter's values, in the order the records first use them; numbers ascending.
    std::vector<std::vector<value>> values(names.size());
    for (const auto& r : run.records) {
        if (r.params.size() != names.size() ||
            !std::equal(names.begin(), names.end(), r.params.begin(),
                        [](const std::string& n, const auto& p) { return n == p.first; }))
            throw input_error({}, fmt::format("configuration {} has other parameters than {}: "
                                              "a Kernel Tuner cache holds one space",
                                              r.key, run.records.front().key));
        for (std::size_t i = 0; i < names.size(); ++i) {
            auto& vs = values[i];
            if (std::find(vs.begin(), vs.end(), r.params[i].second) == vs.end())
                vs.push_back(r.params[i].second);
        }
    }
    for (auto& vs : values) std::stable_sort(vs.begin(), vs.end(), number_first_less);

    const run_identity& id = run.identity;
    json doc;
    doc["device_name"] = id.device_name;
    doc["kernel_name"] = id.kernel_name;
    doc["problem_size"] = problem_json(id.problem);
    doc["tune_params_keys"] = names;
    json params = json::object();
    for (std::size_t i = 0; i < names.size(); ++i) {
        json list = json::array();
        for (const auto& v : values[i]) list.push_back(value_json(v));
        params[names[i]] = std::move(list);
    }
    doc["tune_params"] = std::move(params);
    doc["objective"] = kt_objective_of(id.objective);
    // Written record by record: an ordered_json object of 10^5 members would take minutes.
    std::string body;
    std::set<std::string> keys;
    for (const auto& r : run.records) {
        json rec = json::object();
        std::string key;
        for (const auto& [name, v] : r.params) {
            rec[name] = value_json(v);
            key += (key.empty() ? "" : ",") + python_text(v);
        }
        auto metric = [&](const char* name, double fallback) {
            const auto it = r.metrics.find(name);
            return it == r.metrics.end() ? fallback : it->second;
        };
        if (const char* failure = kt_failure_of(r.st)) {
            rec["time"] = failure;
        } else {
            rec["time"] = metric(objective_metric, ms_of_us(r.gpu.time_us.median));
        }
        if (!r.gpu.samples_us.empty()) {
            json times = json::array();
            for (double us : r.gpu.samples_us) times.push_back(ms_of_us(us));
            rec["times"] = std::move(times);
        }
        const job_steps& s = r.gpu.steps;
        rec["compile_time"] = r.compile_ms;
        rec["verification_time"] = ms_of_s(s.verify_s);
        rec["benchmark_time"] = ms_of_s(s.warmup_s + s.samples_s);
        rec["framework_time"] = metric(framework_metric, ms_of_s(s.load_s));
        rec["strategy_time"] = metric(strategy_metric, 0);
        if (!r.created_at.empty()) rec["timestamp"] = r.created_at;
        for (const auto& [name, v] : r.metrics) {
            if (name == objective_metric || name == framework_metric || name == strategy_metric ||
                rec.contains(name))
                continue;
            rec[name] = v;
        }
        if (r.gbps > 0 && !rec.contains("GB/s")) rec["GB/s"] = r.gbps;
        if (r.gflops > 0 && !rec.contains("GFLOP/s")) rec["GFLOP/s"] = r.gflops;
        if (!keys.insert(key).second)
            throw input_error({}, fmt::format("two configurations have the Kernel Tuner key \"{}\" "
                                              "(one is {}): a cache cannot hold both",
                                              key, r.key));
        // Text that is not UTF-8 (a database written by another tool) is written as U+FFFD.
        body += (body.empty() ? "\n" : ",\n") +
                json(key).dump(-1, ' ', false, json::error_handler_t::replace) + ": " +
                rec.dump(-1, ' ', false, json::error_handler_t::replace);
    }
    // One record a line, as Kernel Tuner writes it: the header indented, records compact.
    std::string out = doc.dump(1, ' ', false, json::error_handler_t::replace);
    out.pop_back();  // the closing brace
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    out += ",\n\"cache\": {" + body;
    out += "\n}\n}\n";
    return out;
}

}  // namespace hone
