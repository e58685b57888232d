#include "measure/gpu_fill.hpp"

#include <algorithm>

#include "driver/cuda_api.hpp"
#include "measure/inputs.hpp"

namespace hone {

void fill_pattern_on_gpu(const cu::device_buffer& b, std::size_t elem, uint64_t bits, CUstream s) {
    const cu::api& a = cu::driver();
    const std::size_t n = b.bytes() / elem;
    if (elem == 1)
        cu::check(a.cuMemsetD8Async(b.ptr(), static_cast<uint8_t>(bits), n, s), "cuMemsetD8Async");
    else if (elem == 2)
        cu::check(a.cuMemsetD16Async(b.ptr(), static_cast<uint16_t>(bits), n, s),
                  "cuMemsetD16Async");
    else
        cu::check(a.cuMemsetD32Async(b.ptr(), static_cast<uint32_t>(bits), n, s),
                  "cuMemsetD32Async");
}

bool fill_input_on_gpu(const cu::module& helpers, const buffer_plan& p, const cu::device_buffer& b,
                       int sm_count, CUstream s) {
    if (p.role != buffer_role::out && p.init.kind == init_kind::zeros) {
        fill_pattern_on_gpu(b, 1, 0, s);  // all bits zero is 0 in every type
        return true;
    }
    const std::optional<fill::gen> g = gpu_fill_gen(p);
    if (!g) return false;
    CUdeviceptr out = b.ptr();
    unsigned long long n = p.count, key = g->key;
    int type = g->type, size = static_cast<int>(elem_size(p.type)), kind = g->kind;
    int ints = g->ints ? 1 : 0;
    double a = g->a, w = g->b;
    void* params[] = {&out, &n, &type, &size, &kind, &a, &w, &key, &ints};
    const auto blocks = static_cast<unsigned>(std::max(1, sm_count) * 8);
    cu::check(cu::driver().cuLaunchKernel(helpers.function("hone_fill"), blocks, 1, 1, 256, 1, 1, 0,
                                          s, params, nullptr),
              "cuLaunchKernel(fill)");
    return true;
}

}  // namespace hone
