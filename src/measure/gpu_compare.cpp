#include "measure/gpu_compare.hpp"

#include <algorithm>

#include "driver/cuda_api.hpp"

namespace hone {
namespace {
#include "compare_fatbin.inc"
}  // namespace

gpu_compare::gpu_compare(int sm_count)
    : module_(compare_fatbin),
      f32_(module_.function("hone_compare_f32")),
      f64_(module_.function("hone_compare_f64")),
      int_(module_.function("hone_compare_int")),
      counter_(sizeof(unsigned long long), false),
      blocks_(std::max(1, sm_count) * 4) {}

std::optional<uint64_t> gpu_compare::count_bad(elem_type t, CUdeviceptr got, CUdeviceptr ref,
                                               uint64_t count, double rtol, double atol,
                                               const cu::stream& s) {
    if (is_float(t) && t != elem_type::f32 && t != elem_type::f64) return std::nullopt;
    const cu::api& a = cu::driver();
    cu::check(a.cuMemsetD32Async(counter_.ptr(), 0, 2, s.get()), "cuMemsetD32Async(counter)");
    CUdeviceptr bad = counter_.ptr();
    unsigned elem = static_cast<unsigned>(elem_size(t));
    void* float_params[] = {&got, &ref, &count, &rtol, &atol, &bad};
    void* int_params[] = {&got, &ref, &count, &elem, &bad};
    const CUfunction f = t == elem_type::f32 ? f32_ : t == elem_type::f64 ? f64_ : int_;
    void** params = is_float(t) ? float_params : int_params;
    cu::check(a.cuLaunchKernel(f, static_cast<unsigned>(blocks_), 1, 1, 256, 1, 1, 0, s.get(),
                               params, nullptr),
              "cuLaunchKernel(verify)");
    s.synchronize();
    unsigned long long result = 0;
    counter_.download(&result);
    return result;
}

}  // namespace hone
