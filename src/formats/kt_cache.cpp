#include "formats/kt_cache.hpp"

#include <fmt/format.h>

#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

#include "formats/json_file.hpp"
#include "formats/json_locate.hpp"

namespace hone {
namespace {

// Objects as sorted maps: an ordered_json parses an object of n members in O(n^2), minutes for
// a cache of 10^5 records. The records' file order (evaluation order) comes from the text.
using json = nlohmann::json;

// Fields of a record that are not parameters and not free-form metrics.
const std::set<std::string> known_fields = {
    "time",           "times",          "compile_time",  "verification_time", "benchmark_time",
    "framework_time", "strategy_time",  "timestamp"};

class reader {
  public:
    reader(const std::string& text, const std::string& path) : text_(text), path_(path) {}

    kt_cache run() { return run(parse_json_unordered(text_, path_)); }

    kt_cache run(const json& doc) {
        if (!doc.is_object() || !doc.contains("cache") || !doc.contains("tune_params_keys"))
            fail({}, "not a Kernel Tuner cache: expected a JSON object with \"tune_params_keys\", "
                     "\"tune_params\" and \"cache\"");
        kt_cache c;
        c.path = path_;
        c.device_name = text_field(doc, "device_name", true);
        c.kernel_name = text_field(doc, "kernel_name", true);
        c.objective = doc.contains("objective") ? text_field(doc, "objective", true) : "time";
        c.schema_version = doc.contains("schema_version") ? text_field(doc, "schema_version", true)
                                                          : "";
        c.problem_size = doc.contains("problem_size") ? doc["problem_size"].dump() : "";
        read_params(doc, c);
        index_values(c);
        const json& cache = doc["cache"];
        if (!cache.is_object()) fail({}, "\"cache\" must be an object of records");
        c.entries.reserve(cache.size());
        for (const std::string& key : object_member_keys(text_, "cache"))
            c.entries.push_back(read_entry(c, key, cache.at(key)));
        return c;
    }

  private:
    [[noreturn]] void fail(const std::string& near, const std::string& message) const {
        source_pos pos{path_, 0, 0};
        // The quoted key is unique in the file for records: point at it.
        if (!near.empty()) {
            const std::size_t at = text_.find(json(near).dump());
            if (at != std::string::npos) pos = position_in(text_, at, path_);
        }
        throw input_error(pos, message);
    }

    std::string text_field(const json& doc, const char* name, bool required) const {
        if (!doc.contains(name)) {
            if (required) fail({}, fmt::format("not a Kernel Tuner cache: no \"{}\"", name));
            return "";
        }
        if (!doc[name].is_string()) fail(name, fmt::format("\"{}\" must be a string", name));
        return doc[name].get<std::string>();
    }

    static std::optional<value> scalar(const json& j) {
        if (j.is_boolean()) return value(j.get<bool>());
        if (j.is_number_integer()) return value(j.get<int64_t>());
        if (j.is_number_float()) return value(j.get<double>());
        if (j.is_string()) return value(j.get<std::string>());
        return std::nullopt;
    }

    void read_params(const json& doc, kt_cache& c) const {
        const json& keys = doc["tune_params_keys"];
        if (!keys.is_array() || keys.empty())
            fail("tune_params_keys", "\"tune_params_keys\" must be a non-empty list of names");
        if (!doc.contains("tune_params") || !doc["tune_params"].is_object())
            fail("tune_params", "not a Kernel Tuner cache: \"tune_params\" must be an object of "
                                "name: [values]");
        const json& params = doc["tune_params"];
        for (const auto& k : keys) {
            if (!k.is_string()) fail("tune_params_keys", "\"tune_params_keys\" must hold strings");
            const std::string name = k.get<std::string>();
            if (!params.contains(name) || !params[name].is_array() || params[name].empty())
                fail(name, fmt::format("parameter '{}' of \"tune_params_keys\" has no list of "
                                       "values in \"tune_params\"",
                                       name));
            std::vector<value> values;
            for (const auto& v : params[name]) {
                auto s = scalar(v);
                if (!s) fail(name, fmt::format("parameter '{}': value {} is not a number, boolean "
                                               "or string",
                                               name, v.dump()));
                values.push_back(*s);
            }
            c.param_names.push_back(name);
            c.param_values.push_back(std::move(values));
        }
        for (const auto& [name, v] : params.items()) {
            if (std::find(c.param_names.begin(), c.param_names.end(), name) == c.param_names.end())
                fail(name, fmt::format("parameter '{}' of \"tune_params\" is not in "
                                       "\"tune_params_keys\"",
                                       name));
        }
    }

    // Equal keys for values a record may give for a listed one: numbers by value (2 and 2.0
    // match, as Python compares them), booleans and strings by themselves.
    static std::string match_key(const value& v) {
        auto number = [](double d) {
            if (d == 0) d = 0;  // -0.0 == 0.0
            char bits[sizeof d];
            std::memcpy(bits, &d, sizeof d);
            return std::string(1, 'n') + std::string(bits, sizeof bits);
        };
        if (const auto* i = std::get_if<int64_t>(&v)) return number(static_cast<double>(*i));
        if (const auto* d = std::get_if<double>(&v)) return number(*d);
        if (const auto* b = std::get_if<bool>(&v)) return *b ? "T" : "F";
        return "s" + std::get<std::string>(v);
    }

