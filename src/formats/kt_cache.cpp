#include "formats/kt_cache.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

#include "formats/json_file.hpp"
#include "formats/t1_import.hpp"

namespace hone {
namespace {

// Objects as sorted maps: an ordered_json parses an object of n members in O(n^2), minutes for
// a cache of 10^5 records. The records' file order (evaluation order) comes from the text.
using sorted_json = nlohmann::json;

// Fields of a record that are not parameters and not free-form metrics.
const std::set<std::string> known_fields = {
    "time",           "times",          "compile_time",  "verification_time",
    "benchmark_time", "framework_time", "strategy_time", "timestamp"};

// A cache's SAX events made into small documents: in the header pass, the top-level members
// other than "cache"; in the records pass, each record of "cache" in turn, handed on when it
// closes. The cache as a whole is never built. Kernel Tuner writes the header first, but JSON
// does not order members: two passes read a cache whose "cache" comes first.
class cache_events {
  public:
    enum class part { header, records };
    using record_fn = std::function<void(const std::string& key, const sorted_json& record)>;

    cache_events(part p, record_fn each) : part_(p), each_(std::move(each)) {}

    bool top_object = false, cache_seen = false, cache_object = false, cache_twice = false;
    std::size_t records = 0;  // of "cache", counted in the header pass
    sorted_json header = sorted_json::object();
    std::size_t position = 0;
    std::string token, what;
    int id = 0;

    bool null() { return scalar(nullptr); }
    bool boolean(bool b) { return scalar(b); }
    bool number_integer(sorted_json::number_integer_t v) { return scalar(v); }
    bool number_unsigned(sorted_json::number_unsigned_t v) { return scalar(v); }
    bool number_float(sorted_json::number_float_t v, const std::string&) { return scalar(v); }
    bool string(std::string& v) { return scalar(std::move(v)); }
    bool binary(sorted_json::binary_t&) { return true; }  // JSON text has none
    bool start_object(std::size_t) { return open(sorted_json::object(), true); }
    bool start_array(std::size_t) { return open(sorted_json::array(), false); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool key(std::string& k) {
        if (!stack_.empty()) {
            key_ = std::move(k);
        } else if (depth_ == 1) {
            member_ = std::move(k);
        } else if (depth_ == 2 && in_cache_) {
            record_key_ = std::move(k);
        }
        return true;
    }
    bool parse_error(std::size_t at, const std::string& last, const sorted_json::exception& e) {
        position = at;
        token = last;
        id = e.id;
        what = e.what();
        return false;
    }

  private:
    enum class building { none, member, record };

    // Where a value that starts here goes: built into the header or a record, or skipped.
    building target(bool is_object) {
        if (depth_ == 0) {
            top_object = is_object;
        } else if (depth_ == 1 && top_object && member_ == "cache") {
            cache_twice = cache_twice || cache_seen;
            cache_seen = true;
            cache_object = is_object;
            in_cache_ = is_object;
        } else if (depth_ == 1 && top_object && part_ == part::header) {
            return building::member;
        } else if (depth_ == 2 && in_cache_) {
            if (part_ == part::header) {
                ++records;  // counted, so that a caller can size its lists before the first
                return building::none;
            }
            return building::record;
        }
        return building::none;
    }

    bool put(sorted_json&& v, bool container) {
        if (stack_.empty() && building_ == building::none) {
            building_ = target(container && v.is_object());
            if (building_ == building::none) return true;
            root_ = building_ == building::member ? &header[member_] : &record_;
        }
        sorted_json* slot = nullptr;
        if (stack_.empty()) {
            slot = root_;
        } else if (stack_.back()->is_array()) {
            stack_.back()->push_back(sorted_json());
            slot = &stack_.back()->back();
        } else {
            slot = &(*stack_.back())[key_];
        }
        *slot = std::move(v);
        if (container) {
            stack_.push_back(slot);
        } else if (stack_.empty()) {
            finish();
        }
        return true;
    }
    bool scalar(sorted_json&& v) { return put(std::move(v), false); }
    bool open(sorted_json&& v, bool is_object) {
        if (stack_.empty() && building_ == building::none) {
            // A container not built (the top level, "cache", a skipped member): only counted.
            const building b = target(is_object);
            if (b == building::none) {
                ++depth_;
                return true;
            }
            building_ = b;
            root_ = b == building::member ? &header[member_] : &record_;
        }
        ++depth_;
        return put(std::move(v), true);
    }
    bool close() {
        --depth_;
        if (building_ == building::none) {
            if (depth_ == 1) in_cache_ = false;
            return true;
        }
        stack_.pop_back();
        if (stack_.empty()) finish();
        return true;
    }
    void finish() {
        if (building_ == building::record) {
            each_(record_key_, record_);
            record_ = sorted_json();
        }
        building_ = building::none;
    }

    part part_;
    record_fn each_;
    std::size_t depth_ = 0;  // containers open, built or not
    bool in_cache_ = false;  // inside the "cache" object
    std::string member_, record_key_, key_;
    building building_ = building::none;
    sorted_json* root_ = nullptr;
    sorted_json record_;
    std::vector<sorted_json*> stack_;  // the containers of the value being built
};

class kt_reader {
  public:
    kt_reader(const std::string& text, const std::string& path) : text_(text), path_(path) {}

