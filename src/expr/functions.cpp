#include "expr/functions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "expr/eval.hpp"

namespace hone::expr_detail {
namespace {

enum fn {
    fn_abs,
    fn_ceil,
    fn_ceil_div,
    fn_float,
    fn_floor,
    fn_int,
    fn_is_pow2,
    fn_log2,
    fn_max,
    fn_min,
    fn_pow2,
    fn_sqrt
};

// Sorted by name; the enum above follows the same order.
constexpr function_info table[] = {
    {"abs", 1, 1},   {"ceil", 1, 1}, {"ceil_div", 2, 2}, {"float", 1, 1},
    {"floor", 1, 1}, {"int", 1, 1},  {"is_pow2", 1, 1},  {"log2", 1, 1},
    {"max", 2, 16},  {"min", 2, 16}, {"pow2", 1, 1},     {"sqrt", 1, 1},
};

// 2^63 is exact as a double; every double in [-2^63, 2^63) converts to int64 exactly.
constexpr double two_63 = 9223372036854775808.0;

int64_t real_to_int(double d, const site& at) {
    if (!(d >= -two_63 && d < two_63))
        at.fail(
            fmt::format("'{}' = {} does not fit a 64-bit integer", at.snippet(), template_text(d)));
    return static_cast<int64_t>(d);
}

value min_max(bool is_max, const std::vector<value>& args, const site& at) {
    const char* what = is_max ? "max" : "min";
    const bool any_real = std::any_of(
        args.begin(), args.end(), [](const value& v) { return std::holds_alternative<double>(v); });
    if (any_real) {
        double best = real_of(args[0], at, what);
        for (const auto& v : args)
            best = is_max ? std::max(best, real_of(v, at, what))
                          : std::min(best, real_of(v, at, what));
        return best;
    }
    int64_t best = int_of(args[0], at, what);
    for (const auto& v : args)
        best = is_max ? std::max(best, int_of(v, at, what)) : std::min(best, int_of(v, at, what));
    return best;
}

value ceil_div(int64_t a, int64_t b, const site& at) {
    if (b == 0) at.fail(fmt::format("division by zero in '{}'", at.snippet()));
    if (a == INT64_MIN && b == -1) at.fail(fmt::format("integer overflow in '{}'", at.snippet()));
    const int64_t q = a / b;
    // C division truncates; step up when the exact quotient is positive and not whole.
    return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}

value log2_of(const value& v, const site& at) {
    if (const auto* d = std::get_if<double>(&v)) {
        if (*d <= 0)
            at.fail(fmt::format("log2 of {} in '{}': expected a positive value", template_text(*d),
                                at.snippet()));
        return std::log2(*d);
    }
    const int64_t i = int_of(v, at, "log2");
    if (i <= 0)
        at.fail(fmt::format("log2 of {} in '{}': expected a positive value", i, at.snippet()));
    return int64_t{63 - __builtin_clzll(static_cast<unsigned long long>(i))};
}

value abs_of(const value& v, const site& at) {
    if (const auto* d = std::get_if<double>(&v)) return std::fabs(*d);
    const int64_t i = int_of(v, at, "abs");
    if (i == INT64_MIN) at.fail(fmt::format("integer overflow in '{}'", at.snippet()));
    return i < 0 ? -i : i;
}

value pow2_of(const value& v, const site& at) {
    const int64_t i = int_of(v, at, "pow2");
    if (i < 0 || i > 62)
        at.fail(fmt::format("pow2({}) in '{}': expected an exponent in 0 .. 62", i, at.snippet()));
    return int64_t{1} << i;
}

value rounded(const value& v, bool up, const site& at) {
    if (const auto* d = std::get_if<double>(&v))
        return real_to_int(up ? std::ceil(*d) : std::floor(*d), at);
    return int_of(v, at, up ? "ceil" : "floor");
}

value sqrt_of(const value& v, const site& at) {
    const double d = real_of(v, at, "sqrt");
    if (d < 0)
        at.fail(fmt::format("sqrt of {} in '{}': expected a value >= 0", template_text(d),
                            at.snippet()));
    return std::sqrt(d);
}

}  // namespace

int find_function(std::string_view name) {
    for (int i = 0; i < static_cast<int>(std::size(table)); ++i)
        if (table[i].name == name) return i;
    return -1;
}

const function_info& function_at(int index) {
    return table[index];
}

std::string function_names() {
    std::string out;
    for (const auto& f : table) out += (out.empty() ? "" : ", ") + std::string(f.name);
    return out;
}

value call_function(int index, const std::vector<value>& args, const site& at) {
    const value& x = args[0];
    switch (index) {
        case fn_abs:
            return abs_of(x, at);
        case fn_ceil:
            return rounded(x, true, at);
        case fn_ceil_div:
            return ceil_div(int_of(x, at, "ceil_div"), int_of(args[1], at, "ceil_div"), at);
        case fn_float:
            return real_of(x, at, "float");
        case fn_floor:
            return rounded(x, false, at);
        case fn_int:
            if (const auto* d = std::get_if<double>(&x)) return real_to_int(std::trunc(*d), at);
            return int_of(x, at, "int");
        case fn_is_pow2: {
            const int64_t i = int_of(x, at, "is_pow2");
            return i > 0 && (i & (i - 1)) == 0;
        }
        case fn_log2:
            return log2_of(x, at);
        case fn_max:
            return min_max(true, args, at);
        case fn_min:
            return min_max(false, args, at);
        case fn_pow2:
            return pow2_of(x, at);
        default:
            return sqrt_of(x, at);
    }
}

}  // namespace hone::expr_detail