    // Each parameter's values by match key, the first listed winning: a record's value is
    // found in constant time (a search of the list made import quadratic in its length).
    void index_values(const kt_cache& c) {
        value_index_.assign(c.param_values.size(), {});
        for (std::size_t p = 0; p < c.param_values.size(); ++p) {
            value_index_[p].reserve(c.param_values[p].size());
            for (std::size_t i = 0; i < c.param_values[p].size(); ++i)
                value_index_[p].emplace(match_key(c.param_values[p][i]), static_cast<uint32_t>(i));
        }
    }

    std::optional<uint32_t> listed_index(std::size_t param, const json& got) const {
        const auto v = scalar(got);
        if (!v) return std::nullopt;
        const auto& index = value_index_[param];
        const auto it = index.find(match_key(*v));
        if (it == index.end()) return std::nullopt;
        return it->second;
    }

    static double number_or_zero(const json& rec, const char* name) {
        return rec.contains(name) && rec[name].is_number() ? rec[name].get<double>() : 0.0;
    }

    kt_entry read_entry(const kt_cache& c, const std::string& key, const json& rec) const {
        if (!rec.is_object()) fail(key, fmt::format("record \"{}\" must be an object", key));
        kt_entry e;
        for (std::size_t i = 0; i < c.param_names.size(); ++i) {
            const std::string& name = c.param_names[i];
            if (!rec.contains(name))
                fail(key, fmt::format("record \"{}\" has no value for parameter '{}'", key, name));
            const auto at = listed_index(i, rec[name]);
            if (!at)
                fail(key, fmt::format("record \"{}\": {} = {} is not one of the values "
                                      "\"tune_params\" lists",
                                      key, name, rec[name].dump()));
            e.index.push_back(*at);
        }
        if (!rec.contains("time"))
            fail(key, fmt::format("record \"{}\" has no \"time\"", key));
        const json& t = rec["time"];
        if (t.is_number()) {
            e.time_ms = t.get<double>();
            if (!(e.time_ms >= 0))  // NaN too: a time that would rank best or nowhere
                fail(key, fmt::format("record \"{}\": time {} is negative", key, t.dump()));
        } else if (t.is_string()) {
            e.failure = t.get<std::string>();
            bool known = false;
            for (const char* f : kt_failures) known = known || e.failure == f;
            if (!known)
                fail(key, fmt::format("record \"{}\": time is the string \"{}\"; expected a number "
                                      "or one of InvalidConfig, CompilationFailedConfig, "
                                      "RuntimeFailedConfig",
                                      key, e.failure));
        } else {
            fail(key, fmt::format("record \"{}\": time must be a number or a failure name, not {}",
                                  key, t.dump()));
        }
        if (rec.contains("times")) {
            const json& times = rec["times"];
            if (!times.is_array())
                fail(key, fmt::format("record \"{}\": \"times\" must be a list of numbers, not {}",
                                      key, times.dump().substr(0, 40)));
            for (const auto& x : times) {
                if (!x.is_number() || !(x.get<double>() >= 0))
                    fail(key, fmt::format("record \"{}\": \"times\" holds {}; expected raw "
                                          "times, numbers of 0 or more (ms)",
                                          key, x.dump().substr(0, 40)));
                e.times_ms.push_back(x.get<double>());
            }
        }
        e.compile_time_ms = number_or_zero(rec, "compile_time");
        e.verification_time_ms = number_or_zero(rec, "verification_time");
        e.benchmark_time_ms = number_or_zero(rec, "benchmark_time");
        e.framework_time_ms = number_or_zero(rec, "framework_time");
        e.strategy_time_ms = number_or_zero(rec, "strategy_time");
        if (rec.contains("timestamp") && rec["timestamp"].is_string())
            e.timestamp = rec["timestamp"].get<std::string>();
        for (const auto& [name, v] : rec.items()) {
            if (known_fields.count(name) || !v.is_number()) continue;
            if (std::find(c.param_names.begin(), c.param_names.end(), name) != c.param_names.end())
                continue;
            e.metrics[name] = v.get<double>();
        }
        return e;
    }

    const std::string& text_;
    const std::string& path_;
    std::vector<std::unordered_map<std::string, uint32_t>> value_index_;
};

}  // namespace

std::string kt_cache::key(const kt_entry& e) const {
    std::string out;
    for (std::size_t i = 0; i < param_names.size(); ++i) {
        const value& v = value_of(e, i);
        // Python's str(): True/False, reals as repr.
        std::string text;
        if (auto* b = std::get_if<bool>(&v)) {
            text = *b ? "True" : "False";
        } else {
            text = template_text(v);
        }
        out += (i ? "," : "") + text;
    }
    return out;
}

kt_cache parse_kt_cache(const std::string& text, const std::string& path) {
    return reader(text, path).run();
}

kt_cache kt_cache_from_json(const nlohmann::json& doc, const std::string& text,
                            const std::string& path) {
    return reader(text, path).run(doc);
}

kt_cache read_kt_cache(const std::string& path) {
    return parse_kt_cache(read_maybe_gzip(path), path);
}

}  // namespace hone
