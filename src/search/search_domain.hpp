// What a search strategy sees of a search space: parameters as lists of values, and which
// combinations are valid. Two kinds of space implement it: the space a spec defines (parameters
// and constraints, src/space) and a recorded space replayed without a GPU (every configuration
// that another run measured, src/search/replay). Strategies depend on this interface alone.
#pragma once
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

namespace hone {

// A configuration as one value index per parameter, in the space's parameter order.
using point = std::vector<uint32_t>;

class search_domain {
  public:
    virtual ~search_domain() = default;

    virtual std::size_t dims() const = 0;
    virtual uint32_t cardinality(std::size_t dim) const = 0;  // number of values, >= 1
    // The value's position on a numeric axis, for distances and surrogate models: numbers as
    // themselves, booleans as 0/1, strings as their index. Monotonic in the index only when the
    // values are listed in order.
    virtual double coordinate(std::size_t dim, uint32_t index) const = 0;

    // True when the point satisfies every constraint (and, for a recorded space, was recorded).
    virtual bool contains(const point& p) const = 0;
    // A valid point drawn uniformly from the valid ones; nullopt when the space has none (or,
    // for a space too large to list, none was found within the implementation's effort).
    virtual std::optional<point> sample(std::mt19937_64& rng) const = 0;
    // The number of valid points, when they were counted exactly; nullopt when only estimated.
    virtual std::optional<uint64_t> count() const = 0;
};

// The product of the cardinalities, saturated at UINT64_MAX.
uint64_t cartesian_size(const search_domain& d);
// Mixed-radix code of a point (the first parameter varies slowest), for hashing and sets.
// Requires cartesian_size(d) < 2^64.
uint64_t encode(const search_domain& d, const point& p);
point decode(const search_domain& d, uint64_t code);

}  // namespace hone
