#include "search/domain.hpp"

#include <cmath>
#include <stdexcept>

namespace hone {

uint64_t cartesian_size(const search_domain& d) {
    uint64_t total = 1;
    for (std::size_t i = 0; i < d.dims(); ++i) {
        if (__builtin_mul_overflow(total, uint64_t{d.cardinality(i)}, &total)) return UINT64_MAX;
    }
    return total;
}

uint64_t encode(const search_domain& d, const point& p) {
    if (p.size() != d.dims()) throw std::logic_error("encode: point of the wrong size");
    uint64_t code = 0;
    for (std::size_t i = 0; i < p.size(); ++i) code = code * d.cardinality(i) + p[i];
    return code;
}

std::optional<std::vector<uint64_t>> integer_values(const search_domain& d, std::size_t dim) {
    std::vector<uint64_t> out(d.cardinality(dim));
    for (uint32_t k = 0; k < out.size(); ++k) {
        const double c = d.coordinate(dim, k);
        if (!(c >= 1 && c < 9e15 && c == std::floor(c))) return std::nullopt;
        out[k] = static_cast<uint64_t>(c);
    }
    return out;
}

point decode(const search_domain& d, uint64_t code) {
    point p(d.dims());
    for (std::size_t i = d.dims(); i-- > 0;) {
        p[i] = static_cast<uint32_t>(code % d.cardinality(i));
        code /= d.cardinality(i);
    }
    return p;
}

}  // namespace hone
