// Wisdom files: one JSON object per (kernel identity, device, problem sizes), one configuration
// a line, so that re-tuning one size is a small diff. Read back with every field checked.
#include "hone/wisdom.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/input_limits.hpp"
#include "formats/json_file.hpp"
#include "formats/output_file.hpp"
#include "hone/error.hpp"
#include "hone/final_word.hpp"
#include "hone/record.hpp"
#include "hone/store.hpp"
#include "record/params_json.hpp"
#include "report/report.hpp"
#include "store/sqlite_util.hpp"

namespace hone {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

constexpr const char* wisdom_format = "hone-wisdom";
constexpr int wisdom_version = 1;

std::string number(double v) {
    return fmt::format("{:.6g}", v);
}

// Text that is not UTF-8 (a database written by another tool) is written as U+FFFD.
std::string str(const std::string& s) {
    return json(s).dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string params_line(const std::vector<std::pair<std::string, value>>& params) {
    std::string out = "{";
    const json j = params_to_json(params);
    bool first = true;
    for (const auto& [name, v] : j.items()) {
        out += fmt::format("{}{}: {}", first ? "" : ", ", str(name),
                           v.dump(-1, ' ', false, json::error_handler_t::replace));
        first = false;
    }
    return out + "}";
}

void write_entry(std::string& out, const tuned_entry& e, std::size_t keep, bool last) {
    std::string problem = "{";
    for (std::size_t i = 0; i < e.problem.size(); ++i)
        problem +=
            fmt::format("{}{}: {}", i ? ", " : "", str(e.problem[i].first), e.problem[i].second);
    problem += "}";
    out += "    {\n";
    out += fmt::format("      \"kernel\": {},\n", str(e.kernel));
    out += fmt::format("      \"config\": {},\n", str(e.config));
    out += fmt::format("      \"problem\": {},\n", problem);
    out += fmt::format(
        "      \"device\": {{\"name\": {}, \"uuid\": {}, \"arch\": {}, \"driver\": {}}},\n",
        str(e.device_name), str(e.device_uuid), str(e.arch), e.driver_version);
    out += fmt::format("      \"nvrtc\": {},\n", str(e.nvrtc_version));
    out += fmt::format("      \"hone\": {},\n", str(e.tool_version));
    out += fmt::format("      \"origin\": {},\n", str(e.origin));
    out += fmt::format("      \"source_hash\": {},\n", str(e.source_hash));
    out += fmt::format("      \"spec_hash\": {},\n", str(e.spec_hash));
    out += fmt::format("      \"tuned_at\": {},\n", str(e.tuned_at));
    out += fmt::format("      \"objective\": {},\n", str(e.objective));
    out += fmt::format("      \"ranked\": {},\n", e.ranked);
    if (!e.decided_by.empty()) out += fmt::format("      \"decided_by\": {},\n", str(e.decided_by));
    const tuned_config& best = e.configs.front();
    out += fmt::format("      \"best\": {{\"params\": {}, \"time_us\": {}, \"value\": {}}},\n",
                       params_line(best.params), number(best.time_us), number(best.objective));
    const std::size_t n = keep == 0 ? e.configs.size() : std::min(keep, e.configs.size());
    if (n <= 1) {
        out += "      \"runners_up\": []\n";
    } else {
        out += "      \"runners_up\": [\n";
        for (std::size_t i = 1; i < n; ++i) {
            const tuned_config& c = e.configs[i];
            out += fmt::format(
                "        {{\"params\": {}, \"time_us\": {}, \"value\": {}, \"rel\": {}}}{}\n",
                params_line(c.params), number(c.time_us), number(c.objective), number(c.rel),
                i + 1 < n ? "," : "");
        }
        out += "      ]\n";
    }
    out += last ? "    }\n" : "    },\n";
}

// ---- reading ----

[[noreturn]] void bad(const std::string& file, const std::string& where, const std::string& what) {
    throw input_error({file, 0, 0}, where.empty() ? what : fmt::format("{}: {}", where, what));
}

const char* kind_of(const json& j) {
    if (j.is_null()) return "null";
    if (j.is_boolean()) return "a boolean";
    if (j.is_number()) return "a number";
    if (j.is_string()) return "a string";
    if (j.is_array()) return "an array";
    return "an object";
}

struct wisdom_reader {
    const std::string& file;

    const json& field(const json& obj, const char* name, const std::string& where) const {
        const auto it = obj.find(name);
        if (it == obj.end()) bad(file, where, fmt::format("missing \"{}\"", name));
        return *it;
    }
    const json& object(const json& obj, const char* name, const std::string& where) const {
        const json& j = field(obj, name, where);
        if (!j.is_object())
            bad(file, where + "." + name, fmt::format("expected an object, got {}", kind_of(j)));
        return j;
    }
    std::string text(const json& obj, const char* name, const std::string& where,
                     bool required = true) const {
        const auto it = obj.find(name);
        if (it == obj.end()) {
            if (required) bad(file, where, fmt::format("missing \"{}\"", name));
            return {};
        }
        if (!it->is_string())
            bad(file, where + "." + name, fmt::format("expected a string, got {}", kind_of(*it)));
        return it->get<std::string>();
    }
    int64_t integer(const json& obj, const char* name, const std::string& where,
                    bool required = true) const {
        const auto it = obj.find(name);
        if (it == obj.end()) {
            if (required) bad(file, where, fmt::format("missing \"{}\"", name));
            return 0;
        }
        if (!it->is_number_integer())
            bad(file, where + "." + name, fmt::format("expected an integer, got {}", kind_of(*it)));
        return it->get<int64_t>();
    }
    double positive(const json& obj, const char* name, const std::string& where) const {
        const json& j = field(obj, name, where);
        if (!j.is_number() || !(j.get<double>() > 0))
            bad(file, where + "." + name,
                fmt::format("expected a positive number, got {}", j.dump()));
        return j.get<double>();
    }
    std::vector<std::pair<std::string, value>> params(const json& obj,
                                                      const std::string& where) const {
        const json& j = object(obj, "params", where);
        std::vector<std::pair<std::string, value>> out;
        for (const auto& [name, x] : j.items()) {
            if (x.is_boolean())
                out.emplace_back(name, x.get<bool>());
            else if (x.is_number_integer())
                out.emplace_back(name, x.get<int64_t>());
            else if (x.is_number_float())
                out.emplace_back(name, x.get<double>());
            else if (x.is_string())
                out.emplace_back(name, x.get<std::string>());
            else
                bad(file, fmt::format("{}.params.{}", where, name),
                    fmt::format("expected a number, boolean or string, got {}", kind_of(x)));
        }
        if (out.empty()) bad(file, where + ".params", "expected at least one parameter");
        return out;
    }
    tuned_config config(const json& obj, const std::string& where, bool best) const {
        if (!obj.is_object())
            bad(file, where, fmt::format("expected an object, got {}", kind_of(obj)));
        tuned_config c;
        c.params = params(obj, where);
        c.time_us = positive(obj, "time_us", where);
        c.objective = positive(obj, "value", where);
        c.rel = best ? 1.0 : positive(obj, "rel", where);
        if (c.rel < 1.0 - 1e-9)
            bad(file, where + ".rel",
                fmt::format("expected >= 1 (a runner-up's time over the best's), got {}", c.rel));
        return c;
    }

    tuned_entry entry(const json& j, const std::string& where) const {
        if (!j.is_object()) bad(file, where, fmt::format("expected an object, got {}", kind_of(j)));
        tuned_entry e;
        e.kernel = text(j, "kernel", where);
        e.config = text(j, "config", where, false);
        const json& problem = object(j, "problem", where);
        for (const auto& [name, v] : problem.items()) {
            if (!v.is_number_integer())
                bad(file, fmt::format("{}.problem.{}", where, name),
                    fmt::format("expected an integer, got {}", kind_of(v)));
            e.problem.emplace_back(name, v.get<int64_t>());
        }
        const json& dev = object(j, "device", where);
        e.device_name = text(dev, "name", where + ".device");
        e.device_uuid = text(dev, "uuid", where + ".device", false);
        e.arch = text(dev, "arch", where + ".device");
        e.driver_version = static_cast<int>(integer(dev, "driver", where + ".device", false));
        e.nvrtc_version = text(j, "nvrtc", where, false);
        e.tool_version = text(j, "hone", where, false);
        e.origin = text(j, "origin", where, false);
        e.source_hash = text(j, "source_hash", where);
        e.spec_hash = text(j, "spec_hash", where, false);
        e.tuned_at = text(j, "tuned_at", where, false);
        e.objective = text(j, "objective", where);
        e.decided_by = text(j, "decided_by", where, false);
        if (e.objective != "time" && e.objective != "gbps" && e.objective != "gflops")
            bad(file, where + ".objective",
                fmt::format("expected time, gbps or gflops, got \"{}\"", e.objective));
        e.configs.push_back(config(field(j, "best", where), where + ".best", true));
        const json& rest = field(j, "runners_up", where);
        if (!rest.is_array())
            bad(file, where + ".runners_up",
                fmt::format("expected an array, got {}", kind_of(rest)));
        for (std::size_t i = 0; i < rest.size(); ++i)
            e.configs.push_back(config(rest[i], fmt::format("{}.runners_up[{}]", where, i), false));
        const int64_t ranked = integer(j, "ranked", where, false);
        e.ranked = ranked > 0 ? static_cast<std::size_t>(ranked) : e.configs.size();
        if (e.ranked < e.configs.size())
            bad(file, where + ".ranked",
                fmt::format("{} is fewer than the {} configurations listed", e.ranked,
                            e.configs.size()));
        return e;
    }
};

// Line and column (1-based) of byte offset `at` (1-based, as nlohmann reports it).
source_pos position(const std::string& file, const std::string& text, std::size_t at) {
    source_pos p{file, 1, 1};
    const std::size_t end = std::min(at > 0 ? at - 1 : 0, text.size());
    for (std::size_t i = 0; i < end; ++i) {
        if (text[i] == '\n') {
            ++p.line;
            p.column = 1;
        } else {
            ++p.column;
        }
    }
    return p;
}

std::string parse_message(const std::string& what) {
    // "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error ..."
    const std::size_t col = what.find("column ");
    const std::size_t colon = col == std::string::npos ? std::string::npos : what.find(": ", col);
    return colon == std::string::npos ? what : what.substr(colon + 2);
}

std::vector<std::pair<std::string, int64_t>> parse_problem(const std::string& text) {
    std::vector<std::pair<std::string, int64_t>> out;
    std::istringstream in(text);
    for (std::string part; std::getline(in, part, ',');) {
        const std::size_t eq = part.find('=');
        if (eq == std::string::npos) continue;
        try {
            out.emplace_back(part.substr(0, eq), std::stoll(part.substr(eq + 1)));
        } catch (const std::exception&) {
            throw env_error(fmt::format(
                "a stored run names the problem '{}': expected NAME=INTEGER pairs", text));
        }
    }
    return out;
}

double objective_value(const eval_record& r, rank_by by) {
    switch (by) {
        case rank_by::gbps:
            return r.gbps;
        case rank_by::gflops:
            return r.gflops;
        default:
            return r.gpu.time_us.median;
    }
}

// Fills each configuration's key once, so that selection matches configurations by text.
void index_keys(std::vector<tuned_entry>& entries) {
    for (auto& e : entries)
        for (auto& c : e.configs) c.key = config_key(c.params);
}

}  // namespace

std::string config_key(const std::vector<std::pair<std::string, value>>& params) {
    std::vector<const std::pair<std::string, value>*> sorted;
    for (const auto& p : params) sorted.push_back(&p);
    std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->first < b->first; });
    std::string out;
    for (const auto* p : sorted) {
        if (!out.empty()) out += ',';
        out += p->first;
        out += '=';
        out += display_text(p->second);
    }
    return out;
}

