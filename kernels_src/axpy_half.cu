// y = alpha * x + y over n half-precision values, written so that a tuner can choose:
//   VEC      halves per load/store: 1 (__half), 2 (__half2), 8 (four __half2 in one 16-byte load)
//   STRIDED  true: grid-stride loop over a grid sized from the SM count;
//            false: one vector of elements per thread, grid covers n
// cuda_fp16.h comes from the CUDA toolkit, whose include folder hone gives NVRTC.
#include <cuda_fp16.h>

template <int W> struct half_vec { __half2 h[W / 2]; };
template <> struct half_vec<1> { __half h; };

__device__ __forceinline__ void fma_into(half_vec<1>& y, const half_vec<1>& x, __half2 a) {
    y.h = __hfma(__low2half(a), x.h, y.h);
}
template <int W>
__device__ __forceinline__ void fma_into(half_vec<W>& y, const half_vec<W>& x, __half2 a) {
#pragma unroll
    for (int i = 0; i < W / 2; ++i) y.h[i] = __hfma2(a, x.h[i], y.h[i]);
}

template <int VW, bool GRID_STRIDE>
__global__ void axpy_half(const __half* __restrict__ x, __half* __restrict__ y, float alpha,
                          long long n) {
    using vec_t = half_vec<VW>;
    static_assert(sizeof(vec_t) == VW * sizeof(__half), "vector loads need packed halves");
    const __half2 a = __float2half2_rn(alpha);
    const long long nvec = n / VW;
    const long long tid = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const vec_t* xv = reinterpret_cast<const vec_t*>(x);
    vec_t* yv = reinterpret_cast<vec_t*>(y);
    if (GRID_STRIDE) {
        const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
        for (long long i = tid; i < nvec; i += step) {
            vec_t v = yv[i];
            fma_into(v, xv[i], a);
            yv[i] = v;
        }
    } else if (tid < nvec) {
        vec_t v = yv[tid];
        fma_into(v, xv[tid], a);
        yv[tid] = v;
    }
    // The n % VW trailing elements, one thread each.
    const long long tail = n - nvec * VW;
    if (tid < tail) {
        const long long i = nvec * VW + tid;
        y[i] = __hfma(__low2half(a), x[i], y[i]);
    }
}
