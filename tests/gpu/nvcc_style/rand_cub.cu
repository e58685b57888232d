// Written as for nvcc, with the problem size N and the block size T as macros (the config's
// defaults): cuRAND's and cub's headers name template parameters N and T, which those macros
// would replace if the headers saw them. Counts uniform draws above one half; the count is the
// same in every configuration.
#include <curand_kernel.h>

#include <cub/block/block_reduce.cuh>
extern "C" __global__ void count_above(unsigned seed, unsigned* total) {
    unsigned count = 0;
    for (unsigned i = blockIdx.x * T + threadIdx.x; i < N; i += gridDim.x * T) {
        curandStatePhilox4_32_10_t state;
        curand_init(seed, i, 0, &state);
        count += curand_uniform(&state) > 0.5f;
    }
    using reduce = cub::BlockReduce<unsigned, T>;
    __shared__ typename reduce::TempStorage tmp;
    const unsigned sum = reduce(tmp).Sum(count);
    if (threadIdx.x == 0) atomicAdd(total, sum);
}
