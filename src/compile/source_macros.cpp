#include "compile/source_macros.hpp"

#include <fmt/format.h>

#include <optional>
#include <string_view>

#include "compile/includes.hpp"

namespace hone {
namespace {

// `name` as a string literal of a #line directive.
std::string quoted(const std::string& name) {
    std::string out = "\"";
    for (const char c : name) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + '"';
}

// Whether a block comment is open at the end of `line`, given whether one was at its start (line
// comments and string literals are skipped roughly: a directive inside either is rare).
bool comment_open_after(std::string_view line, bool open) {
    for (std::size_t i = 0; i + 1 < line.size() || (open && i < line.size()); ++i) {
        if (open) {
            if (line.substr(i, 2) == "*/") open = false, ++i;
        } else if (line.substr(i, 2) == "//") {
            return false;
        } else if (line.substr(i, 2) == "/*") {
            open = true, ++i;
        }
    }
    return open;
}

}  // namespace

std::string shield_system_includes(const std::string& source, const std::string& source_name,
                                   const std::vector<std::pair<std::string, std::string>>& macros,
                                   const std::vector<std::string>& own_dirs) {
    if (macros.empty() || source.find("include") == std::string::npos) return source;
    std::string out;
    bool changed = false;
    std::size_t line_no = 0;
    bool in_comment = false;
    for (std::size_t at = 0; at < source.size();) {
        const std::size_t eol = std::min(source.find('\n', at), source.size());
        const std::string line = source.substr(at, eol - at);
        ++line_no;
        const bool commented = in_comment;
        in_comment = comment_open_after(line, in_comment);
        const std::optional<include_ref> ref = commented ? std::nullopt : include_of(line);
        if (ref && !resolve_include(*ref, {}, own_dirs)) {
            changed = true;
            for (const auto& [name, value] : macros) out += "#undef " + name + "\n";
            out += fmt::format("#line {} {}\n", line_no, quoted(source_name));
            out += line + "\n";
            for (const auto& [name, value] : macros) out += "#define " + name + " " + value + "\n";
            out += fmt::format("#line {} {}\n", line_no + 1, quoted(source_name));
        } else {
            out += line;
            if (eol < source.size()) out += '\n';
        }
        at = eol + 1;
    }
    return changed ? out : source;
}

std::string source_with_macros(const std::string& source, const std::string& source_name,
                               const std::vector<std::pair<std::string, std::string>>& macros,
                               const std::vector<std::string>& own_dirs) {
    if (macros.empty()) return source;
    std::string out;
    for (const auto& [name, value] : macros) out += "#define " + name + " " + value + "\n";
    out += fmt::format("#line 1 {}\n", quoted(source_name));
    return out + shield_system_includes(source, source_name, macros, own_dirs);
}

}  // namespace hone
