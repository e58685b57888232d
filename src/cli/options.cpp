#include "cli/options.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <charconv>

#include "hone/error.hpp"

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
            throw input_error(pos, fmt::format("expected an integer after '=', got '{}'",
                                               s.substr(eq + 1)));
        out[s.substr(0, eq)] = v;
    }
    return out;
}

bool stderr_is_tty() { return isatty(STDERR_FILENO) == 1; }

}  // namespace hone::cli
