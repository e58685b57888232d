// A grid-wide sync (cooperative groups): every block must be resident at once, so the config
// asks for a cooperative launch. Integer sums: the total is the same in every configuration.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void grid_sum(const unsigned* in, unsigned* partial, unsigned* out,
                                    unsigned n) {
    cg::grid_group grid = cg::this_grid();
    __shared__ unsigned block_sum;
    if (threadIdx.x == 0) block_sum = 0;
    __syncthreads();
    unsigned acc = 0;
    for (unsigned long long i = grid.thread_rank(); i < n; i += grid.size()) acc += in[i];
    atomicAdd(&block_sum, acc);
    __syncthreads();
    if (threadIdx.x == 0) partial[blockIdx.x] = block_sum;
    grid.sync();
    if (grid.thread_rank() == 0) {
        unsigned total = 0;
        for (unsigned b = 0; b < gridDim.x; ++b) total += partial[b];
        *out = total;
    }
}
