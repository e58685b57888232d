// C = alpha * A * B + beta * C in FP32, row-major: A is M x K, B is K x N, C is M x N.
// A SIMT SGEMM with a large tuning space (configs/sgemm_large.yaml), set at compile time (-D):
//   BM, BN, BK   block tile: a block computes a BM x BN tile of C, stepping over K by BK
//   WM, WN       warp tile: each warp computes a WM x WN part of the block tile
//   TM, TN       thread tile: each thread accumulates TM x TN outputs in registers (multiples
//                of 4), its 32 lanes laid out (WM / TM) x (WN / TN) in the warp tile
//   ASYNC        0: tiles go global -> registers -> shared memory; 1: cp.async (sm_80+), global
//                -> shared directly
//   STAGES       shared-memory tiles in flight: 1 (load, sync, compute, sync); 2 with ASYNC=0:
//                the next tile is fetched into registers while the current one is computed;
//                2..4 with ASYNC=1: a cp.async pipeline STAGES - 1 tiles ahead
//   A_T          1: the A tile is stored transposed (As[k][m], read as float4 along m; needs
//                ASYNC=0, since cp.async cannot transpose); 0: as in memory (As[m][k], read as
//                float4 along k)
//   PAD          floats of padding per shared-memory row (0 or 4: rows stay 16-byte aligned)
//   SPLITK       slices of K, one block per (tile, slice), grid.y = SPLITK: see splitk_epilogue
//   GROUP_M      block rasterisation: consecutive blocks walk GROUP_M tile rows column by
//                column, so that the A rows and B columns in use stay in L2
// Block threads = (BM / WM) * (BN / WN) * 32; grid = ((M / BM) * (N / BN), SPLITK); dynamic
// shared memory = 4 * STAGES * (A tile + B tile) bytes, padding included. M, N and K must be
// multiples of BM, BN and BK * SPLITK: the config's constraints guarantee it, so there are no
// bounds checks. Tile loads that do not divide evenly among the threads are guarded.
//
// Split-K in one launch (hone times repeated launches of one kernel, and C is read by each):
// every slice writes its partial tile to its own slot of the workspace `ws` (SPLITK x M x N
// floats), then counts itself in `flags[tile]`; the block that arrives last adds the slots in
// slice order (so the result does not depend on arrival order) and writes C = alpha * sum +
// beta * C, then sets the counter back to 0 for the next launch. No block ever waits on another,
// so nothing depends on the order in which blocks are scheduled. `flags` must be zero before
// the first launch (the config's `init: {zeros: true}`).
//
// Every compile-time quantity is derived below; the host emulator (tests/emu) compiles this
// file as C++ with SGEMM_HOST_EMULATION defined and its own versions of the CUDA built-ins.

#ifndef SGEMM_HOST_EMULATION
// cp.async: 16 bytes from global to shared memory, bypassing L1 and registers.
__device__ __forceinline__ void cp_async16(float* smem_dst, const float* gmem_src) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem_dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(gmem_src)
                 : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}
// Waits until at most PENDING of this thread's committed groups are still in flight.
template <int PENDING>
__device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
}
#define SGEMM_DYNAMIC_SHARED(name) extern __shared__ __align__(16) float name[]
#endif

