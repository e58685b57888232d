#include "measure/warm_up.hpp"

#include <algorithm>
#include <cmath>

namespace hone {
namespace {

bool agree(double a, double b, double tolerance) {
    if (!(a > 0) || !(b > 0)) return false;
    return std::abs(a - b) <= tolerance * std::min(a, b);
}

}  // namespace

int warmup_batch(double kernel_us) {
    if (!(kernel_us > 0)) return 1;
    const double n = std::ceil(warmup_batch_target_us / kernel_us);
    return static_cast<int>(std::clamp(n, 1.0, static_cast<double>(max_warmup_batch)));
}

bool warmup_settled(const std::vector<double>& batch_us, double tolerance) {
    const std::size_t n = batch_us.size();
    return n >= 2 && agree(batch_us[n - 1], batch_us[n - 2], tolerance);
}

bool clock_settled(const std::vector<double>& mhz, double peak_mhz) {
    if (mhz.empty()) return false;
    if (peak_mhz > 0 && mhz.back() >= clock_near_peak * peak_mhz) return true;
    if (mhz.size() < clock_plateau) return false;
    const auto first = mhz.end() - static_cast<std::ptrdiff_t>(clock_plateau);
    const auto [lo, hi] = std::minmax_element(first, mhz.end());
    return agree(*lo, *hi, clock_plateau_tolerance);
}

}  // namespace hone
