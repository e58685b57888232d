#include "report/svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace hone::report_detail {

std::string xml_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

double scale::operator()(double v) const {
    double t;
    if (log) {
        const double a = std::log10(d0), b = std::log10(d1);
        t = b == a ? 0.5 : (std::log10(std::max(v, 1e-300)) - a) / (b - a);
    } else {
        t = d1 == d0 ? 0.5 : (v - d0) / (d1 - d0);
    }
    return r0 + t * (r1 - r0);
}

namespace {

double step_for(double span, int target) {
    const double raw = span / std::max(1, target);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * mag >= raw * (1 - 1e-9)) return m * mag;
    return 10 * mag;
}

}  // namespace

std::vector<double> linear_ticks(double lo, double hi, int target) {
    if (!(hi > lo)) {
        const double pad = lo == 0 ? 1 : std::abs(lo) * 0.1;
        lo -= pad;
        hi += pad;
    }
    const double step = step_for(hi - lo, target);
    std::vector<double> out;
    const auto first = static_cast<long long>(std::floor(lo / step + 1e-9));
    for (long long i = first;; ++i) {
        // i * step read back from 12 digits: 0.6, not 0.6000000000000001.
        const double v = std::stod(fmt::format("{:.12g}", static_cast<double>(i) * step));
        out.push_back(v == 0 ? 0.0 : v);
        if (v >= hi - step * 1e-9 || out.size() > 1000) break;
    }
    return out;
}

std::vector<double> log_ticks(double lo, double hi) {
    std::vector<double> out;
    if (!(lo > 0) || !(hi >= lo)) return out;
    const int e0 = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
    const int e1 = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
    const bool fine = hi / lo < 1000;  // under three decades: 2x and 5x too
    for (int e = e0; e <= e1; ++e) {
        const double p = std::pow(10.0, e);
        for (double m : fine ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
            const double v = m * p;
            if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push_back(v);
        }
    }
    return out;
}

scale nice_scale(double lo, double hi, double r0, double r1, bool log, int target) {
    scale s;
    s.r0 = r0;
    s.r1 = r1;
    s.log = log && lo > 0;
    if (s.log) {
        // Out to the next 1-2-5 value, so the ends carry ticks.
        auto down = [](double v) {
            const double p = std::pow(10.0, std::floor(std::log10(v)));
            for (double m : {5.0, 2.0, 1.0})
                if (m * p <= v * (1 + 1e-9)) return m * p;
            return p;
        };
        auto up = [](double v) {
            const double p = std::pow(10.0, std::floor(std::log10(v)));
            for (double m : {1.0, 2.0, 5.0, 10.0})
                if (m * p >= v * (1 - 1e-9)) return m * p;
            return 10 * p;
        };
        s.d0 = down(lo);
        s.d1 = up(hi);
        if (s.d1 <= s.d0) s.d1 = s.d0 * 10;
        return s;
    }
    const auto t = linear_ticks(lo, hi, target);
    s.d0 = t.front();
    s.d1 = t.back() > t.front() ? t.back() : t.front() + 1;
    return s;
}

std::string tick_text(double v) {
    if (v == 0) return "0";
    const double a = std::abs(v);
    auto trim = [](std::string s) {
        if (s.find('.') != std::string::npos) {
            s.erase(s.find_last_not_of('0') + 1);
            if (s.back() == '.') s.pop_back();
        }
        return s;
    };
    if (a >= 1e9) return trim(fmt::format("{:.2f}", v / 1e9)) + "G";
    if (a >= 1e6) return trim(fmt::format("{:.2f}", v / 1e6)) + "M";
    if (a >= 1e4) return trim(fmt::format("{:.2f}", v / 1e3)) + "k";
    if (a >= 1) return trim(fmt::format("{:.2f}", v));
    // Below one: enough decimals for two significant digits.
    const int decimals = std::clamp(1 - static_cast<int>(std::floor(std::log10(a))), 1, 12);
    return trim(fmt::format("{:.{}f}", v, decimals));
}

std::string three_digits(double v) {
    const double a = std::abs(v);
    if (a == 0 || !std::isfinite(v)) return fmt::format("{}", v);
    const int decimals = std::clamp(2 - static_cast<int>(std::floor(std::log10(a))), 0, 12);
    return fmt::format("{:.{}f}", v, decimals);
}

const char* series_color(std::size_t i) {
    // Okabe-Ito, without yellow (too light on white).
    static constexpr const char* colors[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                             "#56B4E9", "#E69F00", "#000000"};
    return colors[i % (sizeof colors / sizeof colors[0])];
}

std::string diverging_color(double t) {
    t = std::clamp(t, -1.0, 1.0);
    // White to #b2182b (worse, t < 0) or to #2166ac (better, t > 0).
    const int lo[3] = {0xb2, 0x18, 0x2b}, hi[3] = {0x21, 0x66, 0xac};
    const int* end = t < 0 ? lo : hi;
    const double f = std::abs(t);
    int c[3];
    for (int i = 0; i < 3; ++i) c[i] = static_cast<int>(std::lround(255 + (end[i] - 255) * f));
    return fmt::format("#{:02x}{:02x}{:02x}", c[0], c[1], c[2]);
}

}  // namespace hone::report_detail