namespace sgemm_large_detail {

constexpr int WARPS_M = BM / WM;
constexpr int WARPS_N = BN / WN;
constexpr int THREADS = WARPS_M * WARPS_N * 32;
constexpr int LANES_M = WM / TM;  // lanes along m in a warp tile
constexpr int LANES_N = WN / TN;
constexpr int AS_LD = A_T ? BM + PAD : BK + PAD;  // leading dimension of the A tile in smem
constexpr int AS_SIZE = A_T ? BK * AS_LD : BM * AS_LD;
constexpr int BS_LD = BN + PAD;
constexpr int BS_SIZE = BK * BS_LD;
constexpr int STAGE_SIZE = AS_SIZE + BS_SIZE;  // floats of one stage (A tile, then B tile)
constexpr int A_VECS = BM * BK / 4;            // float4s of one A tile
constexpr int B_VECS = BK * BN / 4;
constexpr int A_ITERS = (A_VECS + THREADS - 1) / THREADS;
constexpr int B_ITERS = (B_VECS + THREADS - 1) / THREADS;

static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must divide the block tile");
static_assert(WM % TM == 0 && WN % TN == 0, "thread tiles must divide the warp tile");
static_assert(LANES_M * LANES_N == 32, "a warp tile holds exactly 32 thread tiles");
static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are read and written as float4");
static_assert(BK % 4 == 0 && PAD % 4 == 0, "tiles are copied as float4 into 16-byte rows");
static_assert(ASYNC == 0 || ASYNC == 1, "ASYNC is 0 or 1");
static_assert(A_T == 0 || A_T == 1, "A_T is 0 or 1");
static_assert(ASYNC == 0 || A_T == 0, "cp.async copies as is: no transposed A tile");
static_assert(STAGES >= 1 && (ASYNC ? STAGES <= 4 : STAGES <= 2), "pipeline depth");
static_assert(SPLITK >= 1 && SPLITK <= 4, "the workspace holds 4 slices");
static_assert(GROUP_M >= 1, "GROUP_M >= 1");

// The tile of C that block `pid` computes: groups of GROUP_M tile rows, walked column by
// column; the last group may be shorter. A bijection of [0, tiles_m * tiles_n).
__device__ __forceinline__ void tile_of(int pid, int tiles_m, int tiles_n, int& tm, int& tn) {
    const int per_group = GROUP_M * tiles_n;
    const int first_m = (pid / per_group) * GROUP_M;
    const int left = tiles_m - first_m;
    const int rows = left < GROUP_M ? left : GROUP_M;
    const int in_group = pid % per_group;
    tm = first_m + in_group % rows;
    tn = in_group / rows;
}

// Row (in the block tile) of the thread's i-th accumulator row. With A transposed, rows come in
// groups of 4 consecutive rows (one float4 of As[k][.]); otherwise lanes take consecutive rows
// (neighbouring lanes read neighbouring rows of As[.][k], on different banks with PAD = 4).
__device__ __forceinline__ int acc_row(int warp_m, int lane_m, int i) {
    if constexpr (A_T)
        return warp_m * WM + (i / 4) * (4 * LANES_M) + lane_m * 4 + i % 4;
    else
        return warp_m * WM + i * LANES_M + lane_m;
}

// Column (in the block tile) of the thread's j-th accumulator column: groups of 4 consecutive
// columns, neighbouring lanes on neighbouring float4s.
__device__ __forceinline__ int acc_col(int warp_n, int lane_n, int j) {
    return warp_n * WN + (j / 4) * (4 * LANES_N) + lane_n * 4 + j % 4;
}

// The float4s of the BM x BK A tile at (row0, k0) and of the BK x BN B tile at (k0, col0):
// vector v of a tile is its (v / per_row)-th row, (v % per_row)-th float4; thread t takes
// v = t, t + THREADS, ... Consecutive threads read consecutive float4s of a row.
struct tile_ptrs {
    const float* a;  // A tile's first element in global memory
    const float* b;
    int k_total, n_total;
};

__device__ __forceinline__ const float* a_src(const tile_ptrs& p, int v) {
    return p.a + static_cast<long long>(v / (BK / 4)) * p.k_total + (v % (BK / 4)) * 4;
}
__device__ __forceinline__ const float* b_src(const tile_ptrs& p, int v) {
    return p.b + static_cast<long long>(v / (BN / 4)) * p.n_total + (v % (BN / 4)) * 4;
}
// Where vector v of the A tile goes in As when stored as in memory (A_T = 0).
__device__ __forceinline__ int a_dst(int v) {
    return (v / (BK / 4)) * AS_LD + (v % (BK / 4)) * 4;
}
__device__ __forceinline__ int b_dst(int v) {
    return (v / (BN / 4)) * BS_LD + (v % (BN / 4)) * 4;
}

// Whether vector it * THREADS + tid exists (always, when the tile divides evenly).
template <int VECS>
__device__ __forceinline__ bool owns(int it, int tid) {
    return VECS % THREADS == 0 || it * THREADS + tid < VECS;
}

#if ASYNC
// Issues the cp.async copies of one stage (A and B tiles); the caller commits the group.
__device__ __forceinline__ void copy_tiles_async(const tile_ptrs& p, float* stage, int tid) {
#pragma unroll
    for (int it = 0; it < A_ITERS; ++it) {
        const int v = it * THREADS + tid;
        if (owns<A_VECS>(it, tid)) cp_async16(stage + a_dst(v), a_src(p, v));
    }
#pragma unroll
    for (int it = 0; it < B_ITERS; ++it) {
        const int v = it * THREADS + tid;
        if (owns<B_VECS>(it, tid)) cp_async16(stage + AS_SIZE + b_dst(v), b_src(p, v));
    }
}
#endif

// Registers holding one thread's share of a tile pair on its way to shared memory.
struct staged_tiles {
    float4 a[A_ITERS];
    float4 b[B_ITERS];
};

__device__ __forceinline__ void fetch_tiles(const tile_ptrs& p, staged_tiles& r, int tid) {
#pragma unroll
    for (int it = 0; it < A_ITERS; ++it)
        if (owns<A_VECS>(it, tid))
            r.a[it] = *reinterpret_cast<const float4*>(a_src(p, it * THREADS + tid));
#pragma unroll
    for (int it = 0; it < B_ITERS; ++it)
        if (owns<B_VECS>(it, tid))
            r.b[it] = *reinterpret_cast<const float4*>(b_src(p, it * THREADS + tid));
}

__device__ __forceinline__ void store_tiles(const staged_tiles& r, float* stage, int tid) {
#pragma unroll
    for (int it = 0; it < A_ITERS; ++it) {
        if (!owns<A_VECS>(it, tid)) continue;
        const int v = it * THREADS + tid;
        if constexpr (A_T) {
            const int row = v / (BK / 4), k = (v % (BK / 4)) * 4;
            stage[(k + 0) * AS_LD + row] = r.a[it].x;
            stage[(k + 1) * AS_LD + row] = r.a[it].y;
            stage[(k + 2) * AS_LD + row] = r.a[it].z;
            stage[(k + 3) * AS_LD + row] = r.a[it].w;
        } else {
            *reinterpret_cast<float4*>(stage + a_dst(v)) = r.a[it];
        }
    }
#pragma unroll
    for (int it = 0; it < B_ITERS; ++it)
        if (owns<B_VECS>(it, tid))
            *reinterpret_cast<float4*>(stage + AS_SIZE + b_dst(it * THREADS + tid)) = r.b[it];
}

// The thread's B operands at row k of the B tile: TN / 4 float4s.
__device__ __forceinline__ void read_b(const float* bs, int k, int warp_n, int lane_n,
                                       float (&rb)[TN]) {
#pragma unroll
    for (int g = 0; g < TN / 4; ++g) {
        const float4 x =
            *reinterpret_cast<const float4*>(&bs[k * BS_LD + acc_col(warp_n, lane_n, g * 4)]);
        rb[g * 4 + 0] = x.x;
        rb[g * 4 + 1] = x.y;
        rb[g * 4 + 2] = x.z;
        rb[g * 4 + 3] = x.w;
    }
}

// acc[i][j] += A[row_i][k] * B[k][col_j] for the BK values of k of one stage, k ascending.
__device__ __forceinline__ void multiply_stage(const float* stage, int warp_m, int warp_n,
                                               int lane_m, int lane_n, float (&acc)[TM][TN]) {
    const float* as = stage;
    const float* bs = stage + AS_SIZE;
    if constexpr (A_T) {
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float ra[TM], rb[TN];
#pragma unroll
            for (int g = 0; g < TM / 4; ++g) {
                const float4 x = *reinterpret_cast<const float4*>(
                    &as[k * AS_LD + acc_row(warp_m, lane_m, g * 4)]);
                ra[g * 4 + 0] = x.x;
                ra[g * 4 + 1] = x.y;
                ra[g * 4 + 2] = x.z;
                ra[g * 4 + 3] = x.w;
            }
            read_b(bs, k, warp_n, lane_n, rb);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
        }
    } else {
#pragma unroll
        for (int k4 = 0; k4 < BK; k4 += 4) {
            float ra[TM][4];  // rows i, columns k4 .. k4 + 3
#pragma unroll
            for (int i = 0; i < TM; ++i) {
                const float4 x =
                    *reinterpret_cast<const float4*>(&as[acc_row(warp_m, lane_m, i) * AS_LD + k4]);
                ra[i][0] = x.x;
                ra[i][1] = x.y;
                ra[i][2] = x.z;
                ra[i][3] = x.w;
            }
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                float rb[TN];
                read_b(bs, k4 + q, warp_n, lane_n, rb);
#pragma unroll
                for (int i = 0; i < TM; ++i)
#pragma unroll
                    for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(ra[i][q], rb[j], acc[i][j]);
            }
        }
    }
}

