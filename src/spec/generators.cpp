// Parameter value generators: {range: [start, stop, step]}, {pow2: [lo, hi]},
// {warps: [lo, hi]}, {values: [...]}. Bounds are inclusive. The map may also hold `define`.
#include <fmt/format.h>

#include "spec/loader.hpp"

namespace hone::spec_detail {
namespace {

// More values than this in one parameter is a typo (a missing step), not a search space.
constexpr std::size_t max_values = 100000;

std::vector<int64_t> read_bounds(const doc& d, const YAML::Node& n, std::size_t min_count,
                                 std::size_t max_count, const char* form) {
    const auto items = read_list(d, n, "integers");
    if (items.size() < min_count || items.size() > max_count)
        fail(d, n,
             fmt::format("expected {}, got {} value{}", form, items.size(),
                         items.size() == 1 ? "" : "s"));
    std::vector<int64_t> out;
    for (const auto& i : items) out.push_back(read_int(d, i));
    return out;
}

void add_value(const doc& d, const YAML::Node& n, std::vector<value>& out, int64_t v) {
    if (out.size() == max_values)
        fail(d, n, fmt::format("more than {} values: check the bounds and step", max_values));
    out.emplace_back(v);
}

std::vector<value> range(const doc& d, const YAML::Node& n) {
    const auto b = read_bounds(d, n, 2, 3, "[start, stop] or [start, stop, step]");
    const int64_t start = b[0], stop = b[1], step = b.size() == 3 ? b[2] : 1;
    if (step == 0) fail(d, n, "range step must not be 0");
    std::vector<value> out;
    for (int64_t v = start; step > 0 ? v <= stop : v >= stop;) {
        add_value(d, n, out, v);
        if (__builtin_add_overflow(v, step, &v)) break;
    }
    return out;
}

std::vector<value> pow2(const doc& d, const YAML::Node& n) {
    const auto b = read_bounds(d, n, 2, 2, "[lo, hi]");
    std::vector<value> out;
    for (int shift = 0; shift < 63; ++shift) {
        const int64_t v = int64_t{1} << shift;
        if (v >= b[0] && v <= b[1]) add_value(d, n, out, v);
    }
    return out;
}

std::vector<value> warps(const doc& d, const YAML::Node& n) {
    const auto b = read_bounds(d, n, 2, 2, "[lo, hi]");
    std::vector<value> out;
    // The first multiple of 32 that is >= max(lo, 32); bounds beyond 2^62 hold no block size.
    const int64_t lo = std::max<int64_t>(b[0], 32), hi = std::min<int64_t>(b[1], int64_t{1} << 62);
    for (int64_t v = (lo + 31) / 32 * 32; v <= hi; v += 32) add_value(d, n, out, v);
    return out;
}

}  // namespace

std::vector<value> expand_generator(const doc& d, const YAML::Node& n, const std::string& param) {
    const auto m = read_map(d, n, fmt::format("params.{}", param),
                            {"range", "pow2", "warps", "values", "define"});
    const entry* gen = nullptr;
    for (const auto& e : m) {
        if (e.key == "define") continue;  // read by load_params
        if (gen)
            fail(d, n,
                 fmt::format("params.{}: expected exactly one of range, pow2, warps, values",
                             param));
        gen = &e;
    }
    if (!gen)
        fail(d, n,
             fmt::format("params.{}: expected exactly one of range, pow2, warps, values", param));
    const entry& g = *gen;
    if (g.key == "range") return range(d, g.value);
    if (g.key == "pow2") return pow2(d, g.value);
    if (g.key == "warps") return warps(d, g.value);
    std::vector<value> out;
    for (const auto& item : read_list(d, g.value, "values")) out.push_back(read_value(d, item));
    return out;
}

}  // namespace hone::spec_detail
