// Written as for nvcc: standard headers, which NVRTC lacks and hone stands in for.
#include <cassert>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <type_traits>
template <typename T>
__global__ void rsqrt_scale(const T* __restrict__ x, T* __restrict__ y, std::uint32_t n) {
    static_assert(std::is_floating_point<T>::value, "reals only");
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        assert(i < n);
        y[i] = T(1) / std::sqrt(std::fabs(x[i]) + T(FLT_EPSILON));
    }
}