std::string tuned_entry::problem_text() const {
    std::string out;
    for (const auto& [name, v] : problem)
        out += fmt::format("{}{}={}", out.empty() ? "" : ",", name, v);
    return out;
}

std::vector<tuned_entry> parse_wisdom(const std::string& text, const std::string& path) {
    json root;
    check_json_depth(text, path);
    try {
        root = json::parse(text);
    } catch (const json::out_of_range&) {
        parse_json(text, path);  // throws the input_error with the number's position
        throw;
    } catch (const json::parse_error& e) {
        throw input_error(position(path, text, e.byte),
                          fmt::format("not valid JSON ({}); expected a hone wisdom file written by "
                                      "`hone export DB --wisdom FILE`",
                                      parse_message(e.what())));
    }
    const wisdom_reader r{path};
    if (!root.is_object() || !root.contains("format"))
        bad(path, "",
            "not a hone wisdom file: expected a JSON object with \"format\": \"hone-wisdom\" "
            "(write one with `hone export DB --wisdom FILE`)");
    const json& format = root["format"];
    if (!format.is_string() || format.get<std::string>() != wisdom_format)
        bad(path, "format",
            fmt::format("{} is not a hone wisdom file: expected \"hone-wisdom\"", format.dump()));
    const json& version = r.field(root, "version", "");
    if (!version.is_number_integer())
        bad(path, "version", fmt::format("expected an integer, got {}", kind_of(version)));
    if (version.get<int64_t>() != wisdom_version)
        bad(path, "version",
            fmt::format("wisdom version {}; this hone ({}) reads version {}: export it again with "
                        "this hone",
                        version.get<int64_t>(), tool_version(), wisdom_version));
    const json& entries = r.field(root, "entries", "");
    if (!entries.is_array())
        bad(path, "entries", fmt::format("expected an array, got {}", kind_of(entries)));
    std::vector<tuned_entry> out;
    for (std::size_t i = 0; i < entries.size(); ++i)
        out.push_back(r.entry(entries[i], fmt::format("entries[{}]", i)));
    index_keys(out);
    return out;
}

