#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string_view>

#include "report/report.hpp"

namespace hone {
namespace {

// Words the shell passes through unchanged; anything else is single-quoted.
std::string shell_quote(const std::string& s) {
    const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) ||
               std::string_view("_./=,:+-@%").find(c) != std::string_view::npos;
    });
    if (plain) return s;
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

}  // namespace

std::string status_summary(const std::vector<eval_record>& records) {
    std::vector<std::size_t> by_status(static_cast<std::size_t>(status::timeout) + 1, 0);
    for (const auto& r : records) ++by_status[static_cast<std::size_t>(r.st)];
    return status_summary(records.size(), by_status);
}

std::string status_summary(std::size_t records, const std::vector<std::size_t>& by_status) {
    std::string out = fmt::format("{} configuration{}", records, records == 1 ? "" : "s");
    std::string counts;
    // status::timeout is the last status in status.hpp.
    for (std::size_t i = 0; i < by_status.size(); ++i) {
        if (by_status[i] > 0)
            counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", by_status[i],
                                  status_name(static_cast<status>(i)));
    }
    return counts.empty() ? out : out + ": " + counts;
}

std::string reproduce_snippet(const eval_record& best, const std::string& config_path,
                              const std::map<std::string, int64_t>& overrides) {
    std::string map;
    for (const auto& [name, v] : best.params) {
        map += fmt::format("{}{}: {}", map.empty() ? "" : ", ", name, display_text(v));
    }
    std::string command =
        fmt::format("hone tune {} --only {}", shell_quote(config_path), shell_quote(best.key));
    for (const auto& [name, v] : overrides)
        command += fmt::format(" --set {}={}", shell_quote(name), v);
    return fmt::format("reference: {{{}}}\n{}\n", map, command);
}

}  // namespace hone
