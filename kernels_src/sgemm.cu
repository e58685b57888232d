// C = alpha * A * B + beta * C in FP32, row-major: A is M x K, B is K x N, C is M x N.
// A classic register-tiled SIMT SGEMM whose tile shape is set at compile time (-D):
//   BM, BN, BK  block tile: the block computes a BM x BN tile of C, stepping over K by BK
//   TM, TN      thread tile: each thread accumulates TM x TN outputs in registers (multiples of 4)
//   VEC         4: float4 loads of A and B tiles and float4 C updates; 1: scalar accesses
//   PAD         floats of padding per shared-memory row (0 or 4, keeping rows 16-byte aligned)
//   UNROLL      1: unroll the inner k loop fully; 0: keep it rolled (smaller code, fewer registers)
// Block threads = (BM / TM) * (BN / TN), launched as grid (N / BN, M / BM). M, N and K must be
// multiples of BM, BN and BK: the config's constraints guarantee it, so there are no bounds checks.
//
// A thread's TM rows are not contiguous: they are TM/4 groups of 4 rows spaced BM/(TM/4) apart
// (likewise for columns). Neighbouring threads then read neighbouring float4s of shared memory
// (no bank conflicts) and write neighbouring float4s of C (coalesced).

constexpr int THREADS = (BM / TM) * (BN / TN);
constexpr int AS_STRIDE = BM + PAD;  // As holds the A tile transposed: As[k][m]
constexpr int BS_STRIDE = BN + PAD;  // Bs[k][n]

static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are read as float4");
static_assert(BM % TM == 0 && BN % TN == 0, "thread tiles must divide the block tile");
static_assert(VEC == 1 || (VEC == 4 && BK % 4 == 0), "float4 loads of A need BK % 4 == 0");
static_assert((BM * BK / VEC) % THREADS == 0 && (BK * BN / VEC) % THREADS == 0,
              "every thread loads the same number of A and B elements");
static_assert(PAD % 4 == 0, "padding keeps shared rows 16-byte aligned");

// Copies the BM x BK tile of A at (row0, k0) into As, transposed so that the compute loop reads
// TM consecutive rows of one k as float4s.
__device__ __forceinline__ void load_a_tile(const float* __restrict__ a, float* as, int k_total,
                                            int row0, int k0) {
    constexpr int PER_ROW = BK / VEC;  // vectors in one row of the tile
#pragma unroll
    for (int i = 0; i < BM * PER_ROW / THREADS; ++i) {
        const int v = i * THREADS + threadIdx.x;  // consecutive threads, consecutive vectors
        const int r = v / PER_ROW;
        const int k = (v % PER_ROW) * VEC;
        const float* src = a + static_cast<long long>(row0 + r) * k_total + k0 + k;
        if constexpr (VEC == 4) {
            const float4 x = *reinterpret_cast<const float4*>(src);
            as[(k + 0) * AS_STRIDE + r] = x.x;
            as[(k + 1) * AS_STRIDE + r] = x.y;
            as[(k + 2) * AS_STRIDE + r] = x.z;
            as[(k + 3) * AS_STRIDE + r] = x.w;
        } else {
            as[k * AS_STRIDE + r] = *src;
        }
    }
}

// Copies the BK x BN tile of B at (k0, col0) into Bs, keeping its layout.
__device__ __forceinline__ void load_b_tile(const float* __restrict__ b, float* bs, int n_total,
                                            int k0, int col0) {
    constexpr int PER_ROW = BN / VEC;
#pragma unroll
    for (int i = 0; i < BK * PER_ROW / THREADS; ++i) {
        const int v = i * THREADS + threadIdx.x;
        const int k = v / PER_ROW;
        const int c = (v % PER_ROW) * VEC;
        const float* src = b + static_cast<long long>(k0 + k) * n_total + col0 + c;
        if constexpr (VEC == 4) {
            *reinterpret_cast<float4*>(&bs[k * BS_STRIDE + c]) = *reinterpret_cast<const float4*>(src);
        } else {
            bs[k * BS_STRIDE + c] = *src;
        }
    }
}

// acc[i][j] += a[i] * b[j] over the BK columns of the current shared tiles.
__device__ __forceinline__ void multiply_tiles(const float* as, const float* bs, int trow, int tcol,
                                               float (&acc)[TM][TN]) {
#if UNROLL
#pragma unroll
#else
#pragma unroll 1
#endif
    for (int k = 0; k < BK; ++k) {
        float ra[TM], rb[TN];
#pragma unroll
        for (int g = 0; g < TM / 4; ++g) {
            const float4 x = *reinterpret_cast<const float4*>(&as[k * AS_STRIDE + (g * (BM / TM) + trow) * 4]);
            ra[g * 4 + 0] = x.x; ra[g * 4 + 1] = x.y; ra[g * 4 + 2] = x.z; ra[g * 4 + 3] = x.w;
        }
#pragma unroll
        for (int g = 0; g < TN / 4; ++g) {
            const float4 x = *reinterpret_cast<const float4*>(&bs[k * BS_STRIDE + (g * (BN / TN) + tcol) * 4]);
            rb[g * 4 + 0] = x.x; rb[g * 4 + 1] = x.y; rb[g * 4 + 2] = x.z; rb[g * 4 + 3] = x.w;
        }
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
            for (int j = 0; j < TN; ++j) acc[i][j] += ra[i] * rb[j];
    }
}

// C = alpha * acc + beta * C for the thread's TM x TN outputs; four consecutive columns at a time.
__device__ __forceinline__ void store_c(float* __restrict__ c, int n_total, int row0, int col0,
                                        int trow, int tcol, const float (&acc)[TM][TN],
                                        float alpha, float beta) {
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = row0 + ((i / 4) * (BM / TM) + trow) * 4 + i % 4;
#pragma unroll
        for (int g = 0; g < TN / 4; ++g) {
            float* dst = c + static_cast<long long>(row) * n_total + col0 + (g * (BN / TN) + tcol) * 4;
            if constexpr (VEC == 4) {
                float4 x = *reinterpret_cast<float4*>(dst);
                x.x = alpha * acc[i][g * 4 + 0] + beta * x.x;
                x.y = alpha * acc[i][g * 4 + 1] + beta * x.y;
                x.z = alpha * acc[i][g * 4 + 2] + beta * x.z;
                x.w = alpha * acc[i][g * 4 + 3] + beta * x.w;
                *reinterpret_cast<float4*>(dst) = x;
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j) dst[j] = alpha * acc[i][g * 4 + j] + beta * dst[j];
            }
        }
    }
}

extern "C" __global__ void __launch_bounds__(THREADS)
sgemm(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
      int n, int k, float alpha, float beta) {
    // Static shared memory: sizes are compile-time constants, and the config keeps the sum
    // under the 48 KiB that needs no opt-in.
    __shared__ __align__(16) float as[BK * AS_STRIDE];
    __shared__ __align__(16) float bs[BK * BS_STRIDE];

    const int row0 = blockIdx.y * BM;
    const int col0 = blockIdx.x * BN;
    const int trow = threadIdx.x / (BN / TN);
    const int tcol = threadIdx.x % (BN / TN);

    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < k; k0 += BK) {
        load_a_tile(a, as, k, row0, k0);
        load_b_tile(b, bs, n, k0, col0);
        __syncthreads();  // tiles complete before anyone reads them
        multiply_tiles(as, bs, trow, tcol, acc);
        __syncthreads();  // everyone done reading before the next tiles overwrite them
    }
    store_c(c, n, row0, col0, trow, tcol, acc, alpha, beta);
}
