#include "formats/t1_import.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "expr/inspect.hpp"
#include "formats/json_file.hpp"
#include "formats/python_list.hpp"
#include "hone/expr.hpp"
#include "hone/spec.hpp"

namespace hone {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

// A string member, or `fallback` when it is absent or of another type (T1 writers vary).
std::string str(const json& obj, const char* key, const std::string& fallback) {
    if (!obj.is_object() || !obj.contains(key) || !obj[key].is_string()) return fallback;
    return obj[key].get<std::string>();
}

std::string yaml_quote(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c == '\n' ? ' ' : c;
    }
    return out + '"';
}

std::string yaml_value(const value& v) {
    if (std::holds_alternative<std::string>(v)) return yaml_quote(std::get<std::string>(v));
    return template_text(v);
}

// Where the `nth` occurrence of "key" starts in the text: positions for messages, since the
// JSON parser keeps none.
source_pos locate(const std::string& text, const std::string& path, const std::string& key,
                  std::size_t nth) {
    const std::string needle = "\"" + key + "\"";
    std::size_t at = std::string::npos, from = 0;
    for (std::size_t k = 0; k <= nth; ++k) {
        at = text.find(needle, from);
        if (at == std::string::npos) return {path, 0, 0};
        from = at + 1;
    }
    return position_in(text, at, path);
}

// ---------------------------------------------------------------- the document

class translator {
  public:
    translator(const std::string& text, const std::string& t1_path, const std::string& yaml_path)
        : text_(text), path_(t1_path), yaml_path_(yaml_path) {}

    t1_translation run() {
        root_ = parse_json(text_, path_);
        if (!root_.is_object() ||
            (!root_.contains("ConfigurationSpace") && !root_.contains("KernelSpecification")))
            throw input_error(
                {path_, 1, 1},
                "not a T1 file: expected a JSON object with \"ConfigurationSpace\" and "
                "\"KernelSpecification\" (the T1 tuning-input format)");
        const json& space = require_object(root_, "ConfigurationSpace", "the T1 file");
        const json& kernel = require_object(root_, "KernelSpecification", "the T1 file");
        if (root_.contains("General") && root_["General"].is_object())
            out_.benchmark = str(root_["General"], "BenchmarkName", std::string());
        read_params(space);
        read_problem(kernel);
        header();
        write_kernel(kernel);
        write_problem();
        write_params();
        write_constraints(space);
        write_arguments(kernel);
        write_launch(kernel);
        other_notes(kernel);
        out_.yaml = header_ + yaml_;
        try {
            load_spec_text(out_.yaml, yaml_path_, {}, load_options{.require_source = false});
        } catch (const input_error& e) {
            throw input_error(
                {path_, 0, 0},
                fmt::format("the converted config does not load ({}); nothing written", e.what()));
        }
        return out_;
    }

  private:
    [[noreturn]] void missing(const std::string& key, const std::string& where,
                              std::size_t nth = 0) const {
        throw input_error(
            locate(text_, path_, where == "the T1 file" ? key : where, nth),
            fmt::format("T1 file without \"{}\" in {}; expected the T1 tuning-input format", key,
                        where));
    }
    const json& require_object(const json& parent, const std::string& key,
                               const std::string& where) {
        if (!parent.contains(key)) missing(key, where);
        const json& v = parent[key];
        if (!v.is_object())
            throw input_error(locate(text_, path_, key, 0),
                              fmt::format("\"{}\" must be an object, got {}", key, v.type_name()));
        return v;
    }
    void note(const std::string& text) {
        out_.notes.push_back(text);
        yaml_ += "# NOTE: " + text + "\n";
    }
    // Notes that are not tied to a line of the config go to its header.
    void header_note(const std::string& text) {
        out_.notes.push_back(text);
        header_notes_.push_back(text);
    }

