#include "tune/shard_domain.hpp"

#include "search/rng.hpp"

namespace hone {

shard_domain::shard_domain(const search_space& space, const spec& s, shard_spec shard)
    : space_(space), spec_(s), shard_(shard) {
    if (const auto n = space.count(); n && space.enumerated()) {
        listed_ = true;
        for (uint64_t i = 0; i < *n; ++i)
            if (owns(space.at(i))) owned_.push_back(i);
    }
}

bool shard_domain::owns(const point& p) const {
    return shard_.owns_key(space_.to_config(p).key(spec_));
}

std::optional<point> shard_domain::sample(std::mt19937_64& rng) const {
    if (listed_) {
        if (owned_.empty()) return std::nullopt;
        return at(draw_below(rng, owned_.size()));
    }
    // About one draw in `count` is owned: enough tries that missing one has a chance of e^-20.
    const uint64_t tries = 20 * uint64_t{shard_.count};
    for (uint64_t i = 0; i < tries; ++i) {
        auto p = space_.sample(rng);
        if (!p) return std::nullopt;
        if (owns(*p)) return p;
    }
    return std::nullopt;
}

std::optional<uint64_t> shard_domain::count() const {
    if (listed_) return owned_.size();
    return std::nullopt;
}

double shard_domain::estimated_count() const {
    if (listed_) return static_cast<double>(owned_.size());
    return space_.estimated_count() / shard_.count;
}

}  // namespace hone
