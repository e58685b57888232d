// Probe for the first-samples bias of flushed sample rounds (bench/RESULTS.md): times a small
// vector add in rounds of queued samples, each after an L2 flush, with several ways of flushing
// and of separating the flush from the sample, and prints the mean of each position of a round
// relative to the variant's median. Built by bench/build.sh; runs in a second.
// A second table compares, for rounds of one flushed sample, holding the round behind a gate
// (cuStreamWaitValue32 on a host word, released once it is queued) against not: the host time
// per sample, and the median.
//   probe_flush [N=65536] [rounds=200]
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_check.hpp"

__global__ void vadd(const float* a, const float* b, float* c, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

__global__ void flush_kernel(uint4* p, size_t n) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x)
        p[i] = make_uint4(0, 0, 0, 0);
}

__global__ void spin(unsigned long long ns) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    while (t - t0 < ns);
}

enum class flush_by { memset2, memset1, kernel2, memset2_spin, none };
const char* name(flush_by f) {
    switch (f) {
        case flush_by::memset2:
            return "memset 2xL2";
        case flush_by::memset1:
            return "memset 1xL2";
        case flush_by::kernel2:
            return "kernel 2xL2";
        case flush_by::memset2_spin:
            return "memset 2xL2 + spin 2us";
        case flush_by::none:
            return "no flush";
    }
    return "";
}

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 65536;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 200;
    int l2 = 0;
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    float *a, *b, *c;
    CK(cudaMalloc(&a, n * 4));
    CK(cudaMalloc(&b, n * 4));
    CK(cudaMalloc(&c, n * 4));
    CK(cudaMemset(a, 0, n * 4));
    CK(cudaMemset(b, 0, n * 4));
    const size_t flush_bytes = 2 * size_t(l2);
    void* fl;
    CK(cudaMalloc(&fl, flush_bytes));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const int per_round = 10;
    std::vector<cudaEvent_t> ev(2 * per_round);
    for (auto& e : ev) CK(cudaEventCreate(&e));
    const int block = 256, grid = (n + block - 1) / block;
    for (int i = 0; i < 2000; ++i) vadd<<<grid, block, 0, s>>>(a, b, c, n);
    CK(cudaStreamSynchronize(s));
    std::printf("N=%d, L2 %d bytes, rounds of %d samples, %d rounds (and rounds of 1)\n", n, l2,
                per_round, rounds);
    for (flush_by f : {flush_by::memset2, flush_by::memset1, flush_by::kernel2,
                       flush_by::memset2_spin, flush_by::none}) {
        for (int count : {per_round, 1}) {
            std::vector<std::vector<double>> pos(count);
            std::vector<double> all;
            for (int r = 0; r < (count == 1 ? rounds * 3 : rounds); ++r) {
                for (int i = 0; i < count; ++i) {
                    switch (f) {
                        case flush_by::memset2:
                        case flush_by::memset2_spin:
                            CK(cudaMemsetAsync(fl, 0, flush_bytes, s));
                            break;
                        case flush_by::memset1:
                            CK(cudaMemsetAsync(fl, 0, flush_bytes / 2, s));
                            break;
                        case flush_by::kernel2:
                            flush_kernel<<<132 * 4, 512, 0, s>>>(static_cast<uint4*>(fl),
                                                                 flush_bytes / 16);
                            break;
                        case flush_by::none:
                            break;
                    }
                    if (f == flush_by::memset2_spin) spin<<<1, 1, 0, s>>>(2000);
                    CK(cudaEventRecord(ev[2 * i], s));
                    vadd<<<grid, block, 0, s>>>(a, b, c, n);
                    CK(cudaEventRecord(ev[2 * i + 1], s));
                }
                CK(cudaStreamSynchronize(s));
                for (int i = 0; i < count; ++i) {
                    float ms = 0;
                    CK(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]));
                    pos[i].push_back(ms * 1000.0);
                    all.push_back(ms * 1000.0);
                }
            }
            std::sort(all.begin(), all.end());
            const double med = all[all.size() / 2];
            std::printf("%-24s rounds of %2d: median %.3f us; by position (mean / median):",
                        name(f), count, med);
            for (auto& p : pos) {
                double sum = 0;
                for (double x : p) sum += x;
                std::printf(" %.3f", sum / p.size() / med);
            }
            std::printf("\n");
        }
    }
    // Rounds of one flushed sample, gated or not.
    unsigned* word = nullptr;
    CK(cudaHostAlloc(&word, sizeof(unsigned), cudaHostAllocMapped));
    *word = 0;
    unsigned* dword = nullptr;
    CK(cudaHostGetDevicePointer(&dword, word, 0));
    unsigned value = 0;
    for (int pass = 0; pass < 2; ++pass) {
        for (bool gated : {false, true}) {
            std::vector<double> all;
            const int count = rounds * 5;
            const auto t0 = std::chrono::steady_clock::now();
            for (int r = 0; r < count; ++r) {
                if (gated) {
                    ++value;
                    if (cuStreamWaitValue32(s, reinterpret_cast<CUdeviceptr>(dword), value,
                                            CU_STREAM_WAIT_VALUE_GEQ) != CUDA_SUCCESS) {
                        std::printf("no cuStreamWaitValue32\n");
                        return 1;
                    }
                }
                CK(cudaMemsetAsync(fl, 0, flush_bytes / 2, s));
                CK(cudaEventRecord(ev[0], s));
                vadd<<<grid, block, 0, s>>>(a, b, c, n);
                CK(cudaEventRecord(ev[1], s));
                if (gated) __atomic_store_n(word, value, __ATOMIC_RELEASE);
                CK(cudaEventSynchronize(ev[1]));
                float ms = 0;
                CK(cudaEventElapsedTime(&ms, ev[0], ev[1]));
                all.push_back(ms * 1000.0);
            }
            const double host_us =
                std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                    .count() /
                count;
            std::sort(all.begin(), all.end());
            std::printf(
                "rounds of 1, memset 1xL2, %-9s: median %.3f us, p10 %.3f, p90 %.3f; host "
                "time per sample %.1f us\n",
                gated ? "gated" : "not gated", all[all.size() / 2], all[all.size() / 10],
                all[all.size() * 9 / 10], host_us);
        }
    }
    return 0;
}
