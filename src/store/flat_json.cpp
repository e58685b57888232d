#include "store/flat_json.hpp"

#include <charconv>
#include <cstdint>

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

}  // namespace hone::store_detail
