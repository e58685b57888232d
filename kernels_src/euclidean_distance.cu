// Distances from each of n points to each of M centroids in D dimensions (float, row-major):
//   out[i * M + j] = sqrt(sum_d (points[i][d] - centroids[j][d])^2)
// Compile-time sizes (-D, from the config's problem sizes): M centroids, D dimensions.
// Tuning parameters (-D):
//   BLOCK       threads per block, a multiple of M
//   PPT         points per thread: how many points each thread's group walks through
//   USE_SHARED  1: the block first stages its points in shared memory with coalesced loads;
//               0: threads read points straight from global memory (through L1)
//
// Thread t owns centroid t % M and keeps it in registers; the block's BLOCK / M groups of M
// threads each walk PPT points. All threads of a group read the same point (a broadcast) and
// write the M distances of that point side by side (one coalesced row of out).

static_assert(D % 4 == 0, "points and centroids are read as float4: D must be a multiple of 4");
static_assert(BLOCK % M == 0, "a block holds whole groups of M threads");

constexpr int GROUPS = BLOCK / M;
constexpr int TILE_POINTS = GROUPS * PPT;  // points handled by one block

__device__ __forceinline__ float distance(const float4* __restrict__ p, const float (&c)[D]) {
    float sum = 0.0f;
#pragma unroll
    for (int d = 0; d < D / 4; ++d) {
        const float4 x = p[d];
        const float e0 = x.x - c[4 * d + 0], e1 = x.y - c[4 * d + 1];
        const float e2 = x.z - c[4 * d + 2], e3 = x.w - c[4 * d + 3];
        sum += e0 * e0 + e1 * e1 + e2 * e2 + e3 * e3;
    }
    return sqrtf(sum);
}

extern "C" __global__ void __launch_bounds__(BLOCK)
euclidean_distance(const float* __restrict__ points, const float* __restrict__ centroids,
                   float* __restrict__ out, long long n) {
    const int j = threadIdx.x % M;
    const int group = threadIdx.x / M;
    const long long first = static_cast<long long>(blockIdx.x) * TILE_POINTS;

    float c[D];
    const float4* cv = reinterpret_cast<const float4*>(centroids + j * D);
#pragma unroll
    for (int d = 0; d < D / 4; ++d) {
        const float4 x = __ldg(&cv[d]);
        c[4 * d + 0] = x.x; c[4 * d + 1] = x.y; c[4 * d + 2] = x.z; c[4 * d + 3] = x.w;
    }

#if USE_SHARED
    // The block's points are one contiguous run of TILE_POINTS * D floats: copy it with
    // consecutive threads on consecutive float4s; points past n are zero-filled, never written.
    __shared__ float4 tile[TILE_POINTS * D / 4];
    const float4* src = reinterpret_cast<const float4*>(points + first * D);
    const long long valid_vecs = (n - first) * (D / 4);
    for (int v = threadIdx.x; v < TILE_POINTS * D / 4; v += BLOCK)
        tile[v] = v < valid_vecs ? src[v] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    __syncthreads();
#endif

    // Unrolled with a guard rather than a break, so that several points' independent sums
    // overlap (about 5% on an H100).
#pragma unroll 4
    for (int q = 0; q < PPT; ++q) {
        const int local = q * GROUPS + group;  // groups interleave: neighbouring rows of out
        const long long i = first + local;
        if (i >= n) continue;
#if USE_SHARED
        const float4* p = &tile[local * (D / 4)];
#else
        const float4* p = reinterpret_cast<const float4*>(points + i * D);
#endif
        out[i * M + j] = distance(p, c);
    }
}
