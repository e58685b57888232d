#include "spec/lists.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "hone/error.hpp"

namespace hone {

std::vector<std::pair<std::string, std::vector<int64_t>>> parse_set_lists(
    const std::vector<std::string>& sets) {
    std::vector<std::pair<std::string, std::vector<int64_t>>> out;
    for (const auto& s : sets) {
        const auto eq = s.find('=');
        const source_pos pos{"--set " + s, 0, 0};
        if (eq == std::string::npos || eq == 0)
            throw input_error(pos, "expected NAME=VALUE or NAME=V1,V2,..., e.g. --set N=1048576");
        const std::string name = s.substr(0, eq);
        for (const auto& [n, v] : out)
            if (n == name) throw input_error(pos, fmt::format("{} is set twice", name));
        std::vector<int64_t> values;
        std::size_t at = eq + 1;
        for (;;) {
            const std::size_t comma = std::min(s.find(',', at), s.size());
            const std::string text = s.substr(at, comma - at);
            int64_t v = 0;
            const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
            if (ec != std::errc() || ptr != text.data() + text.size() || text.empty())
                throw input_error(pos,
                                  fmt::format("expected an integer{}, got '{}'",
                                              values.empty() ? " after '='" : " after ','", text));
            if (std::find(values.begin(), values.end(), v) != values.end())
                throw input_error(pos, fmt::format("{} is listed twice", v));
            values.push_back(v);
            if (comma == s.size()) break;
            at = comma + 1;
        }
        out.emplace_back(name, std::move(values));
    }
    return out;
}

std::vector<std::map<std::string, int64_t>> expand_sizes(
    const std::vector<std::pair<std::string, std::vector<int64_t>>>& lists) {
    std::vector<std::map<std::string, int64_t>> out(1);
    for (const auto& [name, values] : lists) {
        std::vector<std::map<std::string, int64_t>> next;
        for (const auto& partial : out)
            for (int64_t v : values) {
                auto m = partial;
                m[name] = v;
                next.push_back(std::move(m));
            }
        out = std::move(next);
    }
    return out;
}

std::vector<std::map<std::string, int64_t>> size_runs(
    std::vector<std::pair<std::string, std::vector<int64_t>>> set_lists,
    const std::vector<std::pair<std::string, std::vector<int64_t>>>& config_lists) {
    for (const auto& list : config_lists)
        if (std::none_of(set_lists.begin(), set_lists.end(),
                         [&](const auto& l) { return l.first == list.first; }))
            set_lists.push_back(list);
    return expand_sizes(set_lists);
}

std::optional<std::vector<int>> parse_devices(const std::string& text) {
    const source_pos pos{"--devices " + text, 0, 0};
    if (text == "all") return std::nullopt;
    if (text.empty())
        throw input_error(pos, "an empty list of GPUs: give `all` or ordinals, e.g. 0,1");
    std::vector<int> out;
    std::size_t at = 0;
    for (;;) {
        const std::size_t comma = std::min(text.find(',', at), text.size());
        const std::string item = text.substr(at, comma - at);
        int v = -1;
        const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
        if (ec != std::errc() || ptr != item.data() + item.size() || item.empty() || v < 0)
            throw input_error(pos, fmt::format("expected `all` or GPU ordinals (0, 1, ...: see "
                                               "`hone devices`), got '{}'",
                                               item));
        if (std::find(out.begin(), out.end(), v) != out.end())
            throw input_error(pos, fmt::format("GPU {} is named twice", v));
        out.push_back(v);
        if (comma == text.size()) break;
        at = comma + 1;
    }
    return out;
}

}  // namespace hone