std::vector<tuned_entry> tuned_from_db(const std::string& db_path) {
    return tuned_from_db(db_path, {});
}

std::vector<tuned_entry> tuned_from_db(const std::string& db_path,
                                       const std::set<std::string>& run_ids) {
    results_store store(db_path, store_access::read_only);
    std::vector<tuned_entry> out;
    for (const run_identity& run : store.runs()) {
        if (!run_ids.empty() && !run_ids.count(run.id())) continue;
        const std::vector<eval_record> records = store.query({run.id(), "", 0, true});
        // A stored objective this hone does not know (a damaged or newer database) is refused
        // naming the database; an empty one is time, as everywhere a run is ranked.
        const rank_by by =
            parse_rank_by(run.objective.empty() ? "time" : run.objective, {db_path, 0, 0});
        auto order = ranked(records, by);
        if (order.empty()) continue;
        tuned_entry e;
        e.kernel = run.kernel_name;
        e.config = run.config_path;
        e.source_hash = run.source_hash;
        e.spec_hash = run.spec_hash;
        e.device_name = run.device_name;
        e.device_uuid = run.device_uuid;
        e.arch = run.arch;
        e.driver_version = run.driver_version;
        e.nvrtc_version = run.nvrtc_version;
        e.tool_version = run.tool_version;
        e.origin = run.origin;
        e.problem = parse_problem(run.problem);
        e.objective = run.objective;
        for (const auto& rec : records) e.tuned_at = std::max(e.tuned_at, rec.created_at);
        // With a final word, its finalists lead in its order, timed as it measured them (the
        // reference GPU's interleaved rounds); the rest follow as the search ranked them.
        std::map<std::string, double> final_time;
        if (const auto fw = final_word_from_json(store.final_word(run.id()));
            fw && !fw->winner().empty()) {
            std::vector<const eval_record*> lead;
            for (const auto& fe : fw->entries) {
                if (!has_timing(fe.st)) continue;
                for (const eval_record* rec : order)
                    if (rec->key == fe.key) {
                        lead.push_back(rec);
                        final_time[fe.key] = fe.time_us.median;
                    }
            }
            for (const eval_record* rec : order)
                if (!final_time.count(rec->key)) lead.push_back(rec);
            order = std::move(lead);
            e.decided_by = fmt::format("final word of GPU {} ({} interleaved rounds, {} finalists)",
                                       fw->device, fw->rounds, final_time.size());
        }
        const bool higher_better = by != rank_by::time;
        for (const eval_record* rec : order) {
            tuned_config c;
            c.params = rec->params;
            c.time_us = rec->gpu.time_us.median;
            c.objective = objective_value(*rec, by);
            if (final_time.count(rec->key)) {  // a rate scales with the time it came from
                const double t = final_time[rec->key];
                if (higher_better && c.objective > 0 && t > 0) c.objective *= c.time_us / t;
                c.time_us = t;
            }
            if (!higher_better) c.objective = c.time_us;
            e.configs.push_back(std::move(c));
        }
        const double best_time = e.configs.front().time_us;
        const double best_value = e.configs.front().objective;
        for (tuned_config& c : e.configs) {
            if (higher_better && c.objective > 0 && best_value > 0)
                c.rel = best_value / c.objective;
            else
                c.rel = best_time > 0 ? c.time_us / best_time : 1.0;
            c.rel = std::max(c.rel, 1.0);
            if (!(c.objective > 0)) c.objective = c.time_us;
        }
        e.ranked = e.configs.size();
        out.push_back(std::move(e));
    }
    index_keys(out);
    return out;
}

