#include "measure/sample_mode.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace hone {
namespace {

int batch_size(double kernel_us) {
    if (!(kernel_us > 0.0)) return max_batch;
    const double k = std::ceil(batch_target_us / kernel_us);
    return static_cast<int>(std::clamp(k, 1.0, static_cast<double>(max_batch)));
}

}  // namespace

std::string sample_mode::name() const {
    switch (kind) {
        case sample_kind::single_flush:
            return "single+flush";
        case sample_kind::single_spin:
            return "single+spin";
        case sample_kind::batch:
            return fmt::format("batch:{}", batch);
    }
    return "";
}

std::size_t next_round(std::size_t n, std::size_t min_samples, std::size_t max_samples,
                       std::size_t wanted) {
    const std::size_t cap = std::max({max_samples, min_samples, std::size_t{1}});
    if (n >= cap) return 0;
    std::size_t want = n < min_samples ? min_samples - n : std::max<std::size_t>(1, n / 4);
    if (n >= min_samples && wanted > n) want = std::clamp(wanted - n, want, std::max(want, 3 * n));
    return std::min(want, cap - n);
}

sample_mode choose_sample_mode(const timing_spec& timing, double kernel_us) {
    const sample_mode single{timing.l2_flush ? sample_kind::single_flush : sample_kind::single_spin,
                             1};
    const sample_mode batched{sample_kind::batch, batch_size(kernel_us)};
    if (timing.sample_mode == "single") return single;
    if (timing.sample_mode == "batch") return batched;
    if (timing.l2_flush || kernel_us >= spin_threshold_us) return single;
    return batched;
}

}  // namespace hone