    kt_cache run(const kt_record_fn& each) {
        check_json_depth(text_, path_);
        cache_events head(cache_events::part::header, nullptr);
        parse(head);
        if (head.top_object && is_t1_members(head.header.contains("ConfigurationSpace"),
                                             head.header.contains("KernelSpecification")))
            fail({}, std::string("not a Kernel Tuner cache but ") + t1_not_results);
        if (!head.top_object || !head.cache_seen || !head.header.contains("tune_params_keys"))
            fail({},
                 "not a Kernel Tuner cache: expected a JSON object with \"tune_params_keys\", "
                 "\"tune_params\" and \"cache\"");
        const sorted_json& doc = head.header;
        kt_cache c;
        c.path = path_;
        c.device_name = text_field(doc, "device_name", true);
        c.kernel_name = text_field(doc, "kernel_name", true);
        c.objective = doc.contains("objective") ? text_field(doc, "objective", true) : "time";
        c.schema_version =
            doc.contains("schema_version") ? text_field(doc, "schema_version", true) : "";
        c.problem_size = doc.contains("problem_size") ? doc["problem_size"].dump() : "";
        read_params(doc, c);
        index_values(c);
        head.header = sorted_json();  // the parameters' values are in `c` now
        c.record_count = head.records;
        if (!head.cache_object) fail({}, "\"cache\" must be an object of records");
        // Both would be read, where a JSON document keeps the last.
        if (head.cache_twice)
            fail({}, "\"cache\" is given twice; a cache has one object of records");
        read_records(c, each);
        return c;
    }

    // The records pass alone, for a header read from this text before.
    void read_records(const kt_cache& c, const kt_record_fn& each) {
        if (value_index_.empty()) index_values(c);
        cache_events records(cache_events::part::records,
                             [&](const std::string& key, const sorted_json& rec) {
                                 each(c, key, rec, read_entry(c, key, rec));
                             });
        parse(records);
    }

  private:
    void parse(cache_events& events) const {
        if (!sorted_json::sax_parse(text_, &events))
            throw_json_error(text_, path_, events.position, events.token, events.id, events.what);
    }

    [[noreturn]] void fail(const std::string& near, const std::string& message) const {
        source_pos pos{path_, 0, 0};
        // The quoted key is unique in the file for records: point at it.
        if (!near.empty()) {
            const std::size_t at = text_.find(sorted_json(near).dump());
            if (at != std::string::npos) pos = position_in(text_, at, path_);
        }
        throw input_error(pos, message);
    }

    std::string text_field(const sorted_json& doc, const char* name, bool required) const {
        if (!doc.contains(name)) {
            if (required) fail({}, fmt::format("not a Kernel Tuner cache: no \"{}\"", name));
            return "";
        }
        if (!doc[name].is_string()) fail(name, fmt::format("\"{}\" must be a string", name));
        return doc[name].get<std::string>();
    }

    static std::optional<value> scalar(const sorted_json& j) {
        if (j.is_boolean()) return value(j.get<bool>());
        if (j.is_number_integer()) return value(j.get<int64_t>());
        if (j.is_number_float()) return value(j.get<double>());
        if (j.is_string()) return value(j.get<std::string>());
        return std::nullopt;
    }

