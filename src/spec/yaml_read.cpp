#include "spec/yaml_read.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

namespace hone::spec_detail {
namespace {

std::string describe(const YAML::Node& n) {
    switch (n.Type()) {
        case YAML::NodeType::Scalar:
            return fmt::format("'{}'", n.Scalar());
        case YAML::NodeType::Sequence:
            return "a list";
        case YAML::NodeType::Map:
            return "a map";
        default:
            return "nothing";
    }
}

const std::string& scalar(const doc& d, const YAML::Node& n, std::string_view expected) {
    if (!n.IsScalar()) fail(d, n, fmt::format("expected {}, got {}", expected, describe(n)));
    return n.Scalar();
}

bool is_quoted(const YAML::Node& n) {
    return n.Tag() == "!";
}

template <typename T>
bool parse_whole(const std::string& s, T& out) {
    const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool parse_int(const std::string& s, int64_t& out) {
    // from_chars refuses a leading '+', which YAML allows.
    return parse_whole(s.size() > 1 && s[0] == '+' ? s.substr(1) : s, out);
}

bool parse_real(const std::string& s, double& out) {
    return parse_whole(s.size() > 1 && s[0] == '+' ? s.substr(1) : s, out) && std::isfinite(out);
}

std::optional<bool> parse_bool(const std::string& s) {
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
    return std::nullopt;
}

// Optimal string alignment distance: an adjacent swap ("grdi") counts as one edit.
std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::vector<std::size_t>> t(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) t[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) t[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            t[i][j] = std::min({t[i - 1][j] + 1, t[i][j - 1] + 1, t[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                t[i][j] = std::min(t[i][j], t[i - 2][j - 2] + 1);
        }
    }
    return t[a.size()][b.size()];
}

}  // namespace

source_pos pos_of(const doc& d, const YAML::Node& n) {
    const YAML::Mark m = n.Mark();
    if (m.line < 0) return {d.file, 0, 0};
    return {d.file, m.line + 1, m.column + 1};
}

source_pos value_pos(const doc& d, const entry& e) {
    return pos_of(d, e.value.IsNull() ? e.key_node : e.value);
}

void fail(const doc& d, const YAML::Node& n, const std::string& message) {
    throw input_error(pos_of(d, n), message);
}

std::vector<entry> read_map(const doc& d, const YAML::Node& n, std::string_view section,
                            key_list allowed) {
    if (!n.IsMap()) fail(d, n, fmt::format("expected a map for {}, got {}", section, describe(n)));
    std::vector<entry> out;
    std::vector<std::string> choices(allowed.begin(), allowed.end());
    for (const auto& kv : n) {
        const std::string& key = scalar(d, kv.first, fmt::format("a name as a key in {}", section));
        for (const auto& e : out) {
            if (e.key == key)
                fail(d, kv.first,
                     fmt::format("duplicate key '{}' in {} (first at line {})", key, section,
                                 pos_of(d, e.key_node).line));
        }
        if (allowed.size() > 0 && std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
            fail(d, kv.first,
                 fmt::format("unknown key '{}' in {} (expected one of: {}){}", key, section,
                             join(choices), suggestion(key, choices)));
        }
        out.push_back({key, kv.first, kv.second});
    }
    return out;
}

const entry* find(const std::vector<entry>& entries, std::string_view key) {
    for (const auto& e : entries)
        if (e.key == key) return &e;
    return nullptr;
}

const entry& require(const doc& d, const YAML::Node& map, const std::vector<entry>& entries,
                     std::string_view key, std::string_view section) {
    const entry* e = find(entries, key);
    if (!e) fail(d, map, fmt::format("{} needs '{}'", section, key));
    return *e;
}

std::vector<YAML::Node> read_list(const doc& d, const YAML::Node& n, std::string_view what) {
    if (!n.IsSequence())
        fail(d, n, fmt::format("expected a list of {}, got {}", what, describe(n)));
    return {n.begin(), n.end()};
}

std::string read_string(const doc& d, const YAML::Node& n, std::string_view what) {
    return scalar(d, n, what);
}

int64_t read_int(const doc& d, const YAML::Node& n) {
    const std::string& s = scalar(d, n, "an integer");
    int64_t v = 0;
    if (!parse_int(s, v)) {
        const bool digits =
            !s.empty() && std::all_of(s.begin() + (s[0] == '-' || s[0] == '+'), s.end(),
                                      [](char c) { return c >= '0' && c <= '9'; });
        fail(d, n,
             digits ? fmt::format("integer '{}' is out of range", s)
                    : fmt::format("expected an integer, got '{}'", s));
    }
    return v;
}

double read_real(const doc& d, const YAML::Node& n) {
    const std::string& s = scalar(d, n, "a number");
    double v = 0;
    if (!parse_real(s, v)) fail(d, n, fmt::format("expected a number, got '{}'", s));
    return v;
}

bool read_bool(const doc& d, const YAML::Node& n) {
    const auto b = parse_bool(scalar(d, n, "true or false"));
    if (!b) fail(d, n, fmt::format("expected true or false, got '{}'", n.Scalar()));
    return *b;
}

value read_value(const doc& d, const YAML::Node& n) {
    const std::string& s = scalar(d, n, "a value (number, boolean or string)");
    if (is_quoted(n)) return s;
    int64_t i = 0;
    if (parse_int(s, i)) return i;
    double r = 0;
    if (parse_real(s, r)) return r;
    if (auto b = parse_bool(s)) return *b;
    return s;
}

expression read_expr(const doc& d, const YAML::Node& n) {
    const std::string& s = scalar(d, n, "an expression");
    source_pos pos = pos_of(d, n);
    if (is_quoted(n) && pos.column > 0) ++pos.column;  // the text starts after the quote
    try {
        return expression::parse(s, pos);
    } catch (const input_error& e) {
        // [ceil_div(N, BLOCK)] is two YAML items, "ceil_div(N" and "BLOCK)": a flow list splits
        // an unquoted scalar at its commas.
        if (is_quoted(n) ||
            std::count(s.begin(), s.end(), '(') == std::count(s.begin(), s.end(), ')'))
            throw;
        throw input_error(e.pos(), e.message() +
                                       "; an unquoted expression in a [...] list ends at its "
                                       "first comma: quote it, e.g. [\"ceil_div(N, BLOCK)\"]");
    }
}

std::string read_choice(const doc& d, const YAML::Node& n, key_list choices) {
    std::vector<std::string> all(choices.begin(), choices.end());
    const std::string& s = scalar(d, n, fmt::format("one of: {}", join(all)));
    if (std::find(all.begin(), all.end(), s) == all.end())
        fail(d, n,
             fmt::format("expected one of: {}, got '{}'{}", join(all), s, suggestion(s, all)));
    return s;
}

std::string suggestion(std::string_view word, const std::vector<std::string>& candidates) {
    // One edit in three characters, at most three: closer than that is a different word.
    const std::size_t limit = std::min<std::size_t>(word.size() / 3, 3);
    const std::string* best = nullptr;
    std::size_t best_distance = limit + 1;
    for (const auto& c : candidates) {
        const std::size_t dist = edit_distance(word, c);
        if (dist > 0 && dist < best_distance) best = &c, best_distance = dist;
    }
    return best ? fmt::format("; did you mean '{}'?", *best) : "";
}

std::string join(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
    return out;
}

void refuse_tabs(const std::string& text, const std::string& file) {
    int line = 1;
    bool in_indent = true;
    int column = 1;
    for (char c : text) {
        if (c == '\n') {
            ++line, column = 1, in_indent = true;
            continue;
        }
        if (c == '\t' && in_indent)
            throw input_error({file, line, column},
                              "tab character in indentation: YAML indents with spaces");
        if (c != ' ') in_indent = false;
        ++column;
    }
}

}  // namespace hone::spec_detail
