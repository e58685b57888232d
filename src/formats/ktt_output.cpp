#include "formats/ktt_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "common/value_key.hpp"
#include "formats/json_file.hpp"
#include "formats/json_locate.hpp"
#include "hone/error.hpp"

namespace hone {
namespace {

// KTT's TimeUnit names, as microseconds.
std::optional<double> unit_us(const std::string& unit) {
    if (unit == "Nanoseconds") return 1e-3;
    if (unit == "Microseconds") return 1.0;
    if (unit == "Milliseconds") return 1e3;
    if (unit == "Seconds") return 1e6;
    return std::nullopt;
}

struct ktt_reader {
    const std::string& text;
    const std::string& path;
    std::vector<std::size_t> offsets;  // of each result

    [[noreturn]] void fail(std::size_t i, const std::string& message) const {
        throw_at_element(text, path, offsets, i, "Results", message);
    }

    double number(std::size_t i, const nlohmann::json& res, const char* field) const {
        if (!res.contains(field)) return 0;
        const nlohmann::json& v = res[field];
        if (!v.is_number() || !std::isfinite(v.get<double>()))
            fail(i, fmt::format("\"{}\" must be a finite number, not {}", field, v.dump()));
        return v.get<double>();
    }

    value parameter_value(std::size_t i, const nlohmann::json& v, const std::string& name) const {
        if (v.is_number_integer()) {
            if (v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX)
                fail(i, fmt::format("parameter {}'s value {} is beyond a 64-bit integer", name,
                                    v.dump()));
            return value(v.get<int64_t>());
        }
        if (v.is_number_float()) return value(v.get<double>());
        if (v.is_boolean()) return value(v.get<bool>());
        if (v.is_string()) return value(v.get<std::string>());
        fail(i, fmt::format("parameter {}'s \"Value\" must be a number, boolean or string, not {}",
                            name, v.dump()));
    }
};

}  // namespace

bool looks_like_ktt_output(const std::vector<json_member>& members) {
    bool metadata = false, results = false;
    for (const json_member& m : members) {
        metadata = metadata || m.name == "Metadata";
        results = results || m.name == "Results";
    }
    return metadata && results;
}

recorded_space read_ktt_output(const std::string& text, const std::string& path) {
    const source_pos at{path, 0, 0};
    // Checked whole without building it (a positioned error comes from parsing it on failure
    // only); then the header and each result are parsed apart, as T4 results are: a document
    // of the whole file takes many times its size.
    check_json_depth(text, path);
    if (!nlohmann::json::accept(text)) (void)parse_json(text, path);
    const array_items span = array_items_of(text, "Results");
    if (span.close == std::string::npos)
        throw input_error(at, "KTT output: \"Results\" must be an array");
    const nlohmann::json doc =
        parse_json_unordered(text.substr(0, span.open) + "[]" + text.substr(span.close + 1), path);
    const nlohmann::json& meta = doc.at("Metadata");
    if (!meta.is_object()) throw input_error(at, "KTT output: \"Metadata\" must be an object");
    if (span.items.empty()) throw input_error(at, "KTT output: \"Results\" is empty");
    const std::string unit_name = meta.contains("TimeUnit") && meta["TimeUnit"].is_string()
                                      ? meta["TimeUnit"].get<std::string>()
                                      : "";
    const auto unit = unit_us(unit_name);
    if (!unit)
        throw input_error(at, fmt::format("KTT output: \"Metadata\".\"TimeUnit\" must be "
                                          "Nanoseconds, Microseconds, Milliseconds or Seconds, "
                                          "not '{}'",
                                          unit_name));
    ktt_reader rd{text, path, span.items};

    recorded_space r;
    r.path = path;
    r.format = "KTT output";
    if (meta.contains("Device") && meta["Device"].is_string())
        r.device = meta["Device"].get<std::string>();
    r.objective = "time";
    r.unit = "us";
    r.ranked_value = "the file's TotalDuration of each configuration (its kernels' durations)";
    std::vector<std::unordered_map<std::string, uint32_t>> index;
    std::vector<std::vector<value>> raw;  // each result's values, in parameter order
    for (std::size_t i = 0; i < span.items.size(); ++i) {
        const nlohmann::json res = nlohmann::json::parse(array_item_text(text, span, i));
        if (!res.is_object()) rd.fail(i, "a result must be an object");
        if (!res.contains("Configuration") || !res["Configuration"].is_array())
            rd.fail(i, "\"Configuration\" must be an array of {\"Name\", \"Value\"}");
        const nlohmann::json& conf = res["Configuration"];
        if (i == 0) {
            for (const nlohmann::json& c : conf) {
                if (!c.is_object() || !c.contains("Name") || !c["Name"].is_string())
                    rd.fail(i, "each \"Configuration\" entry needs a string \"Name\"");
                r.names.push_back(c["Name"].get<std::string>());
            }
            if (r.names.empty()) rd.fail(i, "\"Configuration\" names no parameter");
            r.values.resize(r.names.size());
            index.resize(r.names.size());
            if (res.contains("KernelName") && res["KernelName"].is_string())
                r.kernel = res["KernelName"].get<std::string>();
        }
        if (conf.size() != r.names.size())
            rd.fail(i, fmt::format("{} parameters where the first result has {}", conf.size(),
                                   r.names.size()));
        std::vector<value> vs;
        std::string key;
        for (std::size_t k = 0; k < conf.size(); ++k) {
            const nlohmann::json& c = conf[k];
            if (!c.is_object() || !c.contains("Name") || c["Name"] != r.names[k])
                rd.fail(i, fmt::format("parameter {} must be '{}', as in the first result", k,
                                       r.names[k]));
            if (!c.contains("Value"))
                rd.fail(i, fmt::format("parameter {} has no \"Value\"", r.names[k]));
            vs.push_back(rd.parameter_value(i, c["Value"], r.names[k]));
            if (index[k].emplace(value_key(vs.back()), 0).second) r.values[k].push_back(vs.back());
            key += (k ? "," : "") + display_text(vs.back());
        }
        raw.push_back(std::move(vs));
        r.keys.push_back(std::move(key));
        if (!res.contains("Status") || !res["Status"].is_string())
            rd.fail(i, "\"Status\" must be a string (\"Ok\" or KTT's failure)");
        const double total = rd.number(i, res, "TotalDuration");
        const double overhead = rd.number(i, res, "TotalOverhead");
        r.outcome.push_back(res["Status"] == "Ok" && total > 0
                                ? std::optional<double>(total * *unit)
                                : std::nullopt);
        r.cost_s.push_back(std::max(0.0, total + overhead) * *unit / 1e6);
    }
    sort_values(r.values, index);
    for (const auto& vs : raw) {
        point p;
        for (std::size_t k = 0; k < vs.size(); ++k) p.push_back(index[k].at(value_key(vs[k])));
        r.points.push_back(std::move(p));
    }
    r.finish();
    return r;
}

}  // namespace hone