    void read_params(const sorted_json& doc, kt_cache& c) const {
        const sorted_json& keys = doc["tune_params_keys"];
        if (!keys.is_array() || keys.empty())
            fail("tune_params_keys", "\"tune_params_keys\" must be a non-empty list of names");
        if (!doc.contains("tune_params") || !doc["tune_params"].is_object())
            fail("tune_params",
                 "not a Kernel Tuner cache: \"tune_params\" must be an object of "
                 "name: [values]");
        const sorted_json& params = doc["tune_params"];
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
                if (!s)
                    fail(name, fmt::format("parameter '{}': value {} is not a number, boolean "
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

    // Each parameter's values, found in logarithmic time (a search of the list made import
    // quadratic in its length): numbers by value (2 and 2.0 match, as Python compares them) in
    // a sorted list, 16 bytes a value (a hash table of 10^6 values took 64 MB), booleans and
    // strings by themselves. The first listed of equal values wins.
    struct value_index {
        std::vector<std::pair<double, uint32_t>> numbers;  // sorted by value, then position
        std::unordered_map<std::string, uint32_t> strings;
        std::optional<uint32_t> yes, no;
    };

    static std::optional<double> number_of(const value& v) {
        if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
        if (const auto* d = std::get_if<double>(&v)) return *d == 0 ? 0.0 : *d;  // -0.0 == 0.0
        return std::nullopt;
    }

    void index_values(const kt_cache& c) {
        value_index_.assign(c.param_values.size(), {});
        for (std::size_t p = 0; p < c.param_values.size(); ++p) {
            value_index& ix = value_index_[p];
            for (std::size_t i = 0; i < c.param_values[p].size(); ++i) {
                const value& v = c.param_values[p][i];
                const auto at = static_cast<uint32_t>(i);
                if (const auto d = number_of(v)) {
                    ix.numbers.emplace_back(*d, at);
                } else if (const auto* b = std::get_if<bool>(&v)) {
                    auto& slot = *b ? ix.yes : ix.no;
                    if (!slot) slot = at;
                } else {
                    ix.strings.emplace(std::get<std::string>(v), at);
                }
            }
            std::sort(ix.numbers.begin(), ix.numbers.end());
        }
    }

    std::optional<uint32_t> listed_index(std::size_t param, const sorted_json& got) const {
        const auto v = scalar(got);
        if (!v) return std::nullopt;
        const value_index& ix = value_index_[param];
        if (const auto d = number_of(*v)) {
            const auto it = std::lower_bound(ix.numbers.begin(), ix.numbers.end(),
                                             std::make_pair(*d, uint32_t{0}));
            if (it == ix.numbers.end() || it->first != *d) return std::nullopt;
            return it->second;
        }
        if (const auto* b = std::get_if<bool>(&*v)) return *b ? ix.yes : ix.no;
        const auto it = ix.strings.find(std::get<std::string>(*v));
        if (it == ix.strings.end()) return std::nullopt;
        return it->second;
    }

    static double number_or_zero(const sorted_json& rec, const char* name) {
        return rec.contains(name) && rec[name].is_number() ? rec[name].get<double>() : 0.0;
    }

    kt_entry read_entry(const kt_cache& c, const std::string& key, const sorted_json& rec) const {
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
        if (!rec.contains("time")) fail(key, fmt::format("record \"{}\" has no \"time\"", key));
        const sorted_json& t = rec["time"];
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
            const sorted_json& times = rec["times"];
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
    std::vector<value_index> value_index_;
};

}  // namespace

std::string kt_key(const std::vector<std::vector<value>>& values,
                   const std::vector<uint32_t>& index) {
    std::string out;
    for (std::size_t i = 0; i < values.size(); ++i) {
        const value& v = values[i][index[i]];
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

std::string kt_cache::key(const kt_entry& e) const {
    return kt_key(param_values, e.index);
}

namespace {

// Where an open cache's text is cut before the closing braces are added; nullopt: not open.
std::optional<std::size_t> open_cache_cut(const std::string& text) {
    std::size_t depth = 0;
    char open[2] = {0, 0};  // the containers open at depths 0 and 1
    bool in_string = false, escaped = false;
    for (const char ch : text) {
        if (in_string) {
            if (escaped) {
                escaped = false;
            } else if (ch == '\\') {
                escaped = true;
            } else if (ch == '"') {
                in_string = false;
            }
            continue;
        }
        if (ch == '"') {
            in_string = true;
        } else if (ch == '{' || ch == '[') {
            if (depth < 2) open[depth] = ch;
            ++depth;
        } else if ((ch == '}' || ch == ']') && depth > 0) {
            --depth;
        }
    }
    if (in_string || depth != 2 || open[0] != '{' || open[1] != '{') return std::nullopt;
    std::size_t end = text.find_last_not_of(" \t\r\n");
    if (end == std::string::npos) return std::nullopt;
    // After a record and its comma, after a record, or at the opening of the records.
    if (text[end] != ',' && text[end] != '}' && text[end] != '{') return std::nullopt;
    if (text[end] == ',') --end;
    return end + 1;
}

}  // namespace

std::optional<std::string> closed_open_cache(const std::string& text) {
    const std::optional<std::size_t> cut = open_cache_cut(text);
    if (!cut) return std::nullopt;
    return text.substr(0, *cut) + "}\n}\n";
}

bool close_open_cache(std::string& text) {
    const std::optional<std::size_t> cut = open_cache_cut(text);
    if (!cut) return false;
    text.resize(*cut);
    text += "}\n}\n";
    return true;
}

kt_cache scan_kt_cache(const std::string& text, const std::string& path, const kt_record_fn& each) {
    // Only the end changes: every line and column before it stays where the file has it.
    if (const std::optional<std::string> closed = closed_open_cache(text)) {
        kt_cache c = kt_reader(*closed, path).run(each);
        c.left_open = true;
        return c;
    }
    return kt_reader(text, path).run(each);
}

void scan_kt_records(const std::string& text, const std::string& path, const kt_cache& header,
                     const kt_record_fn& each) {
    if (header.left_open) {
        if (const std::optional<std::string> closed = closed_open_cache(text)) {
            kt_reader(*closed, path).read_records(header, each);
            return;
        }
    }
    kt_reader(text, path).read_records(header, each);
}

kt_cache parse_kt_cache(const std::string& text, const std::string& path) {
    std::vector<kt_entry> entries;
    kt_cache c = scan_kt_cache(
        text, path, [&](const kt_cache&, const std::string&, const sorted_json&, kt_entry&& e) {
            entries.push_back(std::move(e));
        });
    c.entries = std::move(entries);
    return c;
}

kt_cache read_kt_cache(const std::string& path) {
    return parse_kt_cache(read_maybe_gzip(path), path);
}

}  // namespace hone