// The main loop over `tiles` k-tiles starting at p; smem holds STAGES stages.
__device__ __forceinline__ void main_loop(tile_ptrs p, int tiles, float* smem, int tid, int warp_m,
                                          int warp_n, int lane_m, int lane_n,
                                          float (&acc)[TM][TN]) {
    const long long b_step = static_cast<long long>(BK) * p.n_total;  // B advances BK rows
#if ASYNC
    if constexpr (STAGES == 1) {
        for (int t = 0; t < tiles; ++t) {
            copy_tiles_async(p, smem, tid);
            cp_async_commit();
            cp_async_wait<0>();
            __syncthreads();  // everyone's copies landed
            multiply_stage(smem, warp_m, warp_n, lane_m, lane_n, acc);
            __syncthreads();  // everyone done reading before the next copies
            p.a += BK;
            p.b += b_step;
        }
    } else {
        // Group g holds tile g: the prologue commits tiles 0 .. STAGES - 2, iteration t commits
        // tile t + STAGES - 1 (an empty group past the end), so before iteration t's wait
        // STAGES - 1 + t groups are committed and tile t's is complete once at most
        // STAGES - 2 are pending.
        tile_ptrs next = p;
#pragma unroll
        for (int s = 0; s < STAGES - 1; ++s) {
            if (s < tiles) copy_tiles_async(next, smem + s * STAGE_SIZE, tid);
            cp_async_commit();
            next.a += BK;
            next.b += b_step;
        }
        for (int t = 0; t < tiles; ++t) {
            cp_async_wait<STAGES - 2>();
            // Tile t is in everyone's view, and everyone has finished tile t - 1, whose stage
            // the copy below overwrites.
            __syncthreads();
            if (t + STAGES - 1 < tiles)
                copy_tiles_async(next, smem + ((t + STAGES - 1) % STAGES) * STAGE_SIZE, tid);
            cp_async_commit();
            next.a += BK;
            next.b += b_step;
            multiply_stage(smem + (t % STAGES) * STAGE_SIZE, warp_m, warp_n, lane_m, lane_n, acc);
        }
    }
#else
    staged_tiles r;
    if constexpr (STAGES == 1) {
        for (int t = 0; t < tiles; ++t) {
            fetch_tiles(p, r, tid);
            store_tiles(r, smem, tid);
            __syncthreads();  // the tiles are complete before anyone reads them
            multiply_stage(smem, warp_m, warp_n, lane_m, lane_n, acc);
            __syncthreads();  // everyone done reading before the next tiles overwrite them
            p.a += BK;
            p.b += b_step;
        }
    } else {
        // Two stages: tile t + 1 travels through registers while tile t is multiplied, then
        // goes to the stage tile t - 1 used; one barrier per tile.
        fetch_tiles(p, r, tid);
        store_tiles(r, smem, tid);
        __syncthreads();
        for (int t = 0; t < tiles; ++t) {
            const bool more = t + 1 < tiles;
            if (more) {
                p.a += BK;
                p.b += b_step;
                fetch_tiles(p, r, tid);
            }
            multiply_stage(smem + (t % 2) * STAGE_SIZE, warp_m, warp_n, lane_m, lane_n, acc);
            // Everyone finished tile t - 1 before the barrier that ended iteration t - 1.
            if (more) store_tiles(r, smem + ((t + 1) % 2) * STAGE_SIZE, tid);
            __syncthreads();
        }
    }
#endif
}

