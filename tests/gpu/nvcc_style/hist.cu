// Written as for nvcc: cub from the toolkit and atomics, the size N an argument (the config keeps
// it out of the macros with define: false).
#include <cub/block/block_reduce.cuh>
extern "C" __global__ void hist(const unsigned* in, unsigned* bins, unsigned n, unsigned* total) {
    __shared__ unsigned local[BINS];
    for (int i = threadIdx.x; i < BINS; i += blockDim.x) local[i] = 0;
    __syncthreads();
    unsigned count = 0;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        atomicAdd(&local[in[i] % BINS], 1u);
        ++count;
    }
    __syncthreads();
    for (int i = threadIdx.x; i < BINS; i += blockDim.x) atomicAdd(&bins[i], local[i]);
    using reduce = cub::BlockReduce<unsigned, BLOCK>;
    __shared__ typename reduce::TempStorage tmp;
    unsigned s = reduce(tmp).Sum(count);
    if (threadIdx.x == 0) atomicAdd(total, s);
}
