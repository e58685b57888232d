#include "measure/launch.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>

#include "driver/driver.hpp"
#include "driver/param_sizes.hpp"

namespace hone {
namespace {

int func_attribute(CUfunction f, CUfunction_attribute which) {
    int v = 0;
    cu::check(cu::driver().cuFuncGetAttribute(&v, which, f), "cuFuncGetAttribute");
    return v;
}

launch_limits read_limits(CUfunction f) {
    launch_limits l;
    l.num_regs = func_attribute(f, CU_FUNC_ATTRIBUTE_NUM_REGS);
    l.local_bytes = func_attribute(f, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
    l.static_shared_bytes = func_attribute(f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
    l.max_threads_per_block = func_attribute(f, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    return l;
}

// The limits that the attributes alone decide; empty when none is exceeded.
std::string size_refusal(const launch_limits& l, int64_t threads, int64_t dynamic_shared,
                         const device_attrs& dev) {
    if (threads > l.max_threads_per_block)
        return fmt::format(
            "a block of {} threads exceeds this kernel's limit of {} ({} "
            "registers per thread)",
            threads, l.max_threads_per_block, l.num_regs);
    const int64_t shared = l.static_shared_bytes + dynamic_shared;
    if (shared > dev.max_shared_per_block_optin)
        return fmt::format(
            "{} bytes of shared memory per block ({} static + {} dynamic) exceed "
            "the device's {}",
            shared, l.static_shared_bytes, dynamic_shared, dev.max_shared_per_block_optin);
    return "";
}

}  // namespace

kernel_launch::kernel_launch(const cu::module& m, const launch_desc& d,
                             const std::vector<CUdeviceptr>& pointers)
    : fn_(m.function(d.function)),
      grid_(d.grid),
      block_(d.block),
      shared_(d.shared_bytes),
      cooperative_(d.cooperative) {
    values_.reserve(d.args.size());
    for (const auto& a : d.args) {
        if (a.buffer < 0) {
            values_.push_back(a.bits);
            continue;
        }
        if (static_cast<std::size_t>(a.buffer) >= pointers.size())
            throw std::logic_error(
                fmt::format("kernel argument names buffer {} of {}", a.buffer, pointers.size()));
        values_.push_back(pointers[a.buffer]);
    }
    // Every slot is 8 bytes, little-endian: a pointer to it also points at the value's low
    // bytes, which is what a narrower scalar parameter reads.
    for (auto& v : values_) params_.push_back(&v);
    check_parameters(d);
}

// The launch reads as many parameter slots as the kernel has, of the kernel's sizes: args that
// do not match would launch with whatever lies beyond them.
void kernel_launch::check_parameters(const launch_desc& d) const {
    const cu::api& a = cu::driver();
    std::vector<std::size_t> sizes;
    for (std::size_t i = 0;; ++i) {
        std::size_t offset = 0, size = 0;
        const CUresult r = a.cuFuncGetParamInfo(fn_, i, &offset, &size);
        if (r == CUDA_ERROR_INVALID_VALUE) break;  // past the last parameter
        if (r != CUDA_SUCCESS) return;             // not known here: nothing to check
        sizes.push_back(size);
    }
    if (const std::string why = args_mismatch(sizes, d.args); !why.empty())
        throw cuda_error(CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", why);
}

launch_limits kernel_launch::prepare(const device_attrs& dev) {
    launch_limits l = read_limits(fn_);
    const int64_t threads = int64_t{block_[0]} * block_[1] * block_[2];
    const int64_t shared = int64_t{l.static_shared_bytes} + shared_;
    l.refusal = size_refusal(l, threads, shared_, dev);
    if (!l.refusal.empty()) return l;
    const cu::api& a = cu::driver();
    // Beyond the default 48 KiB the kernel must opt in before the launch.
    if (shared > dev.max_shared_per_block)
        cu::check(a.cuFuncSetAttribute(fn_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                       static_cast<int>(shared_)),
                  "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    cu::check(a.cuOccupancyMaxActiveBlocksPerMultiprocessor(&l.active_blocks_per_sm, fn_,
                                                            static_cast<int>(threads), shared_),
              "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    if (l.active_blocks_per_sm == 0) {
        l.refusal = fmt::format(
            "no block fits on a multiprocessor ({} threads of {} registers, "
            "{} bytes of shared memory)",
            threads, l.num_regs, shared);
        return l;
    }
    // A cooperative grid must be resident at once; the driver would refuse the launch.
    const int64_t blocks = int64_t{grid_[0]} * grid_[1] * grid_[2];
    const int64_t resident = int64_t{l.active_blocks_per_sm} * dev.sm_count;
    if (cooperative_ && blocks > resident) {
        l.refusal = fmt::format(
            "a cooperative grid of {} blocks exceeds the {} that are resident at once ({} a "
            "multiprocessor x {} multiprocessors)",
            blocks, resident, l.active_blocks_per_sm, dev.sm_count);
        return l;
    }
    const int64_t warps = (threads + dev.warp_size - 1) / dev.warp_size;
    l.occupancy = static_cast<double>(l.active_blocks_per_sm * warps * dev.warp_size) /
                  static_cast<double>(dev.max_threads_per_sm);
    return l;
}

void kernel_launch::enqueue(const cu::stream& s) {
    cu::check(cu::launch(cu::driver(), fn_, grid_, block_, shared_, s.get(), params_.data(),
                         cooperative_),
              cu::launch_call_name(cooperative_));
}

spin_kernel::spin_kernel(const cu::module& helpers)
    : fn_(helpers.function("hone_spin")), cycles_fn_(helpers.function("hone_spin_cycles")) {}

void spin_kernel::enqueue_cycles(const cu::stream& s, uint64_t cycles) {
    void* params[] = {&cycles};
    cu::check(
        cu::driver().cuLaunchKernel(cycles_fn_, 1, 1, 1, 1, 1, 1, 0, s.get(), params, nullptr),
        "cuLaunchKernel(spin_cycles)");
}

void spin_kernel::enqueue(const cu::stream& s, uint64_t ns) {
    void* params[] = {&ns};
    cu::check(cu::driver().cuLaunchKernel(fn_, 1, 1, 1, 1, 1, 1, 0, s.get(), params, nullptr),
              "cuLaunchKernel(spin)");
}

l2_flush::l2_flush(const cu::module& helpers, uint64_t bytes, int sm_count)
    : fn_(helpers.function("hone_flush_l2")),
      buffer_((bytes + 15) / 16 * 16, false),
      sink_(16, false),
      blocks_(static_cast<unsigned>(std::max(1, sm_count) * 8)) {
    // Contents do not matter (only read); zeros make the XOR key never match.
    cu::check(cu::driver().cuMemsetD8Async(buffer_.ptr(), 0, buffer_.bytes(), nullptr),
              "cuMemsetD8Async");
    cu::check(cu::driver().cuStreamSynchronize(nullptr), "cuStreamSynchronize");
}

void l2_flush::enqueue_driver_reset() {
    cu::check(cu::driver().cuCtxResetPersistingL2Cache(), "cuCtxResetPersistingL2Cache");
}

void l2_flush::enqueue(const cu::stream& s) {
    CUdeviceptr buf = buffer_.ptr(), sink = sink_.ptr();
    unsigned long long n = buffer_.bytes() / 16;
    unsigned key = 0xffffffffu;
    void* params[] = {&buf, &n, &key, &sink};
    cu::check(
        cu::driver().cuLaunchKernel(fn_, blocks_, 1, 1, 256, 1, 1, 0, s.get(), params, nullptr),
        "cuLaunchKernel(flush)");
}

}  // namespace hone
