// Helpers over the search domain interface (search_domain.hpp).
#pragma once
#include <optional>
#include <vector>

#include "search/search_domain.hpp"

namespace hone {

// Parameter dim's values as positive integers, or nullopt when one is not: every coordinate a
// whole number from 1 to 9e15 (exact in a double). What "a power of two" and "the power of two
// dividing it" mean to the strategies that favour aligned values.
std::optional<std::vector<uint64_t>> integer_values(const search_domain& d, std::size_t dim);

}  // namespace hone
