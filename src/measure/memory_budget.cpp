#include "measure/memory_budget.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "hone/error.hpp"

namespace hone {
namespace {

bool reference_uses(const run_plan& plan, memory_kind k) {
    return plan.reference && plan.reference->memory == k;
}

}  // namespace

uint64_t flush_buffer_bytes(int64_t l2_bytes) {
    return (static_cast<uint64_t>(l2_bytes > 0 ? l2_bytes : 0) + 3) / 4 * 4;
}

bool needs_device_set(const run_plan& plan, const buffer_plan& b) {
    return b.need_device || reference_uses(plan, memory_kind::device);
}

bool needs_managed_set(const run_plan& plan, const buffer_plan& b) {
    return b.need_managed || reference_uses(plan, memory_kind::managed);
}

uint64_t device_bytes_needed(const run_plan& plan, int64_t l2_bytes) {
    uint64_t need = plan.timing.l2_flush ? flush_buffer_bytes(l2_bytes) : 0;
    for (const auto& b : plan.buffers) {
        const bool pristine = b.role != buffer_role::in;    // the image each job starts from
        const bool reference = b.verify && plan.reference;  // its reference output, on the GPU
        need += ((needs_device_set(plan, b) ? 1 : 0) + (needs_managed_set(plan, b) ? 1 : 0) +
                 (pristine ? 1 : 0) + (reference ? 1 : 0)) *
                b.bytes();
    }
    return need;
}

void check_device_memory(uint64_t need, int64_t free_bytes) {
    const auto available = static_cast<uint64_t>(std::max<int64_t>(free_bytes, 0));
    if (static_cast<double>(need) <= memory_margin * static_cast<double>(available)) return;
    throw env_error(
        fmt::format("the buffers need {} of device memory, {} free (hone uses at "
                    "most {:.0f}% of it); reduce the problem size",
                    format_bytes(need), format_bytes(available), memory_margin * 100));
}

std::string format_bytes(uint64_t bytes) {
    const auto b = static_cast<double>(bytes);
    if (bytes >= (1ull << 30)) return fmt::format("{:.1f} GiB", b / (1ull << 30));
    if (bytes >= (1ull << 20)) return fmt::format("{:.1f} MiB", b / (1ull << 20));
    if (bytes >= (1ull << 10)) return fmt::format("{:.1f} KiB", b / (1ull << 10));
    return fmt::format("{} bytes", bytes);
}

}  // namespace hone
