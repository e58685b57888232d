// c = a + b over n floats, an extern "C" kernel whose tuning parameters are -D macros only:
//   BLOCK    threads a block (__launch_bounds__)
//   VEC      elements per load/store: 1 (float), 2 (float2), 4 (float4)
//   STRIDED  1 (true): grid-stride loop over a grid sized from the SM count; 0: one vector a
//            thread
// Used by configs/vector_add_192.yaml, the benchmark space of bench/RESULTS.md.
#if VEC == 1
typedef float vec_t;
#elif VEC == 2
typedef float2 vec_t;
#else
typedef float4 vec_t;
#endif

__device__ __forceinline__ float add(float x, float y) {
    return x + y;
}
__device__ __forceinline__ float2 add(float2 x, float2 y) {
    return make_float2(x.x + y.x, x.y + y.y);
}
__device__ __forceinline__ float4 add(float4 x, float4 y) {
    return make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
}

extern "C" __global__ void __launch_bounds__(BLOCK)
    vector_add_flat(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                    long long n) {
    const long long nvec = n / VEC;
    const long long tid = static_cast<long long>(blockIdx.x) * BLOCK + threadIdx.x;
    const vec_t* av = reinterpret_cast<const vec_t*>(a);
    const vec_t* bv = reinterpret_cast<const vec_t*>(b);
    vec_t* cv = reinterpret_cast<vec_t*>(c);
#if STRIDED
    const long long step = static_cast<long long>(gridDim.x) * BLOCK;
    for (long long i = tid; i < nvec; i += step) cv[i] = add(av[i], bv[i]);
#else
    if (tid < nvec) cv[tid] = add(av[tid], bv[tid]);
#endif
    // The n % VEC trailing elements, one thread each.
    if (tid < n - nvec * VEC) {
        const long long i = nvec * VEC + tid;
        c[i] = a[i] + b[i];
    }
}
