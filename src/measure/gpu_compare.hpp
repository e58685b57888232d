// Output verification on the GPU (kernels in kernels/helpers.cu): counting mismatches there
// keeps a multi-megabyte output off the host link and the host's CPU for every configuration
// that is right, which is nearly all of them.
#pragma once
#include <cstdint>

#include "driver/resources.hpp"
#include "hone/elem_type.hpp"

namespace hone {

// The element types the GPU compares; f16 and bf16 are compared on the host only.
inline bool is_gpu_comparable(elem_type t) {
    return !is_float(t) || t == elem_type::f32 || t == elem_type::f64;
}

class gpu_compare {
  public:
    gpu_compare(const cu::module& helpers, int sm_count);
    // Makes room for `slots` counts per check; before the first queue().
    void reserve(std::size_t slots);
    // Zeroes every slot's count; queued before the first queue() of a check.
    void reset(const cu::stream& s);
    // Queues the count of elements of got (count of type t) that do not match ref under
    // rtol/atol, as compare_buffers() decides, into `slot`. False, with nothing queued, where
    // !is_gpu_comparable(t).
    bool queue(std::size_t slot, elem_type t, CUdeviceptr got, CUdeviceptr ref, uint64_t count,
               double rtol, double atol, const cu::stream& s);
    // Queues the copy of the counts to the host; bad() reads them once the stream passed it.
    void fetch(const cu::stream& s);
    uint64_t bad(std::size_t slot) const;

  private:
    CUfunction f32_, f64_, int_;
    cu::device_buffer counters_;
    cu::pinned_buffer host_;
    std::size_t slots_ = 0;
    int blocks_;
};

}  // namespace hone
