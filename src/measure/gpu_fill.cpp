#include "measure/gpu_fill.hpp"

#include <algorithm>

#include "driver/cuda_api.hpp"
#include "measure/inputs.hpp"

namespace hone {

bool fill_input_on_gpu(const cu::module& helpers, const buffer_plan& p, const cu::device_buffer& b,
                       int sm_count, CUstream s) {
    const cu::api& api = cu::driver();
    if (p.role != buffer_role::out && p.init.kind == init_kind::zeros) {
        cu::check(api.cuMemsetD8Async(b.ptr(), 0, b.bytes(), s), "cuMemsetD8Async(zeros)");
        return true;
    }
    const std::optional<fill::gen> g = gpu_fill_gen(p);
    if (!g) return false;
    CUdeviceptr out = b.ptr();
    unsigned long long n = p.count, key = g->key;
    int type = g->type, kind = g->kind, ints = g->ints ? 1 : 0;
    double a = g->a, w = g->b;
    void* params[] = {&out, &n, &type, &kind, &a, &w, &key, &ints};
    const auto blocks = static_cast<unsigned>(std::max(1, sm_count) * 8);
    cu::check(api.cuLaunchKernel(helpers.function("hone_fill"), blocks, 1, 1, 256, 1, 1, 0, s,
                                 params, nullptr),
              "cuLaunchKernel(fill)");
    return true;
}

}  // namespace hone
