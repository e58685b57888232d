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
      bytes_(module_.function("hone_compare_bytes")),
      counter_(sizeof(unsigned long long), false),
      blocks_(std::max(1, sm_count) * 4) {}

std::optional<uint64_t> gpu_compare::count_bad(elem_type t, CUdeviceptr got, CUdeviceptr ref,
                                               uint64_t count, double rtol, double atol,
                                               const cu::stream& s) {
    CUfunction f = nullptr;
    uint64_t n = count;
    if (t == elem_type::f32) {
        f = f32_;
    } else if (t == elem_type::f64) {
        f = f64_;
    } else if (!is_float(t)) {
        f = bytes_;
        n = count * elem_size(t);
    } else {
        return std::nullopt;
    }
    const cu::api& a = cu::driver();
    cu::check(a.cuMemsetD32Async(counter_.ptr(), 0, 2, s.get()), "cuMemsetD32Async(counter)");
    CUdeviceptr bad = counter_.ptr();
    void* params[] = {&got, &ref, &n, &rtol, &atol, &bad};
    cu::check(a.cuLaunchKernel(f, static_cast<unsigned>(blocks_), 1, 1, 256, 1, 1, 0, s.get(),
                               params, nullptr),
              "cuLaunchKernel(verify)");
    s.synchronize();
    unsigned long long result = 0;
    counter_.download(&result);
    return result;
}

}  // namespace hone
