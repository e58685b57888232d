// One kernel ready to launch: function, dimensions and the parameter array cuLaunchKernel reads.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "driver/gpu.hpp"
#include "driver/resources.hpp"

namespace hone {

// Function attributes and the occupancy of one launch configuration.
struct launch_limits {
    int num_regs = -1, local_bytes = -1, static_shared_bytes = -1, max_threads_per_block = -1;
    int active_blocks_per_sm = -1;
    double occupancy = 0;
    std::string refusal;  // why it cannot run on this device; empty = it can
};

class kernel_launch {
  public:
    // pointers[i]: the device address of plan buffer i in the launch's memory set.
    kernel_launch(const cu::module& m, const launch_desc& d,
                  const std::vector<CUdeviceptr>& pointers);
    // Reads the function's attributes, checks them against the device and, when it fits,
    // raises the dynamic shared memory limit where the launch needs more than the default.
    launch_limits prepare(const device_attrs& dev);
    void enqueue(const cu::stream& s);

  private:
    // cuda_error (CUDA_ERROR_INVALID_VALUE) naming both where d's args do not match the
    // kernel's parameters in number or size.
    void check_parameters(const launch_desc& d) const;

    CUfunction fn_ = nullptr;
    std::array<uint32_t, 3> grid_, block_;
    uint32_t shared_ = 0;
    bool cooperative_ = false;
    std::vector<uint64_t> values_;  // one slot a parameter, little-endian
    std::vector<void*> params_;
};

// A kernel that waits on the GPU's global timer (hone_spin in kernels/helpers.cu): queued
// before the start event, it keeps the GPU busy while the host queues the event and the
// measured launch.
class spin_kernel {
  public:
    explicit spin_kernel(const cu::module& helpers);
    void enqueue(const cu::stream& s, uint64_t ns);
    // Spins for a number of SM clock cycles instead (hone_spin_cycles): timed, it tells the
    // clock the GPU runs at.
    void enqueue_cycles(const cu::stream& s, uint64_t cycles);

  private:
    CUfunction fn_, cycles_fn_;
};

// Flushes L2 before a sample by reading a buffer of L2's size (hone_flush_l2): the lines it
// leaves are clean, so the timed kernel pays no write-back of an earlier sample's (or of a
// memset's) dirty lines, as under Nsight Compute's cache control.
class l2_flush {
  public:
    l2_flush() = default;
    // bytes: L2's size (rounded up to 16); blocks: enough to keep every SM's loads in flight.
    l2_flush(const cu::module& helpers, uint64_t bytes, int sm_count);
    void enqueue(const cu::stream& s);
    // The driver's own L2 operation (cuCtxResetPersistingL2Cache), after enqueue(): a GPU
    // operation, ordered here by the GPU worker's one work queue, with a range of its own under
    // the range profiler. After the read alone, 2-4 us kernels read 5-7% under Nsight Compute's
    // gpu__time_duration (--cache-control all); after both, within 3% from 2.8 us to 1 ms (H100).
    static void enqueue_driver_reset();

  private:
    CUfunction fn_ = nullptr;
    cu::device_buffer buffer_, sink_;
    unsigned blocks_ = 0;
};

}  // namespace hone
