// The configurations of a search space that one shard owns (hone/shard.hpp), as a domain the
// strategies search: listed in the space's order when the space is enumerated, else drawn by
// rejection from the space's own sampler.
#pragma once
#include <cstdint>
#include <vector>

#include "hone/shard.hpp"
#include "space/space.hpp"

namespace hone {

class shard_domain final : public search_domain {
  public:
    shard_domain(const search_space& space, const spec& s, shard_spec shard);

    std::size_t dims() const override { return space_.dims(); }
    uint32_t cardinality(std::size_t dim) const override { return space_.cardinality(dim); }
    double coordinate(std::size_t dim, uint32_t k) const override {
        return space_.coordinate(dim, k);
    }
    bool contains(const point& p) const override { return space_.contains(p) && owns(p); }
    std::optional<point> sample(std::mt19937_64& rng) const override;
    // Exact when the space is enumerated, else nullopt.
    std::optional<uint64_t> count() const override;
    // The i-th owned point, in the space's order (enumerated spaces only).
    point at(uint64_t i) const { return space_.at(owned_[i]); }
    bool owns(const point& p) const;
    // Owned configurations: exact, or the space's estimate over the number of shards.
    double estimated_count() const;

  private:
    const search_space& space_;
    const spec& spec_;
    shard_spec shard_;
    bool listed_ = false;
    std::vector<uint64_t> owned_;  // listed: indices into the space, ascending
};

}  // namespace hone