std::vector<tuned_entry> read_tuned(const std::string& path) {
    std::error_code ec;
    if (!fs::exists(path, ec))
        throw input_error({path, 0, 0},
                          "no such file: expected a wisdom file (`hone export DB --wisdom FILE`) "
                          "or a results database");
    if (fs::is_directory(path, ec))
        throw input_error({path, 0, 0},
                          "is a folder: expected a wisdom file or a results database");
    if (!std::ifstream(path, std::ios::binary))
        throw env_error(fmt::format("{}: cannot be read: {}", path, std::strerror(errno)));
    if (sql::has_sqlite_header(path)) return tuned_from_db(path);
    const std::optional<std::string> text = read_file_capped(path, max_input_bytes());
    if (!text) throw env_error(fmt::format("{}: cannot be read: {}", path, std::strerror(errno)));
    return parse_wisdom(*text, path);
}

std::string format_wisdom(std::vector<tuned_entry> entries, std::size_t keep) {
    entries.erase(std::remove_if(entries.begin(), entries.end(),
                                 [](const tuned_entry& e) { return e.configs.empty(); }),
                  entries.end());
    std::stable_sort(entries.begin(), entries.end(),
                     [](const tuned_entry& a, const tuned_entry& b) {
                         return std::tie(a.kernel, a.config, a.device_name, a.problem, a.tuned_at) <
                                std::tie(b.kernel, b.config, b.device_name, b.problem, b.tuned_at);
                     });
    std::string out = "{\n";
    out +=
        fmt::format("  \"format\": \"{}\",\n  \"version\": {},\n", wisdom_format, wisdom_version);
    out += fmt::format("  \"written_by\": {},\n", str("hone " + tool_version()));
    if (entries.empty()) return out + "  \"entries\": []\n}\n";
    out += "  \"entries\": [\n";
    for (std::size_t i = 0; i < entries.size(); ++i)
        write_entry(out, entries[i], keep, i + 1 == entries.size());
    return out + "  ]\n}\n";
}

void write_wisdom(const std::string& path, const std::vector<tuned_entry>& entries,
                  std::size_t keep) {
    write_file_atomically(path, format_wisdom(entries, keep));
}

}  // namespace hone
