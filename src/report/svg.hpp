// Drawing for `hone report`: scales with readable ticks, and SVG text built by hand (no
// library, no script): pure and unit-tested.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace hone::report_detail {

// Escapes &, <, >, " and ' for HTML and SVG text and attributes.
std::string xml_escape(std::string_view text);

// A map from data to pixels, linear or logarithmic (base 10).
struct scale {
    double d0 = 0, d1 = 1;  // data domain
    double r0 = 0, r1 = 1;  // pixel range (r1 < r0 for a y axis)
    bool log = false;
    double operator()(double v) const;
};

// 1-2-5 steps covering [lo, hi] with about `target` ticks (inclusive of the rounded ends).
std::vector<double> linear_ticks(double lo, double hi, int target);
// Powers of ten in [lo, hi]; with fewer than three of them, also 2x and 5x.
std::vector<double> log_ticks(double lo, double hi);
// The domain widened to the outer ticks: linear ends on a step, log ends on a 1-2-5 value.
scale nice_scale(double lo, double hi, double r0, double r1, bool log, int target = 5);

// Short tick text: "0", "2.5", "120", "1.5k", "2M", "0.001" (no trailing zeros).
std::string tick_text(double v);

// A number with three significant digits ("71.6", "1.25", "12500").
std::string three_digits(double v);

// Colours: one per run (colour-blind-safe palette), and the diverging heat-map colour of
// t in [-1, 1] (-1 red, 0 white, 1 blue), as "#rrggbb".
const char* series_color(std::size_t i);
std::string diverging_color(double t);

}  // namespace hone::report_detail
