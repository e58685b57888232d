// Output verification on the GPU (kernels in kernels/compare.cu): counting mismatches there
// keeps a multi-megabyte output off the host link and the host's CPU for every configuration
// that is right, which is nearly all of them.
#pragma once
#include <cstdint>
#include <optional>

#include "driver/resources.hpp"
#include "hone/elem_type.hpp"

namespace hone {

class gpu_compare {
  public:
    explicit gpu_compare(int sm_count);
    // Elements of got (count of type t) that do not match ref under rtol/atol, as
    // compare_buffers() decides; nullopt for types compared on the host only (f16, bf16).
    // Synchronises the stream.
    std::optional<uint64_t> count_bad(elem_type t, CUdeviceptr got, CUdeviceptr ref,
                                      uint64_t count, double rtol, double atol,
                                      const cu::stream& s);

  private:
    cu::module module_;
    CUfunction f32_, f64_, int_;
    cu::device_buffer counter_;
    int blocks_;
};

}  // namespace hone
