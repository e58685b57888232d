// out[0] += the sum of reduce_load(in[i]) (include/reduce_ops.cuh), one atomic add a block:
//   BLOCK    threads a block, a power of two (a template parameter, as a library kernel would
//            have it; configs/reduce.yaml passes it with define: false)
//   SHUFFLE  true: warp shuffles, then one warp over the warps' partial sums;
//            false: a shared-memory tree over the block
//   ITEMS    elements a thread loads before the block reduces (-DITEMS=..., a macro)
#include "reduce_ops.cuh"

#ifndef ITEMS
#define ITEMS 1
#endif

__device__ __forceinline__ unsigned long long warp_sum(unsigned long long v) {
    for (int off = 16; off > 0; off /= 2)
        v = reduce_combine(v, __shfl_down_sync(0xffffffffu, v, off));
    return v;
}

template <int BLOCK, bool SHUFFLE>
__global__ void __launch_bounds__(BLOCK)
    reduce(const int* __restrict__ in, unsigned long long* out, long long n) {
    static_assert(BLOCK >= 32 && (BLOCK & (BLOCK - 1)) == 0, "BLOCK: a power of two >= 32");
    __shared__ unsigned long long partial[SHUFFLE ? BLOCK / 32 : BLOCK];
    unsigned long long acc = 0;
    const long long first = static_cast<long long>(blockIdx.x) * BLOCK * ITEMS + threadIdx.x;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const long long at = first + static_cast<long long>(i) * BLOCK;
        if (at < n) acc = reduce_combine(acc, reduce_load(in[at]));
    }
    if (SHUFFLE) {
        acc = warp_sum(acc);
        if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = acc;
        __syncthreads();
        if (threadIdx.x < 32) {
            acc = threadIdx.x < BLOCK / 32 ? partial[threadIdx.x] : 0ull;
            acc = warp_sum(acc);
            if (threadIdx.x == 0) atomicAdd(out, acc);
        }
    } else {
        partial[threadIdx.x] = acc;
        __syncthreads();
        for (int s = BLOCK / 2; s > 0; s /= 2) {
            if (threadIdx.x < s)
                partial[threadIdx.x] =
                    reduce_combine(partial[threadIdx.x], partial[threadIdx.x + s]);
            __syncthreads();
        }
        if (threadIdx.x == 0) atomicAdd(out, partial[0]);
    }
}