    // An expression of T1 (Python) as hone text over the parameters: nullopt, with the reason,
    // when it does not parse or names something else.
    std::optional<std::string> translate(const std::string& python,
                                         const std::set<std::string>& names,
                                         std::string* why) const {
        const std::string text = python_to_hone(python);
        try {
            const expression e = expression::parse(text, {});
            for (const auto& n : e.names()) {
                if (!names.count(n)) {
                    *why = fmt::format("'{}' is not a parameter", n);
                    return std::nullopt;
                }
            }
        } catch (const input_error& e) {
            *why = e.message();
            return std::nullopt;
        }
        return text;
    }

    void read_params(const json& space) {
        if (!space.contains("TuningParameters")) missing("TuningParameters", "ConfigurationSpace");
        const json& list = space["TuningParameters"];
        if (!list.is_array() || list.empty())
            throw input_error(locate(text_, path_, "TuningParameters", 0),
                              "\"TuningParameters\" must be a non-empty list of parameters");
        std::size_t k = 0;
        for (const json& p : list) {
            if (!p.is_object() || !p.contains("Name") || !p["Name"].is_string())
                throw input_error(
                    locate(text_, path_, "TuningParameters", 0),
                    fmt::format("parameter {} of \"TuningParameters\" has no \"Name\" string",
                                k + 1));
            const std::string name = p["Name"].get<std::string>();
            if (!p.contains("Values"))
                throw input_error(locate(text_, path_, "Name", k),
                                  fmt::format("parameter '{}' has no \"Values\"", name));
            const source_pos at = locate(text_, path_, "Values", k);
            std::vector<value> values;
            const json& v = p["Values"];
            if (v.is_string()) {
                values = eval_python_list(v.get<std::string>(), at);
            } else if (v.is_array()) {
                for (const json& x : v) {
                    if (x.is_boolean())
                        values.push_back(x.get<bool>());
                    else if (x.is_number_integer())
                        values.push_back(x.get<int64_t>());
                    else if (x.is_number())
                        values.push_back(x.get<double>());
                    else if (x.is_string())
                        values.push_back(x.get<std::string>());
                    else
                        throw input_error(
                            at,
                            fmt::format(
                                "parameter '{}': a value that is not a number, boolean or string",
                                name));
                }
            } else {
                throw input_error(
                    at, fmt::format(
                            "parameter '{}': \"Values\" must be a string (a Python list) or a list",
                            name));
            }
            if (values.empty())
                throw input_error(at, fmt::format("parameter '{}' has no values", name));
            // Every value becomes YAML text that the config loader parses back: a few
            // parameters of a million values each took gigabytes. No tuning space lists this
            // many; checked as each list is evaluated, before the next is materialised.
            total_values_ += values.size();
            if (total_values_ > max_total_values)
                throw input_error(
                    at, fmt::format("parameter '{}' brings the values of the T1 parameters to {}, "
                                    "more than hone translates ({}); a tuning space lists "
                                    "fewer",
                                    name, total_values_, max_total_values));
            std::set<std::string> seen;
            for (const auto& x : values)
                if (!seen.insert(display_text(x)).second)
                    throw input_error(
                        at, fmt::format("parameter '{}' lists {} twice", name, display_text(x)));
            check_name(name, locate(text_, path_, "Name", k));
            params_.push_back({name, std::move(values)});
            names_.insert(name);
            ++k;
        }
        out_.params = params_.size();
    }

    void check_name(const std::string& name, const source_pos& at) const {
        static const std::set<std::string> reserved = {"true", "false", "and", "or", "not"};
        const auto& device = device_attribute_names();
        std::string why;
        if (!is_python_identifier(name) || reserved.count(name))
            why = "it is not a name hone's expressions can use";
        else if (std::find(device.begin(), device.end(), name) != device.end())
            why = "it is the name of a device attribute";
        else if (names_.count(name))
            why = "it is listed twice";
        if (!why.empty())
            throw input_error(at,
                              fmt::format("parameter '{}' cannot be translated: {}", name, why));
    }

