#include "hone/value.hpp"

#include <fmt/format.h>

#include <cmath>

namespace hone {
namespace {

// Shortest round-trip text that still reads as a real in C and in expressions ("1.0", not "1").
std::string real_text(double d) {
    std::string s = fmt::format("{}", d);
    if (std::isfinite(d) && s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
}

std::string quoted(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + '"';
}

}  // namespace

std::string define_text(const value& v) {
    if (const auto* b = std::get_if<bool>(&v)) return *b ? "1" : "0";
    return template_text(v);
}

std::string template_text(const value& v) {
    if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
    if (const auto* d = std::get_if<double>(&v)) return real_text(*d);
    if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
    return std::get<std::string>(v);
}

std::string display_text(const value& v) {
    if (const auto* s = std::get_if<std::string>(&v)) return quoted(*s);
    return template_text(v);
}

const char* type_name(const value& v) {
    static constexpr const char* names[] = {"integer", "real", "boolean", "string"};
    return names[v.index()];
}

}  // namespace hone
