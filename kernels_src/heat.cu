// Heat diffusion on a 2D grid (the thermal model of a chip, as Rodinia's hotspot simulates it):
// each step moves every cell toward its four neighbours and the ambient temperature and adds
// its power input.
//
// Temporal tiling: a block loads a tile of the grid with a halo of TT cells on each side into
// shared memory, advances it TT steps there (the valid region shrinks by one cell a step, so
// the halo is recomputed by each neighbouring block instead of exchanged), and writes the
// tile's core. A launch then does TT steps for one read and one write of the grid; what TT
// costs is the recomputed halo and shared memory, which tiles of TX x TY cells a thread, wider
// blocks and keeping the power input in shared memory (SH_POWER) trade against.
//
// The input grids are padded by PAD >= TT cells on each side, so that every output cell's
// dependence cone (TT cells around it) lies inside them: each output is the exact TT-step
// evolution of the padded grid, whatever the tiling.
#ifndef BX
#define BX 32
#define BY 8
#define TX 1
#define TY 1
#define TT 1
#define UNROLL 1
#define SH_POWER 0
#define WIDTH 4096
#define HEIGHT 4096
#endif
#ifndef PAD  // a space that tunes TT pads for its largest; one that fixes it, for TT itself
#define PAD TT
#endif

#define TILE_W (BX * TX + 2 * TT)
#define TILE_H (BY * TY + 2 * TT)
#define IN_W (WIDTH + 2 * PAD)
#define IN_H (HEIGHT + 2 * PAD)

static_assert(TT >= 1 && TT <= PAD, "the padding must hold the halo of TT steps");
static_assert(TT % UNROLL == 0, "UNROLL must divide TT");
// A pragma's argument is not macro-expanded: it takes a constant expression.
constexpr int unroll_steps = UNROLL;

// One step of one cell: the same expression everywhere, so any tiling gives the same bits.
__device__ __forceinline__ float heat_step(float c, float n, float s, float e, float w, float p,
                                           float rx, float ry, float rz, float dt) {
    const float ambient = 80.0f;
    return c + dt * (p + (n + s - 2.0f * c) * ry + (e + w - 2.0f * c) * rx + (ambient - c) * rz);
}

extern "C" __global__ void __launch_bounds__(BX * BY)
    heat(const float* __restrict__ power, const float* __restrict__ temp,
         float* __restrict__ out, float rx, float ry, float rz, float dt) {
    __shared__ float t[2][TILE_H][TILE_W];
#if SH_POWER
    __shared__ float p[TILE_H][TILE_W];
#endif
    // The tile's first cell in the padded input.
    const int x0 = blockIdx.x * (BX * TX) + PAD - TT;
    const int y0 = blockIdx.y * (BY * TY) + PAD - TT;

#pragma unroll
    for (int j = threadIdx.y; j < TILE_H; j += BY) {
#pragma unroll
        for (int i = threadIdx.x; i < TILE_W; i += BX) {
            const int x = x0 + i, y = y0 + j;
            const bool in = x < IN_W && y < IN_H;
            t[0][j][i] = in ? temp[(size_t)y * IN_W + x] : 0.0f;
#if SH_POWER
            p[j][i] = in ? power[(size_t)y * IN_W + x] : 0.0f;
#endif
        }
    }
    __syncthreads();

    int k = 0;
#pragma unroll unroll_steps
    for (int step = 1; step <= TT; ++step) {
        for (int j = threadIdx.y + step; j < TILE_H - step; j += BY) {
            for (int i = threadIdx.x + step; i < TILE_W - step; i += BX) {
#if SH_POWER
                const float pw = p[j][i];
#else
                const int x = x0 + i, y = y0 + j;
                const float pw = x < IN_W && y < IN_H ? power[(size_t)y * IN_W + x] : 0.0f;
#endif
                t[1 - k][j][i] = heat_step(t[k][j][i], t[k][j - 1][i], t[k][j + 1][i],
                                           t[k][j][i + 1], t[k][j][i - 1], pw, rx, ry, rz, dt);
            }
        }
        __syncthreads();
        k = 1 - k;
    }

#pragma unroll
    for (int tj = 0; tj < TY; ++tj) {
#pragma unroll
        for (int ti = 0; ti < TX; ++ti) {
            const int i = ti * BX + threadIdx.x, j = tj * BY + threadIdx.y;
            const int x = blockIdx.x * (BX * TX) + i, y = blockIdx.y * (BY * TY) + j;
            if (x < WIDTH && y < HEIGHT) out[(size_t)y * WIDTH + x] = t[k][j + TT][i + TT];
        }
    }
}

// The reference: TT steps computed cell by cell from the input, each output thread evolving
// its own dependence cone in local memory, with no tiling and no shared memory. Its loops stay
// rolled: unrolled, they would cost every configuration's compile more than the kernel's own.
extern "C" __global__ void heat_reference(const float* __restrict__ power,
                                          const float* __restrict__ temp, float* __restrict__ out,
                                          float rx, float ry, float rz, float dt) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= WIDTH || y >= HEIGHT) return;
    constexpr int S = 2 * TT + 1;
    float a[S][S], b[S][S];
#pragma unroll 1
    for (int j = 0; j < S; ++j)
#pragma unroll 1
        for (int i = 0; i < S; ++i)
            a[j][i] = temp[(size_t)(y + PAD - TT + j) * IN_W + (x + PAD - TT + i)];
#pragma unroll 1
    for (int step = 1; step <= TT; ++step) {
#pragma unroll 1
        for (int j = step; j < S - step; ++j)
#pragma unroll 1
            for (int i = step; i < S - step; ++i)
                b[j][i] = heat_step(a[j][i], a[j - 1][i], a[j + 1][i], a[j][i + 1], a[j][i - 1],
                                    power[(size_t)(y + PAD - TT + j) * IN_W + (x + PAD - TT + i)],
                                    rx, ry, rz, dt);
#pragma unroll 1
        for (int j = step; j < S - step; ++j)
#pragma unroll 1
            for (int i = step; i < S - step; ++i) a[j][i] = b[j][i];
    }
    out[(size_t)y * WIDTH + x] = a[TT][TT];
}
