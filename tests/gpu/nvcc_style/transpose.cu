// Written as for nvcc: the sizes W and H are parameter names, which hone's -D macros would
// replace (the config keeps them out with define: false); PAD is a -D macro.
// Tiled transpose: out[x][y] = in[y][x], W columns, H rows.
template <int TILE, int ROWS>
__global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int W, int H) {
    __shared__ float tile[TILE][TILE + PAD];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < W && y + j < H) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * W + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < H && y + j < W) out[(size_t)(y + j) * H + x] = tile[threadIdx.x][threadIdx.y + j];
}