// C = alpha * v + beta * C for the thread's outputs; v(i, j) gives the value of output (i, j).
template <class Value>
__device__ __forceinline__ void write_c(float* c, long long n_total, int row0, int col0, int warp_m,
                                        int warp_n, int lane_m, int lane_n, float alpha, float beta,
                                        Value v) {
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const long long row = row0 + acc_row(warp_m, lane_m, i);
#pragma unroll
        for (int g = 0; g < TN / 4; ++g) {
            float* dst = c + row * n_total + col0 + acc_col(warp_n, lane_n, g * 4);
            float4 x = *reinterpret_cast<float4*>(dst);
            x.x = alpha * v(i, g * 4 + 0) + beta * x.x;
            x.y = alpha * v(i, g * 4 + 1) + beta * x.y;
            x.z = alpha * v(i, g * 4 + 2) + beta * x.z;
            x.w = alpha * v(i, g * 4 + 3) + beta * x.w;
            *reinterpret_cast<float4*>(dst) = x;
        }
    }
}

#if SPLITK > 1
// Writes this slice's partial tile to ws[slice]; the last slice of the tile to arrive sums the
// slots in slice order into C and resets the tile's counter. The fence-then-count pattern is
// the CUDA programming guide's (__threadfence): each thread's partials are visible device-wide
// before thread 0 counts the block in; the last block fences again and reads the slots from L2
// (__ldcg), never from an L1 line another slice's block could have left on this SM.
__device__ __forceinline__ void splitk_epilogue(float* c, float* ws, int* flags, long long m_total,
                                                long long n_total, int row0, int col0, int warp_m,
                                                int warp_n, int lane_m, int lane_n, float alpha,
                                                float beta, const float (&acc)[TM][TN]) {
    __shared__ int arrived_before;
    const long long slot = m_total * n_total;
    const int slice = blockIdx.y;
    float* mine = ws + slice * slot;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const long long row = row0 + acc_row(warp_m, lane_m, i);
#pragma unroll
        for (int g = 0; g < TN / 4; ++g) {
            float* dst = mine + row * n_total + col0 + acc_col(warp_n, lane_n, g * 4);
            *reinterpret_cast<float4*>(dst) = make_float4(acc[i][g * 4 + 0], acc[i][g * 4 + 1],
                                                          acc[i][g * 4 + 2], acc[i][g * 4 + 3]);
        }
    }
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) arrived_before = atomicAdd(&flags[blockIdx.x], 1);
    __syncthreads();
    if (arrived_before != SPLITK - 1) return;  // uniform: the whole block leaves
    __threadfence();
    float sum[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const long long row = row0 + acc_row(warp_m, lane_m, i);
#pragma unroll
        for (int g = 0; g < TN / 4; ++g) {
            const long long at = row * n_total + col0 + acc_col(warp_n, lane_n, g * 4);
            float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
            for (int z = 0; z < SPLITK; ++z) {
                const float4 x = z == slice
                                     ? make_float4(acc[i][g * 4 + 0], acc[i][g * 4 + 1],
                                                   acc[i][g * 4 + 2], acc[i][g * 4 + 3])
                                     : __ldcg(reinterpret_cast<const float4*>(ws + z * slot + at));
                if (z == 0) {
                    s = x;
                } else {
                    s.x += x.x;
                    s.y += x.y;
                    s.z += x.z;
                    s.w += x.w;
                }
            }
            sum[i][g * 4 + 0] = s.x;
            sum[i][g * 4 + 1] = s.y;
            sum[i][g * 4 + 2] = s.z;
            sum[i][g * 4 + 3] = s.w;
        }
    }
    write_c(c, n_total, row0, col0, warp_m, warp_n, lane_m, lane_n, alpha, beta,
            [&](int i, int j) { return sum[i][j]; });
    // Every slice has counted: ready for the next launch.
    if (threadIdx.x == 0) flags[blockIdx.x] = 0;
}
#endif

}  // namespace sgemm_large_detail