    void read_problem(const json& kernel) {
        if (!kernel.contains("ProblemSize") || kernel["ProblemSize"].is_null()) return;
        json ps = kernel["ProblemSize"];
        if (!ps.is_array()) ps = json::array({ps});
        static const char* const axis[] = {"x", "y", "z"};
        for (std::size_t i = 0; i < ps.size() && i < 3; ++i) {
            std::string name = fmt::format("problem_size_{}", axis[i]);
            while (names_.count(name)) name += "_";
            if (ps[i].is_number_integer()) {
                problem_.push_back({name, std::to_string(ps[i].get<int64_t>())});
            } else if (ps[i].is_string()) {
                std::string why;
                if (auto t = translate(ps[i].get<std::string>(), {}, &why)) {
                    problem_.push_back({name, *t});
                } else {
                    header_note(
                        fmt::format("ProblemSize[{}] = '{}' not translated ({}): the grid uses 1",
                                    i, ps[i].get<std::string>(), why));
                    problem_.push_back({name, "1"});
                }
            } else {
                header_note(fmt::format("ProblemSize[{}] is not an integer: the grid uses 1", i));
                problem_.push_back({name, "1"});
            }
        }
    }

    void header() {
        header_ = fmt::format(
            "# Converted by `hone import-t1` from {}{}.\n", path_,
            out_.benchmark.empty() ? "" : fmt::format(" (T1 benchmark \"{}\")", out_.benchmark));
        header_ +=
            "# T1 constraints are Python; hone reads and, or, not and chained comparisons as "
            "Python does.\n";
    }

    void write_kernel(const json& kernel) {
        if (!kernel.contains("KernelName") || !kernel["KernelName"].is_string())
            missing("KernelName", "KernelSpecification");
        if (!kernel.contains("KernelFile") || !kernel["KernelFile"].is_string())
            missing("KernelFile", "KernelSpecification");
        const std::string file = kernel["KernelFile"].get<std::string>();
        // T1 names the kernel file relative to the T1 file; the config, relative to itself.
        std::error_code ec;
        const fs::path t1_dir = fs::absolute(fs::path(path_), ec).parent_path();
        const fs::path yaml_dir = fs::absolute(fs::path(yaml_path_), ec).parent_path();
        const fs::path source = (t1_dir / file).lexically_normal();
        // Relative when the two files sit close (portable), absolute when it would climb far.
        std::string relative = source.lexically_relative(yaml_dir).string();
        if (relative.rfind("../..", 0) == 0) relative = source.string();
        yaml_ += "kernel:\n";
        const bool found = fs::is_regular_file(source, ec);
        yaml_ += fmt::format("  source: {}{}\n",
                             yaml_quote(relative.empty() ? source.string() : relative),
                             found ? ""
                                   : "   # not found when converted: `hone space` needs none, "
                                     "`hone check` and `hone tune` do");
        if (!found)
            out_.notes.push_back(fmt::format(
                "the kernel file {} was not found: `hone space` works without it; `hone check` "
                "and `hone tune` need it",
                source.string()));
        yaml_ += fmt::format("  name: {}\n", yaml_quote(kernel["KernelName"].get<std::string>()));
        if (kernel.contains("CompilerOptions") && kernel["CompilerOptions"].is_array()) {
            std::vector<std::string> opts;
            for (const json& o : kernel["CompilerOptions"])
                if (o.is_string()) opts.push_back(yaml_quote(o.get<std::string>()));
            if (!opts.empty()) yaml_ += fmt::format("  options: [{}]\n", fmt::join(opts, ", "));
        }
        const std::string language = str(kernel, "Language", std::string("CUDA"));
        if (language != "CUDA") {
            language_note_ = fmt::format(
                "the kernel's language is {}: hone compiles CUDA with NVRTC, so the source needs a "
                "CUDA "
                "version before `hone check` or `hone tune` can use it",
                language);
            note(language_note_);
        }
    }

    void write_problem() {
        if (problem_.empty()) return;
        yaml_ += "problem:\n";
        for (const auto& [name, text] : problem_) yaml_ += fmt::format("  {}: {}\n", name, text);
    }

