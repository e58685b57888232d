#include "hone/strategy.hpp"

#include <random>

namespace hone {
namespace {

// A uniform draw from [0, n) by rejection. std::shuffle and std::uniform_int_distribution
// differ between standard libraries; this keeps a seed's order the same everywhere.
uint64_t draw_below(std::mt19937_64& rng, uint64_t n) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x = rng();
    while (x >= limit) x = rng();
    return x % n;
}

}  // namespace

exhaustive_strategy::exhaustive_strategy(std::vector<config> valid) : order_(std::move(valid)) {}

std::optional<config> exhaustive_strategy::next() {
    if (at_ == order_.size()) return std::nullopt;
    return order_[at_++];
}

random_strategy::random_strategy(std::vector<config> valid, uint64_t seed) : order_(std::move(valid)) {
    std::mt19937_64 rng(seed);
    for (std::size_t i = order_.size(); i > 1; --i) std::swap(order_[i - 1], order_[draw_below(rng, i)]);
}

std::optional<config> random_strategy::next() {
    if (at_ == order_.size()) return std::nullopt;
    return order_[at_++];
}

namespace {
// Every valid configuration, in canonical order (the tuner refuses a space too large to list).
std::vector<config> listed(const search_space& space) {
    std::vector<config> out;
    for (uint64_t i = 0; i < space.count().value_or(0); ++i)
        out.push_back(space.to_config(space.at(i)));
    return out;
}
}  // namespace

// The spec loader admits only "exhaustive" and "random".
std::unique_ptr<strategy> make_strategy(const search_spec& s, const search_space& space) {
    if (s.strategy == "random") return std::make_unique<random_strategy>(listed(space), s.seed);
    return std::make_unique<exhaustive_strategy>(listed(space));
}

}  // namespace hone