extern "C" __global__ void __launch_bounds__(sgemm_large_detail::THREADS)
    sgemm_large(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                float* __restrict__ ws, int* __restrict__ flags, int m, int n, int k, float alpha,
                float beta) {
    using namespace sgemm_large_detail;
    SGEMM_DYNAMIC_SHARED(smem);
    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int warp_m = warp / WARPS_N, warp_n = warp % WARPS_N;
    const int lane_m = lane / LANES_N, lane_n = lane % LANES_N;
    int tile_m, tile_n;
    tile_of(blockIdx.x, m / BM, n / BN, tile_m, tile_n);
    const int row0 = tile_m * BM, col0 = tile_n * BN;
    const int k_slice = k / SPLITK;
    const int k0 = blockIdx.y * k_slice;

    tile_ptrs p;
    p.a = a + static_cast<long long>(row0) * k + k0;
    p.b = b + static_cast<long long>(k0) * n + col0;
    p.k_total = k;
    p.n_total = n;
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;
    main_loop(p, k_slice / BK, smem, tid, warp_m, warp_n, lane_m, lane_n, acc);
#if SPLITK > 1
    splitk_epilogue(c, ws, flags, m, n, row0, col0, warp_m, warp_n, lane_m, lane_n, alpha, beta,
                    acc);
#else
    (void)ws;
    (void)flags;
    write_c(c, n, row0, col0, warp_m, warp_n, lane_m, lane_n, alpha, beta,
            [&](int i, int j) { return acc[i][j]; });
#endif
}

// The verification reference: one thread per element of C, k ascending with fused multiply-adds,
// sharing no code with the tiled kernel. Launched as grid (ceil(N / 16), ceil(M / 16)), block
// (16, 16).
extern "C" __global__ void sgemm_naive(const float* __restrict__ a, const float* __restrict__ b,
                                       float* __restrict__ c, float* __restrict__ ws,
                                       int* __restrict__ flags, int m, int n, int k, float alpha,
                                       float beta) {
    (void)ws;
    (void)flags;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n) return;
    float s = 0.f;
    for (int i = 0; i < k; ++i)
        s = fmaf(a[static_cast<long long>(row) * k + i], b[static_cast<long long>(i) * n + col], s);
    const long long at = static_cast<long long>(row) * n + col;
    c[at] = alpha * s + beta * c[at];
}
