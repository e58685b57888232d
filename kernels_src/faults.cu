// y = 2 * x over n floats, broken on purpose in the ways a tuner must survive. -DMODE picks:
//    0  healthy
//    1  out-of-bounds write 4 TiB past y          -> illegal address (CUDA error 700)
//    2  device assert that fails                 -> device-side assert (710)
//    3  __trap()                                 -> unspecified launch failure (719)
//    4  never ends: spins on a volatile read     -> the watchdog's timeout
//    5  float4 load from x + 1 (4-byte aligned)  -> misaligned address (716)
//    6  y = 2 * x * (1 + 1e-3)                   -> wrong result (beyond rtol)
//    7  writes NaN                               -> wrong result
//    8  leaves the last block's elements alone   -> wrong result (unwritten output)
//    9  116 registers a thread (max 512 threads), launched with 1024 -> out of resources (701)
//   10  healthy code; the config asks for more dynamic shared memory than the device has
//       -> invalid value (1) at launch
//   99  does not compile (static_assert)
// Every thread handles one element; the grid covers n. The CUDA errors above are what an
// H100 returned to a plain runtime program.
#ifndef __CUDACC_RTC__
#include <cassert>  // NVRTC declares assert itself
#endif

#if MODE == 99
static_assert(MODE != 99, "MODE 99 fails to compile on purpose");
#endif

#if MODE == 9
// Keeps HEAVY values live at once so that ptxas needs more than 64 registers (a 1024-thread
// block gets at most 64 of the 65536 in a register file).
constexpr int HEAVY = 96;

__device__ __forceinline__ float heavy(const float* __restrict__ x, long long i, long long n) {
    float r[HEAVY];
#pragma unroll
    for (int k = 0; k < HEAVY; ++k) r[k] = x[(i + k * 977) % n];
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < HEAVY; ++k) s += r[k] * r[HEAVY - 1 - k];
    return s;
}
#endif

extern "C" __global__ void faulty(const float* __restrict__ x, float* __restrict__ y, long long n) {
    extern __shared__ float scratch[];  // MODE 10 asks for too much of it at launch
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
#if MODE == 0 || MODE == 10
    y[i] = 2.0f * x[i];
    (void)scratch;
#elif MODE == 1
    y[i + (1ll << 40)] = 2.0f * x[i];
#elif MODE == 2
    assert(i != 0);  // fails in the first thread only: one message, not a million
    y[i] = 2.0f * x[i];
#elif MODE == 3
    __trap();
#elif MODE == 4
    // A volatile load cannot be hoisted or folded, so the loop really runs; inputs never
    // reach 2, so it never ends.
    const volatile float* vx = x;
    while (vx[i] < 2.0f) {
    }
    y[i] = 2.0f * x[i];
#elif MODE == 5
    const float4 v = reinterpret_cast<const float4*>(x + 1)[i / 4];
    y[i] = 2.0f * (i % 4 == 0 ? v.x : i % 4 == 1 ? v.y : i % 4 == 2 ? v.z : v.w);
#elif MODE == 6
    y[i] = 2.0f * x[i] * (1.0f + 1e-3f);
#elif MODE == 7
    y[i] = __int_as_float(0x7fc00000);  // quiet NaN
#elif MODE == 8
    if (blockIdx.x + 1 < gridDim.x) y[i] = 2.0f * x[i];
#elif MODE == 9
    y[i] = 2.0f * x[i] + 0.0f * heavy(x, i, n);
#elif MODE != 99
#error "unknown MODE"
#endif
}
