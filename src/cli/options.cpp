#include "cli/options.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <limits>

#include "hone/error.hpp"
#include "search/strategy.hpp"

namespace hone::cli {

std::map<std::string, int64_t> parse_sets(const std::vector<std::string>& sets) {
    std::map<std::string, int64_t> out;
    for (const auto& s : sets) {
        const auto eq = s.find('=');
        const source_pos pos{"--set " + s, 0, 0};
        if (eq == std::string::npos || eq == 0)
            throw input_error(pos, "expected NAME=VALUE, e.g. --set N=1048576");
        int64_t v = 0;
        const char* first = s.data() + eq + 1;
        const char* last = s.data() + s.size();
        const auto [ptr, ec] = std::from_chars(first, last, v);
        if (ec != std::errc() || ptr != last || first == last)
            throw input_error(
                pos, fmt::format("expected an integer after '=', got '{}'", s.substr(eq + 1)));
        out[s.substr(0, eq)] = v;
    }
    return out;
}

bool stderr_is_tty() {
    return isatty(STDERR_FILENO) == 1;
}

namespace {

std::string range_text(int64_t min, int64_t max) {
    if (max == std::numeric_limits<int64_t>::max()) return fmt::format("{} or more", min);
    return fmt::format("from {} to {}", min, max);
}

}  // namespace

CLI::Validator whole_number(int64_t min, int64_t max) {
    return CLI::Validator(
        [min, max](std::string& text) -> std::string {
            int64_t v = 0;
            const char* last = text.data() + text.size();
            const auto [ptr, ec] = std::from_chars(text.data(), last, v);
            if (ec == std::errc::result_out_of_range)
                return fmt::format("'{}' is out of range: expected a whole number {}", text,
                                   range_text(min, max));
            if (ec != std::errc() || ptr != last || text.empty() || v < min || v > max)
                return fmt::format("expected a whole number {}, got '{}'", range_text(min, max),
                                   text);
            return "";
        },
        "", "whole_number");
}

CLI::Validator seed_number() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            uint64_t v = 0;
            const char* last = text.data() + text.size();
            const auto [ptr, ec] = std::from_chars(text.data(), last, v);
            if (ec == std::errc() && ptr == last && !text.empty()) return "";
            return fmt::format("expected a whole number from 0 to {}, got '{}'",
                               std::numeric_limits<uint64_t>::max(), text);
        },
        "", "seed_number");
}

CLI::Validator seconds_number() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            double v = 0;
            const char* last = text.data() + text.size();
            const auto [ptr, ec] = std::from_chars(text.data(), last, v);
            if (ec != std::errc() || ptr != last || text.empty() || !std::isfinite(v) || v < 0)
                return fmt::format(
                    "expected a number of seconds, 0 or more (e.g. 600 or 1.5), "
                    "got '{}'",
                    text);
            return "";
        },
        "", "seconds_number");
}

void check_strategy_name(const std::string& name) {
    if (find_strategy(name)) return;
    std::string names;
    for (const auto& n : strategy_names()) names += (names.empty() ? "" : ", ") + n;
    throw input_error({"--strategy", 0, 0},
                      fmt::format("expected one of: {}, got '{}'", names, name));
}

std::vector<std::pair<std::string, double>> parse_strategy_options(
    const std::string& strategy, const std::vector<std::string>& items) {
    std::vector<std::pair<std::string, double>> out;
    for (const auto& o : items) {
        const source_pos pos{"--option " + o, 0, 0};
        const auto eq = o.find('=');
        if (eq == std::string::npos || eq == 0)
            throw input_error(pos, "expected NAME=VALUE, e.g. --option population=30");
        const std::string name = o.substr(0, eq), text = o.substr(eq + 1);
        double v = 0;
        const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || ptr != text.data() + text.size() || text.empty())
            throw input_error(pos, fmt::format("expected a number after '=', got '{}'", text));
        const std::string why = strategy_option_error(strategy, name, v);
        if (!why.empty()) throw input_error(pos, why);
        for (const auto& [given, value] : out)
            if (given == name)
                throw input_error(pos, fmt::format("{} is given twice (first {})", name, value));
        out.emplace_back(name, v);
    }
    return out;
}

}  // namespace hone::cli
