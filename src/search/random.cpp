// Random search: valid points drawn uniformly, never one twice. The baseline every other
// strategy is measured against.
#include "search/search_base.hpp"
#include "search/strategies.hpp"

namespace hone {
namespace {

class random_search final : public search_base {
  public:
    random_search(const search_domain& d, const strategy_setup& s) : search_base(d, s) {}

  private:
    void next(std::size_t n, std::vector<point>& out) override {
        while (out.size() < n) {
            auto p = fresh_sample();
            if (!p) return;
            take(*p, out);
        }
    }
};

}  // namespace

std::unique_ptr<strategy> make_random(const strategy_setup& s, const search_domain& d) {
    return std::make_unique<random_search>(d, s);
}

}  // namespace hone