    void write_params() {
        yaml_ += "params:\n";
        for (const auto& [name, values] : params_) {
            std::vector<std::string> texts;
            for (const auto& v : values) texts.push_back(yaml_value(v));
            yaml_ += fmt::format("  {}: [{}]\n", name, fmt::join(texts, ", "));
        }
    }

    // True when every '/' in `text` divides exactly for every combination of the values of the
    // parameters it uses: there, Python's true division and hone's integer division agree.
    bool divisions_exact(const std::string& text) const {
        for (const auto& d : expr_detail::divisions(text)) {
            const expression check = expression::parse(
                fmt::format("({1}) == 0 || ({0}) % ({1}) == 0", d.left, d.right), {});
            std::vector<const std::pair<std::string, std::vector<value>>*> used;
            uint64_t combos = 1;
            for (const auto& n : check.names()) {
                const auto it = std::find_if(params_.begin(), params_.end(),
                                             [&](const auto& p) { return p.first == n; });
                if (it == params_.end()) return false;
                used.push_back(&*it);
                combos *= it->second.size();
                if (combos > 1'000'000) return false;
            }
            for (uint64_t i = 0; i < combos; ++i) {
                bindings scope;
                uint64_t rest = i;
                for (const auto* p : used) {
                    scope[p->first] = p->second[rest % p->second.size()];
                    rest /= p->second.size();
                }
                try {
                    if (!check.eval_bool(scope)) return false;
                } catch (const input_error&) {
                    return false;
                }
            }
        }
        return true;
    }

    void write_constraints(const json& space) {
        if (!space.contains("Conditions") || space["Conditions"].is_null()) return;
        const json& list = space["Conditions"];
        if (!list.is_array())
            throw input_error(locate(text_, path_, "Conditions", 0),
                              "\"Conditions\" must be a list of {\"Expression\": ...}");
        std::vector<std::string> lines;
        for (const json& c : list) {
            ++out_.constraints;
            std::string python;
            if (c.is_object() && c.contains("Expression") && c["Expression"].is_string())
                python = c["Expression"].get<std::string>();
            else if (c.is_string())
                python = c.get<std::string>();
            else {
                lines.push_back(
                    "  # NOTE: a condition without an \"Expression\" string was skipped");
                out_.notes.push_back("a condition without an \"Expression\" string was skipped");
                continue;
            }
            std::string why;
            const auto text = translate(python, names_, &why);
            if (!text) {
                const std::string n =
                    fmt::format("constraint not translated ({}): {}", why, python);
                out_.notes.push_back(n + "; the space may be larger than T1's");
                lines.push_back("  # NOTE: " + n);
                continue;
            }
            if (!divisions_exact(*text)) {
                const std::string n = fmt::format(
                    "constraint {} uses '/': Python divides exactly, hone truncates integers, "
                    "and some values here leave a remainder; check it or write float(a) / b",
                    yaml_quote(python));
                out_.notes.push_back(n);
                lines.push_back("  # NOTE: " + n);
            }
            lines.push_back("  - " + yaml_quote(*text));
            ++out_.constraints_translated;
        }
        if (lines.empty()) return;
        // Notes alone under "constraints:" would leave it empty, which does not load.
        if (out_.constraints_translated > 0) yaml_ += "constraints:\n";
        for (const auto& l : lines) yaml_ += l + "\n";
    }

