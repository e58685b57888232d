// c = a + b over n floats, written so that a tuner can choose:
//   VEC      elements per load/store: 1 (float), 2 (float2), 4 (float4)
//   STRIDED  true: grid-stride loop over a grid sized from the SM count;
//            false: one vector of elements per thread, grid covers n
//   IDX_T    index arithmetic type (-DIDX_T=int or -DIDX_T="long long")
// Alignment: cudaMalloc/cuMemAlloc return 256-byte aligned pointers, so float4 loads are safe.
#ifndef IDX_T
#define IDX_T int
#endif

template <int W> struct vec_of;
template <> struct vec_of<1> { using type = float; };
template <> struct vec_of<2> { using type = float2; };
template <> struct vec_of<4> { using type = float4; };

__device__ __forceinline__ float add(float x, float y) { return x + y; }
__device__ __forceinline__ float2 add(float2 x, float2 y) { return make_float2(x.x + y.x, x.y + y.y); }
__device__ __forceinline__ float4 add(float4 x, float4 y) {
    return make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
}

// Template parameter names differ from the -D macros (VEC, STRIDED) that hone also passes.
template <int VW, bool GRID_STRIDE>
__global__ void vector_add(const float* __restrict__ a, const float* __restrict__ b,
                           float* __restrict__ c, long long n) {
    using idx_t = IDX_T;
    using vec_t = typename vec_of<VW>::type;
    const idx_t nvec = static_cast<idx_t>(n / VW);
    const idx_t tid = static_cast<idx_t>(blockIdx.x) * static_cast<idx_t>(blockDim.x) +
                      static_cast<idx_t>(threadIdx.x);
    const vec_t* av = reinterpret_cast<const vec_t*>(a);
    const vec_t* bv = reinterpret_cast<const vec_t*>(b);
    vec_t* cv = reinterpret_cast<vec_t*>(c);
    if (GRID_STRIDE) {
        const idx_t step = static_cast<idx_t>(gridDim.x) * static_cast<idx_t>(blockDim.x);
        for (idx_t i = tid; i < nvec; i += step) cv[i] = add(av[i], bv[i]);
    } else if (tid < nvec) {
        cv[tid] = add(av[tid], bv[tid]);
    }
    // The n % VW trailing elements, one thread each.
    const idx_t tail = static_cast<idx_t>(n - static_cast<long long>(nvec) * VW);
    if (tid < tail) {
        const idx_t i = nvec * VW + tid;
        c[i] = a[i] + b[i];
    }
}
