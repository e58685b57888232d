// hone's own GPU kernels: verification, the spin before a sample, input fills.
//
// Verification on the GPU counts the elements of `got` that do not match `ref`, with the same
// rule as compare_buffers() on the host (src/verify/verify.cpp): equal bits match; two NaNs
// match; finite values match within atol + rtol * |ref|; anything else (NaN, infinity, the
// poison pattern, an integer difference) does not. Only a non-zero count sends the outputs to
// the host, where compare_buffers() describes the difference.
//
// Built by nvcc into a fatbin embedded in libhone (cmake/embed_fatbin.cmake): loading it costs
// no NVRTC run in the worker, and no PTX JIT on the architectures it carries (a PTX spin
// kernel JIT-compiled at every session start cost tens of milliseconds).

#include "common/fill_values.hpp"

template <typename F, typename Bits>
__device__ void count_bad(const Bits* got, const Bits* ref, unsigned long long n, double rtol,
                          double atol, unsigned long long* bad) {
    unsigned long long mine = 0;
    const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
    for (unsigned long long i =
             static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
         i < n; i += stride) {
        const Bits gb = got[i], rb = ref[i];
        if (gb == rb) continue;
        F g, r;
        memcpy(&g, &gb, sizeof(F));
        memcpy(&r, &rb, sizeof(F));
        if (isnan(g) && isnan(r)) continue;
        if (isfinite(g) && isfinite(r)) {
            const double gd = g, rd = r;
            // Rounded as the host rounds it: no fused multiply-add.
            if (fabs(__dsub_rn(gd, rd)) <= __dadd_rn(atol, __dmul_rn(rtol, fabs(rd)))) continue;
        }
        ++mine;
    }
    if (mine) atomicAdd(bad, mine);
}

extern "C" __global__ void hone_compare_f32(const unsigned* got, const unsigned* ref,
                                            unsigned long long n, double rtol, double atol,
                                            unsigned long long* bad) {
    count_bad<float>(got, ref, n, rtol, atol, bad);
}

extern "C" __global__ void hone_compare_f64(const unsigned long long* got,
                                            const unsigned long long* ref, unsigned long long n,
                                            double rtol, double atol, unsigned long long* bad) {
    count_bad<double>(got, ref, n, rtol, atol, bad);
}

// Integers of any width (elem bytes each): any difference counts.
extern "C" __global__ void hone_compare_int(const unsigned char* got, const unsigned char* ref,
                                            unsigned long long n, unsigned elem,
                                            unsigned long long* bad) {
    unsigned long long mine = 0;
    const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
    for (unsigned long long i =
             static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
         i < n; i += stride) {
        bool differs = false;
        for (unsigned b = 0; b < elem; ++b) differs |= got[i * elem + b] != ref[i * elem + b];
        mine += differs;
    }
    if (mine) atomicAdd(bad, mine);
}

// Spins for `cycles` cycles of the SM clock: timed by events, it tells the clock the GPU runs at
// (cycles / time), which the session warms up before measuring (src/measure/warm_up.hpp).
extern "C" __global__ void hone_spin_cycles(unsigned long long cycles) {
    const long long start = clock64();
    while (clock64() - start < static_cast<long long>(cycles)) {
    }
}

// Waits `ns` nanoseconds on the GPU's global timer: queued before a sample's start event, it
// keeps the stream busy while the host queues the event and the measured launch.
extern "C" __global__ void hone_spin(unsigned long long ns) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

// Evicts L2 by reading `n` 16-byte words through it (ld.global.cg: cached in L2, not in L1).
// A memset flush left L2 full of dirty lines that the timed kernel then wrote back (13-31% over
// Nsight Compute at 4-64 MiB working sets on an H100); after a read, L2 holds clean lines
// that cost nothing to evict. `sink` is written only if the words' XOR equals `key`, so the
// loads cannot be optimised away and, almost always, nothing is written.
extern "C" __global__ void hone_flush_l2(const uint4* buf, unsigned long long n, unsigned key,
                                         unsigned* sink) {
    unsigned acc = 0;
    const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
    for (unsigned long long i =
             static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
         i < n; i += stride) {
        const uint4 v = __ldcg(buf + i);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == key) *sink = acc;
}

// Fills out's n elements as the host fills an image (common/fill_values.hpp: the same bytes):
// one element a thread per step, or one Box-Muller pair for a normal fill. size: the type's
// bytes, elem_size(type) on the host.
extern "C" __global__ void hone_fill(unsigned char* out, unsigned long long n, int type, int size,
                                     int kind, double a, double b, unsigned long long key,
                                     int ints) {
    hone::fill::gen g;
    g.type = type;
    g.kind = kind;
    g.a = a;
    g.b = b;
    g.key = key;
    g.ints = ints != 0;
    const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
    const unsigned long long first =
        static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (kind == hone::fill::kind_normal) {
        for (unsigned long long i = 2 * first; i < n; i += 2 * stride) {
            double x0, x1;
            hone::fill::normal_pair(g, i, x0, x1);
            hone::fill::store(type, x0, out + i * size);
            if (i + 1 < n) hone::fill::store(type, x1, out + (i + 1) * size);
        }
        return;
    }
    for (unsigned long long i = first; i < n; i += stride)
        hone::fill::store(type, hone::fill::value_at(g, i), out + i * size);
}