    // ProblemSize[i] as the problem size's name, max(p) / min(p) of a parameter as the number.
    std::string size_expression(std::string text) const {
        for (std::size_t i = 0; i < problem_.size(); ++i) {
            const std::string from = fmt::format("ProblemSize[{}]", i);
            for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from))
                text.replace(at, from.size(), problem_[i].first);
        }
        for (const auto& [name, values] : params_) {
            for (const char* fn : {"max", "min"}) {
                const std::string from = fmt::format("{}({})", fn, name);
                for (std::size_t at = text.find(from); at != std::string::npos;
                     at = text.find(from)) {
                    value best = values.front();
                    for (const auto& v : values) {
                        const bool greater = v > best;  // same-typed in practice: numbers
                        if (std::string(fn) == "max" ? greater : v < best) best = v;
                    }
                    text.replace(at, from.size(), template_text(best));
                }
            }
        }
        return text;
    }

    static std::optional<std::string> scalar_type(const std::string& t) {
        static const std::map<std::string, std::string> types = {
            {"float", "float"}, {"float32", "float"}, {"double", "double"}, {"float64", "double"},
            {"int", "int32"},   {"int32", "int32"},   {"uint", "uint32"},   {"uint32", "uint32"},
            {"int64", "int64"}, {"long", "int64"},    {"uint64", "uint64"}};
        const auto it = types.find(t);
        return it == types.end() ? std::nullopt : std::optional(it->second);
    }
    static std::optional<std::string> element_type(const std::string& t) {
        static const std::map<std::string, std::string> types = {
            {"half", "half"},     {"float16", "half"},     {"int8", "int8"},   {"char", "int8"},
            {"uint8", "uint8"},   {"uchar", "uint8"},      {"int16", "int16"}, {"short", "int16"},
            {"uint16", "uint16"}, {"bfloat16", "bfloat16"}};
        if (auto s = scalar_type(t)) return s;
        const auto it = types.find(t);
        return it == types.end() ? std::nullopt : std::optional(it->second);
    }

    void write_arguments(const json& kernel) {
        std::vector<std::string> buffers, args;
        std::set<std::string> problem_names;
        for (const auto& p : problem_) problem_names.insert(p.first);
        const json empty = json::array();
        const json& list = kernel.contains("Arguments") && kernel["Arguments"].is_array()
                               ? kernel["Arguments"]
                               : empty;
        int seed = 0;
        for (const json& a : list) {
            const std::string name = a.is_object() ? str(a, "Name", std::string()) : std::string();
            if (!is_python_identifier(name)) {
                note(
                    fmt::format("an argument without a usable \"Name\" was skipped: the argument "
                                "list is incomplete"));
                continue;
            }
            const std::string type = str(a, "Type", std::string("float"));
            const std::string memory = str(a, "MemoryType", std::string("Vector"));
            const double fill = a.contains("FillValue") && a["FillValue"].is_number()
                                    ? a["FillValue"].get<double>()
                                    : 0.0;
            if (memory == "Scalar") {
                const auto t = scalar_type(type);
                if (!t) {
                    note(
                        fmt::format("scalar argument '{}' of type '{}' has no hone scalar type: "
                                    "skipped, the argument list is "
                                    "incomplete",
                                    name, type));
                    continue;
                }
                const bool integer = *t != "float" && *t != "double";
                args.push_back(fmt::format(
                    "{{value: {}, type: {}}}",
                    integer ? std::to_string(static_cast<int64_t>(fill)) : template_text(fill),
                    *t));
                continue;
            }
            const auto t = element_type(type);
            if (!t) {
                note(fmt::format(
                    "argument '{}' has the element type '{}', which hone does not know: skipped",
                    name, type));
                continue;
            }
            std::string count = "1";
            if (a.contains("Size") && a["Size"].is_number_integer()) {
                count = std::to_string(a["Size"].get<int64_t>());
            } else if (a.contains("Size") && a["Size"].is_string()) {
                std::string why;
                const auto c =
                    translate(size_expression(a["Size"].get<std::string>()), problem_names, &why);
                if (c)
                    count = *c;
                else
                    buffer_notes_.push_back(
                        fmt::format("buffer '{}': Size '{}' not translated ({}): count 1", name,
                                    a["Size"].get<std::string>(), why));
            } else {
                buffer_notes_.push_back(fmt::format("buffer '{}' has no Size: count 1", name));
            }
            const std::string access = str(a, "AccessType", std::string("ReadOnly"));
            const std::string role = access == "WriteOnly"   ? "out"
                                     : access == "ReadWrite" ? "inout"
                                                             : "in";
            const std::string fill_type = str(a, "FillType", std::string("Constant"));
            std::string init;
            if (fill_type == "Constant") {
                init = fill == 0 ? "{zeros: true}"
                                 : fmt::format("{{constant: {}}}", template_text(fill));
            } else if (fill_type == "Random") {
                init = fmt::format("{{random: uniform, low: 0, high: {}, seed: {}}}",
                                   template_text(fill == 0 ? 1.0 : fill), ++seed);
                buffer_notes_.push_back(
                    fmt::format("buffer '{}': T1's Random fill read as uniform in [0, {})", name,
                                template_text(fill == 0 ? 1.0 : fill)));
            } else {
                init = "{zeros: true}";
                buffer_notes_.push_back(fmt::format(
                    "buffer '{}': FillType '{}' not translated: zeros", name, fill_type));
            }
            // As Kernel Tuner's T1 reader: a Constant argument is passed and also fills the
            // module variable of its name (cmem_args).
            std::string symbol;
            if (str(a, "MemType", std::string()) == "Constant") {
                if (role == "in")
                    symbol = ", symbol: " + name;
                else
                    buffer_notes_.push_back(fmt::format(
                        "buffer '{}' is constant memory in T1 (MemType Constant) but not "
                        "ReadOnly: passed as a global buffer only, no __constant__ variable filled",
                        name));
            }
            buffers.push_back(
                fmt::format("  {}: {{type: {}, count: {}, role: {}, init: {}{}}}", name, *t,
                            count == "1" || std::all_of(count.begin(), count.end(), ::isdigit)
                                ? count
                                : yaml_quote(count),
                            role, init, symbol));
            args.push_back(name);
        }
        if (!buffers.empty()) {
            yaml_ += "buffers:\n";
            for (const auto& n : buffer_notes_) yaml_ += "  # NOTE: " + n + "\n";
            out_.notes.insert(out_.notes.end(), buffer_notes_.begin(), buffer_notes_.end());
            for (const auto& b : buffers) yaml_ += b + "\n";
        }
        yaml_ += fmt::format("args: [{}]\n", fmt::join(args, ", "));
    }

    // One launch dimension of T1 (a string expression or a number) over the parameters.
    std::string dimension(const json& v, const std::string& what) {
        if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
        if (!v.is_string()) return "1";
        const std::string python = v.get<std::string>();
        std::string why;
        if (auto t = translate(python, names_, &why)) return *t;
        std::set<std::string> with_problem = names_;
        for (const auto& p : problem_) with_problem.insert(p.first);
        if (auto t = translate(python, with_problem, &why)) return *t;
        launch_notes_.push_back(
            is_python_identifier(python)
                ? fmt::format(
                      "{} '{}' names no parameter: 1, as Kernel Tuner uses for a block size "
                      "parameter that is not there",
                      what, python)
                : fmt::format("{} '{}' not translated ({}): 1", what, python, why));
        return "1";
    }

    void write_launch(const json& kernel) {
        static const char* const axes[] = {"X", "Y", "Z"};
        std::vector<std::string> block(3, "1"), grid(3, "1");
        if (kernel.contains("LocalSize") && kernel["LocalSize"].is_object()) {
            for (int i = 0; i < 3; ++i)
                if (kernel["LocalSize"].contains(axes[i]))
                    block[i] = dimension(kernel["LocalSize"][axes[i]],
                                         fmt::format("LocalSize {}", axes[i]));
        } else {
            launch_notes_.push_back("no LocalSize: the block is 1 x 1 x 1");
        }
        const bool has_global = kernel.contains("GlobalSize") && kernel["GlobalSize"].is_object();
        if (!problem_.empty()) {
            // Kernel Tuner's rule: grid = ceil(problem size / product of the GridDiv entries),
            // the block size when there is no GridDiv.
            for (std::size_t i = 0; i < problem_.size(); ++i) {
                const std::string key = fmt::format("GridDiv{}", axes[i]);
                std::vector<std::string> factors;
                if (kernel.contains(key) && kernel[key].is_array()) {
                    for (const json& f : kernel[key]) {
                        const std::string d = dimension(f, key);
                        if (d != "1") factors.push_back(fmt::format("({})", d));
                    }
                } else if (block[i] != "1") {
                    factors.push_back(fmt::format("({})", block[i]));
                }
                grid[i] = factors.empty()
                              ? problem_[i].first
                              : fmt::format("ceil_div({}, {})", problem_[i].first,
                                            fmt::format("{}", fmt::join(factors, " * ")));
                if (factors.empty() && i == 2)
                    launch_notes_.push_back(fmt::format(
                        "grid z = {}: Kernel Tuner's reading of a 3-D ProblemSize without "
                        "GridDivZ; edit it if the kernel expects 1",
                        problem_[i].first));
            }
            if (has_global)
                launch_notes_.push_back(
                    "GlobalSize ignored: ProblemSize and GridDiv define the grid, as Kernel "
                    "Tuner's "
                    "runner reads them");
        } else if (has_global) {
            const std::string language = str(kernel, "Language", std::string("CUDA"));
            const std::string type =
                str(kernel, "GlobalSizeType", language == "OpenCL" ? "OpenCL" : "CUDA");
            for (int i = 0; i < 3; ++i) {
                if (!kernel["GlobalSize"].contains(axes[i])) continue;
                const std::string g =
                    dimension(kernel["GlobalSize"][axes[i]], fmt::format("GlobalSize {}", axes[i]));
                // OpenCL counts threads, CUDA counts blocks.
                grid[i] = type == "OpenCL" && block[i] != "1"
                              ? fmt::format("ceil_div({}, {})", g, block[i])
                              : g;
            }
        } else {
            launch_notes_.push_back("neither ProblemSize nor GlobalSize: the grid is 1 x 1 x 1");
        }
        yaml_ += "launch:\n";
        for (const auto& n : launch_notes_) yaml_ += "  # NOTE: " + n + "\n";
        out_.notes.insert(out_.notes.end(), launch_notes_.begin(), launch_notes_.end());
        auto dims = [](const std::vector<std::string>& d) {
            std::vector<std::string> q;
            for (const auto& x : d)
                q.push_back(std::all_of(x.begin(), x.end(), ::isdigit) ? x : yaml_quote(x));
            return fmt::format("[{}]", fmt::join(q, ", "));
        };
        yaml_ += fmt::format("  block: {}\n  grid: {}\n", dims(block), dims(grid));
        if (kernel.contains("SharedMemory")) {
            const json& sm = kernel["SharedMemory"];
            if (sm.is_number_integer()) {
                yaml_ += fmt::format("  shared_bytes: {}\n", sm.get<int64_t>());
            } else if (sm.is_string()) {
                yaml_ +=
                    fmt::format("  shared_bytes: {}\n", yaml_quote(dimension(sm, "SharedMemory")));
            }
        }
    }

    void other_notes(const json& kernel) {
        if (root_.contains("BenchmarkConfig"))
            header_note(
                "BenchmarkConfig not translated (iterations, device limits): hone times each "
                "configuration until "
                "its confidence interval is tight, and reads device limits from the GPU");
        if (kernel.contains("Misc")) header_note("KernelSpecification.Misc not translated");
        header_note(
            "T1 gives no reference output: hone verifies nothing until a verify: section names a "
            "reference");
        if (!header_notes_.empty()) {
            header_ += "#\n";
            for (const auto& n : header_notes_) header_ += "# NOTE: " + n + "\n";
        }
        header_ += "\n";
    }

    static constexpr std::size_t max_total_values = 100'000;
    std::size_t total_values_ = 0;
    const std::string& text_;
    std::string path_, yaml_path_;
    json root_;
    t1_translation out_;
    std::string yaml_, header_, language_note_;
    std::vector<std::string> header_notes_, buffer_notes_, launch_notes_;
    std::vector<std::pair<std::string, std::vector<value>>> params_;
    std::set<std::string> names_;
    std::vector<std::pair<std::string, std::string>> problem_;  // name, expression text
};

}  // namespace

t1_translation translate_t1(const std::string& json_text, const std::string& t1_path,
                            const std::string& yaml_path) {
    return translator(json_text, t1_path, yaml_path).run();
}

}  // namespace hone
