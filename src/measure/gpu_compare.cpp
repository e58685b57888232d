#include "measure/gpu_compare.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "driver/cuda_api.hpp"

namespace hone {

gpu_compare::gpu_compare(const cu::module& helpers, int sm_count)
    : f32_(helpers.function("hone_compare_f32")),
      f64_(helpers.function("hone_compare_f64")),
      int_(helpers.function("hone_compare_int")),
      blocks_(std::max(1, sm_count) * 4) {
    reserve(1);
}

void gpu_compare::reserve(std::size_t slots) {
    if (slots <= slots_) return;
    counters_ = cu::device_buffer(slots * sizeof(unsigned long long), false);
    host_ = cu::pinned_buffer(slots * sizeof(unsigned long long));
    slots_ = slots;
}

void gpu_compare::reset(const cu::stream& s) {
    cu::check(cu::driver().cuMemsetD32Async(counters_.ptr(), 0, 2 * slots_, s.get()),
              "cuMemsetD32Async(counters)");
}

bool gpu_compare::queue(std::size_t slot, elem_type t, CUdeviceptr got, CUdeviceptr ref,
                        uint64_t count, double rtol, double atol, const cu::stream& s) {
    if (!is_gpu_comparable(t)) return false;
    if (slot >= slots_) throw std::logic_error("gpu_compare: slot out of range");
    CUdeviceptr bad = counters_.ptr() + slot * sizeof(unsigned long long);
    unsigned elem = static_cast<unsigned>(elem_size(t));
    void* float_params[] = {&got, &ref, &count, &rtol, &atol, &bad};
    void* int_params[] = {&got, &ref, &count, &elem, &bad};
    const CUfunction f = t == elem_type::f32 ? f32_ : t == elem_type::f64 ? f64_ : int_;
    void** params = is_float(t) ? float_params : int_params;
    cu::check(cu::driver().cuLaunchKernel(f, static_cast<unsigned>(blocks_), 1, 1, 256, 1, 1, 0,
                                          s.get(), params, nullptr),
              "cuLaunchKernel(verify)");
    return true;
}

void gpu_compare::fetch(const cu::stream& s) {
    cu::check(cu::driver().cuMemcpyDtoHAsync(host_.data(), counters_.ptr(),
                                             slots_ * sizeof(unsigned long long), s.get()),
              "cuMemcpyDtoHAsync(counters)");
}

uint64_t gpu_compare::bad(std::size_t slot) const {
    if (slot >= slots_) throw std::logic_error("gpu_compare: slot out of range");
    unsigned long long v = 0;
    std::memcpy(&v, host_.data() + slot * sizeof v, sizeof v);
    return v;
}

}  // namespace hone
