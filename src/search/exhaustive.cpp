// Exhaustive search: a list of points in order (every valid point of an enumerated domain, or
// the one point of --only), skipping those already observed (resume).
#include "search/search_base.hpp"
#include "search/strategies.hpp"

namespace hone {
namespace {

// The domain as the list strategy sees it: its count is the list's length, and it samples
// nothing, so that the base never adds a point from outside the list.
class list_domain final : public search_domain {
  public:
    list_domain(const search_domain& d, uint64_t n) : d_(d), n_(n) {}
    std::size_t dims() const override { return d_.dims(); }
    uint32_t cardinality(std::size_t i) const override { return d_.cardinality(i); }
    double coordinate(std::size_t i, uint32_t k) const override { return d_.coordinate(i, k); }
    bool contains(const point& p) const override { return d_.contains(p); }
    std::optional<point> sample(std::mt19937_64&) const override { return std::nullopt; }
    std::optional<uint64_t> count() const override { return n_; }

  private:
    const search_domain& d_;
    uint64_t n_;
};

struct domain_holder {
    list_domain list;
};

class list_search final : private domain_holder, public search_base {
  public:
    list_search(const search_domain& d, const strategy_setup& s, uint64_t n,
                std::function<point(uint64_t)> at)
        : domain_holder{list_domain(d, n)}, search_base(list, s), n_(n), at_(std::move(at)) {}

  private:
    void next(std::size_t n, std::vector<point>& out) override {
        while (out.size() < n && i_ < n_) take(at_(i_++), out);
    }

    uint64_t n_, i_ = 0;
    std::function<point(uint64_t)> at_;
};

}  // namespace

std::unique_ptr<strategy> make_list_strategy(const search_domain& d, uint64_t n,
                                             std::function<point(uint64_t)> at) {
    strategy_setup s;
    s.name = "exhaustive";
    return std::make_unique<list_search>(d, s, n, std::move(at));
}

std::unique_ptr<strategy> make_exhaustive(const strategy_setup& s, const search_domain& d,
                                          std::function<point(uint64_t)> at) {
    const auto n = d.count();
    if (!at || !n) throw std::invalid_argument("exhaustive search needs an enumerated space");
    return std::make_unique<list_search>(d, s, *n, std::move(at));
}

}  // namespace hone
