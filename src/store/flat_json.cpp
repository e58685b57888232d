#include "store/flat_json.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>

#include "record/params_json.hpp"

namespace hone::store_detail {
namespace {

struct cursor {
    std::string_view s;
    std::size_t i = 0;

    void space() {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r')) ++i;
    }
    bool eat(char c) {
        space();
        if (i < s.size() && s[i] == c) {
            ++i;
            return true;
        }
        return false;
    }
    bool at_end() {
        space();
        return i == s.size();
    }
    // A string without escapes (any escape: let the general parser decode it).
    bool string(std::string& out) {
        if (!eat('"')) return false;
        const std::size_t end = s.find_first_of("\"\\", i);
        if (end == std::string_view::npos || s[end] != '"') return false;
        out.assign(s.substr(i, end - i));
        i = end + 1;
        return true;
    }
    // A JSON number: integer when it has no fraction or exponent (as nlohmann types it).
    bool number(value& out) {
        space();
        const std::size_t start = i;
        if (i < s.size() && s[i] == '-') ++i;
        bool real = false;
        while (i < s.size()) {
            const char c = s[i];
            if (c == '.' || c == 'e' || c == 'E') {
                real = true;
            } else if (!(c >= '0' && c <= '9') && c != '+' && c != '-') {
                break;
            }
            ++i;
        }
        const char* b = s.data() + start;
        const char* e = s.data() + i;
        if (b == e || (e - b == 1 && *b == '-')) return false;
        if (!real) {
            int64_t v = 0;
            const auto r = std::from_chars(b, e, v);
            if (r.ec != std::errc() || r.ptr != e) return false;  // too big: nlohmann decides
            out = v;
            return true;
        }
        double d = 0;
        const auto r = std::from_chars(b, e, d);
        if (r.ec != std::errc() || r.ptr != e) return false;
        out = d;
        return true;
    }
    bool real(double& out) {
        value v;
        if (!number(v)) return false;
        out = std::holds_alternative<int64_t>(v) ? static_cast<double>(std::get<int64_t>(v))
                                                 : std::get<double>(v);
        return true;
    }
    bool literal(std::string_view word) {
        space();
        if (s.substr(i, word.size()) != word) return false;
        i += word.size();
        return true;
    }
};

// Walks "{ "name": <item>, ... }", calling item(name) for each member.
template <typename F>
bool object(std::string_view text, F&& item) {
    cursor c{text};
    if (!c.eat('{')) return false;
    if (c.eat('}')) return c.at_end();
    std::string name;
    do {
        if (!c.string(name) || !c.eat(':') || !item(c, name)) return false;
    } while (c.eat(','));
    return c.eat('}') && c.at_end();
}

}  // namespace

bool read_number_array(std::string_view text, std::vector<double>& out) {
    out.clear();
    cursor c{text};
    if (!c.eat('[')) return false;
    if (c.eat(']')) return c.at_end();
    double d = 0;
    do {
        if (!c.real(d)) return false;
        out.push_back(d);
    } while (c.eat(','));
    return c.eat(']') && c.at_end();
}

bool read_number_object(std::string_view text, std::map<std::string, double>& out) {
    out.clear();
    return object(text, [&](cursor& c, const std::string& name) {
        double d = 0;
        if (!c.real(d)) return false;
        out[name] = d;
        return true;
    });
}

bool read_scalar_object(std::string_view text, param_list& out) {
    out.clear();
    return object(text, [&](cursor& c, const std::string& name) {
        c.space();
        if (c.i >= c.s.size()) return false;
        const char first = c.s[c.i];
        value v;
        if (first == '"') {
            std::string str;
            if (!c.string(str)) return false;
            v = std::move(str);
        } else if (first == 't' || first == 'f') {
            const bool b = first == 't';
            if (!c.literal(b ? "true" : "false")) return false;
            v = b;
        } else if (!c.number(v)) {
            return false;
        }
        for (const auto& p : out)
            if (p.first == name) return false;  // a repeated name: the general parser decides
        out.emplace_back(name, std::move(v));
        return true;
    });
}

namespace {

// Text that nlohmann writes as it is: printable ASCII without a quote or backslash. Anything
// else (escapes, UTF-8 that nlohmann checks) is left to nlohmann.
bool plain(std::string_view text) {
    for (const char c : text)
        if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') return false;
    return true;
}

void append_real(std::string& out, double v) {
    if (!std::isfinite(v)) {
        out += "null";
        return;
    }
    // nlohmann's own conversion (Grisu2 and its layout: "1.0", "1e-05", "1e+300"), so that
    // the text is byte for byte what its dump() writes.
    char buf[64];
    out.append(buf, nlohmann::detail::to_chars(buf, buf + sizeof buf, v));
}

void append_integer(std::string& out, int64_t v) {
    char buf[24];
    out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

// false where the value is text that is not plain.
bool append_value(std::string& out, const value& v) {
    if (const auto* i = std::get_if<int64_t>(&v)) {
        append_integer(out, *i);
    } else if (const auto* d = std::get_if<double>(&v)) {
        append_real(out, *d);
    } else if (const auto* b = std::get_if<bool>(&v)) {
        out += *b ? "true" : "false";
    } else {
        const std::string& s = std::get<std::string>(v);
        if (!plain(s)) return false;
        out += '"';
        out += s;
        out += '"';
    }
    return true;
}

bool append_name(std::string& out, std::string_view name, bool first) {
    if (!plain(name)) return false;
    out += first ? "{\"" : ",\"";
    out += name;
    out += "\":";
    return true;
}

}  // namespace

std::string number_array_text(const std::vector<double>& samples) {
    std::string out = "[";
    out.reserve(samples.size() * 20 + 2);
    for (std::size_t i = 0; i < samples.size(); ++i) {
        if (i) out += ',';
        append_real(out, samples[i]);
    }
    out += ']';
    return out;
}

std::string number_object_text(const std::map<std::string, double>& numbers) {
    if (numbers.empty()) return "{}";
    std::string out;
    bool first = true;
    for (const auto& [name, v] : numbers) {
        if (!append_name(out, name, first)) return nlohmann::json(numbers).dump();
        append_real(out, v);
        first = false;
    }
    out += '}';
    return out;
}

std::string named_numbers_text(std::initializer_list<std::pair<const char*, value>> numbers) {
    // In the sorted order of nlohmann::json's objects (an insertion sort of a few names).
    std::vector<const std::pair<const char*, value>*> sorted;
    sorted.reserve(numbers.size());
    for (const auto& n : numbers) {
        auto at = sorted.end();
        while (at != sorted.begin() && std::strcmp((*(at - 1))->first, n.first) > 0) --at;
        sorted.insert(at, &n);
    }
    std::string out;
    out.reserve(24 * numbers.size());
    bool first = true;
    for (const auto* n : sorted) {
        append_name(out, n->first, first);  // the store's own names: plain
        append_value(out, n->second);
        first = false;
    }
    out += first ? "{}" : "}";
    return out;
}

std::string scalar_object_text(const param_list& params) {
    if (params.empty()) return "{}";
    std::string out;
    for (std::size_t i = 0; i < params.size(); ++i) {
        // A repeated name is one member in nlohmann's object (the last value, the first place).
        bool repeated = false;
        for (std::size_t j = 0; j < i && !repeated; ++j)
            repeated = params[j].first == params[i].first;
        if (repeated || !append_name(out, params[i].first, i == 0) ||
            !append_value(out, params[i].second))
            return params_to_json(params).dump();
    }
    out += '}';
    return out;
}

}  // namespace hone::store_detail
