#include <fmt/format.h>

#include <algorithm>

#include "report/report.hpp"

namespace hone {
namespace {

constexpr std::size_t min_key_width = 8;  // shorter than this, a key says nothing: drop it

std::string join(const std::vector<std::string>& parts) {
    return fmt::format("{}", fmt::join(parts, " | "));
}

}  // namespace

std::string progress_line(const progress_info& p) {
    const std::size_t digits = std::to_string(p.total).size();
    const std::size_t pct = p.total ? p.done * 100 / p.total : 100;
    std::vector<std::string> parts{fmt::format("[{:>{}}/{}] {:>3}%", p.done, digits, p.total, pct)};
    if (p.failures > 0) parts.push_back(fmt::format("{} failed", p.failures));
    std::size_t best_part = 0;
    if (p.best_median_us) {
        best_part = parts.size();
        parts.push_back("best " + (p.best_value.empty() ? format_duration_us(*p.best_median_us)
                                                        : p.best_value));
    }
    if (p.eta_s >= 0) parts.push_back("ETA " + format_eta(p.eta_s));
    if (p.measuring > 0 || p.compiled_ahead > 0 || p.compiling > 0) {
        parts.push_back((p.measuring ? fmt::format("measuring {}, ", p.measuring) : "") +
                        fmt::format("compiled ahead {}", p.compiled_ahead) +
                        (p.compiling ? fmt::format(", compiling {}", p.compiling) : ""));
    }
    if (!p.best_median_us || p.best_key.empty()) return join(parts);
    // The key takes whatever width the rest leaves: " (" + key + ")".
    const std::size_t rest = display_width(join(parts)) + 3;
    const std::size_t room = p.width > rest ? p.width - rest : 0;
    if (room < std::min(min_key_width, display_width(p.best_key))) return join(parts);
    parts[best_part] += " (" + truncate_text(p.best_key, room) + ")";
    return join(parts);
}

}  // namespace hone
