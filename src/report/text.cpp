#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/report.hpp"
#include "report/units.hpp"

namespace hone {
namespace report_detail {

duration_unit unit_for(double us) {
    duration_unit u;
    const double a = std::fabs(us);
    if (a < 1) {
        u = {1e3, "ns"};
    } else if (a >= 1e6) {
        u = {1e-6, "s"};
    } else if (a >= 1e3) {
        u = {1e-3, "ms"};
    }
    const double scaled = a * u.per_us;
    u.decimals = scaled < 10 ? 2 : scaled < 100 ? 1 : 0;
    return u;
}

std::string in_unit(double us, const duration_unit& u) {
    return fmt::format("{:.{}f}", us * u.per_us, u.decimals);
}

}  // namespace report_detail

std::string format_duration_us(double us) {
    const auto u = report_detail::unit_for(us);
    return fmt::format("{} {}", report_detail::in_unit(us, u), u.name);
}

std::string format_eta(double seconds) {
    const auto total = static_cast<long long>(std::llround(std::max(0.0, seconds)));
    const long long h = total / 3600, m = total / 60 % 60, s = total % 60;
    if (h > 0) return fmt::format("{}:{:02}:{:02}", h, m, s);
    return fmt::format("{}:{:02}", m, s);
}

std::size_t display_width(const std::string& s) {
    std::size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;  // count lead bytes, not continuations
    return n;
}

std::string truncate_text(const std::string& s, std::size_t width) {
    if (display_width(s) <= width) return s;
    if (width == 0) return "";
    std::string out;
    std::size_t cols = 0;
    for (unsigned char c : s) {
        const bool lead = (c & 0xC0) != 0x80;
        if (lead && ++cols > width - 1) break;
        out += static_cast<char>(c);
    }
    return out + "…";
}

}  // namespace hone
