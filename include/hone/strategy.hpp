// Search strategies: pluggable, one class each. A strategy hands out configurations;
// the tuner reports each outcome back so adaptive strategies can steer.
#pragma once
#include <memory>
#include <optional>

#include "hone/space.hpp"

namespace hone {

class strategy {
public:
    virtual ~strategy() = default;
    // The next configuration to evaluate, or nullopt when the strategy is done.
    virtual std::optional<config> next() = 0;
    // Objective value of an evaluated configuration (smaller is better; nullopt = failed).
    virtual void report(const config&, std::optional<double>) {}
};

class exhaustive_strategy : public strategy {
public:
    explicit exhaustive_strategy(std::vector<config> valid);
    std::optional<config> next() override;

private:
    std::vector<config> order_;
    size_t at_ = 0;
};

// Uniform sampling without replacement, reproducible from the seed.
class random_strategy : public strategy {
public:
    random_strategy(std::vector<config> valid, uint64_t seed);
    std::optional<config> next() override;

private:
    std::vector<config> order_;
    size_t at_ = 0;
};

// From spec.search (exhaustive | random). max_evals and time_limit_s are applied by the tuner.
std::unique_ptr<strategy> make_strategy(const search_spec& s, const search_space& space);

}  // namespace hone
